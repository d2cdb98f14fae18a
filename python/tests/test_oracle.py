"""The FP32 oracle: agreement with the C++ reference, and its invariants."""

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed: the oracle tests need it")
pytest.importorskip("numpy", reason="numpy is not installed")

import subprocess

import torch

from megamoe_testing import caseio
from megamoe_testing.generators import (ExpertSource, expert_weights, local_weights, make_rank_tokens,
                                        make_tokens, routing_stats)
from megamoe_testing.oracle import expert_slots, moe_oracle, moe_oracle_ranks, relative_l2
from megamoe_testing.shapes import MoeShape

SMALL = MoeShape("small", 256, 256, 8, 3)


@pytest.mark.parametrize("routing,clamp,block", [("masked", 10.0, 128), ("hot", None, 64), ("uniform", 0.5, 128)])
def test_oracle_matches_cpp_reference(reference_bin, tmp_path, device, routing, clamp, block):
    seed = 17
    tokens = make_tokens(SMALL, 13, 0, seed, device, routing)
    experts = [expert_weights(SMALL, e, seed, device) for e in range(SMALL.experts)]
    caseio.write_case(str(tmp_path / "case.bin"), SMALL, tokens, experts, clamp, block)
    subprocess.run([reference_bin, "layer", str(tmp_path / "case.bin"), str(tmp_path / "y.bf16")], check=True)
    y_cpp = caseio.read_bf16(str(tmp_path / "y.bf16"), 13, SMALL.hidden)
    y = moe_oracle(SMALL, tokens, ExpertSource(SMALL, seed, device), clamp, block).cpu()
    err = relative_l2(y, y_cpp)
    print(f"oracle vs C++ reference ({routing}, clamp={clamp}, per-{block}): rel L2 {err:.3e}")
    assert err < 1e-3
    if routing == "masked":
        dead = (tokens.topk_idx < 0).all(1).cpu()
        assert (y[dead] == 0).all()


def test_remote_experts_are_regenerated_identically(device):
    seed = 5
    local = local_weights(SMALL, 1, 2, seed, device)  # experts 4..7
    tokens = make_tokens(SMALL, 9, 0, seed, device)
    a = moe_oracle(SMALL, tokens, ExpertSource(SMALL, seed, device, local))
    b = moe_oracle(SMALL, tokens, ExpertSource(SMALL, seed, device))
    assert torch.equal(a, b)


def test_zero_tokens_uneven_ranks_and_masked(device):
    ys = moe_oracle_ranks(SMALL, make_rank_tokens(SMALL, [0, 5, 130], 3, device, "masked", mask_fraction=1.0),
                          ExpertSource(SMALL, 3, device))
    assert [tuple(y.shape) for y in ys] == [(0, 256), (5, 256), (130, 256)]
    assert all((y == 0).all() for y in ys)  # every slot masked


def test_router_weight_scales_output_exactly(device):
    tokens = make_tokens(SMALL, 7, 0, 9, device)
    src = ExpertSource(SMALL, 9, device)
    base = expert_slots(SMALL, tokens, src, 10.0)
    tokens.topk_weights *= 4
    assert torch.equal(expert_slots(SMALL, tokens, src, 10.0).float(), 4 * base.float())


def test_generators(device):
    shape = MoeShape("gen", 256, 256, 16, 4)
    t = make_tokens(shape, 4000, 0, 1, device, "hot", hot_fraction=0.5, hot_expert=3)
    hot_rate = (t.topk_idx == 3).any(1).float().mean().item()
    assert 0.45 < hot_rate < 0.55
    srt = t.topk_idx.sort(1).values
    assert (srt[:, 1:] != srt[:, :-1]).all(), "experts of a token must be distinct"
    m = make_tokens(shape, 4000, 0, 1, device, "masked", mask_fraction=0.25)
    assert 0.2 < (m.topk_idx < 0).float().mean().item() < 0.3
    assert (t.x_sf > 0).all() and not torch.isnan(t.x.float()).any()
    assert torch.equal(make_tokens(shape, 10, 2, 1, device).x.view(torch.uint8),
                       make_tokens(shape, 10, 2, 1, device).x.view(torch.uint8))
    stats = routing_stats(t.topk_idx, shape.experts, 2)
    assert stats["per_rank"].sum().item() == 4000 * 4
