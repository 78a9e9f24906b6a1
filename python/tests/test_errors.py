"""Bad input: every rejection is a ValidationError (a ValueError) or a TypeError whose message names
the operator, the field, the axis and the values, and nothing is read or written outside the
memory of the arrays given (numpy.lib.stride_tricks can point an array anywhere)."""

import mmap

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import dmlref


def test_validation_error_is_a_value_error():
    assert issubclass(dmlref.ValidationError, ValueError)
    with pytest.raises(ValueError):
        dmlref.slice(np.zeros(4), [3], [2], [1])


@pytest.mark.parametrize("call, words", [
    (lambda x: dmlref.slice(x, [0, 0, 0, 5], [1, 2, 3, 1], [1, 1, 1, 1]),
     "slice: InputWindowOffsets[3] + InputWindowSizes[3] = 5 + 1 = 6 exceeds InputTensor.Sizes[3] = 4"),
    (lambda x: dmlref.slice(x, [0, 0, 0, 0], [1, 2, 3, 4], [1, 0, 1, 1]),
     "slice: InputWindowStrides[1] is 0; strides may not be 0"),
    (lambda x: dmlref.slice(x, [0, -1, 0, 0], [1, 1, 3, 4], [1, 1, 1, 1]),
     "slice: InputWindowOffsets[1] is -1; offsets may not be negative"),
    (lambda x: dmlref.slice(x, [0, 0, 0, 0], [1, 0, 3, 4], [1, 1, 1, 1]),
     "slice: InputWindowSizes[1] is 0; the input window must not be empty"),
    (lambda x: dmlref.pad(x, [0, 0, -1, 0], [0, 0, 0, 0]), "pad: StartPadding[2] is -1; pads may not be negative"),
    (lambda x: dmlref.pad(x, [0, 0, 0, 0], [0, 0, 0, -2], "reflect"), "pad: EndPadding[3] is -2; pads may not be negative"),
    (lambda x: dmlref.depth_to_space(x, 2),
     "depth_to_space: InputTensor.Sizes[1] = 2 is not a multiple of BlockSize * BlockSize = 2 * 2"),
    (lambda x: dmlref.space_to_depth(x, 2),
     "space_to_depth: InputTensor.Sizes[2] = 3 is not a multiple of BlockSize = 2"),
    (lambda x: dmlref.depth_to_space(x, 0), "depth_to_space: BlockSize is 0; it must be at least 1"),
    (lambda x: dmlref.depth_to_space(x[0], 1), "depth_to_space: x has 3 dimensions; depth_to_space takes 4 (N, C, H, W)"),
    (lambda x: dmlref.slice(x, [0, 0, 0], [1, 1, 1], [1, 1, 1]), "slice: offsets has 3 entries; x has 4 dimensions"),
    (lambda x: dmlref.pad(x, 0, 0, "mean"), 'pad: mode is \'mean\'; DirectML pads in the modes "constant", "edge"'),
    (lambda x: dmlref.depth_to_space(x, 1, "cdr"), "depth_to_space: order is 'cdr'; it must be \"dcr\""),
    (lambda x: dmlref.pad(x.astype(np.uint8), 1, 1, value=300), "pad: value 300 does not fit UINT8 (0 to 255)"),
    (lambda x: dmlref.pad(x.astype(np.int16), 1, 1, value=2.5), "pad: value 2.5 is not an integer, and the tensor is INT16"),
    (lambda x: dmlref.pad(x.astype(np.uint32), 1, 1, value=-1), "pad: value -1 does not fit UINT32 (0 to 4294967295)"),
    (lambda x: dmlref.slice(x, [0, 0, 0, 2**70], [1, 1, 1, 1], [1, 1, 1, 1]),
     "slice: offsets[3] is 1180591620717411303424; it does not fit in a signed 64-bit integer"),
    (lambda x: dmlref.pad(np.zeros((2, 0, 3)), 1, 1), "pad: InputTensor.Sizes[1] is 0; every size must be at least 1"),
    (lambda x: dmlref.pad(np.zeros(()), 1, 1), "pad: x has 0 dimensions; dmlref's tensors have 1 to 8"),
    (lambda x: dmlref.pad(np.zeros((1,) * 9), 1, 1), "pad: x has 9 dimensions; dmlref's tensors have 1 to 8"),
])
def test_messages_name_op_field_axis_and_values(call, words):
    x = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(dmlref.ValidationError) as error:
        call(x)
    assert words in str(error.value)


