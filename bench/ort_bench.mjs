// dmlref against ONNX Runtime's CPU provider, each against memcpy, in one run.
//
//   node bench/ort_bench.mjs --modules NODE_MODULES --time BUILD/bin/dmlref_ort_time
//                            [--repeats 15] [--rounds 3] [--mib 4,64] [--only SUBSTRING] [--work DIR]
//
// Each workload is one ONNX node and the DirectML desc that computes the same output (written
// here side by side, from one set of shapes). Per workload and size, the benchmark draws an
// input, then for each of `rounds` rounds runs, in turn:
//   - ONNX Runtime (onnxruntime-node, CPU provider, one thread, a pre-allocated output), `repeats`
//     runs, each paired with a memcpy of the output's bytes in this process;
//   - dmlref (bench/ort_time.cpp, a process of its own on the same input bytes), `repeats` runs,
//     each paired with a memcpy of the output's bytes in that process.
// Both outputs must be equal bit for bit (else the workload's two halves compute different
// things, and the program exits 1). Reported: each side's speed as a fraction of memcpy's in its
// own process (median over runs of memcpy's time over the side's time in the same pair: 1.00 is
// memcpy's speed), and dmlref's speed over ONNX Runtime's: the median over rounds of ONNX
// Runtime's median time over dmlref's in the same round (the two take turns, so the host's load
// falls on both). The last column, the two processes' memcpy times over each other, shows that
// the yardsticks differ (Node's TypedArray copy of 4 MiB took about twice C's memcpy here), which
// is why the speed ratio compares the operators' times directly. Exit status 1 also when dmlref
// is slower than ONNX Runtime on a workload.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {createRequire} from 'node:module';

function parseArgs(argv) {
  const a = {modules: '', time: '', repeats: 15, rounds: 3, mib: [4, 64], only: '', work: ''};
  for (let i = 0; i < argv.length; ++i) {
    const v = argv[i];
    const next = () => { if (i + 1 >= argv.length) throw new Error(`${v} needs a value`); return argv[++i]; };
    if (v === '--modules') a.modules = next();
    else if (v === '--time') a.time = next();
    else if (v === '--repeats') a.repeats = Number(next());
    else if (v === '--rounds') a.rounds = Number(next());
    else if (v === '--mib') a.mib = next().split(',').map(Number);
    else if (v === '--only') a.only = next();
    else if (v === '--work') a.work = next();
    else throw new Error(`unknown argument ${v}`);
  }
  if (!a.modules || !a.time) throw new Error('--modules and --time are required');
  return a;
}

// ---- A one-node ONNX model, encoded by hand (onnx.proto's field numbers) ----

function varint(value) { // unsigned or two's complement 64-bit
  let v = BigInt.asUintN(64, BigInt(value));
  const bytes = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    bytes.push(b);
  } while (v);
  return Buffer.from(bytes);
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field, content) => {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.concat([].concat(content));
  return Buffer.concat([key(field, 2), varint(body.length), body]);
};
const ONNX_TYPE = {float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, float16: 10, float64: 11,
                   uint32: 12, uint64: 13};

