#!/usr/bin/env bash
# On the GPU machine: pairs of compiled layers timed side by side with
# bench/compare_cubins.py (bitwise equal outputs, both against the FP32
# oracle, times interleaved call by call), e.g. a schedule compiled by two
# compilers or with two plans. Paths are relative to the folder it runs from.
#   OUT=... PAIRS="label=old_dir,new_dir ..." [BENCH_TOKENS=...] [GPU_SLEEP_CYCLES=2000000] \
#     bash scripts/gpu-layer-pairs.sh BUNDLE      (BUNDLE: runtime + python)
set -uo pipefail
bundle=$(cd "${1:?usage: $0 BUNDLE}" && pwd)
out=${OUT:-/tmp/gpu-layer-pairs}; mkdir -p "$out"
here=$bundle
source "$here/gpu-env.sh"
for pair in ${PAIRS:?PAIRS is empty}; do
  label=${pair%%=*}; dirs=${pair#*=}; old=${dirs%,*}; new=${dirs#*,}
  work=$(mktemp -d); mkdir -p "$work/$label"
  ln -sfn "$(cd "$old" && pwd)" "$work/$label/old"
  ln -sfn "$(cd "$new" && pwd)" "$work/$label/new"
  timeout ${BENCH_TIMEOUT:-200} python3 "$bundle/bench/compare_cubins.py" --layers "$work" \
    --tokens ${BENCH_TOKENS:-1,8,128,512,2048,8192} --iters ${BENCH_ITERS:-10} \
    --gpu-sleep-cycles ${GPU_SLEEP_CYCLES:-0} > "$out/pair-$label.log" 2>&1
  echo "== $label (old = $old, new = $new): rc=$?"
  grep -E "^\|" "$out/pair-$label.log" | tail -12
  rm -rf "$work"
done
