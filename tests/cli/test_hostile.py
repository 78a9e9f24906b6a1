#!/usr/bin/env python3
"""Hostile input for the `dmlref` tool (Python standard library only, Linux).

  test_hostile.py DMLREF CONFORMANCE_DIR [--asan] [-k WORD]

Every case runs dmlref in a scratch folder of its own and asserts: the exit status (1 for a
refusal, 2 for a usage error, never death by a signal unless the case sends one), the words of
the message (the file, the JSON path or field, the value), a time bound, a bound on the process's
peak memory (ru_maxrss from os.wait4) and that nothing is left in the folder but what the case
expects (no output, no temporary file). --asan scales the time and memory bounds for the
sanitizer build: shadow memory and the allocator's quarantine add a fixed cost and a factor.
"""
import json, os, signal, shutil, struct, subprocess, sys, tempfile, threading, time

DMLREF, CONFORMANCE = sys.argv[1], sys.argv[2]
ASAN = "--asan" in sys.argv
ONLY = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
TIME_FACTOR = 8 if ASAN else 1
MIB = 1 << 20
GIB = 1 << 30
failures = []
cases_run = 0


def mem_bound(mib, asan_mib=None):
    """A peak-memory bound in KiB. Under ASan a process starts near 30 MiB, and shadow memory
    adds an eighth of what is touched, its allocator more: a factor and a base, still far below
    the gigabytes these cases would take unbounded. Cases of many small allocations (parsed JSON)
    pay ASan's redzones on each and give their own bound."""
    if ASAN:
        return int((asan_mib if asan_mib is not None else mib * 1.5 + 160) * 1024)
    return int(mib * 1024)


# A child's ru_maxrss counts the memory of the process it was started from (Linux keeps the
# high-water mark across exec), and this script grows as it builds large models. So dmlref is
# started by a small launcher, itself started while this script is small: each case's peak is
# dmlref's own plus the launcher's ~10 MiB.
LAUNCHER_CODE = r"""
import json, os, subprocess, sys, threading, time
for line in sys.stdin:
    job = json.loads(line)
    stdin = subprocess.DEVNULL
    keep = None
    if job["stdin"] == "pipe":  # a pipe whose writer stays open: reading it would block forever
        stdin, keep = os.pipe()
    with open(job["out"], "wb") as out, open(job["err"], "wb") as err:
        start = time.monotonic()
        p = subprocess.Popen(job["args"], cwd=job["cwd"], stdout=out, stderr=err, stdin=stdin)
        killer = threading.Timer(job["timeout"], p.kill)
        killer.start()
        _, status, usage = os.wait4(p.pid, 0)
        killer.cancel()
        seconds = time.monotonic() - start
    if keep is not None:
        os.close(stdin)
        os.close(keep)
    print(json.dumps([os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss]), flush=True)
"""
launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER_CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def measure(args, cwd, timeout=20, stdin=None, on_start=None):
    """Runs dmlref; returns (status, stdout, stderr, seconds, peak KiB). status is the exit code,
    or minus the signal number that ended it. `on_start(process)` runs while it does (the signal
    cases, whose memory bound is loose, start it from here to signal it)."""
    out = tempfile.NamedTemporaryFile(delete=False)
    err = tempfile.NamedTemporaryFile(delete=False)
    try:
        if on_start is None:
            launcher.stdin.write(json.dumps({"args": [DMLREF] + args, "cwd": cwd, "timeout": timeout * TIME_FACTOR,
                                             "stdin": stdin or "null", "out": out.name, "err": err.name}) + "\n")
            launcher.stdin.flush()
            code, seconds, peak = json.loads(launcher.stdout.readline())
        else:
            start = time.monotonic()
            p = subprocess.Popen([DMLREF] + args, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
            killer = threading.Timer(timeout * TIME_FACTOR, p.kill)
            killer.start()
            try:
                on_start(p)
                _, status, usage = os.wait4(p.pid, 0)
                p.returncode = code = os.waitstatus_to_exitcode(status)
            finally:
                killer.cancel()
            seconds, peak = time.monotonic() - start, usage.ru_maxrss
        return (code,) + read_ends(out, err) + (seconds, peak)
    finally:
        os.unlink(out.name)
        os.unlink(err.name)


def read_ends(out, err):
    """The last 64 KiB of each output: this process must stay small (see the launcher)."""
    texts = []
    for f in (out, err):
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 65536))
        texts.append(f.read().decode(errors="replace"))
    return texts[0], texts[1]


def check(name, cond, detail=""):
    if not cond:
        failures.append("%s: %s" % (name, detail))


def listing(d):
    found = set()
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            found.add(os.path.relpath(os.path.join(root, n), d))
    return found


def conformance_model(case="seed_padding_constant"):
    with open(os.path.join(CONFORMANCE, case, "model.json")) as f:
        return json.load(f)


def npy_bytes(descr, shape, data=b"", fortran=False, version=1, header_pad=0):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join("%d, " % s for s in shape) if len(shape) != 1 else "%d," % shape[0])
    header += " " * header_pad + "\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(header)) + header.encode() + data