@pytest.mark.parametrize("dtype", [bool, np.complex64, object, "U3", np.longdouble, [("a", np.int32)], "M8[s]"])
def test_dtypes_dmlref_does_not_move(dtype):
    with pytest.raises(dmlref.ValidationError, match="pad: x has dtype .*; dmlref moves DirectML's eleven types"):
        dmlref.pad(np.zeros(3, dtype), 1, 1)


def test_type_errors_name_the_argument():
    x = np.zeros((2, 2), np.int32)
    with pytest.raises(TypeError, match=r"slice: strides\[1\] must be an integer, not float"):
        dmlref.slice(x, [0, 0], [1, 1], [1, 1.0])
    with pytest.raises(TypeError, match="slice: offsets must be a sequence of integers"):
        dmlref.slice(x, {0: 1}.values, [1, 1], [1, 1])
    with pytest.raises(TypeError, match=r"pad\(\) missing required argument 'end' \(pos 3\)"):
        dmlref.pad(x, 1)
    with pytest.raises(TypeError, match=r"pad\(\) got an unexpected keyword argument 'constant_values'"):
        dmlref.pad(x, 1, 1, constant_values=3)
    with pytest.raises(TypeError, match=r"slice\(\) got multiple values for argument 'x'"):
        dmlref.slice(x, [0, 0], [1, 1], [1, 1], x=x)
    with pytest.raises(TypeError, match=r"depth_to_space\(\) takes at most 4 arguments \(5 given\)"):
        dmlref.depth_to_space(x, 1, "dcr", None, None)
    with pytest.raises(TypeError, match="pad: out must be a numpy.ndarray, not list"):
        dmlref.pad(x, 1, 1, out=[0] * 16)
    with pytest.raises(TypeError, match="pad: value must be a number, not str"):
        dmlref.pad(x, 1, 1, value="1")


def test_out_must_be_writeable_of_the_right_dtype_and_shape():
    x = np.zeros((2, 3), np.float32)
    out = np.zeros((4, 5), np.float32)
    out.flags.writeable = False
    with pytest.raises(dmlref.ValidationError, match="pad: out is read-only"):
        dmlref.pad(x, 1, 1, out=out)
    with pytest.raises(dmlref.ValidationError, match="pad: out has dtype float64; the result has dtype float32"):
        dmlref.pad(x, 1, 1, out=np.zeros((4, 5)))
    with pytest.raises(dmlref.ValidationError, match=r"pad: out has shape \(5, 4\); the result has shape \(4, 5\)"):
        dmlref.pad(x, 1, 1, out=np.zeros((5, 4), np.float32))
    with pytest.raises(dmlref.ValidationError, match=r"pad: out has dtype >f4; the result has dtype float32"):
        dmlref.pad(x, 1, 1, out=np.zeros((4, 5), ">f4"))
    # A writeable view that maps two coordinates to one element is refused as the library refuses it.
    base = np.zeros(5, np.float32)
    broadcast = as_strided(base, shape=(4, 5), strides=(0, 4))
    with pytest.raises(dmlref.ValidationError, match=r"pad: OutputTensor.Strides\[0\] is 0 with OutputTensor.Sizes\[0\] = 4; "
                                                     "an output must not broadcast"):
        dmlref.pad(x, 1, 1, out=broadcast)
    overlapping = as_strided(np.zeros(40, np.float32), shape=(4, 5), strides=(8, 4))
    with pytest.raises(dmlref.ValidationError, match=r"pad: OutputTensor.Strides\[0\] = 2 overlaps the smaller strides"):
        dmlref.pad(x, 1, 1, out=overlapping)
    assert not base.any()


