"""dmlref: the CPU golden reference for DirectML's data-movement operators, on numpy arrays.

    import numpy as np, dmlref
    y = dmlref.pad(x, [0, 0, 2, 2], [0, 0, 2, 2], mode="reflect")    # numpy's style
    y = dmlref.execute(desc, x)                                     # DirectML's descs
    dmlref.testing.assert_bit_equal(gpu_output, y, desc)           # pytest, with dmlref's report

Bit-exact: every operator moves element bits and nothing else. Arrays are read in place with
their strides (negative and zero ones too); every rejection raises ValidationError (a ValueError)
with the C++ library's message. docs/python.md in the source tree has the whole guide.
"""

from ._dmlref import (
    FEATURE_LEVELS,
    BufferTensorDesc,
    CompareReport,
    DataType,
    DepthSpaceOrder,
    DepthToSpace1Desc,
    DepthToSpaceDesc,
    ElementWiseIdentityDesc,
    Mismatch,
    Model,
    Padding1Desc,
    PaddingDesc,
    PaddingMode,
    Region,
    Slice1Desc,
    SliceGradDesc,
    SliceDesc,
    SpaceToDepth1Desc,
    SpaceToDepthDesc,
    TensorFlags,
    ValidationError,
    __version__,
    compare,
    depth_to_space,
    desc_from_dict,
    execute,
    load_model,
    pad,
    run_model,
    slice,
    space_to_depth,
    validate,
)
from . import testing, textbook

__all__ = [
    "FEATURE_LEVELS",
    "BufferTensorDesc",
    "CompareReport",
    "DataType",
    "DepthSpaceOrder",
    "DepthToSpace1Desc",
    "DepthToSpaceDesc",
    "ElementWiseIdentityDesc",
    "Mismatch",
    "Model",
    "Padding1Desc",
    "PaddingDesc",
    "PaddingMode",
    "Region",
    "Slice1Desc",
    "SliceGradDesc",
    "SliceDesc",
    "SpaceToDepth1Desc",
    "SpaceToDepthDesc",
    "TensorFlags",
    "ValidationError",
    "__version__",
    "compare",
    "depth_to_space",
    "desc_from_dict",
    "execute",
    "load_model",
    "pad",
    "run_model",
    "slice",
    "space_to_depth",
    "testing",
    "textbook",
    "validate",
]

# The classes and the error print as dmlref.X, where users find them, not dmlref._dmlref.X.
for _name in __all__:
    _object = globals()[_name]
    if isinstance(_object, type):
        _object.__module__ = "dmlref"
del _name, _object
