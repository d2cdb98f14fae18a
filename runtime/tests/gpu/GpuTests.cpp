//===- GpuTests.cpp - megamoe-gpu-tests: runtime tests on real GPUs -------===//
//
//   megamoe-gpu-tests module DATA_DIR      load a compiler-made cubin, launch,
//                                          check; CUDA-graph replay
//   megamoe-gpu-tests bad-inputs DATA_DIR  contract violations -> messages;
//                                          layer create/views/transform
//   megamoe-gpu-tests symmetric            under megamoe-launch -n N: NCCL
//                                          window, peer writes through the
//                                          offset table, barrier, bandwidth
//
// Each check prints "[rR] PASS name" or "[rR] FAIL name: why"; measurements
// print "[rR] MEASURE name value unit". The exit status is the failure count.
//
//===----------------------------------------------------------------------===//
#include "PeerWrite.h"
#include "megamoe/runtime.h"
#include "megamoe/runtime/WeightTransform.h"

#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Print.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

int gRank = 0;
int gFailures = 0;

void report(bool ok, const std::string &name, const std::string &why = "") {
  if (ok)
    printf("[r%d] PASS %s\n", gRank, name.c_str());
  else
    printf("[r%d] FAIL %s: %s\n", gRank, name.c_str(), why.c_str());
  fflush(stdout);
  gFailures += !ok;
}

bool okStatus(megamoe_status s, const std::string &name) {
  if (s == MEGAMOE_OK)
    return true;
  report(false, name,
         std::string("status ") + std::to_string(s) + ": " +
             megamoe_last_error());
  return false;
}

/// Expects status `want` and a message containing `needle`.
void expectError(megamoe_status got, megamoe_status want,
                 const std::string &needle, const std::string &name) {
  std::string msg = megamoe_last_error();
  bool ok = got == want && msg.find(needle) != std::string::npos;
  report(ok, name,
         "status " + std::to_string(got) + " (want " + std::to_string(want) +
             "), message \"" + msg + "\" (want \"" + needle + "\")");
  if (ok)
    printf("[r%d]      message: %s\n", gRank, msg.c_str());
}

#define CUDA_OK(x)                                                             \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      report(false, #x, cudaGetErrorString(e_));                               \
      return;                                                                  \
    }                                                                          \
  } while (0)

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// --- 1. a compiler-made cubin -----------------------------------------------

void testModule(const std::string &dir) {
  const int n = 64;
  megamoe_module_t mod = nullptr;
  if (!okStatus(
          megamoe_module_load((dir + "/hello.manifest.json").c_str(), 0, &mod),
          "module load (file)"))
    return;
  int sms = 0;
  megamoe_module_num_sms(mod, &sms);
  printf("[r%d] device 0 has %d SMs\n", gRank, sms);
  int *out = nullptr;
  CUDA_OK(cudaSetDevice(0));
  CUDA_OK(cudaMalloc(&out, n * sizeof(int)));
  CUDA_OK(cudaMemset(out, 0xff, n * sizeof(int)));
  megamoe_arg arg = {"out", 0, 0, out, n * sizeof(int)};
  if (okStatus(megamoe_launch(mod, "store_tid", &arg, 1, nullptr, 0, nullptr),
               "launch store_tid")) {
    std::vector<int> host(n);
    CUDA_OK(
        cudaMemcpy(host.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= host[i] == i;
    report(ok, "store_tid wrote out[i] = i for 64 threads",
           "out[1] = " + std::to_string(host[1]));
  }

  // The same launch captured into a CUDA graph and replayed.
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  megamoe_status st =
      megamoe_launch(mod, "store_tid", &arg, 1, nullptr, 0, stream);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  if (okStatus(st, "launch under stream capture")) {
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_OK(cudaMemset(out, 0, n * sizeof(int)));
    for (int r = 0; r < 3; ++r)
      CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<int> host(n);
    CUDA_OK(
        cudaMemcpy(host.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    report(host[n - 1] == n - 1 && host[1] == 1,
           "CUDA graph replay of the launch",
           "out[63] = " + std::to_string(host[n - 1]));
    cudaGraphExecDestroy(exec);
  }
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  megamoe_module_destroy(mod);

  // From memory, as an embedded header would.
  std::string manifest = readText(dir + "/hello.manifest.json");
  std::string cubin = readText(dir + "/hello.cubin");
  megamoe_module_t mem = nullptr;
  if (okStatus(megamoe_module_load_memory(manifest.c_str(), cubin.data(),
                                          cubin.size(), 0, &mem),
               "module load (memory)")) {
    CUDA_OK(cudaMemset(out, 0, n * sizeof(int)));
    okStatus(megamoe_launch(mem, "store_tid", &arg, 1, nullptr, 0, nullptr),
             "launch from memory");
    int last = 0;
    CUDA_OK(
        cudaMemcpy(&last, out + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
    report(last == n - 1, "module from memory ran",
           "out[63] = " + std::to_string(last));
    megamoe_module_destroy(mem);
  }
  cudaFree(out);
}

// --- 3. bad inputs ----------------------------------------------------------

std::string writeTemp(const std::string &dir, const std::string &name,
                      const std::string &text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string helloManifest(const std::string &chip, const std::string &kernel,
                          const std::string &cubin,
                          const std::string &extra = "") {
  return R"({"format": "megamoe-manifest", "version": 2, "chip": ")" + chip +
         R"(", "cubin": ")" + cubin + R"(", )" + extra +
         R"("kernels": [{"name": ")" + kernel +
         R"(", "block": [64, 1, 1], "grid": [1, 1, 1],
            "params": [{"name": "out", "kind": "pointer"}]}]})";
}

