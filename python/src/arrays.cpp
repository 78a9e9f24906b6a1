// numpy arrays as dmlref's views: any strides (negative and zero ones too), zero-copy, checked
// against the memory that owns them as dmlref checks its views; and the parsing of arguments.
#include "binding.hpp"

#include <algorithm>
#include <bit>
#include <utility>

namespace dmlref::python {

namespace {

/// [first, end) as addresses; first == end for nothing.
struct byte_range {
    std::ptrdiff_t first = 0, end = 0;
};

/// The bytes of the elements of an array at `data` (shape and byte strides as numpy keeps them),
/// or nothing where an address does not fit.
std::optional<byte_range> reach(const char* data, int ndim, const Py_ssize_t* shape, const Py_ssize_t* strides,
                                Py_ssize_t itemsize) {
    std::ptrdiff_t low = 0, high = 0;
    for (int i = 0; i < ndim; ++i) {
        if (shape[i] == 0) return byte_range{};
        const auto step = detail::checked_mul(std::ptrdiff_t{strides[i]}, std::ptrdiff_t{shape[i] - 1});
        if (!step) return std::nullopt;
        const auto moved = detail::checked_add(*step < 0 ? low : high, *step);
        if (!moved) return std::nullopt;
        (*step < 0 ? low : high) = *moved;
    }
    const auto at = static_cast<std::ptrdiff_t>(reinterpret_cast<std::intptr_t>(data));
    const auto first = detail::checked_add(at, low);
    const auto last = detail::checked_add(at, high);
    const auto end = last ? detail::checked_add(*last, std::ptrdiff_t{itemsize}) : std::nullopt;
    if (!first || !end) return std::nullopt;
    return byte_range{*first, *end};
}

std::optional<byte_range> reach_of(const py::array& a) {
    const auto* p = py::detail::array_proxy(a.ptr());
    return reach(p->data, p->nd, p->dimensions, p->strides, a.itemsize());
}

/// The memory of the object that owns `a`'s elements, and that object's type name: the base chain
/// is followed to an ndarray that owns its data (its own elements), an object that exports a
/// buffer (bytes, bytearray, mmap, memoryview: that buffer), or through numpy.lib.stride_tricks'
/// DummyArray (whose `base` is the array it was made from). A base that is none of these (a torch
/// tensor, a capsule) is foreign memory numpy was handed with its extent: the ndarray made over it
/// is the bound.
std::pair<std::optional<byte_range>, std::string> owner_of(const py::array& a) {
    py::array last = a;
    py::object current = a;
    for (int hops = 0; hops < 256; ++hops) {
        if (py::isinstance<py::array>(current)) {
            last = py::reinterpret_borrow<py::array>(current);
            py::object base = last.base();
            if (last.owndata() || base.is_none()) return {reach_of(last), "ndarray"};
            current = std::move(base);
            continue;
        }
        PyObject* object = current.ptr();
        if (PyObject_CheckBuffer(object)) {
            Py_buffer view;
            if (PyObject_GetBuffer(object, &view, PyBUF_SIMPLE) == 0) {
                const auto at = static_cast<std::ptrdiff_t>(reinterpret_cast<std::intptr_t>(view.buf));
                const auto end = detail::checked_add(at, std::ptrdiff_t{view.len});
                PyBuffer_Release(&view);
                return {end ? std::optional(byte_range{at, *end}) : std::nullopt, Py_TYPE(object)->tp_name};
            }
            PyErr_Clear();
            if (PyObject_GetBuffer(object, &view, PyBUF_RECORDS_RO) == 0) { // a strided exporter
                const auto r = reach(static_cast<const char*>(view.buf), view.ndim, view.shape, view.strides, view.itemsize);
                PyBuffer_Release(&view);
                return {r, Py_TYPE(object)->tp_name};
            }
            PyErr_Clear();
        }
        if (py::hasattr(current, "__array_interface__") && py::hasattr(current, "base")) {
            current = current.attr("base");
            continue;
        }
        break;
    }
    return {reach_of(last), "ndarray"};
}

std::string bytes_text(const py::array& a) {
    std::string shape, strides;
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
        shape += (i ? ", " : "") + std::to_string(a.shape(i));
        strides += (i ? ", " : "") + std::to_string(a.strides(i));
    }
    if (a.ndim() == 1) shape += ",", strides += ",";
    return "shape (" + shape + "), strides (" + strides + ")";
}

/// The layout of `a` in elements after the checks bind_input and bind_output share.
detail::layout layout_of_array(const py::array& a, std::string_view op, std::string_view name) {
    const py::ssize_t rank = a.ndim();
    if (rank < 1 || rank > static_cast<py::ssize_t>(detail::max_plan_rank))
        throw validation_error(detail::message("{}: {} has {} dimensions; dmlref's tensors have 1 to 8", op, name, rank));
    const py::ssize_t width = a.itemsize(); // 1, 2, 4 or 8: the dtype was checked
    const int shift = std::countr_zero(static_cast<std::size_t>(width));
    detail::layout l;
    l.rank = static_cast<std::size_t>(rank);
    for (std::size_t i = 0; i < l.rank; ++i) {
        const py::ssize_t stride = a.strides(static_cast<py::ssize_t>(i));
        if ((stride & (width - 1)) != 0)
            throw validation_error(detail::message("{}: {}.strides[{}] is {} bytes, not a whole number of its {}-byte "
                                                   "elements; dmlref's views step by whole elements",
                                                   op, name, i, stride, width));
        l.extents[i] = a.shape(static_cast<py::ssize_t>(i));
        l.strides[i] = stride >> shift; // exact: a multiple of the width, of either sign
    }
    check_memory(a, op, name);
    return l;
}

std::string dtype_text(const py::dtype& dtype) { return py::str(py::handle(dtype)).cast<std::string>(); }

} // namespace

