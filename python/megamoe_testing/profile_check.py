"""The phase profile on the GPU (docs/Profile.md): a layer compiled without
and with megamoe-expand profile=true, run on the same inputs (EP1, one call
of `--tokens` tokens, uniform routing): y bitwise equal, then the profiled
call's buffer decoded (megamoe.profile): no slice whose time goes back or
whose phases do not pair, and per GEMM kernel as many intervals per role and
phase as the call computed tiles (pool_info[0] m-blocks x tiles per m-block;
a math role either computes every tile or none), a CTA interval per stage
kernel CTA. Also the two layers timed call by call (interleaved), the
profile's cost. Writes OUT/NAME.png and prints the table.

    python3 -m megamoe_testing.profile_check PLAIN_DIR PROFILED_DIR \
        --tokens 64 --out OUT --name s_ep1
"""
import argparse
import os
import sys
import time

import torch

from megamoe import profile as mp
from megamoe_testing.multirank import MultiRankLayer, manifest_in


def same(a, b):
    return a.shape == b.shape and torch.equal(a.view(torch.int16), b.view(torch.int16))


def tiles_per_m_block(doc, kernel, variant):
    """Tiles of one m-block in `kernel` (its base name) of the plan variant."""
    cfg = doc["config"]
    h, i = cfg["hidden"], cfg["intermediate"]
    if kernel.startswith("moe_l1_swiglu"):
        return 2 * i // variant["l1_block_n"] // 2
    if kernel.startswith("moe_l1_gemm"):
        return 2 * i // variant["l1_block_n"]
    if kernel.startswith("moe_l2_gemm"):
        return h // variant["l2_block_n"]
    return None


def expected_counts(prof, doc, schedule, variant, m_blocks, ctas_of):
    """{(kernel, role, phase): n} and the problems of the roles' counts."""
    problems = []
    got = {}
    for iv in prof.intervals:
        key = (iv.kernel, iv.role, iv.phase)
        got[key] = got.get(key, 0) + 1
    for kernel in schedule:
        tiles = tiles_per_m_block(doc, kernel, variant)
        if tiles is None:  # a stage kernel: one CTA interval per CTA
            n = got.get((kernel, "cta", "cta"), 0)
            if n == 0 or n != ctas_of(kernel):
                problems.append("%s: %d CTA intervals, %d CTAs recorded" %
                                (kernel, n, ctas_of(kernel)))
            continue
        total = m_blocks * tiles
        l2 = kernel.startswith("moe_l2")
        main, epi = ("l2_mainloop", "l2_epilogue") if l2 else ("l1_mainloop", "l1_epilogue")
        want = {(kernel, "tma", main): total, (kernel, "math0", main): total,
                (kernel, "math0", epi): total}
        m1 = got.get((kernel, "math1", main), 0)
        if m1:  # math1 computes every tile or none
            want[(kernel, "math1", main)] = total
            want[(kernel, "math1", epi)] = total
        for k, n in sorted(want.items()):
            if got.get(k, 0) != n:
                problems.append("%s %s %s: %d intervals, expected %d tiles" %
                                (k + (got.get(k, 0), n)))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("plain")
    ap.add_argument("profiled")
    ap.add_argument("--tokens", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args(argv)
    plain_path, plain_doc = manifest_in(args.plain)
    prof_path, prof_doc = manifest_in(args.profiled)
    plain = MultiRankLayer(plain_path, plain_doc)
    cand = MultiRankLayer(prof_path, prof_doc)
    failed = 0

    def report(ok, what):
        nonlocal failed
        failed += 0 if ok else 1
        print("profile_check: %s %s" % ("OK" if ok else "FAILED", what), flush=True)

    n = args.tokens
    ins = [cand.tokens(0, n, seed=11)]
    torch.cuda.synchronize()
    y0 = plain.forward(ins)[0]
    plain.synchronize()
    y1 = cand.forward(ins)[0]
    cand.synchronize()
    report(same(y0, y1), "%s: y of the profiled layer bitwise equal to the plain one "
           "(%d tokens)" % (args.name, n))
    data = cand.layers[0].read_profile()
    m_blocks = int(cand.region(0, "pool_info")[0].item())
    index, block_m = cand.layers[0].variant_for(n)
    variants = prof_doc.get("variants")
    schedule = variants[index]["schedule"] if variants else prof_doc["schedule"]
    variant = prof_doc["plan"]["variants"][index]
    prof = mp.decode(data, prof_doc)
    report(not prof.problems, "%s: %d intervals, %d slice problems%s" % (
        args.name, len(prof.intervals), len(prof.problems),
        (": " + "; ".join(prof.problems[:5])) if prof.problems else ""))
    ctas = lambda k: len(prof.ctas.get(k, ()))  # noqa: E731
    count_problems = expected_counts(prof, prof_doc, schedule, variant, m_blocks, ctas)
    report(not count_problems, "%s: BLOCK_M %d, %d m-blocks, intervals per role = tiles "
           "computed%s" % (args.name, block_m, m_blocks,
                           (": " + "; ".join(count_problems[:6])) if count_problems else ""))
    full = [f for f in prof.full if not f.endswith(" cta")]
    report(not full, "%s: no GEMM slice full (%d)" % (args.name, len(full)))
    print(mp.table(prof), flush=True)
    png = os.path.join(args.out, args.name + ".png")
    w, h = mp.render_png(prof, png)
    print("profile_check: wrote %s (%d x %d, %d bytes)" % (png, w, h, os.path.getsize(png)))

    # The profile's cost: calls interleaved, wall time per call (synchronized).
    times = {"plain": [], "profiled": []}
    for _ in range(args.iters):
        for label, layer in (("plain", plain), ("profiled", cand)):
            torch.cuda.synchronize()
            t = time.perf_counter()
            layer.forward(ins)
            layer.synchronize()
            times[label].append(time.perf_counter() - t)
    med = {k: sorted(v)[len(v) // 2] * 1e6 for k, v in times.items()}
    print("profile_check: %s median call (host-timed, %d calls each): plain %.1f us, "
          "profiled %.1f us, ratio %.3f" % (args.name, args.iters, med["plain"],
                                            med["profiled"], med["profiled"] / med["plain"]))
    # The profiled kernels' own spans (device clock): the sum of the kernel spans.
    plain.close()
    cand.close()
    print("profile_check: %s %s" % (args.name, "PASS" if failed == 0 else "FAIL"), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
