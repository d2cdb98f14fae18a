#!/usr/bin/env bash
# The main job: build megamoe-opt, compile the default layer (DeepSeek V4-Flash:
# H=4096 I=2048 E=256 K=6, EP8, 8192 tokens per rank, SwiGLU clamp 10) through
# the whole pipeline (plan -> unfused schedule -> PTX -> ptxas -> cubin +
# manifest + embeddable header), and print what came out: every kernel with
# its registers, spills and shared memory, the schedule variants and their
# token ranges, the symmetric-buffer size per rank. Where a Hopper GPU, the
# runtime and PyTorch are present it also runs a small layer (EP1) through the
# PyTorch API against the FP32 oracle and prints the error and the time.
#
#   bash scripts/demo.sh            (output in build/demo/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh megamoe-opt
opt=$PWD/build/release/bin/megamoe-opt
out=build/demo/v4flash_ep8_t8192
rm -rf "$out" && mkdir -p "$out"

layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=8 max-tokens=8192 chip=sm_90a clamp=10"
echo "demo: compiling the default layer ($layer)"
start=$(date +%s)
echo 'module {}' | "$opt" --megamoe-layer="$layer" --megamoe-plan="schedule=unfused" \
  --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=$out" -o /dev/null
echo "demo: compiled in $(( $(date +%s) - start )) s into $out:"
ls -l "$out" | awk 'NR > 1 {printf "  %-12s %10d B\n", $NF, $5}'

python3 - "$out/layer.json" <<'EOF'
import json
import sys

m = json.load(open(sys.argv[1]))
c, p, lay = m["config"], m["plan"], m["buffer_layout"]
print("\nlayer: H=%d I=%d E=%d K=%d R=%d T=%d clamp=%s chip=%s, schedule %s, %d SMs planned"
      % (c["hidden"], c["intermediate"], c["experts"], c["topk"], c["ranks"],
         c["max_tokens_per_rank"], c.get("clamp"), c["chip"], p["schedule"], p["num_sms"]))
print("\n%-20s %5s %-26s %5s %6s %9s %9s" % ("kernel", "block", "grid", "regs", "spills",
                                           "dyn SMEM", "stat SMEM"))
def grid_text(x):
    # docs/Manifest.md, "Launch shapes": an integer, {"ctas": "num_sms"} or
    # {"ctas": "num_sms", "max": N}.
    if isinstance(x, dict):
        return "min(num_sms, %d)" % x["max"] if "max" in x else x["ctas"]
    return str(x)
for k in m["kernels"]:
    r = k.get("resources", {})
    spills = r.get("spill_stores_bytes", 0) + r.get("spill_loads_bytes", 0)
    print("%-20s %5d %-26s %5s %6s %9d %9s" % (
        k["name"], k["block"][0], grid_text(k["grid"][0]), r.get("registers", "?"), spills,
        k["dynamic_smem_bytes"], r.get("static_smem_bytes", "?")))
variants = m.get("variants") or [{"min_tokens": 0, "max_tokens": c["max_tokens_per_rank"],
                                  "block_m": p["variants"][0]["block_m"],
                                  "schedule": m["schedule"]}]
print("\nvariants (tokens per rank -> BLOCK_M, kernels):")
for v in variants:
    print("  %5d .. %5d  BLOCK_M %3d  %s" % (v["min_tokens"], v["max_tokens"], v["block_m"],
                                             " ".join(v["schedule"])))
mib = lay["total_bytes"] / (1 << 20)
print("\nsymmetric buffer: %d B (%.1f MiB) per rank, %d regions, workspace %d B"
      % (lay["total_bytes"], mib, len(lay["regions"]), lay["workspace_bytes"]))
big = sorted(lay["regions"], key=lambda r: -r["bytes"])[:4]
print("  largest: " + ", ".join("%s %.1f MiB" % (r["name"], r["bytes"] / (1 << 20)) for r in big))
EOF
echo "demo: the embeddable header is $out/layer.h (manifest + cubin as C arrays)"

# On a GPU machine: a small layer through the PyTorch API against the oracle.
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "demo: no GPU here; the GPU part (a small layer vs the FP32 oracle) is skipped"
  exit 0
fi
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "demo: PyTorch with CUDA is not installed; the GPU part is skipped"
  exit 0
fi
[[ -f build/runtime/build.ninja ]] || cmake -S runtime -B build/runtime -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build/runtime megamoe_runtime >/dev/null
small=build/demo/small_ep1
rm -rf "$small" && mkdir -p "$small"
echo 'module {}' | "$opt" \
  --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=10" \
  --megamoe-plan="schedule=unfused" --megamoe-expand \
  --megamoe-to-cubin="chip=sm_90a emit-dir=$small" -o /dev/null
MEGAMOE_RUNTIME_LIB=$PWD/build/runtime/lib/libmegamoe_runtime.so PYTHONPATH=$PWD/python \
  python3 -m megamoe_testing.demo_gpu "$small/layer.json"
