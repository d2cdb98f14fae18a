#!/usr/bin/env bash
# Gathers what a GPU run of the grouped GEMM needs (no LLVM there) into one
# folder: the cubins + manifests of every tested/benchmarked variant, the
# Python package file, tests, bench and the run script.
#   scripts/bundle-grouped-gemm.sh DEST   (e.g. /work/main/.bundle-gemm)
# On the GPU machine: bash DEST/gpu-grouped-gemm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: $0 DEST}
rm -rf "$dest"
mkdir -p "$dest/cubins" "$dest/python/megamoe" "$dest/python/tests" "$dest/bench"
# (N, K): benchmark shapes, then the V4-Flash / V4-Pro L1/L2 shapes of the tests.
# BLOCK_M 128 and 64, BLOCK_N 128 and 256 (directory suffix _bn256).
for nk in 4096x7168 7168x2048 4096x4096 4096x2048 6144x7168 7168x3072; do
  for bm in 128 64; do
    for bn in 128 256; do
      sfx=""
      [[ $bn != 128 ]] && sfx="_bn$bn"
      bash scripts/compile-grouped-gemm.sh --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
        --max-m 32768 --block-m "$bm" --block-n "$bn" \
        --out "$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm$bm$sfx" >/dev/null
    done
  done
done
# The two GEMMs of the unfused layer schedule (python/tests/test_grouped_gemm.py LAYER_VARIANTS).
bash scripts/compile-grouped-gemm.sh --experts 8 --n 4096 --k 4096 --block-m 128 --out-type f32 \
  --b-scale-interleave 8 --device-m-blocks --static-m 4096 \
  --out "$dest/cubins/gg_e8_n4096_k4096_m32768_bm128_f32_il8_dev_s4096" >/dev/null
bash scripts/compile-grouped-gemm.sh --experts 8 --n 4096 --k 4096 --block-m 128 --block-n 256 \
  --out-type f32 --b-scale-interleave 8 --device-m-blocks --static-m 4096 \
  --out "$dest/cubins/gg_e8_n4096_k4096_m32768_bm128_bn256_f32_il8_dev_s4096" >/dev/null
bash scripts/compile-grouped-gemm.sh --experts 8 --n 4096 --k 2048 --block-m 128 \
  --device-m-blocks --static-m 4096 \
  --out "$dest/cubins/gg_e8_n4096_k2048_m32768_bm128_dev_s4096" >/dev/null
rm -f "$dest"/cubins/*/module.mlir
# The runtime library (C API launch path); without it the ctypes launcher is used.
rt=${MEGAMOE_RUNTIME_BUILD:-build/runtime}
[[ -f $rt/build.ninja ]] || cmake -S runtime -B "$rt" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$rt" megamoe_runtime >/dev/null
mkdir -p "$dest/python/megamoe/lib"
cp "$rt"/lib/libmegamoe_runtime.so "$dest/python/megamoe/lib/"
cp python/megamoe/*.py "$dest/python/megamoe/"
cp python/tests/test_grouped_gemm.py python/tests/grouped_gemm_ref.py python/tests/sass_check.py "$dest/python/tests/"
cp bench/bench_grouped_gemm.py bench/grouped_gemm_bn_side_by_side.py "$dest/bench/"
cp scripts/gpu-grouped-gemm.sh scripts/gpu-grouped-gemm-bn.sh scripts/lib/gpu-env.sh "$dest/"
du -sh "$dest"