def test_out_may_not_overlap_the_input():
    a = np.arange(20, dtype=np.int32)
    with pytest.raises(dmlref.ValidationError, match="slice: the input and output memory overlap .* dmlref does not run in place"):
        dmlref.slice(a[:10], [0], [10], [-1], out=a[5:15])
    assert a.tolist() == list(range(20))
    dmlref.slice(a[:10], [0], [10], [-1], out=a[10:])  # side by side is fine
    assert a[10:].tolist() == list(range(9, -1, -1))


def test_strides_that_are_not_whole_elements():
    raw = np.zeros(64, np.uint8)
    x = as_strided(raw[1:].view(np.uint8), shape=(4,), strides=(3,)).view(np.uint8)  # fine: 1-byte elements
    assert dmlref.pad(x, 1, 1).shape == (6,)
    odd = np.ndarray((4,), np.float32, buffer=raw, offset=0, strides=(6,))
    with pytest.raises(dmlref.ValidationError, match=r"pad: x.strides\[0\] is 6 bytes, not a whole number of its 4-byte elements"):
        dmlref.pad(odd, 1, 1)


def test_unaligned_arrays_are_read_and_written():
    raw = np.zeros(4 * 9 + 1, np.uint8)
    x = np.ndarray((9,), np.float32, buffer=raw, offset=1)
    assert not x.flags.aligned
    x[:] = np.arange(9)
    out = np.ndarray((3,), np.float32, buffer=np.zeros(13, np.uint8), offset=1)
    dmlref.slice(x, [1], [9 - 1], [-3], out=out)
    assert out.tolist() == [8.0, 5.0, 2.0]


# ---- the memory behind an array --------------------------------------------------------------


def test_a_view_past_its_owner_is_refused():
    owner = np.arange(16, dtype=np.float32)
    past = as_strided(owner, shape=(8,), strides=(8,))  # reaches element 14: inside
    assert dmlref.pad(past, 0, 0).tolist() == list(range(0, 16, 2))
    beyond = as_strided(owner, shape=(9,), strides=(8,))  # reaches element 16: one past the end
    with pytest.raises(dmlref.ValidationError) as error:
        dmlref.pad(beyond, 0, 0)
    assert str(error.value).startswith("pad: x (shape (9,), strides (8,)) reaches bytes 0 to 68 of the 64 bytes its owner "
                                       "(ndarray) holds; dmlref reads and writes only inside an array's memory")
    before = as_strided(owner[2:], shape=(3,), strides=(-4,))  # back to element 0: inside its owner
    assert dmlref.pad(before, 0, 0).tolist() == [2, 1, 0]
    with pytest.raises(dmlref.ValidationError, match="reaches bytes -8 to 8 of the 64 bytes"):
        dmlref.pad(as_strided(owner[1:], shape=(4,), strides=(-4,)), 0, 0)


def test_a_writeable_view_past_its_owner_is_refused_as_out():
    owner = np.zeros(6, np.int16)
    out = as_strided(owner, shape=(4,), strides=(4,), writeable=True)
    with pytest.raises(dmlref.ValidationError, match=r"pad: out \(shape \(4,\), strides \(4,\)\) reaches bytes 0 to 14 of the 12 bytes"):
        dmlref.pad(np.ones(2, np.int16), 1, 1, out=out)
    assert not owner.any()


