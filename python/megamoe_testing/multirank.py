"""One-GPU multi-rank mode of a layer schedule: R ranks in one process on one
GPU, for sanitizer runs and fault tests that need several ranks but only one
GPU (and no NCCL).

Each rank has its own buffer on the GPU (torch.zeros), a SymmetricBuffer over
the R buffers (SymmetricBuffer.from_peers: peer pointers are plain device
pointers on the same GPU), its own megamoe.Layer and its own stream. Layer
creation is collective (a cross-rank barrier), so the R layers are created in
R threads at once (ctypes releases the GIL); forward() launches every rank's
schedule, each on its rank's stream and, by default, from its rank's own
host thread (as R processes would): a rank's kernel that waits at a
cross-rank barrier (moe_layout, moe_combine_barrier: one CTA each) spins on
its stream while the other ranks' kernels run on the rest of the GPU. The
kernels' grids are the device's SM count (the runtime's num_sms), or the
plan's num_sms when smaller. In the stage kernels only the single-CTA
barrier kernels wait for peers, so the ranks' grids need not be
co-resident. The merged kernels (megamoe-expand merge-stages: moe_dispatch,
moe_combine) wait for peers with every CTA resident, so all R grids must fit
on the GPU at once: such a layer must be planned with num-sms <= SMs / R
(MultiRankLayer refuses it otherwise, rather than hang until the timeout).

A thread per rank is how R processes would launch: no rank's launches wait
behind another rank's, whatever a launch costs (a tool may instrument a
kernel at its first launch). Measured on an H200 under memcheck, though,
the single-thread launch (--serial-launch, kept for comparison) got past
the cross-rank barriers too: the sanitizer runs that did not finish in
time spent it in the FP32 oracle's PyTorch kernels and in the
interpreter's teardown, which the sanitizer runs now skip (--no-oracle,
--fast-exit; their y is compared bitwise with a plain run's instead).

--buffers empty allocates the symmetric buffers uninitialized (as NCCL's
are: the runtime zeroes its control words and the layer its workspace
counters; the harness only writes the guard bytes), so that initcheck sees
any kernel read of buffer bytes nothing wrote; a forward then also copies
two regions to the host (probe_initialization). The default, zero,
zero-fills them.

After the layout's bytes each buffer holds GUARD_BYTES of GUARD_VALUE, checked
by guard_intact(): a kernel writing past the layout (e.g. past an overflowing
pool) would change them.

Command line (the GPU scripts run it under compute-sanitizer):

    python3 -m megamoe_testing.multirank LAYER_DIR SCENARIO [--device 0]
        [--serial-launch] [--buffers zero|empty] [--no-oracle] [--save-y FILE]
        [--fast-exit]

SCENARIO: forward (every rank T tokens, checked against the oracle), overflow
(every token lists expert 0 in all K slots), bad_ids, too_many_tokens,
never_arrives (rank R-1 never launches; the others must end in the barrier
timeout). Prints one "multirank: ..." result line; exit status 0 when the
scenario behaved as specified. Progress lines ("multirank-progress: <s> s:
...") go to stderr, so a run cut short shows how far it got.

CUDA_MODULE_LOADING=EAGER is set before CUDA starts: with lazy loading a
kernel's first launch may load its module while a peer's barrier kernel
spins, which can wait for that kernel and deadlock.
"""
import argparse
import glob
import json
import os
import sys
import threading
import time

os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")
for _k, _v in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
               "NVSHMEM_DISABLE_NVLS": "1"}.items():
    os.environ.setdefault(_k, _v)

import torch  # noqa: E402

import megamoe  # noqa: E402
from megamoe_testing.generators import ExpertSource, TokenInputs, local_weights, make_tokens  # noqa: E402
from megamoe_testing.oracle import moe_oracle, relative_l2  # noqa: E402
from megamoe_testing.shapes import MoeShape  # noqa: E402

# SymmetricBuffer.from_peers: the last 4096 bytes of each buffer are the
# runtime's barrier control words (runtime/lib/Symmetric.cpp kControlBytes).
CONTROL_BYTES = 4096
GUARD_BYTES = 64 * 1024
GUARD_VALUE = 0xA5
SEED = 1234
TOLERANCE = 1e-2