megamoe_tensor tensor(void *data, megamoe_dtype t, std::vector<int64_t> shape) {
  megamoe_tensor x = {};
  x.data = data;
  x.dtype = t;
  x.ndim = (int32_t)shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    x.shape[i] = shape[i];
  return x;
}

void testBadInputs(const std::string &dir, const std::string &tmp) {
  // Absolute: a manifest's relative cubin path is read from the manifest's
  // folder (tmp), not from the working directory.
  std::string cubin = std::filesystem::absolute(dir + "/hello.cubin").string();
  megamoe_module_t mod = nullptr;
  expectError(megamoe_module_load(
                  writeTemp(tmp, "sm100.json",
                            helloManifest("sm_100a", "store_tid", cubin))
                      .c_str(),
                  0, &mod),
              MEGAMOE_ERR_UNSUPPORTED,
              "compiled for sm_100a (compute capability 10.0) but the device "
              "has compute capability 9.0",
              "manifest for another GPU is rejected");
  expectError(
      megamoe_module_load(writeTemp(tmp, "nokernel.json",
                                    helloManifest("sm_90a", "nope", cubin))
                              .c_str(),
                          0, &mod),
      MEGAMOE_ERR_MANIFEST, "has no kernel named 'nope'",
      "kernel missing from the cubin is rejected");
  expectError(megamoe_module_load((tmp + "/absent.json").c_str(), 0, &mod),
              MEGAMOE_ERR_IO, "cannot open", "missing manifest file");
  expectError(
      megamoe_module_load((dir + "/hello.manifest.json").c_str(), 7, &mod),
      MEGAMOE_ERR_INVALID_ARGUMENT, "device 7 does not exist",
      "nonexistent device");

  if (!okStatus(
          megamoe_module_load((dir + "/hello.manifest.json").c_str(), 0, &mod),
          "module load"))
    return;
  megamoe_arg nullOut = {"out", 0, 0, nullptr, 0};
  expectError(
      megamoe_launch(mod, "store_tid", &nullOut, 1, nullptr, 0, nullptr),
      MEGAMOE_ERR_INVALID_ARGUMENT, "parameter 'out' is a null pointer",
      "null pointer argument");
  expectError(megamoe_launch(mod, "store_tid", nullptr, 0, nullptr, 0, nullptr),
              MEGAMOE_ERR_INVALID_ARGUMENT, "parameter 'out' (pointer) was not",
              "missing argument");
  expectError(megamoe_launch(mod, "other", nullptr, 0, nullptr, 0, nullptr),
              MEGAMOE_ERR_INVALID_ARGUMENT, "no kernel named 'other'",
              "unknown kernel");
  megamoe_module_destroy(mod);

  // The layer over a one-rank NCCL window.
  std::vector<char> id(megamoe_unique_id_size());
  if (!okStatus(megamoe_get_unique_id(id.data()), "unique id"))
    return;
  megamoe_symm_t symm = nullptr;
  if (!okStatus(megamoe_symm_create(id.data(), 1, 0, 0, 16 << 20, &symm),
                "one-rank symmetric memory"))
    return;
  // A manifest carrying the compiler's config, plan and buffer layout (as
  // megamoe-expand writes them) around the hello kernel.
  megamoe::config::LayerConfig lc;
  lc.hidden = 256;
  lc.intermediate = 256;
  lc.experts = 8;
  lc.topk = 2;
  lc.ranks = 1;
  lc.maxTokensPerRank = 64;
  megamoe::config::PlanOverrides po;
  po.schedule = megamoe::config::Schedule::Unfused;
  megamoe::config::Plan lp;
  if (!megamoe::config::makePlan(lc, po, lp).empty()) {
    report(false, "a plan for the layer-manifest test");
    return;
  }
  const int64_t topkIdxOffset =
      megamoe::config::computeBufferLayout(lc, lp).find("topk_idx")->offset;
  std::string doc = megamoe::config::planToJson(lc, lp);
  const std::string layout =
      doc.substr(doc.find('{') + 1, doc.rfind('}') - doc.find('{') - 1) + ",";
  std::string layerManifest = writeTemp(
      tmp, "layer.json", helloManifest("sm_90a", "store_tid", cubin, layout));
  megamoe_layer_config cfg = {256, 256, 8, 2, 1, 64};
  megamoe_layer_t layer = nullptr;
  megamoe_layer_config wrong = cfg;
  wrong.ranks = 2;
  expectError(megamoe_layer_create(layerManifest.c_str(), &wrong, symm, &layer),
              MEGAMOE_ERR_INVALID_ARGUMENT,
              "config does not match the manifest: ranks = 2",
              "mismatched config (ranks) is rejected");
  wrong = cfg;
  wrong.experts = 16;
  expectError(megamoe_layer_create(layerManifest.c_str(), &wrong, symm, &layer),
              MEGAMOE_ERR_INVALID_ARGUMENT, "was compiled for experts = 8",
              "mismatched config (experts) is rejected");
  wrong = cfg;
  wrong.hidden = 200;
  expectError(megamoe_layer_create(layerManifest.c_str(), &wrong, symm, &layer),
              MEGAMOE_ERR_INVALID_ARGUMENT,
              "config does not match the manifest: hidden = 200",
              "mismatched config (hidden) is rejected");
  megamoe_layer_config info = {};
  uint64_t symmBytes = 0;
  if (okStatus(megamoe_manifest_layer_info(layerManifest.c_str(), &info,
                                           &symmBytes),
               "layer info from the manifest alone"))
    report(info.hidden == 256 && info.max_tokens == 64 &&
               symmBytes == (uint64_t)megamoe::config::computeBufferLayout(
                                lc, lp).totalBytes,
           "manifest_layer_info gives the config and the buffer size");
  // A manifest without the config symbols: the rank count is checked against
  // the communicator.
  std::string bare =
      writeTemp(tmp, "bare.json", helloManifest("sm_90a", "store_tid", cubin));
  wrong = cfg;
  wrong.ranks = 2;
  expectError(megamoe_layer_create(bare.c_str(), &wrong, symm, &layer),
              MEGAMOE_ERR_INVALID_ARGUMENT,
              "the config has ranks = 2 but the communicator has 1",
              "wrong rank count is rejected");

  if (okStatus(megamoe_layer_create(layerManifest.c_str(), nullptr, symm,
                                    &layer),
               "layer create from the manifest alone")) {
    megamoe_layer_config got = {};
    megamoe_layer_config_get(layer, &got);
    report(got.experts == 8 && got.max_tokens == 64,
           "the layer's config is the manifest's");
    megamoe_layer_destroy(layer);
  }
  if (!okStatus(megamoe_layer_create(layerManifest.c_str(), &cfg, symm, &layer),
                "layer create"))
    return;
  void *local = nullptr;
  megamoe_symm_info(symm, &local, nullptr, nullptr, nullptr);
  megamoe_tensor x;
  if (okStatus(megamoe_layer_view(layer, "topk_idx", &x), "view topk_idx"))
    report(x.data == (char *)local + topkIdxOffset && x.dtype == MEGAMOE_I64 &&
               x.ndim == 2 && x.shape[0] == 64 && x.shape[1] == 2,
           "topk_idx view is the manifest region, i64 [64, 2]");

  // Weights: E_local = 8, I = 256, H = 256.
  const int64_t E = 8, I = 256, H = 256;
  megamoe::rt::L1WeightShape ws{E, I, H};
  std::vector<uint8_t> w(ws.weightBytes());
  std::vector<float> sf(ws.userScaleCount());
  std::mt19937 rng(7);
  for (auto &b : w)
    b = (uint8_t)rng();
  for (auto &f : sf)
    f = (float)(rng() % 1000) / 7.0f;
  void *dw, *dwo;
  float *dsf, *dsfo;
  CUDA_OK(cudaMalloc(&dw, w.size()));
  CUDA_OK(cudaMalloc(&dwo, w.size()));
  CUDA_OK(cudaMalloc(&dsf, sf.size() * 4));
  CUDA_OK(cudaMalloc(&dsfo, sf.size() * 8));
  CUDA_OK(cudaMemcpy(dw, w.data(), w.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dsf, sf.data(), sf.size() * 4, cudaMemcpyHostToDevice));
  megamoe_tensor tw = tensor(dw, MEGAMOE_E4M3, {E, 2 * I, H});
  megamoe_tensor tsf = tensor(dsf, MEGAMOE_F32, {E, 2 * I / 128, H / 128});
  megamoe_tensor two = tensor(dwo, MEGAMOE_E4M3, {E, 2 * I, H});
  megamoe_tensor tsfo = tensor(dsfo, MEGAMOE_F32, {E, 2 * I / 128, H / 128, 2});
  if (okStatus(
          megamoe_layer_transform_l1(layer, &tw, &tsf, &two, &tsfo, nullptr),
          "weight transform on the GPU")) {
    std::vector<uint8_t> wRef(w.size()), wGpu(w.size());
    std::vector<float> sfRef(sf.size() * 2), sfGpu(sf.size() * 2);
    megamoe::rt::interleaveL1WeightsHost(ws, w.data(), wRef.data());
    megamoe::rt::relayoutL1ScalesHost(ws, sf.data(), sfRef.data());
    CUDA_OK(cudaMemcpy(wGpu.data(), dwo, w.size(), cudaMemcpyDeviceToHost));
    CUDA_OK(
        cudaMemcpy(sfGpu.data(), dsfo, sf.size() * 8, cudaMemcpyDeviceToHost));
    report(wGpu == wRef && sfGpu == sfRef,
           "GPU weight transform equals the host definition");
  }
  expectError(megamoe_layer_transform_l1(layer, &tw, &tsf, &tw, &tsfo, nullptr),
              MEGAMOE_ERR_INVALID_ARGUMENT, "must not overlap",
              "in-place weight transform is rejected");

  // The forward: argument checks, then the honest "not yet available".
  int64_t T = 16;
  void *y;
  CUDA_OK(cudaMalloc(&y, 64 * H * 2));
  megamoe_tensor l2w = tensor(dw, MEGAMOE_E4M3, {E, H, I});
  megamoe_tensor l2s = tensor(dsf, MEGAMOE_F32, {E, H / 128, I / 128});
  megamoe_tensor ty = tensor(y, MEGAMOE_BF16, {T, H});
  megamoe_tensor badY = tensor(y, MEGAMOE_F32, {T, H});
  expectError(
      megamoe_layer_forward(layer, T, &two, &tsfo, &l2w, &l2s, &badY, nullptr, nullptr),
      MEGAMOE_ERR_INVALID_ARGUMENT, "y must be bf16, got f32",
      "wrong dtype is rejected");
  megamoe_tensor bigY = tensor(y, MEGAMOE_BF16, {65, H});
  expectError(
      megamoe_layer_forward(layer, 65, &two, &tsfo, &l2w, &l2s, &bigY, nullptr, nullptr),
      MEGAMOE_ERR_INVALID_ARGUMENT,
      "num_tokens = 65 is outside [0, max_tokens_per_rank = 64]",
      "too many tokens are rejected");
  expectError(
      megamoe_layer_forward(layer, T, &tw, &tsf, &l2w, &l2s, &ty, nullptr, nullptr),
      MEGAMOE_ERR_INVALID_ARGUMENT, "l1_scale must have shape",
      "user-layout (untransformed) scales are rejected");
  expectError(
      megamoe_layer_forward(layer, T, &two, &tsfo, &l2w, &l2s, &ty, nullptr, nullptr),
      MEGAMOE_ERR_NOT_AVAILABLE,
      "not yet available: no fused kernel in this manifest",
      "forward says it is not available yet");
  megamoe_layer_destroy(layer);
  megamoe_symm_destroy(symm);
  cudaFree(dw);
  cudaFree(dwo);
  cudaFree(dsf);
  cudaFree(dsfo);
  cudaFree(y);
}

