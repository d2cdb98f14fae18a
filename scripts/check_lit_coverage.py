#!/usr/bin/env python3
"""Fail when a *.mlir file under the test tree is not run by lit.

lit discovers tests by suffix and skips excluded folders silently, so a test
placed in the wrong folder, or one without a RUN line, would never fail. This
script lists what lit discovers and compares it with what is on disk.
"""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lit", required=True, help="path of the lit executable")
    ap.add_argument("--source", required=True, help="test source folder")
    ap.add_argument("--suite", required=True, help="test build folder (lit.site.cfg.py)")
    args = ap.parse_args()

    out = subprocess.run([args.lit, "--show-tests", args.suite],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stdout + out.stderr)
        return "error: lit --show-tests failed"
    discovered = set()
    for line in out.stdout.splitlines():
        if "::" in line:
            discovered.add(line.split("::", 1)[1].strip())

    on_disk = set()
    for root, _, files in os.walk(args.source):
        for f in files:
            if f.endswith(".mlir"):
                on_disk.add(os.path.relpath(os.path.join(root, f), args.source))

    missing = sorted(on_disk - discovered)
    no_run = []
    for rel in sorted(on_disk & discovered):
        with open(os.path.join(args.source, rel), encoding="utf-8") as fh:
            if "RUN:" not in fh.read():
                no_run.append(rel)
    for rel in missing:
        print(f"error: {rel} is not run by lit (excluded folder or suffix)")
    for rel in no_run:
        print(f"error: {rel} has no RUN line")
    if missing or no_run:
        return 1
    print(f"ok: all {len(on_disk)} .mlir files under test/ are lit tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
