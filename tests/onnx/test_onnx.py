#!/usr/bin/env python3
"""The tool's ONNX node tests (`dmlref vectors --format onnx|both`, `dmlref run FOLDER`, `dmlref compare
X.pb Y.npy --op-desc model.onnx`).

    test_onnx.py DMLREF GROUP

GROUP is one of:
  roundtrip  2000 cases exported (seed 1) and run back; every output_K.pb agrees; the left-out summary
             counts by reason and the opsets are printed; every drawn JOIN and SPLIT is exported; then
             400 of `--ops reverse_subsequences,gather_elements` (seed 1) the same way: every
             GATHER_ELEMENTS exported, REVERSE_SUBSEQUENCES where ReverseSequence expresses it; then 600
             of `--ops gather,gather_nd,gather_nd1,scatter_elements,scatter_nd,one_hot` (seed 1): every
             one exported (Gather, GatherND at opsets 11 and 12, ScatterElements, ScatterND, OneHot)
             and run back, with their index types, negative indices, batch_dims, OneHot's indices
             past depth, strided tensors
  checker    (the same 2000 cases, 400 indexed ones and 600 of the six)
             onnx.checker.check_model(full_check=True) on every model of an opset Debian's onnx knows
             (<= 17), counting those beyond; every .pb is raw_data with the graph input's name, dims
             and type; and each model's ONNX meaning, evaluated with numpy (np.pad, slicing with
             ONNX's clamping, the reshape/transpose of the ONNX reference, np.concatenate, np.split, a
             reversed prefix per batch index, np.take_along_axis, np.take, tuple indexing per batch,
             copies written at the indexed places, one-hot by comparison), gives
             every output_K.pb bit for bit
  errors     models outside the mapped subset are refused naming node and attribute/input; a changed
             output_0.pb fails `run` with the report; compare reads .pb and model.onnx
  formats    --format both writes DxDispatch and ONNX files side by side; the default writes no ONNX
Needs python3 with the onnx and numpy modules (Debian: python3-onnx).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

DMLREF, GROUP = sys.argv[1], sys.argv[2]
failures = []


def run(args, cwd=None):
    return subprocess.run([DMLREF] + args, cwd=cwd, capture_output=True, text=True, timeout=600)


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print("FAIL %s\n%s" % (name, detail))


def case_dirs(root):
    return sorted(os.path.join(root, d) for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "model.onnx")))


def export(d, count, seed, fmt="onnx"):
    r = run(["vectors", "--out", d, "--count", str(count), "--seed", str(seed), "--format", fmt])
    check("vectors --format %s" % fmt, r.returncode == 0, r.stdout + r.stderr)
    return r


def roundtrip():
    with tempfile.TemporaryDirectory() as t:
        v = os.path.join(t, "v")
        r = export(v, 2000, 1)
        print(r.stdout, end="")
        m = re.search(r"onnx: exported (\d+) node tests, left out (\d+) \((.*)\)\n", r.stdout)
        check("summary line", m is not None, r.stdout)
        if m:
            exported, left = int(m.group(1)), int(m.group(2))
            check("exported + left out = 2000", exported + left == 2000, r.stdout)
            reasons = dict((k.strip(), int(n)) for k, n in re.findall(r"([^;]+): (\d+)", m.group(3)))
            check("reasons add up", sum(reasons.values()) == left, str(reasons))
            for word in ("SYMMETRIC", "REFLECTION with a pad >= its axis size", "SPACE_TO_DEPTH1 COLUMN_ROW_DEPTH",
                         "strided input", "broadcast input"):
                check("left out by reason: " + word, any(k.startswith(word) for k in reasons), str(reasons))
            check("folders = exported", len(case_dirs(v)) == exported, str(len(case_dirs(v))))
        check("opset counts", re.search(r"onnx opsets: 1: \d+, 4: \d+, 6: \d+, 8: \d+, 10: \d+, 11: \d+, 13: \d+, 19: \d+", r.stdout)
              is not None, r.stdout)
        r = run(["run", v])
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        print(last)
        check("run agrees with every output_0.pb", r.returncode == 0 and re.match(r"\d+ node tests: (\d+) passed, 0 failed", last),
              r.stdout[-3000:] + r.stderr)
        # Every op, both DepthToSpace orders, signed steps and the eleven types are among them.
        cases = [json.load(open(os.path.join(c, "case.json"))) for c in case_dirs(v)]
        ops = {c["onnx_op"] for c in cases}
        check("ops", {"Pad", "Slice", "DepthToSpace", "SpaceToDepth", "Identity", "Expand", "Tile", "Resize", "Concat", "Split"} <= ops <=
              {"Pad", "Slice", "DepthToSpace", "SpaceToDepth", "Identity", "Expand", "Transpose", "Tile", "Resize", "Concat", "Split"},
              str(ops))
        # Every drawn JOIN and SPLIT has an ONNX form (the cycle draws every 14th of each), strided
        # parts included, with one or several parts; output_K.pb per Split output.
        for dml, op in (("JOIN", "Concat"), ("SPLIT", "Split")):
            drawn = len([k for k in range(2000) if k % 14 == (12 if dml == "JOIN" else 13)])
            mine = [c for c in cases if c["onnx_op"] == op]
            check(op + ": every drawn " + dml, len(mine) == drawn, "%d of %d" % (len(mine), drawn))
            parts = [len(c["input_names"]) if op == "Concat" else len(c["output_names"]) for c in mine]
            check(op + ": one part and several", 1 in parts and max(parts) >= 4, str(sorted(set(parts))))
            strides = [c["input_strides"] if op == "Concat" else c["output_strides"] for c in mine]
            check(op + ": strided parts", any(x is not None for st in strides for x in st))
        for c in case_dirs(v):
            info = json.load(open(os.path.join(c, "case.json")))
            if info["onnx_op"] == "Split":
                files = sorted(f for f in os.listdir(os.path.join(c, "test_data_set_0")) if f.startswith("output_"))
                check("Split output files " + c, files == ["output_%d.pb" % k for k in range(len(info["output_names"]))], str(files))
        check("types", len({c["data_type"] for c in cases}) == 11, str({c["data_type"] for c in cases}))
        check("DepthToSpace orders", {c["attributes"]["mode"] for c in cases if c["onnx_op"] == "DepthToSpace"} == {"DCR", "CRD"})
        check("Pad modes", {c["attributes"]["mode"] for c in cases if c["onnx_op"] == "Pad"} == {"constant", "edge", "reflect", "wrap"})
        steps = [s for c in cases if c["onnx_op"] == "Slice" for s in c["inputs"]["steps"]]
        check("Slice steps of both signs", min(steps) < 0 < max(steps))
        indexed(t)
        gathers(t)


def export_indexed(d, count, fmt="onnx"):
    r = run(["vectors", "--out", d, "--ops", "reverse_subsequences,gather_elements", "--count", str(count), "--seed", "1",
             "--format", fmt])
    check("vectors --ops reverse_subsequences,gather_elements", r.returncode == 0, r.stdout + r.stderr)
    return r


def indexed(t):
    """REVERSE_SUBSEQUENCES (even cases) as ReverseSequence where it is one: both axis orders,
    lengths 0 and the whole axis, strided and broadcast tensors, the rest counted by reason.
    GATHER_ELEMENTS (odd cases) always: the four index types (unsigned ones as int64), negative
    indices, strided tensors. `--format both` writes the index tensor as its own .npy file."""
    v = os.path.join(t, "indexed")
    r = export_indexed(v, 400, "both")
    print(r.stdout, end="")
    m = re.search(r"onnx: exported (\d+) node tests, left out (\d+) \((.*)\)\n", r.stdout)
    check("indexed summary line", m is not None, r.stdout)
    if m:
        check("indexed: exported + left out = 400", int(m.group(1)) + int(m.group(2)) == 400, r.stdout)
        for word in ("REVERSE_SUBSEQUENCES of one dimension", "REVERSE_SUBSEQUENCES with Axis 2 or more",
                     "REVERSE_SUBSEQUENCES with SequenceLengthsTensor values varying off the batch axis",
                     "REVERSE_SUBSEQUENCES with a SequenceLengthsTensor value past its Axis size"):
            check("indexed: left out by reason: " + word, word in m.group(3), m.group(3))
    r = run(["run", v])
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    print(last)
    check("indexed: run agrees with every output_0.pb", r.returncode == 0 and re.match(r"\d+ node tests: (\d+) passed, 0 failed", last),
          r.stdout[-3000:] + r.stderr)
    folders = sorted(os.listdir(v))
    for c in folders:
        files = set(os.listdir(os.path.join(v, c)))
        want = "sequence_lengths.npy" if "_REVERSE_SUBSEQUENCES_" in c else "indices.npy"
        check("indexed: DxDispatch files of " + c, {"model.json", "input.npy", want, "expected.npy"} <= files, str(files))
    cases = [json.load(open(os.path.join(c, "case.json"))) for c in case_dirs(v)]
    check("indexed ops", {c["onnx_op"] for c in cases} == {"ReverseSequence", "GatherElements"})
    check("indexed types", len({c["data_type"] for c in cases}) == 11, str({c["data_type"] for c in cases}))
    rs = [c for c in cases if c["onnx_op"] == "ReverseSequence"]
    drawn = 200
    check("ReverseSequence: most drawn REVERSE_SUBSEQUENCES", drawn * 0.6 < len(rs) < drawn, "%d of %d" % (len(rs), drawn))
    check("ReverseSequence: both axis orders", {(c["attributes"]["batch_axis"], c["attributes"]["time_axis"]) for c in rs} ==
          {(0, 1), (1, 0)}, str(rs[:1]))
    check("ReverseSequence: length 0 and whole axes",
          any(0 in c["inputs"]["sequence_lens"] for c in rs) and
          any(l == c["input_shape"][c["attributes"]["time_axis"]] for c in rs for l in c["inputs"]["sequence_lens"]))
    check("ReverseSequence: strided lengths", any(c["input_strides"][1] is not None for c in rs))
    ge = [c for c in cases if c["onnx_op"] == "GatherElements"]
    drawn = 200
    check("GatherElements: every drawn GATHER_ELEMENTS", len(ge) == drawn, "%d of %d" % (len(ge), drawn))
    check("GatherElements: the four index types", {c["index_type"] for c in ge} == {"UINT32", "INT32", "UINT64", "INT64"})
    check("GatherElements: negative indices", any(i < 0 for c in ge for i in c["inputs"]["indices"]))
    check("GatherElements: strided tensors", any(x is not None for c in ge for x in c["input_strides"]))


GATHERS = "gather,gather_nd,gather_nd1,scatter_elements,scatter_nd,one_hot"


def export_gathers(d, count, fmt="onnx"):
    r = run(["vectors", "--out", d, "--ops", GATHERS, "--count", str(count), "--seed", "1", "--format", fmt])
    check("vectors --ops " + GATHERS, r.returncode == 0, r.stdout + r.stderr)
    return r


def gathers(t):
    """GATHER, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT (in turn): every draw
    exported (indices inside their axes, scatter targets distinct: what the draw gives) and run back,
    DxDispatch's files beside, and what the ONNX forms must show."""
    v = os.path.join(t, "gathers")
    r = export_gathers(v, 600, "both")
    print(r.stdout, end="")
    check("gathers: every case exported", "onnx: exported 600 node tests, left out 0\n" in r.stdout, r.stdout)
    check("gathers: opsets 11 and 12", "onnx opsets: 11: 500, 12: 100 " in r.stdout, r.stdout)
    r = run(["run", v])
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    print(last)
    check("gathers: run agrees with every output_0.pb", r.returncode == 0 and last.startswith("600 node tests: 600 passed, 0 failed"),
          r.stdout[-3000:] + r.stderr)
    for c in sorted(os.listdir(v)):
        files = set(os.listdir(os.path.join(v, c)))
        want = {"indices.npy", "values.npy"} if "_ONE_HOT_" in c else {"input.npy", "indices.npy"}
        if "_SCATTER_" in c:
            want.add("updates.npy")
        check("gathers: DxDispatch files of " + c, {"model.json", "expected.npy"} | want <= files, str(files))
    cases = [json.load(open(os.path.join(c, "case.json"))) for c in case_dirs(v)]
    by = {}
    for c in cases:
        by.setdefault(c["onnx_op"], []).append(c)
    check("gathers: ops", sorted(by) == ["Gather", "GatherND", "OneHot", "ScatterElements", "ScatterND"], str(sorted(by)))
    check("gathers: counts", [len(by.get(o, [])) for o in ("Gather", "GatherND", "ScatterElements", "ScatterND", "OneHot")] ==
          [100, 200, 100, 100, 100])
    check("gathers: types", all(len({c["data_type"] for c in cs}) == 11 for cs in by.values()),
          str({o: sorted({c["data_type"] for c in cs}) for o, cs in by.items()}))
    for op in ("Gather", "GatherND", "ScatterElements", "ScatterND", "OneHot"):
        cs = by.get(op, [])
        check(op + ": the four index types", {c["index_type"] for c in cs} == {"UINT32", "INT32", "UINT64", "INT64"})
        check(op + ": negative indices", any(i < 0 for c in cs for i in c["inputs"]["indices"]))
        check(op + ": strided tensors", any(x is not None for c in cs for x in c["input_strides"]))
    nd = by.get("GatherND", [])
    check("GatherND: batch_dims > 0 at opset 12", any(c["attributes"].get("batch_dims", 0) > 0 and c["opset"] == 12 for c in nd))
    check("GatherND: GATHER_ND at opset 11", all((c["opset"] == 11) == (c["dml_op"] == "DML_OPERATOR_GATHER_ND") for c in nd))
    check("Gather: scalar indices (IndexDimensions 0)", any(c["inputs"]["indices"] and "IndexDimensions: 0" in c["dml_desc"]
                                                            for c in by.get("Gather", [])))
    oh = by.get("OneHot", [])
    check("OneHot: an index past depth", any(i >= c["inputs"]["depth"][0] for c in oh for i in c["inputs"]["indices"]))


