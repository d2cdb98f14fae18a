#!/usr/bin/env bash
# The grouped-GEMM bundle (scripts/bundle-grouped-gemm.sh) plus the BM128
# variants (cluster-m=2: _c2, _bn256_c2; scale-prefetch: _pf, _bn256_pf,
# _bn256_c2_pf; K loop rolled: _nu, and at BLOCK_N 256 _bn256_rw,
# _bn256_c2_pf_rw; MMA issue turns: _mt, _bn256_mt, _bn256_c2_pf_mt) of the
# benchmark and test shapes, the
# side-by-side benchmark (bench/grouped_gemm_cluster_side_by_side.py) and its
# GPU script.
#   scripts/bundle-grouped-gemm-cluster.sh DEST   (e.g. /work/main/.bundle-mc)
# On the GPU machine (from the folder that holds .anchor/ and DEST):
#   OUT=... bash DEST/gpu-grouped-gemm-cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: $0 DEST}
bash scripts/bundle-grouped-gemm.sh "$dest" >/dev/null
for nk in 4096x7168 7168x2048 4096x4096 4096x2048 6144x7168 7168x3072; do
  # suffix:options (the cluster-2 and scale-prefetch variants at BLOCK_N 128 / 256)
  for v in "_c2:--cluster-m 2" "_bn256_c2:--block-n 256 --cluster-m 2" \
           "_pf:--scale-prefetch" "_bn256_pf:--block-n 256 --scale-prefetch" \
           "_bn256_c2_pf:--block-n 256 --cluster-m 2 --scale-prefetch" \
           "_nu:--no-unroll" "_bn256_rw:--block-n 256 --rolled-wide" \
           "_bn256_c2_pf_rw:--block-n 256 --cluster-m 2 --scale-prefetch --rolled-wide" \
           "_mt:--mma-turns" "_bn256_mt:--block-n 256 --mma-turns" \
           "_bn256_c2_pf_mt:--block-n 256 --cluster-m 2 --scale-prefetch --mma-turns"; do
    d=$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm128${v%%:*}
    # shellcheck disable=SC2086
    bash scripts/compile-grouped-gemm.sh --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
      --max-m 32768 --block-m 128 ${v#*:} --out "$d" >/dev/null
    rm -f "$d/module.mlir"
  done
done
# With OLD_OPT (another megamoe-opt), BM128 variants compiled by it too, suffixed
# _old (bench columns for a compiler change measured side by side).
if [[ -n ${OLD_OPT:-} ]]; then
  for nk in 4096x7168 7168x2048 4096x4096 4096x2048; do
    for v in ":" "_bn256:--block-n 256" "_bn256_c2_pf:--block-n 256 --cluster-m 2 --scale-prefetch" \
             "_bn256_c2_pf_mt:--block-n 256 --cluster-m 2 --scale-prefetch --mma-turns"; do
      d=$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm128${v%%:*}_old
      # shellcheck disable=SC2086
      bash scripts/compile-grouped-gemm.sh --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
        --max-m 32768 --block-m 128 ${v#*:} --opt "$OLD_OPT" --out "$d" >/dev/null
      rm -f "$d/module.mlir"
    done
  done
fi
cp bench/grouped_gemm_cluster_side_by_side.py bench/ncu_one_grouped_gemm.py "$dest/bench/"
cp scripts/gpu-grouped-gemm-cluster.sh scripts/gpu-grouped-gemm-ncu.sh "$dest/"
du -sh "$dest"
