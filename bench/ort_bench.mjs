// dmlref against ONNX Runtime's CPU provider, each against memcpy, in one run.
//
//   node bench/ort_bench.mjs --modules NODE_MODULES --time BUILD/bin/dmlref_ort_time
//                            [--repeats 15] [--rounds 3] [--mib 4,64] [--only SUBSTRING] [--work DIR]
//
// Each workload is one ONNX node and the DirectML desc that computes the same output (written
// here side by side, from one set of shapes). A node may take several inputs (data, index and
// length tensors) and give several outputs (Split). Per workload and size, the benchmark draws the
// inputs once (every data, index and length tensor a graph input fed from memory the session
// does not copy, as dmlref's half reads each input file once before its timing; attribute-like
// inputs such as Tile's repeats are initializers), then for each of `rounds` rounds runs, in turn:
//   - ONNX Runtime (onnxruntime-node, CPU provider, one thread, pre-allocated outputs), `repeats`
//     runs, each paired with a memcpy of the outputs' bytes (all of them together) in this process;
//   - dmlref (bench/ort_time.cpp, a process of its own on the same input bytes), `repeats` runs,
//     each paired with a memcpy of the outputs' bytes in that process.
// Both sides' outputs must be equal bit for bit (else the workload's two halves compute different
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
function initializer(name, type, values) {
  const size = {int64: 8, float32: 4}[type];
  const raw = Buffer.alloc(size * values.length);
  values.forEach((v, i) => type === 'int64' ? raw.writeBigInt64LE(BigInt(v), size * i) : raw.writeFloatLE(v, size * i));
  return bytes(5, [int(1, values.length), int(2, ONNX_TYPE[type]), bytes(8, name), bytes(9, raw)]);
}
/// One node over graph inputs and outputs: node {op, attrs, inputs (names in the node's order, ''
/// for an absent optional input), constants / floatConstants ({name: values}: int64 / float32
/// initializers, for the small attribute-like inputs)}, inputs and outputs [{name, type, dims}].
/// Data, index and length tensors are graph inputs: were every input of the node an initializer,
/// the optimizer could fold the node into a constant.
function onnxModel(node, inputs, outputs, opset = 17) {
  const nodeProto = bytes(1, [...node.inputs.map(n => bytes(1, n)), ...outputs.map(o => bytes(2, o.name)), bytes(4, node.op),
                              ...Object.entries(node.attrs ?? {}).map(([k, v]) => attribute(k, v))]);
  const initializers = [...Object.entries(node.constants ?? {}).map(([k, v]) => initializer(k, 'int64', v)),
                        ...Object.entries(node.floatConstants ?? {}).map(([k, v]) => initializer(k, 'float32', v))];
  const graph = bytes(7, [nodeProto, bytes(2, 'bench'), ...initializers, ...inputs.map(i => valueInfo(11, i.name, i.type, i.dims)),
                          ...outputs.map(o => valueInfo(12, o.name, o.type, o.dims))]);
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

/// Each entry: name, and make(elements), where `elements` is the output's element count the size
/// asks for (the shapes round to it; several outputs share it). make returns either the
/// one-input, one-output form {i: ONNX input dims, o: output dims, onnx: the node, dml: the
/// dispatchable's type and fields beyond its tensors, inSizes/inStrides: DirectML's input tensor
/// where it reads the input through strides (default: i, packed)}, or the general form (several()):
/// {inputs: [{name, type, dims, fill?}], outputs: [{name, type, dims}], node: {op, attrs, inputs,
/// constants, floatConstants}, dml: {type, desc: every field, tensors included}, dmlInputs,
/// dmlOutputs: the graph's input and output names in DirectML's binding order}. `fill(k)` gives an
/// index or length tensor's k-th value; float32 inputs without it take distinct values.
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

// The general form's pieces. f32/i64: a graph input or output; dmlT: a DirectML tensor desc.
const f32 = (name, dims, fill) => ({name, type: 'float32', dims, ...(fill ? {fill} : {})});
const i64 = (name, dims, fill) => ({name, type: 'int64', dims, fill});
const dmlT = (type, sizes) => tensor(type, sizes);
const count = dims => dims.reduce((a, b) => a * b, 1);
/// A bijection of [0, m) for m a power of two (an odd multiplier): a scrambled order without repeats.
const scramble = (k, m) => (Math.imul(k, 0x9E3779B1) >>> 0) % m;
/// The one-input, one-output form in the general one.
function general(c) {
  if (c.inputs) return c;
  return {inputs: [f32('x', c.i)], outputs: [f32('y', c.o)],
          node: {...c.onnx, inputs: ['x', ...Object.keys(c.onnx.constants ?? {})]},
          dml: {type: c.dml.type, desc: {InputTensor: tensor('float32', c.inSizes ?? c.i, c.inStrides),
                                         OutputTensor: tensor('float32', c.o), ...c.dml.desc}},
          dmlInputs: ['x'], dmlOutputs: ['y']};
}
const parts = name => [0, 1, 2, 3].map(p => `${name}${p}`);
/// Concat of 4 equal parts on `axis` of {1, 64, hw, hw} (1: channels, 3: width), as JOIN.
function concat(n, axis) {
  const hw = Math.round(Math.sqrt(n / 64)); const o = [1, 64, hw, hw], p = o.map((d, k) => k === axis ? d / 4 : d);
  const names = parts('x');
  return {inputs: names.map(x => f32(x, p)), outputs: [f32('y', o)], node: {op: 'Concat', inputs: names, attrs: {axis}},
          dml: {type: 'DML_OPERATOR_JOIN', desc: {InputCount: 4, InputTensors: names.map(() => dmlT('float32', p)),
                                                   OutputTensor: dmlT('float32', o), Axis: axis}},
          dmlInputs: names, dmlOutputs: ['y']};
}
/// Split of {1, 64, hw, hw} into 4 equal parts on `axis`, as SPLIT (ONNX's Split-13 without the
/// `split` input: equal parts, one per output).
function split(n, axis) {
  const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, hw, hw], p = i.map((d, k) => k === axis ? d / 4 : d);
  const names = parts('y');
  return {inputs: [f32('x', i)], outputs: names.map(y => f32(y, p)), node: {op: 'Split', inputs: ['x'], attrs: {axis}},
          dml: {type: 'DML_OPERATOR_SPLIT', desc: {InputTensor: dmlT('float32', i), OutputCount: 4,
                                                    OutputTensors: names.map(() => dmlT('float32', p)), Axis: axis}},
          dmlInputs: ['x'], dmlOutputs: names};
}

