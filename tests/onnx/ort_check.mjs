// Runs dmlref's ONNX node tests through ONNX Runtime's CPU execution provider and compares every
// output bit for bit with the reference's output_K.pb (one per graph output: Split has several).
//
//   node ort_check.mjs --dmlref BIN --out DIR [--known FILE] [--coverage] [--quiet]
//                      [--modules NODE_MODULES] [--reproducers DIR] CASES...
//
// CASES: case folders (holding model.onnx) or folders of them; --reproducers DIR adds the
// committed reproducers, which the coverage table leaves out. --modules names the folder
// onnxruntime-node was installed in. Each difference, refused model or failed run is matched
// against the classes of the known-divergences file (default: ort-known-divergences.json beside
// this script; 'none' for no classes); one that no class explains is a failure, and gets a
// reproducer under --out: the case folder, ONNX Runtime's output as ort_output_0.npy, and
// dmlref's compare report (compare.txt, also printed). Every class must also still occur on its
// committed reproducer (each class names one; pass their folder with --reproducers), so the
// file stays true when ONNX Runtime changes. --coverage prints the op x type table of the cases
// and fails when it is below the file's "coverage" section.
//
// Sessions: the CPU provider alone, one thread (intraOpNumThreads 1, interOpNumThreads 1), the
// default graph optimization level ('all'; --optimization changes it). Every input is a graph
// input, so no constant folding or fusion applies to a one-node graph; what ONNX Runtime still
// rewrites (a float16 node without a float16 kernel runs between Casts to float32) is what
// users of the default level get, and is reported as such.
//
// Exit status: 0 when every case agrees or is explained and every class occurs, 1 otherwise.
import fs from 'node:fs';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {createRequire} from 'node:module';
import {readTensor, typedArray, bytesOf, writeNpy, TYPES} from './tensorproto.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const a = {dmlref: '', out: '', known: path.join(here, 'ort-known-divergences.json'), coverage: false,
             quiet: false, optimization: 'all', modules: '', cases: [], reproducers: []};
  for (let i = 0; i < argv.length; ++i) {
    const v = argv[i];
    const next = () => { if (i + 1 >= argv.length) throw new Error(`${v} needs a value`); return argv[++i]; };
    if (v === '--dmlref') a.dmlref = next();
    else if (v === '--out') a.out = next();
    else if (v === '--known') a.known = next();
    else if (v === '--optimization') a.optimization = next();
    else if (v === '--modules') a.modules = next();
    else if (v === '--reproducers') a.reproducers.push(next());
    else if (v === '--coverage') a.coverage = true;
    else if (v === '--quiet') a.quiet = true;
    else if (v.startsWith('--')) throw new Error(`unknown option ${v}`);
    else a.cases.push(v);
  }
  if (!a.dmlref || !a.out || a.cases.length + a.reproducers.length === 0)
    throw new Error('usage: node ort_check.mjs --dmlref BIN --out DIR [--known FILE] [--coverage] [--modules DIR] [--reproducers DIR] CASES...');
  return a;
}

function caseFolders(roots) {
  const found = [];
  for (const root of roots) {
    if (fs.existsSync(path.join(root, 'model.onnx'))) { found.push(root); continue; }
    const names = fs.readdirSync(root, {withFileTypes: true}).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    for (const n of names) if (fs.existsSync(path.join(root, n, 'model.onnx'))) found.push(path.join(root, n));
  }
  return found;
}

function readCase(dir) {
  const data = path.join(dir, 'test_data_set_0');
  const inputs = fs.readdirSync(data).filter((f) => /^input_\d+\.pb$/.test(f))
    .sort((x, y) => Number(x.match(/\d+/)[0]) - Number(y.match(/\d+/)[0])).map((f) => readTensor(path.join(data, f)));
  // output_0.pb ... output_{N-1}.pb: Split's N outputs, in the graph's order.
  const outputs = fs.readdirSync(data).filter((f) => /^output_\d+\.pb$/.test(f))
    .sort((x, y) => Number(x.match(/\d+/)[0]) - Number(y.match(/\d+/)[0])).map((f) => readTensor(path.join(data, f)));
  const info = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
  return {dir, name: path.basename(dir), info, inputs, outputs, expected: joined(outputs)};
}

