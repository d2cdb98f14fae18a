"""The e4m3 rounding of the Python oracle equals the C++ reference bit for bit."""

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed: the oracle tests need it")
pytest.importorskip("numpy", reason="numpy is not installed")

import subprocess

import numpy as np
import torch

from megamoe_testing.fp8 import E4M3, quantize_blocks, to_e4m3


def test_torch_cast_needs_the_clamp():
    # torch's cast is RNE but not saturating: 464 (the tie between 448 and
    # the NaN code) rounds to 448, larger values become NaN. The oracle's
    # to_e4m3 clamps first.
    raw = torch.tensor([464.0, 500.0]).to(E4M3).float()
    print("torch cast of 464, 500 without clamp:", raw.tolist())
    assert raw[0] == 448 and torch.isnan(raw[1]), raw
    sat = to_e4m3(torch.tensor([464.0, 1e9, float("inf"), -float("inf")])).float()
    assert sat.tolist() == [448.0, 448.0, 448.0, -448.0]
    # Ties to even: 1.0625 lies between 1.0 (even) and 1.125.
    assert to_e4m3(torch.tensor([1.0625, 1.1875])).float().tolist() == [1.0, 1.25]


def _probe_values():
    """All bf16 values as float32, exact midpoints between neighbouring e4m3
    values, their float neighbours, and random floats over the e4m3 range."""
    allbf16 = torch.arange(0, 1 << 16, dtype=torch.int32).to(torch.int16).view(torch.bfloat16).float()
    codes = torch.arange(0, 0x7E, dtype=torch.int16).to(torch.uint8).view(E4M3).float()
    nxt = torch.arange(1, 0x7F, dtype=torch.int16).to(torch.uint8).view(E4M3).float()
    mid = (codes + nxt) / 2
    near = torch.cat([mid, torch.nextafter(mid, torch.full_like(mid, 1e9)), torch.nextafter(mid, torch.zeros_like(mid))])
    g = torch.Generator().manual_seed(3)
    rnd = torch.exp2(torch.rand(100000, generator=g) * 22 - 12) * (torch.rand(100000, generator=g) - 0.5).sign()
    vals = torch.cat([allbf16, near, -near, rnd])
    return vals.contiguous()


def test_e4m3_decode_table_matches_cpp(reference_bin, tmp_path):
    out = tmp_path / "table.f32"
    subprocess.run([reference_bin, "e4m3-decode", str(out)], check=True)
    cpp = torch.from_numpy(np.fromfile(out, dtype=np.float32))
    py = torch.arange(256, dtype=torch.int16).to(torch.uint8).view(E4M3).float()
    assert torch.equal(torch.isnan(cpp), torch.isnan(py))
    ok = ~torch.isnan(py)
    assert torch.equal(cpp[ok], py[ok])


@pytest.mark.parametrize("on_gpu", [False, True])
def test_e4m3_encode_matches_cpp(reference_bin, tmp_path, on_gpu):
    if on_gpu and not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible")
    vals = _probe_values()
    vals.numpy().tofile(tmp_path / "in.f32")
    subprocess.run([reference_bin, "e4m3", str(tmp_path / "in.f32"), str(tmp_path / "out.u8")], check=True)
    cpp = torch.from_numpy(np.fromfile(tmp_path / "out.u8", dtype=np.uint8))
    dev = "cuda" if on_gpu else "cpu"
    py = to_e4m3(vals.to(dev)).view(torch.uint8).cpu()
    nan = torch.isnan(vals)
    assert torch.equal((cpp[nan] & 0x7F), torch.full_like(cpp[nan], 0x7F))
    mismatch = (cpp != py) & ~nan
    assert not mismatch.any(), f"{int(mismatch.sum())} values differ, e.g. {vals[mismatch][:8].tolist()}"


@pytest.mark.parametrize("block", [128, 64])
@pytest.mark.parametrize("on_gpu", [False, True])
def test_requant_matches_cpp_bitwise(reference_bin, tmp_path, block, on_gpu):
    if on_gpu and not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible")
    g = torch.Generator().manual_seed(5)
    a = torch.randn(37, 512, generator=g) * torch.exp(2 * torch.randn(37, 1, generator=g))
    a[3, 128:256] = 0  # an all-zero block
    a[4, 7] = 1e-30
    a.numpy().tofile(tmp_path / "a.f32")
    subprocess.run([reference_bin, "requant", str(tmp_path / "a.f32"), "512", str(block), str(tmp_path / "q.u8"),
                    str(tmp_path / "sf.f32")], check=True)
    q_cpp = torch.from_numpy(np.fromfile(tmp_path / "q.u8", dtype=np.uint8)).view(37, 512)
    sf_cpp = torch.from_numpy(np.fromfile(tmp_path / "sf.f32", dtype=np.float32)).view(37, 512 // block)
    q, sf = quantize_blocks(a.to("cuda" if on_gpu else "cpu"), block)
    assert torch.equal(sf.cpu(), sf_cpp)
    assert torch.equal(q.view(torch.uint8).cpu(), q_cpp)