/// The newer operators: several inputs (data, index and length tensors) or several outputs.
WORKLOADS.push(
  {name: 'Tile repeats {1, 1, 2, 2}', make(n) {
    const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, hw / 2, hw / 2], o = [1, 64, hw, hw];
    return {i, o, onnx: {op: 'Tile', constants: {repeats: [1, 1, 2, 2]}},
            dml: {type: 'DML_OPERATOR_TILE', desc: {RepeatsCount: 4, Repeats: [1, 1, 2, 2]}}};
  }},
  {name: 'Resize nearest x2 on H and W', make(n) { // asymmetric + floor: UPSAMPLE_2D's NEAREST_NEIGHBOR
    const hw = Math.round(Math.sqrt(n / 64)); const i = [1, 64, hw / 2, hw / 2], o = [1, 64, hw, hw];
    return {inputs: [f32('x', i)], outputs: [f32('y', o)],
            node: {op: 'Resize', inputs: ['x', '', 'scales'], floatConstants: {scales: [1, 1, 2, 2]},
                   attrs: {mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor'}},
            dml: {type: 'DML_OPERATOR_UPSAMPLE_2D', desc: {InputTensor: dmlT('float32', i), OutputTensor: dmlT('float32', o),
                                                            ScaleSize: {Width: 2, Height: 2}, InterpolationMode: 'NEAREST_NEIGHBOR'}},
            dmlInputs: ['x'], dmlOutputs: ['y']};
  }},
  {name: 'Concat 4 on channels', make: n => concat(n, 1)},
  {name: 'Concat 4 on width', make: n => concat(n, 3)},
  {name: 'Split 4 on channels', make: n => split(n, 1)},
  {name: 'Split 4 on width', make: n => split(n, 3)},
  {name: 'ReverseSequence time 0 batch 1, lengths varying', make(n) {
    const side = Math.round(Math.sqrt(n)); const x = [side, side]; // {T, N}
    return {inputs: [f32('x', x), i64('lens', [side], k => 1 + (k * 7919) % side)], outputs: [f32('y', x)],
            node: {op: 'ReverseSequence', inputs: ['x', 'lens'], attrs: {time_axis: 0, batch_axis: 1}},
            dml: {type: 'DML_OPERATOR_REVERSE_SUBSEQUENCES', desc: {InputTensor: dmlT('float32', x),
                  SequenceLengthsTensor: dmlT('uint64', [1, side]), OutputTensor: dmlT('float32', x), Axis: 0}},
            dmlInputs: ['x', 'lens'], dmlOutputs: ['y']};
  }},
  {name: 'Gather axis 0, whole rows of 256', make(n) { // {rows, 256}: every row once, scrambled
    const rows = n / 256; const x = [rows, 256];
    return {inputs: [f32('x', x), i64('idx', [rows], k => scramble(k, rows))], outputs: [f32('y', x)],
            node: {op: 'Gather', inputs: ['x', 'idx'], attrs: {axis: 0}},
            dml: {type: 'DML_OPERATOR_GATHER', desc: {InputTensor: dmlT('float32', x), IndicesTensor: dmlT('int64', [1, rows]),
                                                       OutputTensor: dmlT('float32', x), Axis: 0, IndexDimensions: 1}},
            dmlInputs: ['x', 'idx'], dmlOutputs: ['y']};
  }},
  {name: 'Gather axis 1 of rows of 1024', make(n) { // every column once per row, scrambled
    const rows = n / 1024; const x = [rows, 1024];
    return {inputs: [f32('x', x), i64('idx', [1024], k => scramble(k, 1024))], outputs: [f32('y', x)],
            node: {op: 'Gather', inputs: ['x', 'idx'], attrs: {axis: 1}},
            dml: {type: 'DML_OPERATOR_GATHER', desc: {InputTensor: dmlT('float32', x), IndicesTensor: dmlT('int64', [1, 1024]),
                                                       OutputTensor: dmlT('float32', x), Axis: 1, IndexDimensions: 1}},
            dmlInputs: ['x', 'idx'], dmlOutputs: ['y']};
  }},
  {name: 'GatherElements axis 1 of rows of 1024', make(n) { // an index of its own per element
    const rows = n / 1024; const x = [rows, 1024];
    return {inputs: [f32('x', x), i64('idx', x, k => (Math.imul(k, 0x9E3779B1) >>> 0) >>> 22)], outputs: [f32('y', x)],
            node: {op: 'GatherElements', inputs: ['x', 'idx'], attrs: {axis: 1}},
            dml: {type: 'DML_OPERATOR_GATHER_ELEMENTS', desc: {InputTensor: dmlT('float32', x), IndicesTensor: dmlT('int64', x),
                                                                OutputTensor: dmlT('float32', x), Axis: 1}},
            dmlInputs: ['x', 'idx'], dmlOutputs: ['y']};
  }},
  {name: 'GatherND whole rows of 256', make(n) { // indices {rows, 1}: one row per tuple
    const rows = n / 256; const x = [rows, 256];
    return {inputs: [f32('x', x), i64('idx', [rows, 1], k => scramble(k, rows))], outputs: [f32('y', x)],
            node: {op: 'GatherND', inputs: ['x', 'idx']},
            dml: {type: 'DML_OPERATOR_GATHER_ND', desc: {InputTensor: dmlT('float32', x), IndicesTensor: dmlT('int64', [rows, 1]),
                                                          OutputTensor: dmlT('float32', x), InputDimensionCount: 2,
                                                          IndicesDimensionCount: 2}},
            dmlInputs: ['x', 'idx'], dmlOutputs: ['y']};
  }},
  {name: 'ScatterElements axis 1, half of each row of 1024', make(n) { // distinct targets in each row
    const rows = n / 1024; const x = [rows, 1024], u = [rows, 512];
    const fill = k => ((Math.imul(k % 512, 0x9E3779B1) + Math.imul(Math.floor(k / 512), 40503)) >>> 0) % 1024;
    return {inputs: [f32('x', x), i64('idx', u, fill), f32('upd', u)], outputs: [f32('y', x)],
            node: {op: 'ScatterElements', inputs: ['x', 'idx', 'upd'], attrs: {axis: 1}},
            dml: {type: 'DML_OPERATOR_SCATTER_ELEMENTS', desc: {InputTensor: dmlT('float32', x), IndicesTensor: dmlT('int64', u),
                                                                 UpdatesTensor: dmlT('float32', u), OutputTensor: dmlT('float32', x),
                                                                 Axis: 1}},
            dmlInputs: ['x', 'idx', 'upd'], dmlOutputs: ['y']};
  }},
  {name: 'ScatterND half of the rows of 256', make(n) { // distinct rows
    const rows = n / 256; const x = [rows, 256], u = [rows / 2, 256];
    return {inputs: [f32('x', x), i64('idx', [rows / 2, 1], k => scramble(k, rows)), f32('upd', u)], outputs: [f32('y', x)],
            node: {op: 'ScatterND', inputs: ['x', 'idx', 'upd']},
            dml: {type: 'DML_OPERATOR_SCATTER_ND', desc: {InputTensor: dmlT('float32', x), IndicesTensor: dmlT('int64', [rows / 2, 1]),
                                                           UpdatesTensor: dmlT('float32', u), OutputTensor: dmlT('float32', x),
                                                           InputDimensionCount: 2, IndicesDimensionCount: 2}},
            dmlInputs: ['x', 'idx', 'upd'], dmlOutputs: ['y']};
  }},
  {name: 'OneHot depth 1024', make(n) {
    const m = n / 1024; const o = [m, 1024];
    return {inputs: [i64('idx', [m], k => scramble(k, 1024)), f32('values', [2], k => [0.25, 7.5][k])], outputs: [f32('y', o)],
            node: {op: 'OneHot', inputs: ['idx', 'depth', 'values'], constants: {depth: [1024]}, attrs: {axis: -1}},
            dml: {type: 'DML_OPERATOR_ONE_HOT', desc: {IndicesTensor: dmlT('int64', [m, 1]), ValuesTensor: dmlT('float32', [1, 2]),
                                                        OutputTensor: dmlT('float32', o), Axis: 1}},
            dmlInputs: ['idx', 'values'], dmlOutputs: ['y']};
  }},
);

/// An input's values, drawn once: float32 distinct and exact (offset per input, so that the parts
/// of a Concat differ), or `fill`'s.
function draw(input, offset) {
  const n = count(input.dims);
  if (input.type === 'int64') { // as two 32-bit halves: far quicker than BigInt per element
    const words = new Int32Array(2 * n);
    for (let k = 0; k < n; ++k) { const v = input.fill(k); words[2 * k] = v; words[2 * k + 1] = v < 0 ? -1 : 0; }
    return new BigInt64Array(words.buffer);
  }
  const x = new Float32Array(n);
  if (input.fill) for (let k = 0; k < n; ++k) x[k] = input.fill(k);
  else for (let k = 0; k < n; ++k) x[k] = ((k + offset) * 2654435761 % 1000003) / 7;
  return x;
}

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
        const c = general(w.make((mib << 20) / 4));
        const values = Object.fromEntries(c.inputs.map((input, k) => [input.name, draw(input, 7919 * k)]));
        const ys = c.outputs.map(o => new ort.Tensor(o.type, new Float32Array(count(o.dims)), o.dims));
        const fetches = Object.fromEntries(c.outputs.map((o, k) => [o.name, ys[k]]));
        const outBytes = ys.reduce((a, y) => a + y.data.byteLength, 0);
        const session = await ort.InferenceSession.create(onnxModel(c.node, c.inputs, c.outputs), {
          executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
        const feeds = Object.fromEntries(c.inputs.map(i => [i.name, new ort.Tensor(i.type, values[i.name], i.dims)]));
        const from = new Uint8Array(outBytes).fill(1), to = new Uint8Array(outBytes);
        const stem = path.join(work, w.name.replace(/[^A-Za-z0-9]+/g, '_') + `_${mib}`);
        fs.writeFileSync(`${stem}.json`, JSON.stringify(c.dml));
        const inFiles = c.dmlInputs.map(name => {
          const v = values[name], file = `${stem}.${name}.in`;
          fs.writeFileSync(file, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
          return file;
        });
        await session.run(feeds, fetches); // warm
        const ortFractions = [], dmlFractions = [], perRound = [], nodeCopies = [], cppCopies = [];
        for (let round = 0; round < args.rounds; ++round) {
          const ortRound = [], ortTimes = []; // this round's
          for (let r = 0; r < args.repeats; ++r) {
            let start = process.hrtime.bigint();
            await session.run(feeds, fetches);
            const t = seconds(start);
            start = process.hrtime.bigint();
            to.set(from);
            const copy = seconds(start);
            nodeCopies.push(copy);
            ortRound.push(copy / t);
            ortTimes.push(t);
          }
          const run = spawnSync(args.time, [`${stem}.json`, String(args.repeats), `${stem}.out`, ...inFiles],
                                {encoding: 'utf8'});
          if (run.status !== 0) throw new Error(`${args.time} failed on ${w.name}: ${run.stderr}`);
          const d = JSON.parse(run.stdout);
          const dmlRound = d.dmlref.map((t, k) => d.memcpy[k] / t);
          ortFractions.push(...ortRound);
          dmlFractions.push(...dmlRound);
          cppCopies.push(...d.memcpy);
          perRound.push(median(ortTimes) / median(d.dmlref));
        }
        const outFiles = c.dmlOutputs.map((_, k) => `${stem}.out.${k}`);
        const theirs = Buffer.concat(c.dmlOutputs.map(name => {
          const y = fetches[name]; return Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength);
        }));
        const ours = Buffer.concat(outFiles.map(f => fs.readFileSync(f)));
        const same = ours.equals(theirs);
        const speedup = median(perRound);
        if (!same || speedup < 1) failed = true;
        const out = `${(theirs.length / 1048576).toFixed(1)} MiB`;
        console.log(`| ${w.name} {${c.inputs[0].dims.join(', ')}} | ${out} | ${median(ortFractions).toFixed(2)} | ` +
                    `${median(dmlFractions).toFixed(2)} | ${speedup.toFixed(2)}` +
                    `${same ? '' : ' (OUTPUTS DIFFER: the two halves compute different things)'}${speedup < 1 ? ' (slower)' : ''} | ` +
                    `${(median(nodeCopies) / median(cppCopies)).toFixed(2)} |`);
        for (const file of [`${stem}.json`, ...inFiles, ...outFiles]) fs.rmSync(file, {force: true});
      }
    }
    if (!args.work) fs.rmSync(work, {recursive: true, force: true});
    process.exitCode = failed ? 1 : 0;
  })();
}

main().catch(e => { console.error(`ort_bench: ${e.stack ?? e}`); process.exitCode = 1; });
