#!/usr/bin/env bash
# The grouped-GEMM bundle (scripts/bundle-grouped-gemm.sh) plus the cluster-2
# BM128 cubins (cluster-m=2, suffix _c2) of the benchmark and test shapes, the
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
  d=$dest/cubins/gg_e8_n${nk%x*}_k${nk#*x}_m32768_bm128_c2
  bash scripts/compile-grouped-gemm.sh --experts 8 --n "${nk%x*}" --k "${nk#*x}" \
    --max-m 32768 --block-m 128 --cluster-m 2 --out "$d" >/dev/null
  rm -f "$d/module.mlir"
done
cp bench/grouped_gemm_cluster_side_by_side.py "$dest/bench/"
cp scripts/gpu-grouped-gemm-cluster.sh "$dest/"
du -sh "$dest"
