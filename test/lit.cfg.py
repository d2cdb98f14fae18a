# -*- Python -*-
# lit configuration of the megamoe test suite.
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "megamoe"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.megamoe_obj_root, "test")
# Inputs/ holds files that tests read; lit-coverage.test makes sure no *.mlir
# hides there (or anywhere else lit does not look).
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMPDIR", "CUDA_HOME"])
llvm_config.use_default_substitutions()
# `not` and `count` at the start of a RUN line come from PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%megamoe_src_root", config.megamoe_src_root))
config.substitutions.append(("%megamoe_obj_root", config.megamoe_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%lit", config.lit_executable))

llvm_config.add_tool_substitutions(
    ["megamoe-opt", "warpspec-opt", "megamoe-manifest-info"],
    [config.megamoe_tools_dir, config.llvm_tools_dir])

# The CUDA toolkit's assembler: every generated kernel is assembled in CI.
ptxas = os.path.join(config.cuda_home, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.environment["CUDA_HOME"] = config.cuda_home


def visible_compute_capabilities():
    """Compute capabilities of the GPUs nvidia-smi can see (empty without one)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


# GPU tests need a Hopper GPU (sm_90); elsewhere they show as UNSUPPORTED.
# MEGAMOE_DISABLE_GPU_TESTS=1 turns them off on a machine that has one.
if os.environ.get("MEGAMOE_DISABLE_GPU_TESTS") != "1":
    caps = visible_compute_capabilities()
    if "9.0" in caps:
        config.available_features.add("cuda-sm90")
    if len([c for c in caps if c == "9.0"]) >= 2:
        config.available_features.add("cuda-sm90-x2")
