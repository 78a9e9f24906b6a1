"""The audit path: operators evaluated one output element at a time from the documented index
equations (dmlref::textbook in C++), with no copy engine. execute() takes what dmlref.execute
takes and returns the same bits; source_of() names the input element behind one output element."""

from ._dmlref import textbook as _textbook

Source = _textbook.Source
execute = _textbook.execute
source_of = _textbook.source_of

__all__ = ["Source", "execute", "source_of"]
