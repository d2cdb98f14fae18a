"""Single-GPU tests of the megamoe Python package (skipped without a GPU).

The compiler-made test cubin comes from $MEGAMOE_TEST_DATA (hello.cubin +
hello.manifest.json; scripts/bundle-gpu.sh puts them in the GPU bundle). The
layer manifests here wrap the hello kernel with a compiler plan from
tests/data (plan_*.json: the output of
`megamoe-opt --megamoe-layer="hidden=256 intermediate=256 experts=4 topk=2
ranks=1 max-tokens=T" --megamoe-plan="schedule=unfused"
--megamoe-print-plan=format=json`), as a compiled layer's manifest carries it.
"""
import json
import os
import shutil

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU visible", allow_module_level=True)
if torch.cuda.get_device_capability(0) != (9, 0):
    pytest.skip("the test kernels are compiled for sm_90a", allow_module_level=True)

import megamoe  # noqa: E402

DATA = os.environ.get("MEGAMOE_TEST_DATA", "")
HELLO = os.path.join(DATA, "hello.manifest.json")
PLANS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _plan(max_tokens):
    with open(os.path.join(PLANS, "plan_h256_i256_e4_k2_r1_t%d.json" % max_tokens)) as f:
        return json.load(f)


def _with_plan(text, max_tokens):
    """Manifest text with the plan's "config", "plan" and "buffer_layout"."""
    m = json.loads(text)
    m.update(_plan(max_tokens))
    return json.dumps(m)


def _offset(max_tokens, region):
    return next(r["offset"] for r in _plan(max_tokens)["buffer_layout"]["regions"]
                if r["name"] == region)
needs_cubin = pytest.mark.skipif(not os.path.exists(HELLO),
                                 reason="MEGAMOE_TEST_DATA has no hello.cubin/manifest")


@needs_cubin
def test_module_launch_with_torch_tensor():
    m = megamoe.Module(HELLO, device=0)
    assert m.num_sms > 0
    out = torch.full((64,), -1, dtype=torch.int32, device="cuda")
    m.launch("store_tid", out=out)
    torch.cuda.synchronize()
    assert out.tolist() == list(range(64))


@needs_cubin
def test_launch_errors_are_exceptions_with_messages():
    m = megamoe.Module(HELLO, device=0)
    with pytest.raises(megamoe.MegaMoEError, match="parameter 'out' .* was not given"):
        m.launch("store_tid")
    with pytest.raises(megamoe.MegaMoEError, match="no kernel named 'nope'"):
        m.launch("nope", out=torch.zeros(64, dtype=torch.int32, device="cuda"))
    with pytest.raises(megamoe.MegaMoEError, match="cannot open"):
        megamoe.Module("/nonexistent/x.json")