// --- 2. symmetric memory across ranks ---------------------------------------

bool parseHexId(const char *hex, std::vector<char> &id) {
  if (!hex || strlen(hex) != 2 * id.size())
    return false;
  for (size_t i = 0; i < id.size(); ++i)
    id[i] = (char)strtol(std::string(hex + 2 * i, 2).c_str(), nullptr, 16);
  return true;
}

/// Peer writes through `symm`'s offset table, a barrier, a check.
void peerWriteRound(megamoe_symm_t symm, const std::string &name,
                    size_t slotBytes, cudaStream_t stream) {
  void *local = nullptr;
  int rank = 0, n = 0;
  const int64_t *offsets = nullptr;
  megamoe_symm_info(symm, &local, nullptr, &rank, &n);
  megamoe_symm_offsets(symm, &offsets, nullptr);
  unsigned long long *bad;
  CUDA_OK(cudaMalloc(&bad, sizeof *bad));
  CUDA_OK(cudaMemsetAsync(bad, 0, sizeof *bad, stream));
  CUDA_OK(cudaMemsetAsync(local, 0, n * slotBytes, stream));
  okStatus(megamoe_symm_barrier(symm, stream, 20000), name + " barrier");
  CUDA_OK(launchFillPeers((char *)local, offsets, rank, n, slotBytes, stream));
  okStatus(megamoe_symm_barrier(symm, stream, 20000), name + " barrier");
  CUDA_OK(
      launchCheckSlots((const char *)local, rank, n, slotBytes, bad, stream));
  unsigned long long mismatches = 0;
  CUDA_OK(cudaMemcpyAsync(&mismatches, bad, sizeof mismatches,
                          cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  int timedOut = 0;
  megamoe_symm_barrier_timed_out(symm, stream, &timedOut);
  report(mismatches == 0 && !timedOut,
         name + ": every rank received its " + std::to_string(n) +
             " slots of " + std::to_string(slotBytes >> 20) + " MiB",
         std::to_string(mismatches) + " wrong words, barrier timeout " +
             std::to_string(timedOut));
  cudaFree(bad);
}

void testSymmetric() {
  const char *rankEnv = getenv("RANK"), *worldEnv = getenv("WORLD_SIZE");
  if (!rankEnv || !worldEnv) {
    report(false, "symmetric", "run under megamoe-launch -n N");
    return;
  }
  int rank = atoi(rankEnv), n = atoi(worldEnv);
  int device = getenv("LOCAL_RANK") ? atoi(getenv("LOCAL_RANK")) : rank;
  gRank = rank;
  std::vector<char> id(megamoe_unique_id_size());
  if (!parseHexId(getenv("MEGAMOE_NCCL_ID"), id)) {
    report(false, "symmetric", "MEGAMOE_NCCL_ID is missing or malformed");
    return;
  }
  CUDA_OK(cudaSetDevice(device));
  const size_t slot = 64ull << 20, bwBytes = 1ull << 30;
  const size_t bytes = std::max(n * slot, 2 * bwBytes);
  megamoe_symm_t symm = nullptr;
  if (!okStatus(megamoe_symm_create(id.data(), n, rank, device, bytes, &symm),
                "NCCL symmetric window"))
    return;
  report(true, "NCCL symmetric window of " + std::to_string(bytes >> 20) +
                   " MiB on " + std::to_string(n) + " ranks");
  std::vector<int64_t> host(n);
  void *local = nullptr;
  megamoe_symm_info(symm, &local, nullptr, nullptr, nullptr);
  megamoe_symm_offsets(symm, nullptr, host.data());
  printf("[r%d] local %p offsets:", rank, local);
  for (int p = 0; p < n; ++p)
    printf(" %lld", (long long)host[p]);
  printf("\n");

  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  peerWriteRound(symm, "NCCL window peer writes", slot, stream);

  // The same buffers through the caller-pointer constructor (as with torch
  // symmetric memory): peers[p] = local + offsets[p].
  std::vector<void *> peers(n);
  for (int p = 0; p < n; ++p)
    peers[p] = (char *)local + host[p];
  megamoe_symm_t fromPeers = nullptr;
  // Its control region is the last 4096 bytes of the given size: keep it clear
  // of the slots and of the NCCL window's own control region.
  if (okStatus(megamoe_symm_create_from_peers(n, rank, device, local,
                                              peers.data(), bytes, &fromPeers),
               "symmetric memory from peer pointers")) {
    okStatus(megamoe_symm_barrier(symm, stream, 20000), "setup barrier");
    CUDA_OK(cudaStreamSynchronize(stream));
    peerWriteRound(fromPeers, "caller peer pointers peer writes", slot, stream);
  }

  // Barrier inside a CUDA graph, replayed: the epoch lives on the device.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  megamoe_status st = megamoe_symm_barrier(symm, stream, 20000);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  if (okStatus(st, "barrier under capture")) {
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 5; ++i)
      CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    int timedOut = 0;
    megamoe_symm_barrier_timed_out(symm, stream, &timedOut);
    report(!timedOut, "barrier replayed 5 times from a CUDA graph");
    cudaGraphExecDestroy(exec);
  }
  cudaGraphDestroy(graph);
  peerWriteRound(symm, "peer writes after graph replays", slot, stream);

  // Bandwidth: rank r streams bwBytes into peer (r+1)%n's upper half.
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  int peer = (rank + 1) % n;
  char *dst = (char *)local + host[peer] + bwBytes;
  char *self = (char *)local + bwBytes;
  const int iters = 20;
  auto measure = [&](char *target, bool active, int blocks) {
    std::vector<float> ms;
    for (int i = 0; i < iters + 2; ++i) {
      megamoe_symm_barrier(symm, stream, 20000);
      cudaEventRecord(a, stream);
      if (active)
        launchWrite(target, bwBytes, blocks, stream);
      cudaEventRecord(b, stream);
      cudaStreamSynchronize(stream);
      float t = 0;
      cudaEventElapsedTime(&t, a, b);
      if (i >= 2)
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  if (n > 1) {
    for (int blocks : {132, 264, 528}) {
      float both = measure(dst, true, blocks);
      printf("[r%d] MEASURE peer_write_both_directions_%dblk %.1f GB/s "
             "(%zu MiB, median of %d)\n",
             rank, blocks, bwBytes / (both * 1e6), bwBytes >> 20, iters);
      float one = measure(dst, rank == 0, blocks);
      if (rank == 0)
        printf("[r%d] MEASURE peer_write_one_direction_%dblk %.1f GB/s\n", rank,
               blocks, bwBytes / (one * 1e6));
    }
  }
  float localMs = measure(self, true, 264);
  printf("[r%d] MEASURE local_hbm_write_264blk %.1f GB/s\n", rank,
         bwBytes / (localMs * 1e6));
  // Barrier latency: 1000 back-to-back barriers.
  megamoe_symm_barrier(symm, stream, 20000);
  cudaEventRecord(a, stream);
  for (int i = 0; i < 1000; ++i)
    megamoe_symm_barrier(symm, stream, 20000);
  cudaEventRecord(b, stream);
  cudaStreamSynchronize(stream);
  float barrierMs = 0;
  cudaEventElapsedTime(&barrierMs, a, b);
  printf("[r%d] MEASURE barrier_latency %.2f us (1000 back-to-back)\n", rank,
         barrierMs);
  int timedOut = 0;
  megamoe_symm_barrier_timed_out(symm, stream, &timedOut);
  report(!timedOut, "no barrier timed out during the measurements");
  peerWriteRound(symm, "peer writes after the measurements", slot, stream);

  if (fromPeers)
    megamoe_symm_destroy(fromPeers);
  okStatus(megamoe_symm_destroy(symm), "destroy");
  cudaStreamDestroy(stream);
}

} // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0); // keep lines if a test crashes
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "module" && argc > 2)
    testModule(argv[2]);
  else if (cmd == "bad-inputs" && argc > 2)
    testBadInputs(argv[2], argc > 3 ? argv[3] : "/tmp");
  else if (cmd == "symmetric")
    testSymmetric();
  else {
    fprintf(stderr, "usage: megamoe-gpu-tests module DATA_DIR | bad-inputs "
                    "DATA_DIR [TMP_DIR] | symmetric\n");
    return 2;
  }
  printf("[r%d] %d failure(s)\n", gRank, gFailures);
  return gFailures;
}
