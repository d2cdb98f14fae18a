#!/usr/bin/env bash
# Gathers what the GPU tests of the PyTorch API need (no LLVM on the GPU
# machine) into DEST: the runtime library and its test programs, the Python
# packages and tests, small EP1 layers compiled by megamoe-opt (each manifest
# carries its config and plan), the grouped-GEMM cubins the grouped-GEMM tests
# read, the hello test kernel, and scripts/gpu-api.sh. On the GPU machine:
#   bash DEST/gpu-api.sh        (logs in $OUT, a summary table last)
#
#   DEST=/work/main/.bundle-api bash scripts/bundle-api.sh
#
# Needs megamoe-opt ($MEGAMOE_OPT, default build/release/bin/megamoe-opt) and
# the runtime built standalone ($MEGAMOE_RUNTIME_BUILD, default build/runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bundle-common.sh
dest=${DEST:-${1:?usage: DEST=dir $0 (or $0 DIR)}}
opt=${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}
rt=${MEGAMOE_RUNTIME_BUILD:-$PWD/build/runtime}
[[ -x $opt ]] || { echo "bundle-api: megamoe-opt not found at $opt" >&2; exit 1; }
[[ -f $rt/build.ninja ]] || cmake -S runtime -B "$rt" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$rt" megamoe_runtime megamoe-run-cubin megamoe-gpu-tests megamoe-runtime-unittests >/dev/null

rm -rf "$dest"
mkdir -p "$dest"/{bin,data,layers,cubins,python/megamoe/lib,python/megamoe_testing,python/tests/data}
stage_runtime_and_python "$rt" "$dest"
# The test programs find the library at $ORIGIN/../lib.
mkdir -p "$dest/lib" && cp "$rt"/lib/libmegamoe_runtime.so "$dest/lib/"
cp "$rt"/bin/{megamoe-run-cubin,megamoe-gpu-tests} "$rt"/megamoe-runtime-unittests "$dest/bin/"
cp python/tests/{conftest,test_runtime,test_pytorch_api,test_layer,test_grouped_gemm,grouped_gemm_ref}.py \
  "$dest/python/tests/"
cp python/tests/data/*.json "$dest/python/tests/data/"
cp scripts/gpu-api.sh "$dest/"

# EP1 layers (name:H:I:E:K:T:clamp[:schedule]): the small config with and
# without the clamp, one whose plan has two variants (BLOCK_M 64 and 128),
# and that one with the split schedule (docs/SplitSchedule.md).
for spec in ${API_LAYERS:-small_ep1:512:256:8:2:64:0 small_clamp_ep1:512:256:8:2:64:10 variants_ep1:512:256:8:2:256:10 variants_split_ep1:512:256:8:2:256:10:split}; do
  IFS=: read -r name h i e k t c schedule <<<"$spec"
  clamp=""; [[ $c != 0 ]] && clamp=" clamp=$c"
  echo "bundle-api: layer $name (H=$h I=$i E=$e K=$k R=1 T=$t clamp=$c)"
  echo 'module {}' | "$opt" \
    --megamoe-layer="hidden=$h intermediate=$i experts=$e topk=$k ranks=1 max-tokens=$t chip=sm_90a$clamp" \
    --megamoe-plan="schedule=${schedule:-unfused}" --megamoe-expand \
    --megamoe-to-cubin="chip=sm_90a emit-dir=$dest/layers/$name" -o /dev/null
  rm -f "$dest/layers/$name"/*.h "$dest/layers/$name"/*.ptx
done

# The grouped GEMMs test_grouped_gemm.py reads (its SHAPES x BLOCK_M, and the
# two layer-schedule variants).
for nk in 4096x4096 4096x2048 6144x7168 7168x3072; do
  for bm in 128 64; do
    d=$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm$bm
    bash scripts/compile-grouped-gemm.sh --opt "$opt" --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
      --max-m 32768 --block-m "$bm" --out "$d" >/dev/null
  done
done
bash scripts/compile-grouped-gemm.sh --opt "$opt" --experts 8 --n 4096 --k 4096 --block-m 128 \
  --out-type f32 --b-scale-interleave 8 --device-m-blocks --static-m 4096 \
  --out "$dest/cubins/gg_e8_n4096_k4096_m32768_bm128_f32_il8_dev_s4096" >/dev/null
bash scripts/compile-grouped-gemm.sh --opt "$opt" --experts 8 --n 4096 --k 2048 --block-m 128 \
  --device-m-blocks --static-m 4096 \
  --out "$dest/cubins/gg_e8_n4096_k2048_m32768_bm128_dev_s4096" >/dev/null
rm -f "$dest"/cubins/*/module.mlir "$dest"/cubins/*/*.h "$dest"/cubins/*/*.ptx

# The hello kernel (test_runtime.py, megamoe-gpu-tests).
"$opt" test/GPU/run-cubin.mlir --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})' > "$dest/data/hello.mlir"
python3 runtime/tools/extract_gpu_binary.py "$dest/data/hello.mlir" "$dest/data"
rm "$dest/data/hello.mlir"
cp runtime/tests/data/hello.manifest.json "$dest/data/"

size=$(du -sm "$dest" | cut -f1)
echo "bundle-api: $dest holds ${size} MiB"
if (( size >= 60 )); then echo "bundle-api: larger than 60 MiB" >&2; exit 1; fi
