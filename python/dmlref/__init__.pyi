# Type stubs of the dmlref package (its functions and classes live in the C++ extension dmlref._dmlref).
import enum
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import testing as testing
from . import textbook as textbook

__version__: str
FEATURE_LEVELS: Tuple[str, ...]

class ValidationError(ValueError): ...

class DataType(enum.IntEnum):
    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11
    UINT4 = 12
    INT4 = 13

class PaddingMode(enum.IntEnum):
    CONSTANT = 0
    EDGE = 1
    REFLECTION = 2
    SYMMETRIC = 3
    WRAP = 4

class DepthSpaceOrder(enum.IntEnum):
    DEPTH_COLUMN_ROW = 0
    COLUMN_ROW_DEPTH = 1

class TensorFlags(enum.IntEnum):
    NONE = 0
    OWNED_BY_DML = 1

# A data type: a DataType, DirectML's name ("FLOAT16", "DML_TENSOR_DATA_TYPE_FLOAT16") or a numpy dtype.
DataTypeLike = Union[DataType, str, npt.DTypeLike]
IntSequence = Sequence[int]
# An integer per axis, or one integer for every axis.
Ints = Union[int, Sequence[int]]

class BufferTensorDesc:
    data_type: DataType
    sizes: List[int]
    strides: Optional[List[int]]
    total_tensor_size_in_bytes: int
    guaranteed_base_offset_alignment: int
    flags: TensorFlags
    @property
    def dimension_count(self) -> int: ...
    def __init__(
        self,
        data_type: DataTypeLike,
        sizes: IntSequence,
        strides: Optional[IntSequence] = None,
        total_tensor_size_in_bytes: Optional[int] = None,
        guaranteed_base_offset_alignment: int = 0,
        flags: Union[TensorFlags, str, int] = TensorFlags.NONE,
    ) -> None: ...

