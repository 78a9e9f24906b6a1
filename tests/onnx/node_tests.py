#!/usr/bin/env python3
"""Writes hand-made ONNX node tests in the layout of `dmlref vectors --format both`.

    node_tests.py reproducers DMLREF OUT   the minimal reproducers of tests/onnx/reproducers/
    node_tests.py random DMLREF OUT N SEED N small random cases (a harness self-check)

Each case folder holds model.onnx, test_data_set_0/input_K.pb (raw_data, named after the graph
inputs, in their order), output_0.pb, case.json, and the same operator as a DxDispatch model
(model.json, input.npy). The expected output is never computed here: DMLREF (the dmlref tool)
runs model.json, and its output.npy becomes output_0.pb and expected.npy.

Needs Debian's python3-onnx and numpy.
"""
import json
import os
import random
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

# dmlref's DirectML type name -> (numpy dtype, ONNX type name, TensorProto code)
TYPES = {
    'FLOAT32': (np.float32, 'float', TensorProto.FLOAT),
    'FLOAT16': (np.float16, 'float16', TensorProto.FLOAT16),
    'UINT32': (np.uint32, 'uint32', TensorProto.UINT32),
    'UINT16': (np.uint16, 'uint16', TensorProto.UINT16),
    'UINT8': (np.uint8, 'uint8', TensorProto.UINT8),
    'INT32': (np.int32, 'int32', TensorProto.INT32),
    'INT16': (np.int16, 'int16', TensorProto.INT16),
    'INT8': (np.int8, 'int8', TensorProto.INT8),
    'FLOAT64': (np.float64, 'double', TensorProto.DOUBLE),
    'UINT64': (np.uint64, 'uint64', TensorProto.UINT64),
    'INT64': (np.int64, 'int64', TensorProto.INT64),
}
PAD_MODES = {'constant': 'CONSTANT', 'edge': 'EDGE', 'reflect': 'REFLECTION', 'wrap': 'WRAP'}
PAD_OPSET = {'constant': 11, 'edge': 11, 'reflect': 11, 'wrap': 19}
IR_VERSION = {1: 3, 10: 5, 11: 6, 13: 7, 18: 8, 19: 9}


def tensor(name, array, code):
    t = TensorProto()
    t.name = name
    t.data_type = code
    t.dims.extend(array.shape)
    t.raw_data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder('<')).tobytes()
    return t


def write_case(dmlref, folder, dml_type, x, onnx_op, opset, attributes, extra, dml_op, dml_desc):
    """extra: list of (graph input name, numpy array, TensorProto code) after the data input."""
    dtype, onnx_type, code = TYPES[dml_type]
    os.makedirs(os.path.join(folder, 'test_data_set_0'), exist_ok=True)
    inputs = [('data', x, code)] + extra
    node = helper.make_node(onnx_op, [n for n, _, _ in inputs], ['output'], **attributes)
    graph = helper.make_graph(
        [node], os.path.basename(folder),
        [helper.make_tensor_value_info(n, c, list(a.shape)) for n, a, c in inputs],
        [helper.make_tensor_value_info('output', code, list(dml_desc['OutputTensor']['Sizes']))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)], producer_name='dmlref')
    model.ir_version = max(v for k, v in IR_VERSION.items() if k <= opset)
    with open(os.path.join(folder, 'model.onnx'), 'wb') as f:
        f.write(model.SerializeToString())
    for k, (n, a, c) in enumerate(inputs):
        with open(os.path.join(folder, 'test_data_set_0', f'input_{k}.pb'), 'wb') as f:
            f.write(tensor(n, a, c).SerializeToString())

    # The same operator as a DxDispatch model; dmlref's run of it is the expected output.
    np.save(os.path.join(folder, 'input.npy'), x.reshape(-1))
    out_sizes = dml_desc['OutputTensor']['Sizes']
    model_json = {
        'resources': {
            'input': {'initialValues': {'sourcePath': 'input.npy'}},
            'output': {'initialValuesDataType': dml_type,
                       'initialValues': {'valueCount': int(np.prod(out_sizes)), 'value': 0}},
        },
        'dispatchables': {'op': {'type': dml_op, 'desc': dml_desc}},
        'commands': [
            {'type': 'dispatch', 'dispatchable': 'op', 'bindings': {'InputTensor': 'input', 'OutputTensor': 'output'}},
            {'type': 'writeFile', 'resource': 'output', 'targetPath': 'output.npy'},
        ],
    }
    with open(os.path.join(folder, 'model.json'), 'w') as f:
        json.dump(model_json, f, indent=1)
    subprocess.run([dmlref, 'run', '--quiet', os.path.join(folder, 'model.json')], check=True)
    y = np.load(os.path.join(folder, 'output.npy')).reshape(out_sizes)
    os.replace(os.path.join(folder, 'output.npy'), os.path.join(folder, 'expected.npy'))
    with open(os.path.join(folder, 'test_data_set_0', 'output_0.pb'), 'wb') as f:
        f.write(tensor('output', y, code).SerializeToString())

    case = {'onnx_op': onnx_op, 'opset': opset, 'dml_op': dml_op, 'data_type': dml_type, 'onnx_type': onnx_type,
            'input_shape': list(x.shape), 'output_shape': list(y.shape), 'attributes': attributes,
            'inputs': {n: (a.tolist() if n != 'constant_value' else a.item()) for n, a, _ in extra}}
    if dml_type == 'FLOAT16' and 'constant_value' in case['inputs']:
        case['inputs']['constant_value'] = {'bits': int(extra[1][1].view(np.uint16))}
    with open(os.path.join(folder, 'case.json'), 'w') as f:
        json.dump(case, f, indent=1)
        f.write('\n')


