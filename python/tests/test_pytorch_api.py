"""The PyTorch API (docs/PythonAPI.md) on one GPU over a compiled EP1 layer:
the torch.library op captured in a CUDA graph and replayed 100 times gives
bitwise identical outputs, the EPLB counters equal the per-expert counts of
topk_idx after N calls, the op traces (fake implementation) under
torch.compile, a config that disagrees with the manifest is rejected naming
the field, and the weight transform needs no layer.

Needs compiled layers in $MEGAMOE_LAYER_DIR (scripts/bundle-layer.sh): the
first folder whose name ends in _ep1.
"""
import glob
import json
import os

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU visible", allow_module_level=True)
if torch.cuda.get_device_capability(0) != (9, 0):
    pytest.skip("the layers are compiled for sm_90a", allow_module_level=True)

import megamoe  # noqa: E402
from megamoe_testing.generators import local_weights, make_tokens  # noqa: E402
from megamoe_testing.shapes import MoeShape  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAYER_DIR = os.environ.get("MEGAMOE_LAYER_DIR", os.path.join(REPO, "layers"))


def _ep1_manifest():
    for path in sorted(glob.glob(os.path.join(LAYER_DIR, "*_ep1", "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        if doc.get("format") == "megamoe-manifest" and doc.get("config"):
            return path
    pytest.skip("no compiled _ep1 layer in %s (scripts/bundle-layer.sh)" % LAYER_DIR)


@pytest.fixture(scope="module")
def setup():
    manifest = _ep1_manifest()
    buf = megamoe.get_symm_buffer(manifest, device=0)
    c = buf.config
    shape = MoeShape("api", c["hidden"], c["intermediate"], c["experts"], c["topk"])
    dev = torch.device("cuda", 0)
    w = local_weights(shape, 0, 1, 99, dev)
    l1, l2 = megamoe.transform_weights((w.w1, w.w1_sf), (w.w2, w.w2_sf))
    n = c["max_tokens"]
    t = make_tokens(shape, n, 0, 5, dev, "uniform")
    buf.x[:n].copy_(t.x)
    buf.x_sf[:n].copy_(t.x_sf)
    buf.topk_idx[:n].copy_(t.topk_idx)
    buf.topk_weights[:n].copy_(t.topk_weights)
    yield manifest, buf, l1, l2, t, w
    buf.close()


def test_inputs_are_attributes_of_max_tokens_rows(setup):
    _, buf, _, _, _, _ = setup
    c = buf.config
    assert buf.x.dtype == torch.float8_e4m3fn and tuple(buf.x.shape) == (c["max_tokens"], c["hidden"])
    assert tuple(buf.x_sf.shape) == (c["max_tokens"], c["hidden"] // 128)
    assert buf.topk_idx.dtype == torch.int64 and tuple(buf.topk_idx.shape) == (c["max_tokens"], c["topk"])
    assert buf.topk_weights.dtype == torch.float32


def test_graph_of_the_op_replayed_100_times_is_bitwise_equal(setup):
    _, buf, l1, l2, t, _ = setup
    n, h = t.tokens, buf.config["hidden"]
    ref = torch.full((n, h), float("nan"), dtype=torch.bfloat16, device="cuda")
    megamoe.fp8_mega_moe(ref, l1, l2, buf)
    y = torch.full_like(ref, float("nan"))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        torch.ops.megamoe.fp8_mega_moe(buf.id, y, l1[0], l1[1], l2[0], l2[1], None)
    torch.cuda.synchronize()
    assert torch.isfinite(ref.float()).all()
    equal = 0
    for _ in range(100):
        y.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        equal += int(torch.equal(y, ref))
    print("\nfp8_mega_moe graph: %d/100 replays bitwise equal to the eager call" % equal)
    assert equal == 100
    assert buf.check_errors() == 0


def test_eplb_counters_equal_the_host_counts(setup):
    _, buf, l1, l2, t, _ = setup
    n, h, e = t.tokens, buf.config["hidden"], buf.config["experts"]
    stats = torch.zeros(buf.local_experts, dtype=torch.int32, device="cuda")
    y = torch.empty(n, h, dtype=torch.bfloat16, device="cuda")
    calls = 5
    for _ in range(calls):
        megamoe.fp8_mega_moe(y, l1, l2, buf, cumulative_local_expert_recv_stats=stats)
    idx = t.topk_idx.cpu()
    host = torch.bincount(idx[(idx >= 0) & (idx < e)].flatten(), minlength=e)
    print("\nEPLB counters after %d calls: %s (host %s x %d)" % (
        calls, stats.tolist(), host.tolist(), calls))
    assert torch.equal(stats.cpu().long(), host * calls)
    with pytest.raises(megamoe.MegaMoEError, match="recv_stats must be i32"):
        megamoe.fp8_mega_moe(y, l1, l2, buf, cumulative_local_expert_recv_stats=stats.long())


def test_the_op_traces_with_its_fake_implementation(setup):
    _, buf, l1, l2, t, _ = setup
    n, h = t.tokens, buf.config["hidden"]

    def layer(y):
        megamoe.fp8_mega_moe(y, l1, l2, buf)
        return y

    eager = layer(torch.empty(n, h, dtype=torch.bfloat16, device="cuda")).clone()
    compiled = torch.compile(layer, backend="aot_eager", fullgraph=True)
    out = compiled(torch.empty(n, h, dtype=torch.bfloat16, device="cuda"))
    torch.cuda.synchronize()
    assert torch.equal(out, eager)


def test_a_config_that_disagrees_is_rejected_naming_the_field(setup):
    manifest, buf, _, _, _, _ = setup
    with pytest.raises(megamoe.MegaMoEError,
                       match="experts = %d was given but the manifest .* compiled for experts = %d"
                       % (2 * buf.config["experts"], buf.config["experts"])):
        megamoe.get_symm_buffer(manifest, symm=buf.symm,
                                config={"experts": 2 * buf.config["experts"]})
    config, nbytes = megamoe.layer_info(manifest)
    assert config == buf.config and nbytes <= buf.symm.nbytes


def test_transform_weights_needs_no_layer(setup):
    _, buf, l1, l2, _, w = setup
    (w1, s1), (w2, s2) = megamoe.transform_weights((w.w1, w.w1_sf), (w.w2, w.w2_sf))
    e, two_i, h = w.w1.shape
    i = two_i // 2
    ref = w.w1.view(torch.uint8).view(e, 2, i // 8, 8, h).permute(0, 2, 1, 3, 4).reshape(e, two_i, h)
    nb = i // 128
    sref = torch.stack([w.w1_sf[:, :nb].repeat_interleave(2, dim=1),
                        w.w1_sf[:, nb:].repeat_interleave(2, dim=1)], dim=-1)
    assert torch.equal(w1.view(torch.uint8), ref) and torch.equal(s1, sref)
    assert w2 is w.w2 and s2 is w.w2_sf
    assert torch.equal(w1.view(torch.uint8), l1[0].view(torch.uint8))


def test_buffer_over_caller_peer_pointers(setup):
    """get_symm_buffer(peers=...) over memory the caller mapped (here one
    rank's torch allocation; the last 4096 bytes are the barrier's): the
    layer runs there and gives the NCCL-window layer's output bitwise."""
    manifest, buf, l1, l2, t, _ = setup
    n, h = t.tokens, buf.config["hidden"]
    ref = torch.empty(n, h, dtype=torch.bfloat16, device="cuda")
    megamoe.fp8_mega_moe(ref, l1, l2, buf)
    _, nbytes = megamoe.layer_info(manifest)
    mem = torch.zeros(nbytes + 4096, dtype=torch.uint8, device="cuda")
    mine = megamoe.get_symm_buffer(manifest, peers=(mem.data_ptr(), [mem.data_ptr()],
                                                     mem.numel(), 0), device=0)
    assert mine.x.data_ptr() >= mem.data_ptr()
    for name in ("x", "x_sf", "topk_idx", "topk_weights"):
        getattr(mine, name).copy_(getattr(buf, name))
    y = torch.full_like(ref, float("nan"))
    megamoe.fp8_mega_moe(y, l1, l2, mine)
    torch.cuda.synchronize()
    assert torch.equal(y, ref)
    mine.close()