# ONNX's meaning of each exported node, in numpy (ONNX's reference implementation does the same).
def onnx_meaning(node, inputs):
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    x = inputs[0]
    if node.op_type == "Pad":
        mode = attrs.get("mode", b"constant").decode()
        pads = inputs[1]
        r = x.ndim
        width = [(int(pads[i]), int(pads[i + r])) for i in range(r)]
        if mode == "constant":
            value = inputs[2] if len(inputs) > 2 else np.zeros((), x.dtype)
            # np.pad with constant_values would convert through Python numbers; fill by bits instead.
            out = np.empty([x.shape[i] + width[i][0] + width[i][1] for i in range(r)], x.dtype)
            out[...] = value
            out[tuple(slice(w[0], w[0] + n) for w, n in zip(width, x.shape))] = x
            return out
        if mode == "wrap":
            # The torus by its index formula: numpy 1.24's np.pad(mode="wrap") repeats the wrong
            # elements once a pad exceeds its axis (np.pad(np.arange(7), (6, 10), mode="wrap") ends
            # 6, 1, 2, 3), and so does any evaluator built on it.
            for a, (s, n) in enumerate(zip((w[0] for w in width), x.shape)):
                x = np.take(x, (np.arange(n + width[a][0] + width[a][1]) - s) % n, axis=a)
            return x
        return np.pad(x, width, mode={"edge": "edge", "reflect": "reflect"}[mode])
    if node.op_type == "Slice":
        starts, ends, axes, steps = (list(map(int, a)) for a in inputs[1:5])
        index = [slice(None)] * x.ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            n = x.shape[a]
            s = s + n if s < 0 else s
            e = e + n if e < 0 else e
            if st > 0:
                s, e = min(max(s, 0), n), min(max(e, 0), n)
                index[a] = slice(s, e, st)
            else:
                s, e = min(max(s, 0), n - 1), min(max(e, -1), n - 1)
                index[a] = slice(s, e if e >= 0 else None, st)
        return x[tuple(index)]
    if node.op_type == "Identity":
        return x.copy()
    if node.op_type == "Transpose":
        return np.transpose(x, attrs.get("perm", list(range(x.ndim))[::-1])).copy()
    if node.op_type == "Tile":
        return np.tile(x, tuple(int(v) for v in inputs[1]))
    if node.op_type == "Expand":
        return np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(int(v) for v in inputs[1]))).copy()
    if node.op_type == "Concat":
        return np.concatenate(inputs, axis=attrs["axis"])
    if node.op_type == "Split":
        # A list: the parts along axis, split[k] elements each.
        axis = attrs.get("axis", 0)
        return np.split(x, np.cumsum([int(v) for v in inputs[1]])[:-1], axis=axis)
    if node.op_type == "ReverseSequence":
        # Per index i of batch_axis, the first sequence_lens[i] elements along time_axis reversed.
        batch, time = attrs.get("batch_axis", 1), attrs.get("time_axis", 0)
        y = x.copy()
        for i, n in enumerate(int(v) for v in inputs[1]):
            at = [slice(None)] * x.ndim
            at[batch] = i
            rows = x[tuple(at)]  # batch_axis gone: time_axis is axis 0 of rows
            y[tuple(at)][:n] = rows[:n][::-1]
        return y
    if node.op_type == "GatherElements":
        axis = attrs.get("axis", 0)
        indices = inputs[1].astype(np.int64)
        return np.take_along_axis(x, np.where(indices < 0, indices + x.shape[axis], indices), axis=axis)
    if node.op_type == "Gather":
        indices = inputs[1].astype(np.int64)
        axis = attrs.get("axis", 0)
        return np.take(x, np.where(indices < 0, indices + x.shape[axis], indices), axis=axis)
    if node.op_type == "GatherND":
        # Per batch coordinate b (the first batch_dims axes), each tuple of indices[b, ...] picks a
        # slice of data[b].
        b = attrs.get("batch_dims", 0)
        indices = inputs[1].astype(np.int64)
        t = indices.shape[-1]
        out = np.empty(indices.shape[:-1] + x.shape[b + t:], x.dtype)
        for at in np.ndindex(*indices.shape[:-1]):
            tup = tuple(int(i) + (x.shape[b + m] if i < 0 else 0) for m, i in enumerate(indices[at]))
            out[at] = x[tuple(at[:b]) + tup]
        return out
    if node.op_type == "ScatterElements":
        axis = attrs.get("axis", 0)
        indices, updates = inputs[1].astype(np.int64), inputs[2]
        y = x.copy()
        for at in np.ndindex(*indices.shape):
            i = int(indices[at])
            target = list(at)
            target[axis] = i + x.shape[axis] if i < 0 else i
            y[tuple(target)] = updates[at]
        return y
    if node.op_type == "ScatterND":
        indices, updates = inputs[1].astype(np.int64), inputs[2]
        y = x.copy()
        for at in np.ndindex(*indices.shape[:-1]):
            y[tuple(int(i) + (x.shape[m] if i < 0 else 0) for m, i in enumerate(indices[at]))] = updates[at]
        return y
    if node.op_type == "OneHot":
        # OneHot-11: an index in [-depth, depth-1] (negative counting from the end) marks on_value,
        # any other gives off_value along the whole axis.
        depth = int(inputs[1].reshape(-1)[0])
        off, on = inputs[2][0], inputs[2][1]
        axis = attrs.get("axis", -1)
        axis = axis + x.ndim + 1 if axis < 0 else axis
        i = x.astype(np.int64)
        i = np.where(i < 0, i + depth, i)
        hot = np.expand_dims(i, axis) == np.arange(depth).reshape([depth if k == axis else 1 for k in range(x.ndim + 1)])
        y = np.empty(hot.shape, inputs[2].dtype)
        y[...] = off
        y[hot] = on
        return y
    if node.op_type == "Resize":
        # Resize-11's nearest mode as its spec defines it, axis by axis: the input coordinate of
        # output index o by the coordinate transformation, rounded by nearest_mode, clamped.
        assert attrs.get("mode", b"nearest") == b"nearest"
        transform = attrs.get("coordinate_transformation_mode", b"half_pixel").decode()
        rounding = attrs.get("nearest_mode", b"round_prefer_floor").decode()
        for a, scale in enumerate(float(v) for v in inputs[2]):
            n = x.shape[a]
            o = np.arange(int(np.floor(n * scale)), dtype=np.float64)
            coordinate = {"asymmetric": o / scale, "half_pixel": (o + 0.5) / scale - 0.5}[transform]
            index = {"floor": np.floor(coordinate), "ceil": np.ceil(coordinate),
                     "round_prefer_floor": np.ceil(coordinate - 0.5), "round_prefer_ceil": np.floor(coordinate + 0.5)}[rounding]
            x = np.take(x, np.clip(index.astype(np.int64), 0, n - 1), axis=a)
        return x
    b = attrs["blocksize"]
    mode = attrs.get("mode", b"DCR").decode()
    n, c, h, w = x.shape
    if node.op_type == "DepthToSpace":
        if mode == "DCR":
            t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
        else:
            t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
        return t.reshape(n, c // (b * b), h * b, w * b)
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)