def test_buffers_that_own_the_memory():
    data = bytes(range(16))
    x = np.frombuffer(data, np.uint8)  # read-only, over bytes
    assert dmlref.slice(x, [0], [16], [-4]).tolist() == [15, 11, 7, 3]
    with pytest.raises(dmlref.ValidationError, match="reaches bytes 0 to 17 of the 16 bytes its owner \\(bytes\\) holds"):
        dmlref.pad(as_strided(x, shape=(17,), strides=(1,)), 0, 0)
    with pytest.raises(dmlref.ValidationError, match="pad: out is read-only"):
        dmlref.pad(np.zeros(14, np.uint8), 1, 1, out=x)
    writable = bytearray(8)
    out = np.frombuffer(writable, np.uint8)
    dmlref.pad(np.array([7, 7], np.uint8), 3, 3, out=out)
    assert bytes(writable) == bytes([0, 0, 0, 7, 7, 0, 0, 0])
    with pytest.raises(dmlref.ValidationError, match="reaches bytes 0 to 9 of the 8 bytes its owner \\(memoryview\\) holds"):
        dmlref.pad(np.zeros(2, np.uint8), 3, 4, out=as_strided(out, shape=(9,), strides=(1,)))
    mapped = mmap.mmap(-1, 4096)
    m = np.frombuffer(mapped, np.uint32)
    dmlref.pad(np.arange(1, 3, dtype=np.uint32), 0, 1022, "wrap", out=m)
    assert m[:4].tolist() == [1, 2, 1, 2]
    with pytest.raises(dmlref.ValidationError, match="reaches bytes 0 to 4100 of the 4096 bytes its owner"):
        dmlref.pad(as_strided(m, shape=(2,), strides=(4096,)), 0, 0)
    del m
    mapped.close()


def test_memory_numpy_was_handed():
    # An array over memory numpy knows only through its interface (no buffer to ask): the array is
    # the bound numpy was given, and its views are held to it.
    owner = np.arange(10, dtype=np.int64)

    class Interface:
        __array_interface__ = owner.__array_interface__

    handed = np.asarray(Interface())
    assert not handed.flags.owndata and handed.base is not None
    assert dmlref.slice(handed, [0], [10], [-3]).tolist() == [9, 6, 3, 0]
    with pytest.raises(dmlref.ValidationError, match="of the 80 bytes its owner \\(ndarray\\) holds"):
        dmlref.pad(as_strided(handed[5:], shape=(6,), strides=(8,)), 0, 0)


# ---- descs and execute ---------------------------------------------------------------------------


def tensor(dtype, sizes, strides=None):
    return dmlref.BufferTensorDesc(dtype, sizes, strides)


def test_execute_checks_arrays_against_the_desc():
    desc = dmlref.Slice1Desc(tensor("FLOAT32", [2, 4]), tensor("FLOAT32", [2, 2]), [0, 0], [2, 4], [1, 2])
    with pytest.raises(dmlref.ValidationError, match=r"SLICE1: x has dtype int32 \(INT32\); InputTensor.DataType is FLOAT32"):
        dmlref.execute(desc, np.zeros((2, 4), np.int32))
    with pytest.raises(dmlref.ValidationError,
                       match=r"SLICE1: the buffer x \(shape \(7,\)\) holds 28 bytes; InputTensor.TotalTensorSizeInBytes is 32"):
        dmlref.execute(desc, np.zeros(7, np.float32))
    with pytest.raises(dmlref.ValidationError, match=r"SLICE1: x has shape \(4, 2\), not InputTensor.Sizes \(2, 4\); as the "
                                                     "buffer bound to InputTensor it must be C-contiguous"):
        dmlref.execute(desc, np.zeros((2, 4), np.float32).T)
    with pytest.raises(dmlref.ValidationError, match="and dtype int16; as the buffer bound to InputTensor it holds FLOAT32 "
                                                     "elements or uint8 bytes"):
        dmlref.execute(desc, np.zeros(16, np.int16))
    with pytest.raises(dmlref.ValidationError, match="SLICE1: out has dtype float64"):
        dmlref.execute(desc, np.zeros((2, 4), np.float32), out=np.zeros((2, 2)))
    aligned = dmlref.Slice1Desc(dmlref.BufferTensorDesc("FLOAT32", [2, 4], guaranteed_base_offset_alignment=64),
                                tensor("FLOAT32", [2, 2]), [0, 0], [2, 4], [1, 2])
    raw = np.zeros(64 + 40, np.uint8)
    offset = (16 - raw.ctypes.data % 64) % 64 or 16
    with pytest.raises(dmlref.ValidationError, match="is not a multiple of InputTensor.GuaranteedBaseOffsetAlignment = 64"):
        dmlref.execute(aligned, raw[offset : offset + 32])
    with pytest.raises(dmlref.ValidationError, match="SLICE1: not available at feature level 2_0"):
        dmlref.execute(desc, np.zeros((2, 4), np.float32), feature_level="2_0")
    with pytest.raises(dmlref.ValidationError, match='feature_level "7_0" is not one of DirectML\'s'):
        dmlref.validate(desc, "7_0")


