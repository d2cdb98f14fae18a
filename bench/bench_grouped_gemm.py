"""Benchmark: the generated FP8 block-scaled grouped GEMM vs torch._scaled_mm, same run.

Rows: 8 experts x {64, 512, 4096} rows each; (N, K) in {(4096, 7168), (7168, 2048),
(4096, 4096), (4096, 2048)}. Columns (TFLOPS = 2 * rows * N * K / time):
  megamoe   the generated kernel (BLOCK_M 128 and 64 variants, each timed)
  loop      per-expert torch._scaled_mm (1x128 / 128x128 block scales), 8 calls
  big       one torch._scaled_mm of the same total size ([8*rows, K] x [K, N])
and megamoe as % of big. Every method is captured in a CUDA graph of REPS back-to-back
calls, so launch overhead is not measured; the time is the median over replays.

Usage: python bench/bench_grouped_gemm.py [--out results.md] [--dirs LABEL=DIR,...]
Needs the cubins of scripts/compile-grouped-gemm.sh (MEGAMOE_GEMM_DIR). With --dirs, every
variant directory is timed on the same data in the same run (before/after comparisons): one
column per label and BLOCK_M, % of big for each label's best.
"""

import argparse
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))

from grouped_gemm_ref import (Problem, manifest_path, rel_err,  # noqa: E402
                              scaled_mm_blockwise)
from megamoe.grouped_gemm import GroupedGemm  # noqa: E402

SHAPES = [(4096, 7168), (7168, 2048), (4096, 4096), (4096, 2048)]
ROWS = [64, 512, 4096]
EXPERTS = 8


