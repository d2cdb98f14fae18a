"""Two builds of the same layer, side by side on one GPU: bitwise equal outputs and times.

A refactor of the compiler that claims "no change of results" compiles each layer twice, with
the old and the new megamoe-opt, into folders that differ only in layer.cubin (the manifests are
the same; scripts/ptx-snapshot.sh shows it on the build machine). This script runs both cubins
on the same inputs and weights in one process (EP1), for every token count asked:
  - y of the old and the new cubin compared bitwise (torch.equal on the raw bytes);
  - both against the FP32 oracle (relative L2);
  - the median time of each over --iters calls with the L2 flushed before every call, the two
    builds interleaved call by call so that clock and temperature drift hit both alike. With
    --gpu-sleep-cycles N the GPU spins N cycles (torch.cuda._sleep) before the start event, so
    that the host has enqueued the call's launches before the first one runs: the time is then
    the GPU's, without host launch gaps (DeepGEMM's anchor bench does the same with 2e6,
    ../shared/anchors); 0 (the default) times the calls as launched.

Usage: python bench/compare_cubins.py --layers DIR [--tokens 8,512,8192] [--iters 20]
DIR holds <name>/{old,new}/ (manifest + cubin each); any other subfolder of <name>/ is one more
candidate, compared with old as new is (every build timed in the same interleaved loop). Prints a
markdown table, one row per layer, token count and candidate; exit status 1 if any output differs.
"""

import argparse
import glob
import json
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import megamoe  # noqa: E402
from megamoe_testing.generators import ExpertSource, local_weights, make_tokens  # noqa: E402
from megamoe_testing.oracle import moe_oracle, relative_l2  # noqa: E402
from megamoe_testing.shapes import MoeShape  # noqa: E402

SEED = 4321


def manifest_in(folder):
    paths = [p for p in glob.glob(os.path.join(folder, "*.json"))]
    if len(paths) != 1:
        raise SystemExit(f"compare_cubins: expected one manifest in {folder}, found {paths}")
    return paths[0]


def config_of(manifest):
    with open(manifest) as f:
        c = json.load(f)["config"]
    return c


def run(layer_dir, tokens_list, iters, sleep_cycles=0):
    name = os.path.basename(layer_dir.rstrip("/"))
    # old first, then new and any other candidate folder.
    labels = ["old", "new"] + sorted(
        d for d in os.listdir(layer_dir)
        if d not in ("old", "new") and os.path.isdir(os.path.join(layer_dir, d)))
    builds = {label: manifest_in(os.path.join(layer_dir, label)) for label in labels}
    cfg = config_of(builds["new"])
    if cfg["ranks"] != 1:
        raise SystemExit(f"compare_cubins: {name} is compiled for {cfg['ranks']} ranks; EP1 only")
    shape = MoeShape(name, cfg["hidden"], cfg["intermediate"], cfg["experts"], cfg["topk"])
    dev = torch.device("cuda", 0)
    w = local_weights(shape, 0, 1, SEED, dev)
    l1, l2 = megamoe.transform_weights((w.w1, w.w1_sf), (w.w2, w.w2_sf))
    bufs = {label: megamoe.get_symm_buffer(m, device=0) for label, m in builds.items()}
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    rows = []
    for tokens in tokens_list:
        if tokens > cfg["max_tokens_per_rank"]:
            continue
        t = make_tokens(shape, tokens, 0, SEED + tokens, dev, "uniform")
        ys = {}
        for label, buf in bufs.items():
            n = t.tokens
            buf.x[:n].copy_(t.x)
            buf.x_sf[:n].copy_(t.x_sf)
            buf.topk_idx[:n].copy_(t.topk_idx)
            buf.topk_weights[:n].copy_(t.topk_weights)
            ys[label] = torch.empty(n, shape.hidden, dtype=torch.bfloat16, device=dev)
        times = {label: [] for label in bufs}
        for i in range(iters + 2):
            for label, buf in bufs.items():
                flush.zero_()
                if sleep_cycles:
                    torch.cuda._sleep(sleep_cycles)
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                megamoe.fp8_mega_moe(ys[label], l1, l2, buf)
                stop.record()
                torch.cuda.synchronize()
                if i >= 2:  # the first calls warm the module and descriptor caches
                    times[label].append(start.elapsed_time(stop) * 1000.0)
        ref = moe_oracle(shape, t, ExpertSource(shape, SEED, dev, w), clamp=cfg.get("clamp"),
                         requant_block=int((cfg.get("recipe") or {}).get("requant_block", 128)))
        err = {label: relative_l2(ys[label].float(), ref) for label in ys}
        t_old = statistics.median(times["old"])
        for label in labels[1:]:
            same = torch.equal(ys["old"].view(torch.int16), ys[label].view(torch.int16))
            t_new = statistics.median(times[label])
            rows.append((name, tokens, label, t_old, t_new, t_new / t_old, same, err["old"],
                         err[label]))
    for buf in bufs.values():
        buf.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", required=True)
    ap.add_argument("--tokens", default="8,512,8192")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--gpu-sleep-cycles", type=int, default=0,
                    help="GPU spin before each timed call (hides host launch gaps)")
    args = ap.parse_args()
    if args.gpu_sleep_cycles < 0:
        ap.error("--gpu-sleep-cycles must be >= 0, got %d" % args.gpu_sleep_cycles)
    tokens = [int(x) for x in args.tokens.split(",")]
    rows = []
    for layer_dir in sorted(glob.glob(os.path.join(args.layers, "*"))):
        if os.path.isdir(os.path.join(layer_dir, "old")):
            rows += run(layer_dir, tokens, args.iters, args.gpu_sleep_cycles)
    print("| layer | tokens | new | old us | new us | new/old | y bitwise equal | rel L2 old | "
          "rel L2 new |")
    print("|---|---:|---|---:|---:|---:|---|---:|---:|")
    for name, n, label, to, tn, ratio, same, eo, en in rows:
        print(f"| {name} | {n} | {label} | {to:.1f} | {tn:.1f} | {ratio:.3f} | "
              f"{'yes' if same else 'NO'} | {eo:.2e} | {en:.2e} |")
    sys.exit(0 if rows and all(r[6] for r in rows) else 1)


if __name__ == "__main__":
    main()
