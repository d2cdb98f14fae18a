/*===- runtime.h - the C API of libmegamoe_runtime -------------------------===*
 *
 * Every function returns a megamoe_status; on failure
 * megamoe_last_error() gives this thread's message naming the problem. Handles
 * are opaque. Launch and forward are stream-ordered (a CUstream /
 * cudaStream_t, NULL = the legacy default stream), do not synchronize and do
 * not allocate device memory, so they can be captured in a CUDA graph.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MEGAMOE_RUNTIME_C_H
#define MEGAMOE_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum megamoe_status {
  MEGAMOE_OK = 0,
  MEGAMOE_ERR_INVALID_ARGUMENT = 1,
  MEGAMOE_ERR_MANIFEST = 2,
  MEGAMOE_ERR_CUDA = 3,
  MEGAMOE_ERR_NCCL = 4,
  MEGAMOE_ERR_UNSUPPORTED = 5,
  MEGAMOE_ERR_NOT_AVAILABLE = 6,
  MEGAMOE_ERR_IO = 7,
  MEGAMOE_ERR_INTERNAL = 8,
} megamoe_status;

/* Element types (match the manifest's dtype names). */
typedef enum megamoe_dtype {
  MEGAMOE_E4M3 = 0,
  MEGAMOE_E5M2 = 1,
  MEGAMOE_BF16 = 2,
  MEGAMOE_F16 = 3,
  MEGAMOE_F32 = 4,
  MEGAMOE_U8 = 5,
  MEGAMOE_I32 = 6,
  MEGAMOE_I64 = 7,
} megamoe_dtype;

/* The message of this thread's last failure ("" if none). */
const char *megamoe_last_error(void);
/* The library version, "major.minor.patch". */
const char *megamoe_version(void);
/* The report of the first wait of any kernel of this process that timed out
 * and trapped (a lost arrival, a rank that never reached a barrier), e.g.
 * "megamoe: timeout waiting for counter 'l2_arrival' (block 3, thread 0):
 * value 6, expected >= 8 after 20000000000 cycles"; "" if none has. Valid
 * after the trap has ended the CUDA context (the kernel writes it to mapped
 * host memory); the runtime also prints it to stdout once. */
const char *megamoe_timeout_report(void);

/*--- modules: manifest + cubin ------------------------------------------*/
typedef struct megamoe_module *megamoe_module_t;

/* Loads the manifest at `manifest_path` and the cubin it names onto
 * `device` (CUDA ordinal), in the device's primary context. */
megamoe_status megamoe_module_load(const char *manifest_path, int device,
                                   megamoe_module_t *out);
/* As megamoe_module_load from memory (e.g. an embedded header). */
megamoe_status megamoe_module_load_memory(const char *manifest_json,
                                          const void *cubin, size_t cubin_size,
                                          int device, megamoe_module_t *out);
megamoe_status megamoe_module_destroy(megamoe_module_t module);
/* Number of SMs of the module's device (the manifest's `num_sms`). */
megamoe_status megamoe_module_num_sms(megamoe_module_t module, int *out);

/* One named kernel argument: `integer` for i32/i64/u32/u64, `real` for f32,
 * `pointer` (+ `bytes`, the size behind it, 0 = unknown) for pointer and
 * tma_descriptor parameters. */
typedef struct megamoe_arg {
  const char *name;
  int64_t integer;
  double real;
  void *pointer;
  uint64_t bytes;
} megamoe_arg;

/* A runtime symbol value (the manifest's runtime_symbols). */
typedef struct megamoe_symbol {
  const char *name;
  int64_t value;
} megamoe_symbol;

/* Launches `kernel` with cuLaunchKernelEx on `stream`. Every parameter must
 * be given exactly once by name; TMA descriptors are encoded from the
 * manifest's specs over the given pointer. */
megamoe_status megamoe_launch(megamoe_module_t module, const char *kernel,
                              const megamoe_arg *args, int num_args,
                              const megamoe_symbol *symbols, int num_symbols,
                              void *stream);

/*--- symmetric memory ----------------------------------------------------*/
typedef struct megamoe_symm *megamoe_symm_t;

/* Size of an NCCL unique id (bytes). */
size_t megamoe_unique_id_size(void);
/* Makes a new NCCL unique id into `out` (megamoe_unique_id_size() bytes);
 * rank 0 calls it and distributes the bytes. */
megamoe_status megamoe_get_unique_id(void *out);
/* Collective: NCCL communicator + symmetric window of `bytes` usable bytes. */
megamoe_status megamoe_symm_create(const void *unique_id, int nranks, int rank,
                                   int device, size_t bytes,
                                   megamoe_symm_t *out);