def write_sparse_npy(path, descr, shape, width):
    """A .npy file of zeros without holding them in memory: the header, then a hole."""
    head = npy_bytes(descr, shape)
    pad = (64 - len(head) % 64) % 64
    head = npy_bytes(descr, shape, header_pad=pad)
    n = width
    for s in shape:
        n *= s
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(len(head) + n)


def resources_model(resources, commands=(), dispatchables=None):
    return {"resources": resources, "dispatchables": dispatchables or {}, "commands": list(commands)}


def case(name, model=None, text=None, args=None, status=1, words=(), setup=None, max_s=10, max_mib=48,
         left=(), absent_words=(), stdin=None, on_start=None, after=None, timeout=None, asan_mib=None):
    """One hostile run in a fresh scratch folder holding the conformance case's input.npy (and
    model.json from `model` or `text`). `left`: the files the run may add; `after(d, result)`:
    further checks."""
    global cases_run
    if ONLY and ONLY not in name:
        return
    cases_run += 1
    d = tempfile.mkdtemp(prefix="dmlref_hostile_")
    try:
        shutil.copy(os.path.join(CONFORMANCE, "seed_padding_constant", "input.npy"), d)
        if model is not None or text is not None:
            with open(os.path.join(d, "model.json"), "w" if text is None or isinstance(text, str) else "wb") as f:
                f.write(text if text is not None else json.dumps(model))
        if setup:
            setup(d)
        before = listing(d)
        r = measure(args or ["run", "model.json"], d, timeout=timeout or max(20, 2 * max_s), stdin=stdin, on_start=on_start)
        code, out, err, seconds, peak = r
        check(name + ": status", code == status, "exit %d (want %d), stderr %r" % (code, status, err[-400:]))
        # A sanitizer's report exits 1 too: it must never pass for a refusal.
        check(name + ": sanitizers", "Sanitizer" not in err and "runtime error:" not in err, err[-800:])
        for w in words:
            check(name + ": message", w in err, "%r not in %r" % (w, err[-600:]))
        for w in absent_words:
            check(name + ": no leak", w not in err + out, "%r printed" % w)
        check(name + ": time", seconds <= max_s * TIME_FACTOR, "%.2f s > %d s" % (seconds, max_s * TIME_FACTOR))
        bound = mem_bound(max_mib, asan_mib)
        check(name + ": memory", peak <= bound, "peak %d KiB > %d KiB" % (peak, bound))
        added = listing(d) - before
        check(name + ": files left", added == set(left), "added %s, expected %s" % (sorted(added), sorted(left)))
        check(name + ": temporaries", not any(n.endswith(".dmlref-tmp") or "tmp-dmlref" in n for n in added),
              str(sorted(added)))
        if after:
            after(d, r)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def output_model(**resource_extra):
    """A model whose output resource has the fields given, and no commands."""
    return resources_model({"output": dict({"initialValuesDataType": "FLOAT32",
                                            "initialValues": {"valueCount": 1, "value": 0}}, **resource_extra)})


# ---------------------------------------------------------------------------------------------
def memory_safety():
    d0 = tempfile.mkdtemp()
    try:
        case("missing model", args=["run", "nothing.json"], words=["nothing.json", "cannot open"])
        case("folder as model", args=["run", "."], words=["'.'", "folder"])
        case("absolute folder as model", args=["run", d0], words=[d0, "folder"])
        case("subfolder as model", setup=lambda d: os.mkdir(os.path.join(d, "m.json")), args=["run", "m.json"],
             words=["m.json", "folder"])
        case("empty model", text="", words=["model.json", "not valid JSON"])
        case("binary garbage", text=bytes(range(256)), words=["model.json", "not valid JSON"])
        case("NUL in a string", text=b'{"resources": {"a\x00b": {}}}', words=["model.json", "not valid JSON"])
        case("ill-formed UTF-8 key", text=b'{"resources": {"\xff\xfe": {}}, "dispatchables": {}, "commands": []}',
             words=["model.json", "not valid JSON"])
        case("nested bindings", model=dict(conformance_model(), commands=[
            {"type": "dispatch", "dispatchable": "op", "bindings": {"InputTensor": [["input"]], "OutputTensor": "output"}}]),
             words=["commands[0].bindings.InputTensor[0]", "expected a resource name"])
    finally:
        shutil.rmtree(d0)

    # compare --op-desc with a desc whose buffer is as large as 64 bits allow: checked, never read
    # out of bounds.
    def huge_desc(d, total, stride):
        m = conformance_model()
        out = m["dispatchables"]["op"]["desc"]["OutputTensor"]
        out["TotalTensorSizeInBytes"] = total
        out["Strides"] = [stride, 80, 10, 1]
        m["resources"]["output"]["sizeInBytes"] = 320
        json.dump(m, open(os.path.join(d, "op.json"), "w"))
        shutil.copy(os.path.join(CONFORMANCE, "seed_padding_constant", "expected.npy"), os.path.join(d, "e.npy"))
    for label, total, stride in (("2^64-1 bytes", 2**64 - 1, 2**32 - 1), ("2^63 bytes", 2**63, 2**31),
                                 ("2^40 bytes", 2**40, 2**32 - 1)):
        case("compare op-desc " + label, setup=lambda d, t=total, s=stride: huge_desc(d, t, s),
             args=["compare", "e.npy", "e.npy", "--op-desc", "op.json"], words=["op.json"])
    case("compare folder", setup=lambda d: os.mkdir(os.path.join(d, "x.npy")), args=["compare", "input.npy", "x.npy"],
         words=["x.npy", "folder"])
    case("compare missing", args=["compare", "input.npy", "nothing.npy"], words=["nothing.npy", "cannot open"])


