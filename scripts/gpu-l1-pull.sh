#!/usr/bin/env bash
# On the GPU machine, from the repo root with the bundle of scripts/bundle-l1-pull.sh carried:
#   bash BUNDLE/gpu-l1-pull.sh        (e.g. bash .bundle-bp/gpu-l1-pull.sh)
# The pull inside the L1 kernel (split_pull) against split (moe_pull before the kernel; time,
# bitwise) and the unfused reference (bitwise, every scenario, EP1/EP2/EP4), and the planted
# missing arrival. With WITH_REG=1, and a bundle built with REG_OPT, also the copy through
# registers (split_pull_reg, another compiler's l1-pull) against split_pull; SKIP_COMPARE=1
# leaves out the bitwise comparisons after the timing (gpu-split.sh). Paths are the
# bundle's (the folder this script is in). Logs in $OUT/logs.tgz; the summary and the timing
# tables last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/out}; mkdir -p $out/logs
source $here/gpu-env.sh
: > $out/summary.txt
note() { echo "$*" | tee -a $out/summary.txt; }
finish() {
  for f in $out/logs/compare-*.log; do
    [[ -f $f ]] && echo "$(basename $f): $(tail -1 $f | cut -c1-160)" >> $out/summary.txt
  done
  (cd $out && tar czf logs.tgz logs && rm -rf logs)
  echo "== summary"; cat $out/summary.txt
  echo "== time, us (old = first build of the pair, new = second)"
  [[ -f $out/tables.txt ]] && cat $out/tables.txt
  exit 0
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $out/logs/gpu.txt
# Smoke first: a hung kernel ends here, within 60 s (BLOCK_M 128 with half blocks, then 64).
for layer in s_ep1_bm128_fm s_ep1; do
  timeout 60 python3 -m megamoe_testing.multirank $here/layers/$layer/split_pull forward --fast-exit \
    > $out/logs/smoke-$layer.log 2>&1
  rc=$?; note "smoke $layer split_pull forward: rc=$rc $(tail -1 $out/logs/smoke-$layer.log | cut -c1-160)"
  [[ $rc == 0 ]] || finish
done
timeout 60 python3 -m megamoe_testing.multirank $here/layers/missingpull/split missing_arrival --timeout 30 \
  > $out/logs/missing.log 2>&1
note "missing: rc=$? $(grep -m1 'pull_arrival' $out/logs/missing.log | cut -c1-200)"
L=$here/layers
pairs="flash=$L/flash_fm/split,$L/flash_fm/split_pull pro=$L/pro_fm/split,$L/pro_fm/split_pull"
if [[ ${WITH_REG:-0} == 1 && -d $L/pro_fm/split_pull_reg ]]; then
  pairs+=" flash_reg=$L/flash_fm/split_pull_reg,$L/flash_fm/split_pull"
  pairs+=" pro_reg=$L/pro_fm/split_pull_reg,$L/pro_fm/split_pull"
fi
OUT=$out/logs PAIRS="$pairs" GPU_SLEEP_CYCLES=2000000 BENCH_TIMEOUT=150 \
  timeout ${PAIRS_TIMEOUT:-320} bash $here/gpu-layer-pairs.sh $here > $out/logs/pairs.out 2>&1
note "pairs: rc=$? $(grep -c '^== ' $out/logs/pairs.out) pair(s) run"
cp $out/logs/pairs.out $out/tables.txt
[[ ${SKIP_COMPARE:-0} == 1 ]] && finish
OUT=$out/logs COMPARE="s_ep1 s_ep1_bm128_fm s_r2 s_r2b_fm s_r4b_fm flash_fm pro_fm" CANDIDATES="split_pull" \
  COMPARE_TIMEOUT=100 LAYER_TIMEOUT=60 BENCH_LAYERS=none timeout ${COMPARE_ALL_TIMEOUT:-200} \
  bash $here/gpu-split.sh > $out/logs/gpu-split.out 2>&1
grep -E "^layer tests" $out/logs/gpu-split.out >> $out/summary.txt
finish
