"""megamoe.compile: a compiled layer from a cache keyed by what it was compiled for.

    manifest = megamoe.compile(dict(hidden=4096, intermediate=2048, experts=256, topk=6,
                                    ranks=8, max_tokens=8192, clamp=10.0), "~/.cache/megamoe")
    buf = megamoe.get_symm_buffer(manifest, group)

The key is (config, plan options, chip, compiler version); the cache is the
runtime's (megamoe_compile, runtime/include/megamoe/runtime/Cache.h), so C++
and Python callers share entries. On a miss it runs megamoe-opt once for every
variant of the plan; without megamoe-opt it raises NotAvailableError whose
message is the exact command to run.
"""
import ctypes
import os
import shutil

from ._capi import check, lib

__all__ = ["compile", "layer_options"]

# config key -> megamoe-opt --megamoe-layer option
_OPTIONS = (("hidden", "hidden"), ("intermediate", "intermediate"), ("experts", "experts"),
            ("topk", "topk"), ("ranks", "ranks"), ("max_tokens", "max-tokens"),
            ("chip", "chip"), ("clamp", "clamp"), ("requant_block", "requant-block"),
            ("fast_math", "fast-math"))


def layer_options(config):
    """The --megamoe-layer option string of a config dict (hidden,
    intermediate, experts, topk, ranks, max_tokens; optional chip, clamp,
    requant_block, fast_math)."""
    known = {k for k, _ in _OPTIONS}
    unknown = set(config) - known
    if unknown:
        raise TypeError("megamoe.compile: unknown config field(s) %s (known: %s)"
                        % (", ".join(sorted(unknown)), ", ".join(k for k, _ in _OPTIONS)))
    parts = []
    for key, opt in _OPTIONS:
        v = config.get(key)
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        parts.append("%s=%s" % (opt, v))
    return " ".join(parts)


def _find_megamoe_opt():
    env = os.environ.get("MEGAMOE_OPT")
    if env:
        return env
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    built = os.path.join(repo, "build", "release", "bin", "megamoe-opt")
    if os.path.exists(built):
        return built
    return shutil.which("megamoe-opt")


def compile(config, cache_dir, plan="schedule=unfused", megamoe_opt=None):  # noqa: A001
    """The manifest path of the layer `config` (a dict, see layer_options)
    compiled with megamoe-plan options `plan`, from `cache_dir`; compiles on a
    miss with `megamoe_opt` (default: $MEGAMOE_OPT, the repository's
    build/release/bin/megamoe-opt, or PATH)."""
    out = ctypes.create_string_buffer(4096)
    opt = megamoe_opt or _find_megamoe_opt()
    check(lib().megamoe_compile(layer_options(config).encode(), plan.encode(),
                                os.path.expanduser(cache_dir).encode(),
                                opt.encode() if opt else None, out, len(out)))
    return out.value.decode()
