"""The package as a user meets it: its names, type stubs, docstrings and version."""

import ast
import inspect
import re
from pathlib import Path

import dmlref

PACKAGE = Path(dmlref.__file__).resolve().parent
SOURCE = Path(__file__).resolve().parents[2]


def stub_names(name):
    tree = ast.parse((PACKAGE / name).read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets)
        elif isinstance(node, ast.ImportFrom) and node.module is None:
            names.update(a.asname or a.name for a in node.names)
    return {n for n in names if not n.startswith("_") or n == "__version__"}


def test_stubs_declare_every_public_name():
    declared = stub_names("__init__.pyi")
    assert set(dmlref.__all__) <= declared, set(dmlref.__all__) - declared
    typing_only = {"Desc", "DataTypeLike", "IntSequence", "Ints"}  # aliases for annotations
    assert declared - typing_only <= set(dmlref.__all__), declared - typing_only - set(dmlref.__all__)
    assert stub_names("textbook.pyi") - typing_only == set(dmlref.textbook.__all__)
    assert stub_names("testing.pyi") - typing_only == set(dmlref.testing.__all__)
    assert (PACKAGE / "py.typed").is_file()


def test_stub_signatures_match_the_functions():
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            stub = [a.arg for a in node.args.args]
            actual = list(inspect.signature(getattr(dmlref, node.name)).parameters)
            assert stub == actual, node.name


def test_every_public_function_and_class_is_documented():
    for name in dmlref.__all__:
        obj = getattr(dmlref, name)
        if callable(obj) or inspect.ismodule(obj):
            assert obj.__doc__ and len(obj.__doc__.strip()) > 20, name
    assert dmlref.testing.assert_bit_equal.__doc__ and dmlref.textbook.execute.__doc__


def test_help_shows_the_index_equations():
    assert "reflect    p = 2(n - 1), m = t mod p,  src = m if m < n else p - m" in dmlref.pad.__doc__
    assert str(inspect.signature(dmlref.pad)) == "(x, start, end, mode='constant', value=0, out=None)"
    assert "cd = c * B * B + bh * B + bw" in dmlref.depth_to_space.__doc__
    assert "out[o] = x[start + strides * o]" in dmlref.slice.__doc__


def test_version_is_the_projects():
    project = re.search(r"project\(dmlref VERSION ([0-9.]+)", (SOURCE / "CMakeLists.txt").read_text()).group(1)
    assert dmlref.__version__ == project
    assert dmlref.ValidationError.__module__ == "dmlref" and repr(dmlref.DataType.FLOAT16) == "<DataType.FLOAT16: 2>"
