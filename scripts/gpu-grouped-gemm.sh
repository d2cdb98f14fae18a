#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/bundle-grouped-gemm.sh:
# SASS check (QGMMA in the math loop), ptxas resources, the GPU tests, then the
# benchmark; logs go to $OUT (or ./gpu-out), a short summary is printed last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
source "$here/gpu-env.sh"
export MEGAMOE_GEMM_DIR=$here/cubins
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
# 1. The SASS check of every variant (python/tests/sass_check.py: QGMMA count
# of the tile, no HGMMA, no LDL/STL), then the resources.
python3 "$here/python/tests/sass_check.py" "$here"/cubins/*/ > "$out/sass_check.txt" 2>&1
sass_rc=$?
{
  for d in "$here"/cubins/*/; do
    python3 -c "import json,sys; k=json.load(open('$d/grouped_gemm.json'))['kernels'][0]; print('$(basename "$d")', k.get('resources'), 'smem', k['dynamic_smem_bytes'])"
  done
} > "$out/sass_resources.txt" 2>&1
cuobjdump -sass "$here/cubins/gg_e8_n4096_k7168_m32768_bm128/grouped_gemm.cubin" > "$out/sass_bm128_4096x7168.txt" 2>&1
# 2. Correctness: one small case first with a short timeout (a hung kernel must
# not eat the device time), then everything.
(cd "$here" && timeout 90 python3 -m pytest -x -q -s python/tests/test_grouped_gemm.py \
   -k "test_grouped_gemm and flash_l2 and uneven") > "$out/smoke.txt" 2>&1
smoke_rc=$?
test_rc=$smoke_rc
if [[ $smoke_rc -eq 0 ]]; then
  (cd "$here" && timeout ${TEST_TIMEOUT:-200} python3 -m pytest -q -s python/tests/test_grouped_gemm.py) > "$out/pytest.txt" 2>&1
  test_rc=$?
else
  cp "$out/smoke.txt" "$out/pytest.txt"
fi
# 3. Benchmark (when the smoke test passed and NO_BENCH is unset; the table
# shows each row's check).
if [[ $smoke_rc -eq 0 && -z ${NO_BENCH:-} ]]; then
  (cd "$here" && timeout ${BENCH_TIMEOUT:-200} python3 bench/bench_grouped_gemm.py --out "$out/bench.md") > "$out/bench.txt" 2>&1
fi
echo "=== SASS check (rc=$sass_rc)"; grep -c ": QGMMA=.* ok$" "$out/sass_check.txt" | sed 's/$/ cubins ok/'; grep FAIL "$out/sass_check.txt"
echo "=== resources"; cat "$out/sass_resources.txt"
echo "=== tests (rc=$test_rc)"; grep -E "rel err|passed|failed|Error|error|Timeout|assert" "$out/pytest.txt" | cut -c1-300 | tail -60
echo "=== bench"; tail -20 "$out/bench.txt" 2>/dev/null
