//===- CApi.cpp - the C API of libmegamoe_runtime -------------------------===//
//
// Each entry point runs its body under guard(), which turns every exception
// into a status code and this thread's message.
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime.h"

#include "megamoe/runtime/Cache.h"
#include "megamoe/runtime/Error.h"
#include "megamoe/runtime/Layer.h"
#include "megamoe/runtime/Module.h"
#include "megamoe/runtime/Symmetric.h"
#include "megamoe/runtime/TimeoutReport.h"

#include <nccl.h>

#include <algorithm>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

using namespace megamoe::rt;

struct megamoe_module {
  std::unique_ptr<Module> impl;
};
struct megamoe_symm {
  std::unique_ptr<SymmetricMemory> impl;
};
struct megamoe_layer {
  std::unique_ptr<Layer> impl;
};

namespace {

thread_local std::string lastError;

template <typename F> megamoe_status guard(F &&body) {
  try {
    body();
    lastError.clear();
    return MEGAMOE_OK;
  } catch (const Error &e) {
    lastError = e.what();
    return (megamoe_status)e.kind();
  } catch (const std::bad_alloc &) {
    lastError = "out of host memory";
    return MEGAMOE_ERR_INTERNAL;
  } catch (const std::exception &e) {
    lastError = std::string("internal error: ") + e.what();
    return MEGAMOE_ERR_INTERNAL;
  }
}

template <typename T> void notNull(const T *p, const char *what) {
  require(p != nullptr, std::string(what) + " is null");
}

/// The C API's dtype codes (a stable ABI) and lib/Config's element types.
constexpr std::pair<megamoe_dtype, DType> kDTypeCodes[] = {
    {MEGAMOE_E4M3, DType::E4M3}, {MEGAMOE_E5M2, DType::E5M2},
    {MEGAMOE_BF16, DType::BF16}, {MEGAMOE_F16, DType::F16},
    {MEGAMOE_F32, DType::F32},   {MEGAMOE_U8, DType::U8},
    {MEGAMOE_I32, DType::I32},   {MEGAMOE_I64, DType::I64}};

std::optional<DType> fromCode(int32_t code) {
  for (auto [c, t] : kDTypeCodes)
    if (c == code)
      return t;
  return std::nullopt;
}

int32_t toCode(DType type) {
  for (auto [c, t] : kDTypeCodes)
    if (t == type)
      return c;
  throw std::logic_error(std::string("element type ") +
                         megamoe::config::toString(type) +
                         " has no megamoe_dtype code");
}

TensorDesc toDesc(const megamoe_tensor *t, const char *what) {
  notNull(t, what);
  std::optional<DType> type = fromCode(t->dtype);
  require(type.has_value(), std::string(what) + ": unknown dtype code " +
                                std::to_string(t->dtype));
  require(t->ndim >= 0 && t->ndim <= 4,
          std::string(what) + ": ndim = " + std::to_string(t->ndim) +
              " must be in [0, 4]");
  TensorDesc d;
  d.address = (uint64_t)t->data;
  d.dtype = *type;
  d.shape.assign(t->shape, t->shape + t->ndim);
  return d;
}

} // namespace

