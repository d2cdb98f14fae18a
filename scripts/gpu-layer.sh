#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/bundle-layer.sh: the
# runtime tests (python/tests/test_runtime.py: the schedule path over the
# hello kernel) on GPU 0, the layer tests (python/tests/test_layer.py) of the
# _ep1 layers on GPU 0, then of the _ep2 layers on GPUs 0 and 1 (one process
# per GPU); logs go to $OUT (or ./gpu-out); a summary table is printed last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$here/python MEGAMOE_LAYER_DIR=$here/layers MEGAMOE_TEST_DATA=$here/data
nvidia-smi --query-gpu=index,name,clocks.sm,temperature.gpu,power.draw --format=csv > "$out/gpu.txt" 2>&1
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)

run() { # label, visible devices, -k expression, timeout (s), test file
  (cd "$here" && CUDA_VISIBLE_DEVICES=$2 timeout "$4" python3 -m pytest -q -s -rs \
     "python/tests/${5:-test_layer.py}" -k "$3") > "$out/layer_$1.txt" 2>&1
  echo $?
}
rc0=$(run runtime 0 "" 120 test_runtime.py)
rc1=$(run ep1 0 ep1 "${EP1_TIMEOUT:-240}")
rc2=skipped
if (( ngpu >= 2 )); then rc2=$(run ep2 0,1 ep2 "${EP2_TIMEOUT:-300}"); fi

echo "=== runtime (schedule path over the hello kernel)"
grep -E "passed|failed|Error|error" "$out/layer_runtime.txt" | cut -c1-300 | tail -12
for label in ep1 ep2; do
  f=$out/layer_$label.txt
  [[ -f $f ]] || continue
  echo "=== $label"
  grep -E "^[a-z_0-9]+ \(H=|^  (scenario|full|uneven|zero|masked|hot|bad_ids|small) " "$f" | cut -c1-160
  grep -E "passed|failed|skipped|error|Error|SKIPPED|Timeout" "$f" | grep -v "^  " | cut -c1-300 | tail -12
done
echo "=== summary: runtime rc=$rc0, ep1 rc=$rc1, ep2 rc=$rc2 (GPUs visible: $ngpu); logs in $out"
