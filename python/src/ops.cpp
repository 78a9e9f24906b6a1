// The operators on numpy arrays: the direct functions in numpy's style (depth_to_space,
// space_to_depth, slice, pad), execute(desc, x) over DirectML's descs, and the textbook evaluator.
// Each checks as the C++ library does, with its messages, and runs dmlref's one copy engine with
// the GIL released.
#include "binding.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <variant>

#include <pybind11/stl.h>

#include <dmlref/textbook.hpp>

namespace dmlref::python {

std::array<std::byte, 8> value_bytes(py::handle given, data_type type, std::string_view op) {
    std::array<std::byte, 8> bytes{};
    const std::size_t width = element_size(type);
    auto put = [&](auto v) { std::memcpy(bytes.data(), &v, sizeof(v)); };
    py::object value = py::reinterpret_borrow<py::object>(given);
    if (!PyLong_Check(value.ptr()) && !PyFloat_Check(value.ptr()) && py::hasattr(value, "dtype") &&
        py::hasattr(value, "tobytes") && py::hasattr(value, "item")) {
        bool swapped = false;
        if (py::len(value.attr("shape")) == 0 && data_type_of(value.attr("dtype").cast<py::dtype>(), &swapped) == type) {
            const std::string raw = value.attr("tobytes")().cast<std::string>();
            std::memcpy(bytes.data(), raw.data(), width);
            if (swapped) std::reverse(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(width));
            return bytes;
        }
        value = value.attr("item")();
    }
    const bool floating = type == data_type::float16 || type == data_type::float32 || type == data_type::float64;
    const std::string shown = py::repr(value).cast<std::string>();
    auto put_float = [&](double v) {
        if (type == data_type::float16) put(half_bits_from_double(v));
        else if (type == data_type::float32) put(static_cast<float>(v));
        else put(v);
    };
    auto out_of_range = [&](const char* range) {
        return validation_error(detail::message("{}: value {} does not fit {} ({})", op, shown, to_string(type), range));
    };
    // An integer's sign and magnitude, for the integer types' ranges.
    bool negative = false;
    unsigned long long magnitude = 0;
    if (PyFloat_Check(value.ptr())) {
        const double v = PyFloat_AS_DOUBLE(value.ptr());
        if (floating) {
            put_float(v);
            return bytes;
        }
        if (!std::isfinite(v) || v != std::trunc(v))
            throw validation_error(detail::message("{}: value {} is not an integer, and the tensor is {}", op, shown,
                                                   to_string(type)));
        if (std::fabs(v) >= 18446744073709551616.0) throw out_of_range("outside 64 bits");
        negative = v < 0;
        magnitude = static_cast<unsigned long long>(std::fabs(v));
    } else if (PyIndex_Check(value.ptr())) {
        const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
        if (!index) throw py::error_already_set();
        if (floating) {
            const double v = PyLong_AsDouble(index.ptr());
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                throw out_of_range("beyond a double");
            }
            put_float(v);
            return bytes;
        }
        negative = PyObject_RichCompareBool(index.ptr(), py::int_(0).ptr(), Py_LT) == 1;
        const auto absolute = py::reinterpret_steal<py::object>(PyNumber_Absolute(index.ptr()));
        magnitude = PyLong_AsUnsignedLongLong(absolute.ptr());
        if (magnitude == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
            PyErr_Clear();
            throw out_of_range("outside 64 bits");
        }
    } else {
        throw py::type_error(detail::message("{}: value must be a number, not {}", op, Py_TYPE(value.ptr())->tp_name));
    }
    auto fit = [&](auto zero, const char* range) {
        using T = decltype(zero);
        using U = std::make_unsigned_t<T>;
        const auto most = static_cast<unsigned long long>(std::numeric_limits<T>::max());
        if (negative) {
            if constexpr (std::is_unsigned_v<T>) {
                if (magnitude != 0) throw out_of_range(range);
            } else {
                if (magnitude > most + 1) throw out_of_range(range);
            }
            put(static_cast<T>(static_cast<U>(0ull - magnitude)));
        } else {
            if (magnitude > most) throw out_of_range(range);
            put(static_cast<T>(magnitude));
        }
    };
    switch (type) {
    case data_type::uint8: fit(std::uint8_t{}, "0 to 255"); break;
    case data_type::int8: fit(std::int8_t{}, "-128 to 127"); break;
    case data_type::uint16: fit(std::uint16_t{}, "0 to 65535"); break;
    case data_type::int16: fit(std::int16_t{}, "-32768 to 32767"); break;
    case data_type::uint32: fit(std::uint32_t{}, "0 to 4294967295"); break;
    case data_type::int32: fit(std::int32_t{}, "-2147483648 to 2147483647"); break;
    case data_type::uint64: fit(std::uint64_t{}, "0 to 18446744073709551615"); break;
    case data_type::int64: fit(std::int64_t{}, "-9223372036854775808 to 9223372036854775807"); break;
    default: break;
    }
    return bytes;
}

