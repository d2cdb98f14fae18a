"""Grouped FP8 block-scaled GEMM side by side in one process on one H200 (adapted from
.anchor/deepgemm/grouped_gemm_side_by_side.py): megamoe variants (BM128, BM64 and the
cubins named by --variants, BM128 or another BLOCK_M, each its own column), DeepGEMM
m_grouped_fp8_gemm_nt_contiguous, torch big GEMM. Same data for all; TFLOPS = 2*M*N*K/t;
"bitwise" says whether every cluster variant's output equals the BM128 one on that row's data,
"== torch" whether every BM128-row output equals the per-expert torch._scaled_mm loop's bitwise.
Also prints cuOccupancyMaxActiveClusters of each cluster cubin (ctypes, libcuda).
"""
import argparse, copy, ctypes, json, os, sys
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_grouped_gemm import deepgemm_call, load_deepgemm, time_graph  # noqa: E402


def max_active_clusters(manifest):
    """cuOccupancyMaxActiveClusters for the kernel of `manifest` at its block, SMEM, cluster."""
    m = json.load(open(manifest))
    k = m["kernels"][0]
    cu = ctypes.CDLL("libcuda.so.1")
    torch.cuda.init(); torch.zeros(1, device="cuda")  # a current context
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    path = os.path.join(os.path.dirname(manifest), m["cubin"]).encode()
    assert cu.cuModuleLoad(ctypes.byref(mod), path) == 0
    assert cu.cuModuleGetFunction(ctypes.byref(fn), mod, k["name"].encode()) == 0
    assert cu.cuFuncSetAttribute(fn, 8, ctypes.c_int(k["dynamic_smem_bytes"])) == 0  # MAX_DYNAMIC_SHARED

    class Attr(ctypes.Structure):
        _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int), ("dims", ctypes.c_uint * 16)]

    class Config(ctypes.Structure):
        _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("smem", ctypes.c_uint),
                    ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(Attr)), ("n", ctypes.c_uint)]
    a = Attr(); a.id = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    for i in range(3):
        a.dims[i] = k["cluster"][i]
    c = Config(); c.grid[:] = [132, 1, 1]; c.block[:] = k["block"]; c.smem = k["dynamic_smem_bytes"]
    c.attrs = ctypes.pointer(a); c.n = 1
    n = ctypes.c_int()
    r = cu.cuOccupancyMaxActiveClusters(ctypes.byref(n), fn, ctypes.byref(c))
    return n.value if r == 0 else f"error {r}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--shapes", default="4096x7168,7168x2048,4096x4096,4096x2048")
    ap.add_argument("--rows", default="4096,512")
    ap.add_argument("--variants", default="c2:_c2",
                    help="columns: name:suffix[:block_m],... (cubin folder gg_..._bm<block_m><suffix>, "
                         "block_m 128 unless given; a variant of another BLOCK_M runs on the same "
                         "rows, which the benchmark's row counts fill without padding)")
    args = ap.parse_args()
    variants = []
    for v in (v for v in args.variants.split(",") if v):
        name, sfx, *bm = v.split(":")
        variants.append((name, sfx, int(bm[0]) if bm else 128))
    for name, sfx, bm in variants:
        path = os.path.join(args.cubins, f"gg_e8_n4096_k7168_m32768_bm{bm}{sfx}", "grouped_gemm.json")
        if os.path.exists(path):
            print(f"{name}: cuOccupancyMaxActiveClusters = {max_active_clusters(path)}", flush=True)
    from grouped_gemm_ref import Problem, scaled_mm_blockwise, rel_err
    from megamoe.grouped_gemm import GroupedGemm, contiguous_layout
    dg = load_deepgemm()
    E = 8
    names = [v[0] for v in variants]
    print("| 8 x rows | N x K | BM128 | BM64 | " + " | ".join(names) + " | DeepGEMM | torch big | torch loop | "
          + " | ".join(f"{v} / best old" for v in names) + " | best old / DeepGEMM | "
          + " | ".join(f"{v} / DeepGEMM" for v in names) + " | bitwise | == torch |", flush=True)
    print("|---|---|" + "---:|" * (5 + 3 * len(names) + 1) + "---|---|", flush=True)
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
            # The per-expert torch._scaled_mm loop: timed, and its outputs are
            # what every megamoe output must equal bitwise ("== torch").
            loop_out = [None] * E

            def loop():
                for e in range(E):
                    r = slice(offs[e], offs[e] + rows)
                    loop_out[e] = scaled_mm_blockwise(p.a[r], p.a_scales[:, r], p.b[e], p.b_scales[e])
            loop()
            want = torch.cat(loop_out)
            res["loop"] = time_graph(loop, reps)
            outs = {}
            for name, bm, sfx in [("bm128", 128, ""), ("bm64", 64, "")] + [(v, b, x) for v, x, b in variants]:
                path = os.path.join(args.cubins, f"gg_e8_n{n}_k{k}_m32768_bm{bm}{sfx}", "grouped_gemm.json")
                if not os.path.exists(path):
                    continue
                gg = GroupedGemm(path)
                q = p
                if bm != 128:
                    # The same data in blocks of bm (rows is a multiple of 256: no padding).
                    q = copy.copy(p)
                    q.layout = contiguous_layout([rows] * E, bm, "cuda")
                    assert q.layout.m_total == p.layout.m_total
                out = torch.empty(q.layout.m_total, n, dtype=torch.bfloat16, device="cuda")
                res[name] = time_graph(lambda: gg(q.a, q.a_scales, q.b, q.b_scales, q.layout, out), reps)
                outs[name] = out
            same = "-"
            if "bm128" in outs and any(v in outs for v in names):
                same = "yes" if all(torch.equal(outs[v], outs["bm128"]) for v in names if v in outs) else "NO"
            # Every BLOCK_M 128 output (the data of `p`) against the torch loop.
            eq_torch = "yes" if all(torch.equal(o[p.valid], want) for key, o in outs.items() if key != "bm64") else "NO"
            if dg is not None:
                try:
                    res["dg"] = time_graph(deepgemm_call(dg, p, rows), reps)
                except Exception as exc:  # noqa
                    print(f"  deep_gemm failed at {n}x{k} rows {rows}: {str(exc)[:300]}", flush=True)
            tf = {key: flops / t / 1e12 for key, t in res.items() if t}
            f = lambda key: f"{tf[key]:.0f}" if key in tf else "-"  # noqa
            old = max((tf[x] for x in ("bm128", "bm64") if x in tf), default=None)
            r1 = " | ".join(f"{tf[v] / old:.3f}" if old and v in tf else "-" for v in names)
            r2 = f"{old / tf['dg']:.3f}" if old and "dg" in tf else "-"
            r3 = " | ".join(f"{tf[v] / tf['dg']:.3f}" if v in tf and "dg" in tf else "-" for v in names)
            print(f"| {rows} | {n} x {k} | {f('bm128')} | {f('bm64')} | "
                  + " | ".join(f(v) for v in names) + f" | {f('dg')} | {f('big')} | {f('loop')} | {r1} | {r2} | "
                  + f"{r3} | {same} | {eq_torch} |", flush=True)


if __name__ == "__main__":
    main()
