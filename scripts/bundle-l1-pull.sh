#!/usr/bin/env bash
# The bundle of bench/RESULTS.md 2026-12-02 "The pull in the L1 kernel": the layers of
# scripts/bundle-split.sh (unfused and split) plus each compiled with megamoe-plan l1-pull=true
# (split_pull) and a planted missing pull arrival (missingpull). With REG_OPT (another
# megamoe-opt, e.g. one whose dispatch warps copy through registers) V4-Flash and V4-Pro are
# also compiled by it with l1-pull=true, into split_pull_reg (gpu-l1-pull.sh WITH_REG=1 times
# the two side by side).
#   scripts/bundle-l1-pull.sh [DEST]      (default .bundle-pull)
# Then on the GPU machine, from the repo root with DEST carried:
#   bash DEST/gpu-l1-pull.sh   (logs under $OUT, a summary last)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bundle-common.sh
dest=${1:-$PWD/.bundle-pull}
LAYERS="s_ep1:512:256:8:2:1:64 s_ep1_bm128_fm:512:256:8:2:1:64:128 s_r2:512:256:8:2:2:64 s_r2b_fm:512:256:8:2:2:64:128 s_r4b_fm:512:384:16:4:4:32:128 flash_fm:4096:2048:256:6:1:8192 pro_fm:7168:3072:384:6:1:8192"
LAYERS=$LAYERS BUILDS="unfused split" bash scripts/bundle-split.sh $dest
opt=${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}
for spec in $LAYERS; do
  IFS=: read -r name h i e k r t bm <<<"$spec"
  clamp=""; [[ $name == flash* || $name == pro* ]] && clamp=" clamp=10"
  [[ $name == *_fm ]] && clamp+=" fast-math=true"
  builds="split_pull"
  [[ -n ${REG_OPT:-} && ( $name == flash* || $name == pro* ) ]] && builds+=" split_pull_reg"
  for build in $builds; do
    bopt=$opt; [[ $build == *_reg ]] && bopt=$REG_OPT
    echo "bundle-l1-pull: $name $build"
    compile_layer "$bopt" "$dest/layers/$name/$build" \
      "hidden=$h intermediate=$i experts=$e topk=$k ranks=$r max-tokens=$t$clamp" \
      "schedule=split l1-pull=true${bm:+ block-m=$bm}" ""
  done
done
# planted missing pull arrival (1 s timeout)
compile_layer "$opt" "$dest/layers/missingpull/split" \
  "hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 fast-math=true" \
  "schedule=split block-m=128 l1-pull=true" "test-missing-arrivals=1 barrier-timeout-cycles=2000000000"
cp scripts/gpu-layer-pairs.sh scripts/gpu-l1-pull.sh $dest/
du -sm $dest
