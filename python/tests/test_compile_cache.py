"""megamoe.compile through the runtime's cache on a machine without a GPU:
a miss without megamoe-opt raises NotAvailableError with the exact command, a
miss with it compiles every variant once, a hit needs no compiler, and
layer_info reads the cached manifest. libmegamoe_runtime needs libcuda.so.1
only to load (none of this calls CUDA): without a driver the toolkit's stub
stands in.

    python3 python/tests/test_compile_cache.py RUNTIME_LIB MEGAMOE_OPT
(test/Python/compile-cache.test), or under pytest with $MEGAMOE_RUNTIME_LIB and
$MEGAMOE_OPT set.
"""
import json
import os
import subprocess
import sys
import tempfile

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

PROBE = r"""
import json, sys, time
import megamoe
cache, opt = sys.argv[1], sys.argv[2]
cfg = dict(hidden=512, intermediate=256, experts=8, topk=2, ranks=2, max_tokens=256, clamp=10.0)
try:
    megamoe.compile(cfg, cache, megamoe_opt=cache + "/no-such-megamoe-opt")
    print("missing: no error")
except megamoe.NotAvailableError as e:
    print("missing:", "run (then call again)" in str(e), "--megamoe-layer='chip=sm_90a clamp=10.0 experts=8" in str(e))
p = megamoe.compile(cfg, cache, megamoe_opt=opt)
m = json.load(open(p))
print("miss:", p.startswith(cache), [v["block_m"] for v in m["variants"]], len(m["kernels"]))
q = megamoe.compile(cfg, cache, megamoe_opt=cache + "/no-such-megamoe-opt")
print("hit:", q == p)
print("other plan:", megamoe.compile(cfg, cache, plan="schedule=unfused block-m=128", megamoe_opt=opt) != p)
config, nbytes = megamoe.layer_info(p)
print("layer_info:", config["max_tokens"], nbytes == m["buffer_layout"]["total_bytes"])
"""


def run(runtime_lib, megamoe_opt):
    with tempfile.TemporaryDirectory() as tmp:
        stub = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "stubs",
                            "libcuda.so")
        env = dict(os.environ, MEGAMOE_RUNTIME_LIB=runtime_lib, PYTHONPATH=PYTHON_DIR)
        if os.path.exists(stub):  # a driver, when present, comes first on the search path
            os.symlink(stub, os.path.join(tmp, "libcuda.so.1"))
            env["LD_LIBRARY_PATH"] = ":".join(
                p for p in (env.get("LD_LIBRARY_PATH"), tmp) if p)
        r = subprocess.run([sys.executable, "-c", PROBE, os.path.join(tmp, "cache"), megamoe_opt],
                           capture_output=True, text=True, env=env)
        return r.returncode, r.stdout, r.stderr


def test_compile_cache_hit_miss_and_missing_compiler():
    import pytest
    lib, opt = os.environ.get("MEGAMOE_RUNTIME_LIB"), os.environ.get("MEGAMOE_OPT")
    if not lib or not opt:
        pytest.skip("set MEGAMOE_RUNTIME_LIB and MEGAMOE_OPT")
    rc, out, err = run(lib, opt)
    assert rc == 0, err
    assert out.split("\n")[:5] == ["missing: True True", "miss: True [64, 128] 12", "hit: True",
                                   "other plan: True", "layer_info: 256 True"], out


if __name__ == "__main__":
    rc, out, err = run(sys.argv[1], sys.argv[2])
    sys.stdout.write(out)
    sys.stderr.write(err[-3000:])
    sys.exit(rc)
