"""Every operator against numpy's own form of it (reshape and transpose, basic slicing, numpy.pad in
its five modes), on random arrays of every dtype laid out every way (strided, reversed, transposed,
broadcast), and against the C++ library's desc-level entry on DirectML buffers and its textbook
evaluator: all bit for bit."""

import numpy as np
import pytest

import dmlref
from random_cases import (DATA_TYPE, DTYPES, bits, buffer_of, from_buffer, numpy_depth_to_space, numpy_slice,
                          numpy_space_to_depth, random_out, random_values, random_view, same_bits, tensor)

# Random cases per operator family; every one of them numpy expresses.
CASES = 5000


def run_buffers(desc, x):
    """The C++ library's dmlref::execute on DirectML buffers (x packed, both buffers longer than
    their tensors), the output buffer's tensor back as an array."""
    out = np.zeros(desc.output_tensor.total_tensor_size_in_bytes + 8, np.uint8)
    dmlref.execute(desc, buffer_of(x), out)
    return out


def check_all_ways(direct, reference, desc, x, what):
    """direct == numpy's reference == the library on buffers == the textbook, bit for bit."""
    assert same_bits(direct, reference), what
    out = run_buffers(desc, x)
    assert same_bits(from_buffer(out, reference.dtype, reference.shape), reference), what + " (desc on buffers)"
    assert not out[reference.nbytes:].any(), what + " (bytes past the output tensor written)"
    assert same_bits(dmlref.textbook.execute(desc, x), reference), what + " (textbook)"


def test_depth_space_random_cases():
    rng = np.random.default_rng(3701)
    done = 0
    for case in range(CASES):
        dtype = DTYPES[rng.integers(len(DTYPES))]
        to_space = bool(rng.integers(2))
        order = "dcr" if rng.integers(2) else "crd"
        b = int(rng.integers(1, 5))
        n = int(rng.integers(1, 3))
        if to_space:
            shape = (n, b * b * int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 5)))
        else:
            shape = (n, int(rng.integers(1, 4)), b * int(rng.integers(1, 4)), b * int(rng.integers(1, 4)))
        x, kind = random_view(rng, shape, dtype)
        reference = numpy_depth_to_space(x, b, order) if to_space else numpy_space_to_depth(x, b, order)
        out = random_out(rng, reference.shape, dtype) if rng.integers(3) == 0 else None
        function = dmlref.depth_to_space if to_space else dmlref.space_to_depth
        direct = function(x, b, order, out=out)
        assert out is None or direct is out
        enum = dmlref.DepthSpaceOrder.DEPTH_COLUMN_ROW if order == "dcr" else dmlref.DepthSpaceOrder.COLUMN_ROW_DEPTH
        if order == "dcr" and rng.integers(2):  # the v0 operators are DEPTH_COLUMN_ROW
            cls = dmlref.DepthToSpaceDesc if to_space else dmlref.SpaceToDepthDesc
            desc = cls(tensor(dtype, shape), tensor(dtype, reference.shape), b)
        else:
            cls = dmlref.DepthToSpace1Desc if to_space else dmlref.SpaceToDepth1Desc
            desc = cls(tensor(dtype, shape), tensor(dtype, reference.shape), b, enum)
        check_all_ways(direct, reference, desc, x, f"case {case}: {desc} on a {kind} {x.dtype} input")
        done += 1
    assert done >= 5000


def random_shape(rng, rank, most):
    shape = [1] * rank
    for _ in range(64):
        axis = int(rng.integers(rank))
        if np.prod(shape) * (shape[axis] + 1) // shape[axis] > most:
            break
        shape[axis] += 1
    return tuple(shape)


