"""GPU tests of the generated FP8 block-scaled grouped GEMM (megamoe.grouped_gemm).

Each case draws fresh random data, poisons the output with NaN before the run, and checks
every valid row against an FP64 reference on the dequantized inputs and against a
per-expert torch._scaled_mm (1x128 / 128x128 block scales).

The output is BF16, so even an exact FP64 result rounded to BF16 has a relative error of
about 1.5e-3 against FP64. The kernel is therefore judged against the FP64 reference rounded
to BF16 (the best any BF16 output can do): rel err <= 1e-3; the raw FP64 error is reported too,
and must stay within 1e-3 of the BF16 rounding floor.

Needs a Hopper GPU and the cubins of scripts/compile-grouped-gemm.sh (MEGAMOE_GEMM_DIR).
"""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
    reason="needs a Hopper (sm_90) GPU")

from grouped_gemm_ref import (Problem, manifest_path, rel_err,  # noqa: E402
                              torch_grouped)
from megamoe.grouped_gemm import GroupedGemm  # noqa: E402

TOL = 1e-3
_kernels = {}


def kernel(n, k, block_m, max_m=32768):
    key = (n, k, block_m, max_m)
    if key not in _kernels:
        path = manifest_path(n, k, block_m, max_m=max_m)
        if not os.path.exists(path):
            pytest.fail(f"{path} is missing: run scripts/compile-grouped-gemm.sh "
                        f"--experts 8 --n {n} --k {k} --max-m {max_m} --block-m {block_m}")
        _kernels[key] = GroupedGemm(path)
    return _kernels[key]


def run_case(group_sizes, n, k, block_m, seed):
    gg = kernel(n, k, block_m)
    p = Problem(group_sizes, n, k, block_m, seed=seed)
    out = torch.full((p.layout.m_total, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    gg(p.a, p.a_scales, p.b, p.b_scales, p.layout, out)
    torch.cuda.synchronize()
    ref = p.reference_fp64()
    v = p.valid
    got = out[v]
    assert not torch.isnan(got).any(), f"{int(torch.isnan(got).sum())} valid outputs never written"
    err_bf16 = rel_err(got, ref[v].to(torch.bfloat16))
    err_fp64 = rel_err(got, ref[v])
    floor = rel_err(ref[v].to(torch.bfloat16), ref[v])
    print(f"\nrows={group_sizes} N={n} K={k} BM={block_m}: rel err vs FP64->BF16 {err_bf16:.2e}, "
          f"vs FP64 {err_fp64:.2e} (BF16 floor {floor:.2e})", flush=True)
    theirs = torch_grouped(p)[v]
    err_torch = rel_err(got, theirs)
    print(f"  vs torch._scaled_mm {err_torch:.2e} (torch vs FP64 {rel_err(theirs, ref[v]):.2e})")
    assert err_bf16 <= TOL
    assert err_fp64 <= floor + TOL
    assert err_torch <= 1e-2
    return out


# (N, K) of DeepSeek-V4-Flash (H 4096, I 2048) and V4-Pro (H 7168, I 3072): L1 = (2I, H), L2 = (H, I).
SHAPES = {
    "flash_l1": (4096, 4096),
    "flash_l2": (4096, 2048),
    "pro_l1": (6144, 7168),
    "pro_l2": (7168, 3072),
}

GROUPS = {
    # experts with 0 rows, rows not a multiple of BLOCK_M, one row, a big expert
    "uneven": [0, 130, 1, 257, 0, 64, 511, 37],
    "aligned": [128, 256, 128, 0, 384, 128, 128, 256],
}


@pytest.mark.parametrize("block_m", [128, 64])
@pytest.mark.parametrize("groups", list(GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_grouped_gemm(shape, groups, block_m):
    n, k = SHAPES[shape]
    run_case(GROUPS[groups], n, k, block_m, seed=hash((shape, groups, block_m)) & 0xFFFF)


@pytest.mark.parametrize("block_m", [128, 64])
def test_all_experts_empty(block_m):
    gg = kernel(4096, 2048, block_m)
    p = Problem([0] * 8, 4096, 2048, block_m)
    out = gg(p.a, p.a_scales, p.b, p.b_scales, p.layout)
    torch.cuda.synchronize()
    assert out.shape == (0, 4096)


def test_repeat_runs_identical():
    """Same inputs twice: bitwise equal (a moving result would be a race)."""
    gg = kernel(4096, 4096, 128)
    p = Problem([300, 0, 129, 512, 7, 128, 1000, 64], 4096, 4096, 128, seed=7)
    o1 = gg(p.a, p.a_scales, p.b, p.b_scales, p.layout)
    o2 = torch.full_like(o1, float("nan"))
    gg(p.a, p.a_scales, p.b, p.b_scales, p.layout, o2)
    torch.cuda.synchronize()
    assert torch.equal(o1[p.valid], o2[p.valid])


def test_bad_inputs_rejected():
    gg = kernel(4096, 2048, 128)
    p = Problem([128] * 8, 4096, 2048, 128)
    with pytest.raises(TypeError, match="a must be"):
        gg(p.a.float(), p.a_scales, p.b, p.b_scales, p.layout)
    with pytest.raises(ValueError, match="b_scales must have shape"):
        gg(p.a, p.a_scales, p.b, p.b_scales[:, :1], p.layout)
    q = Problem([128] * 7, 4096, 2048, 128)
    with pytest.raises(ValueError, match="experts"):
        gg(q.a, q.a_scales, p.b, p.b_scales, q.layout)


def test_backends_agree():
    """The runtime's C API launch and this package's ctypes launch give identical outputs."""
    path = manifest_path(4096, 2048, 128)
    try:
        via_runtime = GroupedGemm(path, backend="runtime")
    except OSError as e:
        pytest.skip(f"libmegamoe_runtime not available: {e}")
    via_ctypes = GroupedGemm(path, backend="ctypes")
    p = Problem([100, 0, 300, 64, 1, 128, 200, 5], 4096, 2048, 128, seed=3)
    o1 = torch.full((p.layout.m_total, 4096), float("nan"), dtype=torch.bfloat16, device="cuda")
    o2 = torch.full_like(o1, float("nan"))
    via_runtime(p.a, p.a_scales, p.b, p.b_scales, p.layout, o1)
    via_ctypes(p.a, p.a_scales, p.b, p.b_scales, p.layout, o2)
    torch.cuda.synchronize()
    assert not torch.isnan(o1[p.valid]).any()
    assert torch.equal(o1[p.valid], o2[p.valid])