def reference_l1_transform(w, sf):
    """Independent torch formulation of the layout in WeightTransform.h."""
    e, two_i, h = w.shape
    i = two_i // 2
    # [E, (gate|up), I/8, 8, H] -> [E, I/8, (gate|up), 8, H]
    w_ref = w.view(torch.uint8).view(e, 2, i // 8, 8, h).permute(0, 2, 1, 3, 4)
    w_ref = w_ref.reshape(e, two_i, h)
    nb = i // 128
    gate = sf[:, :nb].repeat_interleave(2, dim=1)
    up = sf[:, nb:].repeat_interleave(2, dim=1)
    return w_ref, torch.stack([gate, up], dim=-1)


@pytest.fixture
def layer(tmp_path):
    if not os.path.exists(HELLO):
        pytest.skip("MEGAMOE_TEST_DATA has no hello.cubin/manifest")
    manifest = tmp_path / "layer.json"
    manifest.write_text(_with_plan(open(HELLO).read(), 32))
    _, nbytes = megamoe.layer_info(str(manifest))
    symm = megamoe.SymmetricBuffer(nbytes, unique_id=megamoe.unique_id(),
                                   rank=0, world_size=1, device=0)
    lay = megamoe.Layer(str(manifest), symm)  # the config comes from the manifest
    yield lay, symm, str(manifest)
    lay.close()
    symm.close()


def test_layer_views_are_zero_copy(layer):
    lay, symm, _ = layer
    x = lay.view("x")
    assert x.dtype == torch.float8_e4m3fn and tuple(x.shape) == (32, 256)
    idx = lay.view("topk_idx")
    assert idx.dtype == torch.int64 and tuple(idx.shape) == (32, 2)
    idx.copy_(torch.arange(64, device="cuda").view(32, 2))
    raw = symm.tensor(torch.int64, offset=_offset(32, "topk_idx"), numel=64)
    torch.cuda.synchronize()
    assert raw.tolist() == list(range(64))


def test_layer_transform_matches_reference(layer):
    lay, _, _ = layer
    g = torch.Generator(device="cuda").manual_seed(0)
    w = torch.randint(0, 256, (4, 512, 256), dtype=torch.uint8, device="cuda",
                      generator=g).view(torch.float8_e4m3fn)
    sf = torch.rand(4, 4, 2, device="cuda", generator=g)
    w_out, s_out = lay.transform_l1(w, sf)
    w_ref, s_ref = reference_l1_transform(w, sf)
    assert torch.equal(w_out.view(torch.uint8), w_ref)
    assert torch.equal(s_out, s_ref)


def test_layer_rejects_bad_inputs_and_forward_is_not_available(layer):
    lay, symm, manifest = layer
    e, h, i = 4, 256, 256
    fp8 = torch.float8_e4m3fn
    w1 = torch.zeros(e, 2 * i, h, dtype=torch.uint8, device="cuda").view(fp8)
    s1 = torch.zeros(e, 2 * i // 128, h // 128, 2, device="cuda")
    w2 = torch.zeros(e, h, i, dtype=torch.uint8, device="cuda").view(fp8)
    s2 = torch.zeros(e, h // 128, i // 128, device="cuda")
    y = torch.zeros(8, h, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(megamoe.MegaMoEError, match="y must be bf16, got f32"):
        lay.forward(8, w1, s1, w2, s2, y.float())
    with pytest.raises(megamoe.MegaMoEError, match="num_tokens = 33 is outside"):
        lay.forward(33, w1, s1, w2, s2, torch.zeros(33, h, dtype=torch.bfloat16, device="cuda"))
    with pytest.raises(megamoe.MegaMoEError,
                       match="experts = 8 was given but the manifest .* compiled for experts = 4"):
        megamoe.Layer(manifest, symm, hidden=256, intermediate=256, experts=8,
                      topk=2, max_tokens=32)
    assert megamoe.layer_info(manifest)[0] == dict(hidden=256, intermediate=256, experts=4,
                                                   topk=2, ranks=1, max_tokens=32)
    with pytest.raises(megamoe.NotAvailableError, match="no fused kernel in this manifest"):
        lay.forward(8, w1, s1, w2, s2, y)


def _schedule_manifest(tmp_path, name, out_bind, max_tokens=32):
    """The hello manifest as a one-kernel layer schedule with a compiler plan:
    store_tid (out[i] = i for 64 threads) with its pointer bound to
    `out_bind`."""
    m = json.loads(_with_plan(open(HELLO).read(), max_tokens))
    m["kernels"][0]["params"][0]["bind"] = out_bind
    m["symbols"] = {"H": 256, "I": 256, "E": 4, "K": 2, "R": 1, "T": max_tokens}
    variants = m["plan"]["variants"]
    if len(variants) == 1:
        m["schedule"] = ["store_tid"]
    else:
        m["variants"] = [{"min_tokens": v["min_tokens"], "max_tokens": v["max_tokens"],
                          "block_m": v["block_m"], "schedule": ["store_tid"]}
                         for v in variants]
    path = tmp_path / name
    path.write_text(json.dumps(m))
    # The manifest names its cubin relative to itself.
    shutil.copy(os.path.join(DATA, "hello.cubin"), tmp_path / "hello.cubin")
    return str(path)


def _symm(max_tokens=32):
    return megamoe.SymmetricBuffer(_plan(max_tokens)["buffer_layout"]["total_bytes"],
                                   unique_id=megamoe.unique_id(), rank=0, world_size=1,
                                   device=0)


def _forward_args(e=4, h=256, i=256, tokens=1):
    fp8 = torch.float8_e4m3fn
    return (torch.zeros(e, 2 * i, h, dtype=torch.uint8, device="cuda").view(fp8),
            torch.zeros(e, 2 * i // 128, h // 128, 2, device="cuda"),
            torch.zeros(e, h, i, dtype=torch.uint8, device="cuda").view(fp8),
            torch.zeros(e, h // 128, i // 128, device="cuda"),
            torch.zeros(tokens, h, dtype=torch.bfloat16, device="cuda"))


@needs_cubin
def test_layer_schedule_binds_regions_inputs_and_captures(tmp_path):
    """The runtime's schedule path alone (no MoE kernel needed): a region bind
    and an input bind reach the kernel, eagerly and in a CUDA graph."""
    symm = _symm()
    expect = list(range(64))
    # region:x -> the x view's first 256 bytes.
    lay = megamoe.Layer(_schedule_manifest(tmp_path, "region.json", "region:x"), symm)
    x = lay.view("x").view(torch.uint8)
    x.fill_(0xFF)
    w1, s1, w2, s2, y = _forward_args()
    lay.forward(1, w1, s1, w2, s2, y)
    torch.cuda.synchronize()
    assert x.flatten()[:256].view(torch.int32).tolist() == expect
    assert lay.check_errors() == 0
    # check_errors reads and clears word 0 of the errors region.
    symm.tensor(torch.int32, _offset(32, "errors"), 4)[0] = 5
    assert lay.check_errors() == 5
    assert lay.check_errors() == 0
    lay.close()
    # input:y -> y's first 256 bytes (y is bf16 [1, 256] = 512 bytes).
    lay = megamoe.Layer(_schedule_manifest(tmp_path, "input.json", "input:y"), symm)
    lay.forward(1, w1, s1, w2, s2, y)
    torch.cuda.synchronize()
    assert y.view(torch.int32).flatten()[:64].tolist() == expect
    y2 = torch.zeros_like(y)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        lay.forward(1, w1, s1, w2, s2, y2)
    assert y2.view(torch.int32).flatten()[:64].tolist() == [0] * 64  # captured, not run
    g.replay()
    torch.cuda.synchronize()
    assert y2.view(torch.int32).flatten()[:64].tolist() == expect
    lay.close()
    symm.close()


@needs_cubin
def test_layer_schedule_config_is_checked_against_the_manifest(tmp_path):
    symm = _symm()
    with pytest.raises(megamoe.MegaMoEError,
                       match="topk = 3 was given but the manifest .* compiled for topk = 2"):
        megamoe.Layer(_schedule_manifest(tmp_path, "k.json", "region:x"), symm,
                      hidden=256, intermediate=256, experts=4, topk=3, max_tokens=32)
    with pytest.raises(megamoe.MegaMoEError, match="region 'nope' .* is not in buffer_layout"):
        megamoe.Layer(_schedule_manifest(tmp_path, "r.json", "region:nope"), symm)
    symm.close()


@needs_cubin
def test_layer_variants_pick_the_schedule_by_token_count(tmp_path):
    """A manifest with the plan's two variants (BLOCK_M 64 up to 128 tokens,
    128 above): variant_for names the range holding num_tokens, and forward
    runs (here both variants launch store_tid into input:y)."""
    symm = _symm(256)
    single = _schedule_manifest(tmp_path, "single.json", "input:y")
    lay = megamoe.Layer(single, symm)
    assert lay.variant_for(0) == (0, 64) and lay.variant_for(32) == (0, 64)
    lay.close()
    lay = megamoe.Layer(_schedule_manifest(tmp_path, "variants.json", "input:y", 256), symm)
    assert [lay.variant_for(n) for n in (0, 128, 129, 256)] == [(0, 64), (0, 64), (1, 128),
                                                                (1, 128)]
    with pytest.raises(megamoe.MegaMoEError, match="num_tokens = 257 is outside"):
        lay.variant_for(257)
    for n in (1, 200):
        w1, s1, w2, s2, y = _forward_args(tokens=n)
        lay.forward(n, w1, s1, w2, s2, y)
        torch.cuda.synchronize()
        assert y.view(torch.int32).flatten()[:64].tolist() == list(range(64))
    lay.close()
    symm.close()
