// RUN: megamoe-opt %s --megamoe-plan --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: megamoe-opt %s --megamoe-plan --megamoe-print-plan=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// The JSON is one well-formed document per layer.
// RUN: megamoe-opt %s --megamoe-plan --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; d=json.load(sys.stdin); print(d['plan']['num_sms'], d['buffer_layout']['total_bytes'], len(d['buffer_layout']['regions']))" | FileCheck %s --check-prefix=PARSED
// The IR passes through unchanged.
// RUN: megamoe-opt %s --megamoe-plan --megamoe-print-plan -o - | FileCheck %s --check-prefix=IR
// RUN: not megamoe-opt %s --megamoe-print-plan 2>&1 | FileCheck %s --check-prefix=NOPLAN
// RUN: not megamoe-opt %s --megamoe-plan --megamoe-print-plan=format=yaml 2>&1 | FileCheck %s --check-prefix=FORMAT

// TEXT: // layer @v4_flash_512
// TEXT-NEXT: layer: H=4096 I=2048 E=256 K=6 R=8 T=512 chip=sm_90a requant=128
// TEXT-NEXT: plan: schedule=fused sms=132 threads=384 (warps 0-1 dispatch, warp 2 TMA-A, warp 3 TMA-B, warpgroups 1-2 math) entry-registers=168
// TEXT-NEXT: pool: 16896 rows (ring)
// TEXT-NEXT: variant tokens 0..88: BLOCK_M=32 L1 BLOCK_N=256 L2 BLOCK_N=256 BLOCK_K=128 stages=5 experts/wave=24 math=cooperative-n (2 WG, wgmma m64n128/m64n128) registers=48/224/24 smem=211840 B
// TEXT-NEXT: variant tokens 89..512: BLOCK_M=64 L1 BLOCK_N=256 L2 BLOCK_N=256 BLOCK_K=128 stages=4 experts/wave=12 math=cooperative-n (2 WG, wgmma m64n128/m64n128) registers=48/224/24 smem=208128 B
// TEXT-NEXT: symmetric buffer: 135,226,240 B (128.96 MiB), workspace 13,184 B (0.01 MiB)

// JSON: "config": {
// JSON: "hidden": 4096,
// JSON: "plan": {
// JSON: "num_sms": 132,
// JSON: "schedule": "fused",
// JSON: "variants": [
// JSON: "block_m": 32,
// JSON: "math_mode": "cooperative-n",
// JSON: "block_m": 64,
// JSON: "buffer_layout": {
// JSON-NEXT: "alignment": 128,
// JSON-NEXT: "workspace_bytes": 13184,
// JSON-NEXT: "total_bytes": 135226240,
// JSON: "name": "x",
// JSON: "name": "combine",
// JSON-NEXT: "offset":
// JSON-NEXT: "bytes": 25165824,

// PARSED: 132 135226240 20

// IR: megamoe.layer @v4_flash_512 {{.*}} plan = <

// NOPLAN: error: megamoe-print-plan: layer @v4_flash_512 has no plan; run --megamoe-plan first
// FORMAT: error: megamoe-print-plan: unknown format="yaml"; expected text or json
megamoe.layer @v4_flash_512 config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 512>
