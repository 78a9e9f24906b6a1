"""compare() and its report, word for word the C++ library's; dmlref.testing.assert_bit_equal as
pytest shows its failures; the textbook evaluator and source_of."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dmlref
from dmlref.testing import assert_bit_equal

SEED_PADDING = dmlref.Padding1Desc(dmlref.BufferTensorDesc("FLOAT32", [1, 1, 4, 4]),
                                   dmlref.BufferTensorDesc("FLOAT32", [1, 1, 8, 10]), "CONSTANT", "FLOAT32", 9.0,
                                   [0, 0, 1, 2], [0, 0, 3, 4])

# docs/verification.md's report: a kernel that writes the left padding columns of this PADDING1
# negated (the first three mismatches listed).
REPORT = """FLOAT32 tensor of sizes {1, 1, 8, 10}: 16 of 80 elements differ
first 3 mismatches, [coordinates] expected (bits) vs actual (bits); where the operator takes the element from:
  [0, 0, 0, 0] 9 (0x41100000) vs -9 (0xc1100000); from the padding constant
  [0, 0, 0, 1] 9 (0x41100000) vs -9 (0xc1100000); from the padding constant
  [0, 0, 1, 0] 9 (0x41100000) vs -9 (0xc1100000); from the padding constant
mismatches lie at, per axis (coordinate ranges):
  axis 0 (size 1): 0 (all)
  axis 1 (size 1): 0 (all)
  axis 2 (size 8): 0..7 (all)
  axis 3 (size 10): 0..1
by region of the PADDING1 output:
  start padding of axis 3: 16 of 16 elements differ (all)
  end padding of axis 2: 6 of 30 elements differ
  start padding of axis 2: 2 of 10 elements differ
  interior (copied from the input): 0 of 16 elements differ
  end padding of axis 3: 0 of 32 elements differ
