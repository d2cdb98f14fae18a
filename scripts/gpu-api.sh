#!/usr/bin/env bash
# Runs on one GPU from a bundle made by scripts/bundle-api.sh: the runtime's
# CPU unit tests and GPU test program, then (pytest) the PyTorch API tests
# (test_pytorch_api.py: the torch.library op in a CUDA graph replayed 100
# times, EPLB counters, torch.compile, config mismatch), the layer tests of
# the EP1 layers through the new API against the FP32 oracle (test_layer.py),
# the runtime schedule tests (test_runtime.py) and the grouped-GEMM tests
# (test_grouped_gemm.py), within $BUDGET seconds (default 280). Logs in $OUT
# (or ./gpu-out); a summary table last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} PYTHONUNBUFFERED=1
export PYTHONPATH=$here/python MEGAMOE_LAYER_DIR=$here/layers MEGAMOE_TEST_DATA=$here/data
export MEGAMOE_GEMM_DIR=$here/cubins MEGAMOE_RUNTIME_LIB=$here/python/megamoe/lib/libmegamoe_runtime.so
deadline=$(( SECONDS + ${BUDGET:-280} ))
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
python3 -c "import torch; print('torch', torch.__version__)" >> "$out/gpu.txt" 2>&1
declare -a NAMES RESULTS
step() { # step NAME LOG MAX_SECONDS COMMAND...
  local name=$1 log=$2 max=$3; shift 3
  local left=$(( deadline - SECONDS ))
  (( left < max )) && max=$left
  if (( max < 10 )); then NAMES+=("$name"); RESULTS+=("NOT RUN (time budget spent)"); return; fi
  local t0=$SECONDS
  (cd "$here" && timeout "$max" "$@") > "$out/$log" 2>&1
  local rc=$?
  local res="PASS"; (( rc == 124 )) && res="TIMEOUT(${max}s)"; (( rc != 0 && rc != 124 )) && res="FAIL(rc=$rc)"
  NAMES+=("$name"); RESULTS+=("$res $((SECONDS - t0))s $(grep -Eo '[0-9]+ (passed|failed|skipped)' "$out/$log" | tr '\n' ' ')")
}
step "runtime unit tests (CPU)" unit.txt 30 bin/megamoe-runtime-unittests --gtest_brief=1
step "gpu-tests module" gpu_module.txt 30 bin/megamoe-gpu-tests module data
mkdir -p "$out/tmp"
step "gpu-tests bad-inputs + layer" gpu_bad.txt 30 bin/megamoe-gpu-tests bad-inputs data "$out/tmp"
step "pytest test_pytorch_api.py" api.txt 120 python3 -m pytest -q -s -rs -p no:cacheprovider python/tests/test_pytorch_api.py
step "pytest test_layer.py (EP1, new API)" layer.txt 150 python3 -m pytest -q -s -rs -p no:cacheprovider python/tests/test_layer.py -k ep1
step "pytest test_runtime.py" runtime.txt 60 python3 -m pytest -q -s -rs -p no:cacheprovider python/tests/test_runtime.py
step "demo GPU part (small layer vs the oracle)" demo.txt 60 python3 -m megamoe_testing.demo_gpu layers/small_clamp_ep1/layer.json
step "pytest test_grouped_gemm.py" gemm.txt 200 python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_grouped_gemm.py

echo "=== details"
grep -h -E "replays bitwise|EPLB counters after|^[a-z_0-9]+ \(H=|^  (scenario|full|uneven|zero|masked|hot|bad_ids|small) " "$out"/api.txt "$out"/layer.txt 2>/dev/null | cut -c1-170
grep -h -E "FAIL|Error|error:" "$out"/*.txt 2>/dev/null | grep -v "^  " | head -20 | cut -c1-300
echo "=== summary ($(head -2 "$out/gpu.txt" | tail -1); $(tail -1 "$out/gpu.txt"))"
fails=0
for i in "${!NAMES[@]}"; do
  printf '%-40s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
  [[ ${RESULTS[$i]} == PASS* ]] || fails=$((fails + 1))
done
echo "gpu-api: $fails step(s) not passed; logs in $out"
exit $(( fails > 0 ))