def checker():
    with tempfile.TemporaryDirectory() as t:
        v = os.path.join(t, "v")
        export(v, 2000, 1)
        export_indexed(os.path.join(t, "indexed"), 400)
        export_gathers(os.path.join(t, "gathers"), 600)
        checked = beyond = meant = 0
        for c in case_dirs(v) + case_dirs(os.path.join(t, "indexed")) + case_dirs(os.path.join(t, "gathers")):
            name = os.path.basename(c)
            model = onnx.load(os.path.join(c, "model.onnx"))
            opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")][0]
            info = json.load(open(os.path.join(c, "case.json")))
            check(name + " case.json opset", info["opset"] == opset and info["ir_version"] == model.ir_version)
            if opset <= 17:
                try:
                    onnx.checker.check_model(model, full_check=True)
                    checked += 1
                except Exception as e:  # noqa: BLE001 - any checker complaint fails
                    check(name + " check_model", False, str(e))
            else:
                beyond += 1
            names = [i.name for i in model.graph.input]
            check(name + " input_names", names == info["input_names"], str(names))
            inputs = []
            for k, n in enumerate(names):
                p = TensorProto()
                p.ParseFromString(open(os.path.join(c, "test_data_set_0", "input_%d.pb" % k), "rb").read())
                elem = model.graph.input[k].type.tensor_type
                check(name + " input_%d.pb" % k,
                      p.name == n and p.HasField("raw_data") and p.data_type == elem.elem_type
                      and list(p.dims) == [d.dim_value for d in elem.shape.dim], str(p)[:300])
                inputs.append(numpy_helper.to_array(p))
            expected = []
            for k, out in enumerate(model.graph.output):
                p = TensorProto()
                p.ParseFromString(open(os.path.join(c, "test_data_set_0", "output_%d.pb" % k), "rb").read())
                check(name + " output_%d.pb" % k, p.name == out.name and p.HasField("raw_data"))
                expected.append(numpy_helper.to_array(p))
            check(name + " no more outputs", not os.path.exists(os.path.join(c, "test_data_set_0", "output_%d.pb" % len(expected))))
            try:
                meaning = onnx_meaning(model.graph.node[0], inputs)
            except Exception as e:  # noqa: BLE001 - a model numpy cannot evaluate (an index past its axis) fails too
                check(name + " ONNX meaning evaluates", False, "%s: %r" % (info["dml_desc"], e))
                continue
            # asarray keeps a 0-d result 0-d (Gather and GatherND give scalars), as ascontiguousarray would not.
            got = [np.asarray(g, order="C") for g in (meaning if isinstance(meaning, list) else [meaning])]
            same = len(got) == len(expected) and all(g.shape == e.shape and g.tobytes() == e.tobytes() for g, e in zip(got, expected))
            check(name + " ONNX meaning == output_0.pb", same, "%s\n%s\n%s" % (info["dml_desc"], got, expected))
            meant += same
        print("onnx.checker.check_model(full_check=True): %d models passed; %d of opset > 17 not checked (Debian's onnx %s "
              "knows opsets up to 17); numpy evaluation of the ONNX meaning agreed on %d" % (checked, beyond, onnx.__version__, meant))
        check("some checked", checked > 500 and beyond > 0, "%d %d" % (checked, beyond))


