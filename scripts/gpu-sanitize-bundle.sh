#!/usr/bin/env bash
# Gathers what scripts/gpu-sanitize.sh needs on the GPU machine (no LLVM
# there) into DEST: tiny unfused layers compiled by megamoe-opt, the runtime
# library, the Python packages and the scripts. On the GPU machine:
#   bash DEST/gpu-sanitize.sh        (logs and the summary table under $OUT)
#
#   scripts/gpu-sanitize-bundle.sh DEST      (e.g. /work/main/.bundle-rel)
#
# Layers (name:H:I:E:K:R:T[:block_m[:expand options]]; block_m pins the
# plan's BLOCK_M, empty = the planner's choice, here 64 for T = 16):
#   san_ep1     EP1, the sanitizer runs (the BLOCK_M 64 kernels)
#   san_r2      2 ranks on one GPU (one-GPU multi-rank mode), sanitizer runs
#               (BLOCK_M 128 pinned: the other variant's kernels)
#   san_r4      4 ranks on one GPU, forward only
#   overflow_r2 E = 2, K = 2 on 2 ranks (L = 1 < K): a token that lists
#               expert 0 twice overflows the worst-case pool R*T*min(K,L)+L*(BM-1)
#   timeout_r2  2 ranks, cross-rank barriers time out after 2e9 cycles (~1 s)
# SCHEDULE=split compiles the layers with the split schedule
# (docs/SplitSchedule.md) instead of the unfused one.
# Needs megamoe-opt ($MEGAMOE_OPT, default build/release/bin/megamoe-opt) and
# the runtime built standalone ($MEGAMOE_RUNTIME_BUILD, default build/runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bundle-common.sh
dest=${1:?usage: $0 DEST}
opt=${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}
rt=${MEGAMOE_RUNTIME_BUILD:-build/runtime}
[[ -x $opt ]] || { echo "gpu-sanitize-bundle: megamoe-opt not found at $opt" >&2; exit 1; }
# The R = 2 sanitizer layer waits up to 2e11 cycles (~100 s) at its cross-rank
# barriers: under initcheck a rank's launches can stall for more than the
# default ~10 s while the tool instruments a large kernel of the other rank
# (seen with the split schedule's moe_l1_swiglu; 0 errors, a timeout trap).
LAYERS=${LAYERS:-"san_ep1:512:256:8:2:1:16 san_r2:512:256:8:2:2:16:128:barrier-timeout-cycles=200000000000 san_r4:512:256:8:2:4:16 overflow_r2:512:256:2:2:2:128 timeout_r2:512:256:8:2:2:16::barrier-timeout-cycles=2000000000"}

rm -rf "$dest"
mkdir -p "$dest/layers" "$dest/python/megamoe/lib" "$dest/python/megamoe_testing" "$dest/python/tests"
for spec in $LAYERS; do
  IFS=: read -r name h i e k r t bm expand <<<"$spec"
  echo "gpu-sanitize-bundle: $name (H=$h I=$i E=$e K=$k R=$r T=$t${bm:+ block-m=$bm}${expand:+ $expand})"
  compile_layer "$opt" "$dest/layers/$name" \
    "hidden=$h intermediate=$i experts=$e topk=$k ranks=$r max-tokens=$t" \
    "schedule=${SCHEDULE:-unfused}${bm:+ block-m=$bm}" "$expand"
done

stage_runtime_and_python "$rt" "$dest"
cp python/tests/conftest.py python/tests/test_multirank.py "$dest/python/tests/"
cp scripts/gpu-sanitize.sh "$dest/"
echo "gpu-sanitize-bundle: $dest holds $(du -sm "$dest" | cut -f1) MiB"
