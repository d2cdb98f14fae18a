#!/usr/bin/env bash
# Everything the oracle/baseline work needs on the GPU machine, in one call:
# pytest (oracle vs C++ reference, baseline vs oracle at EP1 and EP2) and the
# benchmark. Run from a folder holding python/, bench/ and bin/megamoe-reference
# (the bundle) or from the repository root after a build.
#   OUT=/tmp/out bash bench/gpu_session.sh [moe_bench.py args...]
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/megamoe-bench}
mkdir -p "$OUT"
if [ -z "${MEGAMOE_REFERENCE_BIN:-}" ]; then
  for c in bin/megamoe-reference build/release/bin/megamoe-reference; do
    [ -x "$c" ] && export MEGAMOE_REFERENCE_BIN=$PWD/$c && break
  done
fi
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
nvidia-smi topo -m 2>/dev/null | head -4
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count())'
timeout 300 python3 -m pytest -q -rs -s python/tests -p no:cacheprovider > "$OUT/pytest.log" 2>&1
echo "pytest exit $?"
grep -E "rel L2|passed|failed|SKIPPED|Error|error" "$OUT/pytest.log" | tail -40
cp bench/RESULTS.md "$OUT/RESULTS.md" 2>/dev/null
timeout 420 python3 bench/moe_bench.py --json "$OUT/bench.json" --results "$OUT/RESULTS.md" "$@" 2>&1 | tee "$OUT/bench.log" | grep -v '^{'
echo "bench exit ${PIPESTATUS[0]}"
