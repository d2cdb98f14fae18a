"""The phase profile of a layer call (docs/Profile.md): decode, table, picture.

A layer compiled with ``megamoe-expand="profile=true"`` stamps %globaltimer at
the phase boundaries of every kernel into a buffer that the runtime zeroes
before each call; ``MegaMoEBuffer.profile_buffer()`` (or
``Layer.read_profile()``) returns it after the call. This module turns those
bytes plus the layer's manifest (its "profile": record size, phase names and
each kernel's section) into intervals, a per-phase table and a PNG timeline:
x = time, one lane per (SM, role), rectangles colored by phase.

    python -m megamoe.profile BUFFER MANIFEST [--png OUT.png] [--check]

Plain Python (struct + zlib): no numpy, no matplotlib.
"""
import argparse
import json
import struct
import sys
import zlib

RECORD = struct.Struct("<QQ")

# Phase colors (RGB), by phase name; the stage kernels' "cta" spans are
# colored per kernel from KERNEL_COLORS instead.
PHASE_COLORS = {
    "l1_mainloop": (31, 119, 180),   # blue
    "l1_epilogue": (255, 127, 14),   # orange
    "l2_wait": (214, 39, 40),        # red
    "l2_mainloop": (44, 160, 44),    # green
    "l2_epilogue": (148, 103, 189),  # purple
    "pull": (188, 210, 238),         # pale blue: a dispatch warp's copy loop
    "ring_wait": (0, 0, 0),          # black: it waits for a ring slot
}
KERNEL_COLORS = [(140, 140, 140), (188, 189, 34), (23, 190, 207), (227, 119, 194),
                 (140, 86, 75), (90, 90, 90), (200, 200, 120), (120, 200, 200)]
BACKGROUND = (255, 255, 255)
SM_GAP = (230, 230, 230)


def load_manifest(path_or_dict):
    """The manifest entry that has a "profile" (a layer.json or a dict)."""
    m = path_or_dict
    if not isinstance(m, dict):
        with open(m) as f:
            m = json.load(f)
    if "profile" in m:
        return m
    for v in m.values():  # a file of several manifests by module name
        if isinstance(v, dict) and "profile" in v:
            return v
    raise ValueError("the manifest has no \"profile\": compile the layer with "
                     "megamoe-expand profile=true")


class Interval:
    __slots__ = ("kernel", "cta", "sm", "role", "phase", "tag", "begin", "end")

    def __init__(self, kernel, cta, sm, role, phase, tag, begin, end):
        self.kernel, self.cta, self.sm, self.role = kernel, cta, sm, role
        self.phase, self.tag, self.begin, self.end = phase, tag, begin, end

    def __repr__(self):
        return "Interval(%s cta %d sm %d %s %s tag %d %d..%d)" % (
            self.kernel, self.cta, self.sm, self.role, self.phase, self.tag,
            self.begin, self.end)


class Profile:
    """Decoded records: `intervals`, and `problems` (strings) that --check
    reports: a slice whose stamps go back in time, an end without its begin
    (or a begin left open), a record of another slice's role."""

    def __init__(self):
        self.intervals = []
        self.problems = []
        self.records = {}   # (kernel, role) -> records decoded
        self.kernels = []   # in section order
        self.ctas = {}      # kernel -> CTAs with records
        # Slices holding `capacity` records: later ones may have been dropped
        # (a stage kernel's two records always fill its slice).
        self.full = []


