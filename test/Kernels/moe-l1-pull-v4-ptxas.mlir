// The V4 layers' L1 kernels with the pull inside (l1-pull=true: the
// dispatch warps 0-1 move each real row's x through their SMEM slot by two
// bulk copies), both variants, compiled as scripts/bundle-l1-pull.sh
// compiles them (EP1, 8192 tokens, clamp 10, fast-math). The dispatch warps
// run at the TMA warpgroup's 40 registers: ptxas sm_90a assembles every
// kernel with 0 spills (with the slot pipeline's empty side, acquire and
// release, V4-Pro's BLOCK_M 64 kernel spilled 12 bytes), and the row slots
// fit in the SMEM beside the ring.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/pro %t/flash
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 clamp=10 fast-math=true chip=sm_90a" --megamoe-plan="schedule=split l1-pull=true l2-expert-blocks=false" --megamoe-expand="only=moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 clamp=10 fast-math=true chip=sm_90a" --megamoe-plan="schedule=split l1-pull=true l2-expert-blocks=false" --megamoe-expand="only=moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin > %t/pro/ptxas.txt 2>&1
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin > %t/flash/ptxas.txt 2>&1
// RUN: FileCheck %s --check-prefix=PTXAS < %t/pro/ptxas.txt
// RUN: FileCheck %s --check-prefix=PTXAS < %t/flash/ptxas.txt
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/pro/ptxas.txt
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/flash/ptxas.txt
// RUN: %python -c "import json,sys; [print(k['name'], k['resources']['spill_stores_bytes'], k['resources']['spill_loads_bytes'], k['dynamic_smem_bytes'] <= 232448) for p in sys.argv[1:] for k in sorted(json.load(open(p))['kernels'], key=lambda k: k['name'])]" %t/pro/layer.json %t/flash/layer.json | FileCheck %s --check-prefix=MANIFEST
// The PTX of both variants: the dispatch warps' bulk copies, at 40
// registers.
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/pro/layer.ptx

// NOWARN-NOT: spills registers

// PTXAS-DAG: Function properties for moe_l1_swiglu_bm64
// PTXAS-DAG: Function properties for moe_l1_swiglu_bm128
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill

// MANIFEST: moe_l1_swiglu_bm128 0 0 True
// MANIFEST-NEXT: moe_l1_swiglu_bm64 0 0 True
// MANIFEST-NEXT: moe_l1_swiglu_bm128 0 0 True
// MANIFEST-NEXT: moe_l1_swiglu_bm64 0 0 True

// PTX-LABEL: .entry moe_l1_swiglu_bm64(
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.global.shared::cta.bulk_group
// PTX-LABEL: .entry moe_l1_swiglu_bm128(
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.global.shared::cta.bulk_group
