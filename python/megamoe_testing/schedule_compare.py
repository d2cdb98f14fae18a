"""Two schedules of one layer, bitwise: the unfused schedule (the reference,
DESIGN.md section 3) and a candidate (split, later fused) compiled for the
same config, run on the same inputs and weights in the one-GPU multi-rank
mode (R = the manifests' rank count, R = 1 included), every rank's y compared
byte for byte.

    python3 -m megamoe_testing.schedule_compare REF_DIR CAND_DIR [--repeat 100]

Scenarios (tokens per rank r of R, T = max tokens):
  full      T on every rank, uniform routing
  uneven    T - 1 on rank 0, T / 2 + r on the others
  zero      0 on rank 0, T on the others
  masked    T, 25% of the slots -1
  hot       T, every token sends one slot to the last expert
  bad_ids   T, expert ids E and -5 in two slots (skipped, counted by
            check_errors, which must agree too)
  small     min(8, T)
  one       1
  t_minus_1 T - 1 on every rank
Then `--repeat` back-to-back calls of the candidate (full) equal to its
first, and with R = 1 a CUDA graph of the candidate's forward replayed
`--repeat` times, every replay equal. Prints one line per check and a summary
line; exit status 0 when every check passed.
"""
import argparse
import sys

import torch

from megamoe_testing.multirank import MultiRankLayer, manifest_in


def scenarios(m):
    R, T = m.ranks, m.max_tokens
    return [
        ("full", [T] * R, "uniform"),
        ("uneven", [T - 1] + [min(T, T // 2 + r) for r in range(1, R)], "uniform"),
        ("zero", [0] + [T] * (R - 1), "uniform"),
        ("masked", [T] * R, "masked"),
        ("hot", [T] * R, "hot"),
        ("bad_ids", [T] * R, "bad_ids"),
        ("small", [min(8, T)] * R, "uniform"),
        ("one", [1] * R, "uniform"),
        ("t_minus_1", [max(T - 1, 0)] * R, "uniform"),
    ]


def inputs_for(m, counts, routing, seed):
    out = []
    for r, n in enumerate(counts):
        t = m.tokens(r, n, routing="uniform" if routing == "bad_ids" else routing,
                     seed=seed + r)
        if routing == "bad_ids" and n > 0:
            t.topk_idx[0, 0] = m.experts
            t.topk_idx[n - 1, m.topk - 1] = -5
        out.append(t)
    # The inputs are made on the current stream; the ranks' forwards copy
    # them on their own streams.
    torch.cuda.synchronize()
    return out


def same(a, b):
    return a.shape == b.shape and torch.equal(a.view(torch.int16), b.view(torch.int16))


# The counters each kernel zeroes itself before it returns (the fused GEMM
# kernel's arrivals and waits, its pool ring's slots, the pulled-row
# arrivals, the K-split tails' counts): all zero after every call, or the
# next call's waits would pass early (docs/FusedSchedule.md).
SELF_CLEANED = ("l2_arrivals", "l2_waits", "pull_arrivals", "pull_waits", "pool_ring_done",
                "split_counts")


def dirty_counters(m):
    """'rank r name: n non-zero' for each self-cleaned counter region of `m` left non-zero."""
    names = {reg["name"] for reg in m.layout["regions"]}
    out = []
    for r in range(m.ranks):
        for name in SELF_CLEANED:
            if name in names:
                nz = int(torch.count_nonzero(m.region(r, name)))
                if nz:
                    out.append("rank %d %s: %d non-zero" % (r, name, nz))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ref")
    ap.add_argument("cand")
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args(argv)
    ref_path, ref_doc = manifest_in(args.ref)
    cand_path, cand_doc = manifest_in(args.cand)
    if ref_doc.get("config") != cand_doc.get("config"):
        print("schedule_compare: the two manifests are for different configs", flush=True)
        return 2
    names = tuple((d.get("layer") or {}).get("schedule") for d in (ref_doc, cand_doc))
    ref = MultiRankLayer(ref_path, ref_doc, device=args.device)
    cand = MultiRankLayer(cand_path, cand_doc, device=args.device)
    failed = 0
    checks = 0

    def report(ok, what):
        nonlocal failed, checks
        checks += 1
        failed += 0 if ok else 1
        print("schedule_compare: %s %s" % ("OK" if ok else "FAILED", what), flush=True)

    for i, (name, counts, routing) in enumerate(scenarios(cand)):
        ins = inputs_for(cand, counts, routing, 100 * i)
        y_ref = ref.forward(ins)
        ref.synchronize()
        y_cand = cand.forward(ins)
        cand.synchronize()
        eq = [same(y_ref[r], y_cand[r]) for r in range(cand.ranks)]
        errs = ([ref.layers[r].check_errors() for r in range(ref.ranks)],
                [cand.layers[r].check_errors() for r in range(cand.ranks)])
        dirty = dirty_counters(cand)
        report(all(eq) and errs[0] == errs[1] and not dirty,
               "%s vs %s R=%d %s tokens %s: y bitwise equal per rank %s, check_errors %s / %s, "
               "counters left %s" % (names[1], names[0], cand.ranks, name, counts, eq, errs[0],
                                     errs[1], dirty or "none"))

    # Back-to-back calls of the candidate: every one equal to the first.
    ins = inputs_for(cand, [cand.max_tokens] * cand.ranks, "uniform", 7)
    first = cand.forward(ins)
    cand.synchronize()
    diffs = 0
    for _ in range(args.repeat):
        ys = cand.forward(ins)
        cand.synchronize()
        diffs += sum(not same(first[r], ys[r]) for r in range(cand.ranks))
    dirty = dirty_counters(cand)
    report(diffs == 0 and not dirty,
           "%s R=%d: %d back-to-back calls, %d outputs differ from the first, counters left %s"
           % (names[1], cand.ranks, args.repeat, diffs, dirty or "none"))

    if cand.ranks == 1:
        layer, s = cand.layers[0], cand.streams[0]
        n = cand.max_tokens
        t = ins[0]
        y = torch.empty((n, cand.hidden), dtype=torch.bfloat16, device=cand.device)
        with torch.cuda.stream(s):
            layer.view("x")[:n].copy_(t.x)
            layer.view("x_sf")[:n].copy_(t.x_sf)
            layer.view("topk_idx")[:n].copy_(t.topk_idx)
            layer.view("topk_weights")[:n].copy_(t.topk_weights)
        s.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            layer.forward(n, *cand.weights[0], y, stream=s)
        bad = 0
        for _ in range(args.repeat):
            y.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            bad += not same(y, first[0])
        report(bad == 0, "%s R=1: CUDA graph replayed %d times, %d replays differ"
               % (names[1], args.repeat, bad))

    ref.close()
    cand.close()
    print("schedule_compare: %s %d of %d checks passed" % (
        "PASS" if failed == 0 else "FAIL", checks - failed, checks), flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