namespace {

/// ASCII `text` in lower case (numpy's names, "dcr") or upper case (DirectML's, "COLUMN_ROW_DEPTH").
std::string in_case(std::string text, bool upper) {
    const char from = upper ? 'a' : 'A', to = upper ? 'A' : 'a';
    for (char& c : text) c = static_cast<char>(c >= from && c <= from + 25 ? c - from + to : c);
    return text;
}

depth_space_order parse_order(py::handle order, std::string_view op) {
    if (!order) return depth_space_order::depth_column_row; // not given
    if (py::isinstance<depth_space_order>(order)) return order.cast<depth_space_order>();
    if (py::isinstance<py::str>(order)) {
        const std::string text = order.cast<std::string>();
        if (in_case(text, false) == "dcr") return depth_space_order::depth_column_row;
        if (in_case(text, false) == "crd") return depth_space_order::column_row_depth;
        if (const auto parsed = parse_depth_space_order(in_case(text, true))) return *parsed;
    }
    throw validation_error(detail::message("{}: order is {}; it must be \"dcr\" (DEPTH_COLUMN_ROW, ONNX's DCR) or \"crd\" "
                                           "(COLUMN_ROW_DEPTH, ONNX's CRD, PyTorch's pixel_shuffle)",
                                           op, py::repr(order).cast<std::string>()));
}

padding_mode parse_mode(py::handle mode, std::string_view op) {
    if (!mode) return padding_mode::constant; // not given
    if (py::isinstance<padding_mode>(mode)) return mode.cast<padding_mode>();
    if (py::isinstance<py::str>(mode)) { // numpy's names, or DirectML's in either case
        const std::string text = mode.cast<std::string>();
        if (in_case(text, false) == "reflect") return padding_mode::reflection;
        if (const auto parsed = parse_padding_mode(in_case(text, true))) return *parsed;
    }
    throw validation_error(detail::message("{}: mode is {}; DirectML pads in the modes \"constant\", \"edge\", \"reflect\" "
                                           "(REFLECTION), \"symmetric\" and \"wrap\"",
                                           op, py::repr(mode).cast<std::string>()));
}

/// The output of a direct function: `out` checked, or a new array. `want` holds the result's
/// extents, each at least 1, so that the op's check (run on a packed layout of them before
/// anything is allocated) names any parameter that is wrong; a new array is laid out as `want`,
/// so only `out` needs the check again.
bound_array output_for(py::handle out, const bound_array& in, const detail::layout& want, std::string_view op) {
    if (out.is_none()) return allocate_like(in, want);
    return bind_output(out, in, in.type, want, op);
}

py::array depth_space(depth_space_direction direction, const char* op, py::handle x, py::handle block, py::handle order,
                      py::handle out) {
    const bound_array in = bind_input(x, op, "x");
    const std::int64_t b = to_int(block, op, "block");
    const depth_space_order o = parse_order(order, op);
    if (in.layout.rank != 4)
        throw validation_error(detail::message("{}: x has {} dimensions; {} takes 4 (N, C, H, W)", op, in.layout.rank, op));
    detail::layout want = in.layout;
    const auto square = detail::checked_mul(b, b);
    const auto& n = in.layout.extents;
    auto times = [](std::ptrdiff_t a, std::int64_t f) { return detail::checked_mul(a, f).value_or(1); };
    if (b >= 1 && square) {
        if (direction == depth_space_direction::depth_to_space)
            want.extents = {n[0], std::max<std::ptrdiff_t>(n[1] / *square, 1), times(n[2], b), times(n[3], b)};
        else
            want.extents = {n[0], times(n[1], *square), std::max<std::ptrdiff_t>(n[2] / b, 1),
                            std::max<std::ptrdiff_t>(n[3] / b, 1)};
    }
    pack(want);
    detail::throw_if(detail::check_depth_space(op, direction, in.layout, want, b, o));
    const bound_array result = output_for(out, in, want, op);
    if (!out.is_none()) detail::throw_if(detail::check_depth_space(op, direction, in.layout, result.layout, b, o));
    run(detail::plan_depth_space(direction, in.layout, result.layout, b, o), in, result, op, out.is_none());
    return result.array;
}

py::array slice(py::handle x, py::handle offsets, py::handle sizes, py::handle strides, py::handle out) {
    constexpr const char* op = "slice";
    const bound_array in = bind_input(x, op, "x");
    const auto o = int_list(offsets, in.layout.rank, op, "offsets");
    const auto s = int_list(sizes, in.layout.rank, op, "sizes");
    const auto t = int_list(strides, in.layout.rank, op, "strides");
    detail::layout want = in.layout;
    for (std::size_t i = 0; i < want.rank; ++i) {
        const std::uint64_t magnitude = detail::checked_magnitude(t[i]);
        const auto steps = magnitude == 1 ? static_cast<std::uint64_t>(s[i] - 1) : static_cast<std::uint64_t>(s[i] - 1) / magnitude;
        want.extents[i] = magnitude == 0 || s[i] < 1 ? 1 : 1 + static_cast<std::ptrdiff_t>(steps);
    }
    pack(want);
    const std::span<const std::ptrdiff_t> so(o.data(), in.layout.rank), ss(s.data(), in.layout.rank),
        st(t.data(), in.layout.rank);
    detail::throw_if(detail::check_slice1(op, in.layout, want, so, ss, st));
    const bound_array result = output_for(out, in, want, op);
    if (!out.is_none()) detail::throw_if(detail::check_slice1(op, in.layout, result.layout, so, ss, st));
    run(detail::plan_slice1(in.layout, result.layout, so, ss, st), in, result, op, out.is_none());
    return result.array;
}

py::array pad(py::handle x, py::handle start, py::handle end, py::handle mode, py::handle value, py::handle out) {
    constexpr const char* op = "pad";
    const bound_array in = bind_input(x, op, "x");
    const auto a = int_list(start, in.layout.rank, op, "start");
    const auto e = int_list(end, in.layout.rank, op, "end");
    const padding_mode m = parse_mode(mode, op);
    // Not given, the value is 0: zero bytes in every type.
    const auto fill = m == padding_mode::constant && value ? value_bytes(value, in.type, op) : std::array<std::byte, 8>{};
    detail::layout want = in.layout;
    for (std::size_t i = 0; i < want.rank; ++i) {
        const auto padded = detail::checked_add(in.layout.extents[i], a[i]);
        const auto total = padded ? detail::checked_add(*padded, e[i]) : std::nullopt;
        want.extents[i] = total && *total >= 1 ? *total : 1;
    }
    pack(want);
    const std::span<const std::ptrdiff_t> sa(a.data(), in.layout.rank), se(e.data(), in.layout.rank);
    detail::throw_if(detail::check_padding(op, in.layout, want, m, sa, se));
    const bound_array result = output_for(out, in, want, op);
    if (!out.is_none()) detail::throw_if(detail::check_padding(op, in.layout, result.layout, m, sa, se));
    std::vector<std::ptrdiff_t> tables;
    detail::copy_plan plan = detail::plan_padding(in.layout, result.layout, m, sa, se, tables);
    plan.fill = fill;
    run(plan, in, result, op, out.is_none());
    return result.array;
}

// ---- descs ------------------------------------------------------------------------------------

const buffer_tensor_desc& input_of(const operator_desc& desc) {
    return std::visit(single_tensor_only{"the Python module", [](const auto& d) -> const buffer_tensor_desc& { return d.input_tensor; }}, desc);
}
const buffer_tensor_desc& output_of(const operator_desc& desc) {
    return std::visit(single_tensor_only{"the Python module", [](const auto& d) -> const buffer_tensor_desc& { return d.output_tensor; }}, desc);
}

bool has_sizes(const py::array& a, const buffer_tensor_desc& t) {
    if (static_cast<std::size_t>(a.ndim()) != t.sizes.size()) return false;
    for (std::size_t i = 0; i < t.sizes.size(); ++i)
        if (a.shape(static_cast<py::ssize_t>(i)) != static_cast<py::ssize_t>(t.sizes[i])) return false;
    return true;
}

std::string sizes_text(const buffer_tensor_desc& t) {
    detail::layout l;
    l.rank = std::min<std::size_t>(t.sizes.size(), detail::max_plan_rank);
    for (std::size_t i = 0; i < l.rank; ++i) l.extents[i] = t.sizes[i];
    return shape_text(l);
}

/// One side of execute(desc, ...): an array of the tensor's Sizes is the tensor itself (any
/// strides); anything else is the buffer bound to it, C-contiguous, of its type or uint8 bytes,
/// holding TotalTensorSizeInBytes, read through the desc's own strides.
struct desc_side {
    bound_array array;
    bool buffer = false;
};

desc_side bind_side(bound_array b, const buffer_tensor_desc& t, std::string_view op, std::string_view name,
                    std::string_view field) {
    desc_side side;
    if (has_sizes(b.array, t)) {
        if (b.type != t.data_type)
            throw validation_error(detail::message("{}: {} has dtype {} ({}); {}.DataType is {}", op, name,
                                                   py::str(py::handle(b.array.dtype())).cast<std::string>(), to_string(b.type), field,
                                                   to_string(t.data_type)));
        side.array = std::move(b);
        return side;
    }
    side.buffer = true;
    if (!(py::detail::array_proxy(b.array.ptr())->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_))
        throw validation_error(detail::message("{}: {} has shape {}, not {}.Sizes {}; as the buffer bound to {} it must be "
                                               "C-contiguous",
                                               op, name, py::str(b.array.attr("shape")).cast<std::string>(), field,
                                               sizes_text(t), field));
    if (b.type != t.data_type && b.type != data_type::uint8)
        throw validation_error(detail::message("{}: {} has shape {}, not {}.Sizes {}, and dtype {}; as the buffer bound to "
                                               "{} it holds {} elements or uint8 bytes",
                                               op, name, py::str(b.array.attr("shape")).cast<std::string>(), field,
                                               sizes_text(t), py::str(py::handle(b.array.dtype())).cast<std::string>(), field,
                                               to_string(t.data_type)));
    if (b.swapped)
        throw validation_error(detail::message("{}: {} is a buffer in the other byte order; a buffer bound to {} holds "
                                               "DirectML's little-endian bytes",
                                               op, name, field));
    const auto bytes = static_cast<std::uint64_t>(b.array.nbytes());
    if (bytes < t.total_tensor_size_in_bytes)
        throw validation_error(detail::message("{}: the buffer {} (shape {}) holds {} bytes; {}.TotalTensorSizeInBytes is {}",
                                               op, name, py::str(b.array.attr("shape")).cast<std::string>(), bytes, field,
                                               t.total_tensor_size_in_bytes));
    const auto address = reinterpret_cast<std::uintptr_t>(b.data);
    if (const std::uint32_t a = t.guaranteed_base_offset_alignment; a != 0 && address % a != 0)
        throw validation_error(detail::message("{}: the buffer {} starts at {:#x}, which is not a multiple of "
                                               "{}.GuaranteedBaseOffsetAlignment = {}",
                                               op, name, address, field, a));
    b.type = t.data_type;
    b.layout = detail::layout_of(t);
    side.array = std::move(b);
    return side;
}

/// A new output for `desc`: its tensor (C order, `like`'s byte order) where OutputTensor has no
/// Strides, else a zeroed buffer of TotalTensorSizeInBytes.
desc_side new_output(const buffer_tensor_desc& t, const bound_array& like) {
    desc_side side;
    const std::size_t width = element_size(t.data_type);
    if (!t.strides) {
        bound_array typed = like;
        if (data_type_of(like.array.dtype()) != t.data_type) {
            typed.array = py::array(dtype_of(t.data_type), std::vector<py::ssize_t>{1});
            typed.swapped = false;
        }
        side.array = allocate_like(typed, detail::layout_of(t));
        side.array.type = t.data_type;
        return side;
    }
    side.buffer = true;
    const auto count = static_cast<py::ssize_t>((t.total_tensor_size_in_bytes + width - 1) / width);
    py::array zeros = py::module_::import("numpy").attr("zeros")(count, dtype_of(t.data_type));
    side.array.array = zeros;
    side.array.type = t.data_type;
    side.array.data = reinterpret_cast<std::byte*>(py::detail::array_proxy(zeros.ptr())->data);
    side.array.layout = detail::layout_of(t);
    return side;
}

std::pair<desc_side, desc_side> bind_desc(const operator_desc& desc, py::handle x, py::handle out, std::string_view op) {
    const buffer_tensor_desc& in_t = input_of(desc);
    const buffer_tensor_desc& out_t = output_of(desc);
    desc_side in = bind_side(bind_input(x, op, "x"), in_t, op, "x", "InputTensor");
    desc_side result;
    if (out.is_none()) {
        result = new_output(out_t, in.array);
    } else {
        if (!py::isinstance<py::array>(out))
            throw py::type_error(detail::message("{}: out must be a numpy.ndarray, not {}", op, Py_TYPE(out.ptr())->tp_name));
        const auto o = py::reinterpret_borrow<py::array>(out);
        if (!o.writeable())
            throw validation_error(detail::message("{}: out is read-only (its WRITEABLE flag is off); dmlref writes the "
                                                   "result into it",
                                                   op));
        result = bind_side(bind_input(out, op, "out"), out_t, op, "out", "OutputTensor");
        if (!result.buffer && element_size(out_t.data_type) > 1 && result.array.swapped != in.array.swapped)
            throw validation_error(detail::message("{}: x and out are in different byte orders; dmlref moves bytes", op));
    }
    return {std::move(in), std::move(result)};
}

py::array execute_desc(const operator_desc& desc, py::handle x, py::handle out, py::handle level) {
    const feature_level fl = parse_feature_level(level);
    const std::string op(to_string(type_of(desc)));
    detail::throw_if(validate(desc, fl));
    auto [in, result] = bind_desc(desc, x, out, op);
    if (in.buffer && result.buffer) { // DirectML's own form: the library's desc-level entry, as it is
        const std::span<const std::byte> input(in.array.data, static_cast<std::size_t>(in.array.array.nbytes()));
        const std::span<std::byte> output(result.array.data, static_cast<std::size_t>(result.array.array.nbytes()));
        py::gil_scoped_release released;
        dmlref::execute(desc, input, output, fl);
    } else {
        std::visit(single_tensor_only{"the Python module",
            [&](const auto& d) {
                detail::throw_if(detail::check_layout(op, "InputTensor", in.array.layout, false));
                detail::throw_if(detail::check_layout(op, "OutputTensor", result.array.layout, true));
                std::vector<std::ptrdiff_t> tables;
                run(detail::plan_desc(d, in.array.layout, result.array.layout, tables), in.array, result.array, op,
                    out.is_none());
            }},
            desc);
    }
    return result.array.array;
}

/// `desc` with the tensor of a side given as a tensor (not a buffer) packed: the textbook reads
/// and writes packed copies of those arrays.
buffer_tensor_desc packed(buffer_tensor_desc t) {
    t.strides.reset();
    t.total_tensor_size_in_bytes = calc_buffer_tensor_size(t);
    t.guaranteed_base_offset_alignment = 0;
    return t;
}

py::array textbook_execute(const operator_desc& desc, py::handle x, py::handle out, py::handle level) {
    using namespace pybind11::literals;
    const feature_level fl = parse_feature_level(level);
    const std::string op(to_string(type_of(desc)));
    detail::throw_if(validate(desc, fl));
    auto [in, result] = bind_desc(desc, x, out, op);
    const py::module_ np = py::module_::import("numpy");
    operator_desc rewritten = desc;
    std::visit(single_tensor_only{"the Python module",
        [&](auto& d) {
            if (!in.buffer) d.input_tensor = packed(d.input_tensor);
            if (!result.buffer) d.output_tensor = packed(d.output_tensor);
        }},
        rewritten);
    // Tensors go through packed copies in this machine's byte order (copies move bits exactly), in
    // buffers of TotalTensorSizeInBytes (DMLCalcBufferTensorSize rounds up to 4 bytes).
    auto buffer_of = [&](const buffer_tensor_desc& t) {
        return py::array(np.attr("zeros")(t.total_tensor_size_in_bytes, "uint8"));
    };
    py::array in_bytes = in.array.array;
    if (!in.buffer) {
        py::array copy = np.attr("ascontiguousarray")(in.array.array);
        if (in.array.swapped) copy = copy.attr("byteswap")().attr("view")(in.array.array.dtype().attr("newbyteorder")("="));
        in_bytes = buffer_of(input_of(rewritten));
        std::memcpy(in_bytes.mutable_data(), copy.data(), static_cast<std::size_t>(copy.nbytes()));
    }
    py::array out_bytes = result.buffer ? result.array.array : buffer_of(output_of(rewritten));
    {
        const std::span<const std::byte> input(static_cast<const std::byte*>(in_bytes.data()), static_cast<std::size_t>(in_bytes.nbytes()));
        const std::span<std::byte> output(static_cast<std::byte*>(out_bytes.mutable_data()), static_cast<std::size_t>(out_bytes.nbytes()));
        py::gil_scoped_release released;
        textbook::execute(rewritten, input, output, fl);
    }
    if (result.buffer) return result.array.array;
    const py::array& target = result.array.array;
    std::vector<py::ssize_t> shape(target.shape(), target.shape() + target.ndim());
    py::object typed = out_bytes[py::slice(0, target.nbytes(), 1)].attr("view")(dtype_of(output_of(desc).data_type)).attr("reshape")(shape);
    if (result.array.swapped) typed = typed.attr("byteswap")().attr("view")(target.dtype());
    np.attr("copyto")(target, typed, "casting"_a = "no");
    return target;
}

textbook::source source_of(const operator_desc& desc, py::handle coordinate, py::handle level) {
    const feature_level fl = parse_feature_level(level);
    const std::string op(to_string(type_of(desc)));
    const auto sequence = py::reinterpret_steal<py::object>(PySequence_Fast(coordinate.ptr(), ""));
    if (!sequence) {
        PyErr_Clear();
        throw py::type_error(detail::message("{}: the output coordinate must be a sequence of integers, not {}", op,
                                             Py_TYPE(coordinate.ptr())->tp_name));
    }
    std::vector<std::uint32_t> c;
    for (Py_ssize_t i = 0, n = PySequence_Fast_GET_SIZE(sequence.ptr()); i < n; ++i) {
        const std::int64_t v = to_int(PySequence_Fast_GET_ITEM(sequence.ptr(), i), op, "coordinate", i);
        if (v < 0 || v > 0xffff'ffffll)
            throw validation_error(detail::message("{}: the output coordinate's entry {} is {}; coordinates are 0 to "
                                                   "4294967295",
                                                   op, i, v));
        c.push_back(static_cast<std::uint32_t>(v));
    }
    return textbook::source_of(desc, c, fl);
}

/// For bench/python_bench.py: `repeats` runs of dmlref::execute(desc, x, out) over two buffers in a
/// C++ loop, with no Python between them; each run's seconds.
std::vector<double> engine_seconds(const operator_desc& desc, const py::array& x, py::array& out, int repeats) {
    const auto in = bind_input(x, "engine_seconds", "x");
    const auto o = bind_input(out, "engine_seconds", "out");
    const std::span<const std::byte> input(in.data, static_cast<std::size_t>(x.nbytes()));
    const std::span<std::byte> output(o.data, static_cast<std::size_t>(out.nbytes()));
    std::vector<double> seconds;
    py::gil_scoped_release released;
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        dmlref::execute(desc, input, output);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
}

// ---- the direct functions' calls --------------------------------------------------------------
// They are CPython METH_FASTCALL functions rather than pybind11 ones: a call of a small tensor is
// mostly the call itself, and pybind11's dispatcher (its keyword arguments above all) took as long
// as the copy (docs/python.md has the measurements).

/// The arguments of a call by position or keyword, as CPython's own functions take them: `values`
/// gets each (nullptr where not given); the first `required` must be given. False with a
/// TypeError set otherwise.
template <std::size_t N>
bool parse_arguments(const char* function, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                     const char* const (&names)[N], std::size_t required, PyObject* (&values)[N]) {
    if (nargs > static_cast<Py_ssize_t>(N)) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zu arguments (%zd given)", function, N, nargs);
        return false;
    }
    for (std::size_t i = 0; i < N; ++i) values[i] = static_cast<Py_ssize_t>(i) < nargs ? args[i] : nullptr;
    const Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < keywords; ++k) {
        PyObject* key = PyTuple_GET_ITEM(kwnames, k);
        std::size_t j = 0;
        while (j < N && PyUnicode_CompareWithASCIIString(key, names[j]) != 0) ++j;
        if (j == N) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", function, key);
            return false;
        }
        if (values[j]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", function, names[j]);
            return false;
        }
        values[j] = args[nargs + k];
    }
    for (std::size_t i = 0; i < required; ++i)
        if (!values[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %zu)", function, names[i], i + 1);
            return false;
        }
    return true;
}

