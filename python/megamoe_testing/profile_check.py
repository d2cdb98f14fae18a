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
from megamoe_testing.profile_counts import expected_counts  # noqa: F401
from megamoe_testing.schedule_compare import same  # noqa: F401


# The layer's regions in dataflow order: the first that differs between two
# layers run on the same inputs is where they part (workspace counters and
# the inputs' copies first, then each stage's output).
DATAFLOW_REGIONS = ("x", "x_sf", "topk_idx", "topk_weights", "send_count", "recv_count",
                    "src_token_index", "pool_row_start", "pool_block_expert", "pool_block_row",
                    "pool_info", "l1_pool", "l1_pool_sf", "l1_pool_weight", "pool_source",
                    "l1_out", "l2_pool", "l2_pool_sf", "combine")


def differing_regions(a, b):
    """Lines naming each region (in dataflow order) whose bytes differ between
    rank 0 of layers a and b, with the count and the first differing byte
    offsets. Rows past pool_info[1] (the pool's unused tail) are compared too:
    a difference there alone is stale data, not a wrong result."""
    names = {r["name"] for r in a.layout["regions"]} & {r["name"] for r in b.layout["regions"]}
    lines = []
    for name in DATAFLOW_REGIONS:
        if name not in names:
            continue
        ra, rb = a.region(0, name, torch.uint8), b.region(0, name, torch.uint8)
        if ra.numel() != rb.numel():
            lines.append("region %s: sizes differ (%d, %d bytes)" % (name, ra.numel(), rb.numel()))
            continue
        where = (ra != rb).nonzero().flatten()
        if where.numel():
            lines.append("region %s: %d of %d bytes differ, first at %s"
                         % (name, where.numel(), ra.numel(), where[:4].tolist()))
    return lines or ["no region differs (only y)"]


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
    if not same(y0, y1):
        for line in differing_regions(plain, cand):
            print("profile_check: %s: %s" % (args.name, line), flush=True)
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
    # Half blocks: bit 31 of an m-block's pool_block_row entry (moe_layout).
    half = 0
    if variant.get("expert_align", block_m) < block_m:
        rows = cand.region(0, "pool_block_row")[:m_blocks]
        half = int((rows < 0).sum().item())
    # Expert blocks (the L2 GEMM's, l2_expert_blocks): pool_info[2] of them, bits 30-31 of
    # each pool_expert_block entry its 64-row units less one.
    expert_blocks = None
    if variant.get("l2_expert_blocks"):
        count = int(cand.region(0, "pool_info")[2].item())
        entries = cand.region(0, "pool_expert_block")[:count].to(torch.int64) & 0xFFFFFFFF
        expert_blocks = (count, int(((entries >> 30) + 1 > 2).sum().item()))
    count_problems = expected_counts(prof, prof_doc, schedule, variant, m_blocks, ctas, half,
                                     expert_blocks)
    report(not count_problems, "%s: BLOCK_M %d, %d m-blocks (%d half), intervals per role = "
           "tiles computed%s" % (args.name, block_m, m_blocks, half,
                           (": " + "; ".join(count_problems[:6])) if count_problems else ""))
    full = [f for f in prof.full if not f.endswith(" cta")]
    report(not full, "%s: no GEMM slice full (%d)" % (args.name, len(full)))
    print(mp.table(prof), flush=True)
    with open(os.path.join(args.out, args.name + ".bin"), "wb") as f:
        f.write(data)
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