def tensor_desc(dml_type, sizes):
    return {'DataType': dml_type, 'Sizes': list(sizes)}


def pad_case(dmlref, folder, dml_type, x, mode, begin, end, value=0):
    dtype, _, code = TYPES[dml_type]
    out = [s + b + e for s, b, e in zip(x.shape, begin, end)]
    v = np.array(value, dtype=dtype)
    scalar = {'UInt16': int(v.view(np.uint16))} if dml_type == 'FLOAT16' else (v.item() if v.dtype.kind == 'f' else int(v))
    desc = {'InputTensor': tensor_desc(dml_type, x.shape), 'OutputTensor': tensor_desc(dml_type, out),
            'PaddingMode': PAD_MODES[mode], 'PaddingValueDataType': dml_type, 'PaddingValue': scalar,
            'StartPadding': list(begin), 'EndPadding': list(end)}
    extra = [('pads', np.array(list(begin) + list(end), dtype=np.int64), TensorProto.INT64)]
    if mode == 'constant':
        extra.append(('constant_value', v, code))
    write_case(dmlref, folder, dml_type, x, 'Pad', PAD_OPSET[mode], {'mode': mode}, extra, 'DML_OPERATOR_PADDING1', desc)


def depth_space_case(dmlref, folder, dml_type, x, onnx_op, blocksize, mode, opset=None):
    n, c, h, w = x.shape
    b = blocksize
    out = [n, c // (b * b), h * b, w * b] if onnx_op == 'DepthToSpace' else [n, c * b * b, h // b, w // b]
    order = 'DEPTH_COLUMN_ROW' if mode == 'DCR' else 'COLUMN_ROW_DEPTH'
    desc = {'InputTensor': tensor_desc(dml_type, x.shape), 'OutputTensor': tensor_desc(dml_type, out),
            'BlockSize': b, 'Order': order}
    attributes = {'blocksize': b}
    if mode == 'CRD':
        attributes['mode'] = 'CRD'
    if opset is None:  # the lowest that expresses the case: mode arrived with opset 11
        opset = 11 if mode == 'CRD' else 1
    dml_op = 'DML_OPERATOR_DEPTH_TO_SPACE1' if onnx_op == 'DepthToSpace' else 'DML_OPERATOR_SPACE_TO_DEPTH1'
    write_case(dmlref, folder, dml_type, x, onnx_op, opset, attributes, [], dml_op, desc)


def slice_case(dmlref, folder, dml_type, x, starts, ends, steps):
    """One entry per axis; ONNX's clamping decides the window, as DirectML's SLICE1 would see it."""
    offsets, windows, sizes = [], [], []
    for dim, s, e, st in zip(x.shape, starts, ends, steps):
        idx = list(range(dim))[slice(s, e, st)]
        assert idx, 'an empty slice has no DirectML form'
        lo, hi = min(idx), max(idx)
        offsets.append(lo)
        windows.append(hi - lo + 1)
        sizes.append(len(idx))
    desc = {'InputTensor': tensor_desc(dml_type, x.shape), 'OutputTensor': tensor_desc(dml_type, sizes),
            'InputWindowOffsets': offsets, 'InputWindowSizes': windows, 'InputWindowStrides': list(steps)}
    extra = [(n, np.array(v, dtype=np.int64), TensorProto.INT64)
             for n, v in (('starts', starts), ('ends', ends), ('axes', list(range(x.ndim))), ('steps', steps))]
    write_case(dmlref, folder, dml_type, x, 'Slice', 10, {}, extra,
               'DML_OPERATOR_SLICE1', desc)


def tile_case(dmlref, folder, dml_type, x, repeats):
    desc = {'InputTensor': tensor_desc(dml_type, x.shape),
            'OutputTensor': tensor_desc(dml_type, [s * r for s, r in zip(x.shape, repeats)]),
            'RepeatsCount': len(repeats), 'Repeats': list(repeats)}
    extra = [('repeats', np.array(repeats, dtype=np.int64), TensorProto.INT64)]
    write_case(dmlref, folder, dml_type, x, 'Tile', 6, {}, extra, 'DML_OPERATOR_TILE', desc)


def resize_case(dmlref, folder, dml_type, x, scale_height, scale_width):
    """Resize-11 nearest, asymmetric, floor: UPSAMPLE_2D NEAREST_NEIGHBOR as dmlref exports it."""
    out_shape = list(x.shape[:-2]) + [x.shape[-2] * scale_height, x.shape[-1] * scale_width]
    desc = {'InputTensor': tensor_desc(dml_type, x.shape), 'OutputTensor': tensor_desc(dml_type, out_shape),
            'ScaleSize': {'Width': scale_width, 'Height': scale_height}, 'InterpolationMode': 'DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR'}
    scales = np.array([1.0] * (x.ndim - 2) + [scale_height, scale_width], dtype=np.float32)
    extra = [('roi', np.array([], dtype=np.float32), TensorProto.FLOAT), ('scales', scales, TensorProto.FLOAT)]
    attributes = {'mode': 'nearest', 'coordinate_transformation_mode': 'asymmetric', 'nearest_mode': 'floor'}
    write_case(dmlref, folder, dml_type, x, 'Resize', 11, attributes, extra, 'DML_OPERATOR_UPSAMPLE_2D', desc)


def reproducers(dmlref, out):
    """The smallest cases that show each known divergence of ONNX Runtime's CPU provider."""
    def at(name):
        return os.path.join(out, name)
    # wrap, begin pad 8 on an axis of 3: expected 2 3 1 2 3 1 2 3 | 1 2 3 | 1
    x = np.arange(1, 4, dtype=np.float32).reshape(1, 3)
    pad_case(dmlref, at('pad-wrap-begin-beyond-axis'), 'FLOAT32', x, 'wrap', [0, 8], [0, 1])
    # Signalling NaNs (0x7d01, 0xfd55) beside a quiet one (0x7f01) and ordinary halves.
    h = np.array([0x3c00, 0x7d01, 0x7f01, 0xfd55], dtype=np.uint16).view(np.float16)
    pad_case(dmlref, at('float16-pad-nans-through-float32'), 'FLOAT16', h.reshape(1, 4), 'edge', [0, 1], [0, 1])
    depth_space_case(dmlref, at('float16-depthtospace-nans-through-float32'), 'FLOAT16', h.reshape(1, 4, 1, 1), 'DepthToSpace', 2, 'CRD')
    depth_space_case(dmlref, at('float16-spacetodepth-nans-through-float32'), 'FLOAT16', h.reshape(1, 1, 2, 2), 'SpaceToDepth', 2, 'DCR', 13)
    tile_case(dmlref, at('float16-tile-nans-through-float32'), 'FLOAT16', h.reshape(1, 4), [2, 1])
    resize_case(dmlref, at('float16-resize-nans-through-float32'), 'FLOAT16', h.reshape(1, 1, 2, 2), 2, 1)
    depth_space_case(dmlref, at('float16-opset1-inserted-cast-invalid'), 'FLOAT16', h.reshape(1, 4, 1, 1), 'DepthToSpace', 2, 'DCR')
    i = np.arange(1, 5, dtype=np.int16).reshape(1, 4)
    pad_case(dmlref, at('pad-16bit-integer-no-cpu-kernel'), 'INT16', i, 'constant', [0, 1], [0, 0], 7)
    j = np.arange(1, 5, dtype=np.int32)
    depth_space_case(dmlref, at('depthtospace-no-cpu-kernel'), 'INT32', j.reshape(1, 4, 1, 1), 'DepthToSpace', 2, 'DCR', 13)
    depth_space_case(dmlref, at('spacetodepth-no-cpu-kernel'), 'INT32', j.reshape(1, 1, 2, 2), 'SpaceToDepth', 2, 'DCR', 13)
    u = np.arange(1, 5, dtype=np.uint8).reshape(1, 4, 1, 1)
    depth_space_case(dmlref, at('depthtospace-opset1-8bit-no-cpu-kernel'), 'UINT8', u, 'DepthToSpace', 2, 'DCR')
    # OneHot: the drawn cases that showed each class first (seed 1).
    vectors_case(dmlref, at('onehot-no-cpu-kernel'), INDEXED_OPS, 1, 5)
    vectors_case(dmlref, at('float16-onehot-nans-through-float32'), INDEXED_OPS, 1, 2255)


INDEXED_OPS = 'gather,gather_nd,gather_nd1,scatter_elements,scatter_nd,one_hot'


def vectors_case(dmlref, folder, ops, seed, case):
    """Case number `case` of `dmlref vectors --format both --ops OPS --seed SEED`, as the tool exports it
    (the operators of several input tensors, whose DxDispatch models bind each by name)."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        subprocess.run([dmlref, 'vectors', '--format', 'both', '--ops', ops, '--count', str(case + 1), '--seed', str(seed),
                        '--out', t], check=True, stdout=subprocess.DEVNULL)
        found = [d for d in os.listdir(t) if d.startswith(f'{case:05}_')]
        assert len(found) == 1, found
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(os.path.join(t, found[0]), folder)


def random_cases(dmlref, out, count, seed):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    names = list(TYPES)
    for k in range(count):
        dml_type = names[k % len(names)]
        dtype = TYPES[dml_type][0]
        op = ['Pad', 'Slice', 'DepthToSpace', 'SpaceToDepth'][(k // len(names)) % 4]
        if op in ('DepthToSpace', 'SpaceToDepth'):
            b = rng.randint(1, 3)
            shape = [rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)]
            if op == 'DepthToSpace':
                shape[1] *= b * b
            else:
                shape[2] *= b
                shape[3] *= b
        else:
            shape = [rng.randint(1, 5) for _ in range(rng.randint(1, 4))]
        raw = nrng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
        x = raw.view(dtype).reshape(shape)
        folder = os.path.join(out, f'{k:05}_{op}_{dml_type}')
        if op == 'Pad':
            mode = rng.choice(list(PAD_MODES))
            begin = [rng.randint(0, 6) for _ in shape]
            end = [rng.randint(0, 6) for _ in shape]
            if mode == 'reflect':
                begin = [min(b, s - 1) for b, s in zip(begin, shape)]
                end = [min(e, s - 1) for e, s in zip(end, shape)]
            value = raw[:np.dtype(dtype).itemsize].view(dtype)[0]
            pad_case(dmlref, folder, dml_type, x, mode, begin, end, value)
        elif op == 'Slice':
            starts, ends, steps = [], [], []
            for s in shape:
                step = rng.choice([1, 2, 3, -1, -2, -3])
                lo = rng.randint(0, s - 1)
                hi = rng.randint(lo, s - 1)
                starts.append(lo if step > 0 else hi)
                ends.append(hi + 1 if step > 0 else (lo - 1 if lo > 0 else -s - 1))
                steps.append(step)
            slice_case(dmlref, folder, dml_type, x, starts, ends, steps)
        else:
            mode = 'DCR' if op == 'SpaceToDepth' else rng.choice(['DCR', 'CRD'])
            depth_space_case(dmlref, folder, dml_type, x, op, b, mode)


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'reproducers':
        reproducers(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'random':
        random_cases(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)