using fastcall_function = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
PyCFunction fastcall(fastcall_function f) { return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f)); }

py::handle or_none(PyObject* value) { return value ? py::handle(value) : py::none(); }

PyObject* depth_space_fast(depth_space_direction direction, const char* op, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames) {
    static const char* const names[] = {"x", "block", "order", "out"};
    PyObject* v[4];
    if (!parse_arguments(op, args, nargs, kwnames, names, 2, v)) return nullptr;
    try {
        return depth_space(direction, op, v[0], v[1], v[2], or_none(v[3])).release().ptr();
    } catch (...) {
        return raise_current();
    }
}
PyObject* depth_to_space_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    return depth_space_fast(depth_space_direction::depth_to_space, "depth_to_space", args, nargs, kwnames);
}
PyObject* space_to_depth_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    return depth_space_fast(depth_space_direction::space_to_depth, "space_to_depth", args, nargs, kwnames);
}
PyObject* slice_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    static const char* const names[] = {"x", "offsets", "sizes", "strides", "out"};
    PyObject* v[5];
    if (!parse_arguments("slice", args, nargs, kwnames, names, 4, v)) return nullptr;
    try {
        return slice(v[0], v[1], v[2], v[3], or_none(v[4])).release().ptr();
    } catch (...) {
        return raise_current();
    }
}
PyObject* pad_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    static const char* const names[] = {"x", "start", "end", "mode", "value", "out"};
    PyObject* v[6];
    if (!parse_arguments("pad", args, nargs, kwnames, names, 3, v)) return nullptr;
    try {
        return pad(v[0], v[1], v[2], v[3], v[4], or_none(v[5])).release().ptr();
    } catch (...) {
        return raise_current();
    }
}

