#!/usr/bin/env bash
# The main job on the embedded default: build megamoe-opt and compile the
# sample shipped in the repo to PTX for sm_90a.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh megamoe-opt
mkdir -p build/demo
./build/release/bin/megamoe-opt test/Examples/hello_sm90.mlir \
  --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' \
  -o build/demo/hello_sm90.isa.mlir
echo "demo: wrote build/demo/hello_sm90.isa.mlir; the PTX it holds begins:"
grep -o '\.version [0-9.]*\\0A\.target sm_90a' build/demo/hello_sm90.isa.mlir | sed 's/\\0A/\n/'

# The default layer (V4-Flash, EP8, 8192 tokens per rank): its plan and buffer layout.
echo
echo "demo: plan of the default layer (V4-Flash, EP8, 8192 tokens/rank):"
./build/release/bin/megamoe-opt \
  --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=8 max-tokens=8192 chip=sm_90a" \
  --megamoe-plan --megamoe-print-plan -o /dev/null
