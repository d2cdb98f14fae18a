#!/usr/bin/env python3
"""Benchmark driver of the MoE layer (DESIGN.md section 7, floors of ANCHORS.md).

One process per GPU (EP ranks on cuda:0..R-1). For each (shape, tokens per
rank, routing, schedule): median over >= 20 timed calls, each after an L2
flush and a cross-rank barrier (per call the slowest rank's time counts),
TFLOPS = 6 * recv * H * I / t (recv = mean received (token, slot) rows per
rank), HBM and NVLink GB/s, the floor max(FLOPs / GEMM peak, bytes / HBM BW,
remote bytes / NVLink BW) with the ceilings re-measured in the same run, and
time / floor. With --check every row's output is compared with the FP32
oracle (relative L2 error, worst rank).

  python3 bench/moe_bench.py --shapes V4-Flash,V4-Pro --tokens 8,512,8192 --ep 1,2 \
      --check --results bench/RESULTS.md
"""

import argparse
import datetime
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from megamoe_testing import dist_launch  # noqa: E402
from megamoe_testing.baseline_torch import probe_scaled_mm  # noqa: E402
from megamoe_testing.fp8 import E4M3  # noqa: E402
from megamoe_testing.generators import ExpertSource, local_weights, make_tokens  # noqa: E402
from megamoe_testing.oracle import moe_oracle, relative_l2  # noqa: E402
from megamoe_testing.shapes import SHAPES, TOKENS_PER_RANK  # noqa: E402
from schedules import SCHEDULES, Case  # noqa: E402

FLUSH_BYTES = 512 << 20  # > 8x the 60 MiB L2


