// Reads the TensorProto files of an ONNX node test (test_data_set_0/*.pb) and writes .npy files.
// Only what dmlref's exporter writes is understood: dims (field 1), data_type (2), name (8) and
// raw_data (9, little-endian). A tensor that keeps its values in another field (float_data,
// int32_data, ...) is an error, not guessed at.
import fs from 'node:fs';

// ONNX TensorProto.DataType -> ONNX Runtime's type name, the typed array the binding takes,
// the .npy descr, and the element size in bytes.
export const TYPES = {
  1: {name: 'float32', array: Float32Array, npy: '<f4', size: 4},
  2: {name: 'uint8', array: Uint8Array, npy: '|u1', size: 1},
  3: {name: 'int8', array: Int8Array, npy: '|i1', size: 1},
  4: {name: 'uint16', array: Uint16Array, npy: '<u2', size: 2},
  5: {name: 'int16', array: Int16Array, npy: '<i2', size: 2},
  6: {name: 'int32', array: Int32Array, npy: '<i4', size: 4},
  7: {name: 'int64', array: BigInt64Array, npy: '<i8', size: 8},
  9: {name: 'bool', array: Uint8Array, npy: '|b1', size: 1},
  10: {name: 'float16', array: Uint16Array, npy: '<f2', size: 2}, // the binding takes half bits in a Uint16Array
  11: {name: 'float64', array: Float64Array, npy: '<f8', size: 8},
  12: {name: 'uint32', array: Uint32Array, npy: '<u4', size: 4},
  13: {name: 'uint64', array: BigUint64Array, npy: '<u8', size: 8},
};

function varint(buf, pos) {
  let value = 0n, shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [value, pos];
    shift += 7n;
    if (shift > 63n) throw new Error('varint longer than 64 bits');
  }
}

const asInt64 = (v) => BigInt.asIntN(64, v);

/// Decodes one TensorProto: {name, dataType, dims, raw (a Buffer of the raw_data bytes),
/// rawOffset (where raw_data starts in the file)}.
export function decodeTensor(buf, label = 'tensor') {
  const t = {name: '', dataType: 0, dims: [], raw: null, rawOffset: -1};
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = varint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = varint(buf, pos);
      if (field === 1) t.dims.push(Number(asInt64(v)));
      else if (field === 2) t.dataType = Number(v);
      else if (field === 8 || field === 9) throw new Error(`${label}: field ${field} has wire type 0`);
    } else if (wire === 2) {
      let len;
      [len, pos] = varint(buf, pos);
      const end = pos + Number(len);
      if (end > buf.length) throw new Error(`${label}: field ${field} runs past the end of the file`);
      if (field === 1) { // packed dims
        for (let p = pos; p < end;) { let v; [v, p] = varint(buf, p); t.dims.push(Number(asInt64(v))); }
      } else if (field === 8) t.name = buf.subarray(pos, end).toString('utf8');
      else if (field === 9) { t.raw = buf.subarray(pos, end); t.rawOffset = pos; }
      else if ([4, 5, 6, 7, 10, 11].includes(field) && end > pos)
        throw new Error(`${label}: values in field ${field}, not raw_data; this reader understands raw_data only`);
      pos = end;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`${label}: unsupported wire type ${wire} (field ${field})`);
  }
  if (pos !== buf.length) throw new Error(`${label}: truncated`);
  const type = TYPES[t.dataType];
  if (!type) throw new Error(`${label}: data_type ${t.dataType} is not one this harness knows`);
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.raw === null) {
    if (count !== 0) throw new Error(`${label}: no raw_data; this reader understands raw_data only`);
    t.raw = Buffer.alloc(0);
  }
  if (t.raw.length !== count * type.size)
    throw new Error(`${label}: raw_data holds ${t.raw.length} bytes; dims [${t.dims}] of ${type.name} need ${count * type.size}`);
  return t;
}

export function readTensor(path) {
  return decodeTensor(fs.readFileSync(path), path);
}

/// The tensor's values in the typed array the binding takes (a copy, so it is aligned).
export function typedArray(t) {
  const type = TYPES[t.dataType];
  const bytes = new Uint8Array(t.raw.length);
  bytes.set(t.raw);
  return new type.array(bytes.buffer, 0, t.raw.length / type.size);
}

/// The bytes of a typed array as a Buffer (no copy).
export function bytesOf(array) {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/// Writes a version 1.0 .npy file: little-endian, C order.
export function writeNpy(path, dataType, dims, bytes) {
  const type = TYPES[dataType];
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${type.npy}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(path, Buffer.concat([head, Buffer.from(header, 'latin1'), bytes]));
}
