#!/usr/bin/env bash
# Gathers what a GPU run of the layer forward needs (no LLVM there) into one
# folder: every layer below compiled by megamoe-opt (schedule = unfused) into
# layers/<name>/ (manifest + cubin; the tests read the config from the
# manifest's "config"), the hello test kernel,
# the runtime library, the Python packages (megamoe, megamoe_testing), the
# layer and runtime tests and the run script. On the GPU machine: bash DEST/gpu-layer.sh
#
#   scripts/bundle-layer.sh DEST        (e.g. /work/main/.bundle-layer)
#
# LAYERS overrides the list: "name:H:I:E:K:R:T:clamp[:block_m] ..." (clamp 0 = none;
# block_m pins the plan's BLOCK_M, else the planner picks 64 or 128).
# Names end in _ep1 / _ep2: gpu-layer.sh runs each group on 1 / 2 GPUs.
# Needs megamoe-opt ($MEGAMOE_OPT, default build/release/bin/megamoe-opt) and
# the runtime built standalone ($MEGAMOE_RUNTIME_BUILD, default build/runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bundle-common.sh
dest=${1:?usage: $0 DEST}
opt=${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}
rt=${MEGAMOE_RUNTIME_BUILD:-build/runtime}
[[ -x $opt ]] || { echo "bundle-layer: megamoe-opt not found at $opt (build it or set MEGAMOE_OPT)" >&2; exit 1; }
# small: the small config on 1 and 2 ranks (once with the SwiGLU clamp);
# flash: V4-Flash (4096/2048/256/6) at T=128 on two ranks (128 local experts).
LAYERS=${LAYERS:-"small_ep1:512:256:8:2:1:64:0 small_clamp_ep1:512:256:8:2:1:64:10 small_ep2:512:256:8:2:2:64:0 small_bm128_ep2:512:256:8:2:2:64:0:128 small_variants_ep2:512:256:8:2:2:256:0 flash_ep2:4096:2048:256:6:2:128:10"}

rm -rf "$dest"
mkdir -p "$dest/layers" "$dest/python/megamoe/lib" "$dest/python/megamoe_testing" "$dest/python/tests"
for spec in $LAYERS; do
  IFS=: read -r name h i e k r t c bm <<<"$spec"
  plan="schedule=unfused${bm:+ block-m=$bm}"
  dir=$dest/layers/$name
  mkdir -p "$dir"
  clamp_opt=""
  if [[ $c != 0 ]]; then clamp_opt=" clamp=$c"; fi
  echo "bundle-layer: $name (H=$h I=$i E=$e K=$k R=$r T=$t clamp=$c)"
  echo 'module {}' | "$opt" \
    --megamoe-layer="hidden=$h intermediate=$i experts=$e topk=$k ranks=$r max-tokens=$t chip=sm_90a$clamp_opt" \
    --megamoe-plan="$plan" --megamoe-expand \
    --megamoe-to-cubin="chip=sm_90a emit-dir=$dir" -o /dev/null
  # The embed header duplicates the cubin; PTX only on request (size).
  rm -f "$dir"/*.h
  [[ ${KEEP_PTX:-0} == 1 ]] || rm -f "$dir"/*.ptx
done

# Benchmark layers (bench/megamoe_schedules.py reads bench-layers/<shape>-ep<R>-t<T>/):
# BENCH_LAYERS="shape:H:I:E:K:R:T:clamp ..." (bench/moe_bench.py's default clamp is 10).
for spec in ${BENCH_LAYERS:-}; do
  IFS=: read -r shape h i e k r t c <<<"$spec"
  dir=$dest/bench-layers/$shape-ep$r-t$t
  mkdir -p "$dir"
  clamp_opt=""
  if [[ $c != 0 ]]; then clamp_opt=" clamp=$c"; fi
  echo "bundle-layer: bench $shape EP$r T=$t"
  echo 'module {}' | "$opt" \
    --megamoe-layer="hidden=$h intermediate=$i experts=$e topk=$k ranks=$r max-tokens=$t chip=sm_90a$clamp_opt" \
    --megamoe-plan="schedule=unfused" --megamoe-expand \
    --megamoe-to-cubin="chip=sm_90a emit-dir=$dir" -o /dev/null
  rm -f "$dir"/*.h "$dir"/*.ptx
done
if [[ -n ${BENCH_LAYERS:-} ]]; then
  mkdir -p "$dest/bench"
  cp bench/*.py bench/RESULTS.md "$dest/bench/"
fi

# The hello kernel (test_runtime.py's schedule tests: the runtime path alone).
mkdir -p "$dest/data"
"$opt" test/GPU/run-cubin.mlir --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})' > "$dest/data/hello.mlir"
python3 runtime/tools/extract_gpu_binary.py "$dest/data/hello.mlir" "$dest/data"
rm "$dest/data/hello.mlir"
cp runtime/tests/data/hello.manifest.json "$dest/data/"

stage_runtime_and_python "$rt" "$dest"
cp python/tests/conftest.py python/tests/test_layer.py python/tests/test_runtime.py "$dest/python/tests/"
mkdir -p "$dest/python/tests/data" && cp python/tests/data/*.json "$dest/python/tests/data/"
cp scripts/gpu-layer.sh scripts/gpu-layer-session.sh "$dest/"
size=$(du -sm "$dest" | cut -f1)
echo "bundle-layer: $dest holds ${size} MiB"
if (( size >= 60 )); then echo "bundle-layer: larger than 60 MiB" >&2; exit 1; fi