// The outputs as one tensor for the comparison and the classes' element tests: the one output as
// it is, or several laid end to end as a flat tensor (element i of the whole is element i minus
// the earlier outputs' counts of the output it falls in).
function joined(outputs) {
  if (outputs.length === 1) return outputs[0];
  const type = TYPES[outputs[0].dataType];
  const raw = Buffer.concat(outputs.map((t) => t.raw));
  return {name: '', dataType: outputs[0].dataType, dims: [raw.length / type.size], raw, parts: outputs};
}

// --- what a case does in ONNX Runtime ------------------------------------------------------------

async function runCase(ort, c, options) {
  let session;
  try {
    session = await ort.InferenceSession.create(path.join(c.dir, 'model.onnx'), options);
  } catch (e) {
    return {outcome: 'load_error', message: String(e.message || e)};
  }
  try {
    const feeds = {};
    for (const t of c.inputs) feeds[t.name] = new ort.Tensor(TYPES[t.dataType].name, typedArray(t), t.dims);
    const names = session.inputNames.join(',');
    if (names !== c.inputs.map((t) => t.name).join(','))
      return {outcome: 'run_error', message: `graph inputs [${names}] are not the .pb files' names in order`};
    const result = await session.run(feeds);
    if (session.outputNames.length !== c.outputs.length)
      return {outcome: 'run_error', message: `${session.outputNames.length} graph outputs, ${c.outputs.length} output_K.pb files`};
    const parts = session.outputNames.map((name) => {
      const y = result[name];
      return {dims: y.dims.map(Number), type: y.type, bytes: Buffer.from(bytesOf(y.data))};
    });
    if (parts.length === 1) return compareOutput(c.expected, parts[0]);
    // Several outputs: each must have its file's type and shape; then their elements are compared
    // laid end to end (joined), and the parts are kept for the reproducer.
    for (let k = 0; k < parts.length; ++k) {
      const e = c.outputs[k], type = TYPES[e.dataType];
      if (parts[k].type !== type.name || parts[k].dims.join(',') !== e.dims.join(','))
        return {outcome: 'difference', actual: {...parts[k], parts}, differing: [],
                message: `output ${k}: ONNX Runtime gave ${parts[k].type} [${parts[k].dims}], expected ${type.name} [${e.dims}]`};
    }
    const all = {dims: c.expected.dims, type: parts[0].type, bytes: Buffer.concat(parts.map((p) => p.bytes)), parts};
    return compareOutput(c.expected, all);
  } catch (e) {
    return {outcome: 'run_error', message: String(e.message || e)};
  } finally {
    await session.release();
  }
}

function compareOutput(expected, actual) {
  const type = TYPES[expected.dataType];
  if (actual.type !== type.name || actual.dims.join(',') !== expected.dims.join(','))
    return {outcome: 'difference', actual, message: `ONNX Runtime gave ${actual.type} [${actual.dims}], expected ${type.name} [${expected.dims}]`, differing: []};
  const differing = [];
  for (let i = 0, n = expected.raw.length / type.size; i < n; ++i)
    if (Buffer.compare(expected.raw.subarray(i * type.size, (i + 1) * type.size), actual.bytes.subarray(i * type.size, (i + 1) * type.size)) !== 0)
      differing.push(i);
  if (differing.length === 0) return {outcome: 'pass'};
  return {outcome: 'difference', actual, differing, message: `${differing.length} of ${expected.raw.length / type.size} elements differ`};
}

// --- the known divergences -----------------------------------------------------------------------

const padsOf = (info) => info.inputs && info.inputs.pads;