function attribute(name, value) {
  if (typeof value === 'string') return bytes(5, [bytes(1, name), int(20, 3), bytes(4, value)]);
  if (Array.isArray(value)) return bytes(5, [bytes(1, name), int(20, 7), ...value.map(v => int(8, v))]);
  return bytes(5, [bytes(1, name), int(20, 2), int(3, value)]);
}
function valueInfo(field, name, type, dims) {
  const shape = bytes(2, dims.map(d => bytes(1, int(1, d))));
  return bytes(field, [bytes(1, name), bytes(2, bytes(1, [int(1, ONNX_TYPE[type]), shape]))]);
}
function int64Initializer(name, values) {
  const raw = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => raw.writeBigInt64LE(BigInt(v), 8 * i));
  return bytes(5, [int(1, values.length), int(2, ONNX_TYPE.int64), bytes(8, name), bytes(9, raw)]);
}
/// node: {op, attrs, constants: {name: int64 values}}; the data input is "x", the output "y".
function onnxModel(node, type, inDims, outDims, opset = 17) {
  const inputs = ['x', ...Object.keys(node.constants ?? {})];
  const nodeProto = bytes(1, [...inputs.map(n => bytes(1, n)), bytes(2, 'y'), bytes(4, node.op),
                              ...Object.entries(node.attrs ?? {}).map(([k, v]) => attribute(k, v))]);
  const initializers = Object.entries(node.constants ?? {}).map(([k, v]) => int64Initializer(k, v));
  const graph = bytes(7, [nodeProto, bytes(2, 'bench'), ...initializers, valueInfo(11, 'x', type, inDims),
                          valueInfo(12, 'y', type, outDims)]);
  return Buffer.concat([int(1, 8), bytes(2, 'dmlref ort_bench'), graph, bytes(8, [bytes(1, ''), int(2, opset)])]);
}

// ---- The workloads: the ONNX node and the DirectML desc, from the same shapes ----

const tensor = (type, sizes, strides) => ({DataType: type.toUpperCase(), Sizes: sizes, ...(strides ? {Strides: strides} : {})});
const packedStrides = sizes => sizes.map((_, k) => sizes.slice(k + 1).reduce((a, b) => a * b, 1));
/// ONNX's Transpose as DirectML's IDENTITY: the output packed, the input read through its strides permuted.
function transpose(inDims, perm) {
  const strides = packedStrides(inDims), o = perm.map(p => inDims[p]);
  return {i: inDims, o, onnx: {op: 'Transpose', attrs: {perm}},
          dml: {type: 'DML_OPERATOR_ELEMENT_WISE_IDENTITY', desc: {}}, inSizes: o, inStrides: perm.map(p => strides[p])};
}

