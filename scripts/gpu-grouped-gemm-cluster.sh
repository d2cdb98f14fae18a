#!/usr/bin/env bash
# Runs on the GPU machine from a bundle of scripts/bundle-grouped-gemm-cluster.sh,
# started from the folder that holds .anchor/ (DeepGEMM) and the bundle:
# DeepGEMM's build in the background, the SASS check, a smoke test (timeout 90),
# the grouped GEMM tests, then the side-by-side benchmark (BM128, BM64,
# cluster-2 BM128, DeepGEMM, torch big GEMM). Logs in $OUT; summary last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
source "$here/gpu-env.sh"
export MEGAMOE_GEMM_DIR=$here/cubins
t0=$(date +%s)
el() { echo "+$(( $(date +%s) - t0 ))s"; }
dg_pid=
if [[ -d $root/.anchor/deepgemm && -z ${NO_DG:-} ]]; then
  mkdir -p "$out/dg"
  (OUT=$out/dg DG_ANCHOR_ONLY="none:0" bash "$root/.anchor/deepgemm/run.sh" > "$out/dg/run.txt" 2>&1) &
  dg_pid=$!
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
# The SASS check of every cubin (python/tests/sass_check.py: QGMMA count of the
# tile, no HGMMA, no LDL/STL), MULTICAST counts and the resources.
# SASS_GLOB (default *) limits both to the cubin folders it matches.
python3 "$here/python/tests/sass_check.py" "$here"/cubins/${SASS_GLOB:-*}/ > "$out/sass_check.txt" 2>&1
sass_rc=$?
{
  for d in "$here"/cubins/${SASS_GLOB:-*}/; do
    printf '%s: MULTICAST=%s\n' "$(basename "$d")" \
      "$(cuobjdump -sass "$d/grouped_gemm.cubin" 2>&1 | grep -c 'UTMALDG.*MULTICAST')"
    python3 -c "import json; k=json.load(open('$d/grouped_gemm.json'))['kernels'][0]; print('  ', k.get('resources'), 'smem', k['dynamic_smem_bytes'], 'cluster', k.get('cluster'))"
  done
} > "$out/sass.txt" 2>&1
echo "$(el) sass done" >> "$out/steps.txt"
(cd "$here" && timeout 90 python3 -m pytest -x -q -s python/tests/test_grouped_gemm.py \
   -k "test_grouped_gemm_cluster and flash_l2 and (odd_total or uneven)") > "$out/smoke.txt" 2>&1
smoke_rc=$?
echo "$(el) smoke rc=$smoke_rc" >> "$out/steps.txt"
test_rc=$smoke_rc
if [[ $smoke_rc -eq 0 ]]; then
  # TEST_FILTER: a pytest -k expression (a run that has time for some tests).
  (cd "$here" && timeout ${TEST_TIMEOUT:-130} python3 -m pytest -q -s python/tests/test_grouped_gemm.py \
     ${TEST_FILTER:+-k "$TEST_FILTER"}) > "$out/pytest.txt" 2>&1
  test_rc=$?
fi
echo "$(el) tests rc=$test_rc" >> "$out/steps.txt"
if [[ -n $dg_pid ]]; then
  wait "$dg_pid"; echo "$(el) deepgemm build rc=$?" >> "$out/steps.txt"
fi
if [[ $smoke_rc -eq 0 && -z ${NO_BENCH:-} ]]; then
  (cd "$root" && DG_JIT_CACHE_DIR=/tmp/dg_anchor_jit \
     PYTHONPATH=$here/python:$here/python/tests:/tmp/dg_anchor \
     timeout ${BENCH_TIMEOUT:-110} python3 "$here/bench/grouped_gemm_cluster_side_by_side.py" \
       --cubins "$here/cubins" --variants "${VARIANTS:-c2:_c2}") > "$out/bench.txt" 2>&1
  echo "$(el) bench rc=$?" >> "$out/steps.txt"
fi
echo "=== steps"; cat "$out/steps.txt"
echo "=== SASS check (rc=$sass_rc)"; grep -E "n4096_k7168" "$out/sass_check.txt" | cut -c1-200; grep FAIL "$out/sass_check.txt"
echo "=== smoke"; tail -3 "$out/smoke.txt"
echo "=== tests (rc=$test_rc)"; grep -E "passed|failed|Error|Timeout|assert" "$out/pytest.txt" 2>/dev/null | cut -c1-300 | tail -25
echo "=== bench"; cat "$out/bench.txt" 2>/dev/null | tail -18