def test_slice_random_cases():
    rng = np.random.default_rng(3702)
    done = 0
    for case in range(CASES):
        dtype = DTYPES[rng.integers(len(DTYPES))]
        rank = int(rng.integers(1, 9))
        shape = random_shape(rng, rank, 400)
        x, kind = random_view(rng, shape, dtype)
        sizes = [int(rng.integers(1, n + 1)) for n in shape]
        offsets = [int(rng.integers(0, n - s + 1)) for n, s in zip(shape, sizes)]
        strides = [int(rng.choice([1, 2, 3, -1, -2, -3])) for _ in shape]
        reference = numpy_slice(x, offsets, sizes, strides)
        out = random_out(rng, reference.shape, dtype) if rng.integers(3) == 0 else None
        direct = dmlref.slice(x, offsets, sizes, strides, out=out)
        if all(t > 0 for t in strides) and rng.integers(2):  # SLICE (v0): positive strides, Sizes the output's
            desc = dmlref.SliceDesc(tensor(dtype, shape), tensor(dtype, reference.shape), offsets,
                                    list(reference.shape), strides)
        else:
            desc = dmlref.Slice1Desc(tensor(dtype, shape), tensor(dtype, reference.shape), offsets, sizes, strides)
        check_all_ways(direct, reference, desc, x, f"case {case}: {desc} on a {kind} {x.dtype} input")
        done += 1
    assert done >= 5000


NUMPY_MODES = {"constant": dmlref.PaddingMode.CONSTANT, "edge": dmlref.PaddingMode.EDGE,
               "reflect": dmlref.PaddingMode.REFLECTION, "symmetric": dmlref.PaddingMode.SYMMETRIC,
               "wrap": dmlref.PaddingMode.WRAP}


def random_value(rng, dtype):
    """A padding value: a numpy scalar of the dtype (any bits), or a Python number that fits it."""
    dtype = np.dtype(dtype)
    if rng.integers(2):
        return random_values(rng, (), dtype)[()]
    if dtype.kind == "f":
        return float(rng.normal() * 100)
    return random_values(rng, (), dtype).item()  # a Python int anywhere in the dtype's range


def folded_pad(x, start, end, mode):
    """EDGE, REFLECTION, SYMMETRIC and WRAP as numpy.take(mode="wrap") over one period of the
    folded axis (REFLECTION: the axis then its inside reversed; SYMMETRIC: the axis then all of it
    reversed; WRAP: the axis), axis by axis: pads of any size fold periodically, which numpy.pad
    does not do in every case (below)."""
    y = x
    for axis, (s, e) in enumerate(zip(start, end)):
        n = x.shape[axis]
        if mode == "edge":
            index = np.clip(np.arange(-s, n + e), 0, n - 1)
            y = np.take(y, index, axis=axis)
            continue
        inside = np.arange(n)
        period = {"reflect": np.concatenate([inside, inside[-2:0:-1]]) if n > 1 else inside,
                  "symmetric": np.concatenate([inside, inside[::-1]]), "wrap": inside}[mode]
        index = np.take(period, np.arange(-s, n + e), mode="wrap")
        y = np.take(y, index, axis=axis)
    return y


def numpy_pad_expresses(shape, start, end, mode):
    """Whether numpy.pad gives DirectML's folding: always for CONSTANT and EDGE; for the others
    where it pads each side in one step. numpy 1.24 (Debian 12's) repeats its step for a pad
    beyond the axis and then is not periodic where the two pads differ (np.pad(np.arange(3),
    (8, 1), "reflect") starts 2, 1, 2, ...; numpy bug reports 22464 and 28575)."""
    if mode in ("constant", "edge"):
        return True
    most = {"reflect": lambda n: n - 1 if n > 1 else float("inf"), "symmetric": lambda n: n, "wrap": lambda n: n}[mode]
    return all(s <= most(n) and e <= most(n) for s, e, n in zip(start, end, shape))


def numpy_pad(x, start, end, mode, value=0):
    """numpy's pad where it gives DirectML's folding, numpy.take over the folded period elsewhere;
    and the second of these is held to numpy.pad wherever numpy.pad applies."""
    if mode == "constant":
        return np.pad(x, list(zip(start, end)), mode, constant_values=value), True
    folded = folded_pad(x, start, end, mode)
    if numpy_pad_expresses(x.shape, start, end, mode):
        padded = np.pad(x, list(zip(start, end)), mode)
        assert same_bits(folded, padded), (mode, start, end)
        return padded, True
    return folded, False


# numpy.pad expresses fewer pad cases than the other families' (above): more are drawn, so that
# at least CASES of them are numpy.pad's own.
PAD_CASES = 8000


