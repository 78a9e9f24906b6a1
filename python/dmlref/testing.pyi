from typing import Optional

import numpy.typing as npt

from . import Desc

def assert_bit_equal(
    actual: npt.ArrayLike, expected: npt.ArrayLike, desc: Optional[Desc] = None, *, nan_equal: bool = False,
    max_listed: int = 10,
) -> None: ...