def nesting():
    n = 100000
    case("deep arrays in resources", text='{"resources": ' + "[" * n + "]" * n + "}",
         words=["model.json", "resources[0][0]", "deeper than 64 levels"])
    case("deep objects", text='{"resources": ' + '{"a": ' * n + "1" + "}" * n + "}",
         words=["model.json", "resources.a.a.a", "deeper than 64 levels"])
    case("deep bindings", text=json.dumps(conformance_model()).replace('"InputTensor": "input"', '"InputTensor": ' + "[" * 70000 + '"input"' + "]" * 70000),
         words=["commands[0].bindings.InputTensor[0]", "deeper than 64 levels"])
    case("deep unterminated", text="[" * n, words=["model.json", "deeper than 64 levels"])
    case("65 levels", text='{"resources": ' + "[" * 64 + "]" * 64 + "}", words=["deeper than 64 levels"])
    m = conformance_model()
    text = json.dumps(m).replace('"PaddingValue": 9', '"PaddingValue": ' + "[" * 500 + "]" * 500) if '"PaddingValue": 9' in json.dumps(m) else None
    if text:
        case("deep padding value", text=text, words=["PaddingValue", "deeper than 64 levels"])
    case("deep error message", text='{"commands": ' + "[" * 60 + "{" + "]" * 60 + "}", words=["model.json", "not valid JSON"])


def strictness():
    case("duplicate commands", text='{"resources": {}, "dispatchables": {}, "commands": [{"type": "print", "resource": "x"}], '
                                   '"commands": []}', words=["model.json", "commands", "duplicate key 'commands'"])
    text = json.dumps(conformance_model())
    case("duplicate resource", text=text.replace('"resources": {', '"resources": {"output": {}, ', 1),
         words=["resources.output", "duplicate key 'output'"])
    case("duplicate desc field", text=text.replace('"PaddingMode": "CONSTANT"', '"PaddingMode": "CONSTANT", "PaddingMode": "EDGE"'),
         words=["dispatchables.op.desc.PaddingMode", "duplicate key"])
    case("duplicate tensor field", text=text.replace('"DataType": "FLOAT32"', '"DataType": "FLOAT32", "DataType": "INT8"', 1),
         words=["desc.InputTensor.DataType", "duplicate key 'DataType'"])
    case("duplicate empty key", text='{"": 1, "": 2}', words=["duplicate key ''"])
    case("keys differing in case", text=text.replace('"commands"', '"Commands"'), words=["Commands", "unknown field"])
    for label, value, path in (("1e5520 value", "1e5520", "resources.output.initialValues.value"),
                               ("-1e5520 value", "-1e5520", "resources.output.initialValues.value"),
                               ("1e5520 sizeInBytes", None, "resources.output.sizeInBytes")):
        if value:
            t = text.replace('"value": 0', '"value": %s' % value)
        else:
            t = text.replace('"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 80',
                             '"sizeInBytes": 1e5520, "initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 80')
        case(label, text=t, words=["model.json", path, "1e5520", "not valid JSON"])
    case("1e5520 in an array", text='{"resources": {"a": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 1e5520]}}}',
         words=["resources.a.initialValues[2]", "number overflow", "1e5520"])
    case("valueCount over 64 bits", text=text.replace('"valueCount": 80', '"valueCount": 99999999999999999999999'),
         words=["initialValues.valueCount", "unsigned 32-bit"])
    case("negative valueCount", text=text.replace('"valueCount": 80', '"valueCount": -1'), words=["valueCount", "-1"])
    case("fractional valueCount", text=text.replace('"valueCount": 80', '"valueCount": 1.5'), words=["valueCount", "1.5"])
    case("NaN literal", text=text.replace('"value": 0', '"value": NaN'), words=["initialValues.value", "not valid JSON"])
    case("trailing text", text=text + " {}", words=["model.json", "not valid JSON"])
    case("comments are fine", text="// a model\n" + text, status=0, left=["output.npy"])