/// Each entry: name, and make(elements) -> {i: ONNX input dims, o: output dims, onnx: the node,
/// dml: the dispatchable's type and fields beyond its tensors, inSizes/inStrides: DirectML's
/// input tensor where it reads the input through strides (default: i, packed)}, where `elements`
/// is the output's element count the size asks for (the shapes round to it).
const WORKLOADS = [
  {name: 'DepthToSpace DCR B=2', make(n) {
    const hw = Math.round(Math.sqrt(n / 16)); const i = [1, 64, hw / 2, hw / 2], o = [1, 16, hw, hw];
    return {i, o, onnx: {op: 'DepthToSpace', attrs: {blocksize: 2, mode: 'DCR'}},
            dml: {type: 'DML_OPERATOR_DEPTH_TO_SPACE1', desc: {BlockSize: 2, Order: 'DEPTH_COLUMN_ROW'}}};
  }},
  {name: 'DepthToSpace CRD B=2', make(n) {
    const hw = Math.round(Math.sqrt(n / 16)); const i = [1, 64, hw / 2, hw / 2], o = [1, 16, hw, hw];
    return {i, o, onnx: {op: 'DepthToSpace', attrs: {blocksize: 2, mode: 'CRD'}},
            dml: {type: 'DML_OPERATOR_DEPTH_TO_SPACE1', desc: {BlockSize: 2, Order: 'COLUMN_ROW_DEPTH'}}};
  }},
  {name: 'SpaceToDepth B=2', make(n) {
    const hw = Math.round(Math.sqrt(n / 16)); const i = [1, 16, hw, hw], o = [1, 64, hw / 2, hw / 2];
    return {i, o, onnx: {op: 'SpaceToDepth', attrs: {blocksize: 2}},
            dml: {type: 'DML_OPERATOR_SPACE_TO_DEPTH1', desc: {BlockSize: 2, Order: 'DEPTH_COLUMN_ROW'}}};
  }},
  {name: 'Slice reversing W', make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, hw, hw];
    return {i, o: i, onnx: {op: 'Slice', constants: {starts: [-1], ends: [-(2n ** 63n)], axes: [3], steps: [-1]}},
            dml: {type: 'DML_OPERATOR_SLICE1', desc: {InputWindowOffsets: [0, 0, 0, 0], InputWindowSizes: i,
                                                      InputWindowStrides: [1, 1, 1, -1]}}};
  }},
  {name: 'Slice stride 2 on H and W', make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, 2 * hw, 2 * hw], o = [1, 64, hw, hw];
    return {i, o, onnx: {op: 'Slice', constants: {starts: [0, 0], ends: [2 * hw, 2 * hw], axes: [2, 3], steps: [2, 2]}},
            dml: {type: 'DML_OPERATOR_SLICE1', desc: {InputWindowOffsets: [0, 0, 0, 0], InputWindowSizes: i,
                                                      InputWindowStrides: [1, 1, 2, 2]}}};
  }},
  ...['constant', 'edge', 'reflect'].map(mode => ({name: `Pad ${mode} 3 on H and W`, make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, hw - 6, hw - 6], o = [1, 64, hw, hw];
    const dmlMode = {constant: 'CONSTANT', edge: 'EDGE', reflect: 'REFLECTION'}[mode];
    return {i, o, onnx: {op: 'Pad', attrs: {mode}, constants: {pads: [0, 0, 3, 3, 0, 0, 3, 3]}},
            dml: {type: 'DML_OPERATOR_PADDING1', desc: {PaddingMode: dmlMode, PaddingValueDataType: 'FLOAT32',
                                                        PaddingValue: 0, StartPadding: [0, 0, 3, 3],
                                                        EndPadding: [0, 0, 3, 3]}}};
  }})),
  {name: 'Transpose NCHW to NHWC', make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); return transpose([1, 64, hw, hw], [0, 2, 3, 1]);
  }},
  {name: 'Transpose NHWC to NCHW', make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); return transpose([1, hw, hw, 64], [0, 3, 1, 2]);
  }},
  {name: 'Transpose 2-D', make(n) {
    const side = Math.round(Math.sqrt(n)); return transpose([side, side], [1, 0]);
  }},
  {name: 'Expand over H', make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, 1, hw], o = [1, 64, hw, hw];
    return {i, o, onnx: {op: 'Expand', constants: {shape: o}},
            dml: {type: 'DML_OPERATOR_ELEMENT_WISE_IDENTITY', desc: {}}, inSizes: o, inStrides: [64 * hw, hw, 0, 1]};
  }},
];

// ---- Timing ----

