"""What a profiled call must have recorded (no torch, no GPU): per GEMM kernel of the
schedule one interval per tile and role (producer and the math warpgroups, mainloop and
epilogue; the fused kernel's L1 pairs, its L2 tiles and their arrival waits), per other
stage kernel one CTA interval per CTA. Used by megamoe_testing.profile_check on the GPU and
by python/tests/test_profile.py on synthetic intervals."""


def tiles_per_m_block(doc, kernel, variant):
    """{"l1" | "l2": tiles of one m-block} of `kernel` (its base name) in the plan variant,
    or None for a stage kernel without tiles. The fused GEMM kernel (and the one-kernel
    moe_fused) runs both: its L1 tiles are SwiGLU pairs of column blocks, its L2 tiles one
    column block each."""
    cfg = doc["config"]
    h, i = cfg["hidden"], cfg["intermediate"]
    pairs = 2 * i // variant["l1_block_n"] // 2
    # moe_fused_gemm, and moe_fused (one-kernel): the same roles and tiles; the
    # one-kernel's dispatch and combine have no stamps.
    if kernel.startswith("moe_fused"):
        return {"l1": pairs, "l2": h // variant["l2_block_n"]}
    if kernel.startswith("moe_l1_swiglu"):
        return {"l1": pairs}
    if kernel.startswith("moe_l1_gemm"):
        return {"l1": 2 * i // variant["l1_block_n"]}
    if kernel.startswith("moe_l2_gemm"):
        return {"l2": h // variant["l2_block_n"]}
    return None


def mainloop_units(tiles, ctas, k_split, num_sms):
    """Mainloop intervals of a GEMM of `tiles` tiles on `ctas` CTAs with the variant's
    K-split tail (warpspec.tile_loop k_split P, its lowering): the last wave's r = tiles
    mod ctas tiles run as r P units when 0 < r, r P <= (P - 1) ctas and r fits the
    split_partials region ((P - 1) num_sms / P tiles, config::kSplitTiles)."""
    if k_split <= 1 or ctas <= 0:
        return tiles
    r = tiles % ctas
    held = (k_split - 1) * num_sms // k_split
    if 0 < r and r * k_split <= (k_split - 1) * ctas and r <= held:
        return tiles + r * (k_split - 1)
    return tiles


def expected_counts(prof, doc, schedule, variant, m_blocks, ctas_of, half_blocks=0,
                    expert_blocks=None):
    """{(kernel, role, phase): n} and the problems of the roles' counts. With `half_blocks`
    of the m-blocks 64-row half blocks (the variant's expert_align 64,
    docs/UnfusedSchedule.md "Half blocks"), math1 stores none of their tiles, and in the L2
    GEMM it does not compute them either (it skips their stages). With the variant's
    k_split the mainloops count units (mainloop_units), the epilogues tiles. With
    `expert_blocks` = (blocks, blocks of more than two 64-row units) the L2 GEMM's tiles are
    the variant's expert blocks (l2_expert_blocks, docs/SplitSchedule.md): math1 computes
    only those of more than two units. With the variant's l1_cluster the L1 kernel's
    mainloops count whole clusters of m-blocks (an odd count's last one twice)."""
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
            blocks, math1_blocks = m_blocks, m_blocks - half_blocks
            if expert_blocks is not None and kernel.startswith("moe_l2_gemm"):
                blocks, math1_blocks = expert_blocks
            total = blocks * tiles
            k_split = variant.get("k_split", 1)
            units = total if k_split <= 1 else mainloop_units(
                total, ctas_of(kernel), k_split, doc["plan"]["num_sms"])
            if variant.get("l1_cluster") and kernel.startswith("moe_l1"):
                # Clusters of 2: an odd count's last m-block is computed twice (rank 1 stores
                # nothing, so the epilogues count each tile once).
                units = (blocks + 1) // 2 * 2 * tiles
            main, epi = gemm + "_mainloop", gemm + "_epilogue"
            want.update({(kernel, "tma", main): units, (kernel, "math0", main): units,
                         (kernel, "math0", epi): total})
            if gemm == "l2" and "l1" in phases:  # the fused kernel's L2 arrival waits
                want[(kernel, "tma", "l2_wait")] = total
            if got.get((kernel, "math1", main), 0):  # math1 computes every tile or none
                whole = math1_blocks * tiles
                want[(kernel, "math1", main)] = whole if kernel.startswith("moe_l2_gemm") \
                    else units
                want[(kernel, "math1", epi)] = whole
        for k, n in sorted(want.items()):
            if got.get(k, 0) != n:
                problems.append("%s %s %s: %d intervals, expected %d tiles" %
                                (k + (got.get(k, 0), n)))
    return problems