def manifest_in(layer_dir):
    """The layer manifest (a .json with "schedule" or "variants") in layer_dir."""
    for path in sorted(glob.glob(os.path.join(layer_dir, "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        if isinstance(doc, dict) and (doc.get("schedule") or doc.get("variants")):
            return path, doc
    raise FileNotFoundError("no layer manifest in " + layer_dir)


_START = time.time()


def progress(what):
    print("multirank-progress: %.1f s: %s" % (time.time() - _START, what), file=sys.stderr,
          flush=True)


def run_per_rank(ranks, body, timeout_s):
    """Runs body(r) for each r in `ranks`, each in its own thread, all at once;
    re-raises the first failure. Returns False if a thread did not finish
    within timeout_s."""
    failures = {}

    def one(r):
        try:
            body(r)
        except BaseException as e:  # reported below, on the main thread
            failures[r] = e

    threads = [threading.Thread(target=one, args=(r,), daemon=True) for r in ranks]
    for t in threads:
        t.start()
    deadline = time.time() + timeout_s
    for t in threads:
        t.join(max(0.0, deadline - time.time()))
    for r in sorted(failures):
        raise RuntimeError("multirank: rank %d: %s" % (r, failures[r]))
    return not any(t.is_alive() for t in threads)


# Kernels whose CTAs wait for each other (grid barriers) and for peers: with
# R ranks on one GPU every rank's grid of them must be resident at once.
CO_RESIDENT_KERNELS = ("moe_dispatch", "moe_combine", "moe_fused")


def check_co_residency(doc, ranks, props):
    """Raises ValueError when R grids of a co-resident kernel cannot fit."""
    names = set()
    for v in doc.get("variants") or [{"schedule": doc.get("schedule") or []}]:
        names.update(v["schedule"])
    merged = sorted(n for n in names if n.split("_bm")[0] in CO_RESIDENT_KERNELS)
    if not merged or ranks <= 1:
        return
    sms = props.multi_processor_count
    grid = min(int((doc.get("plan") or {}).get("num_sms", sms)), sms)
    if grid * ranks > sms:
        raise ValueError(
            "multirank: %s wait for peers with all their CTAs resident, but %d ranks x %d "
            "CTAs exceed the GPU's %d SMs: plan the layer with num-sms=%d (megamoe-plan)"
            % (", ".join(merged), ranks, grid, sms, sms // ranks))


class MultiRankLayer:
    """R ranks of one compiled layer on one GPU (R = the manifest's symbol R)."""

    def __init__(self, manifest, doc, device=0, barrier_timeout_s=60.0,
                 serial_launch=False, buffers="zero"):
        sym = doc["symbols"]
        self.hidden, self.intermediate = int(sym["H"]), int(sym["I"])
        self.experts, self.topk = int(sym["E"]), int(sym["K"])
        self.ranks, self.max_tokens = int(sym["R"]), int(sym["T"])
        self.clamp = (doc.get("layer") or {}).get("clamp")
        # Channels per requantization scale (128, or 64 with requant-block=64).
        self.requant_block = int((doc.get("layer") or {}).get("requant_block", 128))
        check_co_residency(doc, self.ranks, torch.cuda.get_device_properties(device))
        self.layout = doc["buffer_layout"]
        self.layout_bytes = int(self.layout["total_bytes"])
        self.device = torch.device("cuda", device)
        torch.cuda.set_device(self.device)
        self.shape = MoeShape("layer", self.hidden, self.intermediate, self.experts, self.topk)

        usable = (self.layout_bytes + GUARD_BYTES + 15) // 16 * 16
        total = usable + CONTROL_BYTES
        alloc = {"zero": torch.zeros, "empty": torch.empty}[buffers]
        self.buffers = [alloc(total, dtype=torch.uint8, device=self.device)
                        for _ in range(self.ranks)]
        self.serial_launch = serial_launch
        self.buffers_mode = buffers
        self.launch_timeout_s = 600.0  # the sanitizer run has its own, shorter timeout
        for b in self.buffers:
            b[self.layout_bytes:usable].fill_(GUARD_VALUE)
        self._guard = (self.layout_bytes, usable)
        torch.cuda.synchronize()
        ptrs = [b.data_ptr() for b in self.buffers]
        self.symm = [megamoe.SymmetricBuffer.from_peers(ptrs[r], ptrs, total, r, device=device)
                     for r in range(self.ranks)]

        # Collective creation: all ranks at once, one thread each.
        self.layers = [None] * self.ranks
        failures = [None] * self.ranks
        start = threading.Barrier(self.ranks)

        def create(r):
            try:
                torch.cuda.set_device(self.device)
                start.wait(timeout=barrier_timeout_s)
                self.layers[r] = megamoe.Layer(
                    manifest, self.symm[r], hidden=self.hidden, intermediate=self.intermediate,
                    experts=self.experts, topk=self.topk, max_tokens=self.max_tokens,
                    ranks=self.ranks)
            except BaseException as e:  # reported below, on the main thread
                failures[r] = e

        threads = [threading.Thread(target=create, args=(r,)) for r in range(self.ranks)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(barrier_timeout_s)
        for r, e in enumerate(failures):
            if e is not None:
                raise RuntimeError("multirank: rank %d could not create its layer: %s" % (r, e))
        if any(layer is None for layer in self.layers):
            raise RuntimeError("multirank: layer creation did not finish within %.0f s"
                               % barrier_timeout_s)

        self.streams = [torch.cuda.Stream(self.device) for _ in range(self.ranks)]
        self.weights = []
        for r in range(self.ranks):
            w = local_weights(self.shape, r, self.ranks, SEED, self.device)
            w1, s1 = self.layers[r].transform_l1(w.w1, w.w1_sf)
            self.weights.append((w1, s1, w.w2, w.w2_sf))
        self.source = ExpertSource(self.shape, SEED, self.device)
        torch.cuda.synchronize()
        progress("%d layer(s) created, weights transformed" % self.ranks)

    def tokens(self, rank, n, routing="uniform", seed=0):
        return make_tokens(self.shape, n, rank, SEED + seed, self.device, routing)

    def forward(self, inputs, ranks=None):
        """Stages inputs[r] (TokenInputs, or None for rank r's turn without a
        call) and launches rank r's forward on its stream, for r in `ranks`
        (default all); returns the y tensors (None where not launched). Does
        not synchronize."""
        ys = [None] * self.ranks
        ranks = list(range(self.ranks) if ranks is None else ranks)

        def launch(r):
            torch.cuda.set_device(self.device)
            t = inputs[r]
            n = t.tokens
            layer = self.layers[r]
            with torch.cuda.stream(self.streams[r]):
                layer.view("x")[:n].copy_(t.x)
                layer.view("x_sf")[:n].copy_(t.x_sf)
                layer.view("topk_idx")[:n].copy_(t.topk_idx)
                layer.view("topk_weights")[:n].copy_(t.topk_weights)
                ys[r] = torch.full((n, self.hidden), float("nan"), dtype=torch.bfloat16,
                                   device=self.device)
                layer.forward(n, *self.weights[r], ys[r], stream=self.streams[r])

        if self.serial_launch:
            for r in ranks:
                launch(r)
        elif not run_per_rank(ranks, launch, self.launch_timeout_s):
            raise RuntimeError("multirank: the ranks' launches did not return within %.0f s"
                               % self.launch_timeout_s)
        progress("forward launched on rank(s) %s" % ranks)
        return ys

    def synchronize(self):
        for s in self.streams:
            s.synchronize()
        progress("streams synchronized")

    def oracle(self, t):
        e = self.experts
        clean = TokenInputs(t.x, t.x_sf,
                            torch.where((t.topk_idx >= 0) & (t.topk_idx < e), t.topk_idx, -1),
                            t.topk_weights)
        return moe_oracle(self.shape, clean, self.source, self.clamp, self.requant_block)

    def region(self, rank, name, dtype=torch.int32):
        for reg in self.layout["regions"]:
            if reg["name"] == name:
                off, nbytes = int(reg["offset"]), int(reg["bytes"])
                return self.buffers[rank][off:off + nbytes].view(dtype)
        raise KeyError(name)

    def guard_intact(self, rank):
        lo, hi = self._guard
        return bool((self.buffers[rank][lo:hi] == GUARD_VALUE).all())

    def close(self):
        for layer in self.layers:
            if layer is not None:
                layer.close()
        for s in self.symm:
            s.close()


def _result(ok, scenario, what):
    print("multirank: %s %s: %s" % (scenario, "OK" if ok else "FAILED", what), flush=True)
    return 0 if ok else 1


def run_forward(m, oracle=True, save_y=None):
    """Every rank T tokens. With `oracle`, y is checked against the FP32
    oracle; without (sanitizer runs: the oracle's many PyTorch kernels are
    what makes them slow), only for being finite. `save_y`: a file to save
    every rank's y to (CPU), for a bitwise comparison between runs."""
    inputs = [m.tokens(r, m.max_tokens, seed=r) for r in range(m.ranks)]
    ys = m.forward(inputs)
    m.synchronize()
    for r in range(m.ranks):
        progress("rank %d: buffer 0x%x, pool_info %s" % (
            r, m.buffers[r].data_ptr(), m.region(r, "pool_info")[:2].tolist()))
    if save_y:
        torch.save([y.cpu() for y in ys], save_y)
    if m.buffers_mode == "empty":
        probe_initialization(m)
    bad = [m.layers[r].check_errors() for r in range(m.ranks)]
    guards = all(m.guard_intact(r) for r in range(m.ranks))
    if oracle:
        errs = [relative_l2(ys[r], m.oracle(inputs[r])) for r in range(m.ranks)]
        ok = max(errs) <= TOLERANCE and not any(bad) and guards
        check = "rel_l2 max %.2e (<= %.0e)" % (max(errs), TOLERANCE)
    else:
        finite = all(bool(torch.isfinite(y).all()) for y in ys)
        ok = finite and not any(bad) and guards
        check = "y finite" if finite else "y NOT finite"
    return _result(ok, "forward", "R=%d T=%d %s, bad ids %s, guard bytes %s"
                   % (m.ranks, m.max_tokens, check, bad, "intact" if guards else "CHANGED"))


def probe_initialization(m):
    """Copies rank 0's used rows of l1_out (written only by the L1 GEMM's TMA
    tensor stores) and of l2_pool (written only by moe_activation's plain
    stores) to the host. Under initcheck with --buffers empty a copy whose
    source it deems uninitialized is reported as a host API access error at
    that address: which of the two is reported tells whether initcheck
    counts TMA stores as writes."""
    rows = m.region(0, "pool_info")[1].item()
    for name, writer in (("l1_out", "TMA tensor stores"), ("l2_pool", "st.global")):
        reg = next(r for r in m.layout["regions"] if r["name"] == name)
        row_bytes = int(reg["bytes"]) // int(reg["shape"][0])
        view = m.region(0, name, torch.uint8)[:rows * row_bytes]
        progress("probe: %s (written by %s): %d used rows, %d bytes at 0x%x" % (
            name, writer, rows, rows * row_bytes, view.data_ptr()))
        view.cpu()
        torch.cuda.synchronize()


def run_bad_ids(m):
    n = m.max_tokens
    inputs = []
    for r in range(m.ranks):
        t = m.tokens(r, n, seed=r)
        t.topk_idx[0, 0] = m.experts
        t.topk_idx[n - 1, m.topk - 1] = -5
        inputs.append(t)
    ys = m.forward(inputs)
    m.synchronize()
    counts = [m.layers[r].check_errors() for r in range(m.ranks)]
    errs = [relative_l2(ys[r], m.oracle(inputs[r])) for r in range(m.ranks)]
    ok = counts == [2] * m.ranks and max(errs) <= TOLERANCE
    return _result(ok, "bad_ids", "check_errors per rank %s (expected 2 each), rel_l2 max %.2e"
                   % (counts, max(errs)))


def run_too_many(m):
    n = m.max_tokens + 1
    t = m.tokens(0, m.max_tokens)
    y = torch.empty((n, m.hidden), dtype=torch.bfloat16, device=m.device)
    before = m.buffers[0].clone()
    try:
        m.layers[0].forward(n, *m.weights[0], y, stream=m.streams[0])
        msg = None
    except megamoe.MegaMoEError as e:
        msg = str(e)
    m.synchronize()
    unchanged = torch.equal(before, m.buffers[0])
    del t
    ok = msg is not None and unchanged
    return _result(ok, "too_many_tokens", "forward(T + 1 = %d): %s; buffer %s" % (
        n, "raised: " + msg if msg else "DID NOT RAISE", "unchanged" if unchanged else "CHANGED"))


def run_overflow(m):
    # Every token lists expert 0 in all K slots: rank 0 (which holds expert
    # 0) receives R * T * K rows for one expert, past the worst-case pool of
    # R * T * min(K, L) + L * (BM - 1) rows when K > L.
    n = m.max_tokens
    inputs = []
    for r in range(m.ranks):
        t = m.tokens(r, n, seed=r)
        t.topk_idx.zero_()
        inputs.append(t)
    m.forward(inputs)
    m.synchronize()
    pool = next(reg for reg in m.layout["regions"] if reg["name"] == "l1_pool")
    pool_rows = pool["bytes"] // m.hidden
    info = m.region(0, "pool_info")[:2].tolist()
    msgs = []
    for r in range(m.ranks):
        try:
            msgs.append("rank %d: %d bad ids, no error" % (r, m.layers[r].check_errors()))
        except megamoe.MegaMoEError as e:
            msgs.append("rank %d: %s" % (r, e))
    guards = all(m.guard_intact(r) for r in range(m.ranks))
    ok = ("routed more slots" in msgs[0] and info[1] <= pool_rows and guards)
    return _result(ok, "overflow", "%d rows sent to rank 0 for a %d-row pool; pool_info "
                   "(blocks, rows) = %s; guard bytes %s; %s"
                   % (m.ranks * n * m.topk, pool_rows, info, "intact" if guards else "CHANGED",
                      " | ".join(msgs)))


def _forward_until_trap(m, launching, waited):
    """Launches forward on the ranks `launching` and synchronizes the streams of the ranks
    `waited`; returns (the first CUDA error's text or None, seconds from launch, the timed-out
    wait's report: megamoe.timeout_report(), read after the trap; the runtime also prints it)."""
    inputs = [m.tokens(r, m.max_tokens, seed=r) for r in range(m.ranks)]
    start = time.time()
    m.forward(inputs, ranks=launching)
    err = None
    try:
        for r in waited:
            m.streams[r].synchronize()
    except RuntimeError as e:
        err = str(e)
    return err, time.time() - start, megamoe.timeout_report()


def run_never_arrives(m, timeout_s):
    # Rank R-1 never calls forward: every other rank's moe_layout waits at
    # the cross-rank barrier until its timeout, prints the counter it waited
    # for and traps (the CUDA context is lost: run this scenario alone).
    err, elapsed, report = _forward_until_trap(m, range(m.ranks - 1), [0])
    ok = err is not None and elapsed <= timeout_s and "cross-rank barrier" in report
    # The runtime printed the report (the timeout line) on stdout, before this line.
    return _result(ok, "never_arrives", "rank %d never arrives: the others' stream ended after "
                   "%.1f s (limit %.0f s) with: %s; report: %s"
                   % (m.ranks - 1, elapsed, timeout_s, (err or "NO ERROR").splitlines()[0],
                      report or "NONE"))


def run_missing_arrival(m, timeout_s):
    # A layer compiled with megamoe-expand test-missing-arrivals=N (the
    # fused-gemm schedule): its L2 tiles wait for arrivals that never come,
    # so the wait must end in its timeout message and a trap, not a hang.
    err, elapsed, report = _forward_until_trap(m, range(m.ranks), range(m.ranks))
    ok = err is not None and elapsed <= timeout_s and "'l2_arrival'" in report
    return _result(ok, "missing_arrival", "the L2 arrival wait ended after %.1f s (limit %.0f s) "
                   "with: %s; report: %s" % (elapsed, timeout_s, (err or "NO ERROR").splitlines()[0],
                                             report or "NONE"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("layer_dir")
    p.add_argument("scenario", choices=["forward", "bad_ids", "too_many_tokens", "overflow",
                                        "never_arrives", "missing_arrival"])
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--timeout", type=float, default=30.0,
                   help="never_arrives, missing_arrival: seconds within which the wait must "
                   "time out")
    p.add_argument("--serial-launch", action="store_true",
                   help="launch every rank's forward from the main thread")
    p.add_argument("--buffers", choices=["zero", "empty"], default="zero",
                   help="symmetric buffers zero-filled or left uninitialized")
    p.add_argument("--no-oracle", action="store_true",
                   help="forward: check y for being finite only (no FP32 oracle)")
    p.add_argument("--save-y", help="forward: save every rank's y (CPU tensors) to this file")
    p.add_argument("--fast-exit", action="store_true",
                   help="end with os._exit after closing the layers (no interpreter teardown)")
    a = p.parse_args(argv)
    manifest, doc = manifest_in(a.layer_dir)
    m = MultiRankLayer(manifest, doc, a.device, serial_launch=a.serial_launch,
                       buffers=a.buffers)
    if a.scenario in ("never_arrives", "missing_arrival"):
        rc = (run_never_arrives if a.scenario == "never_arrives"
              else run_missing_arrival)(m, a.timeout)
        # The context is gone: no orderly teardown. The device printf lines
        # sit in C stdio's buffer, which os._exit would drop.
        import ctypes
        ctypes.CDLL(None).fflush(None)
        os._exit(rc)
    if a.scenario == "forward":
        rc = run_forward(m, oracle=not a.no_oracle, save_y=a.save_y)
    else:
        rc = {"bad_ids": run_bad_ids, "too_many_tokens": run_too_many,
              "overflow": run_overflow}[a.scenario](m)
    m.close()
    progress("closed")
    if a.fast_exit:
        # Under a sanitizer the interpreter's teardown took minutes; every
        # kernel has finished and been checked by now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    return rc


if __name__ == "__main__":
    sys.exit(main())
