"""The layer forward (the manifest's schedule, e.g. the unfused one) against the
FP32 oracle, on 1 GPU (EP1) and 2 GPUs (EP2, one process per GPU).

Through the PyTorch API (megamoe.get_symm_buffer, transform_weights,
fp8_mega_moe; docs/PythonAPI.md). Needs compiled layers: $MEGAMOE_LAYER_DIR
(default <repo>/layers, as scripts/bundle-layer.sh lays it out) holds one
folder per layer with the manifest + cubin megamoe-opt emitted (the config
comes from the manifest's "config"). Every layer found is one test; each runs
these scenarios in one process group (so the NCCL setup and the weights are
paid once):

  full      every rank T tokens, uniform routing
  uneven    T - 1 tokens on rank 0, fewer on the others (no BLOCK_M multiple)
  zero      0 tokens on rank 0 (the others T)
  masked    25% of the slots are -1
  hot       every token sends one slot to the last expert
  bad_ids   uniform, with expert ids E and -5 written into two slots: they are
            skipped as masked and check_errors() counts them
  small     every rank min(8, T) tokens, uniform routing (decode: a manifest
            with "variants" runs its small-token schedule)

For each: relative L2 of y against the oracle <= 1e-2 (printed; the oracle
requantizes per the manifest's requant_block, 128 or 64, and in the first
scenario y must also be at most half as far from it as from the oracle of the
other block, so a layer that requantized per the wrong block fails), a second call
bitwise equal to the first, CUDA-graph capture + two replays bitwise equal,
check_errors() equal to the number of bad ids this rank sent, and the EPLB
counters (cumulative_local_expert_recv_stats, passed to every call) equal to
the per-expert slot counts computed on the host from every rank's topk_idx
times the number of calls. Large layers run
a reduced list (full, uneven, hot, bad_ids, small). The table shows the
schedule variant (index and BLOCK_M, Layer.variant_for) each call ran.
"""
import glob
import json
import os

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")

from megamoe_testing import dist_launch  # noqa: E402
from megamoe_testing.generators import ExpertSource, local_weights, make_tokens  # noqa: E402
from megamoe_testing.oracle import moe_oracle, relative_l2  # noqa: E402
from megamoe_testing.shapes import MoeShape  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAYER_DIR = os.environ.get("MEGAMOE_LAYER_DIR", os.path.join(REPO, "layers"))
SEED = 1234
TOLERANCE = 1e-2
# Layers with more weight bytes per rank than this run the reduced scenarios.
LARGE_WEIGHT_BYTES = 1 << 30


def _layer_config(doc):
    """The layer config a layer manifest was compiled for: its "config"
    (planToJson's, docs/Manifest.md)."""
    c = doc.get("config")
    if not isinstance(c, dict):
        return None
    return {"hidden": c["hidden"], "intermediate": c["intermediate"], "experts": c["experts"],
            "topk": c["topk"], "ranks": c["ranks"], "max_tokens": c["max_tokens_per_rank"],
            "clamp": c.get("clamp"), "requant_block": int((c.get("recipe") or {}).get("requant_block", 128))}


def _layers():
    """(name, manifest path, config, buffer bytes) of every layer manifest
    (one with a "schedule" or "variants") in a folder of LAYER_DIR."""
    out = []
    for path in sorted(glob.glob(os.path.join(LAYER_DIR, "*", "*.json"))):
        try:
            with open(path) as f:
                doc = json.load(f)
        except ValueError:
            continue
        if not isinstance(doc, dict) or doc.get("format") != "megamoe-manifest" or not (
                doc.get("schedule") or doc.get("variants")):
            continue
        cfg = _layer_config(doc)
        if cfg is None:
            continue
        layout = doc.get("buffer_layout") or {}
        out.append((os.path.basename(os.path.dirname(path)), path, cfg, int(layout.get("total_bytes", 0))))
    return out


LAYERS = _layers()


