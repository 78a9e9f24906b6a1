// dmlref._dmlref: the extension module under the dmlref package (python/dmlref/__init__.py).
#include "binding.hpp"

#ifndef DMLREF_VERSION
#error "the build defines DMLREF_VERSION (CMake's project version)"
#endif

PYBIND11_MODULE(_dmlref, m) {
    namespace py = pybind11;
    // Each docstring starts with its signature in CPython's form, which help() and inspect read;
    // pybind11's own would name the C++ types (`handle`).
    py::options options;
    options.disable_function_signatures();
    m.doc() = "dmlref: the CPU golden reference for DirectML's data-movement operators, on numpy arrays.";
    auto& error = py::register_exception<dmlref::validation_error>(m, "ValidationError", PyExc_ValueError);
    error.attr("__doc__") = "dmlref::validation_error: an argument DirectML or dmlref rejects. The message names the "
                            "operator, the field, the axis and the values, word for word the C++ library's.";
    dmlref::python::validation_error_type = error.ptr();
    m.attr("__version__") = DMLREF_VERSION;
    m.attr("FEATURE_LEVELS") = py::make_tuple("1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2", "6_0",
                                              "6_1", "6_2", "6_3", "6_4");
    dmlref::python::init_descs(m);
    dmlref::python::init_ops(m);
    dmlref::python::init_verify(m);
}
