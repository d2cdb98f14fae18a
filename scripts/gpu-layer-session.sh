#!/usr/bin/env bash
# One call on the GPU machine, from a bundle made by scripts/bundle-layer.sh
# with BENCH_LAYERS set: the layer tests (gpu-layer.sh: EP1 on one GPU, EP2
# on two), the benchmark against the PyTorch + NCCL baseline
# (bench/moe_bench.py with the megamoe schedules) and the per-kernel profile
# (bench/profile_layer.py). Logs go to $OUT; a short summary is printed last.
#   OUT=/tmp/out bash .bundle-layer/gpu-layer-session.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=$out EP1_TIMEOUT=${EP1_TIMEOUT:-150} EP2_TIMEOUT=${EP2_TIMEOUT:-240} \
  bash "$here/gpu-layer.sh" > "$out/layer_summary.txt" 2>&1
cd "$here"
export PYTHONPATH=$here/python:$here/bench MEGAMOE_LAYERS=$here/bench-layers
timeout "${BENCH_TIMEOUT:-260}" python3 bench/moe_bench.py --plugin megamoe_schedules:register \
  --schedules "${SCHEDULES:-torch-graph,megamoe-unfused,megamoe-unfused-t8192}" \
  --shapes "${SHAPES:-V4-Flash,V4-Pro}" --tokens "${TOKENS:-8,512,8192}" --ep 2 --check --iters 20 \
  --json /tmp/megamoe-bench.json --results "$out/RESULTS.md" > "$out/bench.log" 2>&1
echo "bench rc=$?"
timeout "${PROFILE_TIMEOUT:-120}" python3 bench/profile_layer.py --shapes "${SHAPES:-V4-Flash,V4-Pro}" \
  --tokens "${TOKENS:-8,512,8192}" --ep 2 > "$out/profile.log" 2>&1
echo "profile rc=$?"
grep -E "^=== |passed|failed|summary|Error" "$out/layer_summary.txt" | cut -c1-150 | head -30
echo "scenario rows ok: $(grep -cE ' ok$' "$out/layer_summary.txt"), not ok: $(grep -E '^  (full|uneven|zero|masked|hot|bad_ids|small) ' "$out/layer_summary.txt" | grep -cvE ' ok$')"
grep -E "^\| V4" "$out/bench.log" | cut -d'|' -f2,4,6,9,10,15,16
grep -E "Error|error" "$out/bench.log" | head -5
grep -vE "Warning|warn" "$out/profile.log" | head -70
