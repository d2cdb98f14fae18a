#!/usr/bin/env bash
# Runs the runtime's GPU tests from a bundle made by scripts/bundle-gpu.sh and
# prints a summary. Logs go to $OUT (the device machine's output folder) or
# <bundle>/logs. Needs: CUDA driver, NCCL, python3 (+ torch, pytest for the
# Python steps). Multi-GPU steps need 2 GPUs and are skipped, visibly, with 1.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
LOG=${OUT:-$B/logs}
mkdir -p "$LOG"
# Never NVLink multicast.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 MEGAMOE_TEST_DATA=$B/data MEGAMOE_RUNTIME_LIB=$B/lib/libmegamoe_runtime.so
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "run-gpu-tests: $NGPU GPU(s)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
TMP=$(mktemp -d)
declare -a NAMES RESULTS

step() { # step NAME LOGFILE COMMAND...
  local name=$1 log=$2; shift 2
  echo "=== $name: $*"
  local t0=$SECONDS
  "$@" >>"$LOG/$log" 2>&1
  local rc=$?
  tail -n 40 "$LOG/$log" | grep -E 'PASS|FAIL|SKIP|MEASURE|message:|passed|failed|skipped|error' | tail -n 30
  NAMES+=("$name"); RESULTS+=("$([[ $rc == 0 ]] && echo PASS || echo "FAIL(rc=$rc)") $((SECONDS - t0))s")
}
run_cubin_check() { # the runner prints out[i] = i for the 64 threads
  local got want="out: $(seq -s ' ' 0 63)"
  got=$("$B/bin/megamoe-run-cubin" "$B/data/hello.manifest.json" store_tid --out out=64) || return 1
  echo "$got"
  if [[ $got == "$want" ]]; then echo "PASS run-cubin output"; else echo "FAIL run-cubin output"; return 1; fi
}
skip() { NAMES+=("$1"); RESULTS+=("SKIP ($2)"); echo "=== $1: SKIP ($2)"; }

step "unit tests (CPU)" unit.log "$B/bin/megamoe-runtime-unittests" --gtest_brief=1
if (( NGPU >= 1 )); then
  step "1 cubin from megamoe-opt: load, launch, graph" gpu1.log "$B/bin/megamoe-gpu-tests" module "$B/data"
  step "1 megamoe-run-cubin output" gpu1.log run_cubin_check
  step "3 bad inputs + layer + weight transform" gpu1.log "$B/bin/megamoe-gpu-tests" bad-inputs "$B/data" "$TMP"
  if python3 -c 'import torch, pytest' 2>/dev/null; then
    step "3 python package (pytest, 1 GPU)" python.log python3 -m pytest -q -rs "$B/python/tests/test_runtime.py" -p no:cacheprovider
  else
    skip "3 python package (pytest, 1 GPU)" "torch or pytest missing"
  fi
else
  skip "GPU steps" "no GPU visible"
fi
if (( NGPU >= 2 )); then
  step "2 NCCL symmetric window, peer writes, bandwidth (2 GPUs)" symm.log "$B/bin/megamoe-launch" -n 2 --timeout 300 -- "$B/bin/megamoe-gpu-tests" symmetric
  if python3 -c 'import torch' 2>/dev/null; then
    step "2 python over torch.distributed (2 GPUs)" python.log "$B/bin/megamoe-launch" -n 2 --timeout 300 -- python3 "$B/python/tests/dist_smoke.py"
  else
    skip "2 python over torch.distributed" "torch missing"
  fi
else
  skip "multi-GPU steps" "fewer than 2 GPUs"
fi

echo; echo "=== measurements"
grep -h MEASURE "$LOG"/*.log || true
echo; echo "=== summary"
fails=0
for i in "${!NAMES[@]}"; do
  printf '%-60s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
  [[ ${RESULTS[$i]} == FAIL* ]] && fails=$((fails + 1))
done
echo "run-gpu-tests: $fails step(s) failed"
rm -rf "$TMP"
exit $(( fails > 0 ))
