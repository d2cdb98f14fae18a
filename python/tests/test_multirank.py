"""The one-GPU multi-rank mode (megamoe_testing/multirank.py) and the fault
paths it reaches: R ranks of a layer in one process on one GPU.

Needs compiled layers in $MEGAMOE_LAYER_DIR as scripts/gpu-sanitize-bundle.sh
lays them out (san_ep1, san_r2, san_r4, overflow_r2, timeout_r2,
missing_arrival_ep1: a fused-gemm layer with test-missing-arrivals=1) and a GPU;
skipped otherwise. Each scenario runs in its own process (never_arrives ends
its CUDA context with the barrier's trap).
"""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAYER_DIR = os.environ.get("MEGAMOE_LAYER_DIR", os.path.join(REPO, "layers"))

CASES = [
    ("san_ep1", "forward"), ("san_r2", "forward"), ("san_r4", "forward"),
    ("san_ep1", "bad_ids"), ("san_r2", "bad_ids"),
    ("san_ep1", "too_many_tokens"), ("san_r2", "too_many_tokens"),
    ("overflow_r2", "overflow"), ("timeout_r2", "never_arrives"),
    ("missing_arrival_ep1", "missing_arrival"),
]


@pytest.mark.parametrize("layer,scenario", CASES, ids=["%s-%s" % c for c in CASES])
def test_multirank(layer, scenario):
    if not torch.cuda.is_available():
        pytest.skip("no GPU visible")
    path = os.path.join(LAYER_DIR, layer)
    if not os.path.isdir(path):
        pytest.skip("layer %s not compiled (scripts/gpu-sanitize-bundle.sh)" % layer)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "megamoe_testing.multirank", path, scenario],
                       env=env, capture_output=True, text=True, timeout=180)
    print(p.stdout[-4000:])
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    if scenario == "missing_arrival":
        assert "megamoe: timeout waiting for counter 'l2_arrival'" in p.stdout
    if scenario == "never_arrives":
        assert ("megamoe: timeout in cross-rank barrier 'moe_layout: barriers[0], before the pull'"
                " on rank 0" in p.stdout)


class _Props:
    multi_processor_count = 132


@pytest.mark.parametrize("kernel", ["moe_dispatch_bm64", "moe_combine", "moe_fused_bm128"])
def test_co_residency_refuses_grids_that_cannot_all_be_resident(kernel):
    # Kernels with grid barriers wait for all their CTAs: R ranks' grids of
    # num_sms CTAs each must fit the GPU's SMs at once.
    sys.path.insert(0, os.path.join(REPO, "python"))
    from megamoe_testing.multirank import check_co_residency
    doc = {"variants": [{"schedule": [kernel]}], "plan": {"num_sms": 132}}
    with pytest.raises(ValueError, match="plan the layer with num-sms=66"):
        check_co_residency(doc, 2, _Props())
    check_co_residency(dict(doc, plan={"num_sms": 66}), 2, _Props())
    check_co_residency(doc, 1, _Props())
    check_co_residency({"schedule": ["moe_fused_gemm"], "plan": {"num_sms": 132}}, 2, _Props())