"""


def wrong_left_columns():
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    expected = dmlref.execute(SEED_PADDING, x)
    actual = expected.copy()
    actual[..., :2] *= -1
    actual[..., 1:5, 2:3] *= 1  # the interior stays right
    return x, expected, actual


def test_report_is_the_libraries_word_for_word():
    _, expected, actual = wrong_left_columns()
    report = dmlref.compare(actual, expected, SEED_PADDING, max_listed=3)
    assert str(report) == REPORT
    assert not report.equal and report.mismatches == 16 and report.element_count == 80
    assert report.shape == (1, 1, 8, 10) and report.data_type == dmlref.DataType.FLOAT32 and report.op == "PADDING1"
    first = report.first[0]
    assert first.coordinates == (0, 0, 0, 0) and first.expected_bits == 0x41100000 and first.actual_bits == 0xC1100000
    assert first.source.is_padding_constant and first.source.coordinates is None
    assert [(r.region, r.mismatches, r.elements) for r in report.regions][:2] == [
        ("start padding of axis 3", 16, 16), ("end padding of axis 2", 6, 30)]
    assert report.axis_ranges[3] == [(0, 1)]
    assert repr(report) == "<dmlref.CompareReport: 16 of 80 elements differ>"


def test_equal_and_nan_rules():
    a = np.array([0.0, np.nan, 1.0], np.float32)
    b = a.copy()
    assert dmlref.compare(a, b).equal and str(dmlref.compare(a, b)) == "FLOAT32 tensor of sizes {3}: all 3 elements are bit-identical"
    b[0] = -0.0
    assert dmlref.compare(a, b).mismatches == 1
    c = a.copy()
    c.view(np.uint32)[1] = 0x7FC00001  # another NaN payload
    assert dmlref.compare(c, a).mismatches == 1 and dmlref.compare(c, a, nan_equal=True).equal
    # Any strides and byte order: the elements are compared, not the memory.
    big = np.arange(12, dtype=">i4").reshape(3, 4)[::-1, ::2]
    assert dmlref.compare(big, np.ascontiguousarray(big).astype("<i4")).equal


def test_compare_refuses_what_has_no_element_wise_answer():
    with pytest.raises(dmlref.ValidationError, match=r"compare: actual has shape \(2, 3\); expected has shape \(3, 2\)"):
        dmlref.compare(np.zeros((2, 3)), np.zeros((3, 2)))
    with pytest.raises(dmlref.ValidationError, match=r"compare: actual has dtype float32 \(FLOAT32\); expected has int32"):
        dmlref.compare(np.zeros(2, np.float32), np.zeros(2, np.int32))
    with pytest.raises(dmlref.ValidationError, match=r"compare: the sizes 2,2 differ from PADDING1's OutputTensor.Sizes 1,1,8,10"):
        dmlref.compare(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32), SEED_PADDING)


def test_assert_bit_equal_passes_and_fails_with_the_report():
    x, expected, actual = wrong_left_columns()
    assert_bit_equal(expected.copy(), expected, SEED_PADDING)
    with pytest.raises(AssertionError) as failure:
        assert_bit_equal(actual, expected, SEED_PADDING, max_listed=3)
    assert str(failure.value) == "not bit-identical to the expected tensor:\n" + REPORT
    with pytest.raises(AssertionError, match=r"not bit-identical: compare: actual has shape \(2,\); expected has shape \(3,\)"):
        assert_bit_equal(np.zeros(2), np.zeros(3))


def test_pytest_shows_the_region_and_the_source_element(tmp_path):
    """A user's test that fails: what pytest prints is the report, with the region of the output
    that differs and the input element each listed mismatch comes from."""
    test = tmp_path / "test_users_kernel.py"
    test.write_text(textwrap.dedent('''
        import numpy as np
        import dmlref
        from dmlref.testing import assert_bit_equal

        def my_reflect_pad(x):  # stands in for a GPU kernel: one element wrong
            y = dmlref.pad(x, [0, 0, 2, 2], [0, 0, 2, 2], "reflect")
            y[0, 0, 0, 5] = 1000
            return y

        def test_my_kernel():
            x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
            desc = dmlref.Padding1Desc(dmlref.BufferTensorDesc("FLOAT32", [1, 1, 4, 4]),
                                       dmlref.BufferTensorDesc("FLOAT32", [1, 1, 8, 8]), "REFLECTION", "FLOAT32", 0,
                                       [0, 0, 2, 2], [0, 0, 2, 2])
            assert_bit_equal(my_reflect_pad(x), dmlref.execute(desc, x), desc)
        '''))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], capture_output=True,
                         text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    out = run.stdout
    assert "AssertionError: not bit-identical to the expected tensor:" in out
    assert "FLOAT32 tensor of sizes {1, 1, 8, 8}: 1 of 64 elements differ" in out
    assert "[0, 0, 0, 5] 11 (0x41300000) vs 1000 (0x447a0000); from input [0, 0, 2, 3]" in out
    assert "start padding of axis 2: 1 of 16 elements differ" in out
    assert "assert_bit_equal(my_reflect_pad(x), dmlref.execute(desc, x), desc)" in out  # the user's line
    assert "__tracebackhide__" not in out  # and not the helper's


def test_textbook_agrees_and_names_sources():
    x = np.arange(24, dtype=np.int16).reshape(1, 4, 2, 3)
    desc = dmlref.DepthToSpace1Desc(dmlref.BufferTensorDesc("INT16", [1, 4, 2, 3]),
                                    dmlref.BufferTensorDesc("INT16", [1, 1, 4, 6]), 2, "COLUMN_ROW_DEPTH")
    fast = dmlref.execute(desc, x)
    assert np.array_equal(dmlref.textbook.execute(desc, x), fast)
    out = np.zeros((1, 1, 4, 6), np.int16)[:, :, ::-1]
    assert dmlref.textbook.execute(desc, x[..., ::1], out=out) is out and np.array_equal(out, fast)
    source = dmlref.textbook.source_of(desc, [0, 0, 1, 3])
    assert source.coordinates == (0, 3, 0, 1) and not source.is_padding_constant and str(source) == "input [0, 3, 0, 1]"
    assert fast[0, 0, 1, 3] == x[0, 3, 0, 1]
    assert str(dmlref.textbook.source_of(SEED_PADDING, (0, 0, 0, 0))) == "the padding constant"
    with pytest.raises(dmlref.ValidationError, match=r"DEPTH_TO_SPACE1: the output coordinate's entry 3 is 6; OutputTensor.Sizes\[3\] is 6"):
        dmlref.textbook.source_of(desc, [0, 0, 0, 6])
    with pytest.raises(dmlref.ValidationError, match="DEPTH_TO_SPACE1: the output coordinate has 3 entries"):
        dmlref.textbook.source_of(desc, [0, 0, 0])
    with pytest.raises(dmlref.ValidationError, match="SLICE1: not available at feature level 2_0"):
        dmlref.textbook.execute(dmlref.Slice1Desc(desc.input_tensor, desc.input_tensor, [0] * 4, [1, 4, 2, 3], [1] * 4), x,
                                feature_level="2_0")
