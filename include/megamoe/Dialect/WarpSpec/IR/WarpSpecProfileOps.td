#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECPROFILEOPS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECPROFILEOPS_TD

// What the phase profile (lib/Kernels/Collectives/PhaseProfile.h,
// docs/Profile.md) is made of: the clock, the SM and a per-thread sequence
// number. Lowered by lib/Conversion/WarpSpecToNVVM/LowerProfile.cpp. No
// kernel holds them unless its builder asked for the profile.

def WarpSpec_TimestampOp : WarpSpec_Op<"timestamp"> {
  let summary = "the GPU's global nanosecond timer";
  let description = [{
    Per thread: the 64-bit `%globaltimer` (nanoseconds, one clock for every
    SM of the GPU, so stamps of different CTAs and kernels compare). The op
    has no memory-effect trait on purpose: two reads are two reads (never
    merged by CSE) and stay where the builder put them, between the
    operations whose boundary they mark.

    ```mlir
    %t = warpspec.timestamp : i64
    ```

    Lowers to `nvvm.read.ptx.sreg.globaltimer` (`mov.u64 %r, %globaltimer`).
  }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def WarpSpec_SmIdOp : WarpSpec_Op<"sm_id", [Pure]> {
  let summary = "the SM the executing thread runs on";
  let description = [{
    `%smid`: the index of the streaming multiprocessor that runs the CTA
    (constant for a CTA's lifetime; a profile's lane key).

    ```mlir
    %sm = warpspec.sm_id : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def WarpSpec_SequenceNextOp : WarpSpec_Op<"sequence.next"> {
  let summary = "how often this thread passed a sequence point before";
  let description = [{
    Per thread: the number of times the executing thread has already
    executed a `warpspec.sequence.next` with the same `key` in the same
    enclosing `warpspec.role` (or, outside roles, in the same kernel), then
    counts this execution. The first execution returns 0. The count lives
    in a register of the thread (an entry-block alloca that SROA promotes,
    like the pipelines' iteration counters), so it costs no memory traffic;
    it is what gives a role's profile records their slots without a
    counter in global memory.

    ```mlir
    %n = warpspec.sequence.next "profile" : i32
    ```

    The key must not be empty, and the op must be inside a
    `warpspec.kernel`.
  }];
  let arguments = (ins StrAttr:$key);
  let results = (outs I32:$result);
  let assemblyFormat = "$key attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECPROFILEOPS_TD