def test_desc_fields_are_checked_as_they_are_set():
    with pytest.raises(dmlref.ValidationError, match=r"Slice1Desc.input_window_offsets\[1\] is -1; DirectML's UINT fields"):
        dmlref.Slice1Desc(tensor("FLOAT32", [2, 4]), tensor("FLOAT32", [2, 2]), [0, -1], [2, 4], [1, 2])
    with pytest.raises(dmlref.ValidationError, match=r"Slice1Desc.input_window_strides\[0\] is 2147483648; DirectML's INT"):
        dmlref.Slice1Desc(tensor("FLOAT32", [2, 4]), tensor("FLOAT32", [2, 2]), [0, 0], [2, 4], [2**31, 2])
    with pytest.raises(TypeError, match="Slice1Desc.input_tensor must be a BufferTensorDesc, not dict"):
        dmlref.Slice1Desc({}, tensor("FLOAT32", [2, 2]), [0, 0], [2, 4], [1, 2])
    with pytest.raises(dmlref.ValidationError, match="BufferTensorDesc.data_type is 'FLOAT33'"):
        tensor("FLOAT33", [1])
    with pytest.raises(dmlref.ValidationError, match="BufferTensorDesc.data_type is the numpy dtype bool"):
        tensor(bool, [1])
    with pytest.raises(dmlref.ValidationError, match="Padding1Desc.padding_value: value 256 does not fit UINT8"):
        dmlref.Padding1Desc(tensor("UINT8", [1]), tensor("UINT8", [3]), "CONSTANT", "UINT8", 256, [1], [1])
    with pytest.raises(dmlref.ValidationError, match="PaddingMode or one of CONSTANT, EDGE, REFLECTION, SYMMETRIC, WRAP"):
        dmlref.PaddingDesc(tensor("UINT8", [1]), tensor("UINT8", [3]), "reflect", 0, [1], [1])
    desc = dmlref.DepthToSpace1Desc(tensor("FLOAT32", [1, 4, 1, 1]), tensor("FLOAT32", [1, 1, 2, 2]), 2, "COLUMN_ROW_DEPTH")
    with pytest.raises(dmlref.ValidationError, match="DepthToSpace1Desc.block_size is -1"):
        desc.block_size = -1
    with pytest.raises(dmlref.ValidationError, match=r"desc_from_dict: desc.InputTensor.Sizes\[1\]: "):
        dmlref.desc_from_dict({"type": "SLICE1", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, -2]}}})
    with pytest.raises(dmlref.ValidationError, match=r"desc_from_dict: desc.Strides: unknown field \(expected one of "
                                                     r"InputTensor, OutputTensor, BlockSize\)"):
        dmlref.desc_from_dict({"type": "DML_OPERATOR_DEPTH_TO_SPACE", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 4, 1, 1]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]}, "BlockSize": 2, "Strides": [1]}})
    with pytest.raises(dmlref.ValidationError, match="desc_from_dict: type: 'DML_OPERATOR_GEMM' is not supported by dmlref"):
        dmlref.desc_from_dict({"type": "DML_OPERATOR_GEMM", "desc": {}})
    with pytest.raises(dmlref.ValidationError, match='write NaN and infinities as "NaN"'):
        dmlref.desc_from_dict({"type": "PADDING", "desc": {"PaddingValue": float("nan")}})