constexpr const char* depth_to_space_doc = R"doc(depth_to_space($module, x, block, order="dcr", out=None)
--

DEPTH_TO_SPACE1 of a 4-D array (N, C, H, W): blocks of channels become B x B pixels.

    out[n, c, y, x] = x[n, cd, y // B, x // B],  bh = y % B, bw = x % B, C' = C / B**2
      order="dcr" (DEPTH_COLUMN_ROW, ONNX DepthToSpace mode="DCR"):  cd = (bh * B + bw) * C' + c
      order="crd" (COLUMN_ROW_DEPTH, ONNX mode="CRD", torch pixel_shuffle):  cd = c * B * B + bh * B + bw

Returns an array of shape (N, C / B**2, H * B, W * B) and x's dtype, or writes `out` (any
strides, writeable, that shape and dtype) and returns it. x may be any numpy array of DirectML's
eleven dtypes, with any strides (negative and zero ones too); it is read in place, never copied.
Raises ValidationError (a ValueError) with dmlref's message: C not a multiple of B**2, B < 1, ...)doc";
constexpr const char* space_to_depth_doc = R"doc(space_to_depth($module, x, block, order="dcr", out=None)
--

SPACE_TO_DEPTH1 of a 4-D array (N, C, H, W): B x B pixels become blocks of channels.

    out[n, cd, h, w] = x[n, c, h * B + bh, w * B + bw],  C' = C (x's channels)
      order="dcr" (DEPTH_COLUMN_ROW, ONNX SpaceToDepth):  cd = (bh * B + bw) * C' + c
      order="crd" (COLUMN_ROW_DEPTH, torch pixel_unshuffle):  cd = c * B * B + bh * B + bw

