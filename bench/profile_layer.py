"""Per-kernel GPU time of a compiled layer's forward (torch.profiler / CUPTI).

    PYTHONPATH=python:bench MEGAMOE_LAYERS=bench-layers \
        python3 bench/profile_layer.py --shapes V4-Flash --tokens 8192 --ep 2

For each (shape, tokens/rank) it runs the layer forward (compiled layers as
bench/megamoe_schedules.py finds them) a few times untimed, then profiles
`--calls` forwards and prints, for rank 0, each kernel's mean time per call
and its share of the kernels' total. The sum is GPU busy time; the
wall-clock time of a call (bench/moe_bench.py) also includes launch gaps and
the ranks waiting for each other at the cross-rank barriers (which show up
here as barrier-kernel time).
"""

import argparse
import collections

import torch

from megamoe_schedules import open_layer
from megamoe_testing import dist_launch
from megamoe_testing.generators import local_weights, make_tokens
from megamoe_testing.shapes import SHAPES


def worker(rank, world, args):
    dev = torch.device("cuda", rank)
    group = dist_launch.group()
    for shape_name in args.shapes.split(","):
        shape = SHAPES[shape_name]
        weights = local_weights(shape, rank, world, args.seed, dev)
        for tok in [int(t) for t in args.tokens.split(",")]:
            tokens = make_tokens(shape, tok, rank, args.seed + tok, dev, "uniform")
            symm, layer, w1, s1 = open_layer(shape, world, tok, group, weights, tokens)
            y = torch.empty(tok, shape.hidden, dtype=torch.bfloat16, device=dev)

            def call():
                layer.forward(tok, w1, s1, weights.w2, weights.w2_sf, y)

            for _ in range(3):
                call()
            torch.cuda.synchronize()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                for _ in range(args.calls):
                    call()
                torch.cuda.synchronize()
            times = collections.OrderedDict()
            for ev in prof.events():
                if ev.device_type == torch.autograd.DeviceType.CUDA:
                    times[ev.name] = times.get(ev.name, 0.0) + ev.device_time_total
            total_us = sum(times.values()) / args.calls
            if rank == 0:
                print(f"{shape_name} EP{world} T={tok}: kernels {total_us:.1f} us per call (rank 0)")
                for name, t in times.items():
                    print(f"  {name[:40]:40s} {t / args.calls:9.1f} us {100 * t / args.calls / total_us:5.1f}%")
            layer.close()
            symm.close()
            del tokens
        del weights
        torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", default="V4-Flash")
    p.add_argument("--tokens", default="8,512,8192")
    p.add_argument("--ep", type=int, default=2)
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args()
    dist_launch.spawn(worker, args.ep, args)


if __name__ == "__main__":
    main()
