"""Grouped FP8 block-scaled GEMM side by side in one process on one H200 (adapted from
.anchor/deepgemm/grouped_gemm_side_by_side.py): megamoe BM128, BM64 and cluster-2 BM128
(each its own column), DeepGEMM m_grouped_fp8_gemm_nt_contiguous, torch big GEMM.
Same data for all; TFLOPS = 2*M*N*K/t; c2==bm128 says whether the cluster-2 output is
bitwise equal to the BM128 one on that row's data.
"""
import argparse, os, statistics, sys
import torch


def time_graph(fn, reps=20, replays=10):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    g.replay(); torch.cuda.synchronize()
    ts = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3 / reps)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--shapes", default="4096x7168,7168x2048,4096x4096,4096x2048")
    ap.add_argument("--rows", default="4096,512")
    args = ap.parse_args()
    from grouped_gemm_ref import Problem, scaled_mm_blockwise, rel_err
    from megamoe.grouped_gemm import GroupedGemm
    try:
        import deep_gemm
        dg = deep_gemm.m_grouped_fp8_gemm_nt_contiguous
    except Exception as exc:  # noqa
        print("deep_gemm unavailable:", exc, flush=True)
        dg = None
    E = 8
    print("| 8 x rows | N x K | BM128 | BM64 | cluster-2 BM128 | DeepGEMM | torch big | c2 / best old | c2 / DeepGEMM | c2==bm128 |", flush=True)
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|", flush=True)
    for shp in args.shapes.split(","):
        n, k = (int(v) for v in shp.split("x"))
        for rows in (int(r) for r in args.rows.split(",")):
            flops = 2.0 * E * rows * n * k
            reps = 20 if rows >= 4096 else 50
            p = Problem([rows] * E, n, k, 128, seed=rows + n + k)
            offs = p.layout.offsets
            res = {}
            bb, bs = p.b[0].clone(), p.b_scales[0].clone()
            res["big"] = time_graph(lambda: scaled_mm_blockwise(p.a, p.a_scales, bb, bs), reps)
            outs = {}
            for name, bm, sfx in (("bm128", 128, ""), ("bm64", 64, ""), ("c2", 128, "_c2")):
                path = os.path.join(args.cubins, f"gg_e8_n{n}_k{k}_m32768_bm{bm}{sfx}", "grouped_gemm.json")
                if not os.path.exists(path):
                    continue
                gg = GroupedGemm(path)
                q = p if bm == 128 else Problem([rows] * E, n, k, bm, seed=rows + n + k)
                out = torch.empty(q.layout.m_total, n, dtype=torch.bfloat16, device="cuda")
                res[name] = time_graph(lambda: gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out), reps)
                outs[name] = out
            same = "-"
            if "c2" in outs and "bm128" in outs:
                same = "yes" if torch.equal(outs["c2"], outs["bm128"]) else "NO"
            if dg is not None:
                try:
                    m_total = p.layout.m_total
                    gl = torch.empty(m_total, dtype=torch.int32, device="cuda")
                    for e in range(E):
                        gl[offs[e]: offs[e] + rows] = e
                    sfa = p.a_scales.t()
                    d = torch.empty(m_total, n, dtype=torch.bfloat16, device="cuda")
                    res["dg"] = time_graph(lambda: dg((p.a, sfa), (p.b, p.b_scales), d, gl), reps)
                except Exception as exc:  # noqa
                    print(f"  deep_gemm failed at {n}x{k} rows {rows}: {str(exc)[:300]}", flush=True)
            tf = {key: flops / t / 1e12 for key, t in res.items() if t}
            f = lambda key: f"{tf[key]:.0f}" if key in tf else "-"  # noqa
            old = max((tf[x] for x in ("bm128", "bm64") if x in tf), default=None)
            r1 = f"{tf['c2'] / old:.3f}" if old and "c2" in tf else "-"
            r2 = f"{tf['c2'] / tf['dg']:.3f}" if "c2" in tf and "dg" in tf else "-"
            print(f"| {rows} | {n} x {k} | {f('bm128')} | {f('bm64')} | {f('c2')} | {f('dg')} | {f('big')} | "
                  f"{r1} | {r2} | {same} |", flush=True)


if __name__ == "__main__":
    main()
