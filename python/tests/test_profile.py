"""megamoe.profile on a synthetic buffer (no GPU): the decoder pairs begin and
end records per (CTA, role), the table counts them, the PNG is well formed,
and --check catches a slice whose time goes back.

    python3 python/tests/test_profile.py      (prints the lines lit checks)
"""
import os
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from megamoe import profile as mp  # noqa: E402
from megamoe_testing.profile_counts import expected_counts, mainloop_units  # noqa: E402

PHASES = ["cta", "l1_mainloop", "l1_epilogue", "l2_wait", "l2_mainloop",
          "l2_epilogue"]
MAX_CTAS = 4
CAP = 8


def manifest():
    gemm = {"first_record": 0, "capacity": CAP, "roles": ["tma", "math0", "math1"]}
    route = {"first_record": MAX_CTAS * 3 * CAP, "capacity": 2, "roles": ["cta"]}
    records = MAX_CTAS * 3 * CAP + MAX_CTAS * 2
    return {"profile": {"record_bytes": 16, "max_ctas": MAX_CTAS,
                        "bytes": records * 16, "phases": PHASES,
                        "kernels": {"moe_l1_swiglu": gemm, "moe_route": route}}}


def meta(tag, sm, role, phase, end):
    return tag | (sm << 32) | (role << 48) | (((phase << 1) | end) << 56)


def buffer(m, tiles=2, back_in_time=False):
    p = m["profile"]
    data = bytearray(p["bytes"])
    def put(kernel, cta, role, n, t, word):
        k = p["kernels"][kernel]
        rec = k["first_record"] + (cta * len(k["roles"]) + role) * k["capacity"] + n
        struct.pack_into("<QQ", data, rec * 16, t, word)
    t = 1000
    for cta in range(2):  # two CTAs of four have records
        sm = 10 + cta
        put("moe_route", cta, 0, 0, t, meta(cta, sm, 0, 0, 0))
        put("moe_route", cta, 0, 1, t + 500, meta(cta, sm, 0, 0, 1))
        for tile in range(tiles):
            base = 2000 + tile * 1000
            put("moe_l1_swiglu", cta, 0, 2 * tile, base, meta(tile, sm, 0, 1, 0))
            put("moe_l1_swiglu", cta, 0, 2 * tile + 1, base + 600, meta(tile, sm, 0, 1, 1))
            for wg in (1, 2):
                n = 4 * tile
                put("moe_l1_swiglu", cta, wg, n, base + 100, meta(tile, sm, wg, 1, 0))
                put("moe_l1_swiglu", cta, wg, n + 1, base + 700, meta(tile, sm, wg, 1, 1))
                put("moe_l1_swiglu", cta, wg, n + 2, base + 700, meta(tile, sm, wg, 2, 0))
                end = base + (650 if back_in_time and cta == 1 and wg == 2 else 950)
                put("moe_l1_swiglu", cta, wg, n + 3, end, meta(tile, sm, wg, 2, 1))
    return bytes(data)


def main():
    m = manifest()
    prof = mp.decode(buffer(m), m)
    print("intervals:", len(prof.intervals), "problems:", len(prof.problems))
    expected = {("moe_l1_swiglu", "tma", "l1_mainloop"): 4,
                ("moe_l1_swiglu", "math0", "l1_mainloop"): 4,
                ("moe_l1_swiglu", "math1", "l1_epilogue"): 4,
                ("moe_route", "cta", "cta"): 2}
    print("count mismatches:", mp.check_counts(prof, expected))
    mean = [i.end - i.begin for i in prof.intervals
            if i.role == "math0" and i.phase == "l1_epilogue"]
    print("math0 epilogue ns:", sorted(set(mean)))
    text = mp.table(prof)
    print([l for l in text.splitlines() if "math1" in l and "epilogue" in l][0].split())
    # A kernel's line: its span and the gap after the previous kernel's last stamp.
    print(" ".join([l for l in text.splitlines() if l.startswith("moe_l1_swiglu")][0].split()))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.png")
        w, h = mp.render_png(prof, path, width=200)
        png = open(path, "rb").read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])
        idat = png.index(b"IDAT")
        n = struct.unpack(">I", png[idat - 4:idat])[0]
        raw = zlib.decompress(png[idat + 4:idat + 4 + n])
        print("png:", width, height, len(raw) == height * (1 + 3 * width))
        # The blue of the producer's L1 mainloop at its first tile, SM 10.
        row = raw[1:1 + 3 * width]
        x = int((2000 + 300 - 1000) * (width - 1) / (3950 - 1000))
        print("pixel:", tuple(row[3 * x:3 * x + 3]) == mp.PHASE_COLORS["l1_mainloop"])
    bad = mp.decode(buffer(m, back_in_time=True), m)
    print("back in time:", len(bad.problems), bad.problems[0].split(":")[1].strip())
    fused_counts()
    fused_counts("moe_fused_bm64")
    half_block_counts()
    expert_block_counts()
    l1_cluster_counts()
    k_split_counts()
    dispatch_lane()


