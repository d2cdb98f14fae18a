// The launch shapes the compiler writes (docs/Manifest.md, "Launch shapes"),
// read back by the runtime's own reader (megamoe-manifest-info, no GPU) and
// resolved for a device of 132 SMs: the standalone grouped GEMM (one CTA per
// SM, its rows the runtime symbol M), the static-M GEMMs of a layer (the SM
// count capped at the tile count), a layer's persistent and one-CTA kernels.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/gg %t/layer
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=7168 max-m=32768 block-m=128" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/gg" -o /dev/null
// RUN: megamoe-manifest-info %t/gg/grouped_gemm.json --num-sms 132 --symbol M=1024 | FileCheck %s --check-prefix=GG
// RUN: megamoe-manifest-info %t/gg/grouped_gemm.json --num-sms 8 | FileCheck %s --check-prefix=NOM
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=16 chip=sm_90a" --megamoe-plan="schedule=unfused" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/layer" -o /dev/null
// RUN: megamoe-manifest-info %t/layer/layer.json --num-sms 132 | FileCheck %s --check-prefix=LAYER
// RUN: megamoe-manifest-info %t/layer/layer.json --num-sms 8 | FileCheck %s --check-prefix=FEW
// A manifest of schema 1 (expression strings) is rejected, naming the field.
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); m['version']=2; m['kernels'][0]['grid'][0]='min(num_sms, num_m_blocks * (N / 128))'; json.dump(m, open(sys.argv[2], 'w'))" %t/gg/grouped_gemm.json %t/gg/old.json
// RUN: not megamoe-manifest-info %t/gg/old.json 2>&1 | FileCheck %s --check-prefix=OLD

// GG: kernel grouped_gemm_fp8 grid [num_sms, 1, 1] = [132, 1, 1]
// GG-NEXT: tma a global_shape [7168, M] = [7168, 1024] global_strides_bytes [7168] = [7168]
// GG-NEXT: tma b global_shape [7168, 32768] = [7168, 32768] global_strides_bytes [7168] = [7168]
// GG-NEXT: tma a_scales global_shape [M, 56] = [1024, 56] global_strides_bytes [M * 4] = [4096]
// GG-NEXT: tma d global_shape [4096, M] = [4096, 1024] global_strides_bytes [8192] = [8192]

// NOM: kernel grouped_gemm_fp8 grid [num_sms, 1, 1] = [8, 1, 1]
// NOM-NEXT: tma a global_shape [7168, M] = [7168, ?]

// The layer's GEMMs: a 384-row pool (the A extent) and 12 tiles (6 m-blocks x
// 2 column blocks of 256), the cap.
// LAYER: kernel moe_route grid [num_sms, 1, 1] = [132, 1, 1]
// LAYER-NEXT: kernel moe_layout grid [1, 1, 1] = [1, 1, 1]
// LAYER-NEXT: kernel moe_pull grid [num_sms, 1, 1] = [132, 1, 1]
// LAYER-NEXT: kernel moe_l1_gemm grid [min(num_sms, 12), 1, 1] = [12, 1, 1]
// LAYER-NEXT: tma a global_shape [512, 384] = [512, 384] global_strides_bytes [512] = [512]
// LAYER: kernel moe_activation grid [num_sms, 1, 1] = [132, 1, 1]
// LAYER-NEXT: kernel moe_l2_gemm grid [min(num_sms, 12), 1, 1] = [12, 1, 1]
// LAYER: kernel moe_combine_barrier grid [1, 1, 1] = [1, 1, 1]
// LAYER-NEXT: kernel moe_combine_reduce grid [num_sms, 1, 1] = [132, 1, 1]

// FEW: kernel moe_l1_gemm grid [min(num_sms, 12), 1, 1] = [8, 1, 1]

// OLD: megamoe-manifest-info: manifest: kernels[0].grid[0]: expected a positive integer or {"ctas": "num_sms"} (optionally with "max": N), got the string "min(num_sms, num_m_blocks * (N / 128))" (manifests hold no expressions)
module {}
