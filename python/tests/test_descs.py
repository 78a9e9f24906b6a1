"""DirectML's descs from Python: the classes, their DxDispatch dict form, validate, execute on
tensors and on buffers, and DxDispatch model files, held to the conformance models' expected
outputs and to the `dmlref run` tool (the C++ program) on the same cases."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import dmlref
from random_cases import DATA_TYPE, DTYPES, numpy_slice, random_view, same_bits, tensor

CONFORMANCE = Path(__file__).resolve().parents[2] / "tests" / "data" / "conformance"


def all_descs():
    f32 = lambda sizes, strides=None: dmlref.BufferTensorDesc("FLOAT32", sizes, strides)
    return [
        dmlref.DepthToSpaceDesc(f32([1, 8, 2, 3]), f32([1, 2, 4, 6]), 2),
        dmlref.DepthToSpace1Desc(f32([1, 8, 2, 3]), f32([1, 2, 4, 6]), 2, dmlref.DepthSpaceOrder.COLUMN_ROW_DEPTH),
        dmlref.SpaceToDepthDesc(f32([1, 2, 4, 6]), f32([1, 8, 2, 3]), 2),
        dmlref.SpaceToDepth1Desc(f32([1, 2, 4, 6]), f32([1, 8, 2, 3]), 2, "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH"),
        dmlref.SliceDesc(f32([1, 1, 4, 4]), f32([1, 1, 2, 2]), [0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]),
        dmlref.Slice1Desc(f32([1, 1, 4, 4]), f32([1, 1, 2, 2]), [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2]),
        dmlref.PaddingDesc(f32([1, 1, 2, 2]), f32([1, 1, 5, 4]), "REFLECTION", 0.5, [0, 0, 1, 1], [0, 0, 2, 1]),
        dmlref.Padding1Desc(f32([1, 1, 2, 2]), f32([1, 1, 5, 4]), dmlref.PaddingMode.CONSTANT, "FLOAT32", -2.5,
                            [0, 0, 1, 1], [0, 0, 2, 1]),
    ]


@pytest.mark.parametrize("desc", all_descs(), ids=lambda d: d.type)
def test_desc_round_trips_through_its_dict(desc):
    d = desc.to_dict()
    assert d["type"] == "DML_OPERATOR_" + desc.type
    again = dmlref.desc_from_dict(json.loads(json.dumps(d)))
    assert type(again) is type(desc) and again == desc and str(again) == str(desc)
    assert dmlref.validate(desc) is None
    x = np.arange(np.prod(desc.input_tensor.sizes), dtype=np.float32).reshape(desc.input_tensor.sizes)
    assert same_bits(dmlref.execute(again, x), dmlref.execute(desc, x))


def test_desc_fields():
    desc = all_descs()[7]
    assert desc.padding_value == -2.5 and desc.padding_value_bytes == np.float32(-2.5).tobytes() + bytes(4)
    assert desc.padding_mode == dmlref.PaddingMode.CONSTANT and desc.padding_value_data_type == dmlref.DataType.FLOAT32
    desc.padding_value = np.float32(np.nan)
    assert np.isnan(desc.padding_value)
    desc.padding_value = b"\x01\x02"
    assert desc.padding_value_bytes == b"\x01\x02" + bytes(6)
    desc.start_padding = (0, 0, 2, 1)
    assert desc.start_padding == [0, 0, 2, 1]
    assert "StartPadding: {0, 0, 2, 1}" in str(desc) and repr(desc).startswith("<dmlref.Padding1Desc PADDING1 {")
    t = dmlref.BufferTensorDesc(np.float16, (2, 3), strides=[4, 1])
    assert t.data_type == dmlref.DataType.FLOAT16 and t.dimension_count == 2
    assert t.total_tensor_size_in_bytes == 16  # DMLCalcBufferTensorSize: (1*4 + 2*1 + 1) * 2 = 14 bytes, rounded up to 4
    t.strides = None
    assert t.strides is None and t == dmlref.BufferTensorDesc("FLOAT16", [2, 3], total_tensor_size_in_bytes=16)
    assert dmlref.BufferTensorDesc("DML_TENSOR_DATA_TYPE_UINT8", [3]).data_type == dmlref.DataType.UINT8
    assert dmlref.BufferTensorDesc("int64", [3]).data_type == dmlref.DataType.INT64


def test_dict_in_dxdispatch_spellings():
    desc = dmlref.desc_from_dict({"type": "DML_OPERATOR_PADDING1", "executionFlags": "NONE", "desc": {
        "InputTensor": {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": "DML_TENSOR_DATA_TYPE_FLOAT16", "Sizes": [2]}},
        "OutputTensor": {"DataType": "FLOAT16", "Sizes": [5], "TotalTensorSizeInBytes": 16},
        "PaddingMode": "DML_PADDING_MODE_SYMMETRIC", "PaddingValueDataType": "FLOAT16", "PaddingValue": {"UInt16": 15360},
        "StartPadding": [1], "EndPadding": [2]}})
    assert isinstance(desc, dmlref.Padding1Desc) and desc.padding_value == 1.0
    assert desc.input_tensor.total_tensor_size_in_bytes == 4 and desc.output_tensor.total_tensor_size_in_bytes == 16
    assert dmlref.execute(desc, np.array([1, 2], np.float16)).tolist() == [1, 1, 2, 2, 1]


def test_validate_per_feature_level():
    slice1 = all_descs()[5]
    assert dmlref.validate(slice1, "2_1") is None
    assert dmlref.validate(slice1, "2_0") == "SLICE1: not available at feature level 2_0; it was introduced in feature level 2_1"
    f64 = dmlref.SliceDesc(tensor(np.float64, [4]), tensor(np.float64, [2]), [0], [2], [2])
    assert "SLICE: InputTensor.DataType FLOAT64 is not supported at feature level 4_0" in dmlref.validate(f64, "4_0")
    assert dmlref.validate(f64, "4_1") is None
    assert dmlref.FEATURE_LEVELS[0] == "1_0" and dmlref.FEATURE_LEVELS[-1] == "6_4"


def test_execute_on_tensors_of_any_strides():
    rng = np.random.default_rng(1)
    for dtype in DTYPES:
        for kind in ["c", "negative", "transposed", "broadcast", "mixed"]:
            x, _ = random_view(rng, (3, 5, 4), dtype, kind)
            desc = dmlref.Slice1Desc(tensor(dtype, [3, 5, 4]), tensor(dtype, [2, 2, 4]), [1, 0, 0], [2, 5, 4], [-1, 3, 1])
            want = numpy_slice(x, [1, 0, 0], [2, 5, 4], [-1, 3, 1])
            assert same_bits(dmlref.execute(desc, x), want)
            out = np.zeros((4, 4, 4), dtype)[::-2, ::2]
            assert dmlref.execute(desc, x, out=out) is out and same_bits(out, want)


def test_execute_on_buffers_as_directml_reads_them():
    # InputTensor and OutputTensor with Strides: the arrays are the buffers; gaps stay as they were.
    src = dmlref.BufferTensorDesc("INT32", [2, 3], strides=[4, 1])  # rows 4 elements apart
    dst = dmlref.BufferTensorDesc("INT32", [3, 2], strides=[1, 4])  # the transpose, written column-wise
    desc = dmlref.Slice1Desc(src, dst, [0, 0], [2, 3], [1, 1])
    assert dmlref.validate(desc) is not None  # sizes differ: SLICE1 keeps the axis order
    desc = dmlref.Slice1Desc(src, dmlref.BufferTensorDesc("INT32", [2, 3], strides=[1, 2]), [0, 0], [2, 3], [1, 1])
    buffer = np.arange(8, dtype=np.int32)  # 7 elements needed, rounded to 8 by the byte count
    result = dmlref.execute(desc, buffer)
    assert result.dtype == np.int32 and result.tolist() == [0, 4, 1, 5, 2, 6]
    out = np.full(8, -1, np.int32)
    assert dmlref.execute(desc, buffer, out=out) is out and out.tolist() == [0, 4, 1, 5, 2, 6, -1, -1]
    as_bytes = np.full(32, 0xAB, np.uint8)
    dmlref.execute(desc, buffer.view(np.uint8), out=as_bytes)
    assert as_bytes.view(np.int32).tolist()[:6] == [0, 4, 1, 5, 2, 6]
    assert same_bits(dmlref.textbook.execute(desc, buffer), result)
    # A tensor (shape Sizes) in, a buffer out, and the other way round.
    tensor_in = np.array([[0, 1, 2], [4, 5, 6]], np.int32)
    assert dmlref.execute(desc, tensor_in).tolist() == [0, 4, 1, 5, 2, 6]
    back = dmlref.Slice1Desc(dmlref.BufferTensorDesc("INT32", [2, 3], strides=[1, 2]), tensor("int32", [2, 3]),
                             [0, 0], [2, 3], [1, 1])
    assert dmlref.execute(back, result).tolist() == [[0, 1, 2], [4, 5, 6]]


@pytest.mark.parametrize("name", sorted(p.name for p in CONFORMANCE.iterdir()))
def test_conformance_models(name, tmp_path):
    folder = tmp_path / name
    shutil.copytree(CONFORMANCE / name, folder)
    model = dmlref.load_model(str(folder / "model.json"))
    assert [c["type"] for c in model.commands][0] == "dispatch"
    desc = model.dispatchables["op"]
    expected = np.load(folder / "expected.npy")
    # Through the model file, as `dmlref run` runs it.
    ran = dmlref.run_model(model)
    assert ran is model and "written to" in model.log
    assert same_bits(np.load(folder / "output.npy"), expected.reshape(-1))  # writeFile with no dimensions: 1-D
    assert same_bits(model.resources["output"], expected.reshape(-1))
    # The same desc through execute, on the model's own input resource as a buffer.
    fresh = dmlref.load_model(str(folder / "model.json"))
    out = np.zeros_like(fresh.resources["output"])
    dmlref.execute(desc, fresh.resources["input"], out=out)
    assert same_bits(out, expected.reshape(-1))


def test_model_errors_name_the_file_and_field(tmp_path):
    model = tmp_path / "bad.json"
    model.write_text(json.dumps({"resources": {}, "dispatchables": {"op": {"type": "SLICE1", "desc": {}}}, "commands": []}))
    with pytest.raises(dmlref.ValidationError, match=r"bad.json: dispatchables.op.desc: missing field 'InputTensor'"):
        dmlref.load_model(model)
    with pytest.raises(dmlref.ValidationError, match="max_memory is 0"):
        dmlref.load_model(model, max_memory=0)


def cli():
    command = os.environ.get("DMLREF_CLI")
    if not command:
        pytest.skip("the dmlref tool is not named (DMLREF_CLI, which ctest sets)")
    return command


def test_print_matches_the_tool(tmp_path):
    tool = cli()
    model_json = tmp_path / "print.json"
    model_json.write_text(json.dumps({
        "resources": {"input": {"initialValuesDataType": "FLOAT16", "initialValues": {"valueCount": 12, "valueStart": -3,
                                                                                      "valueDelta": 0.5}},
                      "output": {"initialValuesDataType": "FLOAT16", "initialValues": {"valueCount": 6, "value": 0}}},
        "dispatchables": {"op": all_descs()[5].to_dict() | {"desc": {
            "InputTensor": {"DataType": "FLOAT16", "Sizes": [1, 1, 3, 4]}, "OutputTensor": {"DataType": "FLOAT16", "Sizes": [1, 1, 2, 3]},
            "InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 3, 3], "InputWindowStrides": [1, 1, -2, 1]}}},
        "commands": [{"type": "dispatch", "dispatchable": "op", "bindings": {"InputTensor": "input", "OutputTensor": "output"}},
                     {"type": "print", "resource": "output"}, {"type": "print", "resource": "output", "verbose": True}]}))
    expected = subprocess.run([tool, "run", str(model_json)], capture_output=True, text=True, check=True).stdout
    assert dmlref.run_model(str(model_json)).log == expected


def test_random_descs_agree_with_the_tool(tmp_path):
    """The same random descs through this module and through `dmlref run` (the C++ program reading
    one model file that dispatches them all and writes each output)."""
    tool = cli()
    rng = np.random.default_rng(3704)
    resources, dispatchables, commands, expected = {}, {}, [], {}
    for case in range(300):
        dtype = DTYPES[rng.integers(len(DTYPES))]
        family = case % 3
        if family == 0:
            b = int(rng.integers(1, 4))
            shape = (1, b * b * int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4)))
            x, _ = random_view(rng, shape, dtype)
            y = dmlref.depth_to_space(x, b, "crd")
            desc = dmlref.DepthToSpace1Desc(tensor(dtype, shape), tensor(dtype, y.shape), b, "COLUMN_ROW_DEPTH")
        elif family == 1:
            shape = tuple(int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 6))))
            x, _ = random_view(rng, shape, dtype)
            sizes = [int(rng.integers(1, n + 1)) for n in shape]
            offsets = [int(rng.integers(0, n - s + 1)) for n, s in zip(shape, sizes)]
            strides = [int(rng.choice([1, 2, -1, -3])) for _ in shape]
            y = dmlref.slice(x, offsets, sizes, strides)
            desc = dmlref.Slice1Desc(tensor(dtype, shape), tensor(dtype, y.shape), offsets, sizes, strides)
        else:
            shape = tuple(int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 5))))
            x, _ = random_view(rng, shape, dtype)
            mode = ["constant", "edge", "reflect", "symmetric", "wrap"][case % 5]
            start = [int(rng.integers(0, 2 * n + 2)) for n in shape]
            end = [int(rng.integers(0, 2 * n + 2)) for n in shape]
            value = int(rng.integers(0, 100))
            y = dmlref.pad(x, start, end, mode, value)
            desc = dmlref.Padding1Desc(tensor(dtype, shape), tensor(dtype, y.shape),
                                       {"constant": "CONSTANT", "edge": "EDGE", "reflect": "REFLECTION",
                                        "symmetric": "SYMMETRIC", "wrap": "WRAP"}[mode], DATA_TYPE[np.dtype(dtype)], value,
                                       start, end)
        np.save(tmp_path / f"in{case}.npy", np.ascontiguousarray(x))
        resources[f"in{case}"] = {"initialValues": {"sourcePath": f"in{case}.npy"}}
        resources[f"out{case}"] = {"initialValuesDataType": DATA_TYPE[np.dtype(dtype)],
                                   "initialValues": {"valueCount": int(y.size), "value": 0}}
        dispatchables[f"op{case}"] = desc.to_dict()
        commands.append({"type": "dispatch", "dispatchable": f"op{case}",
                         "bindings": {"InputTensor": f"in{case}", "OutputTensor": f"out{case}"}})
        commands.append({"type": "writeFile", "resource": f"out{case}", "targetPath": f"out{case}.npy",
                         "dimensions": list(y.shape)})
        expected[case] = y
    (tmp_path / "all.json").write_text(json.dumps({"resources": resources, "dispatchables": dispatchables,
                                                   "commands": commands}))
    subprocess.run([tool, "run", "-q", str(tmp_path / "all.json")], check=True, capture_output=True)
    for case, y in expected.items():
        assert same_bits(np.load(tmp_path / f"out{case}.npy"), y), dispatchables[f"op{case}"]


def test_element_wise_identity_desc_transposes_and_refuses_scale_bias():
    t = dmlref.BufferTensorDesc
    d = dmlref.ElementWiseIdentityDesc(t("FLOAT32", [2, 3], strides=[1, 2]), t("FLOAT32", [2, 3]))
    assert d.type == "ELEMENT_WISE_IDENTITY" and d.scale_bias is None
    assert dmlref.validate(d) is None
    out = dmlref.execute(d, np.arange(6, dtype=np.float32))
    assert out.tolist() == [[0, 2, 4], [1, 3, 5]]
    assert dmlref.desc_from_dict(d.to_dict()) == d
    d.scale_bias = (2, 10)
    assert d.scale_bias == (2.0, 10.0)
    assert "does not compute scale/bias" in dmlref.validate(d)
    assert dmlref.desc_from_dict(d.to_dict()) == d


def test_slice_grad_desc_scatters_the_gradient_into_zeros():
    t = dmlref.BufferTensorDesc
    d = dmlref.SliceGradDesc(t("FLOAT32", [2, 2]), t("FLOAT32", [4, 4]), [0, 0], [4, 4], [2, 2])
    assert d.type == "SLICE_GRAD" and d.input_window_strides == [2, 2]
    assert d.input_gradient_tensor == d.input_tensor and d.output_gradient_tensor.sizes == [4, 4]
    assert dmlref.validate(d) is None
    out = dmlref.execute(d, np.array([1, 3, 9, 11], dtype=np.float32))
    assert out.tolist() == [[1, 0, 3, 0], [0, 0, 0, 0], [9, 0, 11, 0], [0, 0, 0, 0]]
    assert "InputGradientTensor" in str(d)
    assert dmlref.desc_from_dict(d.to_dict()) == d
    d.input_window_strides = [2, 0]
    assert "InputWindowStrides[1] is 0" in dmlref.validate(d)