def memory_bombs():
    case("20 GiB sizeInBytes", model=output_model(sizeInBytes=20 * GIB), args=["run", "--max-memory", "1G", "model.json"],
         words=["resources.output", "21474836480 bytes", "1073741824", "--max-memory"])
    case("2^50 sizeInBytes, default budget", model=output_model(sizeInBytes=2**50),
         words=["resources.output", str(2**50), "memory budget", "memory available"])
    case("2^64-1 sizeInBytes", model=output_model(sizeInBytes=2**64 - 1), words=["resources.output", str(2**64 - 1)])
    case("2^64 sizeInBytes", model=output_model(sizeInBytes=2**64), words=["resources.output.sizeInBytes", "unsigned 64-bit"])
    case("valueCount 2^32-1 FLOAT64", model=resources_model({"big": {"initialValuesDataType": "FLOAT64",
                                                                      "initialValues": {"valueCount": 2**32 - 1, "value": 1}}}),
         args=["run", "--max-memory", "2G", "model.json"], words=["resources.big", str((2**32 - 1) * 8), "2147483648"])
    case("valueCount 2^31 sequence", model=resources_model({"big": {"initialValuesDataType": "UINT8",
                                                                     "initialValues": {"valueCount": 2**31, "valueStart": 0,
                                                                                       "valueDelta": 1}}}),
         args=["run", "--max-memory", "1G", "model.json"], words=["resources.big", str(2**31)])
    # Allowed: 256 MiB filled once, in place (the old reader held the values twice).
    case("valueCount 256 MiB in place", model=resources_model({"big": {"initialValuesDataType": "UINT8",
                                                                        "initialValues": {"valueCount": 256 * MIB, "value": 7}}}),
         status=0, max_s=10, max_mib=256 * 1.2 + 64)
    case("resources summing over the budget",
         model=resources_model({"r%d" % i: {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 1, "value": 0},
                                            "sizeInBytes": 600 * MIB} for i in range(4)}),
         args=["run", "--max-memory", "2G", "model.json"], words=["resources.r3", str(600 * MIB), "2147483648"])
    # 100,000 tiny resources: each starts on 64 KiB, as D3D12 places buffers, and the gaps are
    # never touched, so each costs one 4 KiB page (400 MiB) and the parsed JSON about 100 MiB; the
    # budget counts 64 KiB each (6.5 GB), more than they take.
    # ASan's calloc fills an arena of this kind: a tenth as many there, under a bound of their own.
    tiny = 100000 if not ASAN else 10000
    case("%d tiny resources" % tiny, model=resources_model({"r%d" % i: {"initialValuesDataType": "UINT8", "initialValues": [1]}
                                                            for i in range(tiny)}), status=0, max_s=20, max_mib=600, asan_mib=1400)
    case("100,000 tiny resources over a budget", model=resources_model({"r%d" % i: {"initialValuesDataType": "UINT8", "initialValues": [1]}
                                                                        for i in range(100000)}),
         args=["run", "--max-memory", "1G", "model.json"], words=["resources.r", "1073741824"], max_mib=160)
    case("offset past the buffer", model=output_model(initialValuesOffsetInBytes=2**64 - 1, sizeInBytes=16),
         words=["resources.output", "too small", str(2**64 - 1)])
    case("offset 2^40", model=output_model(initialValuesOffsetInBytes=2**40),
         words=["resources.output", "too small", str(2**40)])
    # print streams: a 64 MiB resource printed never becomes one string.
    big_print = resources_model({"big": {"initialValuesDataType": "FLOAT64",
                                         "initialValues": {"valueCount": 8 * MIB, "valueStart": 0, "valueDelta": 1}}},
                                commands=[{"type": "print", "resource": "big"}])
    case("print 64 MiB", model=big_print, status=0, max_s=30, max_mib=64 * 1.2 + 64)
    big_print["commands"][0]["verbose"] = True
    big_print["resources"]["big"]["initialValues"]["valueCount"] = 2 * MIB
    case("print verbose 16 MiB", model=big_print, status=0, max_s=30, max_mib=16 * 1.2 + 64)
    case("model over 64 MiB", setup=lambda d: open(os.path.join(d, "big.json"), "wb").truncate(64 * MIB + 1),
         args=["run", "big.json"], words=["big.json", "67108865 bytes", "64 MiB"])
    many = '{"resources": {"a": {"initialValuesDataType": "UINT8", "initialValues": [' + ",".join(["0"] * 2000000) + ']}}, ' \
           '"dispatchables": {}, "commands": []}'
    case("JSON costs over the budget", text=many, args=["run", "--max-memory", "16M", "model.json"],
         words=["model.json", "reading the JSON", "16777216"])
    case("JSON of 2M values", text=many, status=0, max_mib=160, asan_mib=800)
    # .npy headers that announce more than the file holds.
    case("npy header 2^62 elements", setup=lambda d: open(os.path.join(d, "input.npy"), "wb").write(npy_bytes("<f4", [2**60], b"\0" * 16)),
         model=conformance_model(), words=["resources.input.initialValues.sourcePath", "input.npy", "bytes of data"])
    case("npy header length 4 GiB", setup=lambda d: open(os.path.join(d, "input.npy"), "wb").write(
        b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**32 - 1) + b"{"),
         model=conformance_model(), words=["input.npy", "longer than dmlref reads"])

    def big_npy(d):
        write_sparse_npy(os.path.join(d, "big.npy"), "<f4", [25 * MIB], 4)
    case("npy over the budget, before reading", setup=big_npy,
         model=resources_model({"in": {"initialValues": {"sourcePath": "big.npy"}}}),
         args=["run", "--max-memory", "64M", "model.json"], words=["resources.in", str(100 * MIB), "67108864"])

    def big_raw(d):
        open(os.path.join(d, "big.bin"), "wb").truncate(100 * MIB)
    case("raw file larger than its resource", setup=big_raw,
         model=resources_model({"in": {"initialValuesDataType": "UINT8", "sizeInBytes": 64, "initialValues": {"sourcePath": "big.bin"}}}),
         words=["resources.in", "too small", str(100 * MIB)])
    # compare: shapes checked, memory bounded by the files.
    def zero_axis(d):
        for n in ("a.npy", "b.npy"):
            open(os.path.join(d, n), "wb").write(npy_bytes("<f4", [0, 2**32 - 1]))
    case("compare zero-size axis", setup=zero_axis, args=["compare", "a.npy", "b.npy"], words=["zero-sized dimension", "4294967295"])
    case("compare shape overflow", args=["compare", "input.npy", "input.npy", "--shape", "4294967295,4294967295,4294967295"],
         words=["input.npy", "more than 2^64"])
    case("compare shape mismatch", args=["compare", "input.npy", "input.npy", "--shape", "4294967295,4294967295"],
         words=["input.npy", "need"])
    def many_axes(d):
        open(os.path.join(d, "a.npy"), "wb").write(npy_bytes("|u1", [1] * 20000 + [MIB], bytes(MIB), version=2))
    case("compare 20001 axes", setup=many_axes, args=["compare", "a.npy", "a.npy"], words=["a.npy", "20001 dimensions", "at most 8"],
         max_s=3)
    case("compare --shape of 9 axes", args=["compare", "input.npy", "input.npy", "--shape", "1,1,1,1,1,1,1,1,16"],
         words=["--shape", "9 dimensions"])
    case("compare over the budget", args=["compare", "input.npy", "input.npy", "--max-memory", "100"],
         words=["input.npy", "memory budget of 100 bytes"])
    case("compare huge header shape", setup=lambda d: open(os.path.join(d, "a.npy"), "wb").write(npy_bytes("<f4", [2**40, 2**40])),
         args=["compare", "a.npy", "a.npy"], words=["a.npy", "overflows 64 bits"])
    case("compare large header shape", setup=lambda d: open(os.path.join(d, "a.npy"), "wb").write(npy_bytes("<f4", [2**20, 2**20])),
         args=["compare", "a.npy", "a.npy"], words=["a.npy", "bytes of data", str(2**42)])


