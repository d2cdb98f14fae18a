"""Decode-size grouped FP8 GEMM side by side in one process: 8 experts of a few rows each (1, 8,
16, 32, 64 by default), the BLOCK_M 64 kernel (the layer's decode tiles), the swap-AB kernels
(block-m 32 and 16, folders gg_..._bm<BM>_sw) and DeepGEMM's m_grouped_fp8_gemm_nt_contiguous,
each on the same rows laid out for its BLOCK_M (DeepGEMM: 128-row segments, padding rows -1).

At these sizes the time is the weight stream (8 x N x K bytes of FP8 per call), so each column
is microseconds and the table adds each kernel's weight GB/s. "bitwise" says whether every
swap-AB output equals the BLOCK_M 64 one on the valid rows; "repeat" whether a second call of
each swap-AB kernel gave the same bits.
   python3 bench/grouped_gemm_decode_side_by_side.py --cubins DIR [--shapes 4096x7168,...] [--rows 1,8,16,32,64]
"""
import argparse, os, sys
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_grouped_gemm import load_deepgemm, time_graph  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--shapes", default="4096x7168,7168x2048,4096x4096,4096x2048")
    ap.add_argument("--rows", default="1,8,16,32,64")
    ap.add_argument("--variants", default="sw32:_sw:32,sw16:_sw:16",
                    help="swap-AB columns: name:suffix:block_m,...")
    args = ap.parse_args()
    from grouped_gemm_ref import Problem, relaid
    from megamoe.grouped_gemm import GroupedGemm
    variants = [(v.split(":")[0], v.split(":")[1], int(v.split(":")[2]))
                for v in args.variants.split(",") if v]
    dg = load_deepgemm()
    E = 8
    names = [v[0] for v in variants]
    print("| rows per expert | N x K | BM64 us | " + " | ".join(f"{v} us" for v in names)
          + " | DeepGEMM us | " + " | ".join(f"BM64 / {v}" for v in names)
          + " | " + " | ".join(f"DeepGEMM / {v}" for v in names)
          + " | BM64 GB/s | " + " | ".join(f"{v} GB/s" for v in names) + " | bitwise | repeat |", flush=True)
    print("|---:|---|" + "---:|" * (2 + 4 * len(names) + 1) + "---|---|", flush=True)
    for shp in args.shapes.split(","):
        n, k = (int(v) for v in shp.split("x"))
        weight_bytes = E * n * k
        for rows in (int(r) for r in args.rows.split(",")):
            p = Problem([rows] * E, n, k, 64, seed=rows + n + k)
            res, outs = {}, {}
            for name, sfx, bm in [("bm64", "", 64)] + [(v, x, b) for v, x, b in variants]:
                path = os.path.join(args.cubins, f"gg_e8_n{n}_k{k}_m32768_bm{bm}{sfx}", "grouped_gemm.json")
                if not os.path.exists(path):
                    continue
                gg = GroupedGemm(path)
                q = p if bm == 64 else relaid(p, bm)
                out = torch.full((q.layout.m_total, n), float("nan"), dtype=torch.bfloat16, device="cuda")
                gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out)
                torch.cuda.synchronize()
                first = out[q.valid].clone()
                res[name] = time_graph(lambda: gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out), 50)
                outs[name] = (first, out[q.valid].clone())
            same = "-"
            if "bm64" in outs and any(v in outs for v in names):
                same = "yes" if all(torch.equal(outs[v][0], outs["bm64"][0]) for v in names if v in outs) else "NO"
            repeat = "yes" if all(torch.equal(*outs[v]) for v in names if v in outs) else "NO"
            if dg is not None:
                try:
                    d = relaid(p, 128)
                    gl = torch.full((d.layout.m_total,), -1, dtype=torch.int32, device="cuda")
                    for e, off in enumerate(d.layout.offsets):
                        gl[off: off + rows] = e
                    dd = torch.empty(d.layout.m_total, n, dtype=torch.bfloat16, device="cuda")
                    sfa = d.a_scales.t()
                    res["dg"] = time_graph(lambda: dg((d.a, sfa), (d.b, d.b_scales), dd, gl), 50)
                except Exception as exc:  # noqa
                    print(f"  deep_gemm failed at {n}x{k} rows {rows}: {str(exc)[:300]}", flush=True)
            us = lambda key: f"{res[key] * 1e6:.1f}" if key in res else "-"  # noqa
            gbs = lambda key: f"{weight_bytes / res[key] / 1e9:.0f}" if key in res else "-"  # noqa
            ratio = lambda a, b: f"{res[a] / res[b]:.3f}" if a in res and b in res else "-"  # noqa
            print(f"| {rows} | {n} x {k} | {us('bm64')} | " + " | ".join(us(v) for v in names)
                  + f" | {us('dg')} | " + " | ".join(ratio("bm64", v) for v in names)
                  + " | " + " | ".join(ratio("dg", v) for v in names)
                  + f" | {gbs('bm64')} | " + " | ".join(gbs(v) for v in names) + f" | {same} | {repeat} |",
                  flush=True)


if __name__ == "__main__":
    main()
