#!/bin/sh
# python.pip_install: the module built and installed as a user does it on Debian 12, then its
# suite run against the installed copy from outside the source tree.
#   pip_install.sh PYTHON SOURCE_DIR WORK_DIR
# Debian's pip refuses to install into the system's Python (PEP 668), so the install goes into a
# venv; --system-site-packages lets it see Debian's numpy, pybind11, setuptools, wheel and pytest,
# and --no-build-isolation has pip build with them: nothing is downloaded (--no-index).
set -eu
python=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
# setuptools' build folder (and egg-info) in the work folder rather than in python/. The wheel is
# built first; the install then finds the extension built and does not compile it again.
export DMLREF_BUILD_BASE="$work/build"
"$work/venv/bin/pip" wheel --no-build-isolation --no-index --no-deps --wheel-dir "$work/wheels" "$source/python"
ls "$work/wheels"/dmlref-*.whl
"$work/venv/bin/pip" install --no-build-isolation --no-index "$source/python"
cd "$work"
"$work/venv/bin/python" -c 'import dmlref, sys
assert dmlref.__file__.startswith(sys.prefix), dmlref.__file__
print("dmlref", dmlref.__version__, "imported from", dmlref.__file__)'
exec "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$source/python/tests"