/* As megamoe_symm_create over an existing ncclComm_t (not owned). */
megamoe_status megamoe_symm_create_with_comm(void *nccl_comm, int device,
                                             size_t bytes, megamoe_symm_t *out);
/* Over buffers the caller mapped (e.g. torch symmetric memory): `peers[p]` is
 * rank p's buffer as seen from this process; each buffer has `total_bytes`,
 * the last 4096 of which the barrier uses. Every rank must return from this
 * call before any rank calls megamoe_symm_barrier. */
megamoe_status megamoe_symm_create_from_peers(int nranks, int rank, int device,
                                              void *local, void *const *peers,
                                              size_t total_bytes,
                                              megamoe_symm_t *out);
/* Collective for the NCCL constructors. */
megamoe_status megamoe_symm_destroy(megamoe_symm_t symm);
/* This rank's buffer, its usable size, rank and rank count. */
megamoe_status megamoe_symm_info(megamoe_symm_t symm, void **local,
                                 size_t *usable_bytes, int *rank, int *nranks);
/* The device array of nranks int64 offsets: peer address of local q on rank
 * p is q + offsets[p]; and a host copy into `host` (nranks entries, may be
 * NULL). */
megamoe_status megamoe_symm_offsets(megamoe_symm_t symm,
                                    const int64_t **device_offsets,
                                    int64_t *host);
/* A cross-rank barrier kernel on `stream` (graph capturable). */
megamoe_status megamoe_symm_barrier(megamoe_symm_t symm, void *stream,
                                    unsigned timeout_ms);
/* Waits for `stream` (the barriers' stream; NULL = the legacy default
 * stream), then *timed_out = 1 if a barrier on this rank ever timed out. */
megamoe_status megamoe_symm_barrier_timed_out(megamoe_symm_t symm, void *stream,
                                              int *timed_out);

/*--- the layer ------------------------------------------------------------*/
typedef struct megamoe_layer *megamoe_layer_t;

typedef struct megamoe_layer_config {
  int64_t hidden;       /* H, multiple of 128 */
  int64_t intermediate; /* I, multiple of 128 */
  int64_t experts;      /* E, multiple of ranks */
  int64_t topk;         /* K, 1..E */
  int64_t ranks;        /* R, the communicator's size */
  int64_t max_tokens;   /* T, tokens per rank bound */
} megamoe_layer_config;

/* A contiguous row-major tensor. */
typedef struct megamoe_tensor {
  void *data;
  int32_t dtype; /* megamoe_dtype */
  int32_t ndim;  /* <= 4 */
  int64_t shape[4];
} megamoe_tensor;

/* A compiled layer's config and the symmetric-buffer bytes per rank its
 * buffer layout needs, from the manifest alone (CPU only, no GPU). Either
 * output may be NULL. MEGAMOE_ERR_MANIFEST for a manifest without "config". */
megamoe_status megamoe_manifest_layer_info(const char *manifest_path,
                                           megamoe_layer_config *config,
                                           uint64_t *symm_bytes);
/* `symm` must outlive the layer. The config comes from the manifest; a
 * non-NULL `config` must equal it (MEGAMOE_ERR_INVALID_ARGUMENT naming the
 * first field that differs). A manifest without a config (not a compiled
 * layer) needs `config`. */
megamoe_status megamoe_layer_create(const char *manifest_path,
                                    const megamoe_layer_config *config,
                                    megamoe_symm_t symm, megamoe_layer_t *out);
/* The layer's config (the manifest's). */
megamoe_status megamoe_layer_config_get(megamoe_layer_t layer,
                                        megamoe_layer_config *out);
megamoe_status megamoe_layer_destroy(megamoe_layer_t layer);
/* The input region `name` (x | x_sf | topk_idx | topk_weights) of this rank's
 * symmetric buffer as a tensor of max_tokens rows (zero-copy). */
megamoe_status megamoe_layer_view(megamoe_layer_t layer, const char *name,
                                  megamoe_tensor *out);
/* User layout -> kernel layout of the L1 weights (DESIGN.md section 3):
 * w e4m3 [E_local, 2I, H] -> w_out (gate/up rows interleaved by 8);
 * sf f32 [E_local, 2I/128, H/128] -> sf_out f32 [E_local, 2I/128, H/128, 2]. */
megamoe_status megamoe_layer_transform_l1(
    megamoe_layer_t layer, const megamoe_tensor *w, const megamoe_tensor *sf,
    const megamoe_tensor *w_out, const megamoe_tensor *sf_out, void *stream);