def files():
    m = conformance_model()

    def source(path):
        m2 = conformance_model()
        m2["resources"]["input"]["initialValues"]["sourcePath"] = path
        return m2
    case("sourcePath /dev/zero", model=source("/dev/zero"), args=["run", "--allow-outside-paths", "model.json"],
         words=["resources.input.initialValues.sourcePath", "/dev/zero", "character device"])
    case("sourcePath /dev/zero raw", model=resources_model({"z": {"initialValuesDataType": "UINT8",
                                                                   "initialValues": {"sourcePath": "/dev/zero"}}}),
         args=["run", "--allow-outside-paths", "model.json"], words=["resources.z.initialValues.sourcePath", "character device"])
    case("sourcePath /dev/stdin (a pipe left open)", model=resources_model({"s": {"initialValuesDataType": "UINT8",
                                                                                 "initialValues": {"sourcePath": "/dev/stdin"}}}),
         args=["run", "--allow-outside-paths", "model.json"], stdin="pipe", words=["/dev/stdin", "FIFO"], max_s=5)
    case("model /dev/stdin (a pipe left open)", args=["run", "/dev/stdin"], stdin="pipe", words=["/dev/stdin", "FIFO"], max_s=5)
    case("FIFO sourcePath", setup=lambda d: os.mkfifo(os.path.join(d, "f.npy")), model=source("f.npy"),
         words=["sourcePath", "f.npy", "FIFO"], max_s=5)
    case("FIFO model", setup=lambda d: os.mkfifo(os.path.join(d, "f.json")), args=["run", "f.json"], words=["f.json", "FIFO"], max_s=5)
    case("model /dev/zero", args=["run", "/dev/zero"], words=["/dev/zero", "character device"])
    case("folder sourcePath", setup=lambda d: os.mkdir(os.path.join(d, "sub.npy")), model=source("sub.npy"),
         words=["sourcePath", "sub.npy", "folder"])
    case("link to /dev/zero inside", setup=lambda d: os.symlink("/dev/zero", os.path.join(d, "z.npy")), model=source("z.npy"),
         words=["sourcePath", "z.npy", "outside the model's folder"])
    case("link to /dev/zero, allowed", setup=lambda d: os.symlink("/dev/zero", os.path.join(d, "z.npy")), model=source("z.npy"),
         args=["run", "--allow-outside-paths", "model.json"], words=["z.npy", "character device"])
    case("link loop", setup=lambda d: os.symlink("loop.npy", os.path.join(d, "loop.npy")), model=source("loop.npy"),
         words=["sourcePath", "loop.npy"])
    case("link loop, allowed", setup=lambda d: os.symlink("loop.npy", os.path.join(d, "loop.npy")), model=source("loop.npy"),
         args=["run", "--allow-outside-paths", "model.json"], words=["sourcePath", "loop.npy", "cannot open"])
    case("empty raw file", setup=lambda d: open(os.path.join(d, "e.bin"), "wb").close(),
         model=resources_model({"e": {"initialValuesDataType": "UINT8", "initialValues": {"sourcePath": "e.bin"}}}),
         words=["resources.e.initialValues", "at least one value"])
    case("npy magic only", setup=lambda d: open(os.path.join(d, "input.npy"), "wb").write(b"\x93NUMPY\x01\x00"),
         model=m, words=["input.npy", "not a .npy file"])
    case("npy header cut short", setup=lambda d: open(os.path.join(d, "input.npy"), "wb").write(b"\x93NUMPY\x01\x00\xff\x00{'descr'"),
         model=m, words=["input.npy", "truncated header"])

    # Writing: never onto a FIFO, a folder, a device or through a link.
    def target(path):
        m2 = conformance_model()
        m2["commands"][1]["targetPath"] = path
        return m2

    def fifo_target(d):
        os.mkfifo(os.path.join(d, "out.npy"))

    def still_fifo(d, r):
        import stat
        check("FIFO target stays a FIFO", stat.S_ISFIFO(os.lstat(os.path.join(d, "out.npy")).st_mode))
    case("FIFO target", setup=fifo_target, model=target("out.npy"), words=["commands[1].targetPath", "out.npy", "not a regular file"],
         after=still_fifo, max_s=5)
    case("folder target", setup=lambda d: os.mkdir(os.path.join(d, "out.npy")), model=target("out.npy"),
         words=["commands[1].targetPath", "not a regular file"])
    victim = tempfile.NamedTemporaryFile(delete=False)
    victim.write(b"precious")
    victim.close()
    try:
        def unchanged(d, r):
            check("victim unchanged", open(victim.name, "rb").read() == b"precious")
        case("link target to outside", setup=lambda d: os.symlink(victim.name, os.path.join(d, "out.npy")), model=target("out.npy"),
             words=["commands[1].targetPath", "outside the model's folder"], after=unchanged)

        def inside_victim(d):
            open(os.path.join(d, "keep.bin"), "wb").write(b"precious")
            os.symlink("keep.bin", os.path.join(d, "out.npy"))

        def inside_unchanged(d, r):
            check("inside victim unchanged", open(os.path.join(d, "keep.bin"), "rb").read() == b"precious")
        case("link target inside", setup=inside_victim, model=target("out.npy"),
             words=["commands[1].targetPath", "out.npy", "symbolic link"], after=inside_unchanged)
        case("link target, allowed outside", setup=lambda d: os.symlink(victim.name, os.path.join(d, "out.npy")),
             model=target("out.npy"), args=["run", "--allow-outside-paths", "model.json"],
             words=["out.npy", "symbolic link"], after=unchanged)
        # A link planted at the fixed temporary name of old: the write goes through a fresh
        # exclusive temporary and leaves the link, and the file it names, alone.
        case("link at the old temporary name", setup=lambda d: os.symlink(victim.name, os.path.join(d, "output.npy.tmp-dmlref")),
             model=m, status=0, left=["output.npy"], after=unchanged)
    finally:
        os.unlink(victim.name)
    case("/dev/null target", model=target("/dev/null"), args=["run", "--allow-outside-paths", "model.json"],
         words=["/dev/null", "not a regular file"])
    case("target under a file", setup=lambda d: open(os.path.join(d, "f"), "w").close(), model=target("f/out.npy"),
         words=["model.json", "commands[1].targetPath", "cannot create the folder 'f'"])
    case("empty target", model=target(""), words=["commands[1].targetPath", "is empty"])
    case("NUL in target", model=target("out\u0000.npy"), words=["commands[1].targetPath", "NUL"])
    case("NUL in sourcePath", model=source("in\u0000put.npy"), words=["sourcePath", "NUL"])

    # Fortran order costs O(count): 4 MiB over a shape of many axes ran 76 s before.
    def fortran(d):
        shape = [2] * 20 + [4]
        data = bytes(4 * MIB)
        open(os.path.join(d, "f.npy"), "wb").write(npy_bytes("|u1", shape, data, fortran=True))
    case("Fortran order, rank 21", setup=fortran,
         model=resources_model({"f": {"initialValues": {"sourcePath": "f.npy"}}}), status=0, max_s=3, max_mib=48)

    def fortran_ones(d):
        shape = [1] * 20000 + [MIB]
        open(os.path.join(d, "f.npy"), "wb").write(npy_bytes("|u1", shape, bytes(MIB), fortran=True, version=2))
    case("Fortran order, 20001 axes", setup=fortran_ones,
         model=resources_model({"f": {"initialValues": {"sourcePath": "f.npy"}}}), status=0, max_s=3, max_mib=48)


