#!/usr/bin/env bash
# The grouped-GEMM bundle (scripts/bundle-grouped-gemm.sh) plus the BM128
# variants (cluster-m=2: _c2, _bn256_c2; scale-prefetch: _pf, _bn256_pf,
# _bn256_c2_pf; K loop rolled: _nu, and at BLOCK_N 256 _bn256_rw,
# _bn256_c2_pf_rw; MMA issue turns: _mt, _bn256_mt, _bn256_c2_pf_mt; BLOCK_N
# 192: _bn192, _bn192_pf, _bn192_c2, _bn192_c2_pf; release lag 0 with and
# without the fence: _l0nf, _bn256_c2_pf_l0, _bn256_c2_pf_l0nf; the whole-tile
# epilogue: _bn256_c2_pf_st3_o256, and at BLOCK_N 192, 4 stages, DeepGEMM's
# 128 x 192 shape: _bn192_c2_pf_o192, _bn192_c2_pf_l0nf_o192), swap-AB (folders
# _bm32_sw, _bm16_sw) and the BM256 variants (folders _bm256,
# _bm256_c2, _bm256_c2_pf) of the benchmark and test shapes, the side-by-side
# benchmark (bench/grouped_gemm_cluster_side_by_side.py) and its GPU scripts.
#   scripts/bundle-grouped-gemm-cluster.sh DEST   (e.g. /work/main/.bundle-mc)
# BUILD_VARIANTS="suffix:options ..." (options joined by '=', e.g.
# "_bn192:--block-n=192") replaces the variant list (fewer compiles);
# OLD_OPT=<another megamoe-opt> adds OLD_VARIANTS (same form) compiled by it,
# suffixed _old.
# On the GPU machine (from the folder that holds .anchor/ and DEST):
#   OUT=... bash DEST/gpu-grouped-gemm-cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: $0 DEST}
bash scripts/bundle-grouped-gemm.sh "$dest" >/dev/null
default_variants=("_c2:--cluster-m 2" "_bn256_c2:--block-n 256 --cluster-m 2"
  "_pf:--scale-prefetch" "_bn256_pf:--block-n 256 --scale-prefetch"
  "_bn256_c2_pf:--block-n 256 --cluster-m 2 --scale-prefetch"
  "_nu:--no-unroll" "_bn256_rw:--block-n 256 --rolled-wide"
  "_bn256_c2_pf_rw:--block-n 256 --cluster-m 2 --scale-prefetch --rolled-wide"
  "_mt:--mma-turns" "_bn256_mt:--block-n 256 --mma-turns"
  "_bn256_c2_pf_mt:--block-n 256 --cluster-m 2 --scale-prefetch --mma-turns"
  "_bn192:--block-n 192" "_bn192_pf:--block-n 192 --scale-prefetch"
  "_bn192_c2:--block-n 192 --cluster-m 2"
  "_bn192_c2_pf:--block-n 192 --cluster-m 2 --scale-prefetch"
  ":--block-m 256" "_c2:--block-m 256 --cluster-m 2"
  "_c2_pf:--block-m 256 --cluster-m 2 --scale-prefetch"
  "_l0nf:--release-lag 0 --no-release-fence"
  "_bn256_c2_pf_l0:--block-n 256 --cluster-m 2 --scale-prefetch --release-lag 0"
  "_bn256_c2_pf_l0nf:--block-n 256 --cluster-m 2 --scale-prefetch --release-lag 0 --no-release-fence"
  "_bn256_c2_pf_st3_o256:--block-n 256 --cluster-m 2 --scale-prefetch --stages 3 --out-tile-columns 256"
  "_bn192_c2_pf_o192:--block-n 192 --cluster-m 2 --scale-prefetch --out-tile-columns 192"
  "_bn192_c2_pf_l0nf_o192:--block-n 192 --cluster-m 2 --scale-prefetch --release-lag 0 --no-release-fence --out-tile-columns 192"
  "_sw:--block-m 32 --swap-ab" "_sw:--block-m 16 --swap-ab")
if [[ -n ${BUILD_VARIANTS:-} ]]; then
  variants=()
  for v in $BUILD_VARIANTS; do variants+=("${v//=/ }"); done
else
  variants=("${default_variants[@]}")
fi
# A variant's folder is gg_..._bm<BLOCK_M><suffix>: BLOCK_M 128 unless its
# options give --block-m.
for nk in 4096x7168 7168x2048 4096x4096 4096x2048 6144x7168 7168x3072; do
  for v in "${variants[@]}"; do
    opts=${v#*:}
    bm=128
    if [[ $opts =~ --block-m\ ([0-9]+) ]]; then bm=${BASH_REMATCH[1]}; else opts="--block-m 128 $opts"; fi
    d=$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm$bm${v%%:*}
    # shellcheck disable=SC2086
    bash scripts/compile-grouped-gemm.sh --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
      --max-m 32768 $opts --out "$d" >/dev/null
    rm -f "$d/module.mlir"
  done
done
# With OLD_OPT (another megamoe-opt), BM128 variants compiled by it too, suffixed
# _old (bench columns for a compiler change measured side by side).
if [[ -n ${OLD_OPT:-} ]]; then
  for nk in 4096x7168 7168x2048 4096x4096 4096x2048; do
    for v in ${OLD_VARIANTS:-: _bn256:--block-n=256 _bn256_c2_pf:--block-n=256=--cluster-m=2=--scale-prefetch}; do
      v=${v//=/ }
      d=$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm128${v%%:*}_old
      # shellcheck disable=SC2086
      bash scripts/compile-grouped-gemm.sh --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
        --max-m 32768 --block-m 128 ${v#*:} --opt "$OLD_OPT" --out "$d" >/dev/null
      rm -f "$d/module.mlir"
    done
  done
fi
cp bench/grouped_gemm_cluster_side_by_side.py bench/grouped_gemm_decode_side_by_side.py \
  bench/ncu_one_grouped_gemm.py "$dest/bench/"
cp scripts/gpu-grouped-gemm-cluster.sh scripts/gpu-grouped-gemm-ncu.sh scripts/gpu-grouped-gemm-lean.sh "$dest/"
du -sh "$dest"
