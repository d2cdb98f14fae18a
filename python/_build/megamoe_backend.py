"""A PEP 517 build backend for the megamoe package that needs nothing but the
standard library, so `pip install ./python` works without network access (no
setuptools download into pip's isolated build environment).

The wheel holds the megamoe and megamoe_testing packages (megamoe/lib/
libmegamoe_runtime.so too when present, as the GPU bundle lays it out) and
megamoe/_build_paths.py naming the repository this was built from, so the
installed package finds libmegamoe_runtime in that repository's build trees
(build/release/lib, build/runtime/lib) when MEGAMOE_RUNTIME_LIB is not set.
"""
import base64
import hashlib
import os
import zipfile

NAME, VERSION = "megamoe", "0.1.0"
PACKAGES = ("megamoe", "megamoe_testing")
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
TAG = "py3-none-any"


def _files():
    for pkg in PACKAGES:
        root = os.path.join(HERE, pkg)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for f in sorted(filenames):
                if f.endswith((".py", ".so", ".md")):
                    full = os.path.join(dirpath, f)
                    yield os.path.relpath(full, HERE), full


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: PyTorch bindings of the megamoe runtime (libmegamoe_runtime)\n"
            "Requires-Python: >=3.8\n" % (NAME, VERSION))


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = "%s-%s.dist-info" % (NAME, VERSION)
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    info = "%s-%s.dist-info" % (NAME, VERSION)
    repo = os.path.dirname(HERE)
    entries = [(arc, open(full, "rb").read()) for arc, full in _files()]
    entries.append(("megamoe/_build_paths.py",
                    ('"""Written by the build backend: the repository this package was '
                     'built from."""\nREPO = %r\n' % repo).encode()))
    entries.append((info + "/METADATA", _metadata().encode()))
    entries.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: megamoe_backend\n"
                                      "Root-Is-Purelib: true\nTag: %s\n" % TAG).encode()))
    record = [_record_line(a, d) for a, d in entries] + [info + "/RECORD,,"]
    entries.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            z.writestr(arc, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    base = "%s-%s" % (NAME, VERSION)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz") as t:
        for name in ("pyproject.toml", "_build"):
            t.add(os.path.join(HERE, name), arcname=base + "/" + name,
                  filter=lambda i: None if "__pycache__" in i.name else i)
        for arc, full in _files():
            t.add(full, arcname=base + "/" + arc)
    return base + ".tar.gz"