const median = values => { const s = [...values].sort((a, b) => a - b); const m = s.length >> 1;
                           return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const seconds = start => Number(process.hrtime.bigint() - start) / 1e9;

function main() {
  const args = parseArgs(process.argv.slice(2));
  const require = createRequire(path.join(path.resolve(args.modules), 'index.js'));
  const ort = require('onnxruntime-node');
  const work = args.work || fs.mkdtempSync(path.join(os.tmpdir(), 'dmlref-ort-bench-'));
  fs.mkdirSync(work, {recursive: true});
  console.log(`# dmlref against ONNX Runtime ${require('onnxruntime-node/package.json').version} (CPU provider, one ` +
              `thread, pre-allocated outputs), each against memcpy in its own process: ${os.cpus().length} x ` +
              `${os.cpus()[0].model}, load average ${os.loadavg()[0].toFixed(2)} at the start, ${new Date().toISOString()}`);
  console.log(`# ${args.rounds} rounds of ${args.repeats} runs a side; fractions of memcpy's speed are medians over runs, ` +
              'dmlref / ONNX Runtime the median of the rounds\' ratios\n');
  console.log('| workload (float32) | output | ONNX Runtime, x memcpy | dmlref, x memcpy | dmlref / ONNX Runtime | ' +
              'memcpy, Node / C++ |');
  console.log('|---|---:|---:|---:|---:|---:|');
  let failed = false;
  return (async () => {
    for (const w of WORKLOADS) {
      if (args.only && !w.name.includes(args.only)) continue;
      for (const mib of args.mib) {
        const c = w.make((mib << 20) / 4);
        const count = c.i.reduce((a, b) => a * b, 1);
        const x = new Float32Array(count);
        for (let k = 0; k < count; ++k) x[k] = (k * 2654435761 % 1000003) / 7; // distinct, exact in float32
        const y = new ort.Tensor('float32', new Float32Array(c.o.reduce((a, b) => a * b, 1)), c.o);
        const session = await ort.InferenceSession.create(onnxModel(c.onnx, 'float32', c.i, c.o), {
          executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
        const feeds = {x: new ort.Tensor('float32', x, c.i)};
        const from = new Uint8Array(y.data.byteLength).fill(1), to = new Uint8Array(y.data.byteLength);
        const stem = path.join(work, w.name.replace(/[^A-Za-z0-9]+/g, '_') + `_${mib}`);
        const dispatchable = {type: c.dml.type, desc: {InputTensor: tensor('float32', c.inSizes ?? c.i, c.inStrides),
                                                       OutputTensor: tensor('float32', c.o), ...c.dml.desc}};
        fs.writeFileSync(`${stem}.json`, JSON.stringify(dispatchable));
        fs.writeFileSync(`${stem}.in`, Buffer.from(x.buffer, x.byteOffset, x.byteLength));
        await session.run(feeds, {y}); // warm
        const ortFractions = [], dmlFractions = [], perRound = [], nodeCopies = [], cppCopies = [];
        for (let round = 0; round < args.rounds; ++round) {
          const ortRound = [], ortTimes = []; // this round's
          for (let r = 0; r < args.repeats; ++r) {
            let start = process.hrtime.bigint();
            await session.run(feeds, {y});
            const t = seconds(start);
            start = process.hrtime.bigint();
            to.set(from);
            const copy = seconds(start);
            nodeCopies.push(copy);
            ortRound.push(copy / t);
            ortTimes.push(t);
          }
          const run = spawnSync(args.time, [`${stem}.json`, `${stem}.in`, `${stem}.out`, String(args.repeats)],
                                {encoding: 'utf8'});
          if (run.status !== 0) throw new Error(`${args.time} failed on ${w.name}: ${run.stderr}`);
          const d = JSON.parse(run.stdout);
          const dmlRound = d.dmlref.map((t, k) => d.memcpy[k] / t);
          ortFractions.push(...ortRound);
          dmlFractions.push(...dmlRound);
          cppCopies.push(...d.memcpy);
          perRound.push(median(ortTimes) / median(d.dmlref));
        }
        const theirs = Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength);
        const ours = fs.readFileSync(`${stem}.out`);
        const same = ours.equals(theirs);
        const speedup = median(perRound);
        if (!same || speedup < 1) failed = true;
        const out = `${(theirs.length / 1048576).toFixed(1)} MiB`;
        console.log(`| ${w.name} {${c.i.join(', ')}} | ${out} | ${median(ortFractions).toFixed(2)} | ` +
                    `${median(dmlFractions).toFixed(2)} | ${speedup.toFixed(2)}` +
                    `${same ? '' : ' (OUTPUTS DIFFER: the two halves compute different things)'}${speedup < 1 ? ' (slower)' : ''} | ` +
                    `${(median(nodeCopies) / median(cppCopies)).toFixed(2)} |`);
        for (const suffix of ['.json', '.in', '.out']) fs.rmSync(`${stem}${suffix}`, {force: true});
      }
    }
    if (!args.work) fs.rmSync(work, {recursive: true, force: true});
    process.exitCode = failed ? 1 : 0;
  })();
}

main().catch(e => { console.error(`ort_bench: ${e.stack ?? e}`); process.exitCode = 1; });
