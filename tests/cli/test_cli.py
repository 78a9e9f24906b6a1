#!/usr/bin/env python3
"""Tests of the `dmlref` command-line tool (Python standard library only).

  test_cli.py DMLREF CONFORMANCE_DIR GROUP [CASES]

GROUP is one of: rejections, usage, compare, roundtrip, roundtrip_d3d12, roundtrip_directml, roundtrip_indexed,
roundtrip_indexed_d3d12, roundtrip_indexed_directml, fuzz, seeded, models, models_directml, models_d3d12. CASES (default 520) is how many
models the round trip writes and runs back, and a third of it how many damaged models fuzz runs. Every rejection asserts the exit
status, the words of the message and that no output file was left behind.
"""
import hashlib, json, os, random, shutil, subprocess, sys, tempfile

DMLREF, CONFORMANCE, GROUP = sys.argv[1], sys.argv[2], sys.argv[3]
CASES = int(sys.argv[4]) if len(sys.argv) > 4 else 520
failures = []
KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "directml", "known-divergences.json")


def run(args, cwd, timeout=120):
    return subprocess.run([DMLREF] + args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def check(name, cond, detail=""):
    if not cond:
        failures.append("%s: %s" % (name, detail))


def base_model(case="seed_padding_constant"):
    with open(os.path.join(CONFORMANCE, case, "model.json")) as f:
        return json.load(f)


def scratch(case="seed_padding_constant"):
    d = tempfile.mkdtemp(prefix="dmlref_cli_")
    shutil.copy(os.path.join(CONFORMANCE, case, "input.npy"), d)
    return d


def reject(name, model, words, case="seed_padding_constant", status=1, setup=None, text=None):
    """Runs a broken model: exit `status`, every word in the message, no output.npy left."""
    d = scratch(case)
    try:
        with open(os.path.join(d, "model.json"), "w") as f:
            f.write(text if text is not None else json.dumps(model))
        if setup:
            setup(d)
        r = run(["run", "model.json"], d)
        message = r.stderr
        check(name + " status", r.returncode == status, "exit %d, stderr %r" % (r.returncode, message))
        for w in words:
            check(name + " message", w in message, "%r not in %r" % (w, message))
        left = [f for f in os.listdir(d) if f.startswith("output")]
        check(name + " no output", not left, "left behind: %s" % left)
    finally:
        shutil.rmtree(d)


def desc(m):
    return m["dispatchables"]["op"]["desc"]


def rejections():
    reject("bad JSON", None, ["model.json", "not valid JSON"], text='{"resources": {')
    reject("not an object", None, ["expected an object"], text='[1, 2]')
    m = base_model(); m["dispatchables"]["op"]["type"] = "DML_OPERATOR_CONVOLUTION"
    reject("unknown op", m, ["dispatchables.op.type", "DML_OPERATOR_CONVOLUTION", "not supported by dmlref"])
    m = base_model(); desc(m)["PaddingMode"] = "MIRROR"
    reject("bad enum", m, ["dispatchables.op.desc.PaddingMode", "'MIRROR'", "DML_PADDING_MODE"])
    m = base_model(); desc(m)["InputTensor"]["DataType"] = "FLOAT128"
    reject("bad data type", m, ["InputTensor.DataType", "'FLOAT128'"])
    m = base_model(); del desc(m)["StartPadding"]
    reject("missing field", m, ["dispatchables.op.desc", "missing field 'StartPadding'"])
    m = base_model(); del m["commands"]
    reject("missing commands", m, ["missing field 'commands'"])
    m = base_model(); desc(m)["StartPaddin"] = [0, 0, 0, 0]
    reject("misspelt field", m, ["StartPaddin", "unknown field"])
    m = base_model(); desc(m)["OutputTensor"]["Sizes"] = [1, 1, 8, 11]
    reject("wrong sizes", m, ["PADDING1", "OutputTensor.Sizes[3]", "11"])
    m = base_model(); desc(m)["StartPadding"] = [0, 0, 1]
    reject("wrong DimensionCount", m, ["desc.DimensionCount", "is 4; StartPadding has 3 entries"])
    del desc(m)["DimensionCount"]
    reject("wrong array length", m, ["PADDING1", "StartPadding"])
    m = base_model(); m["resources"]["output"]["initialValues"]["valueCount"] = 79
    reject("buffer too small", m, ["OutputTensor", "316 bytes", "TotalTensorSizeInBytes is 320"])
    m = base_model(); desc(m)["InputTensor"]["Sizes"] = [65536, 65536, 65536, 65536]
    reject("element count overflow", m, ["PADDING1", "InputTensor"])
    m = base_model(); desc(m)["InputTensor"]["Sizes"] = [1, 1, 4, 4294967296]
    reject("size over 32 bits", m, ["InputTensor.Sizes[3]", "unsigned 32-bit"])
    m = base_model(); desc(m)["StartPadding"] = [0, 0, -1, 2]
    reject("negative padding", m, ["StartPadding[2]", "-1"])
    m = base_model(); m["resources"]["input"]["initialValues"]["sourcePath"] = "missing.npy"
    reject("missing npy", m, ["resources.input.initialValues.sourcePath", "missing.npy", "cannot open"])
    m = base_model()
    reject("corrupt npy", m, ["input.npy", "magic"], setup=lambda d: open(os.path.join(d, "input.npy"), "wb").write(b"garbage"))

    def truncate(d):
        p = os.path.join(d, "input.npy")
        data = open(p, "rb").read()
        open(p, "wb").write(data[:-3])
    reject("truncated npy", m, ["input.npy", "bytes of data"], setup=truncate)
    m = base_model(); m["resources"]["input"]["initialValuesDataType"] = "INT32"
    reject("npy type mismatch", m, ["holds FLOAT32", "initialValuesDataType is INT32"])
    m = base_model(); m["commands"][0]["bindings"]["InputTensor"] = "nothing"
    reject("unknown resource", m, ["bindings.InputTensor", "no resource named 'nothing'"])
    m = base_model(); m["commands"][0]["bindings"]["OutputTensor"] = "input"
    reject("buffer too small for the output", m, ["OutputTensor 'input' (64 bytes)", "TotalTensorSizeInBytes is 320"])
    m["resources"]["input"]["sizeInBytes"] = 320
    reject("in-place binding", m, ["overlap", "does not run in place"])
    m = base_model(); m["commands"][0]["dispatchable"] = "other"
    reject("unknown dispatchable", m, ["no dispatchable named 'other'"])
    m = base_model(); m["commands"].append({"type": "sleep"})
    reject("unknown command", m, ["commands[2].type", "'sleep'"])
    m = base_model(); m["resources"]["output"]["initialValues"] = "deferred"
    reject("deferred resource", m, ["deferred", "not supported by dmlref"])
    m = base_model(); m["resources"]["output"]["initialValues"]["value"] = "zero"
    reject("bad constant", m, ["initialValues.value", "'NaN', 'Inf'"])
    m = base_model(); desc(m)["PaddingValue"] = {"Int32": 9}
    reject("wrong scalar member", m, ["PaddingValue", "Float32"])
    m = base_model(); desc(m)["PaddingMode"] = "WRAP"
    # The same model is fine at 6_4 but rejected when run at 5_0.
    d = scratch()
    try:
        json.dump(m, open(os.path.join(d, "model.json"), "w"))
        r = run(["run", "--feature-level", "5_0", "model.json"], d)
        check("feature level status", r.returncode == 1 and "WRAP" in r.stderr and "6_4" in r.stderr, r.stderr)
        check("feature level no output", not os.path.exists(os.path.join(d, "output.npy")))
        r = run(["run", "model.json"], d)
        check("feature level 6_4 runs", r.returncode == 0 and os.path.exists(os.path.join(d, "output.npy")), r.stderr)
    finally:
        shutil.rmtree(d)
    # A model that is not there, and a folder.
    d = tempfile.mkdtemp()
    try:
        r = run(["run", "nothing.json"], d)
        check("missing model", r.returncode == 1 and "nothing.json" in r.stderr and "cannot open" in r.stderr, r.stderr)
        r = run(["run", "."], d)
        check("folder as model", r.returncode == 1 and "folder" in r.stderr, r.stderr)
    finally:
        shutil.rmtree(d)


def usage():
    d = tempfile.mkdtemp()
    try:
        for args in ([], ["frobnicate"], ["run"], ["run", "a.json", "--known", "k.json"], ["compare", "a.npy"],
                     ["vectors"], ["vectors", "--out", "x", "--count", "many"], ["run", "--feature-level", "9_9", "m.json"],
                     ["vectors", "--out", "x", "--ops", "conv"]):
            r = run(args, d)
            check("usage %s" % args, r.returncode == 2, "exit %d: %s" % (r.returncode, r.stderr))
        check("usage leaves nothing", not os.listdir(d), str(os.listdir(d)))
        for args in (["--help"], ["run", "--help"], ["compare", "--help"], ["vectors", "--help"]):
            r = run(args, d)
            check("help %s" % args, r.returncode == 0 and "Usage" in r.stdout, r.stdout + r.stderr)
        r = run(["--version"], d)
        check("version", r.returncode == 0 and r.stdout.startswith("dmlref "), r.stdout)
    finally:
        shutil.rmtree(d)
    # Operands that start with "/" are paths in every subcommand (CLI11 on Windows would take them
    # for /option switches unless the tool turns that off).
    d = scratch()
    try:
        shutil.copy(os.path.join(CONFORMANCE, "seed_padding_constant", "model.json"), d)
        model = os.path.join(os.path.abspath(d), "model.json")
        r = run(["run", "-q", model], d)
        check("run /path", r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
        out = os.path.join(os.path.abspath(d), "output.npy")
        r = run(["compare", out, os.path.join(CONFORMANCE, "seed_padding_constant", "expected.npy")], d)
        check("compare /path /path", r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
        r = run(["vectors", "--out", os.path.join(os.path.abspath(d), "v"), "--count", "1"], d)
        check("vectors --out /path", r.returncode == 0 and os.listdir(os.path.join(d, "v")),
              "exit %d: %s" % (r.returncode, r.stderr))
    finally:
        shutil.rmtree(d)


def compare():
    case = os.path.join(CONFORMANCE, "seed_padding_constant")
    expected = os.path.join(case, "expected.npy")
    d = tempfile.mkdtemp()
    try:
        r = run(["compare", expected, expected], d)
        check("compare equal", r.returncode == 0 and "bit-identical" in r.stdout, r.stdout + r.stderr)
        # Plant a fault in the start padding of axis 3 (columns 0 and 1 of the 8x10 output).
        data = bytearray(open(expected, "rb").read())
        header = len(data) - 80 * 4
        for row in range(8):
            for col in (0, 1):
                i = header + (row * 10 + col) * 4
                data[i + 3] ^= 0x80  # flip the sign bit
        actual = os.path.join(d, "actual.npy")
        open(actual, "wb").write(bytes(data))
        r = run(["compare", expected, actual, "--op-desc", os.path.join(case, "model.json")], d)
        check("compare differs", r.returncode == 1, "exit %d" % r.returncode)
        check("compare report", "16 of 80 elements differ" in r.stdout and "axis 3 (size 10): 0..1" in r.stdout
              and "start padding of axis 3: 16 of 16 elements differ (all)" in r.stdout
              and "interior (copied from the input): 0 of 16" in r.stdout, r.stdout)
        # Each listed mismatch says where the reference took the element: here, the padding constant.
        check("compare source constant", "[0, 0, 0, 0] 9 (0x41100000) vs -9 (0xc1100000); from the padding constant\n"
              in r.stdout, r.stdout)
        # One wrong element of the interior: output (2, 3) is input (1, 1) of the 4x4 input (pads 1 and 2).
        data = bytearray(open(expected, "rb").read())
        data[header + (2 * 10 + 3) * 4 + 3] ^= 0x80
        one = os.path.join(d, "one.npy")
        open(one, "wb").write(bytes(data))
        r = run(["compare", expected, one, "--op-desc", os.path.join(case, "model.json")], d)
        check("compare source input", r.returncode == 1 and "1 of 80 elements differ" in r.stdout
              and "; from input [0, 0, 1, 1]\n" in r.stdout
              and "interior (copied from the input): 1 of 16 elements differ" in r.stdout, r.stdout)
        r = run(["compare", expected, one], d)
        check("compare without desc names no source", r.returncode == 1 and "from input" not in r.stdout, r.stdout)
        r = run(["compare", expected, actual, "--shape", "8,10"], d)
        check("compare shape", r.returncode == 1 and "sizes {8, 10}" in r.stdout, r.stdout + r.stderr)
        r = run(["compare", expected, actual, "--shape", "8,11"], d)
        check("compare wrong shape", r.returncode == 1 and "need 352" in r.stderr, r.stdout + r.stderr)
        r = run(["compare", expected, os.path.join(d, "missing.npy")], d)
        check("compare missing", r.returncode == 1 and "missing.npy" in r.stderr, r.stderr)
        r = run(["compare", expected, os.path.join(CONFORMANCE, "onnx_slice", "expected.npy")], d)
        check("compare other tensor", r.returncode == 1, r.stdout + r.stderr)
    finally:
        shutil.rmtree(d)


# The indexed operators `vectors` draws when --ops names them, with the files of their inputs.
INDEXED_INPUTS = {"REVERSE_SUBSEQUENCES": ["input", "sequence_lengths"], "GATHER": ["indices", "input"],
                  "GATHER_ELEMENTS": ["indices", "input"], "GATHER_ND": ["indices", "input"],
                  "GATHER_ND1": ["indices", "input"], "SCATTER_ELEMENTS": ["indices", "input", "updates"],
                  "SCATTER_ND": ["indices", "input", "updates"], "ONE_HOT": ["indices", "values"]}


INDEXED_OPS = ["reverse_subsequences", "gather", "gather_elements", "gather_nd", "gather_nd1", "scatter_elements",
               "scatter_nd", "one_hot"]


def roundtrip(backend=None, ops=None):
    """`dmlref vectors` writes CASES models (of `ops`, default: the layout operators); each runs back
    through `dmlref run` (on `backend`) to exactly its expected.npy."""
    import concurrent.futures
    d = tempfile.mkdtemp()
    try:
        r = run(["vectors", "--out", "v", "--count", str(CASES), "--seed", "2026"] + (["--ops", ",".join(ops)] if ops else []), d)
        check("vectors", r.returncode == 0 and "wrote %d models" % CASES in r.stdout, r.stdout + r.stderr)
        cases = sorted(os.listdir(os.path.join(d, "v")))
        check("vectors count", len(cases) == CASES, str(len(cases)))
        drawn = {c.split("_", 1)[1].rsplit("_", 1)[0] for c in cases}
        types = {c.rsplit("_", 1)[1] for c in cases}
        if ops:
            check("vectors span ops", drawn == {o.upper() for o in ops}, str(drawn))
        else:
            check("vectors span ops", len(drawn) == 14, str(drawn))
            check("vectors span types", len(types) == 11, str(types))
        # JOIN's inputs and SPLIT's outputs are one file each (input_0.npy, ...; output_0.npy and
        # expected_0.npy, ...); an indexed operator's inputs are named for their fields
        # (INDEXED_INPUTS); every other case folder has input.npy and expected.npy.
        for c in cases:
            files = sorted(os.listdir(os.path.join(d, "v", c)))
            op = c.split("_", 1)[1].rsplit("_", 1)[0]
            if op in INDEXED_INPUTS:
                want = ["expected.npy", "model.json"] + [f + ".npy" for f in INDEXED_INPUTS[op]]
                check("%s files %s" % (op, c), files == sorted(want), str(files))
            elif "_JOIN_" in c:
                n = len([f for f in files if f.startswith("input_")])
                want = ["expected.npy", "model.json"] + ["input_%d.npy" % k for k in range(n)]
                check("JOIN files %s" % c, n >= 1 and files == sorted(want), str(files))
            elif "_SPLIT_" in c:
                n = len([f for f in files if f.startswith("expected_")])
                want = ["input.npy", "model.json"] + ["expected_%d.npy" % k for k in range(n)]
                check("SPLIT files %s" % c, n >= 1 and files == sorted(want), str(files))
            else:
                check("files %s" % c, files == ["expected.npy", "input.npy", "model.json"], str(files))
        if backend is None:  # the same seed writes the same files
            r = run(["vectors", "--out", "w", "--count", "20", "--seed", "2026"] + (["--ops", ",".join(ops)] if ops else []), d)
            for c in sorted(os.listdir(os.path.join(d, "w"))):
                for f in sorted(os.listdir(os.path.join(d, "w", c))):
                    same = open(os.path.join(d, "w", c, f), "rb").read() == open(os.path.join(d, "v", c, f), "rb").read()
                    check("deterministic %s/%s" % (c, f), same)

        # The models run in chunks, each chunk one process that runs its models in turn on one
        # backend (`dmlref run A B ...`): a D3D12 context or a DirectML device costs more to make
        # than most models take, and under Wine each process costs seconds.
        args = ["run", "-q"] + (["--backend", backend] if backend else [])
        if backend == "directml":
            # DirectML's outputs that differ where a known divergence covers the desc (the file
            # the DirectML stage holds it to) are reported, and counted here.
            shutil.copy(KNOWN, d)
            args += ["--known", os.path.basename(KNOWN)]
        known = []
        chunks = [cases[i:i + 40] for i in range(0, len(cases), 40)]

        def one(chunk):
            paths = [os.path.join("v", c, "model.json") for c in chunk]
            r = run(args + paths, d, timeout=900)
            results = []
            known.extend(l for l in r.stdout.splitlines() if ": known divergence " in l)
            for c, path in zip(chunk, paths):
                error = [l for l in r.stderr.splitlines() if l.startswith("dmlref: %s: " % path)]
                if error:
                    results.append((c, "; ".join(error)))
                    continue
                # Each expected*.npy against the output*.npy of the same name (SPLIT: one per output).
                wrong = []
                for e in sorted(f for f in os.listdir(os.path.join(d, "v", c)) if f.startswith("expected")):
                    o = "output" + e[len("expected"):]
                    output = os.path.join(d, "v", c, o)
                    if not os.path.exists(output):
                        wrong.append("no %s (exit %d: %s)" % (o, r.returncode, (r.stdout + r.stderr).strip()[-300:]))
                    elif open(output, "rb").read() != open(os.path.join(d, "v", c, e), "rb").read():
                        wrong.append("%s differs from %s" % (o, e))
                results.append((c, "; ".join(wrong) or None))
            summary = "dmlref: %d of %d models failed" % (sum(e is not None for _, e in results), len(chunk))
            check("roundtrip summary", summary in r.stdout + r.stderr, "%r not in %r" % (summary, (r.stdout + r.stderr)[-300:]))
            return results

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for results in pool.map(one, chunks):
                for c, err in results:
                    check("roundtrip %s%s" % (c, " on " + backend if backend else ""), err is None, err or "")
        for line in known:
            print(line)
        print("roundtrip%s%s: %d models, %d with a known divergence" % (" of " + ",".join(ops) if ops else "",
                                                                       " on " + backend if backend else "", len(cases), len(known)))
        if backend is None and not ops:
            several_models(d, cases[:3])
    finally:
        shutil.rmtree(d)


def several_models(d, cases):
    """`dmlref run A B C`: a model that fails is reported by its path, the others still run, and the
    status is 1."""
    paths = [os.path.join("v", c, "model.json") for c in cases]
    for c in cases:
        os.remove(os.path.join(d, "v", c, "output.npy"))
    with open(os.path.join(d, paths[1]), "a") as f:
        f.write("}")  # trailing garbage: not JSON
    r = run(["run", "-q"] + paths, d)
    check("several models status", r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr))
    check("several models names the failing one", ("dmlref: %s: error: " % paths[1]) in r.stderr, r.stderr)
    check("several models summary", "dmlref: 1 of 3 models failed" in r.stderr, r.stderr)
    for i in (0, 2):
        check("several models runs the rest", os.path.exists(os.path.join(d, "v", cases[i], "output.npy")), cases[i])
    check("several models writes nothing for the failing one", not os.path.exists(os.path.join(d, "v", cases[1], "output.npy")))


# The sha256 of `dmlref vectors --count 40 --seed 2026` (see suite_sha256). Every build, whatever
# its compiler, standard library or platform, must write exactly these files: the seeded draws are
# the project's own (tools/seeded_random.hpp). A new value here means every shared seed now names
# other cases, which is a change to announce.
SEEDED_SUITE_SHA256 = "323e49f7d439c41a962da9a7421783eb960090dafac5feb7d511ce312214ad0e"


def suite_sha256(folder):
    """sha256 over the files under `folder` in sorted order of their "/"-separated relative paths:
    for each, the path, a NUL, its length in decimal, a NUL, and its bytes."""
    files = []
    for root, _, names in os.walk(folder):
        for n in names:
            path = os.path.join(root, n)
            files.append((os.path.relpath(path, folder).replace(os.sep, "/"), path))
    h = hashlib.sha256()
    for rel, path in sorted(files):
        data = open(path, "rb").read()
        h.update(rel.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def seeded():
    """The seeded suite is the same on every build: its hash is printed for other builds to compare."""
    d = tempfile.mkdtemp()
    try:
        r = run(["vectors", "--out", "v", "--count", "40", "--seed", "2026"], d)
        check("vectors", r.returncode == 0, r.stdout + r.stderr)
        digest = suite_sha256(os.path.join(d, "v"))
        print("dmlref vectors --count 40 --seed 2026: sha256 %s (expected %s)" % (digest, SEEDED_SUITE_SHA256))
        check("seeded suite hash", digest == SEEDED_SUITE_SHA256,
              "%s; the files: %s" % (digest, " ".join(sorted(os.listdir(os.path.join(d, "v")))[:8])))
    finally:
        shutil.rmtree(d)


MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "directml", "models")


def models(backend=None):
    """JOIN's and SPLIT's model files (tests/directml/models, bindings as DxDispatch writes them: a
    JSON array per tensor array) through `dmlref run`, each dispatch on `backend`: the values printed."""
    d = tempfile.mkdtemp()
    try:
        for f in ("join.json", "split.json"):
            shutil.copy(os.path.join(MODELS, f), d)
        r = run(["run"] + (["--backend", backend] if backend else []) + ["join.json", "split.json"], d, timeout=600)
        check("models status", r.returncode == 0, "exit %d: %s" % (r.returncode, (r.stdout + r.stderr)[-600:]))
        for line in ("Resource 'Out': 1, 2, 100, -4, -1, 2, 3, 4, 115, -3, 0, 3, 5, 6, 130, -2, 1, 4",
                     "Resource 'Out1': 1, 2, 3, 4", "Resource 'Out2': 5, 6", "Resource 'Out3': 7, 8, 9, 10, 11, 12",
                     "dmlref: 0 of 2 models failed"):
            check("models prints %r" % line, line in r.stdout.splitlines(), r.stdout[-600:])
        print(r.stdout)
    finally:
        shutil.rmtree(d)


def fuzz():
    """Random damage to valid models: always exit 0 or 1 with a message, never a crash."""
    rng = random.Random(11)
    names = sorted(n for n in os.listdir(CONFORMANCE) if os.path.exists(os.path.join(CONFORMANCE, n, "model.json")))
    for k in range(CASES // 3):
        name = names[k % len(names)]
        text = open(os.path.join(CONFORMANCE, name, "model.json")).read()
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            chars[i] = rng.choice('0123456789-,:{}[]"aZ ')
        d = scratch(name)
        try:
            open(os.path.join(d, "model.json"), "w").write("".join(chars))
            r = run(["run", "-q", "model.json"], d)
            check("fuzz %d status" % k, r.returncode in (0, 1), "exit %d: %s" % (r.returncode, r.stderr[-300:]))
            if r.returncode == 1:
                check("fuzz %d message" % k, r.stderr.startswith("dmlref: error: "), r.stderr[-300:])
                check("fuzz %d no output" % k, not os.path.exists(os.path.join(d, "output.npy")))
        finally:
            shutil.rmtree(d)


{"rejections": rejections, "usage": usage, "compare": compare, "roundtrip": roundtrip, "fuzz": fuzz, "seeded": seeded,
 "models": models, "roundtrip_d3d12": lambda: roundtrip("d3d12"), "roundtrip_directml": lambda: roundtrip("directml"),
 "models_directml": lambda: models("directml"), "models_d3d12": lambda: models("d3d12"),
 "roundtrip_indexed": lambda: roundtrip(None, INDEXED_OPS),
 # The indexed operators on the D3D12 backend (every one has a kernel).
 "roundtrip_indexed_d3d12": lambda: roundtrip("d3d12", INDEXED_OPS),
 # The operators the DirectML stage holds to DirectML (scripts/test-directml.sh says why the others wait).
 "roundtrip_indexed_directml": lambda: roundtrip("directml", ["reverse_subsequences", "gather_elements", "one_hot"])}[GROUP]()
for f in failures:
    print("FAIL", f)
print("%s: %d failures" % (GROUP, len(failures)))
sys.exit(1 if failures else 0)