// Conditions a class's rule may name. Each gets the case and what ONNX Runtime did, and returns
// null where it cannot apply, or a test of one differing element (its flat index): whether the
// class explains that element. A case is explained when each of its differing elements is
// explained by some class that matches the case, so a case that meets two divergences at once
// (a float16 wrap pad beyond its axis over NaNs) is explained by both.
const CONDITIONS = {
  // An element that lies in the first (pad - axis size) outputs along an axis whose begin pad is
  // larger than the axis: the outputs ONNX Runtime leaves unwritten.
  wrap_begin_pad_beyond_axis(c, r) {
    const pads = padsOf(c.info), shape = c.info.input_shape, rank = shape.length;
    const axes = shape.map((s, k) => k).filter((k) => pads[k] > shape[k]);
    if (axes.length === 0 || r.outcome !== 'difference') return null;
    const out = c.expected.dims;
    return (i) => {
      const coord = [];
      for (let k = rank - 1, rest = i; k >= 0; --k) { coord[k] = rest % out[k]; rest = Math.floor(rest / out[k]); }
      return axes.some((k) => coord[k] < pads[k] - shape[k]);
    };
  },
  // A float16 NaN that came back as a quiet NaN of the same sign: either with its payload kept
  // and the quiet bit (0x0200) set, or as the default NaN (sign | 0x7e00). The value went through
  // float32 and back; which of the two an element gets depends on where it lies in the buffer (the
  // conversion's vector body keeps payloads, its remainder does not), so quiet NaNs with a payload
  // change too.
  float16_nan_through_float32(c, r) {
    if (r.outcome !== 'difference' || c.expected.dataType !== 10) return null;
    return (i) => {
      const e = c.expected.raw.readUInt16LE(2 * i), a = r.actual.bytes.readUInt16LE(2 * i);
      const nan = (e & 0x7c00) === 0x7c00 && (e & 0x03ff) !== 0;
      return nan && (a === (e | 0x0200) || a === ((e & 0x8000) | 0x7e00));
    };
  },
};

// The part of a class's rule that judges the whole case; null when the rule does not match it,
// else the class's test of one differing element (everything, for a rule without a condition).
function ruleMatches(rule, c, r) {
  const info = c.info;
  if (rule.outcome !== r.outcome) return null;
  if (rule.onnx_op && !rule.onnx_op.includes(info.onnx_op)) return null;
  if (rule.onnx_type && !rule.onnx_type.includes(info.onnx_type)) return null;
  if (rule.mode && !rule.mode.includes((info.attributes && info.attributes.mode) || 'default')) return null;
  if (rule.opset_min !== undefined && info.opset < rule.opset_min) return null;
  if (rule.opset_max !== undefined && info.opset > rule.opset_max) return null;
  if (rule.error && !new RegExp(rule.error).test(r.message || '')) return null;
  if (!rule.condition) return () => true;
  const f = CONDITIONS[rule.condition];
  if (!f) throw new Error(`known divergences: unknown condition '${rule.condition}'`);
  return f(c, r);
}

// The classes that explain a case, or [] when some differing element (or the refusal) has none.
function explainingClasses(classes, c, r) {
  const matching = classes.map((k) => [k, ruleMatches(k.rule, c, r)]).filter(([, test]) => test);
  if (r.outcome !== 'difference') return matching.slice(0, 1).map(([k]) => k);
  if (r.differing.length === 0) return []; // another type or shape: no class explains that
  const used = new Set();
  for (const i of r.differing) {
    const by = matching.find(([, test]) => test(i));
    if (!by) return [];
    used.add(by[0]);
  }
  return [...used];
}

// --- reports -------------------------------------------------------------------------------------

