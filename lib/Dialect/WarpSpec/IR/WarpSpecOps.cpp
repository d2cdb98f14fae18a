//===- WarpSpecOps.cpp - kernel, roles, barriers, SMEM and pipelines ------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "GlobalPtrAsm.h"
#include "WarpSpecVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::warpspec;
using namespace mlir::warpspec::checks;

#define GET_OP_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> args,
                      ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(args, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

RolesOp KernelOp::getRolesOp() {
  for (Operation &op : getBody().front())
    if (auto roles = dyn_cast<RolesOp>(op))
      return roles;
  return {};
}

int64_t KernelOp::getClusterSize() {
  int64_t ctas = 1;
  if (std::optional<ArrayRef<int32_t>> cluster = getCluster())
    for (int32_t d : *cluster)
      ctas *= d;
  return ctas;
}

static bool isValidKernelArgument(Type type) {
  if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(type))
    return ptr.getAddressSpace() == 1;
  return isa<IntegerType, FloatType, TmaDescType, GlobalType>(type);
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("kernel must not return values");
  if (getTriggerDependentsAtEntry() && !getProgrammaticLaunch())
    return emitOpError("trigger_dependents_at_entry needs programmatic_launch "
                       "(only a kernel launched early has dependents that "
                       "wait for it)");
  for (auto [i, type] : llvm::enumerate(getArgumentTypes()))
    if (!isValidKernelArgument(type))
      return emitOpError("kernel argument #")
             << i << " has type " << type
             << "; expected !warpspec.global<T>, !llvm.ptr<1>, an integer, a "
                "float or !warpspec.tma_desc";
  int64_t threads = getThreads();
  if (threads % 32 != 0 || threads > 1024)
    return emitOpError("expects threads to be a multiple of 32 in [32, 1024], "
                       "got ")
           << threads;
  int64_t maxnreg = getMaxnreg();
  if (maxnreg % 8 != 0 || maxnreg < 24 || maxnreg > 256)
    return emitOpError("expects maxnreg to be a multiple of 8 in [24, 256], "
                       "got ")
           << maxnreg;
  std::optional<::megamoe::config::ChipLimits> limits =
      getChipLimits(getChip());
  if (!limits)
    return emitOpError("unsupported chip \"")
           << getChip() << "\"; expected sm_90a or sm_100a";
  if (threads * maxnreg > limits->registersPerSM)
    return emitOpError("launch needs threads x maxnreg = ")
           << threads << " x " << maxnreg << " = " << threads * maxnreg
           << " registers, more than the " << limits->registersPerSM
           << " of an SM";
  int64_t limit = limits->smemPerBlock;
  if (std::optional<ArrayRef<int32_t>> cluster = getCluster()) {
    if (cluster->size() != 3 ||
        llvm::any_of(*cluster, [](int32_t d) { return d < 1; }))
      return emitOpError("expects cluster to be 3 positive dimensions");
  }
  if (std::optional<int64_t> smem = getSmemBytes(); smem && *smem > limit)
    return emitOpError("dynamic shared memory of ")
           << *smem << " B exceeds the " << limit << " B limit of "
           << getChip();
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  unsigned numRoles = 0;
  llvm::DenseMap<int64_t, NamedBarrierOp> barrierIds;
  llvm::StringSet<> names;
  for (Operation &op : body) {
    if (isa<RolesOp>(op) && ++numRoles > 1)
      return op.emitOpError("only one warpspec.roles per kernel");
    if (auto barrier = dyn_cast<NamedBarrierOp>(op)) {
      auto [it, inserted] = barrierIds.try_emplace(barrier.getId(), barrier);
      if (!inserted)
        return barrier.emitOpError("named barrier id ")
               << barrier.getId() << " is declared twice in the kernel";
    }
    StringRef name;
    if (auto alloc = dyn_cast<SmemAllocOp>(op))
      name = alloc.getName();
    else if (auto pipe = dyn_cast<PipelineCreateOp>(op))
      name = pipe.getName();
    if (!name.empty() && !names.insert(name).second)
      return op.emitOpError("shared-memory name '")
             << name << "' is used twice in the kernel";
  }
  if (numRoles && getThreads() % 128 != 0)
    return emitOpError("kernels with roles need threads to be a multiple of "
                       "128 (setmaxnreg acts on whole warpgroups), got ")
           << getThreads();
  // sm_100: the block-scaled MMAs' TMEM partials must fit the CTA's columns.
  FailureOr<TmemPartialsPlan> tmem = planTmemPartials(*this);
  if (failed(tmem))
    return failure();
  if (tmem->columns) {
    std::optional<::megamoe::config::ChipLimits> limits =
        getChipLimits(getChip());
    int64_t available = limits ? limits->tmemColumns : 0;
    if (tmem->allocColumns > available)
      return emitOpError("needs ")
             << tmem->columns << " TMEM columns (" << tmem->warpgroups
             << " MMA warpgroups x their accumulator width, allocated as "
             << tmem->allocColumns << ") for its block-scaled MMA partials, "
             << "more than the " << available << " columns of an "
             << getChip() << " CTA";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RolesOp / RoleOp
//===----------------------------------------------------------------------===//

namespace {
/// Registers each warp of the block runs with: its role's `regs`, or the
/// kernel's entry cap for warps no role owns.
SmallVector<int64_t> registersPerWarp(KernelOp kernel, ArrayRef<RoleOp> roles) {
  SmallVector<int64_t> regs(kernel.getNumWarps(), kernel.getMaxnreg());
  for (RoleOp role : roles)
    for (unsigned w = role.getWarpBegin(); w < role.getWarpEnd(); ++w)
      regs[w] = role.getRegs();
  return regs;
}

LogicalResult verifyDisjoint(RolesOp op, SmallVector<RoleOp> roles) {
  llvm::sort(roles, [](RoleOp a, RoleOp b) {
    return a.getWarpBegin() < b.getWarpBegin();
  });
  for (size_t i = 1; i < roles.size(); ++i)
    if (roles[i].getWarpBegin() < roles[i - 1].getWarpEnd())
      return op.emitOpError("roles '")
             << roles[i - 1].getName() << "' (warps ["
             << roles[i - 1].getWarpBegin() << ", " << roles[i - 1].getWarpEnd()
             << ")) and '" << roles[i].getName() << "' (warps ["
             << roles[i].getWarpBegin() << ", " << roles[i].getWarpEnd()
             << ")) overlap";
  return success();
}

/// setmaxnreg is `.sync.aligned` over a warpgroup: every warp of a warpgroup
/// whose budget changes must be in a role, and all with the same budget.
LogicalResult verifyWarpgroupRegisters(RolesOp op, KernelOp kernel,
                                       ArrayRef<RoleOp> roles) {
  unsigned numGroups = kernel.getNumWarps() / 4;
  SmallVector<RoleOp> owner(kernel.getNumWarps());
  for (RoleOp role : roles)
    for (unsigned w = role.getWarpBegin(); w < role.getWarpEnd(); ++w)
      owner[w] = role;
  for (unsigned g = 0; g < numGroups; ++g) {
    RoleOp first;
    for (unsigned w = 4 * g; w < 4 * g + 4; ++w) {
      RoleOp role = owner[w];
      if (!role)
        continue;
      if (!first) {
        first = role;
        continue;
      }
      if (role.getRegs() != first.getRegs())
        return op.emitOpError("roles '")
               << first.getName() << "' and '" << role.getName()
               << "' share warpgroup " << g << " but ask for "
               << first.getRegs() << " and " << role.getRegs()
               << " registers; setmaxnreg applies to a whole warpgroup";
    }
    if (!first || first.getRegs() == kernel.getMaxnreg())
      continue;
    for (unsigned w = 4 * g; w < 4 * g + 4; ++w)
      if (!owner[w])
        return op.emitOpError("warp ")
               << w << " of warpgroup " << g << " has no role, but role '"
               << first.getName() << "' changes the warpgroup's registers to "
               << first.getRegs()
               << "; setmaxnreg needs every warp of the warpgroup";
  }
  return success();
}
} // namespace

LogicalResult RolesOp::verifyRegions() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  SmallVector<RoleOp> roles;
  llvm::StringSet<> names;
  for (Operation &op : getBody().front()) {
    auto role = dyn_cast<RoleOp>(op);
    if (!role)
      return op.emitOpError("is not allowed directly in warpspec.roles; put "
                            "it inside a warpspec.role");
    if (!names.insert(role.getName()).second)
      return role.emitOpError("duplicate role name '") << role.getName() << "'";
    if (role.getWarpEnd() > kernel.getNumWarps())
      return role.emitOpError("warps [")
             << role.getWarpBegin() << ", " << role.getWarpEnd()
             << ") exceed the kernel's " << kernel.getNumWarps() << " warps ("
             << kernel.getThreads() << " threads)";
    roles.push_back(role);
  }
  if (failed(verifyDisjoint(*this, roles)) ||
      failed(verifyWarpgroupRegisters(*this, kernel, roles)))
    return failure();
  int64_t total = 0;
  for (int64_t regs : registersPerWarp(kernel, roles))
    total += 32 * regs;
  // (An unknown chip is the kernel verifier's error.)
  std::optional<::megamoe::config::ChipLimits> limits =
      getChipLimits(kernel.getChip());
  if (limits && total > limits->registersPerSM)
    return emitOpError("register budget of the roles is ")
           << total << " registers (sum over warps of regs x 32), more than "
           << "the " << limits->registersPerSM << " of an SM at one CTA per SM";
  return success();
}

LogicalResult RoleOp::verify() {
  if (getWarpBegin() >= getWarpEnd())
    return emitOpError("role '")
           << getName() << "' has an empty warp range [" << getWarpBegin()
           << ", " << getWarpEnd() << ")";
  int64_t regs = getRegs();
  if (regs % 8 != 0 || regs < 24 || regs > 256)
    return emitOpError("regs must be a multiple of 8 in [24, 256] "
                       "(setmaxnreg), got ")
           << regs;
  if (getMma() && (getWarpBegin() % 4 != 0 || getWarpEnd() % 4 != 0)) {
    InFlightDiagnostic diag =
        emitOpError("role '")
        << getName() << "' issues warpgroup MMA, so its warp range ["
        << getWarpBegin() << ", " << getWarpEnd()
        << ") must be warpgroup-aligned (multiples of 4 warps)";
    auto kernel = (*this)->getParentOfType<KernelOp>();
    if (kernel && kernel.getChip().starts_with("sm_100"))
      diag << "; on " << kernel.getChip()
           << " warp w may access only TMEM lanes [32 (w mod 4), 32 (w mod 4) "
              "+ 32), so an MMA warpgroup that reads its partial must be "
              "whole";
    return diag;
  }
  return success();
}

LogicalResult RoleOp::verifyRegions() {
  if (getMma())
    return success();
  WalkResult result = getBody().walk([&](Operation *op) {
    if (isa<MmaSm90Op, MmaWaitOp, AccStoreOp, MmaBlockScaledOp>(op)) {
      op->emitOpError("is warpgroup-collective and must be in a role marked "
                      "`mma`; role '")
          << getName() << "' is not";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult RoleWarpIdOp::verify() { return verifyInsideRole(*this); }

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

static RoleOp findRole(KernelOp kernel, StringRef name) {
  if (!kernel)
    return {};
  RolesOp roles = kernel.getRolesOp();
  if (!roles)
    return {};
  for (Operation &op : roles.getBody().front())
    if (auto role = dyn_cast<RoleOp>(op); role && role.getName() == name)
      return role;
  return {};
}

unsigned NamedBarrierOp::getNumThreads() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  unsigned threads = 0;
  for (StringRef name : getRoles().getAsValueRange<StringAttr>())
    if (RoleOp role = findRole(kernel, name))
      threads += role.getNumThreads();
  return threads;
}

bool NamedBarrierOp::hasRole(StringRef name) {
  return llvm::is_contained(getRoles().getAsValueRange<StringAttr>(), name);
}

LogicalResult NamedBarrierOp::verify() {
  if (getId() < 1 || getId() > 15)
    return emitOpError("named barrier id must be in [1, 15] (0 is the block "
                       "barrier), got ")
           << getId();
  if (getRoles().empty())
    return emitOpError("named barrier ") << getId() << " lists no roles";
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel.getRolesOp())
    return success(); // nothing to resolve against yet
  for (StringRef name : getRoles().getAsValueRange<StringAttr>())
    if (!findRole(kernel, name))
      return emitOpError("named barrier ")
             << getId() << " lists role '" << name
             << "', which the kernel does not define";
  return success();
}

LogicalResult BarrierSyncOp::verify() {
  return checks::verifyBarrierUse(*this, getBarrier());
}

LogicalResult BarrierArriveOp::verify() {
  return checks::verifyBarrierUse(*this, getBarrier());
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult SmemAllocOp::verify() {
  SmemType type = getType();
  if (std::optional<int64_t> offset = getOffset();
      offset && *offset % type.getAlign() != 0)
    return emitOpError("offset ")
           << *offset << " is not a multiple of the buffer's alignment "
           << type.getAlign();
  return success();
}

LogicalResult SmemSlotOp::verify() {
  return verifyStageForBuffer(*this, getStage(), getBuffer().getType());
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

int64_t PipelineCreateOp::getBarrierBytes() {
  return ::megamoe::config::kRingBarrierBytesPerStage *
         static_cast<int64_t>(getType().getStages());
}

namespace {
/// Warps of the distinct roles that contain an op of type `OpT` on `pipe`.
template <typename OpT>
std::pair<unsigned, std::string> arrivingWarps(Value pipe) {
  llvm::SetVector<RoleOp> found;
  for (Operation *user : pipe.getUsers())
    if (isa<OpT>(user))
      if (auto role = user->getParentOfType<RoleOp>())
        found.insert(role);
  // Name the roles in warp order so the diagnostic is deterministic.
  SmallVector<RoleOp> roles(found.begin(), found.end());
  llvm::sort(roles, [](RoleOp a, RoleOp b) {
    return a.getWarpBegin() < b.getWarpBegin();
  });
  unsigned warps = 0;
  std::string names;
  for (RoleOp role : roles) {
    warps += role.getNumWarps();
    names += (names.empty() ? "'" : ", '") + role.getName().str() + "'";
  }
  return {warps, names};
}
} // namespace

LogicalResult PipelineCreateOp::verify() {
  if (std::optional<int64_t> offset = getOffset(); offset && *offset % 8 != 0)
    return emitOpError("mbarrier offset ")
           << *offset << " is not 8-byte aligned";
  auto check = [&](StringRef side, StringRef verb, unsigned expected,
                   std::pair<unsigned, std::string> found) -> LogicalResult {
    if (found.first == 0 || found.first == expected)
      return success();
    return emitOpError("pipeline '")
           << getName() << "' expects " << expected << " " << side
           << " arrival(s) per stage, but the roles that " << verb << " it ("
           << found.second << ") have " << found.first
           << " warp(s); each warp arrives once";
  };
  if (std::optional<uint32_t> ctas = getCluster())
    if (failed(verifyKernelCluster(*this, *ctas, "pipeline '" +
                                                     getName().str() + "'")))
      return failure();
  if (failed(check("producer", "commit", getProducerArrivals(),
                   arrivingWarps<ProducerCommitOp>(getResult()))) ||
      failed(check("consumer", "release", getConsumerArrivals(),
                   arrivingWarps<ConsumerReleaseOp>(getResult()))))
    return failure();
  // A ring: its buffers are the stages' slots, and only they are filled
  // through it.
  unsigned stages = getType().getStages();
  for (Value buffer : getBuffers()) {
    auto type = cast<SmemType>(buffer.getType());
    if (type.getSlots() != stages)
      return emitOpError("ring '")
             << getName() << "' has " << stages << " stages but its buffer "
             << type << " has " << type.getSlots()
             << " slot(s); a ring buffer needs one slot per stage";
  }
  if (getBuffers().empty())
    return success();
  llvm::SmallPtrSet<Value, 4> ring(getBuffers().begin(), getBuffers().end());
  for (Operation *user : getResult().getUsers()) {
    Value filled;
    if (auto load = dyn_cast<TmaLoadOp>(user))
      filled = load.getBuffer();
    else if (auto copy = dyn_cast<BulkCopyOp>(user))
      filled = copy.getBuffer();
    if (filled && !ring.contains(filled))
      return user->emitOpError("fills a buffer that is not one of ring '")
             << getName() << "''s buffers; list it in the ring's buffers(...)";
  }
  return success();
}

LogicalResult ProducerAcquireOp::verify() { return verifyInsideRole(*this); }

LogicalResult ConsumerWaitOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  if (std::optional<int64_t> j = getKnownStage()) {
    int64_t stages = getPipeline().getType().getStages();
    if (*j < 0 || *j >= stages)
      return emitOpError("known_stage ")
             << *j << " is not a stage of the " << stages
             << "-stage pipeline (0 <= known_stage < " << stages << ")";
  }
  return success();
}

LogicalResult ConsumerReleaseOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  if (getCount())
    if (auto create = getPipeline().getDefiningOp<PipelineCreateOp>())
      if (create.getClusterCtas() > 1)
        return emitOpError("count is not supported on a cluster pipeline ")
               << "(its arrivals go to every CTA's barrier)";
  return verifyStageSource(*this, getStage(), getPipeline(),
                           /*wantProducer=*/false);
}

LogicalResult ConsumerSkipOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  if (getStages() < 1 || getStages() > (int64_t(1) << 30))
    return emitOpError("skips ")
           << getStages() << " stages; expected 1 to 2^30";
  return success();
}

namespace {
constexpr int64_t kMaxTxBytes = (1 << 20) - 1;

/// Bytes per stage of the distinct buffers that copies fill through `pipe`
/// (the ring's buffers when it lists them).
int64_t bytesFilledPerStage(Value pipe) {
  llvm::SetVector<Value> buffers;
  if (auto ring = pipe.getDefiningOp<PipelineCreateOp>())
    buffers.insert(ring.getBuffers().begin(), ring.getBuffers().end());
  for (Operation *user : pipe.getUsers()) {
    if (auto load = dyn_cast<TmaLoadOp>(user))
      buffers.insert(load.getBuffer());
    else if (auto copy = dyn_cast<BulkCopyOp>(user))
      buffers.insert(copy.getBuffer());
  }
  int64_t bytes = 0;
  for (Value buffer : buffers)
    bytes += cast<SmemType>(buffer.getType()).getSlotBytes();
  return bytes;
}

/// Whether `user` is a copy into slot `stage`.
bool copiesInto(Operation *user, Value stage) {
  if (auto load = dyn_cast<TmaLoadOp>(user))
    return load.getStage() == stage;
  if (auto copy = dyn_cast<BulkCopyOp>(user))
    return copy.getStage() == stage;
  return false;
}

/// Bytes the copies of `stage` that sit in `block` deliver (copies elsewhere
/// belong to other warps' commits), or nullopt when one of them has a
/// dynamic size.
std::optional<int64_t> bytesOfStageCopiesInBlock(Value stage, Block *block) {
  int64_t bytes = 0;
  for (Operation *user : stage.getUsers()) {
    if (user->getBlock() != block)
      continue;
    if (auto load = dyn_cast<TmaLoadOp>(user); load && load.getStage() == stage)
      bytes += load.getDeliveredBytes();
    else if (auto copy = dyn_cast<BulkCopyOp>(user);
             copy && copy.getStage() == stage) {
      std::optional<int64_t> copyBytes = getConstantIntValue(copy.getBytes());
      if (!copyBytes)
        return std::nullopt;
      bytes += *copyBytes;
    }
  }
  return bytes;
}

/// Bytes the copies of `stage` deliver when all of them sit in `block`, or
/// nullopt when some copy is elsewhere (another block) or has a dynamic size.
std::optional<int64_t> bytesOfStageCopies(Value stage, Block *block) {
  for (Operation *user : stage.getUsers())
    if (copiesInto(user, stage) && user->getBlock() != block)
      return std::nullopt;
  return bytesOfStageCopiesInBlock(stage, block);
}
} // namespace

int64_t ProducerCommitOp::getExpectedTxBytes() {
  if (std::optional<uint32_t> tx = getTxBytes())
    return *tx;
  return bytesOfStageCopiesInBlock(getStage(), (*this)->getBlock())
      .value_or(0);
}

LogicalResult ProducerCommitOp::verify() {
  if (failed(verifyInsideRole(*this)) ||
      failed(verifyStageSource(*this, getStage(), getPipeline(),
                               /*wantProducer=*/true)))
    return failure();
  if (!getTxBytes() &&
      !bytesOfStageCopiesInBlock(getStage(), (*this)->getBlock()))
    return emitOpError("cannot derive the transaction bytes: a copy of this "
                       "stage in the commit's block has a dynamic size; state "
                       "them with tx_bytes");
  // Derived bytes are every copy of the stage in the block: a second commit
  // of the stage there would expect them again, and the stage would never
  // complete (a hang, not an error, on the GPU).
  if (!getTxBytes())
    for (Operation &op : *(*this)->getBlock())
      if (auto other = dyn_cast<ProducerCommitOp>(op))
        if (other != *this && other.getStage() == getStage() &&
            other.getPipeline() == getPipeline())
          return emitOpError(
              "derives its transaction bytes from every copy of the stage in "
              "its block, and another commit of that stage is in the same "
              "block (each would expect all of them): put each commit in its "
              "own block with its copies, or state tx_bytes");
  int64_t tx = getExpectedTxBytes();
  if (tx > kMaxTxBytes)
    return emitOpError("tx_bytes ")
           << tx << " exceeds the mbarrier transaction limit of "
           << kMaxTxBytes;
  int64_t perStage = bytesFilledPerStage(getPipeline());
  if (perStage > 0 && tx > perStage)
    return emitOpError("tx_bytes ")
           << tx << " exceeds the " << perStage
           << " B per stage of the buffers filled through this pipeline";
  if (getStage().getDefiningOp<ProducerAcquireOp>()) {
    std::optional<int64_t> delivered =
        bytesOfStageCopies(getStage(), (*this)->getBlock());
    if (getTxBytes() && delivered && *delivered > 0 && *delivered != tx)
      return emitOpError("tx_bytes ")
             << tx << " does not match the " << *delivered
             << " B that the copies of this stage deliver";
  }
  return success();
}