def _scenarios(cfg):
    t, r, e = cfg["max_tokens"], cfg["ranks"], cfg["experts"]
    others = max(1, t // 2 + 3) if t > 1 else t
    full = {"name": "full", "tokens": [t] * r, "routing": "uniform"}
    small = {"name": "small", "tokens": [min(8, t)] * r, "routing": "uniform"}
    uneven = {"name": "uneven", "tokens": [max(0, t - 1)] + [min(t, others)] * (r - 1),
              "routing": "uniform"}
    zero = {"name": "zero", "tokens": [0] + [t] * (r - 1), "routing": "uniform"}
    masked = {"name": "masked", "tokens": [t] * r, "routing": "masked"}
    hot = {"name": "hot", "tokens": [t] * r, "routing": "hot",
           "args": {"hot_fraction": 1.0, "hot_expert": e - 1}}
    bad = {"name": "bad_ids", "tokens": [t] * r, "routing": "uniform", "bad_ids": True}
    weights = (cfg["experts"] // r) * 3 * cfg["hidden"] * cfg["intermediate"]
    if weights > LARGE_WEIGHT_BYTES:
        return [full, uneven, hot, bad, small]
    return [full, uneven, zero, masked, hot, bad, small]


def _stage(buf, t, idx):
    n = t.tokens
    buf.x[:n].copy_(t.x)
    buf.x_sf[:n].copy_(t.x_sf)
    buf.topk_idx[:n].copy_(idx)
    buf.topk_weights[:n].copy_(t.topk_weights)


def _expected_recv(all_idx, rank, experts, local):
    """Slots each local expert of `rank` receives: entries of every rank's
    (cleaned) topk_idx that name one of its experts."""
    counts = torch.zeros(local, dtype=torch.int64)
    for idx in all_idx:
        mine = idx[(idx >= rank * local) & (idx < (rank + 1) * local)] - rank * local
        counts += torch.bincount(mine.flatten(), minlength=local)
    return counts


def _time_replays(graph, n=5):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        graph.replay()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / n


def _worker(rank, world, manifest, cfg, nbytes, out_dir):
    """One rank: every scenario, results into out_dir/rank<r>.json."""
    import megamoe
    from megamoe_testing.generators import TokenInputs

    dev = torch.device("cuda", rank)
    h, inter, e, k, t_max = (cfg[n] for n in ("hidden", "intermediate", "experts", "topk", "max_tokens"))
    clamp = cfg.get("clamp")
    shape = MoeShape("layer", h, inter, e, k)
    if world > 1:
        buf = megamoe.get_symm_buffer(manifest, dist_launch.group())
    else:
        buf = megamoe.get_symm_buffer(manifest, device=rank)
    assert buf.symm.nbytes >= nbytes
    w = local_weights(shape, rank, world, SEED, dev)
    l1, l2 = megamoe.transform_weights((w.w1, w.w1_sf), (w.w2, w.w2_sf))
    local = e // world
    source = ExpertSource(shape, SEED, dev, w)

    # Inputs and oracle outputs first: a rank busy with the oracle between two
    # forwards would keep its peers spinning in the cross-rank barriers.
    cases = []
    for i, sc in enumerate(_scenarios(cfg)):
        n = sc["tokens"][rank]
        t = make_tokens(shape, n, rank, SEED + 17 * i, dev, sc["routing"], **sc.get("args", {}))
        idx = t.topk_idx.clone()
        bad = 0
        if sc.get("bad_ids") and n >= 2:
            idx[0, 0] = e
            idx[n - 1, k - 1] = -5
            bad = 2
        clean = TokenInputs(t.x, t.x_sf, torch.where((idx >= 0) & (idx < e), idx, -1), t.topk_weights)
        ref = moe_oracle(shape, clean, source, clamp, cfg["requant_block"])
        # The first scenario also against the other requantization block's
        # oracle: y must be clearly nearer its own (the kernels did requantize
        # per requant_block, not merely within the tolerance of it).
        other = None
        if i == 0 and n:
            other = moe_oracle(shape, clean, source, clamp, 192 - cfg["requant_block"])
        all_idx = [clean.topk_idx.cpu()]
        if world > 1:
            all_idx = [None] * world
            torch.distributed.all_gather_object(all_idx, clean.topk_idx.cpu())
        cases.append((sc, t, idx, bad, ref, other, _expected_recv(all_idx, rank, e, local)))
    torch.cuda.synchronize()
    buf.check_errors()  # starts from zero
    if world > 1:
        torch.distributed.barrier()

    results = []
    for sc, t, idx, bad, ref, other, recv in cases:
        n = t.tokens
        variant, block_m = buf.variant_for(n)
        _stage(buf, t, idx)
        stats = torch.zeros(local, dtype=torch.int32, device=dev)
        y1 = torch.full((n, h), float("nan"), dtype=torch.bfloat16, device=dev)
        y2 = torch.full_like(y1, float("nan"))
        megamoe.fp8_mega_moe(y1, l1, l2, buf, cumulative_local_expert_recv_stats=stats)
        megamoe.fp8_mega_moe(y2, l1, l2, buf, cumulative_local_expert_recv_stats=stats)
        y3 = torch.full_like(y1, float("nan"))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            megamoe.fp8_mega_moe(y3, l1, l2, buf, cumulative_local_expert_recv_stats=stats)
        graph.replay()
        torch.cuda.synchronize()
        graph_equal = torch.equal(y3, y1)
        y3.fill_(float("nan"))
        ms = _time_replays(graph)
        graph_equal = graph_equal and torch.equal(y3, y1)
        errors = buf.check_errors()  # 2 eager calls + 1 + 5 replays
        calls = 8
        results.append({
            "scenario": sc["name"], "tokens": n, "variant": variant, "block_m": block_m,
            "rel_l2": relative_l2(y1, ref) if n else 0.0,
            "rel_l2_other": relative_l2(y1, other) if other is not None else None,
            "finite": bool(torch.isfinite(y1.float()).all()), "repeat_equal": torch.equal(y1, y2),
            "graph_equal": graph_equal, "errors": errors, "errors_expected": bad * calls,
            "ms_per_forward": ms,
            "stats_equal": torch.equal(stats.cpu().long(), recv * calls),
        })
        del graph
        if world > 1:
            torch.distributed.barrier()
    buf.close()
    with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as f:
        json.dump(results, f)


def _check(row):
    why = []
    if not row["finite"]:
        why.append("y not finite")
    if not row["rel_l2"] <= TOLERANCE:
        why.append("rel L2 %.3e > %g" % (row["rel_l2"], TOLERANCE))
    other = row.get("rel_l2_other")
    if other is not None and not row["rel_l2"] < 0.5 * other:
        why.append("rel L2 %.3e against its requantization block's oracle is not below half of "
                   "%.3e against the other block's" % (row["rel_l2"], other))
    if not row["repeat_equal"]:
        why.append("second call differs")
    if not row["graph_equal"]:
        why.append("graph replay differs")
    if not row.get("stats_equal", False):
        why.append("EPLB counters differ from the host's per-expert counts")
    if row["errors"] != row["errors_expected"]:
        why.append("check_errors %d, expected %d" % (row["errors"], row["errors_expected"]))
    return why


@pytest.mark.parametrize("layer", LAYERS or [None], ids=[l[0] for l in LAYERS] or ["none"])
def test_layer_matches_oracle(layer, tmp_path):
    if layer is None:
        pytest.skip("no compiled layer in %s (scripts/bundle-layer.sh DIR; set MEGAMOE_LAYER_DIR)"
                    % LAYER_DIR)
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible")
    if torch.cuda.get_device_capability(0) != (9, 0):
        pytest.skip("the layers are compiled for sm_90a")
    name, manifest, cfg, nbytes = layer
    ranks = cfg["ranks"]
    if torch.cuda.device_count() < ranks:
        pytest.skip("%s needs %d GPUs, %d visible" % (name, ranks, torch.cuda.device_count()))
    assert nbytes > 0, "%s: the manifest has no buffer_layout" % manifest
    dist_launch.spawn(_worker, ranks, manifest, cfg, nbytes, str(tmp_path))
    failures = []
    print("\n%s (H=%d I=%d E=%d K=%d R=%d T=%d clamp=%s requant=%d)" % (
        name, cfg["hidden"], cfg["intermediate"], cfg["experts"], cfg["topk"], ranks,
        cfg["max_tokens"], cfg.get("clamp"), cfg["requant_block"]))
    print("  %-8s %4s %6s %7s %10s %6s %6s %5s %7s %9s" % (
        "scenario", "rank", "tokens", "variant", "rel_l2", "repeat", "graph", "eplb", "errors",
        "ms/fwd"))
    for r in range(ranks):
        with open(tmp_path / ("rank%d.json" % r)) as f:
            rows = json.load(f)
        for row in rows:
            why = _check(row)
            print("  %-8s %4d %6d %7s %10.3e %6s %6s %5s %3d/%-3d %9.3f %s" % (
                row["scenario"], r, row["tokens"], "%d/%d" % (row["variant"], row["block_m"]),
                row["rel_l2"], row["repeat_equal"],
                row["graph_equal"], row["stats_equal"], row["errors"], row["errors_expected"], row["ms_per_forward"],
                "FAIL: " + "; ".join(why) if why else "ok"))
            if row.get("rel_l2_other") is not None:
                print("  %-8s %4d rel_l2 against the other requantization block's oracle: %.3e" % (
                    row["scenario"], r, row["rel_l2_other"]))
            if why:
                failures.append("%s rank %d %s: %s" % (name, r, row["scenario"], "; ".join(why)))
    assert not failures, "\n".join(failures)