function dmlrefReport(dmlref, dir, c) {
  // The ONNX form first; then the .pb's values as .npy with the DxDispatch model beside it
  // (--format both) or with no desc, for a dmlref that reads neither .pb nor model.onnx.
  const expectedNpy = path.join(dir, 'expected_0.npy');
  writeNpy(expectedNpy, c.expected.dataType, c.expected.dims, c.expected.raw);
  const tries = [[path.join(dir, 'test_data_set_0', 'output_0.pb'), '--op-desc', path.join(dir, 'model.onnx')]];
  if (fs.existsSync(path.join(dir, 'model.json'))) tries.push([expectedNpy, '--op-desc', path.join(dir, 'model.json')]);
  tries.push([expectedNpy]);
  let last = '';
  for (const [expected, ...desc] of tries) {
    const args = ['compare', expected, path.join(dir, 'ort_output_0.npy'), ...desc];
    const p = spawnSync(dmlref, args, {encoding: 'utf8'});
    const text = `$ dmlref ${args.join(' ')}\n${p.stdout}${p.stderr}(exit ${p.status})\n`;
    // Exit 1 is a difference's report, unless dmlref could not read the files (an error line).
    if (p.status === 1 && !/dmlref: error/.test(p.stdout + p.stderr)) return text;
    last += text;
  }
  return last;
}

function copyDir(from, to) {
  fs.rmSync(to, {recursive: true, force: true});
  fs.cpSync(from, to, {recursive: true});
}

// Several outputs (Split): each ONNX Runtime output as ort_output_K.npy, and dmlref's report on
// each output_K.pb that differs.
function partsReport(dmlref, dir, c, r) {
  let text = '';
  r.actual.parts.forEach((p, k) => {
    const e = c.outputs[k];
    writeNpy(path.join(dir, `ort_output_${k}.npy`), e.dataType, p.dims, p.bytes);
    if (p.dims.join(',') === e.dims.join(',') && Buffer.compare(p.bytes, e.raw) === 0) return;
    const args = ['compare', path.join(dir, 'test_data_set_0', `output_${k}.pb`), path.join(dir, `ort_output_${k}.npy`)];
    const run = spawnSync(dmlref, args, {encoding: 'utf8'});
    text += `$ dmlref ${args.join(' ')}\n${run.stdout}${run.stderr}(exit ${run.status})\n`;
  });
  return text;
}

function writeReproducer(args, c, r, to) {
  copyDir(c.dir, to);
  let report = `case ${c.name}: ${r.outcome}: ${r.message}\n`;
  if (r.outcome === 'difference' && r.actual.parts) {
    report += partsReport(args.dmlref, to, c, r);
  } else if (r.outcome === 'difference') {
    writeNpy(path.join(to, 'ort_output_0.npy'), c.expected.dataType, r.actual.dims, r.actual.bytes);
    report += dmlrefReport(args.dmlref, to, c);
  }
  fs.writeFileSync(path.join(to, 'compare.txt'), report);
  return report;
}