extern "C" {

const char *megamoe_last_error(void) { return lastError.c_str(); }
const char *megamoe_version(void) { return "0.1.0"; }

const char *megamoe_timeout_report(void) {
  thread_local std::string report;
  report = timeoutReport();
  return report.c_str();
}

megamoe_status megamoe_module_load(const char *manifest_path, int device,
                                   megamoe_module_t *out) {
  return guard([&] {
    notNull(manifest_path, "manifest_path");
    notNull(out, "out");
    *out = new megamoe_module{Module::loadFile(manifest_path, device)};
  });
}

megamoe_status megamoe_module_load_memory(const char *manifest_json,
                                          const void *cubin, size_t cubin_size,
                                          int device, megamoe_module_t *out) {
  return guard([&] {
    notNull(manifest_json, "manifest_json");
    notNull(out, "out");
    *out = new megamoe_module{Module::loadMemory(parseManifest(manifest_json),
                                                 cubin, cubin_size, device)};
  });
}

megamoe_status megamoe_module_destroy(megamoe_module_t module) {
  return guard([&] { delete module; });
}

megamoe_status megamoe_module_num_sms(megamoe_module_t module, int *out) {
  return guard([&] {
    notNull(module, "module");
    notNull(out, "out");
    *out = module->impl->numSms();
  });
}

megamoe_status megamoe_launch(megamoe_module_t module, const char *kernel,
                              const megamoe_arg *args, int num_args,
                              const megamoe_symbol *symbols, int num_symbols,
                              void *stream) {
  return guard([&] {
    notNull(module, "module");
    notNull(kernel, "kernel");
    require(num_args >= 0 && (num_args == 0 || args),
            "launch: args is null or num_args < 0");
    require(num_symbols >= 0 && (num_symbols == 0 || symbols),
            "launch: symbols is null or num_symbols < 0");
    ArgMap map;
    for (int i = 0; i < num_args; ++i) {
      notNull(args[i].name, "launch: an argument name");
      ArgValue v;
      v.integer = args[i].integer;
      v.real = args[i].real;
      v.address = (uint64_t)args[i].pointer;
      v.bytes = args[i].bytes;
      require(map.emplace(args[i].name, v).second,
              std::string("launch: argument '") + args[i].name +
                  "' given twice");
    }
    SymbolTable syms;
    for (int i = 0; i < num_symbols; ++i) {
      notNull(symbols[i].name, "launch: a symbol name");
      require(syms.emplace(symbols[i].name, symbols[i].value).second,
              std::string("launch: symbol '") + symbols[i].name +
                  "' given twice");
    }
    module->impl->launch(kernel, map, syms, (CUstream)stream);
  });
}

size_t megamoe_unique_id_size(void) { return sizeof(ncclUniqueId); }

megamoe_status megamoe_get_unique_id(void *out) {
  return guard([&] {
    notNull(out, "out");
    ncclUniqueId id;
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
      fail(ErrorKind::Nccl,
           std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(r));
    memcpy(out, &id, sizeof id);
  });
}

megamoe_status megamoe_symm_create(const void *unique_id, int nranks, int rank,
                                   int device, size_t bytes,
                                   megamoe_symm_t *out) {
  return guard([&] {
    notNull(out, "out");
    *out = new megamoe_symm{
        SymmetricMemory::createNccl(unique_id, nranks, rank, device, bytes)};
  });
}

megamoe_status megamoe_symm_create_with_comm(void *nccl_comm, int device,
                                             size_t bytes,
                                             megamoe_symm_t *out) {
  return guard([&] {
    notNull(out, "out");
    *out = new megamoe_symm{
        SymmetricMemory::createWithComm((ncclComm_t)nccl_comm, device, bytes)};
  });
}

megamoe_status megamoe_symm_create_from_peers(int nranks, int rank, int device,
                                              void *local, void *const *peers,
                                              size_t total_bytes,
                                              megamoe_symm_t *out) {
  return guard([&] {
    notNull(out, "out");
    notNull(peers, "peers");
    require(nranks >= 1 && nranks <= SymmetricMemory::kMaxRanks,
            "symmetric memory: nranks = " + std::to_string(nranks) +
                " out of range");
    std::vector<uint64_t> p(nranks);
    for (int i = 0; i < nranks; ++i)
      p[i] = (uint64_t)peers[i];
    *out = new megamoe_symm{SymmetricMemory::createFromPeers(
        nranks, rank, device, local, p, total_bytes)};
  });
}

megamoe_status megamoe_symm_destroy(megamoe_symm_t symm) {
  return guard([&] { delete symm; });
}

megamoe_status megamoe_symm_info(megamoe_symm_t symm, void **local,
                                 size_t *usable_bytes, int *rank, int *nranks) {
  return guard([&] {
    notNull(symm, "symm");
    if (local)
      *local = symm->impl->local();
    if (usable_bytes)
      *usable_bytes = symm->impl->usableBytes();
    if (rank)
      *rank = symm->impl->rank();
    if (nranks)
      *nranks = symm->impl->nranks();
  });
}

megamoe_status megamoe_symm_offsets(megamoe_symm_t symm,
                                    const int64_t **device_offsets,
                                    int64_t *host) {
  return guard([&] {
    notNull(symm, "symm");
    if (device_offsets)
      *device_offsets = symm->impl->deviceOffsets();
    if (host)
      for (size_t i = 0; i < symm->impl->hostOffsets().size(); ++i)
        host[i] = symm->impl->hostOffsets()[i];
  });
}

megamoe_status megamoe_symm_barrier(megamoe_symm_t symm, void *stream,
                                    unsigned timeout_ms) {
  return guard([&] {
    notNull(symm, "symm");
    symm->impl->barrier((CUstream)stream, timeout_ms);
  });
}

megamoe_status megamoe_symm_barrier_timed_out(megamoe_symm_t symm, void *stream,
                                              int *timed_out) {
  return guard([&] {
    notNull(symm, "symm");
    notNull(timed_out, "timed_out");
    *timed_out = symm->impl->barrierTimedOut((CUstream)stream) ? 1 : 0;
  });
}

namespace {

/// The C struct's fields over `base` (the rest of the config keeps base's).
LayerConfig fromC(const megamoe_layer_config &c, LayerConfig base) {
  base.hidden = c.hidden;
  base.intermediate = c.intermediate;
  base.experts = c.experts;
  base.topk = c.topk;
  base.ranks = c.ranks;
  base.maxTokensPerRank = c.max_tokens;
  return base;
}

void toC(const LayerConfig &c, megamoe_layer_config &out) {
  out.hidden = c.hidden;
  out.intermediate = c.intermediate;
  out.experts = c.experts;
  out.topk = c.topk;
  out.ranks = c.ranks;
  out.max_tokens = c.maxTokensPerRank;
}

} // namespace

megamoe_status megamoe_manifest_layer_info(const char *manifest_path,
                                           megamoe_layer_config *config,
                                           uint64_t *symm_bytes) {
  return guard([&] {
    notNull(manifest_path, "manifest_path");
    Manifest m = loadManifestFile(manifest_path);
    if (!m.config)
      fail(ErrorKind::Manifest, std::string("manifest (") + manifest_path +
                                    ") has no \"config\": not a compiled "
                                    "layer");
    if (config)
      toC(*m.config, *config);
    if (symm_bytes)
      *symm_bytes = m.bufferLayout ? m.bufferLayout->totalBytes : 0;
  });
}

megamoe_status megamoe_layer_create(const char *manifest_path,
                                    const megamoe_layer_config *config,
                                    megamoe_symm_t symm, megamoe_layer_t *out) {
  return guard([&] {
    notNull(manifest_path, "manifest_path");
    notNull(symm, "symm");
    notNull(out, "out");
    std::optional<LayerConfig> given;
    if (config) {
      // The fields the C struct does not have are the manifest's.
      LayerConfig base;
      if (std::optional<LayerConfig> c = loadManifestFile(manifest_path).config)
        base = *c;
      given = fromC(*config, base);
    }
    *out = new megamoe_layer{Layer::create(
        manifest_path, given ? &*given : nullptr, *symm->impl)};
  });
}

megamoe_status megamoe_layer_config_get(megamoe_layer_t layer,
                                        megamoe_layer_config *out) {
  return guard([&] {
    notNull(layer, "layer");
    notNull(out, "out");
    toC(layer->impl->config(), *out);
  });
}

megamoe_status megamoe_layer_destroy(megamoe_layer_t layer) {
  return guard([&] { delete layer; });
}

megamoe_status megamoe_layer_view(megamoe_layer_t layer, const char *name,
                                  megamoe_tensor *out) {
  return guard([&] {
    notNull(layer, "layer");
    notNull(name, "name");
    notNull(out, "out");
    View v = layer->impl->view(name);
    out->data = v.data;
    out->dtype = toCode(v.dtype);
    out->ndim = (int32_t)v.shape.size();
    for (size_t i = 0; i < 4; ++i)
      out->shape[i] = i < v.shape.size() ? v.shape[i] : 0;
  });
}

megamoe_status megamoe_layer_transform_l1(
    megamoe_layer_t layer, const megamoe_tensor *w, const megamoe_tensor *sf,
    const megamoe_tensor *w_out, const megamoe_tensor *sf_out, void *stream) {
  return guard([&] {
    notNull(layer, "layer");
    layer->impl->transformL1Weights(
        toDesc(w, "l1_weight"), toDesc(sf, "l1_scale"),
        toDesc(w_out, "l1_weight_out"), toDesc(sf_out, "l1_scale_out"),
        (CUstream)stream);
  });
}

megamoe_status megamoe_layer_forward(megamoe_layer_t layer, int64_t num_tokens,
                                     const megamoe_tensor *l1_weight,
                                     const megamoe_tensor *l1_scale,
                                     const megamoe_tensor *l2_weight,
                                     const megamoe_tensor *l2_scale,
                                     const megamoe_tensor *y,
                                     const megamoe_tensor *recv_stats,
                                     void *stream) {
  return guard([&] {
    notNull(layer, "layer");
    ForwardArgs a;
    if (recv_stats)
      a.recvStats = toDesc(recv_stats, "recv_stats");
    a.numTokens = num_tokens;
    a.l1Weight = toDesc(l1_weight, "l1_weight");
    a.l1Scale = toDesc(l1_scale, "l1_scale");
    a.l2Weight = toDesc(l2_weight, "l2_weight");
    a.l2Scale = toDesc(l2_scale, "l2_scale");
    a.y = toDesc(y, "y");
    layer->impl->forward(a, (CUstream)stream);
  });
}

megamoe_status megamoe_layer_variant(megamoe_layer_t layer, int64_t num_tokens,
                                     int *index, int *block_m) {
  return guard([&] {
    notNull(layer, "layer");
    notNull(index, "index");
    notNull(block_m, "block_m");
    size_t v = layer->impl->variantFor(num_tokens);
    *index = (int)v;
    *block_m = (int)layer->impl->variants()[v].blockM;
  });
}

megamoe_status megamoe_layer_check_errors(megamoe_layer_t layer,
                                          uint32_t *bad_expert_ids) {
  return guard([&] {
    notNull(layer, "layer");
    notNull(bad_expert_ids, "bad_expert_ids");
    *bad_expert_ids = layer->impl->takeErrorCount();
  });
}

megamoe_status megamoe_layer_profile_bytes(megamoe_layer_t layer,
                                          uint64_t *bytes) {
  return guard([&] {
    notNull(layer, "layer");
    notNull(bytes, "bytes");
    *bytes = layer->impl->profileBytes();
  });
}

megamoe_status megamoe_layer_read_profile(megamoe_layer_t layer, void *dst,
                                          uint64_t bytes) {
  return guard([&] {
    notNull(layer, "layer");
    notNull(dst, "dst");
    if (bytes != layer->impl->profileBytes())
      fail(ErrorKind::InvalidArgument,
           "read_profile: bytes = " + std::to_string(bytes) +
               ", the profile buffer has " +
               std::to_string(layer->impl->profileBytes()));
    layer->impl->readProfile(dst);
  });
}

megamoe_status megamoe_compile(const char *layer_options,
                               const char *plan_options, const char *cache_dir,
                               const char *megamoe_opt, char *manifest_path,
                               size_t size) {
  return guard([&] {
    notNull(layer_options, "layer_options");
    notNull(cache_dir, "cache_dir");
    notNull(manifest_path, "manifest_path");
    CompileRequest r;
    r.layerOptions = layer_options;
    if (plan_options)
      r.planOptions = plan_options;
    r.cacheDir = cache_dir;
    if (megamoe_opt)
      r.megamoeOpt = megamoe_opt;
    std::string path = compileCached(r);
    require(path.size() < size, "compile: the manifest path (" + path +
                                    ") does not fit " + std::to_string(size) +
                                    " bytes");
    std::copy(path.begin(), path.end(), manifest_path);
    manifest_path[path.size()] = '\0';
  });
}

megamoe_status megamoe_transform_l1_weights(const void *w, const float *sf,
                                            void *w_out, float *sf_out,
                                            int64_t local_experts,
                                            int64_t intermediate,
                                            int64_t hidden, void *stream) {
  return guard([&] {
    require(w && sf && w_out && sf_out,
            "weight transform: a tensor pointer is null");
    transformL1WeightsDevice({local_experts, intermediate, hidden}, w, sf,
                             w_out, sf_out, (CUstream)stream);
  });
}

} // extern "C"
