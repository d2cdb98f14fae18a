"""pytest setup: the package path, and visible skips where torch, a GPU or the
C++ reference CLI is missing."""

import os
import shutil
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "bench"))

try:
    import torch
except ImportError:  # each test module skips itself with the reason
    torch = None


@pytest.fixture
def device():
    """A CUDA device when one is visible, else the CPU (the oracle runs on both)."""
    if torch is None:
        pytest.skip("PyTorch is not installed")
    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


@pytest.fixture
def cuda():
    if torch is None or not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible: the torch baseline needs one")
    major, _ = torch.cuda.get_device_capability(0)
    if major != 9:
        pytest.skip("the 1x128/128x128 block-scaled torch._scaled_mm needs an SM90 GPU")
    return torch.device("cuda", 0)


@pytest.fixture
def reference_bin():
    """The C++ reference CLI: $MEGAMOE_REFERENCE_BIN, build/release/bin, or PATH."""
    for cand in (os.environ.get("MEGAMOE_REFERENCE_BIN"),
                 os.path.join(REPO, "build", "release", "bin", "megamoe-reference"),
                 shutil.which("megamoe-reference")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    pytest.skip("megamoe-reference not built (ninja -C build/release megamoe-reference) "
                "and MEGAMOE_REFERENCE_BIN not set")