function coverageTable(cases, results, spec) {
  // The first eight operators' ONNX ops in their usual order, then every other op the cases hold.
  const ops = [...new Set(['Pad', 'Slice', 'DepthToSpace', 'SpaceToDepth', ...cases.map((c) => c.info.onnx_op)])];
  const types = ['float', 'float16', 'double', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
  const count = {}, ran = {}, features = {};
  const bump = (m, k) => { m[k] = (m[k] || 0) + 1; };
  cases.forEach((c, i) => {
    const op = c.info.onnx_op, key = `${op}/${c.info.onnx_type}`;
    bump(count, key);
    if (results[i].outcome === 'pass' || results[i].outcome === 'difference') bump(ran, key);
    const mode = c.info.attributes && c.info.attributes.mode;
    if (op === 'Pad') bump(features, `Pad mode ${mode || 'constant'}`);
    if (op === 'DepthToSpace') bump(features, `DepthToSpace mode ${mode || 'DCR'}`);
    if (op === 'SpaceToDepth') bump(features, `SpaceToDepth mode ${mode || 'DCR'}`);
    if (op === 'Concat' || op === 'Split') {
      const parts = op === 'Concat' ? c.info.input_names.length : c.info.output_names.length;
      bump(features, `${op} ${parts === 1 ? 'one part' : 'several parts'}`);
      const strides = op === 'Concat' ? c.info.input_strides : c.info.output_strides;
      if ((strides || []).some((s) => s !== null)) bump(features, `${op} strided or broadcast parts`);
    }
    if (op === 'ReverseSequence') {
      bump(features, `ReverseSequence time_axis ${c.info.attributes.time_axis}`);
      if (c.info.inputs.sequence_lens.includes(0)) bump(features, 'ReverseSequence a length 0');
    }
    if (op === 'GatherElements') {
      bump(features, `GatherElements ${c.info.index_type === 'INT32' ? 'int32' : 'int64'} indices`);
      if (c.info.inputs.indices.some((i) => i < 0)) bump(features, 'GatherElements negative indices');
    }
    if (['Gather', 'GatherND', 'ScatterElements', 'ScatterND'].includes(op)) {
      if (op === 'Gather' || op === 'ScatterElements')
        bump(features, `${op} ${c.info.index_type === 'INT32' ? 'int32' : 'int64'} indices`);
      if (c.info.inputs.indices.some((i) => i < 0)) bump(features, `${op} negative indices`);
    }
    if (op === 'GatherND') bump(features, `GatherND batch_dims ${(c.info.attributes.batch_dims || 0) > 0 ? '> 0' : '0'}`);
    if (op === 'OneHot') {
      const depth = c.info.inputs.depth[0];
      if (c.info.inputs.indices.some((i) => i < 0 && i >= -depth)) bump(features, 'OneHot negative indices');
      if (c.info.inputs.indices.some((i) => i >= depth)) bump(features, 'OneHot an index past depth');
    }
    if (['ReverseSequence', 'GatherElements', 'Gather', 'GatherND', 'ScatterElements', 'ScatterND', 'OneHot'].includes(op) &&
        (c.info.input_strides || []).some((s) => s !== null))
      bump(features, `${op} strided or broadcast tensors`);
    if (op === 'Slice') {
      const steps = (c.info.inputs && c.info.inputs.steps) || [];
      bump(features, steps.some((s) => s < 0) ? 'Slice negative step' : 'Slice positive steps only');
    }
    bump(features, `opset ${c.info.opset}`);
  });
  const lines = ['exported cases (run by ONNX Runtime where it loads them), op x type:',
                 ['op'.padEnd(16), ...types.map((t) => t.padStart(9))].join('')];
  for (const op of ops)
    lines.push([op.padEnd(16), ...types.map((t) => {
      const k = `${op}/${t}`;
      return (count[k] ? `${count[k]}(${ran[k] || 0})` : '-').padStart(9);
    })].join(''));
  lines.push('features: ' + Object.keys(features).sort().map((k) => `${k}: ${features[k]}`).join(', '));
  lines.push(`ONNX Runtime ran ${Object.values(ran).reduce((s, n) => s + n, 0)} of the ${cases.length} (the rest it refused at load)`);
  const short = [];
  if (spec) {
    const min = spec.min_per_cell || 1;
    if (cases.length < (spec.min_cases || 0)) short.push(`${cases.length} cases in all, need ${spec.min_cases}`);
    const ranAll = Object.values(ran).reduce((s, n) => s + n, 0);
    if (ranAll < (spec.min_run || 0)) short.push(`ONNX Runtime ran ${ranAll} cases, need ${spec.min_run}`);
    for (const [op, need] of Object.entries(spec.ops)) {
      for (const t of need.types) if ((count[`${op}/${t}`] || 0) < min) short.push(`${op} ${t}: ${count[`${op}/${t}`] || 0} cases, need ${min}`);
      for (const f of need.features || []) if ((features[f] || 0) < min) short.push(`${f}: ${features[f] || 0} cases, need ${min}`);
    }
  }
  return {text: lines.join('\n'), short};
}

// --- main ----------------------------------------------------------------------------------------

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const require = createRequire(args.modules ? path.join(path.resolve(args.modules), 'x.js') : import.meta.url);
  const ort = require('onnxruntime-node');
  // --known none: no class explains anything (every difference is shown as unexplained).
  const known = args.known === 'none' ? {onnxruntime: 'none', classes: []} : JSON.parse(fs.readFileSync(args.known, 'utf8'));
  const options = {executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
                   graphOptimizationLevel: args.optimization, logSeverityLevel: 3};
  console.log(`ONNX Runtime ${ort.env.versions.node} (CPU provider, 1 thread, graph optimization '${args.optimization}'); ` +
              `known divergences for ${known.onnxruntime}`);
  if (args.known !== 'none' && known.onnxruntime !== ort.env.versions.node)
    console.log(`note: ${args.known} was written for ONNX Runtime ${known.onnxruntime}`);

  const suite = caseFolders(args.cases).map(readCase);
  const cases = suite.concat(caseFolders(args.reproducers).map(readCase));
  const results = [];
  for (const c of cases) results.push(await runCase(ort, c, options));

  fs.mkdirSync(args.out, {recursive: true});
  const perClass = Object.fromEntries(known.classes.map((k) => [k.id, []]));
  const unexplained = [];
  const counts = {pass: 0, difference: 0, load_error: 0, run_error: 0};
  cases.forEach((c, i) => {
    const r = results[i];
    counts[r.outcome] += 1;
    if (r.outcome === 'pass') return;
    const classes = explainingClasses(known.classes, c, r);
    for (const k of classes) perClass[k.id].push(i);
    if (classes.length === 0) unexplained.push(i);
  });

  console.log(`${cases.length} cases: ${counts.pass} agree bit for bit, ${counts.difference} differ, ` +
              `${counts.load_error} refused at load, ${counts.run_error} failed to run`);
  let failed = false;
  for (const k of known.classes) {
    const hits = perClass[k.id];
    const onReproducer = hits.some((i) => path.resolve(cases[i].dir) === path.resolve(path.dirname(args.known), k.reproducer));
    let line = `known ${k.id}: ${hits.length} case(s)`;
    if (hits.length > 0) {
      const first = cases[hits[0]];
      line += `, e.g. ${first.name}; evidence in ${writeReproducer(args, first, results[hits[0]], path.join(args.out, 'known', k.id)) && path.join(args.out, 'known', k.id)}`;
    }
    if (args.reproducers.length && !onReproducer) {
      line += ` -- FAILED: its reproducer ${k.reproducer} no longer shows it (was it fixed in ONNX Runtime? then remove the class)`;
      failed = true;
    }
    if (!args.quiet || (args.reproducers.length && !onReproducer)) console.log(line);
  }
  for (const i of unexplained) {
    const c = cases[i], r = results[i];
    const to = path.join(args.out, 'unexplained', c.name);
    const report = writeReproducer(args, c, r, to);
    console.log(`\nUNEXPLAINED ${c.name} (${c.info.onnx_op} ${c.info.onnx_type} opset ${c.info.opset}): ${r.outcome}: ${r.message}`);
    console.log(`reproducer: ${to}`);
    console.log(report.split('\n').slice(1).join('\n'));
    failed = true;
  }
  if (unexplained.length) console.log(`${unexplained.length} case(s) differ from dmlref in ways no known divergence explains`);

  if (args.coverage) {
    const cov = coverageTable(suite, results.slice(0, suite.length), known.coverage);
    console.log(cov.text);
    if (cov.short.length) {
      console.log('coverage below what the known-divergences file asks:\n  ' + cov.short.join('\n  '));
      failed = true;
    }
  }
  console.log(failed ? 'ONNX Runtime check: FAILED' : 'ONNX Runtime check: passed');
  return failed ? 1 : 0;
}

main().then((status) => process.exit(status), (e) => { console.error(`ort_check: ${e.stack || e}`); process.exit(2); });