def paths():
    def source(path):
        m2 = conformance_model()
        m2["resources"]["input"]["initialValues"]["sourcePath"] = path
        return m2

    def target(path):
        m2 = conformance_model()
        m2["commands"][1]["targetPath"] = path
        return m2

    outside = tempfile.mkdtemp(prefix="dmlref_outside_")
    try:
        shutil.copy(os.path.join(CONFORMANCE, "seed_padding_constant", "input.npy"), os.path.join(outside, "in.npy"))
        rel = lambda d: os.path.relpath(os.path.join(outside, "in.npy"), d)

        def with_rel(name, allow, **kw):
            def go():
                # The relative path depends on the scratch folder: build the model inside setup.
                def setup(d):
                    json.dump(source(rel(d)), open(os.path.join(d, "model.json"), "w"))
                case(name, setup=setup, args=["run"] + (["--allow-outside-paths"] if allow else []) + ["model.json"], **kw)
            go()
        with_rel("sourcePath ../ outside", False, words=["resources.input.initialValues.sourcePath", "outside the model's folder",
                                                         "--allow-outside-paths"])
        with_rel("sourcePath ../ outside, allowed", True, status=0, left=["output.npy"])
        case("absolute sourcePath outside", model=source(os.path.join(outside, "in.npy")),
             words=["sourcePath", "in.npy", "outside the model's folder"])
        case("/etc/passwd", model=resources_model({"p": {"initialValuesDataType": "UINT8", "initialValues": {"sourcePath": "/etc/passwd"}}},
                                                  commands=[{"type": "print", "resource": "p"}]),
             words=["resources.p.initialValues.sourcePath", "/etc/passwd", "outside"], absent_words=["root:"])
        case("sub/../../ escape", setup=lambda d: os.mkdir(os.path.join(d, "sub")), model=source("sub/../../x.npy"),
             words=["sourcePath", "outside the model's folder"])
        case("link inside pointing outside", setup=lambda d: os.symlink(os.path.join(outside, "in.npy"), os.path.join(d, "l.npy")),
             model=source("l.npy"), words=["sourcePath", "l.npy", "outside the model's folder"])
        case("link inside pointing inside", setup=lambda d: os.symlink("input.npy", os.path.join(d, "l.npy")),
             model=source("l.npy"), status=0, left=["output.npy"])
        case("absolute sourcePath inside", setup=lambda d: json.dump(source(os.path.join(d, "input.npy")), open(os.path.join(d, "model.json"), "w")),
             status=0, left=["output.npy"])
        case("folder linked outside", setup=lambda d: os.symlink(outside, os.path.join(d, "ext")), model=source("ext/in.npy"),
             words=["sourcePath", "ext/in.npy", "outside"])

        def nothing_outside(d, r):
            check("nothing written outside", sorted(os.listdir(outside)) == ["in.npy"], str(os.listdir(outside)))
        case("targetPath ../ outside", setup=lambda d: json.dump(target(os.path.relpath(os.path.join(outside, "out.npy"), d)),
                                                                 open(os.path.join(d, "model.json"), "w")),
             words=["commands[1].targetPath", "outside the model's folder"], after=nothing_outside)
        case("absolute targetPath outside", model=target(os.path.join(outside, "out.npy")),
             words=["commands[1].targetPath", "outside"], after=nothing_outside)
        case("targetPath through a linked folder", setup=lambda d: os.symlink(outside, os.path.join(d, "ext")),
             model=target("ext/out.npy"), words=["commands[1].targetPath", "outside"], after=nothing_outside)

        def written_outside(d, r):
            p = os.path.join(outside, "out.npy")
            check("allowed target written", os.path.exists(p))
            if os.path.exists(p):
                os.unlink(p)
        case("targetPath outside, allowed", model=target(os.path.join(outside, "out.npy")),
             args=["run", "--allow-outside-paths", "model.json"], status=0, after=written_outside)
        case("targetPath in a new subfolder", model=target("sub/dir/out.npy"), status=0,
             left=["sub", "sub/dir", "sub/dir/out.npy"])

        def from_elsewhere(d):
            os.mkdir(os.path.join(d, "m"))
            shutil.copy(os.path.join(d, "input.npy"), os.path.join(d, "m", "input.npy"))
            json.dump(conformance_model(), open(os.path.join(d, "m", "model.json"), "w"))
        case("model in a subfolder, run from above", setup=from_elsewhere, args=["run", "m/model.json"], status=0,
             left=["m/output.npy"])
    finally:
        shutil.rmtree(outside)