Returns an array of shape (N, C * B**2, H / B, W / B), or writes `out` and returns it. H and W
must be multiples of B. x: any numpy array of DirectML's eleven dtypes and any strides, read in
place. Raises ValidationError with dmlref's message.)doc";
constexpr const char* slice_doc = R"doc(slice($module, x, offsets, sizes, strides, out=None)
--

SLICE1: a strided window of x, copied.

    start[i] = offsets[i] + (sizes[i] - 1 if strides[i] < 0 else 0)
    out[o] = x[start + strides * o]              (per axis i)
    out.shape[i] = 1 + (sizes[i] - 1) // abs(strides[i])

The window [offsets[i], offsets[i] + sizes[i]) must lie inside x on every axis; strides are not 0
and may be negative (the window is then walked from its end), as numpy's x[a:b:s]:
x[a:b:s] with s > 0 is slice(x, a, b - a, s) on that axis; x[b-1:a-1:-s] is slice(x, a, b - a, -s).
offsets, sizes and strides: one integer per axis (or one for every axis). Returns a new array, or
writes `out` (any strides, that shape and dtype) and returns it. Raises ValidationError naming the
field (InputWindowOffsets, InputWindowSizes, InputWindowStrides), the axis and the values.)doc";
constexpr const char* pad_doc = R"doc(pad($module, x, start, end, mode="constant", value=0, out=None)
--

