#!/usr/bin/env python3
"""Seed corpora for the fuzzers, from the tests' conformance models.

    make_corpus.py CONFORMANCE_DIR OUT_DIR    writes OUT_DIR/{npy,model,ops}/

npy:   every .npy file of the models.
model: every model.json, its sourcePath moved to "<case>/input.npy" (fuzz_model's scratch folder
       holds each case's input there) and its writeFile targets to "out/<case>.npy".
ops:   each model's desc, encoded in fuzz_ops's byte format (tests/fuzz/fuzz_ops.cpp, make_desc)
       with every value in its raw form, so that the fuzzer starts from the documented cases.
"""
import json
import shutil
import struct
import sys
from pathlib import Path

TYPES = ["FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8", "FLOAT64", "UINT64", "INT64"]
OPS = ["DEPTH_TO_SPACE", "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1", "SLICE", "SLICE1", "PADDING", "PADDING1"]
MODES = ["CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP"]
RAW = 0xF0  # the byte that selects a value's raw form


def strip(text, prefix):
    return text[len(prefix):] if text.startswith(prefix) else text


def u32(v):
    return bytes([RAW]) + struct.pack("<I", v)


def i32(v):
    return bytes([RAW]) + struct.pack("<i", v)


def tensor(t):
    out = bytes([0])  # flags: none
    if "Strides" in t:
        out += bytes([1]) + b"".join(u32(s) for s in t["Strides"])
    else:
        out += bytes([0])
    out += bytes([RAW]) + struct.pack("<Q", t["TotalTensorSizeInBytes"]) if "TotalTensorSizeInBytes" in t else bytes([0])
    return out + bytes([0])  # alignment: none


def encode(op, d):
    """The bytes fuzz_ops decodes to this desc (level 6_4, buffers of the desc's size, one thread)."""
    kind = OPS.index(strip(op, "DML_OPERATOR_"))
    x, y = d["InputTensor"], d["OutputTensor"]
    rank = len(x["Sizes"])
    type_index = TYPES.index(strip(x["DataType"], "DML_TENSOR_DATA_TYPE_"))
    out = bytes([1, kind, type_index, 0, 0 if kind < 4 else rank - 1, 0xE0])  # desc mode, op, types, rank, no derive
    out += b"".join(u32(s) for s in x["Sizes"])
    if kind < 4:
        order = strip(d.get("Order", "DEPTH_COLUMN_ROW"), "DML_DEPTH_SPACE_ORDER_")
        out += u32(d["BlockSize"]) + u32(0 if order == "DEPTH_COLUMN_ROW" else 1)
        out += b"".join(u32(s) for s in y["Sizes"]) + tensor(x) + tensor(y)
    else:
        out += bytes([0])  # the op arrays have DimensionCount = rank
        if kind == 4:
            out += b"".join(u32(v) for v in d["Offsets"]) + b"".join(u32(v) for v in d["Strides"])
            out += b"".join(u32(v) for v in d["Sizes"])
            out += b"".join(u32(s) for s in y["Sizes"]) + tensor(x) + tensor(y)
        elif kind == 5:
            out += b"".join(u32(v) for v in d["InputWindowOffsets"])
            for size, stride in zip(d["InputWindowSizes"], d["InputWindowStrides"]):
                out += u32(size) + i32(stride)
            out += b"".join(u32(s) for s in y["Sizes"]) + tensor(x) + tensor(y)
        else:
            out += b"".join(u32(v) for v in d["StartPadding"]) + b"".join(u32(v) for v in d["EndPadding"])
            out += u32(MODES.index(strip(d.get("PaddingMode", "CONSTANT"), "DML_PADDING_MODE_")))
            out += b"".join(u32(s) for s in y["Sizes"])
            if kind == 6:
                value = d.get("PaddingValue", 0.0)
                out += tensor(x) + tensor(y) + struct.pack("<f", float(value) if not isinstance(value, str) else 0.0)
            else:
                value = d.get("PaddingValue", {})
                member = next(iter(value.values()), 0) if isinstance(value, dict) else 0
                raw = struct.pack("<q", int(member)) if isinstance(member, int) else struct.pack("<d", float(member))
                out += bytes([0]) + raw + tensor(x) + tensor(y)
    return out + bytes([14, 0, 0])  # level 6_4, exact buffers, one thread


def main():
    conformance, out = Path(sys.argv[1]), Path(sys.argv[2])
    for sub in ("npy", "model", "ops"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for case in sorted(p for p in conformance.iterdir() if (p / "model.json").is_file()):
        for npy in case.glob("*.npy"):
            shutil.copyfile(npy, out / "npy" / f"{case.name}_{npy.name}")
        model = json.loads((case / "model.json").read_text())
        for resource in model.get("resources", {}).values():
            init = resource.get("initialValues", {})
            if isinstance(init, dict) and "sourcePath" in init:
                init["sourcePath"] = f"{case.name}/{init['sourcePath']}"
        for command in model.get("commands", []):
            if command.get("type") == "writeFile":
                command["targetPath"] = f"out/{case.name}.npy"
        (out / "model" / f"{case.name}.json").write_text(json.dumps(model))
        for dispatchable in model.get("dispatchables", {}).values():
            try:
                (out / "ops" / f"{case.name}.bin").write_bytes(encode(dispatchable["type"], dispatchable["desc"]))
            except (KeyError, ValueError) as e:
                print(f"make_corpus: {case.name}: not encoded ({e})", file=sys.stderr)
    counts = {sub: len(list((out / sub).iterdir())) for sub in ("npy", "model", "ops")}
    print("make_corpus: " + ", ".join(f"{n} {sub} seeds" for sub, n in counts.items()))


if __name__ == "__main__":
    main()