/* The forward on `stream` over the first num_tokens rows of the views: checks
 * every tensor, then launches the manifest's schedule (its kernels in order,
 * parameters from their binds; docs/UnfusedSchedule.md), or, for a manifest
 * with "variants", the schedule of the variant whose token range holds
 * num_tokens (megamoe_layer_variant). No host synchronization, no device
 * allocation (weight descriptors are encoded on the host once per address):
 * CUDA-graph capturable. One thread at a time per layer. A manifest without a
 * schedule returns MEGAMOE_ERR_NOT_AVAILABLE after the checks (the fused
 * kernel's contract is not defined yet). Creating a layer whose manifest has a
 * schedule is collective: every rank must create its layer. `recv_stats`
 * (NULL: none) is an int32 [E/R] tensor of cumulative tokens received per
 * local expert (EPLB statistics): the call adds its counts into it, on the
 * stream, after the schedule. */
megamoe_status megamoe_layer_forward(megamoe_layer_t layer, int64_t num_tokens,
                                     const megamoe_tensor *l1_weight,
                                     const megamoe_tensor *l1_scale,
                                     const megamoe_tensor *l2_weight,
                                     const megamoe_tensor *l2_scale,
                                     const megamoe_tensor *y,
                                     const megamoe_tensor *recv_stats,
                                     void *stream);

/* Which schedule megamoe_layer_forward runs for `num_tokens`: *index = the
 * variant (0 for a manifest with a single "schedule"; the position in the
 * manifest's "variants" otherwise) and *block_m = its BLOCK_M (0 when the
 * manifest does not give one). Host only, no synchronization.
 * MEGAMOE_ERR_INVALID_ARGUMENT for num_tokens outside [0, max_tokens],
 * MEGAMOE_ERR_NOT_AVAILABLE for a manifest without a schedule. */
megamoe_status megamoe_layer_variant(megamoe_layer_t layer, int64_t num_tokens,
                                     int *index, int *block_m);

/* SYNCHRONIZES the device, then reads and clears the layer's error counter:
 * *bad_expert_ids = the number of routing slots since the last check whose
 * expert id was outside [-1, experts) (the kernels skip them as masked).
 * Returns MEGAMOE_ERR_INVALID_ARGUMENT (both counters cleared; the message
 * gives the counts) when a call routed more slots to this rank than its pool
 * holds (a token listing one expert more than once): that call's y is wrong. */
megamoe_status megamoe_layer_check_errors(megamoe_layer_t layer,
                                          uint32_t *bad_expert_ids);

/* The phase profile (docs/Profile.md): *bytes = the size of the layer's
 * profile buffer, 0 for a layer compiled without it. forward zeroes the
 * buffer on its stream before its first kernel. read_profile SYNCHRONIZES
 * the device, then copies the buffer (`bytes` must equal its size) to the
 * host memory `dst`; MEGAMOE_ERR_NOT_AVAILABLE without a profile. */
megamoe_status megamoe_layer_profile_bytes(megamoe_layer_t layer,
                                          uint64_t *bytes);
megamoe_status megamoe_layer_read_profile(megamoe_layer_t layer, void *dst,
                                          uint64_t bytes);

/*--- the compiled-layer cache (CPU only) ----------------------------------*/
/* Writes into `manifest_path` (`size` bytes) the manifest of the layer
 * compiled for `layer_options` (megamoe-opt's --megamoe-layer spelling:
 * "hidden=4096 intermediate=2048 experts=256 topk=6 ranks=8 max-tokens=8192
 * clamp=10 chip=sm_90a"), `plan_options` (--megamoe-plan; NULL =
 * "schedule=unfused") and this runtime's compiler version, from the cache
 * folder `cache_dir`. On a miss it runs `megamoe_opt` (one run compiles every
 * variant); with `megamoe_opt` NULL or missing it returns
 * MEGAMOE_ERR_NOT_AVAILABLE and the message holds the exact command. */
megamoe_status megamoe_compile(const char *layer_options,
                               const char *plan_options, const char *cache_dir,
                               const char *megamoe_opt, char *manifest_path,
                               size_t size);

/* The L1 transform without a layer: device pointers, on `stream`. */
megamoe_status megamoe_transform_l1_weights(const void *w, const float *sf,
                                            void *w_out, float *sf_out,
                                            int64_t local_experts,
                                            int64_t intermediate,
                                            int64_t hidden, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* MEGAMOE_RUNTIME_C_H */
