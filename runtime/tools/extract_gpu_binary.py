#!/usr/bin/env python3
"""Extracts the objects of `gpu.binary` ops from MLIR text into files.

    extract_gpu_binary.py INPUT.mlir OUT_DIR

Writes OUT_DIR/<binary symbol>.cubin (format=bin) or .ptx (format=isa) for
each `gpu.binary @name [#gpu.object<..., bin = "...">]`, decoding MLIR's string
escapes (\\XX hex bytes, \\\\ for a backslash). Used to feed cubins from
megamoe-opt to the runtime until megamoe-opt writes them itself.
"""
import os
import re
import sys

BINARY = re.compile(r'gpu\.binary\s+@([A-Za-z_][\w$.]*)')
OBJECT_BIN = re.compile(r'bin\s*=\s*"')


def decode_mlir_string(text, start):
    """Decodes the MLIR string literal whose body begins at text[start]."""
    out = bytearray()
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            return bytes(out), i + 1
        if c == '\\':
            nxt = text[i + 1]
            if nxt in '\\"':
                out.append(ord(nxt))
                i += 2
                continue
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
            continue
        out.extend(c.encode('utf-8'))
        i += 1
    raise ValueError('unterminated string literal')


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    text = open(argv[1], encoding='utf-8').read()
    os.makedirs(argv[2], exist_ok=True)
    found = 0
    for m in BINARY.finditer(text):
        obj = OBJECT_BIN.search(text, m.end())
        if not obj:
            continue
        data, _ = decode_mlir_string(text, obj.end())
        ext = '.cubin' if data[:4] == b'\x7fELF' else '.ptx'
        path = os.path.join(argv[2], m.group(1) + ext)
        with open(path, 'wb') as f:
            f.write(data)
        print(f'{path}: {len(data)} bytes')
        found += 1
    if not found:
        sys.stderr.write(f'{argv[1]}: no gpu.binary with a bin = "..." object\n')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
