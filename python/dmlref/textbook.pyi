from typing import Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from . import Desc

class Source:
    @property
    def is_padding_constant(self) -> bool: ...
    @property
    def coordinates(self) -> Optional[Tuple[int, ...]]: ...

def execute(desc: Desc, x: npt.ArrayLike, out: Optional[np.ndarray] = None, feature_level: str = "6_4") -> np.ndarray: ...
def source_of(desc: Desc, coordinate: Sequence[int], feature_level: str = "6_4") -> Source: ...
