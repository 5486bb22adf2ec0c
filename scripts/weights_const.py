#!/usr/bin/env python3
"""Writes the weights text of a damka weights file (.dkw) into a `pub const NAME: Weights` of
src/eval/weights.rs, so that the constants compiled into the evaluation match the built-in
file (a test checks that they do).

Usage: scripts/weights_const.py src/eval/data/international.dkw INTERNATIONAL
"""
import re
import struct
import sys


def weights_text(path):
    data = open(path, "rb").read()
    if not data.startswith(b"DAMKAEVL"):
        return data.decode()
    (length,) = struct.unpack("<I", data[16:20])
    return data[20 : 20 + length].decode()


def main():
    path, name = sys.argv[1], sys.argv[2]
    fields = []
    for line in weights_text(path).splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        key, *values = line.split()
        value = values[0] if len(values) == 1 and not key.startswith(("advance_", "runaway", "column")) else "[" + ", ".join(values) + "]"
        fields.append(f"    {key}: {value},")
    source = open("src/eval/weights.rs").read()
    pattern = re.compile(r"(pub const " + name + r": Weights = Weights \{\n)(.*?)(\n\};)", re.S)
    if not pattern.search(source):
        sys.exit(f"no `pub const {name}: Weights` in src/eval/weights.rs")
    source = pattern.sub(lambda m: m.group(1) + "\n".join(fields) + m.group(3), source, count=1)
    open("src/eval/weights.rs", "w").write(source)


if __name__ == "__main__":
    main()
