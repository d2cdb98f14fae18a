"""GPU tests of the generated FP8 block-scaled grouped GEMM (megamoe.grouped_gemm).

Each case draws fresh random data, poisons the output with NaN before the run, and checks
every valid row against an FP64 reference on the dequantized inputs and against a
per-expert torch._scaled_mm (1x128 / 128x128 block scales).

The output is BF16, so even an exact FP64 result rounded to BF16 has a relative error of
about 1.5e-3 against FP64. The kernel is therefore judged against the FP64 reference rounded
to BF16 (the best any BF16 output can do): rel err <= 1e-3; the raw FP64 error is reported too,
and must stay within 1e-3 of the BF16 rounding floor.

The layer-schedule variants (LAYER_VARIANTS: FP32 output, gate/up-interleaved weight scales,
block count read from device memory, static M) are judged against the FP64 reference itself:
an FP32 output has no BF16 rounding floor, so its error must stay well below that floor
(TOL_F32); the remaining error is the FP8 tensor cores' limited-precision accumulation inside
each 128-K block.

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

from grouped_gemm_ref import (Problem, manifest_path, rel_err, relaid,  # noqa: E402
                              torch_grouped)
from megamoe.grouped_gemm import ContiguousLayout, GroupedGemm  # noqa: E402

TOL = 1e-3
TOL_F32 = 5e-4
_kernels = {}


def kernel(n, k, block_m, max_m=32768, **options):
    key = (n, k, block_m, max_m, tuple(sorted(options.items())))
    if key not in _kernels:
        path = manifest_path(n, k, block_m, max_m=max_m, **options)
        if not os.path.exists(path):
            pytest.fail(f"{path} is missing: run scripts/compile-grouped-gemm.sh "
                        f"--experts 8 --n {n} --k {k} --max-m {max_m} --block-m {block_m} {options}")
        _kernels[key] = GroupedGemm(path)
    return _kernels[key]


def run_case(group_sizes, n, k, block_m, seed, **options):
    gg = kernel(n, k, block_m, **options)
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
    print(f"\nrows={group_sizes} N={n} K={k} BM={block_m} {options}: rel err vs FP64->BF16 {err_bf16:.2e}, "
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


@pytest.mark.parametrize("block_n", [128, 256])
@pytest.mark.parametrize("block_m", [128, 64])
@pytest.mark.parametrize("groups", list(GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_grouped_gemm(shape, groups, block_m, block_n):
    n, k = SHAPES[shape]
    run_case(GROUPS[groups], n, k, block_m, seed=hash((shape, groups, block_m)) & 0xFFFF,
             block_n=block_n)


def assert_bitwise_equal(shape, block_m, seed, first, second):
    """The kernels of option sets `first` and `second` on one problem of uneven groups (tiles of
    every length): their outputs' valid rows are bitwise equal."""
    n, k = SHAPES[shape]
    p = Problem(GROUPS["uneven"], n, k, block_m, seed=seed)
    outs = []
    for options in (first, second):
        out = torch.full((p.layout.m_total, n), float("nan"), dtype=torch.bfloat16, device="cuda")
        kernel(n, k, block_m, **options)(p.a, p.a_scales, p.b, p.b_scales, p.layout, out)
        outs.append(out)
    torch.cuda.synchronize()
    assert torch.equal(outs[0][p.valid], outs[1][p.valid])


@pytest.mark.parametrize("block_m", [128, 64])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_block_n_256_bitwise(shape, block_m):
    """A BLOCK_N 256 tile computes each element as the BLOCK_N 128 tile does (same wgmma
    m64n128 per 128-K block, same promotion order): the outputs are bitwise equal."""
    assert_bitwise_equal(shape, block_m, 3, {}, {"block_n": 256})


