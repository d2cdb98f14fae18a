"""One process per GPU (rank r on cuda:r) with an NCCL process group.

NVLink multicast stays off (NCCL_NVLS_ENABLE=0 etc.): the GPU machines here
must never use it.
"""

import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _entry(rank, world, port, fn, args):
    os.environ.update(NO_MULTICAST)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    if world > 1:
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    try:
        fn(rank, world, *args)
    finally:
        if world > 1:
            dist.destroy_process_group()


def spawn(fn, world: int, *args) -> None:
    """Runs fn(rank, world, *args) in `world` processes; raises if one fails."""
    if torch.cuda.device_count() < world:
        raise RuntimeError(f"{world} ranks need {world} GPUs, {torch.cuda.device_count()} visible")
    os.environ.update(NO_MULTICAST)
    mp.spawn(_entry, args=(world, _free_port(), fn, args), nprocs=world, join=True)


def group():
    return dist.group.WORLD if dist.is_initialized() else None


def world_size() -> int:
    return dist.get_world_size() if dist.is_initialized() else 1


def gather_objects(obj):
    """Every rank's obj, as a list indexed by rank (a list of one at EP1)."""
    if not dist.is_initialized():
        return [obj]
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out
