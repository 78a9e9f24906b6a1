// Changes one element of a case's expected output (test_data_set_0/output_0.pb): the low byte of
// element INDEX (default 0; 'middle' for the middle one) gets its lowest bit flipped. Used to prove that ort_check.mjs fails,
// names the case and prints dmlref's report when ONNX Runtime and the file disagree.
//   node plant_difference.mjs CASE_FOLDER [INDEX|middle]
import fs from 'node:fs';
import path from 'node:path';
import {decodeTensor, TYPES} from './tensorproto.mjs';

const [dir, which = '0'] = process.argv.slice(2);
if (!dir) { console.error('usage: node plant_difference.mjs CASE_FOLDER [INDEX|middle]'); process.exit(2); }
const file = path.join(dir, 'test_data_set_0', 'output_0.pb');
const bytes = fs.readFileSync(file);
const t = decodeTensor(bytes, file);
const count = t.raw.length / TYPES[t.dataType].size;
const index = which === 'middle' ? Math.floor(count / 2) : Number(which);
const at = t.rawOffset + index * TYPES[t.dataType].size;
if (!(index >= 0 && index < count)) { console.error(`${file}: no element ${index}`); process.exit(2); }
bytes[at] ^= 0x01;
fs.writeFileSync(file, bytes);
console.log(`planted a difference in ${file}: element ${index} (${TYPES[t.dataType].name})`);