# The cluster-of-2 kernel (cluster-m=2, docs/Collectives.md "Cluster of 2"): two CTAs compute
# m-blocks (2g, 2g + 1) and share the weight tile by TMA multicast when both belong to one
# expert. Its arithmetic is the plain kernel's, so its output must be bitwise equal to it (and
# pass the same checks against FP64 and torch._scaled_mm). The groups cover pairs inside one
# expert, pairs across an expert boundary (odd m-block counts), an odd total (the last pair's
# second CTA has no tile), empty experts, and all experts empty.
CLUSTER_GROUPS = dict(GROUPS, **{
    "odd_total": [384, 0, 128, 200, 0, 0, 0, 1],    # 3 + 1 + 2 + 1 = 7 m-blocks
    "odd_each": [129, 1, 300, 0, 5, 640, 0, 130],   # boundaries at odd m-blocks
    "one_block": [0, 0, 0, 17, 0, 0, 0, 0],
})


@pytest.mark.parametrize("block_n", [128, 256])
@pytest.mark.parametrize("groups", list(CLUSTER_GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_grouped_gemm_cluster(shape, groups, block_n):
    """BLOCK_N 256 multicasts each of its two 128-row B column blocks in halves."""
    n, k = SHAPES[shape]
    assert_case_equal(CLUSTER_GROUPS[groups], n, k, hash((shape, groups, "c2")) & 0xFFFF,
                      {"cluster_m": 2, "block_n": block_n}, {}, "cluster-2 output differs from cluster 1")


def assert_option_equal(shape, groups, options, extra, tag, what):
    """The BLOCK_M 128 kernel with `options` and `extra` bitwise equal to the one with `options`
    alone, on test shape `shape` and cluster group layout `groups` (seeded by them and `tag`)."""
    n, k = SHAPES[shape]
    assert_case_equal(CLUSTER_GROUPS[groups], n, k, hash((shape, groups, tag)) & 0xFFFF,
                      dict(options, **extra), options, what)


def assert_case_equal(group_sizes, n, k, seed, options, reference, what):
    """run_case of the BLOCK_M 128 kernel with `options` (its checks against FP64 and torch), and
    its valid rows bitwise equal to those of the kernel with `reference` options on the same
    problem."""
    got = run_case(group_sizes, n, k, 128, seed, **options)
    p = Problem(group_sizes, n, k, 128, seed=seed)
    plain = kernel(n, k, 128, **reference)(p.a, p.a_scales, p.b, p.b_scales, p.layout)
    torch.cuda.synchronize()
    assert torch.equal(got[p.valid], plain[p.valid]), what


@pytest.mark.parametrize("block_n", [128, 256])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_scale_prefetch_bitwise(shape, block_n):
    """scale-prefetch reads the same weight scales one K block earlier: the same arithmetic,
    so the output equals the plain kernel's bitwise (uneven groups: tiles of every length)."""
    assert_bitwise_equal(shape, 128, 5, {}, {"block_n": block_n, "scale_prefetch": True})


# mma-turns (KernelPlan::mmaTurns): the two math warpgroups hand the MMA issue to each other by
# named barriers. Same MMAs, same promotions: bitwise equal to the kernel without turns, on every
# group layout of the cluster tests (CTAs without tiles, a single m-block: a turn left
# unbalanced would hang the kernel, so the test also guards against that).
TURN_VARIANTS = {
    "bn128": {},
    "bn256": {"block_n": 256},
    "bn256_c2_pf": {"block_n": 256, "cluster_m": 2, "scale_prefetch": True},
}


@pytest.mark.parametrize("variant", list(TURN_VARIANTS))
@pytest.mark.parametrize("groups", list(CLUSTER_GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_mma_turns_bitwise(shape, groups, variant):
    assert_option_equal(shape, groups, TURN_VARIANTS[variant], {"mma_turns": True}, "mt",
                        "mma-turns output differs from the kernel without")


# One TMA warp (tma-warps=1, GemmProblem::tmaWarps): one warp issues every load of a stage and
# one commit that states all their bytes, with or without the cluster's multicast; the other
# three warps of warpgroup 0 only release registers. The same stages reach the same MMAs, so the
# output is bitwise equal to the four-warp producer's. A commit expecting the wrong bytes would
# hang (too many) or let the MMAs read a stage early (too few): the group layouts of the cluster
# tests (CTAs without tiles, expert boundaries inside a cluster pair, one m-block) show both.
TMA_WARP_VARIANTS = {
    "bn128": {},
    "bn128_c2": {"cluster_m": 2},
    "bn256_c2_pf": {"block_n": 256, "cluster_m": 2, "scale_prefetch": True},
}


@pytest.mark.parametrize("variant", list(TMA_WARP_VARIANTS))
@pytest.mark.parametrize("groups", list(CLUSTER_GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_one_tma_warp_bitwise(shape, groups, variant):
    assert_option_equal(shape, groups, TMA_WARP_VARIANTS[variant], {"tma_warps": 1}, "tw1",
                        "one TMA warp's output differs from four TMA warps'")


# BLOCK_N 192 (one m64n192 MMA per warpgroup, tiles straddling two weight-scale blocks): each
# element is computed as at BLOCK_N 128 (same K order, same per-128-column scales), so the
# outputs are bitwise equal. N 4096 and 7168 end in a partial tile (22 and 38 tiles of 192), and
# N 4096 x K 7168 (weights over the L2 limit: rasters of 8) ends in a narrower raster of 6
# (warpspec.tile_loop): a tile missed or computed twice by the tail's order shows here.
BN192_SHAPES = {"flash_l1": (4096, 4096), "pro_l2": (7168, 3072), "bench_n4096_k7168": (4096, 7168)}
BN192_VARIANTS = {
    "bn192": {"block_n": 192},
    "bn192_c2_pf": {"block_n": 192, "cluster_m": 2, "scale_prefetch": True},
    "bn192_c2_pf_tw1": {"block_n": 192, "cluster_m": 2, "scale_prefetch": True, "tma_warps": 1},
}


@pytest.mark.parametrize("variant", list(BN192_VARIANTS))
@pytest.mark.parametrize("groups", ["uneven", "odd_total", "odd_each"])
@pytest.mark.parametrize("shape", list(BN192_SHAPES))
def test_block_n_192_bitwise(shape, groups, variant):
    n, k = BN192_SHAPES[shape]
    assert_case_equal(CLUSTER_GROUPS[groups], n, k, hash((shape, groups, "bn192")) & 0xFFFF,
                      BN192_VARIANTS[variant], {}, "BLOCK_N 192 output differs from BLOCK_N 128")


# BLOCK_M 256 (two math warpgroups of two 64-row blocks each, config::warpgroupRowBlocks): each
# element is computed as at BLOCK_M 128 (same wgmma m64n128 per 128-K block, same promotion
# order), so on the same rows the outputs are bitwise equal. The BLOCK_M 128 reference runs on
# the same padded rows: each 256-row block is two 128-row blocks of its expert. The groups of
# the cluster tests: pairs of 256-row blocks across expert boundaries, an odd block count,
# one block, experts of 1 row.
BM256_VARIANTS = {
    "bm256": {},
    "bm256_c2": {"cluster_m": 2},
    "bm256_c2_pf": {"cluster_m": 2, "scale_prefetch": True},
}


def as_block_m(layout: ContiguousLayout, block_m: int) -> ContiguousLayout:
    """The same padded rows as blocks of block_m (a divisor of the layout's BLOCK_M)."""
    factor = layout.block_m // block_m
    return ContiguousLayout(layout.group_sizes, layout.offsets, layout.m_total,
                            layout.block_expert.repeat_interleave(factor).contiguous(), block_m,
                            layout.rows)


@pytest.mark.parametrize("variant", list(BM256_VARIANTS))
@pytest.mark.parametrize("groups", list(CLUSTER_GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_block_m_256_bitwise(shape, groups, variant):
    n, k = SHAPES[shape]
    seed = hash((shape, groups, "bm256")) & 0xFFFF
    got = run_case(CLUSTER_GROUPS[groups], n, k, 256, seed, **BM256_VARIANTS[variant])
    p = Problem(CLUSTER_GROUPS[groups], n, k, 256, seed=seed)
    ref = kernel(n, k, 128)(p.a, p.a_scales, p.b, p.b_scales, as_block_m(p.layout, 128))
    torch.cuda.synchronize()
    assert torch.equal(got[p.valid], ref[p.valid]), "BLOCK_M 256 output differs from BLOCK_M 128"


# Release lag 0 without the async-proxy fence (release-fence=false, KernelPlan::releaseFence):
# the same MMAs and promotions, only the stage hand-back moves earlier, so the output equals the
# default kernel's bitwise. A refill racing a read of the row scales would show here as a
# difference: the group layouts of the cluster tests, and 8 x 4096 rows five times over.
NOFENCE_VARIANTS = {
    "bn128": {},
    "bn256_c2_pf": {"block_n": 256, "cluster_m": 2, "scale_prefetch": True},
}


@pytest.mark.parametrize("variant", list(NOFENCE_VARIANTS))
@pytest.mark.parametrize("groups", list(CLUSTER_GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_release_without_fence_bitwise(shape, groups, variant):
    assert_option_equal(shape, groups, NOFENCE_VARIANTS[variant],
                        {"release_lag": 0, "release_fence": False}, "nf",
                        "release without the fence differs from the default")


@pytest.mark.parametrize("variant", list(NOFENCE_VARIANTS))
def test_release_without_fence_repeat(variant):
    n, k = SHAPES["flash_l2"]
    options = NOFENCE_VARIANTS[variant]
    p = Problem([4096] * 8, n, k, 128, seed=11)
    ref = kernel(n, k, 128, **options)(p.a, p.a_scales, p.b, p.b_scales, p.layout)
    nf = kernel(n, k, 128, **dict(options, release_lag=0, release_fence=False))
    for _ in range(5):
        out = torch.full_like(ref, float("nan"))
        nf(p.a, p.a_scales, p.b, p.b_scales, p.layout, out)
        torch.cuda.synchronize()
        assert torch.equal(out, ref)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_out_tile_columns_bitwise(shape):
    """The whole 256-column output tile (four panel slots, 3 stages) stores the same values."""
    options = {"block_n": 256, "cluster_m": 2, "scale_prefetch": True}
    assert_bitwise_equal(shape, 128, 13, options, dict(options, stages=3, out_tile_columns=256))


@pytest.mark.parametrize("lag0", [False, True])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_block_n_192_whole_tile_bitwise(shape, lag0):
    """BLOCK_N 192 with the whole 192-column output tile (three panel slots, still 4 stages:
    DeepGEMM's 128 x 192 shape), with release lag 0 unfenced or not, stores the same values as
    the panel ring, partial last tiles included."""
    options = {"block_n": 192, "cluster_m": 2, "scale_prefetch": True}
    whole = dict(options, out_tile_columns=192)
    if lag0:
        whole.update(release_lag=0, release_fence=False)
    assert_bitwise_equal(shape, 128, 17, options, whole)


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_unrolled_k_loop_bitwise(shape, wide):
    """The K loop unrolled over the stages (the default at BLOCK_N 128 and, with unroll-wide, at
    BLOCK_N 256, its K-step descriptors rematerialized) waits on the same stages in the same
    order as the rolled one: outputs bitwise equal."""
    pair = ({"block_n": 256, "unroll_wide": False}, {"block_n": 256}) if wide else ({}, {"unroll": False})
    assert_bitwise_equal(shape, 128, 9, *pair)


def test_cluster_big_and_repeat():
    """8 x 4096 rows (every pair shared, many waves), twice: bitwise equal to the plain kernel
    both times, and a count of 0 m-blocks computes nothing."""
    n, k = 4096, 2048
    gc, g1 = kernel(n, k, 128, cluster_m=2), kernel(n, k, 128)
    p = Problem([4096] * 8, n, k, 128, seed=3)
    ref = g1(p.a, p.a_scales, p.b, p.b_scales, p.layout)
    for _ in range(2):
        out = torch.full_like(ref, float("nan"))
        gc(p.a, p.a_scales, p.b, p.b_scales, p.layout, out)
        torch.cuda.synchronize()
        assert torch.equal(out, ref)
    q = Problem([0] * 8, n, k, 128)
    assert gc(q.a, q.a_scales, q.b, q.b_scales, q.layout).shape == (0, n)


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


# The two GEMMs of the unfused layer schedule (docs/UnfusedSchedule.md) at V4-Flash sizes with
# 8 local experts and a pool of 4096 rows: L1 (n = 2I, k = H) FP32 out with gate/up-interleaved
# scales, L2 (n = H, k = I) BF16 out; both read the block count from device memory.
POOL = 4096
LAYER_VARIANTS = {
    "l1": dict(n=4096, k=4096, out_type="f32", interleave=8, device_m_blocks=True, static_m=POOL),
    "l2": dict(n=4096, k=2048, out_type="bf16", interleave=0, device_m_blocks=True, static_m=POOL),
    # L1 with BLOCK_N 256 tiles (two column blocks of 128 per tile, each with its scale pair).
    "l1_bn256": dict(n=4096, k=4096, block_n=256, out_type="f32", interleave=8,
                     device_m_blocks=True, static_m=POOL),
}


def layer_kernel(variant):
    v = dict(LAYER_VARIANTS[variant])
    n, k = v.pop("n"), v.pop("k")
    return kernel(n, k, 128, **v), n, k, v


def run_layer_case(variant, group_sizes, seed, count=None):
    """Runs one layer variant with the block count in a device tensor written on the stream
    just before the launch; returns (output, problem). Rows of blocks not computed stay NaN."""
    gg, n, k, v = layer_kernel(variant)
    p = Problem(group_sizes, n, k, 128, seed=seed, interleave=v["interleave"], capacity_rows=POOL)
    out = torch.full((POOL, n), float("nan"), dtype=gg.out_dtype, device="cuda")
    pool_info = torch.zeros(4, dtype=torch.int32, device="cuda")
    # Written by a kernel on the same stream right before the launch, as moe_layout does.
    pool_info[0].fill_(p.layout.num_m_blocks if count is None else count)
    gg(p.a, p.a_scales, p.b, p.b_scales, p.layout, out, num_m_blocks=pool_info)
    torch.cuda.synchronize()
    return out, p


@pytest.mark.parametrize("groups", list(GROUPS))
@pytest.mark.parametrize("variant", list(LAYER_VARIANTS))
def test_layer_variant(variant, groups):
    out, p = run_layer_case(variant, GROUPS[groups], seed=hash((variant, groups)) & 0xFFFF)
    ref = p.reference_fp64()
    v = p.valid
    got = out[v]
    assert not torch.isnan(got).any(), f"{int(torch.isnan(got).sum())} valid outputs never written"
    used = p.layout.m_total
    assert torch.isnan(out[used:]).all(), "rows past the device block count were written"
    err = rel_err(got, ref[v])
    floor = rel_err(ref[v].to(torch.bfloat16), ref[v])
    print(f"\n{variant} rows={GROUPS[groups]}: rel err vs FP64 {err:.2e} "
          f"(BF16 floor {floor:.2e}, out {out.dtype})", flush=True)
    if out.dtype == torch.float32:
        assert err <= TOL_F32
    else:
        assert rel_err(got, ref[v].to(torch.bfloat16)) <= TOL
        assert err <= floor + TOL


def test_layer_interleave_matters():
    """Reading the (gate, up) scale pair swapped must change the result: the reference with
    swapped scales is far from the output (so the test above cannot pass by accident)."""
    out, p = run_layer_case("l1", [128] * 8, seed=11)
    v = p.valid
    good = rel_err(out[v], p.reference_fp64()[v])
    p.b_scales = p.b_scales.flip(-1).contiguous()
    swapped = rel_err(out[v], p.reference_fp64()[v])
    print(f"\nl1 rel err {good:.2e}, against swapped scales {swapped:.2e}")
    assert good <= TOL_F32 and swapped > 0.1


@pytest.mark.parametrize("variant", list(LAYER_VARIANTS))
def test_layer_device_count_bounds(variant):
    """A device count above the capacity is clamped to STATIC_M / BLOCK_M blocks (every row
    written, nothing out of bounds); zero or negative computes nothing."""
    out, p = run_layer_case(variant, [100] * 8, seed=5, count=1 << 30)
    assert not torch.isnan(out).any(), "a clamped count must compute every block"
    for count in (0, -5):
        out, _ = run_layer_case(variant, [100] * 8, seed=5, count=count)
        assert torch.isnan(out).all(), f"count {count} must compute nothing"


def test_layer_repeat_identical():
    """The same launch twice: bitwise equal FP32 output (a moving result would be a race)."""
    o1, p = run_layer_case("l1", GROUPS["uneven"], seed=9)
    o2, _ = run_layer_case("l1", GROUPS["uneven"], seed=9)
    assert torch.equal(o1[p.valid], o2[p.valid])


def test_layer_block_n_256_bitwise():
    """The L1 variant with BLOCK_N 256 tiles: bitwise the FP32 output of BLOCK_N 128."""
    o1, p = run_layer_case("l1", GROUPS["uneven"], seed=13)
    o2, _ = run_layer_case("l1_bn256", GROUPS["uneven"], seed=13)
    assert torch.equal(o1[p.valid], o2[p.valid])


# Swap-AB (swap-ab=true, block-m 32 or 16; warpspec.mma.block_scaled swap_ab): each math
# warpgroup's MMA takes 64 weight rows as its M side and the tile's few activation rows as its
# n, so a decode tile does BLOCK_M rows of MMA work instead of 64. Every element is formed from
# the same products, K steps and promotion (a_scale x b_scale, then one fma per K block) as in
# the BLOCK_M 64 kernel, so the outputs must be bitwise equal to it on the same rows (each kernel
# given them laid out for its BLOCK_M), and a second call bitwise equal to the first.
SWAP_GROUPS = {
    "decode": [1, 0, 3, 16, 0, 2, 32, 5],   # experts with 0, 1, a few, a whole tile of rows
    "uneven": GROUPS["uneven"],              # 511 rows: many m-blocks of one expert
}


@pytest.mark.parametrize("block_m", [32, 16])
@pytest.mark.parametrize("groups", list(SWAP_GROUPS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_swap_ab_bitwise(shape, groups, block_m):
    n, k = SHAPES[shape]
    p = Problem(SWAP_GROUPS[groups], n, k, 64, seed=hash((shape, groups)) & 0xFFFF)
    ref = torch.full((p.layout.m_total, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    kernel(n, k, 64)(p.a, p.a_scales, p.b, p.b_scales, p.layout, ref)
    q = relaid(p, block_m)
    swapped = kernel(n, k, block_m, swap_ab=True)
    outs = []
    for _ in range(2):
        out = torch.full((q.layout.m_total, n), float("nan"), dtype=torch.bfloat16, device="cuda")
        swapped(q.a, q.a_scales, q.b, q.b_scales, q.layout, out)
        outs.append(out[q.valid])
    torch.cuda.synchronize()
    assert not torch.isnan(outs[0]).any(), "valid swap-AB outputs never written"
    assert torch.equal(outs[0], ref[p.valid])
    assert torch.equal(outs[1], outs[0])


def test_swap_ab_against_fp64():
    """The swap-AB kernel's own check against the FP64 reference and torch._scaled_mm."""
    run_case(SWAP_GROUPS["decode"], 4096, 2048, 32, seed=5, swap_ab=True)