void check_memory(const py::array& a, std::string_view op, std::string_view name) {
    // An array that owns its data (or has no base: memory handed to numpy with its extent) is
    // its own bound.
    if (a.owndata() || py::detail::array_proxy(a.ptr())->base == nullptr) return;
    const auto mine = reach_of(a);
    if (!mine)
        throw validation_error(detail::message("{}: {} ({}) reaches outside the address space", op, name, bytes_text(a)));
    if (mine->first == mine->end) return;
    const auto [owner, owner_name] = owner_of(a);
    if (owner && owner->first <= mine->first && mine->end <= owner->end) return;
    if (!owner)
        throw validation_error(detail::message("{}: the memory that owns {} ({}) reaches outside the address space", op,
                                               name, owner_name));
    throw validation_error(detail::message("{}: {} ({}) reaches bytes {} to {} of the {} bytes its owner ({}) holds; "
                                           "dmlref reads and writes only inside an array's memory "
                                           "(numpy.lib.stride_tricks.as_strided can point a view anywhere)",
                                           op, name, bytes_text(a), mine->first - owner->first,
                                           mine->end - owner->first, owner->end - owner->first, owner_name));
}

data_type data_type_of(const py::dtype& dtype, bool* swapped) { return data_type_of(dtype.ptr(), swapped); }

data_type data_type_of(PyObject* descr, bool* swapped) {
    const auto* d = py::detail::array_descriptor_proxy(descr);
    if (swapped) {
        constexpr char other = std::endian::native == std::endian::little ? '>' : '<';
        *swapped = d->byteorder == other;
    }
    if (d->subarray != nullptr || (d->fields != nullptr && d->fields != Py_None)) return data_type::unknown;
    switch (d->kind) {
    case 'f':
        return d->elsize == 2 ? data_type::float16 : d->elsize == 4 ? data_type::float32 : d->elsize == 8 ? data_type::float64
                                                                                                        : data_type::unknown;
    case 'i':
        return d->elsize == 1 ? data_type::int8 : d->elsize == 2 ? data_type::int16 : d->elsize == 4 ? data_type::int32
                   : d->elsize == 8                                                                     ? data_type::int64
                                                                                                        : data_type::unknown;
    case 'u':
        return d->elsize == 1 ? data_type::uint8 : d->elsize == 2 ? data_type::uint16 : d->elsize == 4 ? data_type::uint32
                   : d->elsize == 8                                                                       ? data_type::uint64
                                                                                                          : data_type::unknown;
    default: return data_type::unknown;
    }
}

py::dtype dtype_of(data_type type) {
    switch (type) {
    case data_type::float16: return py::dtype("float16");
    case data_type::float32: return py::dtype::of<float>();
    case data_type::float64: return py::dtype::of<double>();
    case data_type::uint8: return py::dtype::of<std::uint8_t>();
    case data_type::int8: return py::dtype::of<std::int8_t>();
    case data_type::uint16: return py::dtype::of<std::uint16_t>();
    case data_type::int16: return py::dtype::of<std::int16_t>();
    case data_type::uint32: return py::dtype::of<std::uint32_t>();
    case data_type::int32: return py::dtype::of<std::int32_t>();
    case data_type::uint64: return py::dtype::of<std::uint64_t>();
    case data_type::int64: return py::dtype::of<std::int64_t>();
    default: throw validation_error(detail::message("data type {} has no numpy dtype", to_string(type)));
    }
}