def dispatch_lane():
    """A fused GEMM kernel whose dispatch warps pull its rows (l1-pull): a fourth role,
    "dispatch" (warp 0's copy loop and its ring waits, phases pull and ring_wait), decoded
    like the others and drawn in a fourth lane, the wait over the loop."""
    phases = PHASES + ["pull", "ring_wait"]
    cap = 8
    k = {"first_record": 0, "capacity": cap, "roles": ["tma", "math0", "math1", "dispatch"]}
    m = {"profile": {"record_bytes": 16, "max_ctas": 1, "bytes": 4 * cap * 16,
                     "phases": phases, "kernels": {"moe_fused_gemm": k}}}
    data = bytearray(m["profile"]["bytes"])

    def put(role, n, t, word):
        struct.pack_into("<QQ", data, (role * cap + n) * 16, t, word)
    put(0, 0, 1000, meta(0, 7, 0, 1, 0))
    put(0, 1, 2000, meta(0, 7, 0, 1, 1))
    put(3, 0, 1000, meta(0, 7, 3, 6, 0))   # pull begins
    put(3, 1, 1400, meta(9, 7, 3, 7, 0))   # m-block 9 waits for its slot
    put(3, 2, 1600, meta(9, 7, 3, 7, 1))
    put(3, 3, 2000, meta(0, 7, 3, 6, 1))   # pull ends
    prof = mp.decode(bytes(data), m)
    print("dispatch:", sorted((i.role, i.phase, i.tag, i.end - i.begin) for i in prof.intervals
                              if i.role == "dispatch"), prof.problems)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.png")
        w, h = mp.render_png(prof, path, width=101, lane_px=1)
        png = open(path, "rb").read()
        idat = png.index(b"IDAT")
        n = struct.unpack(">I", png[idat - 4:idat])[0]
        raw = zlib.decompress(png[idat + 4:idat + 4 + n])
        lane3 = raw[3 * (1 + 3 * w) + 1:3 * (1 + 3 * w) + 1 + 3 * w]
        px = [tuple(lane3[3 * x:3 * x + 3]) for x in (10, 50, 90)]
        print("dispatch lanes:", h, px == [mp.PHASE_COLORS["pull"], mp.PHASE_COLORS["ring_wait"],
                                          mp.PHASE_COLORS["pull"]])


class Intervals:
    """The decoded profile's interface the counts read: intervals with kernel, role, phase;
    add(kernel, role, phase, n) appends n of them."""
    class I:
        def __init__(self, kernel, role, phase):
            self.kernel, self.role, self.phase = kernel, role, phase

    def __init__(self):
        self.intervals = []

    def add(self, kernel, role, phase, n):
        self.intervals.extend(self.I(kernel, role, phase) for _ in range(n))


DOC = {"config": {"hidden": 512, "intermediate": 256}}


def half_block_counts():
    """Half blocks (expert_align 64): of 3 m-blocks 1 is a half block; math1 computes its L1
    tiles but stores none, and skips its L2 tiles."""
    P = Intervals()
    variant = {"l1_block_n": 128, "l2_block_n": 256}
    m_blocks, half, pairs, l2 = 3, 1, 2, 2
    l1, l2k = "moe_l1_swiglu_bm128", "moe_l2_gemm_bm128"
    for role in ("tma", "math0", "math1"):
        P.add(l1, role, "l1_mainloop", m_blocks * pairs)
    P.add(l1, "math0", "l1_epilogue", m_blocks * pairs)
    P.add(l1, "math1", "l1_epilogue", (m_blocks - half) * pairs)
    for role in ("tma", "math0"):
        P.add(l2k, role, "l2_mainloop", m_blocks * l2)
    P.add(l2k, "math0", "l2_epilogue", m_blocks * l2)
    for phase in ("l2_mainloop", "l2_epilogue"):
        P.add(l2k, "math1", phase, (m_blocks - half) * l2)
    print("half blocks:", expected_counts(P, DOC, [l1, l2k], variant, m_blocks,
                                          lambda _: 0, half))
    print("half blocks counted as whole:",
          len(expected_counts(P, DOC, [l1, l2k], variant, m_blocks, lambda _: 0)))