class _Desc:
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    @property
    def type(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

class _DepthSpaceDesc(_Desc):
    block_size: int
    def __init__(self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc, block_size: int) -> None: ...

class _DepthSpace1Desc(_Desc):
    block_size: int
    order: DepthSpaceOrder
    def __init__(
        self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc, block_size: int,
        order: Union[DepthSpaceOrder, str],
    ) -> None: ...

class DepthToSpaceDesc(_DepthSpaceDesc): ...
class DepthToSpace1Desc(_DepthSpace1Desc): ...
class SpaceToDepthDesc(_DepthSpaceDesc): ...
class SpaceToDepth1Desc(_DepthSpace1Desc): ...

class SliceDesc(_Desc):
    offsets: List[int]
    sizes: List[int]
    strides: List[int]
    def __init__(
        self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc, offsets: IntSequence,
        sizes: IntSequence, strides: IntSequence,
    ) -> None: ...

class Slice1Desc(_Desc):
    input_window_offsets: List[int]
    input_window_sizes: List[int]
    input_window_strides: List[int]
    def __init__(
        self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc, input_window_offsets: IntSequence,
        input_window_sizes: IntSequence, input_window_strides: IntSequence,
    ) -> None: ...

class PaddingDesc(_Desc):
    padding_mode: PaddingMode
    padding_value: float
    start_padding: List[int]
    end_padding: List[int]
    def __init__(
        self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc, padding_mode: Union[PaddingMode, str],
        padding_value: float, start_padding: IntSequence, end_padding: IntSequence,
    ) -> None: ...

class Padding1Desc(_Desc):
    padding_mode: PaddingMode
    padding_value_data_type: DataType
    padding_value: Union[int, float, bytes]
    @property
    def padding_value_bytes(self) -> bytes: ...
    start_padding: List[int]
    end_padding: List[int]
    def __init__(
        self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc, padding_mode: Union[PaddingMode, str],
        padding_value_data_type: DataTypeLike, padding_value: Union[int, float, np.generic, bytes],
        start_padding: IntSequence, end_padding: IntSequence,
    ) -> None: ...

class ElementWiseIdentityDesc(_Desc):
    scale_bias: Optional[Tuple[float, float]]
    def __init__(
        self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc,
        scale_bias: Optional[Tuple[float, float]] = None,
    ) -> None: ...

class SliceGradDesc(_Desc):
    input_gradient_tensor: BufferTensorDesc
    output_gradient_tensor: BufferTensorDesc
    input_window_offsets: List[int]
    input_window_sizes: List[int]
    input_window_strides: List[int]
    def __init__(
        self, input_gradient_tensor: BufferTensorDesc, output_gradient_tensor: BufferTensorDesc,
        input_window_offsets: IntSequence, input_window_sizes: IntSequence, input_window_strides: IntSequence,
    ) -> None: ...

Desc = Union[
    DepthToSpaceDesc, DepthToSpace1Desc, SpaceToDepthDesc, SpaceToDepth1Desc, SliceDesc, Slice1Desc, PaddingDesc,
    Padding1Desc, ElementWiseIdentityDesc, SliceGradDesc,
]

def validate(desc: Desc, feature_level: str = "6_4") -> Optional[str]: ...
def desc_from_dict(d: Dict[str, Any]) -> Desc: ...
def execute(desc: Desc, x: npt.ArrayLike, out: Optional[np.ndarray] = None, feature_level: str = "6_4") -> np.ndarray: ...
def depth_to_space(
    x: npt.ArrayLike, block: int, order: Union[str, DepthSpaceOrder] = "dcr", out: Optional[np.ndarray] = None
) -> np.ndarray: ...
def space_to_depth(
    x: npt.ArrayLike, block: int, order: Union[str, DepthSpaceOrder] = "dcr", out: Optional[np.ndarray] = None
) -> np.ndarray: ...
def slice(x: npt.ArrayLike, offsets: Ints, sizes: Ints, strides: Ints, out: Optional[np.ndarray] = None) -> np.ndarray: ...
def pad(
    x: npt.ArrayLike, start: Ints, end: Ints, mode: Union[str, PaddingMode] = "constant",
    value: Union[int, float, np.generic] = 0, out: Optional[np.ndarray] = None,
) -> np.ndarray: ...

class Mismatch:
    @property
    def coordinates(self) -> Tuple[int, ...]: ...
    @property
    def expected_bits(self) -> int: ...
    @property
    def actual_bits(self) -> int: ...
    @property
    def source(self) -> Optional[textbook.Source]: ...

class Region:
    @property
    def region(self) -> str: ...
    @property
    def mismatches(self) -> int: ...
    @property
    def elements(self) -> int: ...

class CompareReport:
    @property
    def equal(self) -> bool: ...
    @property
    def mismatches(self) -> int: ...
    @property
    def element_count(self) -> int: ...
    @property
    def data_type(self) -> DataType: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def first(self) -> List[Mismatch]: ...
    @property
    def axis_ranges(self) -> List[List[Tuple[int, int]]]: ...
    @property
    def op(self) -> str: ...
    @property
    def regions(self) -> List[Region]: ...

def compare(
    actual: npt.ArrayLike, expected: npt.ArrayLike, desc: Optional[Desc] = None, nan_equal: bool = False,
    max_listed: int = 10,
) -> CompareReport: ...

class Model:
    @property
    def file(self) -> str: ...
    @property
    def resources(self) -> Dict[str, np.ndarray]: ...
    @property
    def dispatchables(self) -> Dict[str, Desc]: ...
    @property
    def commands(self) -> List[Dict[str, Any]]: ...
    @property
    def log(self) -> str: ...
    def run(self, feature_level: str = "6_4") -> str: ...

def load_model(
    path: Union[str, os.PathLike], feature_level: str = "6_4", max_memory: Union[int, str, None] = None,
    allow_outside_paths: bool = False,
) -> Model: ...
def run_model(
    model: Union[Model, str, os.PathLike], feature_level: str = "6_4", max_memory: Union[int, str, None] = None,
    allow_outside_paths: bool = False,
) -> Model: ...