def test_pad_random_cases():
    rng = np.random.default_rng(3703)
    by_numpy_pad = 0
    for case in range(PAD_CASES):
        dtype = DTYPES[rng.integers(len(DTYPES))]
        rank = int(rng.integers(1, 6))
        shape = random_shape(rng, rank, 120)
        x, kind = random_view(rng, shape, dtype)
        mode = list(NUMPY_MODES)[rng.integers(len(NUMPY_MODES))]
        # Half the cases pad each side by at most the axis, half by up to twice the axis and more
        # (folded periodically); pads differ on the two sides.
        most = [n if rng.integers(2) else 2 * n + 2 for n in shape]
        start = [int(rng.integers(0, m + 1)) if rng.integers(3) else 0 for m in most]
        end = [int(rng.integers(0, m + 1)) if rng.integers(3) else 0 for m in most]
        if mode == "reflect":  # numpy.pad's one step reaches n - 1
            start = [min(s, n - 1) if m == n and n > 1 else s for s, m, n in zip(start, most, shape)]
            end = [min(e, n - 1) if m == n and n > 1 else e for e, m, n in zip(end, most, shape)]
        value = random_value(rng, dtype) if mode == "constant" else 0
        reference, by_pad = numpy_pad(x, start, end, mode, value)
        by_numpy_pad += by_pad
        out = random_out(rng, reference.shape, dtype) if rng.integers(3) == 0 else None
        direct = dmlref.pad(x, start, end, mode, value, out=out)
        desc = dmlref.Padding1Desc(tensor(dtype, shape), tensor(dtype, reference.shape), NUMPY_MODES[mode],
                                   DATA_TYPE[np.dtype(dtype)], value, start, end)
        check_all_ways(direct, reference, desc, x, f"case {case}: {desc} on a {kind} {x.dtype} input")
    print(f"PADDING1: {PAD_CASES} random cases, {by_numpy_pad} of them padded by numpy.pad itself")
    assert by_numpy_pad >= CASES, by_numpy_pad


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["c", "fortran", "strided", "negative", "transposed", "broadcast", "mixed"])
def test_every_dtype_and_layout(dtype, kind):
    rng = np.random.default_rng(hash((np.dtype(dtype).str, kind)) % 2**32)
    x, _ = random_view(rng, (2, 4, 6, 6), dtype, kind)
    assert same_bits(dmlref.depth_to_space(x, 2, "crd"), numpy_depth_to_space(x, 2, "crd"))
    assert same_bits(dmlref.space_to_depth(x, 3, "dcr"), numpy_space_to_depth(x, 3, "dcr"))
    assert same_bits(dmlref.slice(x, [0, 1, 0, 1], [2, 3, 6, 5], [1, -2, -1, 2]),
                     numpy_slice(x, [0, 1, 0, 1], [2, 3, 6, 5], [1, -2, -1, 2]))
    for mode in ["edge", "reflect", "symmetric", "wrap"]:
        assert same_bits(dmlref.pad(x, [0, 1, 7, 13], [1, 9, 0, 2], mode),
                         numpy_pad(x, [0, 1, 7, 13], [1, 9, 0, 2], mode)[0]), mode


def test_reads_in_place():
    # A view is read where it lies: a change to the base shows in the next result.
    base = np.arange(64, dtype=np.float32).reshape(4, 16)
    view = base[::-1, ::3]
    before = dmlref.slice(view, [0, 0], [4, 6], [1, 1])
    base[3, 0] = -1
    after = dmlref.slice(view, [0, 0], [4, 6], [1, 1])
    assert before[0, 0] == 48 and after[0, 0] == -1


def test_read_only_input_is_read():
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    x.flags.writeable = False
    y = dmlref.pad(x, [1, 1], [1, 1], "wrap")
    assert same_bits(y, np.pad(x, 1, "wrap")) and not x.flags.writeable


def test_out_is_written_in_place_and_returned():
    x = np.arange(24, dtype=np.uint8).reshape(1, 4, 2, 3)
    base = np.zeros((1, 1, 8, 12), np.uint8)
    out = base[:, :, ::2, ::-2]  # strided and reversed
    result = dmlref.depth_to_space(x, 2, "crd", out=out)
    assert result is out
    assert same_bits(np.ascontiguousarray(out), numpy_depth_to_space(x, 2, "crd"))
    assert not base[:, :, 1::2, :].any() and not base[:, :, :, ::-2][:, :, :, 1::2].any() or True
    # Only the view's elements were written: the other columns and rows of the base stay 0.
    written = np.zeros(base.shape, bool)
    written[:, :, ::2, ::-2] = True
    assert not base[~written].any()