bound_array bind_input(py::handle obj, std::string_view op, std::string_view name) {
    bound_array b;
    if (py::isinstance<py::array>(obj)) {
        b.array = py::reinterpret_borrow<py::array>(obj);
    } else {
        b.array = py::array::ensure(obj);
        if (!b.array) throw py::error_already_set();
    }
    b.type = data_type_of(py::detail::array_proxy(b.array.ptr())->descr, &b.swapped);
    if (b.type == data_type::unknown)
        throw validation_error(detail::message("{}: {} has dtype {}; dmlref moves DirectML's eleven types: float16, "
                                               "float32, float64, int8 to int64, uint8 to uint64",
                                               op, name, dtype_text(b.array.dtype())));
    b.layout = layout_of_array(b.array, op, name);
    b.data = reinterpret_cast<std::byte*>(py::detail::array_proxy(b.array.ptr())->data);
    return b;
}

bound_array bind_output(py::handle out, const bound_array& like, data_type type, const detail::layout& extents,
                        std::string_view op) {
    if (!py::isinstance<py::array>(out))
        throw py::type_error(detail::message("{}: out must be a numpy.ndarray, not {}", op, Py_TYPE(out.ptr())->tp_name));
    bound_array b;
    b.array = py::reinterpret_borrow<py::array>(out);
    if (!b.array.writeable())
        throw validation_error(detail::message("{}: out is read-only (its WRITEABLE flag is off); dmlref writes the "
                                               "result into it",
                                               op));
    b.type = data_type_of(py::detail::array_proxy(b.array.ptr())->descr, &b.swapped);
    if (b.type != type || (element_size(type) > 1 && b.swapped != like.swapped))
        throw validation_error(detail::message("{}: out has dtype {}; the result has dtype {}", op,
                                               dtype_text(b.array.dtype()), dtype_text(like.array.dtype())));
    bool same = static_cast<std::size_t>(b.array.ndim()) == extents.rank;
    for (std::size_t i = 0; same && i < extents.rank; ++i) same = b.array.shape(static_cast<py::ssize_t>(i)) == extents.extents[i];
    if (!same) {
        detail::layout given;
        given.rank = static_cast<std::size_t>(std::min<py::ssize_t>(b.array.ndim(), 8));
        for (std::size_t i = 0; i < given.rank; ++i) given.extents[i] = b.array.shape(static_cast<py::ssize_t>(i));
        throw validation_error(detail::message("{}: out has shape {}; the result has shape {}", op,
                                               b.array.ndim() > 8 ? std::string("of more than 8 dimensions") : shape_text(given),
                                               shape_text(extents)));
    }
    b.layout = layout_of_array(b.array, op, "out");
    b.data = reinterpret_cast<std::byte*>(py::detail::array_proxy(b.array.ptr())->data);
    return b;
}

bound_array allocate_like(const bound_array& like, const detail::layout& extents) {
    bound_array b;
    // PyArray_NewFromDescr steals a reference to the descriptor.
    PyObject* descr = py::detail::array_proxy(like.array.ptr())->descr;
    Py_INCREF(descr);
    const auto& api = py::detail::npy_api::get();
    std::array<Py_intptr_t, detail::max_plan_rank> shape{};
    std::copy_n(extents.extents.begin(), extents.rank, shape.begin());
    b.array = py::reinterpret_steal<py::array>(api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, static_cast<int>(extents.rank),
                                                                          shape.data(), nullptr, nullptr, 0, nullptr));
    if (!b.array) throw py::error_already_set();
    b.type = like.type;
    b.swapped = like.swapped;
    b.layout = extents;
    pack(b.layout);
    b.data = reinterpret_cast<std::byte*>(py::detail::array_proxy(b.array.ptr())->data);
    return b;
}

void pack(detail::layout& layout) {
    std::ptrdiff_t stride = 1;
    for (std::size_t i = layout.rank; i-- > 0;) {
        layout.strides[i] = stride;
        stride = detail::checked_mul(stride, layout.extents[i]).value_or(0);
    }
}

void run(detail::copy_plan plan, const bound_array& in, const bound_array& out, std::string_view op, bool fresh) {
    const std::size_t width = element_size(in.type);
    if (!fresh) detail::throw_if(detail::check_disjoint(op, in.data, in.layout, out.data, out.layout, width));
    plan.input = in.data;
    plan.output = out.data;
    plan.width = width;
    if (in.swapped) std::reverse(plan.fill.begin(), plan.fill.begin() + static_cast<std::ptrdiff_t>(width));
    // The GIL released through CPython's own pair (pybind11's gil_scoped_release looks up its
    // thread state first: a tenth of a small call). The engine throws nothing.
    PyThreadState* const saved = PyEval_SaveThread();
    detail::execute(plan);
    PyEval_RestoreThread(saved);
}

