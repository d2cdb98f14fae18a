"""Drives one layer (a megamoe-opt emit folder, EP1) at T tokens, uniform routing, a few calls,
for Nsight Compute to profile one of its kernels on a late call:
  ncu --clock-control none -k regex:moe_l1_swiglu --launch-skip 2 --launch-count 1 \
      --metrics dram__bytes_read.sum,lts__t_bytes.sum,gpu__time_duration.sum \
      python3 bench/ncu_layer.py --layer DIR --tokens 8192
Why: how many bytes a layer kernel moves from HBM and through L2 against the unique bytes it
needs (each touched expert's weights once, the pool rows once) tells whether it streams its
weights once or re-reads them (bench/RESULTS.md).
"""
import argparse
import glob
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import megamoe  # noqa: E402
from megamoe_testing.generators import local_weights, make_tokens  # noqa: E402
from megamoe_testing.shapes import MoeShape  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layer", required=True, help="folder with one manifest (*.json) and its cubin")
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--calls", type=int, default=3)
    args = ap.parse_args()
    manifests = glob.glob(os.path.join(args.layer, "*.json"))
    if len(manifests) != 1:
        raise SystemExit(f"ncu_layer: expected one manifest in {args.layer}, found {manifests}")
    with open(manifests[0]) as f:
        cfg = json.load(f)["config"]
    if cfg["ranks"] != 1 or args.tokens > cfg["max_tokens_per_rank"] or args.tokens < 1:
        raise SystemExit("ncu_layer: EP1 layers and 1..max_tokens_per_rank tokens only")
    shape = MoeShape("layer", cfg["hidden"], cfg["intermediate"], cfg["experts"], cfg["topk"])
    dev = torch.device("cuda", 0)
    w = local_weights(shape, 0, 1, 1234, dev)
    l1, l2 = megamoe.transform_weights((w.w1, w.w1_sf), (w.w2, w.w2_sf))
    buf = megamoe.get_symm_buffer(manifests[0], device=0)
    t = make_tokens(shape, args.tokens, 0, 1234, dev, "uniform")
    n = t.tokens
    buf.x[:n].copy_(t.x)
    buf.x_sf[:n].copy_(t.x_sf)
    buf.topk_idx[:n].copy_(t.topk_idx)
    buf.topk_weights[:n].copy_(t.topk_weights)
    y = torch.empty(n, shape.hidden, dtype=torch.bfloat16, device=dev)
    for _ in range(args.calls):
        megamoe.fp8_mega_moe(y, l1, l2, buf)
    torch.cuda.synchronize()
    buf.close()
    print(f"ncu_layer: {args.calls} calls of {n} tokens done")


if __name__ == "__main__":
    main()
