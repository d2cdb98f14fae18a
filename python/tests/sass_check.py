"""The SASS check of the grouped GEMM cubins (on the GPU machine, where cuobjdump is): for every
variant folder (grouped_gemm.json and its cubin) of an sm_90a build,
  - the wgmma count matches the tile: per math role its column blocks (2 at BLOCK_N 256, else 1)
    x row blocks (2 at BLOCK_M 256, else 1) x 4 wgmma k32 steps per 128-K block, times STAGES
    when the K loop is unrolled over the stages (manifest symbol UNROLL_STAGES), one math role at
    BLOCK_M 64 and two at 128 and 256, swapped (SWAP_AB) one per 64 weight rows;
  - no HGMMA (every MMA is FP8 QGMMA) and no local memory (LDL/STL: spills).
One line per cubin; exit status 1 on any mismatch.

  python3 sass_check.py DIR...        (each DIR holds grouped_gemm.json; runs cuobjdump -sass)
  python3 sass_check.py --self-test   (the expectations on synthetic SASS; no GPU)
"""
import json
import os
import re
import subprocess
import sys

K_STEPS = 4  # wgmma m64nNk32 per 128-K block (BLOCK_K 128 of e4m3)


def expected_qgmma(symbols):
    """QGMMA instructions the kernel of these manifest symbols has (sm_90a)."""
    # One math role per 64 rows, or swapped (SWAP_AB) per 64 weight rows of the tile.
    if symbols.get("SWAP_AB"):
        roles = symbols["BLOCK_N"] // 64
    else:
        roles = 1 if symbols["BLOCK_M"] == 64 else 2
    # BLOCK_N 256 is two column blocks of 128; 128 and 192 one MMA each. BLOCK_M 256 gives each
    # role two 64-row blocks (config::warpgroupRowBlocks).
    blocks = 2 if symbols["BLOCK_N"] == 256 else 1
    blocks *= 2 if symbols["BLOCK_M"] == 256 else 1
    unroll = symbols["STAGES"] if symbols.get("UNROLL_STAGES") else 1
    return roles * blocks * K_STEPS * unroll


def counts(sass):
    return {"QGMMA": len(re.findall(r"\bQGMMA\b", sass)),
            "HGMMA": len(re.findall(r"\bHGMMA\b", sass)),
            "LDL/STL": len(re.findall(r"\b(?:LDL|STL)\b", sass))}


def problems(chip, symbols, sass):
    c = counts(sass)
    out = []
    if c["LDL/STL"]:
        out.append(f"{c['LDL/STL']} LDL/STL (local memory)")
    if chip == "sm_90a":
        want = expected_qgmma(symbols)
        if c["QGMMA"] != want:
            out.append(f"QGMMA {c['QGMMA']}, expected {want}")
        if c["HGMMA"]:
            out.append(f"{c['HGMMA']} HGMMA")
    return c, out


def check_dir(d):
    m = json.load(open(os.path.join(d, "grouped_gemm.json")))
    cubin = os.path.join(d, m["cubin"])
    sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
    c, bad = problems(m["chip"], m["symbols"], sass)
    tag = "FAIL: " + "; ".join(bad) if bad else "ok"
    print(f"{os.path.basename(os.path.normpath(d))}: QGMMA={c['QGMMA']} HGMMA={c['HGMMA']} "
          f"LDL/STL={c['LDL/STL']} {tag}", flush=True)
    return not bad


def self_test():
    q = lambda n: "\n".join(["QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR28], R24"] * n)  # noqa
    cases = [
        ("bm128 bn128 rolled", {"BLOCK_M": 128, "BLOCK_N": 128, "STAGES": 5}, q(8)),
        ("bm128 bn128 unrolled", {"BLOCK_M": 128, "BLOCK_N": 128, "STAGES": 4, "UNROLL_STAGES": 1},
         q(32)),
        ("bm64 bn128 unrolled", {"BLOCK_M": 64, "BLOCK_N": 128, "STAGES": 8, "UNROLL_STAGES": 1},
         q(32)),
        ("bm128 bn256", {"BLOCK_M": 128, "BLOCK_N": 256, "STAGES": 4}, q(16)),
        ("bm128 bn192 unrolled", {"BLOCK_M": 128, "BLOCK_N": 192, "STAGES": 4, "UNROLL_STAGES": 1},
         q(32)),
        ("bm256 bn128 unrolled", {"BLOCK_M": 256, "BLOCK_N": 128, "STAGES": 4, "UNROLL_STAGES": 1},
         q(64)),
        ("bm256 bn128 one row block", {"BLOCK_M": 256, "BLOCK_N": 128, "STAGES": 4,
                                        "UNROLL_STAGES": 1}, q(32)),
        ("bm32 swap-ab unrolled", {"BLOCK_M": 32, "BLOCK_N": 128, "STAGES": 8, "UNROLL_STAGES": 1,
                                   "SWAP_AB": 1}, q(64)),
        ("bm128 bn256 spills", {"BLOCK_M": 128, "BLOCK_N": 256, "STAGES": 4},
         q(16) + "\nSTL [R1], R2\nLDL R2, [R1]"),
        ("bm128 bn128 serialized", {"BLOCK_M": 128, "BLOCK_N": 128, "STAGES": 5}, q(4)),
    ]
    for name, sym, sass in cases:
        _, bad = problems("sm_90a", sym, sass)
        print(f"{name}: {'; '.join(bad) or 'ok'}")


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    ok = all([check_dir(d) for d in argv])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
