"""Assertions for pytest (or any test runner that reports AssertionError)."""

from ._dmlref import ValidationError as _ValidationError
from ._dmlref import compare as _compare


def assert_bit_equal(actual, expected, desc=None, *, nan_equal=False, max_listed=10):
    """Asserts that `actual` equals `expected` bit for bit (dtype and shape too).

    Fails with dmlref's comparison report: how many elements differ, the first of them with both
    values and bit patterns, their coordinate ranges per axis; given `desc`, the operator whose
    output `expected` is, also the regions of that output (padding borders, block offsets, window
    edges) and, for each listed element, the input element (or the padding constant) it comes from.

        dmlref.testing.assert_bit_equal(gpu_output, dmlref.execute(desc, x), desc)
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    try:
        report = _compare(actual, expected, desc, nan_equal=nan_equal, max_listed=max_listed)
    except _ValidationError as error:  # dtypes or shapes differ: no element-wise report
        raise AssertionError(f"not bit-identical: {error}") from None
    if not report.equal:
        raise AssertionError("not bit-identical to the expected tensor:\n" + str(report))


__all__ = ["assert_bit_equal"]
