"""Drives ONE grouped GEMM kernel three times on 8 experts x ROWS rows (same data as the
side-by-side benchmarks) for Nsight Compute to profile the third call:
  ncu --clock-control none --launch-skip 2 --launch-count 1 -k regex:<kernel> ... \
      python3 ncu_one_grouped_gemm.py --manifest DIR/grouped_gemm.json   (a megamoe cubin)
      python3 ncu_one_grouped_gemm.py --deepgemm                        (the anchor's)
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest")
    ap.add_argument("--deepgemm", action="store_true")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=7168)
    ap.add_argument("--rows", type=int, default=4096)
    args = ap.parse_args()
    from grouped_gemm_ref import Problem
    E = 8
    p = Problem([args.rows] * E, args.n, args.k, 128, seed=args.rows + args.n + args.k)
    if args.deepgemm:
        from bench_grouped_gemm import deepgemm_call, load_deepgemm
        call = deepgemm_call(load_deepgemm(), p, args.rows)
    else:
        from megamoe.grouped_gemm import GroupedGemm
        gg = GroupedGemm(args.manifest)
        out = torch.empty(p.layout.m_total, args.n, dtype=torch.bfloat16, device="cuda")
        call = lambda: gg(p.a, p.a_scales, p.b, p.b_scales, p.layout, out)  # noqa: E731
    for _ in range(3):
        call()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