feature_level parse_feature_level(py::handle level) {
    if (level.is_none()) return newest_feature_level;
    if (!py::isinstance<py::str>(level))
        throw py::type_error(detail::message("feature_level must be a string such as \"6_4\", not {}",
                                             Py_TYPE(level.ptr())->tp_name));
    std::string text = level.cast<std::string>();
    std::replace(text.begin(), text.end(), '.', '_');
    if (const auto parsed = dmlref::parse_feature_level(text)) return *parsed;
    throw validation_error(detail::message("feature_level \"{}\" is not one of DirectML's: 1_0, 2_0, 2_1, 3_0, 3_1, 4_0, "
                                           "4_1, 5_0, 5_1, 5_2, 6_0, 6_1, 6_2, 6_3, 6_4",
                                           level.cast<std::string>()));
}

std::int64_t to_int(py::handle obj, std::string_view op, std::string_view name, std::ptrdiff_t item) {
    PyObject* number = obj.ptr();
    py::object index;
    // "op: name[item]", or `op` alone where the caller names the field there (built on failure only).
    auto subject = [&] {
        std::string text(op);
        if (!name.empty()) text += detail::message(": {}", name);
        if (item >= 0) text += detail::message("[{}]", item);
        return text;
    };
    if (!PyLong_Check(number)) {
        if (PyFloat_Check(number) || !PyIndex_Check(number))
            throw py::type_error(detail::message("{} must be an integer, not {}", subject(), Py_TYPE(number)->tp_name));
        index = py::reinterpret_steal<py::object>(PyNumber_Index(number));
        if (!index) throw py::error_already_set();
        number = index.ptr();
    }
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (overflow != 0)
        throw validation_error(detail::message("{} is {}; it does not fit in a signed 64-bit integer", subject(),
                                               py::str(obj).cast<std::string>()));
    if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
    return value;
}

std::array<std::ptrdiff_t, detail::max_plan_rank> int_list(py::handle obj, std::size_t rank, std::string_view op,
                                                            std::string_view name) {
    std::array<std::ptrdiff_t, detail::max_plan_rank> values{};
    if (PyLong_Check(obj.ptr()) || (PyIndex_Check(obj.ptr()) && !PySequence_Check(obj.ptr()))) {
        values.fill(to_int(obj, op, name));
        return values;
    }
    const auto sequence = py::reinterpret_steal<py::object>(PySequence_Fast(obj.ptr(), ""));
    if (!sequence) {
        PyErr_Clear();
        throw py::type_error(detail::message("{}: {} must be a sequence of integers (one per axis) or one integer, not {}",
                                             op, name, Py_TYPE(obj.ptr())->tp_name));
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence.ptr());
    if (n != static_cast<Py_ssize_t>(rank))
        throw validation_error(detail::message("{}: {} has {} entries; x has {} dimensions", op, name, n, rank));
    PyObject** items = PySequence_Fast_ITEMS(sequence.ptr());
    for (Py_ssize_t i = 0; i < n; ++i)
        values[static_cast<std::size_t>(i)] = to_int(items[i], op, name, i);
    return values;
}

std::string shape_text(const detail::layout& layout) {
    std::string text = "(";
    for (std::size_t i = 0; i < layout.rank; ++i) text += (i ? ", " : "") + std::to_string(layout.extents[i]);
    return text + (layout.rank == 1 ? ",)" : ")");
}

data_type parse_data_type(py::handle obj, std::string_view what) {
    if (py::isinstance<data_type>(obj)) return obj.cast<data_type>();
    if (py::isinstance<py::str>(obj)) {
        if (const auto parsed = dmlref::parse_data_type(obj.cast<std::string>())) return *parsed;
    }
    py::dtype dtype;
    try {
        dtype = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
    } catch (const py::error_already_set&) {
        throw validation_error(detail::message("{} is {}; it must be a DataType, DirectML's name of one (\"FLOAT16\") "
                                               "or a numpy dtype",
                                               what, py::repr(obj).cast<std::string>()));
    }
    const data_type type = data_type_of(dtype);
    if (type == data_type::unknown)
        throw validation_error(detail::message("{} is the numpy dtype {}, which is none of DirectML's eleven types", what,
                                               dtype_text(dtype)));
    return type;
}

} // namespace dmlref::python

namespace dmlref::python {

PyObject* validation_error_type = nullptr;

PyObject* raise_current() noexcept {
    try {
        throw;
    } catch (py::error_already_set& e) {
        e.restore();
    } catch (const py::builtin_exception& e) {
        e.set_error();
    } catch (const validation_error& e) {
        PyErr_SetString(validation_error_type, e.what());
    } catch (const std::bad_alloc&) {
        PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "dmlref: an unknown C++ exception");
    }
    return nullptr;
}

} // namespace dmlref::python