# ---------------------------------------------------------------- ceilings
def _median_ms(fn, iters=10, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def measure_ceilings(rank, world, out_path):
    dev = torch.device("cuda", 0)
    res = {"gpu": torch.cuda.get_device_name(dev), "gpus": torch.cuda.device_count(),
           "torch": torch.__version__, "cuda": torch.version.cuda}
    n = 2 << 30  # 2 GiB copy: bytes read + written
    a = torch.empty(n, dtype=torch.uint8, device=dev)
    a.random_(0, 255)
    b = torch.empty_like(a)
    res["hbm_GBps"] = 2 * n / (_median_ms(lambda: b.copy_(a)) * 1e-3) / 1e9
    del a, b
    m = k = nn = 8192
    x = torch.randn(m, k, device=dev).to(E4M3)
    w = torch.randn(nn, k, device=dev).to(E4M3)
    sx = (torch.rand(k // 128, m, device=dev) + 0.5).t()
    sw = torch.rand(nn // 128, k // 128, device=dev) + 0.5
    ms = _median_ms(lambda: torch._scaled_mm(x, w.t(), scale_a=sx, scale_b=sw.t(), out_dtype=torch.bfloat16))
    res["gemm_TFLOPS"] = 2 * m * k * nn / (ms * 1e-3) / 1e12
    res["gemm_what"] = "torch._scaled_mm 8192^3 e4m3, 1x128 x 128x128 FP32 scales, bf16 out"
    del x, w
    if torch.cuda.device_count() >= 2:
        src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda:1")
        src.random_(0, 255)
        dst = torch.empty(1 << 30, dtype=torch.uint8, device=dev)

        def peer():
            dst.copy_(src)

        for _ in range(3):
            peer()
        torch.cuda.synchronize(0), torch.cuda.synchronize(1)
        t0 = time.perf_counter()
        reps = 10
        for _ in range(reps):
            peer()
        torch.cuda.synchronize(0), torch.cuda.synchronize(1)
        res["nvlink_GBps"] = reps * src.numel() / (time.perf_counter() - t0) / 1e9
        res["nvlink_what"] = "1 GiB cuda:1 -> cuda:0 copy_ (one direction)"
    with open(out_path, "w") as f:
        json.dump(res, f)


# ---------------------------------------------------------------- timing
def time_calls(fn, iters, warmup, flush, tiny):
    world = dist_launch.world_size()
    pairs = []
    for it in range(warmup + iters):
        flush.zero_()
        if world > 1:
            dist.all_reduce(tiny)  # cross-rank barrier on the stream
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        if it >= warmup:
            pairs.append((s, e))
    torch.cuda.synchronize()
    mine = [s.elapsed_time(e) for s, e in pairs]
    per_rank = dist_launch.gather_objects(mine)
    slowest = [max(r[i] for r in per_rank) for i in range(iters)]
    return statistics.median(slowest), statistics.median(mine)


def layer_bytes(shape, tokens, plan):
    """Fewest HBM bytes of one rank (touched weights + x, scales, routing, y)
    and NVLink bytes (max of the two directions)."""
    h, i, k = shape.hidden, shape.intermediate, shape.topk
    expert = 3 * h * i + 4 * (2 * i // 128 * h // 128 + h // 128 * i // 128)
    hbm = plan.experts_touched * expert + tokens * (h + 4 * h // 128 + 12 * k + 2 * h)
    row_in = h + 4 * h // 128 + 4  # FP8 row + scales + router weight
    recv_side = plan.recv_remote * row_in + plan.sent_remote * 2 * h
    send_side = plan.sent_remote * row_in + plan.recv_remote * 2 * h
    return hbm, max(recv_side, send_side)


# ---------------------------------------------------------------- worker
def register_plugins(plugins):
    for plug in plugins:
        mod, fn = plug.split(":")
        getattr(importlib.import_module(mod), fn)(SCHEDULES)


def bench_worker(rank, world, args, out_path):
    register_plugins(args.plugin)  # spawned processes start from a fresh import
    dev = torch.device("cuda", rank)
    group = dist_launch.group()
    support = probe_scaled_mm(dev)
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=dev)
    tiny = torch.zeros(1, device=dev)
    rows = []
    for shape_name in args.shapes.split(","):
        shape = SHAPES[shape_name]
        try:
            weights = local_weights(shape, rank, world, args.seed, dev)
        except Exception as exc:  # noqa: BLE001
            rows.append({"shape": shape_name, "ep": world, "error": f"weights: {exc}"})
            continue
        for tok in [int(t) for t in args.tokens.split(",")]:
            for routing in args.routing.split(","):
                tokens = make_tokens(shape, tok, rank, args.seed + tok, dev, routing)
                case = Case(shape, rank, world, group, weights, tokens, args.clamp, support)
                ref = None
                if args.check and tok <= args.check_max_tokens:
                    ref = moe_oracle(shape, tokens, ExpertSource(shape, args.seed, dev, weights), args.clamp)
                for sched_name in args.schedules.split(","):
                    row = {"shape": shape_name, "ep": world, "tokens": tok, "routing": routing,
                           "schedule": sched_name}
                    try:
                        sched = SCHEDULES[sched_name](case)
                        sched.prepare()
                        y = sched()
                        torch.cuda.synchronize()
                        err = relative_l2(y, ref) if ref is not None else None
                        t_max, t_mine = time_calls(sched, args.iters, args.warmup, flush, tiny)
                        plan = sched.model.plan(tokens.topk_idx) if not hasattr(sched, "plan") else sched.plan
                        hbm, nvl = layer_bytes(shape, tok, plan)
                        stats = {"recv": plan.recv, "hbm": hbm, "nvl": nvl, "err": err,
                                 "touched": plan.experts_touched, "note": sched.note}
                        row.update(time_ms=t_max, time_ms_rank0=t_mine)
                        del sched, y
                    except Exception as exc:  # noqa: BLE001 - the table shows it
                        stats = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
                        traceback.print_exc()
                    all_stats = dist_launch.gather_objects(stats)
                    errors = [s["error"] for s in all_stats if "error" in s]
                    if errors:
                        row["error"] = errors[0]
                    else:
                        row["ranks"] = all_stats
                    rows.append(row)
                    if rank == 0:
                        print(json.dumps(row), flush=True)
                    torch.cuda.empty_cache()
                del tokens, case, ref
        del weights
        torch.cuda.empty_cache()
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"support": support.__dict__, "rows": rows}, f)


# ---------------------------------------------------------------- table
def finish_row(row, ceil):
    shape = SHAPES[row["shape"]]
    h, i = shape.hidden, shape.intermediate
    ranks = row["ranks"]
    t = row["time_ms"] * 1e-3
    recv_mean = sum(r["recv"] for r in ranks) / len(ranks)
    floors = []
    for r in ranks:
        terms = {"tensor": 6 * r["recv"] * h * i / (ceil["gemm_TFLOPS"] * 1e12),
                 "HBM": r["hbm"] / (ceil["hbm_GBps"] * 1e9)}
        if r["nvl"]:
            terms["NVLink"] = r["nvl"] / (ceil.get("nvlink_GBps", float("nan")) * 1e9)
        floors.append(max(terms.items(), key=lambda kv: kv[1]))
    bound, floor = max(floors, key=lambda kv: kv[1])
    errs = [r["err"] for r in ranks if r["err"] is not None]
    row.update(recv=recv_mean, tflops=6 * recv_mean * h * i / t / 1e12,
               hbm_GBps=max(r["hbm"] for r in ranks) / t / 1e9,
               nvl_GBps=max(r["nvl"] for r in ranks) / t / 1e9,
               floor_us=floor * 1e6, bound=bound, ratio=t / floor,
               err=max(errs) if errs else None,
               touched=max(r["touched"] for r in ranks),
               note="; ".join(sorted({r["note"] for r in ranks if r["note"]})))
    return row


def table(rows):
    head = ("| shape | EP | tok/rank | routing | schedule | recv/rank | experts touched | time (us) | TFLOPS "
            "| HBM GB/s | NVLink GB/s | floor (us) | bound | time/floor | rel err vs oracle |")
    out = [head, "|" + " --- |" * 15]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['shape']} | {r['ep']} | {r.get('tokens', '')} | {r.get('routing', '')} | "
                       f"{r.get('schedule', '')} | failed: {r['error']} |" + " |" * 9)
            continue
        err = "-" if r["err"] is None else f"{r['err']:.2e}"
        note = f" ({r['note']})" if r["note"] else ""
        out.append(f"| {r['shape']} | {r['ep']} | {r['tokens']} | {r['routing']} | {r['schedule']}{note} | "
                   f"{r['recv']:.0f} | {r['touched']} | {r['time_ms'] * 1e3:.1f} | {r['tflops']:.1f} | "
                   f"{r['hbm_GBps']:.0f} | {r['nvl_GBps']:.1f} | {r['floor_us']:.1f} | {r['bound']} | "
                   f"{r['ratio']:.2f} | {err} |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", default="V4-Flash,V4-Pro", help=f"comma list of {','.join(SHAPES)}")
    p.add_argument("--tokens", default=",".join(map(str, TOKENS_PER_RANK)), help="tokens per rank, comma list")
    p.add_argument("--ep", default="1,2", help="EP sizes (ranks = GPUs), comma list")
    p.add_argument("--routing", default="uniform", help="uniform, hot, masked (comma list)")
    p.add_argument("--schedules", default="torch-eager,torch-graph", help="comma list of " + ",".join(SCHEDULES))
    p.add_argument("--plugin", action="append", default=[], help="module:function that adds schedules")
    p.add_argument("--iters", type=int, default=25)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--clamp", type=float, default=10.0, help="SwiGLU clamp (<= 0: none)")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--check", action="store_true", help="compare every row with the FP32 oracle")
    p.add_argument("--check-max-tokens", type=int, default=8192)
    p.add_argument("--results", help="append the table to this markdown file")
    p.add_argument("--json", help="write all rows and ceilings as JSON here")
    args = p.parse_args()
    if args.iters < 20:
        p.error("--iters must be >= 20")
    if args.clamp <= 0:
        args.clamp = None
    register_plugins(args.plugin)

    tmp = tempfile.mkdtemp(prefix="moe_bench_")
    ceil_path = os.path.join(tmp, "ceilings.json")
    dist_launch.spawn(measure_ceilings, 1, ceil_path)
    with open(ceil_path) as f:
        ceil = json.load(f)
    print("ceilings:", json.dumps(ceil), flush=True)
    rows, support = [], None
    for ep in [int(e) for e in args.ep.split(",")]:
        out_path = os.path.join(tmp, f"ep{ep}.json")
        try:
            dist_launch.spawn(bench_worker, ep, args, out_path)
            with open(out_path) as f:
                res = json.load(f)
            support = res["support"]
            rows += res["rows"]
        except Exception as exc:  # noqa: BLE001
            rows.append({"shape": args.shapes, "ep": ep, "error": f"run failed: {exc}"})
    rows = [finish_row(r, ceil) if "error" not in r else r for r in rows]
    text = table(rows)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    ceil_line = (f"ceilings measured in this run: HBM copy {ceil['hbm_GBps']:.0f} GB/s, block-scaled GEMM "
                 f"{ceil['gemm_TFLOPS']:.0f} TFLOPS ({ceil['gemm_what']}), NVLink "
                 f"{ceil.get('nvlink_GBps', float('nan')):.0f} GB/s ({ceil.get('nvlink_what', 'n/a')})")
    print(ceil_line)
    print("scaled_mm support:", support)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ceilings": ceil, "support": support, "rows": rows, "argv": sys.argv}, f, indent=1)
    if args.results:
        with open(args.results, "a") as f:
            f.write(f"\n## {stamp}: {ceil['gpus']}x {ceil['gpu']}, torch {ceil['torch']} (CUDA {ceil['cuda']})\n\n")
            f.write("Command: `python3 bench/" + " ".join(os.path.basename(a) if i == 0 else a
                                                          for i, a in enumerate(sys.argv)) + "`\n\n")
            f.write(ceil_line + ".\n\n" + text + "\n")


if __name__ == "__main__":
    main()
