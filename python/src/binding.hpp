#pragma once
// What the module's translation units share: numpy arrays bound to an operator's two sides (their
// data type, element 0 and layout in elements, after the checks that keep dmlref inside their
// memory), and the parsing of the arguments every function takes.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <dmlref/dmlref.hpp>

namespace dmlref::python {

namespace py = pybind11;

/// A numpy array bound to one side of an operator: its data type, element 0 and its layout in
/// elements. `array` keeps it alive.
struct bound_array {
    /// Null until bound (pybind11's default py::array would allocate an empty numpy array: two of
    /// those were a fifth of a small call's time).
    py::array array = py::reinterpret_steal<py::array>(py::handle());
    data_type type = data_type::unknown;
    bool swapped = false; ///< its bytes are in the other byte order than this machine's
    std::byte* data = nullptr;
    detail::layout layout;
};

/// The numpy dtype of a data type (native byte order).
py::dtype dtype_of(data_type type);

/// `obj` (an ndarray, or anything numpy.asarray takes, which copies it) bound as an input:
/// its dtype one of DirectML's eleven, 1 to 8 dimensions, strides that are whole elements, and
/// every element it reaches inside the memory of the object that owns it. Throws validation_error
/// naming `op` and `name` otherwise. Never written.
bound_array bind_input(py::handle obj, std::string_view op, std::string_view name);

/// `out` bound as an output of `type` and `extents`: an ndarray (never converted), writeable,
/// of that data type in `like`'s byte order, of those extents, inside its memory.
bound_array bind_output(py::handle out, const bound_array& like, data_type type,
                        const detail::layout& extents, std::string_view op);

/// A new C-order array of `extents` with `like`'s dtype (its byte order too).
bound_array allocate_like(const bound_array& like, const detail::layout& extents);

/// Checks that every byte `a` reaches lies inside the memory of the object that owns it (an
/// owning ndarray, a buffer such as bytes, bytearray, mmap or memoryview); numpy.lib.stride_tricks
/// can point an array anywhere. Throws validation_error naming `op` and `name`.
void check_memory(const py::array& a, std::string_view op, std::string_view name);

/// Packed row-major strides for the first `layout.rank` extents.
void pack(detail::layout& layout);

/// Runs `plan` from `in` to `out` with the GIL released. `fill` is the little-endian fill value;
/// where the arrays are in the other byte order it is reversed first. Checks the two do not
/// overlap unless `fresh` (a new output).
void run(detail::copy_plan plan, const bound_array& in, const bound_array& out, std::string_view op, bool fresh);

/// A value's little-endian bytes in `type` (PADDING1's value, pad's): a numpy scalar (or 0-d
/// array) of that type gives its bits (NaN payloads kept); a number converts as numpy converts it,
/// except that an integer type takes only integers in its range. `op` starts the messages.
std::array<std::byte, 8> value_bytes(py::handle value, data_type type, std::string_view op);

/// A feature level: "6_4", "6.4", "DML_FEATURE_LEVEL_6_4".
feature_level parse_feature_level(py::handle level);

/// One integer argument (a Python int, numpy integer or anything with __index__); messages call it
/// "op: name", with "[item]" where item >= 0 (and no ": name" where name is empty).
std::int64_t to_int(py::handle obj, std::string_view op, std::string_view name, std::ptrdiff_t item = -1);

/// `rank` integers: a sequence of that length, or one integer for every axis.
std::array<std::ptrdiff_t, detail::max_plan_rank> int_list(py::handle obj, std::size_t rank, std::string_view op,
                                                            std::string_view name);

/// "(1, 2, 3)": extents as numpy writes a shape.
std::string shape_text(const detail::layout& layout);

/// A data type named by a DataType member, DirectML's name ("FLOAT16", "DML_TENSOR_DATA_TYPE_FLOAT16")
/// or anything numpy.dtype takes (numpy.float16, "float16", "<f2").
data_type parse_data_type(py::handle obj, std::string_view what);

/// The data type of a numpy dtype, and whether its bytes are in the other byte order; unknown for
/// types dmlref does not move.
data_type data_type_of(const py::dtype& dtype, bool* swapped = nullptr);
/// The same for a numpy array descriptor (PyArray_Descr*), with no new reference.
data_type data_type_of(PyObject* descr, bool* swapped = nullptr);

/// dmlref.ValidationError (a ValueError): what validation_error becomes in Python.
extern PyObject* validation_error_type;

/// Sets the Python error for the C++ exception being handled (call it in a catch block) and
/// returns nullptr: for the functions added outside pybind11's dispatcher, whose translators do
/// not run for them.
PyObject* raise_current() noexcept;

/// The module's parts.
void init_descs(py::module_& m);
void init_ops(py::module_& m);
void init_verify(py::module_& m);

} // namespace dmlref::python
