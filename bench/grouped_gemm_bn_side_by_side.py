"""Grouped FP8 block-scaled GEMM tile variants side by side in one process on one H200:
megamoe's BLOCK_M x BLOCK_N 128x128, 64x128, 128x256 and 64x256 cubins (one column each),
DeepGEMM's m_grouped_fp8_gemm_nt_contiguous (when importable) and one big torch._scaled_mm.
Same data for all (the project's test Problem); 8 experts x ROWS rows; TFLOPS = 2*M*N*K/t.
Each BLOCK_N 256 output is also compared bitwise with the BLOCK_N 128 one of the same BLOCK_M
(same K-block order and promotion per element, so they must be equal).

  PYTHONPATH=<bundle>/python:<bundle>/python/tests[:/tmp/dg_anchor] \
      python3 grouped_gemm_bn_side_by_side.py --cubins DIR
(the timing helper is bench/bench_grouped_gemm.py's: CUDA graph of back-to-back calls, median)
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_grouped_gemm import deepgemm_call, load_deepgemm, time_graph  # noqa: E402

# (column, BLOCK_M, directory suffix); a variant whose directory is missing is skipped (the
# 128x256p2 column: an experiment, 4 stages with a 32 KiB output tile stored in 2 passes,
# compiled with a shared-memory model without its 2 KiB reserve).
VARIANTS = [("128x128", 128, ""), ("64x128", 64, ""), ("128x256", 128, "_bn256"),
            ("64x256", 64, "_bn256"), ("128x256p2", 128, "_bn256p2")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--shapes", default="4096x7168,7168x2048,4096x4096,4096x2048")
    ap.add_argument("--rows", default="4096,512")
    args = ap.parse_args()
    from grouped_gemm_ref import Problem, scaled_mm_blockwise, rel_err
    from megamoe.grouped_gemm import GroupedGemm
    dg = load_deepgemm()
    E = 8
    names = [v[0] for v in VARIANTS]
    print("| 8 x rows | N | K | " + " | ".join(names) + " | DeepGEMM | torch big | 128x256/128x128 "
          "| best BN256 / best BN128 | best megamoe/DeepGEMM | BN256 == BN128 |", flush=True)
    print("|---" * (len(names) + 9) + "|", flush=True)
    for shp in args.shapes.split(","):
        n, k = (int(v) for v in shp.split("x"))
        for rows in (int(r) for r in args.rows.split(",")):
            flops = 2.0 * E * rows * n * k
            reps = 20 if rows >= 4096 else 50
            probs = {bm: Problem([rows] * E, n, k, bm, seed=rows + n + k) for bm in (128, 64)}
            p = probs[128]
            res, outs = {}, {}
            bb, bs = p.b[0].clone(), p.b_scales[0].clone()
            res["big"] = time_graph(lambda: scaled_mm_blockwise(p.a, p.a_scales, bb, bs), reps)
            for name, bm, suffix in VARIANTS:
                path = os.path.join(args.cubins, f"gg_e8_n{n}_k{k}_m32768_bm{bm}{suffix}",
                                    "grouped_gemm.json")
                if not os.path.exists(path):
                    continue
                gg = GroupedGemm(path)
                q = probs[bm]
                out = torch.full((q.layout.m_total, n), float("nan"), dtype=torch.bfloat16,
                                 device="cuda")
                gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out)
                torch.cuda.synchronize()
                outs[name] = out.clone()
                res[name] = time_graph(lambda: gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out),
                                       reps)
            same = []
            for wide, narrow in (("128x256", "128x128"), ("64x256", "64x128"),
                                 ("128x256p2", "128x128")):
                if wide in outs and narrow in outs:
                    v = probs[128 if wide.startswith("128") else 64].valid
                    same.append("yes" if torch.equal(outs[wide][v], outs[narrow][v]) else "NO")
            if dg is not None:
                try:
                    call = deepgemm_call(dg, p, rows)
                    call()
                    res["dg"] = time_graph(call, reps)
                except Exception as exc:  # noqa
                    print(f"  deep_gemm failed at {n}x{k} rows {rows}: {str(exc)[:300]}", flush=True)
            tf = {key: flops / t / 1e12 for key, t in res.items() if t}
            f = lambda key: f"{tf[key]:.0f}" if key in tf else "-"  # noqa
            def ratio(a, b):
                return f"{tf[a] / tf[b]:.3f}" if a in tf and b in tf else "-"
            def best(keys):
                vals = [tf[x] for x in keys if x in tf]
                return max(vals) if vals else None
            b256, b128 = best(["128x256", "64x256"]), best(["128x128", "64x128"])  # as built
            ball = best(names)
            r1 = f"{b256 / b128:.3f}" if b256 and b128 else "-"
            r2 = f"{ball / tf['dg']:.3f}" if ball and "dg" in tf else "-"
            print(f"| 8 x {rows} | {n} | {k} | " + " | ".join(f(x) for x in names)
                  + f" | {f('dg')} | {f('big')} | {ratio('128x256', '128x128')} | {r1} | {r2} | "
                  + ",".join(same) + " |", flush=True)


if __name__ == "__main__":
    main()
