#!/usr/bin/env bash
# On the GPU machine, from a bundle of scripts/bundle-split.sh: the split
# schedule against the unfused one (bitwise, every scenario, EP1 and the
# one-GPU multi-rank mode at EP2 and EP4; back-to-back calls and graph
# replays), the layer tests of the split layers against the FP32 oracle, and
# the two schedules timed side by side (bench/compare_cubins.py, unfused as
# "old", split as "new"). Logs under $OUT; a summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/gpu-split}; mkdir -p "$out"
source "$here/gpu-env.sh"
summary=()
# The candidates: every schedule compiled beside the unfused reference.
cands=${CANDIDATES:-split fused_gemm}
for name in ${COMPARE:-s_ep1 s_ep1_bm128 s_r2 s_r4 flash pro}; do
  d=$here/layers/$name; [[ -d $d ]] || continue
  repeat=100; [[ $name == flash* || $name == pro* ]] && repeat=20
  for cand in $cands; do
    [[ -d $d/$cand ]] || continue
    timeout ${COMPARE_TIMEOUT:-240} python3 -m megamoe_testing.schedule_compare \
      "$d/unfused" "$d/$cand" --repeat $repeat > "$out/compare-$name-$cand.log" 2>&1
    rc=$?
    summary+=("compare $name $cand: rc=$rc $(tail -1 "$out/compare-$name-$cand.log")")
  done
done
# The layer tests (oracle, repeat, graph, EPLB) on the candidates' layers at EP1.
for cand in $cands; do
  mkdir -p "$out/cand-layers"
  for name in ${LAYER_TESTS:-s_ep1 s_ep1_bm128 flash}; do
    [[ -d $here/layers/$name/$cand ]] && ln -sfn "$here/layers/$name/$cand" "$out/cand-layers/$name"
  done
  if [[ -n $(ls "$out/cand-layers") ]]; then
    MEGAMOE_LAYER_DIR=$out/cand-layers timeout ${LAYER_TIMEOUT:-300} \
      python3 -m pytest -q -x "$here/python/tests/test_layer.py" > "$out/layer-tests-$cand.log" 2>&1
    summary+=("layer tests ($cand, EP1): rc=$? $(tail -1 "$out/layer-tests-$cand.log")")
  fi
  rm -rf "$out/cand-layers"
done
# The planted missing arrival (a fused-gemm layer whose L2 tiles wait for
# one arrival more than comes): the wait must time out with its message.
for d in "$here"/layers/missing*/fused_gemm; do
  [[ -d $d ]] || continue
  timeout 120 python3 -m megamoe_testing.multirank "$d" missing_arrival --timeout 60 \
    > "$out/missing-arrival.log" 2>&1
  rc=$?
  msg=$(grep -m1 "timeout waiting for counter 'l2_arrival'" "$out/missing-arrival.log" | cut -c1-200)
  summary+=("missing arrival: rc=$rc $(grep -m1 '^multirank:' "$out/missing-arrival.log" | cut -c1-200) | $msg")
done
# Timing: unfused (old) and split (new) interleaved call by call; where the
# bundle has split_old (another compiler's split kernels), also split_old
# (old) against split (new).
bench_pair() { # label old-build new-build
  local label=$1 oldb=$2 newb=$3 any=0
  rm -rf "$out/bench-layers"; mkdir -p "$out/bench-layers"
  for name in ${BENCH_LAYERS:-flash pro}; do
    if [[ -d $here/layers/$name/$oldb && -d $here/layers/$name/$newb ]]; then
      mkdir -p "$out/bench-layers/$name"
      ln -sfn "$here/layers/$name/$oldb" "$out/bench-layers/$name/old"
      ln -sfn "$here/layers/$name/$newb" "$out/bench-layers/$name/new"
      any=1
    fi
  done
  [[ $any == 1 ]] || return 0
  timeout ${BENCH_TIMEOUT:-300} python3 "$here/bench/compare_cubins.py" --layers "$out/bench-layers" \
    --tokens ${BENCH_TOKENS:-1,8,128,512,2048,8192} --iters ${BENCH_ITERS:-10} \
    --gpu-sleep-cycles ${GPU_SLEEP_CYCLES:-0} > "$out/bench-$label.log" 2>&1
  summary+=("bench $label (old = $oldb, new = $newb): rc=$?")
  rm -rf "$out/bench-layers"
}
# BENCH_PAIRS ("old:new ..." folders) replaces the default pairs (unfused
# against each candidate), e.g. "split:split_eb auto:split_eb".
if [[ -n ${BENCH_PAIRS:-} ]]; then
  for p in $BENCH_PAIRS; do bench_pair "${p%%:*}-${p#*:}" "${p%%:*}" "${p#*:}"; done
else
  for cand in $cands; do bench_pair unfused-$cand unfused $cand; done
fi
bench_pair splitold-split split_old split
echo "== summary"
printf '%s\n' "${summary[@]}"
for f in "$out"/bench-*.log; do echo "== $(basename "$f")"; grep -E "^\|" "$f" | tail -30; done
