// moe_pull with megamoe-expand's weight-prefetch-mib (the WeightPrefetch
// collective, docs/Collectives.md "Weight prefetch"): an extra l1_weight
// parameter bound to the layer's L1 weights, the prefetch (k = budget /
// (units x 2I x 128) K blocks, at most H / 128, skipped when 0) before the
// row copies, ptxas without spills; off (the default) the kernel has neither.
// Layer: V4-Flash at EP1 (H = 4096, 2I = 4096, L = 256).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/on %t/off
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_pull weight-prefetch-mib=32" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_pull weight-prefetch-mib=32" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/on" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/on/layer.ptx
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print([(p['name'], p['bind']) for p in k['params']][-1])" %t/on/layer.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/on/layer.ptx -o %t/on/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_pull" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/off" -o /dev/null
// RUN: not grep -q "prefetch" %t/off/layer.ptx
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print([p['name'] for p in k['params']])" %t/off/layer.json | FileCheck %s --check-prefix=OFF
// RUN: not megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_pull weight-prefetch-mib=2048" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// IR-LABEL: warpspec.kernel @moe_pull_bm64(
// IR-SAME: !warpspec.global<i8> {megamoe.bind = "input:l1_weight", megamoe.name = "l1_weight"}
// The budget over units x 2I x 128 bytes (32 MiB / 524288), then the
// prefetch of k x 128 bytes per weight row of each expert's first entry.
// IR: arith.constant 524288 : i64
// IR: arith.constant 33554432 : i64
// IR: arith.divui
// IR: arith.constant 32 : i64
// IR: arith.minui
// IR: scf.if
// IR: warpspec.global.prefetch %{{.*}}, %{{.*}} : !warpspec.global<i8>
// The row copies come after the prefetch.
// IR: scf.for

// PTX-LABEL: .entry moe_pull_bm64(
// PTX: cp.async.bulk.prefetch.L2.global
// PTX: ld.global.v4.b32

// JSON: ('l1_weight', 'input:l1_weight')
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// OFF-NOT: l1_weight
// BAD: weight-prefetch-mib (2048) must be in [0, 1024]

module {
}
