"""The torch baseline against the FP32 oracle (GPU: needs SM90 block-scaled
torch._scaled_mm; the EP2 case needs two GPUs)."""

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed: the oracle tests need it")
pytest.importorskip("numpy", reason="numpy is not installed")

import json
import os

import torch

from megamoe_testing import dist_launch
from megamoe_testing.baseline_torch import TorchBaseline, probe_scaled_mm
from megamoe_testing.generators import ExpertSource, local_weights, make_tokens
from megamoe_testing.oracle import moe_oracle, relative_l2
from megamoe_testing.shapes import MoeShape

SHAPE = MoeShape("test", 512, 512, 16, 4)  # H/128, I/128 multiples of 4 (scale alignment)


def test_probe(cuda):
    s = probe_scaled_mm(cuda)
    print("scaled_mm support:", s)
    assert s.m_align >= 1


@pytest.mark.parametrize("routing", ["uniform", "hot", "masked"])
@pytest.mark.parametrize("tokens", [0, 1, 7, 33, 130])
def test_baseline_matches_oracle_ep1(cuda, routing, tokens):
    w = local_weights(SHAPE, 0, 1, 11, cuda)
    t = make_tokens(SHAPE, tokens, 0, 11 + tokens, cuda, routing)
    model = TorchBaseline(SHAPE, w, clamp=10.0)
    y = model.forward(t.x, t.x_sf, t.topk_idx, t.topk_weights)
    ref = moe_oracle(SHAPE, t, ExpertSource(SHAPE, 11, cuda, w), 10.0)
    assert y.shape == ref.shape and y.dtype == torch.bfloat16
    if tokens:
        err = relative_l2(y, ref)
        print(f"EP1 {routing} T={tokens}: rel L2 {err:.3e}")
        assert err < 1e-2


def test_graph_replay_is_bitwise_eager(cuda):
    w = local_weights(SHAPE, 0, 1, 12, cuda)
    t = make_tokens(SHAPE, 50, 0, 12, cuda, "hot")
    model = TorchBaseline(SHAPE, w, clamp=10.0)
    plan = model.plan(t.topk_idx)
    eager = model.run(plan, t.x, t.x_sf, t.topk_idx, t.topk_weights)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        model.run(plan, t.x, t.x_sf, t.topk_idx, t.topk_weights)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        out = model.run(plan, t.x, t.x_sf, t.topk_idx, t.topk_weights)
    for _ in range(2):
        out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, eager)


def _ep_worker(rank, world, tokens_per_rank, out_dir):
    dev = torch.device("cuda", rank)
    w = local_weights(SHAPE, rank, world, 21, dev)
    t = make_tokens(SHAPE, tokens_per_rank[rank], rank, 21, dev, "masked")
    model = TorchBaseline(SHAPE, w, rank, world, dist_launch.group(), clamp=10.0)
    y = model.forward(t.x, t.x_sf, t.topk_idx, t.topk_weights)
    ref = moe_oracle(SHAPE, t, ExpertSource(SHAPE, 21, dev, w), 10.0)
    err = relative_l2(y, ref) if t.tokens else 0.0
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump({"err": err, "shape": list(y.shape)}, f)


def test_baseline_matches_oracle_ep2_uneven(cuda, tmp_path):
    if torch.cuda.device_count() < 2:
        pytest.skip("EP2 needs two GPUs")
    tokens = [37, 0]  # uneven, one rank with no tokens
    dist_launch.spawn(_ep_worker, 2, tokens, str(tmp_path))
    for r in range(2):
        res = json.load(open(tmp_path / f"rank{r}.json"))
        print(f"EP2 rank {r} T={tokens[r]}: rel L2 {res['err']:.3e}")
        assert res["shape"] == [tokens[r], SHAPE.hidden]
        assert res["err"] < 1e-2