def decode(data, manifest):
    """Profile of the buffer `data` (bytes) under `manifest` (its "profile")."""
    m = load_manifest(manifest)
    p = m["profile"]
    if p["record_bytes"] != RECORD.size:
        raise ValueError("record_bytes %d, this decoder reads %d" %
                         (p["record_bytes"], RECORD.size))
    if len(data) < p["bytes"]:
        raise ValueError("the buffer has %d bytes, the manifest's profile %d" %
                         (len(data), p["bytes"]))
    phases = p["phases"]
    max_ctas = p["max_ctas"]
    out = Profile()
    kernels = sorted(p["kernels"].items(), key=lambda kv: kv[1]["first_record"])
    for name, k in kernels:
        out.kernels.append(name)
        roles, cap, first = k["roles"], k["capacity"], k["first_record"]
        ctas = set()
        for cta in range(max_ctas):
            for r, role in enumerate(roles):
                base = (first + (cta * len(roles) + r) * cap) * RECORD.size
                last, opened, n = 0, {}, 0
                for i in range(cap):
                    t, meta = RECORD.unpack_from(data, base + i * RECORD.size)
                    if t == 0:  # slots are written in order: the rest is empty
                        break
                    n += 1
                    tag, sm = meta & 0xFFFFFFFF, (meta >> 32) & 0xFFFF
                    rrole, event = (meta >> 48) & 0xFF, meta >> 56
                    phase, end = event >> 1, event & 1
                    where = "%s cta %d %s record %d" % (name, cta, role, i)
                    if rrole != r:
                        out.problems.append("%s: role id %d in slice of role %d"
                                            % (where, rrole, r))
                    if t < last:
                        out.problems.append("%s: time goes back (%d < %d)" %
                                            (where, t, last))
                    last = t
                    pname = phases[phase] if phase < len(phases) else "?%d" % phase
                    if not end:
                        if pname in opened:
                            out.problems.append("%s: %s begins twice" % (where, pname))
                        opened[pname] = (t, tag)
                        continue
                    if pname not in opened:
                        out.problems.append("%s: %s ends without a begin" %
                                            (where, pname))
                        continue
                    t0, tag0 = opened.pop(pname)
                    if tag0 != tag:
                        out.problems.append("%s: %s ends tile %d, began %d" %
                                            (where, pname, tag, tag0))
                    out.intervals.append(Interval(name, cta, sm, role, pname, tag, t0, t))
                if n:
                    ctas.add(cta)
                if n == cap:
                    out.full.append("%s cta %d %s" % (name, cta, role))
                for pname in opened:
                    out.problems.append("%s cta %d %s: %s never ends" %
                                        (name, cta, role, pname))
                out.records[(name, role)] = out.records.get((name, role), 0) + n
        out.ctas[name] = ctas
    return out


def ran_kernels(profile):
    """The kernels that have intervals, in the order of their first stamp
    (a call runs one variant's schedule: the colors go to those)."""
    first = {}
    for iv in profile.intervals:
        first[iv.kernel] = min(first.get(iv.kernel, iv.begin), iv.begin)
    return sorted(first, key=first.get)


def kernel_color(profile, kernel):
    ran = ran_kernels(profile)
    k = ran.index(kernel) if kernel in ran else len(ran)
    return KERNEL_COLORS[k % len(KERNEL_COLORS)]


def phase_color(profile, iv):
    if iv.phase == "cta":
        return kernel_color(profile, iv.kernel)
    return PHASE_COLORS.get(iv.phase, (0, 0, 0))


def table(profile):
    """Per kernel (its span: first to last stamp), per (role, phase): count,
    total and mean duration (us), and the share of the role's lanes' time
    in the kernel (total / (span x CTAs with that role's records))."""
    lines = []
    by_kernel = {}
    for iv in profile.intervals:
        by_kernel.setdefault(iv.kernel, []).append(iv)
    lines.append("%-24s %-6s %-12s %7s %11s %9s %6s" %
                 ("kernel", "role", "phase", "count", "total_us", "mean_us", "share"))
    previous_end = None
    for name in ran_kernels(profile):
        ivs = by_kernel.get(name, [])
        if not ivs:
            continue
        t0 = min(i.begin for i in ivs)
        t1 = max(i.end for i in ivs)
        span = max(t1 - t0, 1)
        # The gap from the previous kernel's last stamp to this one's first:
        # launch latency and prologue (negative when the two overlap).
        gap = "" if previous_end is None else ", %.1f us after the previous" % (
            (t0 - previous_end) / 1e3)
        previous_end = t1 if previous_end is None else max(previous_end, t1)
        lines.append("%-24s span %.1f us, %d CTAs%s" %
                     (name, span / 1e3, len(profile.ctas.get(name, ())), gap))
        groups = {}
        for i in ivs:
            groups.setdefault((i.role, i.phase), []).append(i)
        for (role, phase), g in sorted(groups.items()):
            total = sum(i.end - i.begin for i in g)
            lanes = len({i.cta for i in g})
            lines.append("%-24s %-6s %-12s %7d %11.1f %9.2f %5.1f%%" %
                         ("", role, phase, len(g), total / 1e3, total / 1e3 / len(g),
                          100.0 * total / (span * lanes)))
    lines.append("legend (PNG colors):")
    for phase, c in PHASE_COLORS.items():
        lines.append("  %-24s #%02x%02x%02x" % (phase, *c))
    for name in ran_kernels(profile):
        if any(i.kernel == name and i.phase == "cta" for i in profile.intervals):
            lines.append("  %-24s #%02x%02x%02x (cta)" % (name, *kernel_color(profile, name)))
    return "\n".join(lines)


