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


def exchange(symm, module, label):
    """Rank r launches the compiler-made store_tid kernel (out[i] = i for 64
    threads) once per peer p with out = its own slot r of p's buffer, reached
    as local + offsets[p]; after a barrier every rank finds 0..63 in every
    slot it had zeroed. (torch cannot wrap the peer addresses of NCCL's flat
    mapping as tensors, so a kernel of ours writes them.)"""
    rank, n = symm.rank, symm.world_size
    slot = 256  # bytes: 64 int32
    symm.tensor(torch.int32, 0, n * 64).fill_(-1)
    torch.cuda.synchronize()
    symm.barrier()
    for p in range(n):
        module.launch("store_tid", out=symm.local_ptr + symm.offsets[p] + rank * slot)
    symm.barrier()
    mine = symm.tensor(torch.int32, 0, n * 64).view(n, 64)
    expect = torch.arange(64, dtype=torch.int32, device="cuda").expand(n, 64)
    ok = torch.equal(mine, expect) and not symm.barrier_timed_out()
    report(ok, "%s: a kernel wrote into every peer through the offsets" % label,
           "got %s" % mine[:, :4].tolist())


def main():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    module = megamoe.Module(os.path.join(os.environ["MEGAMOE_TEST_DATA"], "hello.manifest.json"),
                            device=torch.cuda.current_device())
    symm = megamoe.SymmetricBuffer(64 << 20, dist.group.WORLD)
    report(symm.world_size == dist.get_world_size(), "SymmetricBuffer over the process group")
    exchange(symm, module, "NCCL window")
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
        report(all(ext.offsets[p] == (0 if p == rank else peers[p] - t.data_ptr())
                   for p in range(len(peers))), "offsets of torch symmetric memory peers")
        dist.barrier()
        torch.cuda.synchronize()
        exchange(ext, module, "torch symmetric memory")
        ext.close()
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
