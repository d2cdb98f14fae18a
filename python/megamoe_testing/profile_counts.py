"""What a profiled call must have recorded (no torch, no GPU): per GEMM kernel of the
schedule one interval per tile and role (producer and the math warpgroups, mainloop and
epilogue; the fused kernel's L1 pairs, its L2 tiles and their arrival waits), per other
stage kernel one CTA interval per CTA. Used by megamoe_testing.profile_check on the GPU and
by python/tests/test_profile.py on synthetic intervals."""


def tiles_per_m_block(doc, kernel, variant):
    """{"l1" | "l2": tiles of one m-block} of `kernel` (its base name) in the plan variant,
    or None for a stage kernel without tiles. The fused GEMM kernel runs both: its L1 tiles
    are SwiGLU pairs of column blocks, its L2 tiles one column block each."""
    cfg = doc["config"]
    h, i = cfg["hidden"], cfg["intermediate"]
    pairs = 2 * i // variant["l1_block_n"] // 2
    if kernel.startswith("moe_fused_gemm"):
        return {"l1": pairs, "l2": h // variant["l2_block_n"]}
    if kernel.startswith("moe_l1_swiglu"):
        return {"l1": pairs}
    if kernel.startswith("moe_l1_gemm"):
        return {"l1": 2 * i // variant["l1_block_n"]}
    if kernel.startswith("moe_l2_gemm"):
        return {"l2": h // variant["l2_block_n"]}
    return None


def expected_counts(prof, doc, schedule, variant, m_blocks, ctas_of, half_blocks=0):
    """{(kernel, role, phase): n} and the problems of the roles' counts. With `half_blocks`
    of the m-blocks 64-row half blocks (the variant's expert_align 64,
    docs/UnfusedSchedule.md "Half blocks"), math1 stores none of their tiles, and in the L2
    GEMM it does not compute them either (it skips their stages)."""
    problems = []
    got = {}
    for iv in prof.intervals:
        key = (iv.kernel, iv.role, iv.phase)
        got[key] = got.get(key, 0) + 1
    for kernel in schedule:
        phases = tiles_per_m_block(doc, kernel, variant)
        if phases is None:  # a stage kernel: one CTA interval per CTA
            n = got.get((kernel, "cta", "cta"), 0)
            if n == 0 or n != ctas_of(kernel):
                problems.append("%s: %d CTA intervals, %d CTAs recorded" %
                                (kernel, n, ctas_of(kernel)))
            continue
        want = {}
        for gemm, tiles in phases.items():
            total = m_blocks * tiles
            main, epi = gemm + "_mainloop", gemm + "_epilogue"
            want.update({(kernel, "tma", main): total, (kernel, "math0", main): total,
                         (kernel, "math0", epi): total})
            if gemm == "l2" and "l1" in phases:  # the fused kernel's L2 arrival waits
                want[(kernel, "tma", "l2_wait")] = total
            if got.get((kernel, "math1", main), 0):  # math1 computes every tile or none
                whole = (m_blocks - half_blocks) * tiles
                want[(kernel, "math1", main)] = whole if kernel.startswith("moe_l2_gemm") \
                    else total
                want[(kernel, "math1", epi)] = whole
        for k, n in sorted(want.items()):
            if got.get(k, 0) != n:
                problems.append("%s %s %s: %d intervals, expected %d tiles" %
                                (k + (got.get(k, 0), n)))
    return problems