def save(model, folder, inputs, output=None):
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for k, (n, a) in enumerate(inputs):
        t = numpy_helper.from_array(a, n)
        open(os.path.join(folder, "test_data_set_0", "input_%d.pb" % k), "wb").write(t.SerializeToString())
    if output is not None:
        t = numpy_helper.from_array(output, "y")
        open(os.path.join(folder, "test_data_set_0", "output_0.pb"), "wb").write(t.SerializeToString())


def pad_model(mode, opset=11):
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
                                        helper.make_tensor_value_info("pads", TensorProto.INT64, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def errors():
    with tempfile.TemporaryDirectory() as t:
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        cases = [
            ("reflect", pad_model("reflect"), [("x", x), ("pads", np.array([0, 5, 0, 1], np.int64))],
             ["node 0 (Pad)", "mode 'reflect'", "pads[1]=5 >= axis size 4", "no DirectML PADDING1 form"]),
            ("negative", pad_model("constant"), [("x", x), ("pads", np.array([0, -1, 0, 1], np.int64))],
             ["node 0 (Pad)", "pads[1]=-1", "negative"]),
            ("mode", pad_model("symmetric"), [("x", x), ("pads", np.array([0, 1, 0, 1], np.int64))],
             ["node 0 (Pad)", "mode 'symmetric'"]),
        ]
        g = helper.make_graph([helper.make_node("Pad", ["x"], ["y"], mode="edge", pads=[0, 1, 0, 1])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        cases.append(("attribute", helper.make_model(g, opset_imports=[helper.make_opsetid("", 2)]), [("x", x)],
                      ["node 0 (Pad)", "attribute 'pads'"]))
        g = helper.make_graph([helper.make_node("Compress", ["x", "i"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
                               helper.make_tensor_value_info("i", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        cases.append(("compress", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                      [("x", x), ("i", np.array([1], np.int64))], ["node 0 (Compress)", "no DirectML"]))
        node = helper.make_node("Slice", ["x", "s", "e"], ["y"])
        g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, ty, None) for n, ty in
                                            (("x", TensorProto.FLOAT), ("s", TensorProto.INT64), ("e", TensorProto.INT64))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        cases.append(("empty", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                      [("x", x), ("s", np.array([0, 3], np.int64)), ("e", np.array([2, 3], np.int64))],
                      ["node 0 (Slice)", "axis 1 selects no element", "starts[1]=3"]))
        # Resize: only whole scales on the last two axes, and coordinate rules that replicate pixels.
        img = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
        roi = np.array([], np.float32)
        for name, attrs, scales, words in (
                ("resize_linear", {"mode": "linear"}, [1, 1, 2, 2], ["node 0 (Resize)", "mode 'linear' computes"]),
                ("resize_align", {"coordinate_transformation_mode": "align_corners"}, [1, 1, 2, 2],
                 ["node 0 (Resize)", "'align_corners'", "not pixel replication"]),
                ("resize_half_floor", {"nearest_mode": "floor"}, [1, 1, 2, 2],
                 ["node 0 (Resize)", "'half_pixel' with nearest_mode 'floor'"]),
                ("resize_fraction", {}, [1, 1, 1.5, 2], ["node 0 (Resize)", "scales holds 1.5 on axis 2", "whole number"]),
                ("resize_channels", {}, [1, 2, 2, 2], ["node 0 (Resize)", "scales holds 2 on axis 1", "last two axes only"])):
            g = helper.make_graph([helper.make_node("Resize", ["x", "roi", "scales"], ["y"], **attrs)], "g",
                                  [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
                                   for n, a in (("x", img), ("roi", roi), ("scales", np.array(scales, np.float32)))],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
            cases.append((name, helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
                          [("x", img), ("roi", roi), ("scales", np.array(scales, np.float32))], words))
        # Concat and Split: each refusal names the node, the attribute or input, and the values.
        def node_model(op, ins, outs, opset, **attrs):
            onnx_type = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
                         np.dtype(np.int64): TensorProto.INT64}
            g = helper.make_graph([helper.make_node(op, [n for n, _ in ins], outs, **attrs)], "g",
                                  [helper.make_tensor_value_info(n, onnx_type[a.dtype], a.shape) for n, a in ins],
                                  [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs])
            return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        x3 = np.arange(6, dtype=np.float32).reshape(2, 3)
        for name, op, ins, outs, opset, attrs, words in (
                ("concat_sizes", "Concat", [("a", x), ("b", x3)], ["y"], 13, {"axis": 0},
                 ["node 0 (Concat)", "input 1 has size 3 on axis 1; input 0 has 4", "only axis 0 may differ"]),
                ("concat_no_axis", "Concat", [("a", x), ("b", x)], ["y"], 4, {},
                 ["node 0 (Concat)", "attribute 'axis' is missing"]),
                ("concat_negative_opset4", "Concat", [("a", x), ("b", x)], ["y"], 4, {"axis": -1},
                 ["node 0 (Concat)", "axis=-1 is negative, which opset 4 does not allow"]),
                ("concat_axis_range", "Concat", [("a", x), ("b", x)], ["y"], 13, {"axis": -3},
                 ["node 0 (Concat)", "axis=-3 is outside a 2-dimensional input (axes -2 to 1)"]),
                ("concat_types", "Concat", [("a", x), ("b", x.astype(np.int32))], ["y"], 13, {"axis": 0},
                 ["node 0 (Concat)", "input 1 ('b') is", "input 0 is"]),
                ("split_uneven", "Split", [("x", x)], ["y0", "y1", "y2"], 13, {"axis": 1},
                 ["node 0 (Split)", "axis 1 has size 4, which 3 equal parts do not divide"]),
                ("split_zero", "Split", [("x", x), ("split", np.array([0, 4], np.int64))], ["y0", "y1"], 13, {"axis": -1},
                 ["node 0 (Split)", "output 0 gets 0 elements on axis 1 (split {0, 4})", "no empty dimension"]),
                ("split_sum", "Split", [("x", x), ("split", np.array([1, 2], np.int64))], ["y0", "y1"], 13, {"axis": 1},
                 ["node 0 (Split)", "split {1, 2} adds up to 3; axis 1 has size 4"]),
                ("split_count", "Split", [("x", x), ("split", np.array([2, 2], np.int64))], ["y0", "y1", "y2"], 13, {"axis": 1},
                 ["node 0 (Split)", "split has 2 entries {2, 2}; the node has 3 outputs"]),
                ("split_num_outputs_13", "Split", [("x", x)], ["y0", "y1"], 13, {"axis": 1, "num_outputs": 2},
                 ["node 0 (Split)", "attribute 'num_outputs' is Split-18's", "opset 13"]),
                ("split_attribute_13", "Split", [("x", x)], ["y0", "y1"], 13, {"axis": 1, "split": [2, 2]},
                 ["node 0 (Split)", "attribute 'split' is Split-2..12's"]),
                ("split_18_none", "Split", [("x", x)], ["y0", "y1"], 18, {"axis": 1},
                 ["node 0 (Split)", "neither input 'split' nor attribute 'num_outputs'"]),
                ("split_num_outputs_count", "Split", [("x", x)], ["y0", "y1"], 18, {"axis": 1, "num_outputs": 4},
                 ["node 0 (Split)", "attribute num_outputs=4; the node has 2 outputs"])):
            cases.append((name, node_model(op, ins, outs, opset, **attrs), ins, words))
        # ReverseSequence and GatherElements: the same.
        seq = np.array([2, 1], np.int64)
        i2 = np.array([[0, 4, 1, 0], [-4, 3, -1, 0]], np.int64)
        for name, op, ins, opset, attrs, words in (
                ("revseq_axes", "ReverseSequence", [("x", x), ("s", seq)], 10, {"batch_axis": 0, "time_axis": 0},
                 ["node 0 (ReverseSequence)", "batch_axis=0 and time_axis=0", "0 and 1, one each"]),
                ("revseq_length", "ReverseSequence", [("x", x), ("s", np.array([5, 1], np.int64))], 10,
                 {"batch_axis": 0, "time_axis": 1},
                 ["node 0 (ReverseSequence)", "sequence_lens[0]=5 is outside [0, 4] (time_axis 1's size)"]),
                ("revseq_negative", "ReverseSequence", [("x", x), ("s", np.array([1, 1, -1, 0], np.int64))], 10, {},
                 ["node 0 (ReverseSequence)", "sequence_lens[2]=-1 is outside [0, 2]"]),
                ("revseq_shape", "ReverseSequence", [("x", x), ("s", np.array([1, 1, 1], np.int64))], 10, {},
                 ["node 0 (ReverseSequence)", "'sequence_lens' has shape {3}; batch_axis 1 has size 4"]),
                ("revseq_int32", "ReverseSequence", [("x", x), ("s", seq.astype(np.int32))], 10, {"batch_axis": 0, "time_axis": 1},
                 ["node 0 (ReverseSequence)", "'sequence_lens' is INT32; ReverseSequence takes int64"]),
                ("gatherelements_range", "GatherElements", [("x", x), ("i", i2)], 11, {"axis": 1},
                 ["node 0 (GatherElements)", "indices[1]=4 is outside [-4, 3] (axis 1's size is 4)"]),
                ("gatherelements_sizes", "GatherElements", [("x", x), ("i", i2[:1])], 11, {"axis": 1},
                 ["node 0 (GatherElements)", "'indices' has size 1 on axis 0; the data has 2"]),
                ("gatherelements_opset10", "GatherElements", [("x", x), ("i", i2)], 10, {"axis": 1},
                 ["node 0 (GatherElements)", "came with opset 11; this model imports opset 10"]),
                # Gather, GatherND, ScatterElements, ScatterND and OneHot: the same.
                ("gather_range", "Gather", [("x", x), ("i", np.array([1, 4], np.int64))], 13, {"axis": 1},
                 ["node 0 (Gather)", "indices[1]=4 is outside [-4, 3] (axis 1's size is 4)"]),
                ("gather_negative_opset1", "Gather", [("x", x), ("i", np.array([-1], np.int64))], 1, {"axis": 1},
                 ["node 0 (Gather)", "indices[0]=-1 is outside [0, 3]", "negative indices from opset 11 on"]),
                ("gathernd_batch_dims", "GatherND", [("x", x), ("i", np.array([[0], [1]], np.int64))], 12, {"batch_dims": 2},
                 ["node 0 (GatherND)", "batch_dims=2 is outside [0, 2)"]),
                ("gathernd_int32", "GatherND", [("x", x), ("i", np.array([[0]], np.int32))], 11, {},
                 ["node 0 (GatherND)", "'indices' is INT32; the operator takes int64"]),
                ("gathernd_tuple", "GatherND", [("x", x), ("i", np.array([[1, -5]], np.int64))], 11, {},
                 ["node 0 (GatherND)", "indices[1]=-5 is outside [-4, 3] (data axis 1's size is 4)"]),
                ("scatterelements_duplicate", "ScatterElements",
                 [("x", x), ("i", np.array([[2, -2]], np.int64)), ("u", np.ones((1, 2), np.float32))], 11, {"axis": 1},
                 ["node 0 (ScatterElements)", "indices[1]=-2 names an output element an earlier index names"]),
                ("scatterelements_updates", "ScatterElements",
                 [("x", x), ("i", np.array([[2, 1]], np.int64)), ("u", np.ones((2, 1), np.float32))], 11, {"axis": 1},
                 ["node 0 (ScatterElements)", "'updates' has shape {2, 1}; it must be {1, 2}"]),
                ("scatternd_duplicate", "ScatterND",
                 [("x", x), ("i", np.array([[1, 3], [1, -1]], np.int64)), ("u", np.ones(2, np.float32))], 11, {},
                 ["node 0 (ScatterND)", "names place (1, 3) twice"]),
                ("scatternd_reduction", "ScatterND", [("x", x), ("i", np.array([[0]], np.int64)), ("u", x[:1])], 16,
                 {"reduction": "add"}, ["node 0 (ScatterND)", "reduction='add'"]),
                ("onehot_opset10", "OneHot",
                 [("i", np.array([1], np.int64)), ("d", np.array([3], np.int64)), ("v", np.array([0, 1], np.float32))], 10, {},
                 ["node 0 (OneHot)", "before opset 11", "opset 10"]),
                ("onehot_values", "OneHot",
                 [("i", np.array([1], np.int64)), ("d", np.array([3], np.int64)), ("v", np.array([0, 1, 2], np.float32))], 11,
                 {}, ["node 0 (OneHot)", "'values' has shape {3}", "shape {2}"])):
            cases.append((name, node_model(op, ins, ["y"], opset, **attrs), ins, words))
        m = node_model("Split", [("x", x)], ["y0", "y1"], 13, axis=1)
        del m.graph.output[1]
        cases.append(("split_graph_outputs", m, [("x", x)], ["node 0 (Split)", "the graph has 1 outputs; the node has 2"]))
        for name, model, inputs, words in cases:
            d = os.path.join(t, name)
            save(model, d, inputs)
            r = run(["run", d])
            check("refused: " + name, r.returncode == 1 and all(w in r.stderr for w in words), r.stdout + r.stderr)
            print("%s: %s" % (name, r.stderr.strip()))

        # A hand-made model in the mapped subset (typed fields, not raw_data) runs, and --write-expected writes its output.
        d = os.path.join(t, "edge")
        save(pad_model("edge"), d, [("x", x), ("pads", np.array([1, 0, 0, 2], np.int64))])
        r = run(["run", d])
        check("no output_0.pb", r.returncode == 1 and "--write-expected" in r.stderr, r.stdout + r.stderr)
        r = run(["run", d, "--write-expected"])
        check("--write-expected", r.returncode == 0, r.stdout + r.stderr)
        p = TensorProto()
        p.ParseFromString(open(os.path.join(d, "test_data_set_0", "output_0.pb"), "rb").read())
        got = numpy_helper.to_array(p)
        check("written output = np.pad edge", p.name == "y" and np.array_equal(got, np.pad(x, [(1, 0), (0, 2)], mode="edge")), str(got))
        check("then run passes", run(["run", d]).returncode == 0)

        # A changed element of output_0.pb fails run (with the report), and compare reads .pb with --op-desc model.onnx.
        v = os.path.join(t, "v")
        export(v, 40, 3)
        c = [c for c in case_dirs(v) if "PADDING" in c][0]
        out = os.path.join(c, "test_data_set_0", "output_0.pb")
        p = TensorProto()
        p.ParseFromString(open(out, "rb").read())
        a = numpy_helper.to_array(p).copy()
        np.save(os.path.join(t, "same.npy"), a)
        flat = a.reshape(-1).view(np.uint8)
        flat[0] ^= 1
        np.save(os.path.join(t, "changed.npy"), a)
        r = run(["compare", out, os.path.join(t, "same.npy"), "--op-desc", os.path.join(c, "model.onnx")])
        check("compare .pb .npy --op-desc model.onnx: equal", r.returncode == 0 and "bit-identical" in r.stdout, r.stdout + r.stderr)
        r = run(["compare", out, os.path.join(t, "changed.npy"), "--op-desc", os.path.join(c, "model.onnx")])
        check("compare: a difference, with PADDING1's regions", r.returncode == 1 and "1 of" in r.stdout and "region" in r.stdout.lower(),
              r.stdout + r.stderr)
        print(r.stdout)
        p.raw_data = a.tobytes()
        open(out, "wb").write(p.SerializeToString())
        r = run(["run", v])
        check("run: the changed case fails, named", r.returncode == 1 and os.path.basename(c) in r.stdout.splitlines()[-1]
              and "1 failed" in r.stdout, r.stdout[-2000:] + r.stderr)
        r = run(["run", c])
        check("run CASE: report", r.returncode == 1 and "differs" in r.stdout, r.stdout + r.stderr)


def formats():
    with tempfile.TemporaryDirectory() as t:
        both, default = os.path.join(t, "both"), os.path.join(t, "default")
        r = export(both, 60, 5, "both")
        check("both: both summaries", "wrote 60 models" in r.stdout and "onnx: exported" in r.stdout, r.stdout)
        r = run(["vectors", "--out", default, "--count", "60", "--seed", "5"])
        check("default: no ONNX summary", r.returncode == 0 and "onnx" not in r.stdout, r.stdout + r.stderr)
        dirs = sorted(os.listdir(both))
        check("both: every case folder", dirs == sorted(os.listdir(default)) and len(dirs) == 60, str(dirs))
        onnx_cases = 0
        for d in dirs:
            files = set(os.listdir(os.path.join(both, d)))
            # The DxDispatch form: one input.npy and one expected.npy, but input_K.npy for JOIN's
            # inputs and expected_K.npy for SPLIT's outputs.
            dxdispatch = set(os.listdir(os.path.join(default, d)))
            inputs = {f for f in dxdispatch if re.fullmatch(r"(input(_\d+)?|sequence_lengths|indices)\.npy", f)}
            expected = {f for f in dxdispatch if re.fullmatch(r"expected(_\d+)?\.npy", f)}
            check("default: the DxDispatch files of " + d, dxdispatch == {"model.json"} | inputs | expected and
                  (inputs == {"input.npy"} or "_JOIN_" in d or
                   "_REVERSE_SUBSEQUENCES_" in d and inputs == {"input.npy", "sequence_lengths.npy"} or
                   "_GATHER_ELEMENTS_" in d and inputs == {"input.npy", "indices.npy"}) and (expected == {"expected.npy"} or "_SPLIT_" in d) and
                  inputs and expected, str(dxdispatch))
            check("both: DxDispatch files in " + d, dxdispatch <= files, str(files))
            for f in sorted(dxdispatch):
                check("both = default: " + d + "/" + f,
                      open(os.path.join(both, d, f), "rb").read() == open(os.path.join(default, d, f), "rb").read())
            if "model.onnx" in files:
                onnx_cases += 1
                check("both: node test in " + d, {"case.json", "test_data_set_0"} <= files)
        check("both: some node tests", onnx_cases > 10, str(onnx_cases))
        r = run(["run", both])
        check("both: run the node tests", r.returncode == 0 and "%d passed, 0 failed" % onnx_cases in r.stdout, r.stdout[-2000:])

        # Transpose, Expand, Tile and Resize written as ONNX's own node tests write them
        # (test_transpose_default: no perm, the axes reversed; test_expand_dim_changed: a shape of
        # more dimensions; test_tile_precomputed; test_resize_upsample_scales_nearest: Resize's
        # default half_pixel and round_prefer_floor), read back as ELEMENT_WISE_IDENTITY, TILE or
        # UPSAMPLE_2D and judged against numpy.
        x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        e = np.arange(3, dtype=np.int32).reshape(3, 1)
        shape = np.array([2, 1, 6], np.int64)
        nodes = [
            ("transpose_default", helper.make_node("Transpose", ["x"], ["y"]), [("x", x)], np.transpose(x), 1),
            ("transpose_perm", helper.make_node("Transpose", ["x"], ["y"], perm=[1, 2, 0]), [("x", x)],
             np.transpose(x, [1, 2, 0]), 1),
            ("expand_dim_changed", helper.make_node("Expand", ["x", "shape"], ["y"]), [("x", e), ("shape", shape)],
             e * np.ones(shape, np.int32), 8),
            # test_tile_precomputed: [[0, 1], [2, 3]] tiled by repeats [2, 2].
            ("tile_precomputed", helper.make_node("Tile", ["x", "repeats"], ["y"]),
             [("x", np.array([[0, 1], [2, 3]], np.float32)), ("repeats", np.array([2, 2], np.int64))],
             np.array([[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]], np.float32), 6),
            # test_resize_upsample_scales_nearest: [[1, 2], [3, 4]] by scales [1, 1, 2, 3].
            ("resize_upsample_scales_nearest", helper.make_node("Resize", ["X", "roi", "scales"], ["y"], mode="nearest"),
             [("X", np.array([1, 2, 3, 4], np.float32).reshape(1, 1, 2, 2)), ("roi", np.array([], np.float32)),
              ("scales", np.array([1, 1, 2, 3], np.float32))],
             np.array([[[[1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4], [3, 3, 3, 4, 4, 4]]]], np.float32), 11),
            # test_reversesequence_time and test_reversesequence_batch (read back as REVERSE_SUBSEQUENCES).
            ("reversesequence_time", helper.make_node("ReverseSequence", ["x", "sequence_lens"], ["y"], time_axis=0, batch_axis=1),
             [("x", np.arange(16, dtype=np.float32).reshape(4, 4).T.copy()), ("sequence_lens", np.array([4, 3, 2, 1], np.int64))],
             np.array([[3, 6, 9, 12], [2, 5, 8, 13], [1, 4, 10, 14], [0, 7, 11, 15]], np.float32), 10),
            ("reversesequence_batch", helper.make_node("ReverseSequence", ["x", "sequence_lens"], ["y"], time_axis=1, batch_axis=0),
             [("x", np.arange(16, dtype=np.float32).reshape(4, 4)), ("sequence_lens", np.array([1, 2, 3, 4], np.int64))],
             np.array([[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]], np.float32), 10),
            # test_gather_elements_0, _1 and _negative_indices (read back as GATHER_ELEMENTS).
            ("gather_elements_0", helper.make_node("GatherElements", ["data", "indices"], ["y"], axis=1),
             [("data", np.array([[1, 2], [3, 4]], np.float32)), ("indices", np.array([[0, 0], [1, 0]], np.int32))],
             np.array([[1, 1], [4, 3]], np.float32), 11),
            ("gather_elements_1", helper.make_node("GatherElements", ["data", "indices"], ["y"], axis=0),
             [("data", np.arange(1, 10, dtype=np.float32).reshape(3, 3)), ("indices", np.array([[1, 2, 0], [2, 0, 0]], np.int64))],
             np.array([[4, 8, 3], [7, 2, 3]], np.float32), 11),
            ("gather_elements_negative_indices", helper.make_node("GatherElements", ["data", "indices"], ["y"], axis=0),
             [("data", np.arange(1, 10, dtype=np.float32).reshape(3, 3)), ("indices", np.array([[-1, -2, 0], [-2, 0, 0]], np.int32))],
             np.array([[7, 5, 3], [4, 2, 3]], np.float32), 13),
        ]
        # Concat and Split written as ONNX's own node tests write them (test_concat_2d_axis_negative_1,
        # test_concat_3d_axis_0; Split's equal parts with no split, split as an input (opset 13),
        # as an attribute (opset 11), num_outputs with an uneven last part (opset 18)), read back as
        # JOIN and SPLIT and judged against numpy, output by output.
        a, b = np.array([[1, 2], [3, 4]], np.float32), np.array([[5, 6], [7, 8]], np.float32)
        c3 = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
        v6 = np.arange(1, 7, dtype=np.float32)
        u8 = np.arange(1, 17, dtype=np.float32).reshape(2, 8)
        parts = [
            ("concat_2d_axis_negative_1", "Concat", [("value0", a), ("value1", b)], {"axis": -1},
             [np.concatenate([a, b], axis=1)], 13),
            ("concat_3d_axis_0", "Concat", [("value0", c3), ("value1", c3 + 8)], {"axis": 0},
             [np.concatenate([c3, c3 + 8], axis=0)], 4),
            ("concat_1d_one_input", "Concat", [("value0", v6)], {"axis": 0}, [v6], 11),
            ("split_equal_parts_default_axis_opset13", "Split", [("input", v6)], {},
             [v6[0:2], v6[2:4], v6[4:6]], 13),
            ("split_variable_parts_default_axis_opset13", "Split", [("input", v6), ("split", np.array([2, 4], np.int64))], {},
             [v6[0:2], v6[2:6]], 13),
            ("split_variable_parts_2d_opset11", "Split", [("input", u8)], {"axis": 1, "split": [2, 6]},
             [u8[:, 0:2], u8[:, 2:8]], 11),
            ("split_2d_uneven_split_opset18", "Split", [("input", u8)], {"axis": 1, "num_outputs": 3},
             [u8[:, 0:3], u8[:, 3:6], u8[:, 6:8]], 18),
            ("split_1d_uneven_split_opset18", "Split", [("input", v6[:5])], {"num_outputs": 2}, [v6[0:3], v6[3:5]], 18),
        ]
        for name, op, inputs, attrs, wants, opset in parts:
            outs = ["output_%d" % k for k in range(len(wants))]
            g = helper.make_graph([helper.make_node(op, [n for n, _ in inputs], outs, **attrs)], "g",
                                  [helper.make_tensor_value_info(n, TensorProto.INT64 if v.dtype == np.int64 else TensorProto.FLOAT,
                                                                 v.shape) for n, v in inputs],
                                  [helper.make_tensor_value_info(o, TensorProto.FLOAT, w.shape) for o, w in zip(outs, wants)])
            folder = os.path.join(t, name)
            save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), folder, inputs)
            for k, w in enumerate(wants):
                open(os.path.join(folder, "test_data_set_0", "output_%d.pb" % k), "wb").write(
                    numpy_helper.from_array(np.ascontiguousarray(w), outs[k]).SerializeToString())
            r = run(["run", folder])
            check("ONNX-style " + name, r.returncode == 0 and "elements are bit-identical" in r.stdout, r.stdout[-1000:] + r.stderr)
            # A changed element of the last output fails the run, named by its part.
            last = os.path.join(folder, "test_data_set_0", "output_%d.pb" % (len(wants) - 1))
            changed = wants[-1].copy()
            changed.reshape(-1)[-1] += 1
            open(last, "wb").write(numpy_helper.from_array(np.ascontiguousarray(changed), outs[-1]).SerializeToString())
            r = run(["run", folder])
            part = ("OutputTensors[%d]" % (len(wants) - 1)) if op == "Split" else ("InputTensors[%d]" % (len(inputs) - 1))
            check("ONNX-style " + name + ": a changed output fails, named", r.returncode == 1 and "differs" in r.stdout
                  and (part in r.stdout or len(wants) == 1 and len(inputs) == 1), r.stdout[-1500:] + r.stderr)

        for name, node, inputs, want, opset in nodes:
            onnx_type = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
                         np.dtype(np.int64): TensorProto.INT64}
            g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, onnx_type[a.dtype], a.shape) for n, a in inputs],
                                  [helper.make_tensor_value_info("y", onnx_type[want.dtype], want.shape)])
            folder = os.path.join(t, name)
            save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), folder, inputs, np.ascontiguousarray(want))
            r = run(["run", folder])
            check("ONNX-style " + name, r.returncode == 0 and "elements are bit-identical" in r.stdout, r.stdout[-1000:] + r.stderr)


{"roundtrip": roundtrip, "checker": checker, "errors": errors, "formats": formats}[GROUP]()
if failures:
    print("%d checks failed: %s" % (len(failures), ", ".join(failures[:20])))
    sys.exit(1)
print("onnx.%s: all checks passed" % GROUP)