def expert_block_counts():
    """Expert blocks (l2_expert_blocks): of 3 L2 blocks 1 has more than two 64-row units;
    math1 computes and stores that one's tiles only; the L1 kernel keeps its 4 m-blocks."""
    P = Intervals()
    variant = {"l1_block_n": 128, "l2_block_n": 128, "l2_expert_blocks": True}
    m_blocks, pairs, blocks, wide, l2 = 4, 2, 3, 1, 4
    l1, l2k = "moe_l1_swiglu_bm128", "moe_l2_gemm_bm128"
    for role in ("tma", "math0", "math1"):
        P.add(l1, role, "l1_mainloop", m_blocks * pairs)
    for role in ("math0", "math1"):
        P.add(l1, role, "l1_epilogue", m_blocks * pairs)
    for role in ("tma", "math0"):
        P.add(l2k, role, "l2_mainloop", blocks * l2)
    P.add(l2k, "math0", "l2_epilogue", blocks * l2)
    for phase in ("l2_mainloop", "l2_epilogue"):
        P.add(l2k, "math1", phase, wide * l2)
    print("expert blocks:", expected_counts(P, DOC, [l1, l2k], variant, m_blocks,
                                            lambda _: 0, 0, (blocks, wide)))
    print("expert blocks counted as m-blocks:",
          len(expected_counts(P, DOC, [l1, l2k], variant, m_blocks, lambda _: 0)))


def l1_cluster_counts():
    """The L1 kernel in clusters of 2 (l1_cluster): of 5 m-blocks (one a half block) the
    last is computed twice, by rank 1 of the third cluster, which stores nothing: mainloops
    count 6 m-blocks, epilogues 5 (math1 4, its half block stores nothing)."""
    P = Intervals()
    variant = {"l1_block_n": 128, "l2_block_n": 256, "l1_cluster": True}
    m_blocks, pairs, half = 5, 2, 1
    l1 = "moe_l1_swiglu_bm128"
    for role in ("tma", "math0", "math1"):
        P.add(l1, role, "l1_mainloop", 6 * pairs)
    P.add(l1, "math0", "l1_epilogue", m_blocks * pairs)
    P.add(l1, "math1", "l1_epilogue", (m_blocks - half) * pairs)
    print("l1 cluster:", expected_counts(P, DOC, [l1], variant, m_blocks, lambda _: 0, half))
    print("l1 cluster counted without:",
          len(expected_counts(P, DOC, [l1], {"l1_block_n": 128, "l2_block_n": 256}, m_blocks,
                              lambda _: 0, half)))


def fused_counts(k="moe_fused_gemm"):
    """The fused GEMM kernel's expected intervals (profile_counts): per m-block its L1 pairs
    and its L2 tiles with their arrival waits; at BLOCK_M 64 math1 computes no L2 tile. The
    one-kernel moe_fused (its dispatch and combine unstamped) counts the same."""
    P = Intervals()
    doc = DOC
    variant = {"l1_block_n": 128, "l2_block_n": 128}
    m_blocks, pairs, l2 = 3, 2, 4
    add = lambda role, phase, n: P.add(k, role, phase, n)  # noqa: E731
    for role in ("tma", "math0", "math1"):
        add(role, "l1_mainloop", m_blocks * pairs)
    for role in ("math0", "math1"):
        add(role, "l1_epilogue", m_blocks * pairs)
    for role, phase in (("tma", "l2_mainloop"), ("tma", "l2_wait"), ("math0", "l2_mainloop"),
                        ("math0", "l2_epilogue")):
        add(role, phase, m_blocks * l2)
    print("%s:" % k, expected_counts(P, doc, [k], variant, m_blocks, lambda _: 0))
    P.intervals = [i for i in P.intervals if i.phase != "l2_wait"]
    print("%s without waits:" % k, expected_counts(P, doc, [k], variant, m_blocks,
                                                     lambda _: 0))


def k_split_counts():
    """The K-split tail (variant k_split): mainloops count units, epilogues tiles. V4-Flash's
    L1 at 1 token (6 m-blocks x 16 pairs = 96 tiles on 132 CTAs, k_split 4): 384 units; at
    8 tokens 672 tiles, whose last wave's 12 become 48 units (708, as the H200 recorded);
    k_split 2 leaves 96 tiles whole (192 units > 132); a full last wave splits nothing."""
    print("units:", [mainloop_units(t, 132, p, 132)
                     for t, p in ((96, 4), (672, 4), (96, 2), (264, 4))])
    doc = {"config": {"hidden": 4096, "intermediate": 2048}, "plan": {"num_sms": 132}}
    variant = {"l1_block_n": 128, "l2_block_n": 256, "k_split": 4}
    k = "moe_l1_swiglu_bm64"
    P = Intervals()
    for role in ("tma", "math0", "math1"):
        P.add(k, role, "l1_mainloop", 384)
    for role in ("math0", "math1"):
        P.add(k, role, "l1_epilogue", 96)
    print("k-split:", expected_counts(P, doc, [k], variant, 6, lambda _: 132))
    variant["k_split"] = 1
    print("k-split counted as whole:", len(expected_counts(P, doc, [k], variant, 6,
                                                           lambda _: 132)))


if __name__ == "__main__":
    main()
