"""Two-rank smoke test of the Python package; run one process per GPU:

    megamoe-launch -n 2 -- python3 python/tests/dist_smoke.py

(or torchrun --nproc-per-node 2). The NCCL unique id travels through the
torch.distributed process group. Prints PASS/FAIL lines; exits non-zero on a
failure.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import megamoe  # noqa: E402

failures = 0


def report(ok, name, why=""):
    global failures
    failures += not ok
    print("[r%d] %s python %s%s" % (dist.get_rank(), "PASS" if ok else "FAIL", name,
                                    "" if ok else ": " + why), flush=True)


def peer_view(symm, peer, offset, numel, dtype):
    """A tensor over `numel` elements at `offset` of `peer`'s buffer."""
    c = megamoe._capi.Tensor()
    c.data = symm.local_ptr + symm.offsets[peer] + offset
    c.dtype = megamoe._torch._dtype_map()[dtype]
    c.ndim = 1
    c.shape[0] = numel
    return megamoe._torch.from_c(c, symm.device)


def exchange(symm, label):
    rank, n = symm.rank, symm.world_size
    numel = 1 << 20
    slot = numel * 4
    symm.tensor(torch.int32, 0, n * numel).zero_()
    symm.barrier()
    for p in range(n):
        dst = peer_view(symm, p, rank * slot, numel, torch.int32)
        dst.copy_(torch.arange(numel, dtype=torch.int32, device="cuda") + 1000 * rank + 7 * p)
    symm.barrier()
    mine = symm.tensor(torch.int32, 0, n * numel).view(n, numel)
    expect = torch.stack([torch.arange(numel, dtype=torch.int32, device="cuda") + 1000 * s + 7 * rank
                          for s in range(n)])
    ok = torch.equal(mine, expect) and not symm.barrier_timed_out()
    report(ok, "%s: torch copies into every peer through the offsets" % label)


def main():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    symm = megamoe.SymmetricBuffer(64 << 20, dist.group.WORLD)
    report(symm.world_size == dist.get_world_size(), "SymmetricBuffer over the process group")
    exchange(symm, "NCCL window")
    symm.close()

    # Peer pointers from PyTorch symmetric memory (multicast disabled).
    try:
        import torch.distributed._symmetric_memory as symm_mem
        nbytes = 64 << 20
        t = symm_mem.empty(nbytes, dtype=torch.uint8, device="cuda")
        hdl = symm_mem.rendezvous(t, dist.group.WORLD.group_name)
        peers = [hdl.get_buffer(p, (nbytes,), torch.uint8).data_ptr()
                 for p in range(hdl.world_size)]
    except Exception as e:  # report the reason rather than hide it
        print("[r%d] SKIP python torch symmetric memory: %s" % (rank, e), flush=True)
    else:
        ext = megamoe.SymmetricBuffer.from_peers(t.data_ptr(), peers, nbytes, rank)
        dist.barrier()
        torch.cuda.synchronize()
        exchange(ext, "torch symmetric memory")
        ext.close()
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