PADDING1: x with start[i] elements before and end[i] after it on each axis.

    out.shape[i] = start[i] + x.shape[i] + end[i]
    out[o] = x[src(o)], per axis: t = o[i] - start[i], n = x.shape[i]
      inside     0 <= t < n                  src = t
      constant   t outside on any axis       value
      edge       src = clamp(t, 0, n - 1)
      reflect    p = 2(n - 1), m = t mod p,  src = m if m < n else p - m   (edges not repeated)
      symmetric  p = 2n,       m = t mod p,  src = m if m < n else p - 1 - m  (edges repeated)
      wrap       src = t mod n
with mod never negative, so pads larger than the axis fold periodically (as numpy.pad does), and
reflect on an axis of one element repeats it. The same as numpy.pad(x, list(zip(start, end)), mode,
constant_values=value), bit for bit. Modes also by DirectML's names ("REFLECTION") or PaddingMode.

value (constant mode): a number converted to x's dtype as numpy converts it, except that integer
dtypes take only integers in their range; a numpy scalar of x's dtype keeps its bits (NaN
payloads too). Returns a new array, or writes `out` and returns it. Raises ValidationError with
dmlref's message.)doc";

} // namespace

void init_ops(py::module_& m) {
    using namespace pybind11::literals;
    static PyMethodDef direct[] = {
        {"depth_to_space", fastcall(&depth_to_space_fast), METH_FASTCALL | METH_KEYWORDS, depth_to_space_doc},
        {"space_to_depth", fastcall(&space_to_depth_fast), METH_FASTCALL | METH_KEYWORDS, space_to_depth_doc},
        {"slice", fastcall(&slice_fast), METH_FASTCALL | METH_KEYWORDS, slice_doc},
        {"pad", fastcall(&pad_fast), METH_FASTCALL | METH_KEYWORDS, pad_doc},
        {nullptr, nullptr, 0, nullptr}};
    if (PyModule_AddFunctions(m.ptr(), direct) != 0) throw py::error_already_set();
    m.def("execute", &execute_desc, "desc"_a, "x"_a, "out"_a = py::none(), "feature_level"_a = "6_4",
          R"doc(execute($module, desc, x, out=None, feature_level="6_4")
--

Runs a DirectML operator desc on numpy arrays: checked as DirectML checks it at feature_level.

x is the input: an array of InputTensor.Sizes is the tensor itself, with any strides (read in
place); any other array is the buffer bound to InputTensor (C-contiguous, of the tensor's dtype or
uint8 bytes, holding TotalTensorSizeInBytes), read through the desc's Strides as DirectML reads it.
The output likewise: `out` of OutputTensor.Sizes (any strides), or a buffer; with out=None a new
array of OutputTensor.Sizes, or where OutputTensor has Strides a zeroed buffer of
TotalTensorSizeInBytes (elements outside the tensor stay 0). Returns the output.
Raises ValidationError with the message dmlref::execute throws in C++.)doc");

    py::module_ t = m.def_submodule("textbook", "The audit path: operators evaluated element by element from the "
                                                "documented index equations (no copy engine).");
    t.def("execute", &textbook_execute, "desc"_a, "x"_a, "out"_a = py::none(), "feature_level"_a = "6_4",
          R"doc(execute($module, desc, x, out=None, feature_level="6_4")
--

dmlref.execute(desc, x, out), evaluated one output element at a time from the operator's
index equation (dmlref::textbook::execute): no plan, no copy engine. The same arguments, checks,
messages and result, bit for bit; many times slower. For audits and tests.)doc");
    py::class_<textbook::source>(t, "Source", "Where an output element comes from: an input coordinate or the padding constant.")
        .def_property_readonly("is_padding_constant", &textbook::source::is_padding_constant,
                               "True where the element is PADDING's constant value.")
        .def_property_readonly(
            "coordinates",
            [](const textbook::source& s) -> py::object {
                if (s.is_padding_constant()) return py::none();
                return py::tuple(py::cast(s.coordinates));
            },
            "The input coordinate (a tuple), or None for the padding constant.")
        .def("__str__", [](const textbook::source& s) { return textbook::to_string(s); })
        .def("__repr__", [](const textbook::source& s) { return "<dmlref.textbook.Source " + textbook::to_string(s) + ">"; })
        .def("__eq__", [](const textbook::source& a, const textbook::source& b) { return a == b; });
    t.def("source_of", &source_of, "desc"_a, "coordinate"_a, "feature_level"_a = "6_4",
          R"doc(source_of($module, desc, coordinate, feature_level="6_4")
--

Where the element at output `coordinate` comes from: Source("input [0, 1, 0, 3]") or
Source("the padding constant"), from the operator's index equation (dmlref::textbook::source_of).
Raises ValidationError where the desc is invalid or the coordinate outside OutputTensor.Sizes.)doc");

    m.def("_engine_seconds", &engine_seconds, "desc"_a, "x"_a, "out"_a, "repeats"_a,
          "_engine_seconds($module, desc, x, out, repeats)\n--\n\nFor bench/python_bench.py: the seconds of each of `repeats` runs of the C++ dmlref::execute(desc, x, out) "
          "over two buffers, in a C++ loop.");
}

} // namespace dmlref::python
