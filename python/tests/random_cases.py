"""Random arrays of every dtype, laid out every way numpy lays them out, and numpy's own form of
each operator: the independent reference the property tests hold dmlref to."""

import numpy as np

import dmlref

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64]
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
DATA_TYPE = {np.dtype(t): name for t, name in zip(
    DTYPES, ["FLOAT16", "FLOAT32", "FLOAT64", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"])}


def bits(a):
    """The elements' bit patterns (C order), for comparisons that see NaN payloads and -0.0."""
    a = np.ascontiguousarray(a)
    return a.view(UNSIGNED[a.dtype.itemsize])


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(bits(a), bits(b))


def random_values(rng, shape, dtype):
    """Random bits of `dtype`: floats include NaNs with payloads, infinities, -0.0 and subnormals."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def random_view(rng, shape, dtype, kind=None):
    """An array of `shape` and `dtype` with random contents and a random layout: C order, a strided
    view of a larger array (steps of 2 or 3), reversed axes (negative strides), a transposed
    layout, a broadcast axis (stride 0), or several at once. Returns (view, kind)."""
    kinds = ["c", "strided", "negative", "transposed", "broadcast", "mixed", "fortran"]
    kind = kind or kinds[rng.integers(len(kinds))]
    rank = len(shape)
    if kind == "c":
        return random_values(rng, shape, dtype), kind
    if kind == "fortran":
        return np.asfortranarray(random_values(rng, shape, dtype)), kind
    if kind == "broadcast":
        small = tuple(1 if rng.integers(2) else s for s in shape)
        return np.broadcast_to(random_values(rng, small, dtype), shape), kind
    steps = [1] * rank
    order = list(range(rank))
    if kind in ("strided", "mixed"):
        steps = [int(rng.choice([1, 2, 3])) for _ in range(rank)]
    if kind in ("negative", "mixed"):
        steps = [s * int(rng.choice([1, -1])) for s in steps]
    if kind in ("transposed", "mixed"):
        order = list(rng.permutation(rank))
    # A base large enough for the steps, in the permuted axis order, then the view.
    base_shape = [shape[i] * abs(steps[i]) + int(rng.integers(0, 2)) for i in range(rank)]
    base = random_values(rng, [base_shape[i] for i in order], dtype)
    base = base.transpose(np.argsort(order))
    index = []
    for i in range(rank):
        if steps[i] > 0:
            index.append(np.s_[: shape[i] * steps[i] : steps[i]])
        else:
            index.append(np.s_[:: steps[i]])
    view = base[tuple(index)][tuple(np.s_[: shape[i]] for i in range(rank))]
    assert view.shape == tuple(shape), (view.shape, shape, steps)
    return view, kind


def random_out(rng, shape, dtype):
    """An `out=` array: C order, or a strided or reversed view of a larger array."""
    if rng.integers(2):
        return np.empty(shape, dtype)
    steps = [int(rng.choice([1, 2, -1, -2])) for _ in shape]
    base = np.empty([s * abs(t) for s, t in zip(shape, steps)], dtype)
    return base[tuple(np.s_[::t] for t in steps)]


def numpy_depth_to_space(x, block, order):
    n, c, h, w = x.shape
    b = block
    if order == "dcr":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


def numpy_space_to_depth(x, block, order):
    n, c, h, w = x.shape
    b = block
    y = x.reshape(n, c, h // b, b, w // b, b)
    y = y.transpose(0, 3, 5, 1, 2, 4) if order == "dcr" else y.transpose(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def numpy_slice(x, offsets, sizes, strides):
    index = []
    for o, s, t in zip(offsets, sizes, strides):
        if t > 0:
            index.append(np.s_[o : o + s : t])
        else:
            index.append(np.s_[o + s - 1 : (o - 1 if o > 0 else None) : t])
    return x[tuple(index)]


def tensor(dtype, shape, strides=None):
    return dmlref.BufferTensorDesc(DATA_TYPE[np.dtype(dtype)], list(shape), strides)


def buffer_of(a, extra=8):
    """The packed bytes of `a` followed by `extra` zero bytes: a buffer (not a tensor) for execute."""
    packed = np.ascontiguousarray(a).view(np.uint8).reshape(-1)
    return np.concatenate([packed, np.zeros(extra, np.uint8)])


def from_buffer(buffer, dtype, shape):
    count = int(np.prod(shape))
    return buffer[: count * np.dtype(dtype).itemsize].view(dtype).reshape(shape)
