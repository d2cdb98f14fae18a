"""`pip install ./python` into a fresh virtual environment, without network
(--no-index: the in-tree build backend needs nothing to download), then the
package imports from outside the repository and looks for
libmegamoe_runtime in this repository's build trees."""
import os
import subprocess
import sys

try:
    import pytest
except ImportError:  # run as a script (test/Python/pip-install.test)
    pytest = None


def _skip(msg):
    if pytest is None:
        print("pip install: skipped: " + msg)
        sys.exit(0)
    pytest.skip(msg)

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REPO = os.path.dirname(PYTHON_DIR)


def test_pip_install_into_a_fresh_venv_and_import(tmp_path):
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        _skip("python3 -m venv is not available: %s" % r.stderr.strip()[-200:])
    py = str(venv / "bin" / "python")
    r = subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-cache-dir", PYTHON_DIR],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    probe = ("import megamoe, megamoe._capi as c, megamoe._build_paths as b; "
             "print(megamoe.__file__); print(b.REPO); "
             "print('\\n'.join(c._candidates()))")
    env = dict(os.environ, MEGAMOE_RUNTIME_LIB="/nonexistent/libmegamoe_runtime.so")
    env.pop("PYTHONPATH", None)
    r = subprocess.run([py, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path),
                       env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.split("\n")
    assert lines[0].startswith(str(venv)), lines[0]  # the installed copy, not the checkout
    assert lines[1] == REPO
    assert lines[2] == "/nonexistent/libmegamoe_runtime.so"
    assert os.path.join(REPO, "build/release/lib/libmegamoe_runtime.so") in lines
    # Without any library the error names every place it looked.
    r = subprocess.run([py, "-c", "import megamoe; megamoe.version()"], capture_output=True,
                       text=True, cwd=str(tmp_path),
                       env=dict(env, MEGAMOE_RUNTIME_LIB="/nonexistent/lib.so"))
    if r.returncode != 0 and "cannot find" in r.stderr:
        assert "MEGAMOE_RUNTIME_LIB" in r.stderr and "/nonexistent/lib.so" in r.stderr


if __name__ == "__main__":
    import pathlib
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        test_pip_install_into_a_fresh_venv_and_import(pathlib.Path(tmp))
    print("pip install: ok")