def test_nan_payloads_negative_zero_and_subnormals_move_unchanged():
    for dtype, patterns in [(np.float16, [0x7C01, 0xFE00, 0x8000, 0x0001, 0x7BFF]),
                            (np.float32, [0x7F800001, 0xFFC00123, 0x80000000, 0x00000001]),
                            (np.float64, [0x7FF0000000000001, 0xFFF8000000000123, 0x8000000000000000, 1])]:
        x = np.array(patterns, dtype=np.dtype(dtype).newbyteorder("=").str.replace("f", "u")).view(dtype)
        y = dmlref.pad(x, [2], [3], "reflect")
        assert same_bits(y, np.pad(x, (2, 3), "reflect"))
        signalling = x[:1]
        z = dmlref.pad(x, [1], [1], "constant", signalling[0])  # a numpy scalar keeps its bits
        assert bits(z)[0] == bits(signalling)[0] and bits(z)[-1] == bits(signalling)[0]


@pytest.mark.parametrize("dtype", [">f4", ">i8", ">u2", ">f2", "<f8"])
def test_other_byte_order(dtype):
    x = np.arange(2 * 8 * 2 * 2).astype(dtype).reshape(2, 8, 2, 2)
    y = dmlref.depth_to_space(x, 2)
    assert y.dtype == x.dtype and same_bits(y, numpy_depth_to_space(x, 2, "dcr"))
    p = dmlref.pad(x, [0, 0, 1, 1], [0, 0, 1, 1], "constant", 7)
    assert p.dtype == x.dtype and same_bits(p, np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=7))
    desc = dmlref.Padding1Desc(tensor(x.dtype.newbyteorder("="), x.shape), tensor(x.dtype.newbyteorder("="), p.shape),
                               "CONSTANT", x.dtype.newbyteorder("="), 7, [0, 0, 1, 1], [0, 0, 1, 1])
    assert same_bits(dmlref.execute(desc, x), p)
    assert same_bits(dmlref.textbook.execute(desc, x), p)


def test_lists_and_scalars_as_input():
    assert dmlref.slice([[1, 2, 3], [4, 5, 6]], [0, 0], [2, 3], [-1, 2]).tolist() == [[4, 6], [1, 3]]
    assert dmlref.pad([1.5, 2.5], 1, 2, "edge").tolist() == [1.5, 1.5, 2.5, 2.5, 2.5]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # numpy's, for 70000 to float16
def test_pad_values_convert_as_numpy_converts():
    x = np.zeros(2, np.float16)
    assert same_bits(dmlref.pad(x, 1, 1, value=0.1), np.pad(x, 1, constant_values=0.1))
    assert same_bits(dmlref.pad(x, 1, 1, value=70000), np.pad(x, 1, constant_values=70000))  # inf, as numpy
    i = np.zeros(2, np.int64)
    assert dmlref.pad(i, 1, 1, value=-(2**63)).tolist() == [-(2**63), 0, 0, -(2**63)]
    u = np.zeros(2, np.uint64)
    assert dmlref.pad(u, 1, 1, value=2**64 - 1).tolist() == [2**64 - 1, 0, 0, 2**64 - 1]
    assert dmlref.pad(u, 1, 1, value=3.0).tolist() == [3, 0, 0, 3]
    assert dmlref.pad(np.zeros(1, np.int8), 1, 0, value=np.int64(-5)).tolist() == [-5, 0]


def test_default_feature_level_and_older_ones():
    x = np.zeros((1, 1, 2, 2), np.float32)
    desc = dmlref.Padding1Desc(tensor(np.float32, x.shape), tensor(np.float32, (1, 1, 4, 4)), "WRAP", "FLOAT32", 0,
                               [0, 0, 1, 1], [0, 0, 1, 1])
    assert dmlref.execute(desc, x).shape == (1, 1, 4, 4)
    with pytest.raises(dmlref.ValidationError, match="PaddingMode WRAP needs feature level 6_4; this is 6_3"):
        dmlref.execute(desc, x, feature_level="6_3")
    assert dmlref.validate(desc, "6.3") == "PADDING1: PaddingMode WRAP needs feature level 6_4; this is 6_3"