def usage():
    m = conformance_model()
    for label, value in (("letters", "abc"), ("zero", "0"), ("overflow", "99999999999999999999T"), ("unit", "5X"),
                         ("negative", "-5"), ("empty", "")):
        case("--max-memory " + label, model=m, args=["run", "--max-memory", value, "model.json"], status=2,
             words=["--max-memory"])
    case("--max-memory 512M", model=m, args=["run", "--max-memory", "512M", "model.json"], status=0, left=["output.npy"])
    case("--max-memory 1GiB", model=m, args=["run", "--max-memory", "1GiB", "model.json"], status=0, left=["output.npy"])
    case("--allow-outside-paths on compare", args=["compare", "input.npy", "input.npy", "--allow-outside-paths"], status=2)
    case("run without a model", args=["run"], status=2)
    case("compare shape letters", args=["compare", "input.npy", "input.npy", "--shape", "a,b"], status=2)


def signals():
    """SIGTERM and SIGINT mid-write: the process dies by the signal and leaves no temporary."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        name = "signal %s mid-write" % signal.Signals(sig).name
        if ONLY and ONLY not in name:
            continue
        global cases_run
        cases_run += 1
        done = False
        for attempt in range(4):
            d = tempfile.mkdtemp(prefix="dmlref_hostile_")
            try:
                size = 128 * MIB << attempt
                m = resources_model({"big": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": size, "value": 1}}},
                                    commands=[{"type": "writeFile", "resource": "big", "targetPath": "out.bin"}] * 8)
                json.dump(m, open(os.path.join(d, "model.json"), "w"))
                sent = []

                def on_start(p):
                    deadline = time.monotonic() + 30 * TIME_FACTOR
                    # waitid with WNOWAIT: asks whether it ended without reaping it (wait4 must).
                    while os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None and time.monotonic() < deadline:
                        if any(n.endswith(".dmlref-tmp") for n in os.listdir(d)):
                            time.sleep(0.002)  # let the write run into the file
                            p.send_signal(sig)
                            sent.append(True)
                            return
                        time.sleep(0.0005)
                code, out, err, seconds, peak = measure(["run", "-q", "model.json"], d, timeout=60, on_start=on_start)
                if not sent:
                    continue  # finished before a temporary was seen: try a larger write
                left = [(n, os.path.getsize(os.path.join(d, n))) for n in os.listdir(d) if n.endswith(".dmlref-tmp")]
                check(name + ": no temporary", not left, str(left))
                check(name + ": died by the signal", code == -sig, "exit %d, stderr %r" % (code, err[-300:]))
                check(name + ": memory", peak <= mem_bound(size / MIB * 1.2 + 64), "peak %d KiB" % peak)
                done = True
                break
            finally:
                shutil.rmtree(d, ignore_errors=True)
        check(name + ": caught mid-write", done, "never saw the temporary")


def acceptance():
    """Peak memory of a valid run stays within 1.2x the declared resources plus 64 MiB: a 512 MiB
    input read from .npy, a 512 MiB output, one SLICE1 copy, the output written (256 MiB each
    under ASan, whose allocator and shadow make the figure its own)."""
    rows = 8192 if not ASAN else 4096
    shape = [1, 1, rows, 16384]
    size = rows * 16384 * 4
    model = {"resources": {"input": {"initialValues": {"sourcePath": "big.npy"}},
                           "output": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": rows * 16384, "value": 0}}},
             "dispatchables": {"op": {"type": "DML_OPERATOR_SLICE1", "desc": {
                 "InputTensor": {"DataType": "FLOAT32", "Sizes": shape},
                 "OutputTensor": {"DataType": "FLOAT32", "Sizes": shape},
                 "InputWindowOffsets": [0, 0, 0, 0], "InputWindowSizes": shape, "InputWindowStrides": [1, 1, 1, -1]}}},
             "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": {"InputTensor": "input", "OutputTensor": "output"}},
                          {"type": "writeFile", "resource": "output", "targetPath": "out.npy"}]}
    declared_mib = 2 * size / MIB
    bound = declared_mib * 1.2 + 64

    def report(d, r):
        print("acceptance: declared resources %d MiB, peak %.0f MiB (%.2fx + %.0f MiB), %.2f s" % (
            declared_mib, r[4] / 1024, r[4] / 1024 / declared_mib, r[4] / 1024 - declared_mib, r[3]))
    case("acceptance: 2 x %d MiB" % (size // MIB), model=model,
         setup=lambda d: write_sparse_npy(os.path.join(d, "big.npy"), "<f4", shape, 4),
         status=0, max_s=60, max_mib=bound if not ASAN else declared_mib * 1.25 + 64, left=["out.npy"], after=report)


groups = [memory_safety, nesting, strictness, memory_bombs, files, paths, usage, signals, acceptance]
for g in groups:
    g()
launcher.stdin.close()
launcher.wait()
for f in failures:
    print("FAIL", f)
print("hostile: %d cases, %d failures%s" % (cases_run, len(failures), " (ASan bounds)" if ASAN else ""))
sys.exit(1 if failures or cases_run == 0 else 0)
