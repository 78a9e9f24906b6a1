"""Builds dmlref._dmlref from the source tree around this folder: the library's compiled mode
(src/dmlref.cpp), the command-line tool's model reader (tools/model*.cpp) and the bindings
(python/src), compiled once each. Needs a C++20 compiler, fmt and nlohmann-json (Debian:
libfmt-dev, nlohmann-json3-dev) besides pybind11 and numpy."""

import os
import re
import sys
from pathlib import Path

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

here = Path(__file__).resolve().parent
root = here.parent
if not (root / "include" / "dmlref" / "dmlref.hpp").is_file():
    sys.exit("dmlref's Python package builds from the dmlref source tree: python/ must sit in it")

version = re.search(r"project\(dmlref VERSION ([0-9.]+)", (root / "CMakeLists.txt").read_text()).group(1)

# The sources compile in parallel: DMLREF_BUILD_JOBS jobs (default: one per processor).
ParallelCompile("DMLREF_BUILD_JOBS").install()

# Paths relative to this folder, as setuptools requires (it runs with this folder as its own).
os.chdir(here)
# The model reader's sources: the list tools/model_sources.cmake gives CMake.
model_sources = re.search(r"set\(dmlref_model_sources\s([^)]*)\)", (root / "tools" / "model_sources.cmake").read_text()).group(1).split()
sources = ["../src/dmlref.cpp"] + [f"../tools/{name}" for name in model_sources] + sorted(f"src/{p.name}" for p in (here / "src").glob("*.cpp"))
extension = Pybind11Extension(
    "dmlref._dmlref",
    sources,
    include_dirs=["../include", "../tools"],
    define_macros=[("DMLREF_COMPILED", None), ("DMLREF_VERSION", f'"{version}"')],
    libraries=["fmt"],
    cxx_std=20,
    # -O3 as the CMake Release build compiles the engine; -g0 over Python's -g keeps the objects small.
    extra_compile_args=["-O3", "-g0"],
)

# DMLREF_BUILD_BASE puts setuptools' build folder and egg-info elsewhere than python/.
build_base = os.environ.get("DMLREF_BUILD_BASE")
options = {}
if build_base:
    os.makedirs(build_base, exist_ok=True)
    options = {"build": {"build_base": build_base}, "egg_info": {"egg_base": build_base}}
setup(
    version=version,
    packages=["dmlref"],
    package_data={"dmlref": ["*.pyi", "py.typed"]},
    ext_modules=[extension],
    cmdclass={"build_ext": build_ext},
    options=options,
)