def _png(path, width, height, rows):
    def chunk(kind, body):
        c = kind + body
        return struct.pack(">I", len(body)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    data = (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)


def render_png(profile, path, width=1600, lane_px=3):
    """Timeline: x = time over the whole call, one lane of `lane_px` rows per
    (SM, role index): lane 0 the producer ("tma") or a stage kernel's CTA,
    lanes 1 and 2 math0 and math1, lane 3 (where a kernel has one) dispatch
    warp 0, its ring waits drawn over its copy loop; a grey row between SMs.
    Returns (w, h)."""
    ivs = profile.intervals
    if not ivs:
        raise ValueError("no intervals to draw")
    t0 = min(i.begin for i in ivs)
    t1 = max(i.end for i in ivs)
    scale = (width - 1) / max(t1 - t0, 1)
    sms = sorted({i.sm for i in ivs})
    row_of_sm = {sm: k for k, sm in enumerate(sms)}
    lanes = 4 if any(i.role == "dispatch" for i in ivs) else 3
    sm_px = lanes * lane_px + 1
    height = len(sms) * sm_px
    rows = [bytearray(BACKGROUND * width) for _ in range(height)]
    for k in range(len(sms)):
        rows[k * sm_px + sm_px - 1][:] = bytes(SM_GAP * width)
    lane_index = {"cta": 0, "tma": 0, "math0": 1, "math1": 2, "dispatch": 3}
    colors = {k: bytes(kernel_color(profile, k)) for k in ran_kernels(profile)}
    # The long spans first, so that what happens inside them stays visible.
    for i in sorted(ivs, key=lambda i: i.begin - i.end):
        x0 = int((i.begin - t0) * scale)
        x1 = max(int((i.end - t0) * scale), x0 + 1)
        color = colors[i.kernel] if i.phase == "cta" else bytes(
            PHASE_COLORS.get(i.phase, (0, 0, 0)))
        top = row_of_sm[i.sm] * sm_px + lane_index.get(i.role, 0) * lane_px
        fill = color * (x1 - x0)
        for y in range(top, top + lane_px):
            rows[y][3 * x0:3 * x1] = fill
    _png(path, width, height, rows)
    return width, height


def check_counts(profile, expected):
    """`expected`: {(kernel, role, phase): intervals}; returns the mismatches."""
    got = {}
    for i in profile.intervals:
        key = (i.kernel, i.role, i.phase)
        got[key] = got.get(key, 0) + 1
    return ["%s %s %s: %d intervals, expected %d" % (k + (got.get(k, 0), n))
            for k, n in sorted(expected.items()) if got.get(k, 0) != n]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m megamoe.profile",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("buffer", help="the profile buffer (raw bytes)")
    ap.add_argument("manifest", help="the layer's manifest (layer.json)")
    ap.add_argument("--png", help="write the timeline picture here")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a slice is inconsistent (see Profile)")
    a = ap.parse_args(argv)
    with open(a.buffer, "rb") as f:
        data = f.read()
    prof = decode(data, a.manifest)
    print(table(prof))
    if a.png:
        w, h = render_png(prof, a.png)
        print("wrote %s (%d x %d)" % (a.png, w, h))
    gemm_full = [f for f in prof.full if " cta " in f and not f.endswith(" cta")]
    if gemm_full:
        print("note: %d full slice(s), later records may have been dropped "
              "(raise profile-capacity): %s" % (len(gemm_full), gemm_full[0]))
    for p in prof.problems[:20]:
        print("problem: " + p)
    if prof.problems:
        print("%d problem(s)" % len(prof.problems))
    return 1 if a.check and prof.problems else 0


if __name__ == "__main__":
    sys.exit(main())
