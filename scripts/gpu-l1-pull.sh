#!/usr/bin/env bash
# On the GPU machine, from the repo root with .bundle-pull carried (scripts/bundle-l1-pull.sh):
# the pull inside the L1 kernel (split_pull) against split (time, bitwise) and the unfused
# reference (bitwise, every scenario, EP1/EP2/EP4), and the planted missing arrival.
set -uo pipefail
B=.bundle-pull
here=$(cd $B && pwd)
out=${OUT:-/tmp/out}; mkdir -p $out/logs
source $here/gpu-env.sh
finish() { for f in $out/logs/compare-*.log; do [[ -f $f ]] && echo "$(basename $f): $(tail -1 $f | cut -c1-200)" >> $out/summary.txt; done; cd $out && tar czf logs.tgz logs && rm -rf logs; cat $out/summary.txt; exit 0; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $out/logs/gpu.txt
timeout 60 python3 -m megamoe_testing.multirank $here/layers/s_ep1_bm128_fm/split_pull forward --fast-exit > $out/logs/smoke.log 2>&1
rc=$?; echo "smoke s_ep1_bm128_fm split_pull forward: rc=$rc $(tail -1 $out/logs/smoke.log | cut -c1-200)" | tee -a $out/summary.txt
[[ $rc == 0 ]] || finish
timeout 60 python3 -m megamoe_testing.multirank $here/layers/missingpull/split missing_arrival --timeout 30 > $out/logs/missing.log 2>&1
echo "missing: rc=$? $(grep -m1 'pull_arrival' $out/logs/missing.log | cut -c1-220)" | tee -a $out/summary.txt
OUT=$out/logs PAIRS="flash=$B/layers/flash_fm/split,$B/layers/flash_fm/split_pull pro=$B/layers/pro_fm/split,$B/layers/pro_fm/split_pull" \
  GPU_SLEEP_CYCLES=2000000 BENCH_TIMEOUT=150 timeout 320 bash $here/gpu-layer-pairs.sh $B > $out/logs/pairs.out 2>&1
cat $out/logs/pairs.out | tee -a $out/summary.txt
OUT=$out/logs COMPARE="s_ep1 s_ep1_bm128_fm s_r2 s_r2b_fm s_r4b_fm flash_fm pro_fm" CANDIDATES="split_pull" \
  COMPARE_TIMEOUT=100 LAYER_TIMEOUT=60 BENCH_LAYERS=none timeout 200 bash $here/gpu-split.sh > $out/logs/gpu-split.out 2>&1
grep -E "^layer tests" $out/logs/gpu-split.out | tee -a $out/summary.txt
finish
