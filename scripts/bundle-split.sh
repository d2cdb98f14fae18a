#!/usr/bin/env bash
# Gathers what scripts/gpu-split.sh needs on the GPU machine (no LLVM there)
# into DEST: each layer compiled twice, with the unfused schedule (the bitwise
# reference) and the split schedule (docs/SplitSchedule.md), the runtime
# library, the Python packages and the scripts. On the GPU machine:
#   bash DEST/gpu-split.sh        (logs and the summary under $OUT)
#
#   scripts/bundle-split.sh DEST      (e.g. /work/main/.bundle-split)
#
# Layers (name:H:I:E:K:R:T[:block_m[:expand options[:plan options[:candidate
# plan options]]]]; empty block_m = the planner's choice; expand and plan
# options, with ',' for ' ', go to megamoe-expand and megamoe-plan, e.g.
# flash:4096:2048:256:6:1:8192:::l2-block-n=256; the candidate plan options
# go to megamoe-plan for every build but unfused, the reference, e.g.
# s_ring:512:256:8:2:1:512::::l1-pull=true,wave-m-blocks=2,pool-tokens=512):
#   s_ep1       EP1, T = 64 (the planner's BLOCK_M 64 variant)
#   s_ep1_bm128 EP1, T = 64, BLOCK_M 128 pinned (the other variant's kernels)
#   s_r2, s_r4  2 and 4 ranks on one GPU (one-GPU multi-rank mode)
#   flash, pro  V4-Flash and V4-Pro at EP1, 8192 tokens (both variants),
#               clamp 10: the bitwise check at size and the benchmark
# LAYERS overrides the list; a name ending in _fm compiles with fast-math=true,
# one containing _q64 with requant-block=64 (per-64 requantization), names
# starting with flash or pro get clamp 10. With OLD_OPT (a megamoe-opt
# binary) each layer's split schedule is also compiled by it, into split_old,
# so that gpu-split.sh times the two compilers' split kernels side by side.
# BUILDS (default "unfused split") lists the schedules compiled per layer
# (folder = schedule with '-' as '_', e.g. fused_gemm); an entry
# FOLDER=SCHEDULE@OPTIONS (options joined by ',') compiles SCHEDULE with
# these plan options too into FOLDER, e.g. split_eb=split@l2-expert-blocks=true
# beside split (the candidate of a plan option, timed against the build
# without it by gpu-split.sh's BENCH_PAIRS); a layer whose name starts with
# "missing" is compiled with fused-gemm only (its fault test).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bundle-common.sh
dest=${1:?usage: $0 DEST}
opt=${MEGAMOE_OPT:-$PWD/build/release/bin/megamoe-opt}
rt=${MEGAMOE_RUNTIME_BUILD:-build/runtime}
[[ -x $opt ]] || { echo "bundle-split: megamoe-opt not found at $opt" >&2; exit 1; }
LAYERS=${LAYERS:-"s_ep1:512:256:8:2:1:64 s_ep1_bm128:512:256:8:2:1:64:128 s_r2:512:256:8:2:2:64 s_r4:512:384:16:4:4:32 flash:4096:2048:256:6:1:8192 pro:7168:3072:384:6:1:8192"}

rm -rf "$dest"
mkdir -p "$dest/layers" "$dest/python/megamoe/lib" "$dest/python/megamoe_testing" \
  "$dest/python/tests" "$dest/bench"
for spec in $LAYERS; do
  IFS=: read -r name h i e k r t bm expand planopts candplan <<<"$spec"
  expand=${expand//,/ }; planopts=${planopts//,/ }; candplan=${candplan//,/ }
  clamp=""; [[ $name == flash* || $name == pro* ]] && clamp=" clamp=10"
  [[ $name == *_fm ]] && clamp+=" fast-math=true"
  [[ $name == *_q64* ]] && clamp+=" requant-block=64"
  builds=${BUILDS:-unfused split}; [[ -n ${OLD_OPT:-} ]] && builds+=" split_old"
  [[ $name == missing* ]] && builds=fused_gemm
  for entry in $builds; do
    build=${entry%%=*}; build=${build//-/_}; extra=""
    if [[ $entry == *=*@* ]]; then
      schedule=${entry#*=}; extra=${schedule#*@}; extra=${extra//,/ }; schedule=${schedule%%@*}
    else
      schedule=${build%_old}; schedule=${schedule//_/-}
    fi
    bopt=$opt; [[ $build == *_old ]] && bopt=$OLD_OPT
    bplan=$planopts; [[ $build != unfused && -n $candplan ]] && bplan+="${bplan:+ }$candplan"
    [[ -n $extra ]] && bplan+="${bplan:+ }$extra"
    echo "bundle-split: $name $build (H=$h I=$i E=$e K=$k R=$r T=$t${bm:+ block-m=$bm}$clamp${bplan:+ $bplan})"
    compile_layer "$bopt" "$dest/layers/$name/$build" \
      "hidden=$h intermediate=$i experts=$e topk=$k ranks=$r max-tokens=$t$clamp" \
      "schedule=$schedule${bm:+ block-m=$bm}${bplan:+ $bplan}" "$expand"
  done
done

stage_runtime_and_python "$rt" "$dest"
cp python/tests/conftest.py python/tests/test_layer.py python/tests/test_multirank.py "$dest/python/tests/"
cp bench/compare_cubins.py "$dest/bench/"
cp scripts/gpu-split.sh "$dest/"
echo "bundle-split: $dest holds $(du -sm "$dest" | cut -f1) MiB"