def time_graph(fn, reps, replays=10):
    """Median seconds per call of fn, from a CUDA graph of `reps` calls."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()  # warm-up outside capture (module load, descriptor encoding, cuBLAS handles)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    g.replay()
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) / 1e3 / reps)
    return statistics.median(times)


def load_deepgemm():
    """DeepGEMM's m_grouped_fp8_gemm_nt_contiguous when importable (the anchor build), else
    None (the side-by-side scripts then leave its column empty)."""
    try:
        import deep_gemm
        return deep_gemm.m_grouped_fp8_gemm_nt_contiguous
    except Exception as exc:  # noqa
        print("deep_gemm unavailable:", exc, flush=True)
        return None


def deepgemm_call(dg, p, rows):
    """A callable that runs DeepGEMM's contiguous grouped GEMM (`dg`, from load_deepgemm) on
    Problem `p` (every expert `rows` rows) into an output of its own: the per-row expert ids,
    the transposed activation scales."""
    m_total, offs = p.layout.m_total, p.layout.offsets
    gl = torch.empty(m_total, dtype=torch.int32, device="cuda")
    for e in range(p.b.shape[0]):
        gl[offs[e]: offs[e] + rows] = e
    sfa = p.a_scales.t()
    d = torch.empty(m_total, p.n, dtype=torch.bfloat16, device="cuda")
    return lambda: dg((p.a, sfa), (p.b, p.b_scales), d, gl)


def col(key):
    """Column name of a variant: bm128, or label:bm128 with --dirs."""
    return f"bm{key}" if isinstance(key, int) else f"{key[0]}:bm{key[1]}"


def bench_shape(n, k, rows, variants):
    flops = 2.0 * EXPERTS * rows * n * k
    res = {}
    reps = 20 if rows >= 4096 else 50
    # Torch: per-expert loop and one big GEMM on the same data.
    p = Problem([rows] * EXPERTS, n, k, 128, seed=rows + n + k)
    offs = p.layout.offsets

    def loop():
        for e in range(EXPERTS):
            r = slice(offs[e], offs[e] + rows)
            scaled_mm_blockwise(p.a[r], p.a_scales[:, r], p.b[e], p.b_scales[e])

    res["loop"] = time_graph(loop, reps)
    big_b = p.b[0].clone()  # [N, K]: one weight of the same size per row block of the big GEMM
    big_bs = p.b_scales[0].clone()
    res["big"] = time_graph(lambda: scaled_mm_blockwise(p.a, p.a_scales, big_b, big_bs), reps)
    check = {}
    for key, gg in variants.items():
        bm = key if isinstance(key, int) else key[1]
        q = p if bm == 128 else Problem([rows] * EXPERTS, n, k, bm, seed=rows + n + k)
        out = torch.empty(q.layout.m_total, n, dtype=torch.bfloat16, device="cuda")
        res[col(key)] = time_graph(lambda: gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out), reps)
        # spot check of the timed output against torch on expert 0 (full check: the tests)
        r = slice(q.layout.offsets[0], q.layout.offsets[0] + rows)
        check[key] = rel_err(out[r], scaled_mm_blockwise(q.a[r], q.a_scales[:, r], q.b[0], q.b_scales[0]))
    return {key: flops / t / 1e12 for key, t in res.items()}, {key: t for key, t in res.items()}, check


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None, help="append the markdown table to this file")
    ap.add_argument("--shapes", default=None, help="subset, e.g. 4096x7168,4096x2048")
    ap.add_argument("--rows", default=None, help="subset, e.g. 4096")
    ap.add_argument("--dirs", default=None, help="LABEL=DIR,...: compare cubin directories side by side")
    args = ap.parse_args()
    if args.dirs:
        return main_dirs(args)
    shapes = SHAPES if not args.shapes else [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    rows_list = ROWS if not args.rows else [int(r) for r in args.rows.split(",")]
    dev = torch.cuda.get_device_name()
    lines = [f"| experts x rows | N | K | megamoe BM128 | megamoe BM64 | torch loop | torch big GEMM "
             f"| best megamoe % of big | max rel diff vs torch |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (n, k) in shapes:
        variants = {}
        for bm in (128, 64):
            path = manifest_path(n, k, bm)
            if os.path.exists(path):
                variants[bm] = GroupedGemm(path)
            else:
                print(f"missing {path}; that column is empty", file=sys.stderr)
        for rows in rows_list:
            tf, _, check = bench_shape(n, k, rows, variants)
            best = max([tf[f"bm{bm}"] for bm in variants] or [0.0])
            cell = lambda key: f"{tf[key]:.0f}" if key in tf else "-"  # noqa: E731
            lines.append(f"| {EXPERTS} x {rows} | {n} | {k} | {cell('bm128')} | {cell('bm64')} | "
                         f"{cell('loop')} | {cell('big')} | {100 * best / tf['big']:.0f}% | "
                         f"{max(check.values()) if check else float('nan'):.1e} |")
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(f"\nGPU: {dev}; torch {torch.__version__}; TFLOPS (dense FP8, 2*M*N*K / median time)\n")
    print(table)
    if args.out:
        with open(args.out, "a") as f:
            f.write(f"\nGPU: {dev}; torch {torch.__version__}\n\n{table}\n")


def main_dirs(args):
    """Side-by-side table of several cubin directories (same data, same run)."""
    dirs = [d.split("=", 1) for d in args.dirs.split(",")]
    shapes = SHAPES if not args.shapes else [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    rows_list = ROWS if not args.rows else [int(r) for r in args.rows.split(",")]
    keys = [(label, bm) for label, _ in dirs for bm in (128, 64)]
    lines = ["| experts x rows | N | K | " + " | ".join(col(k) for k in keys) + " | torch loop | torch big | "
             + " | ".join(f"{label} % of big" for label, _ in dirs) + " | max rel diff vs torch |",
             "|---" * (3 + len(keys) + 2 + len(dirs) + 1) + "|"]
    for (n, k) in shapes:
        variants = {}
        for label, d in dirs:
            for bm in (128, 64):
                path = os.path.join(d, f"gg_e8_n{n}_k{k}_m32768_bm{bm}", "grouped_gemm.json")
                if os.path.exists(path):
                    variants[(label, bm)] = GroupedGemm(path)
        for rows in rows_list:
            tf, _, check = bench_shape(n, k, rows, variants)
            cell = lambda key: f"{tf[key]:.0f}" if key in tf else "-"  # noqa: E731
            pct = []
            for label, _ in dirs:
                best = max([tf[col(key)] for key in variants if key[0] == label] or [0.0])
                pct.append(f"{100 * best / tf['big']:.0f}%")
            lines.append(f"| {EXPERTS} x {rows} | {n} | {k} | " + " | ".join(cell(col(key)) for key in keys)
                         + f" | {cell('loop')} | {cell('big')} | " + " | ".join(pct)
                         + f" | {max(check.values()) if check else float('nan'):.1e} |")
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(f"\nGPU: {torch.cuda.get_device_name()}; torch {torch.__version__}; TFLOPS\n")
    print(table)
    if args.out:
        with open(args.out, "a") as f:
            f.write(f"\n{table}\n")


if __name__ == "__main__":
    main()
