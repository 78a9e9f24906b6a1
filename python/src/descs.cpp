// DirectML's enums, DML_BUFFER_TENSOR_DESC and the eight operator descs as Python classes with
// snake_case fields (DirectML's names, as the C++ structs spell them); validate(); and the same
// descs from and to DxDispatch's JSON form, through the model reader of the command-line tool.
#include "binding.hpp"

#include <cstring>
#include <variant>

#include <pybind11/stl.h>

#include <dmlref/format.hpp>

#include "model.hpp"

namespace dmlref::python {

namespace {

using namespace pybind11::literals;

std::string where(const char* cls, const char* field) { return std::string(cls) + "." + field; }

/// An integer of a UINT field; `item` >= 0 names an entry of an array field.
std::uint32_t to_u32(py::handle obj, const std::string& what, std::ptrdiff_t item = -1) {
    const std::int64_t v = to_int(obj, what, "", item);
    if (v < 0 || v > 0xffff'ffffll)
        throw validation_error(detail::message("{}{} is {}; DirectML's UINT fields hold 0 to 4294967295", what,
                                               item < 0 ? std::string() : detail::message("[{}]", item), v));
    return static_cast<std::uint32_t>(v);
}

template <class T> std::vector<T> to_vector(py::handle obj, const std::string& what) {
    const auto sequence = py::reinterpret_steal<py::object>(PySequence_Fast(obj.ptr(), ""));
    if (!sequence || py::isinstance<py::str>(obj)) {
        PyErr_Clear();
        throw py::type_error(detail::message("{} must be a sequence of integers, not {}", what, Py_TYPE(obj.ptr())->tp_name));
    }
    std::vector<T> values;
    for (Py_ssize_t i = 0, n = PySequence_Fast_GET_SIZE(sequence.ptr()); i < n; ++i) {
        PyObject* o = PySequence_Fast_GET_ITEM(sequence.ptr(), i);
        if constexpr (std::is_same_v<T, std::uint32_t>) {
            values.push_back(to_u32(o, what, i));
        } else {
            const std::int64_t v = to_int(o, what, "", i);
            if (v < INT32_MIN || v > INT32_MAX)
                throw validation_error(detail::message("{}[{}] is {}; DirectML's INT fields hold -2147483648 to 2147483647",
                                                       what, i, v));
            values.push_back(static_cast<std::int32_t>(v));
        }
    }
    return values;
}

buffer_tensor_desc to_tensor(py::handle obj, const std::string& what) {
    if (!py::isinstance<buffer_tensor_desc>(obj))
        throw py::type_error(detail::message("{} must be a BufferTensorDesc, not {}", what, Py_TYPE(obj.ptr())->tp_name));
    return obj.cast<buffer_tensor_desc>();
}

padding_mode to_mode(py::handle obj, const std::string& what) {
    if (py::isinstance<padding_mode>(obj)) return obj.cast<padding_mode>();
    if (py::isinstance<py::str>(obj))
        if (const auto parsed = parse_padding_mode(obj.cast<std::string>())) return *parsed;
    throw validation_error(detail::message("{} is {}; it must be a PaddingMode or one of CONSTANT, EDGE, REFLECTION, "
                                           "SYMMETRIC, WRAP",
                                           what, py::repr(obj).cast<std::string>()));
}

depth_space_order to_order(py::handle obj, const std::string& what) {
    if (py::isinstance<depth_space_order>(obj)) return obj.cast<depth_space_order>();
    if (py::isinstance<py::str>(obj))
        if (const auto parsed = parse_depth_space_order(obj.cast<std::string>())) return *parsed;
    throw validation_error(detail::message("{} is {}; it must be a DepthSpaceOrder, DEPTH_COLUMN_ROW or COLUMN_ROW_DEPTH",
                                           what, py::repr(obj).cast<std::string>()));
}

tensor_flags to_flags(py::handle obj, const std::string& what) {
    if (py::isinstance<tensor_flags>(obj)) return obj.cast<tensor_flags>();
    if (py::isinstance<py::str>(obj)) {
        const std::string text(strip_prefix(obj.cast<std::string>(), "DML_TENSOR_FLAG_"));
        if (text == "NONE") return tensor_flags::none;
        if (text == "OWNED_BY_DML") return tensor_flags::owned_by_dml;
    }
    return static_cast<tensor_flags>(to_u32(obj, what));
}

/// PADDING1's value: a number in `type` (value_bytes), or up to eight raw bytes of the union.
scalar_union to_union(py::handle obj, data_type type, const std::string& what) {
    scalar_union u;
    if (py::isinstance<py::bytes>(obj) || py::isinstance<py::bytearray>(obj)) {
        const std::string raw = py::bytes(py::reinterpret_borrow<py::object>(obj)).cast<std::string>();
        if (raw.size() > 8)
            throw validation_error(detail::message("{} has {} bytes; DML_SCALAR_UNION has 8", what, raw.size()));
        std::memcpy(u.bytes.data(), raw.data(), raw.size());
        return u;
    }
    if (element_size(type) == 0)
        throw validation_error(detail::message("{}: a number needs a padding_value_data_type of DirectML's eleven types "
                                               "(this is {}); or give the union's bytes",
                                               what, to_string(type)));
    const auto bytes = value_bytes(obj, type, what);
    std::memcpy(u.bytes.data(), bytes.data(), 8);
    return u;
}

/// PADDING1's value as a Python number in `type` (float16 as a float), or the union's bytes.
py::object from_union(const scalar_union& u, data_type type) {
    switch (type) {
    case data_type::float16: return py::float_(double_from_half_bits(u.as<std::uint16_t>()));
    case data_type::float32: return py::float_(u.as<float>());
    case data_type::float64: return py::float_(u.as<double>());
    case data_type::uint8: return py::int_(u.as<std::uint8_t>());
    case data_type::int8: return py::int_(u.as<std::int8_t>());
    case data_type::uint16: return py::int_(u.as<std::uint16_t>());
    case data_type::int16: return py::int_(u.as<std::int16_t>());
    case data_type::uint32: return py::int_(u.as<std::uint32_t>());
    case data_type::int32: return py::int_(u.as<std::int32_t>());
    case data_type::uint64: return py::int_(u.as<std::uint64_t>());
    case data_type::int64: return py::int_(u.as<std::int64_t>());
    default: return py::bytes(reinterpret_cast<const char*>(u.bytes.data()), 8);
    }
}

/// A field of a desc class: a Python property whose setter parses as the constructor does.
template <class D, class Get, class Set>
void field(py::class_<D>& c, const char* name, Get get, Set set, const char* doc) {
    c.def_property(name, get, set, doc);
}

template <class D> void u32s_field(py::class_<D>& c, const char* cls, const char* name, std::vector<std::uint32_t> D::*member, const char* doc) {
    field(c, name, [member](const D& d) { return d.*member; },
          [member, cls, name](D& d, py::handle v) { d.*member = to_vector<std::uint32_t>(v, where(cls, name)); }, doc);
}

template <class D> void tensors(py::class_<D>& c, const char* cls) {
    field(c, "input_tensor", [](const D& d) { return d.input_tensor; },
          [cls](D& d, py::handle v) { d.input_tensor = to_tensor(v, where(cls, "input_tensor")); }, "InputTensor (a copy: assign to change it)");
    field(c, "output_tensor", [](const D& d) { return d.output_tensor; },
          [cls](D& d, py::handle v) { d.output_tensor = to_tensor(v, where(cls, "output_tensor")); }, "OutputTensor (a copy: assign to change it)");
}

/// What every desc class has: equality, printing with DirectML's names, the JSON form.
template <class D> void common(py::class_<D>& c, const char* cls) {
    c.def_property_readonly("type", [](const D&) { return std::string(to_string(D::type)); },
                            "DirectML's operator type without its prefix: \"SLICE1\".");
    c.def("__str__", [](const D& d) { return to_string(operator_desc(d)); });
    c.def("__repr__", [cls](const D& d) { return "<dmlref." + std::string(cls) + " " + to_string(operator_desc(d)) + ">"; });
    c.def("__eq__", [](const D& a, py::handle other) {
        if (!py::isinstance<D>(other)) return false;
        const D& b = other.cast<const D&>();
        bool same = to_string(operator_desc(a)) == to_string(operator_desc(b));
        if constexpr (std::is_same_v<D, padding_desc>)
            same = same && std::bit_cast<std::uint32_t>(a.padding_value) == std::bit_cast<std::uint32_t>(b.padding_value);
        if constexpr (std::is_same_v<D, padding1_desc>) same = same && a.padding_value == b.padding_value;
        return same;
    });
    c.attr("__hash__") = py::none();
    c.def(
        "to_dict", [](const D& d) { return py::module_::import("json").attr("loads")(model::dispatchable_json(d)); },
        R"doc(to_dict($self)
--

The desc as a DxDispatch dispatchable: {"type": "DML_OPERATOR_...", "desc": {...}} with
DirectML's field names; dmlref.desc_from_dict reads it back (a NaN padding value as "NaN").)doc");
}

void bind_enums(py::module_& m) {
    py::enum_<data_type>(m, "DataType", "DML_TENSOR_DATA_TYPE, with DirectML's names and numeric values.")
        .value("UNKNOWN", data_type::unknown)
        .value("FLOAT32", data_type::float32)
        .value("FLOAT16", data_type::float16)
        .value("UINT32", data_type::uint32)
        .value("UINT16", data_type::uint16)
        .value("UINT8", data_type::uint8)
        .value("INT32", data_type::int32)
        .value("INT16", data_type::int16)
        .value("INT8", data_type::int8)
        .value("FLOAT64", data_type::float64)
        .value("UINT64", data_type::uint64)
        .value("INT64", data_type::int64)
        .value("UINT4", data_type::uint4)
        .value("INT4", data_type::int4);
    py::enum_<padding_mode>(m, "PaddingMode", "DML_PADDING_MODE.")
        .value("CONSTANT", padding_mode::constant)
        .value("EDGE", padding_mode::edge)
        .value("REFLECTION", padding_mode::reflection)
        .value("SYMMETRIC", padding_mode::symmetric)
        .value("WRAP", padding_mode::wrap);
    py::enum_<depth_space_order>(m, "DepthSpaceOrder", "DML_DEPTH_SPACE_ORDER.")
        .value("DEPTH_COLUMN_ROW", depth_space_order::depth_column_row)
        .value("COLUMN_ROW_DEPTH", depth_space_order::column_row_depth);
    py::enum_<tensor_flags>(m, "TensorFlags", "DML_TENSOR_FLAGS.")
        .value("NONE", tensor_flags::none)
        .value("OWNED_BY_DML", tensor_flags::owned_by_dml);
}

void bind_tensor_desc(py::module_& m) {
    constexpr const char* cls = "BufferTensorDesc";
    py::class_<buffer_tensor_desc> c(m, cls, R"doc(DML_BUFFER_TENSOR_DESC.

BufferTensorDesc(data_type, sizes, strides=None, total_tensor_size_in_bytes=None,
                 guaranteed_base_offset_alignment=0, flags=TensorFlags.NONE)
data_type: a DataType, DirectML's name ("FLOAT16") or a numpy dtype (numpy.float16). Strides count
elements (None: packed); total_tensor_size_in_bytes defaults to DMLCalcBufferTensorSize.)doc");
    c.def(py::init([](py::handle type, py::handle sizes, py::handle strides, py::handle total, py::handle alignment,
                      py::handle flags) {
              buffer_tensor_desc t;
              t.data_type = parse_data_type(type, "BufferTensorDesc.data_type");
              t.sizes = to_vector<std::uint32_t>(sizes, "BufferTensorDesc.sizes");
              if (!strides.is_none()) t.strides = to_vector<std::uint32_t>(strides, "BufferTensorDesc.strides");
              if (total.is_none()) {
                  t.total_tensor_size_in_bytes = calc_buffer_tensor_size(t);
              } else {
                  const std::int64_t v = to_int(total, "BufferTensorDesc.total_tensor_size_in_bytes", "");
                  if (v < 0)
                      throw validation_error(detail::message("BufferTensorDesc.total_tensor_size_in_bytes is {}; it is a "
                                                             "UINT64",
                                                             v));
                  t.total_tensor_size_in_bytes = static_cast<std::uint64_t>(v);
              }
              t.guaranteed_base_offset_alignment = to_u32(alignment, "BufferTensorDesc.guaranteed_base_offset_alignment");
              t.flags = to_flags(flags, "BufferTensorDesc.flags");
              return t;
          }),
          "data_type"_a, "sizes"_a, "strides"_a = py::none(), "total_tensor_size_in_bytes"_a = py::none(),
          "guaranteed_base_offset_alignment"_a = 0, "flags"_a = tensor_flags::none);
    field(c, "data_type", [](const buffer_tensor_desc& t) { return t.data_type; },
          [](buffer_tensor_desc& t, py::handle v) { t.data_type = parse_data_type(v, "BufferTensorDesc.data_type"); }, "DataType");
    field(c, "sizes", [](const buffer_tensor_desc& t) { return t.sizes; },
          [](buffer_tensor_desc& t, py::handle v) { t.sizes = to_vector<std::uint32_t>(v, "BufferTensorDesc.sizes"); },
          "Sizes (DimensionCount is their number)");
    field(c, "strides", [](const buffer_tensor_desc& t) { return t.strides; },
          [](buffer_tensor_desc& t, py::handle v) {
              if (v.is_none()) t.strides.reset();
              else t.strides = to_vector<std::uint32_t>(v, "BufferTensorDesc.strides");
          },
          "Strides in elements, or None for packed");
    field(c, "total_tensor_size_in_bytes", [](const buffer_tensor_desc& t) { return t.total_tensor_size_in_bytes; },
          [](buffer_tensor_desc& t, py::handle v) {
              const std::int64_t n = to_int(v, "BufferTensorDesc.total_tensor_size_in_bytes", "");
              if (n < 0)
                  throw validation_error(detail::message("BufferTensorDesc.total_tensor_size_in_bytes is {}; it is a UINT64", n));
              t.total_tensor_size_in_bytes = static_cast<std::uint64_t>(n);
          },
          "TotalTensorSizeInBytes");
    field(c, "guaranteed_base_offset_alignment", [](const buffer_tensor_desc& t) { return t.guaranteed_base_offset_alignment; },
          [](buffer_tensor_desc& t, py::handle v) {
              t.guaranteed_base_offset_alignment = to_u32(v, "BufferTensorDesc.guaranteed_base_offset_alignment");
          },
          "GuaranteedBaseOffsetAlignment");
    field(c, "flags", [](const buffer_tensor_desc& t) { return t.flags; },
          [](buffer_tensor_desc& t, py::handle v) { t.flags = to_flags(v, "BufferTensorDesc.flags"); }, "Flags");
    c.def_property_readonly("dimension_count", &buffer_tensor_desc::dimension_count, "DimensionCount");
    c.def("__eq__", [](const buffer_tensor_desc& a, py::handle b) {
        return py::isinstance<buffer_tensor_desc>(b) && a == b.cast<const buffer_tensor_desc&>();
    });
    c.attr("__hash__") = py::none();
    c.def("__str__", [](const buffer_tensor_desc& t) { return to_string(t); });
    c.def("__repr__", [](const buffer_tensor_desc& t) { return "<dmlref.BufferTensorDesc " + to_string(t) + ">"; });
}

template <class D> void bind_depth_space(py::module_& m, const char* cls, const char* doc) {
    py::class_<D> c(m, cls, doc);
    constexpr bool has_order = requires(D d) { d.order; };
    if constexpr (has_order) {
        c.def(py::init([cls](py::handle in, py::handle out, py::handle block, py::handle order) {
                  D d;
                  d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
                  d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
                  d.block_size = to_u32(block, where(cls, "block_size"));
                  d.order = to_order(order, where(cls, "order"));
                  return d;
              }),
              "input_tensor"_a, "output_tensor"_a, "block_size"_a, "order"_a);
        field(c, "order", [](const D& d) { return d.order; },
              [cls](D& d, py::handle v) { d.order = to_order(v, where(cls, "order")); }, "Order");
    } else {
        c.def(py::init([cls](py::handle in, py::handle out, py::handle block) {
                  D d;
                  d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
                  d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
                  d.block_size = to_u32(block, where(cls, "block_size"));
                  return d;
              }),
              "input_tensor"_a, "output_tensor"_a, "block_size"_a);
    }
    tensors(c, cls);
    field(c, "block_size", [](const D& d) { return d.block_size; },
          [cls](D& d, py::handle v) { d.block_size = to_u32(v, where(cls, "block_size")); }, "BlockSize");
    common(c, cls);
}

void bind_slices(py::module_& m) {
    {
        constexpr const char* cls = "SliceDesc";
        py::class_<slice_desc> c(m, cls, R"doc(DML_SLICE_OPERATOR_DESC (feature level 1_0).

SliceDesc(input_tensor, output_tensor, offsets, sizes, strides): Output[o] = Input[offsets + strides * o]
per axis; sizes are the output's sizes, strides positive (UINT).)doc");
        c.def(py::init([](py::handle in, py::handle out, py::handle offsets, py::handle sizes, py::handle strides) {
                  slice_desc d;
                  d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
                  d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
                  d.offsets = to_vector<std::uint32_t>(offsets, where(cls, "offsets"));
                  d.sizes = to_vector<std::uint32_t>(sizes, where(cls, "sizes"));
                  d.strides = to_vector<std::uint32_t>(strides, where(cls, "strides"));
                  return d;
              }),
              "input_tensor"_a, "output_tensor"_a, "offsets"_a, "sizes"_a, "strides"_a);
        tensors(c, cls);
        u32s_field(c, cls, "offsets", &slice_desc::offsets, "Offsets");
        u32s_field(c, cls, "sizes", &slice_desc::sizes, "Sizes (the output's)");
        u32s_field(c, cls, "strides", &slice_desc::strides, "Strides");
        common(c, cls);
    }
    constexpr const char* cls = "Slice1Desc";
    py::class_<slice1_desc> c(m, cls, R"doc(DML_SLICE1_OPERATOR_DESC (feature level 2_1).

Slice1Desc(input_tensor, output_tensor, input_window_offsets, input_window_sizes, input_window_strides):
CopyStart = InputWindowOffsets + (InputWindowSizes - 1 where InputWindowStrides < 0, else 0);
Output[o] = Input[CopyStart + InputWindowStrides * o] per axis. Strides are signed (INT).)doc");
    c.def(py::init([](py::handle in, py::handle out, py::handle offsets, py::handle sizes, py::handle strides) {
              slice1_desc d;
              d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
              d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
              d.input_window_offsets = to_vector<std::uint32_t>(offsets, where(cls, "input_window_offsets"));
              d.input_window_sizes = to_vector<std::uint32_t>(sizes, where(cls, "input_window_sizes"));
              d.input_window_strides = to_vector<std::int32_t>(strides, where(cls, "input_window_strides"));
              return d;
          }),
          "input_tensor"_a, "output_tensor"_a, "input_window_offsets"_a, "input_window_sizes"_a, "input_window_strides"_a);
    tensors(c, cls);
    u32s_field(c, cls, "input_window_offsets", &slice1_desc::input_window_offsets, "InputWindowOffsets");
    u32s_field(c, cls, "input_window_sizes", &slice1_desc::input_window_sizes, "InputWindowSizes");
    field(c, "input_window_strides", [](const slice1_desc& d) { return d.input_window_strides; },
          [](slice1_desc& d, py::handle v) { d.input_window_strides = to_vector<std::int32_t>(v, where(cls, "input_window_strides")); },
          "InputWindowStrides (signed)");
    common(c, cls);
}

void bind_paddings(py::module_& m) {
    {
        constexpr const char* cls = "PaddingDesc";
        py::class_<padding_desc> c(m, cls, R"doc(DML_PADDING_OPERATOR_DESC (feature level 1_0).

PaddingDesc(input_tensor, output_tensor, padding_mode, padding_value, start_padding, end_padding).
padding_value is DirectML's FLOAT, converted to the tensor's type as DirectML's documentation says
(integers truncate toward zero and saturate, NaN becomes 0; FLOAT16 rounds to nearest even).)doc");
        c.def(py::init([](py::handle in, py::handle out, py::handle mode, float value, py::handle start, py::handle end) {
                  padding_desc d;
                  d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
                  d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
                  d.padding_mode = to_mode(mode, where(cls, "padding_mode"));
                  d.padding_value = value;
                  d.start_padding = to_vector<std::uint32_t>(start, where(cls, "start_padding"));
                  d.end_padding = to_vector<std::uint32_t>(end, where(cls, "end_padding"));
                  return d;
              }),
              "input_tensor"_a, "output_tensor"_a, "padding_mode"_a, "padding_value"_a, "start_padding"_a, "end_padding"_a);
        tensors(c, cls);
        field(c, "padding_mode", [](const padding_desc& d) { return d.padding_mode; },
              [](padding_desc& d, py::handle v) { d.padding_mode = to_mode(v, where(cls, "padding_mode")); }, "PaddingMode");
        c.def_readwrite("padding_value", &padding_desc::padding_value, "PaddingValue (FLOAT)");
        u32s_field(c, cls, "start_padding", &padding_desc::start_padding, "StartPadding");
        u32s_field(c, cls, "end_padding", &padding_desc::end_padding, "EndPadding");
        common(c, cls);
    }
    constexpr const char* cls = "Padding1Desc";
    py::class_<padding1_desc> c(m, cls, R"doc(DML_PADDING1_OPERATOR_DESC (feature level 5_0).

Padding1Desc(input_tensor, output_tensor, padding_mode, padding_value_data_type, padding_value,
             start_padding, end_padding).
padding_value: a number, converted to padding_value_data_type (integers must fit it; FLOAT16
rounds to nearest even), a numpy scalar of that type (its bits), or up to 8 raw bytes of
DML_SCALAR_UNION (read as DirectML 1.15.4 reads the union).)doc");
    c.def(py::init([](py::handle in, py::handle out, py::handle mode, py::handle value_type, py::handle value, py::handle start,
                      py::handle end) {
              padding1_desc d;
              d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
              d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
              d.padding_mode = to_mode(mode, where(cls, "padding_mode"));
              d.padding_value_data_type = parse_data_type(value_type, where(cls, "padding_value_data_type"));
              d.padding_value = to_union(value, d.padding_value_data_type, where(cls, "padding_value"));
              d.start_padding = to_vector<std::uint32_t>(start, where(cls, "start_padding"));
              d.end_padding = to_vector<std::uint32_t>(end, where(cls, "end_padding"));
              return d;
          }),
          "input_tensor"_a, "output_tensor"_a, "padding_mode"_a, "padding_value_data_type"_a, "padding_value"_a,
          "start_padding"_a, "end_padding"_a);
    tensors(c, cls);
    field(c, "padding_mode", [](const padding1_desc& d) { return d.padding_mode; },
          [](padding1_desc& d, py::handle v) { d.padding_mode = to_mode(v, where(cls, "padding_mode")); }, "PaddingMode");
    field(c, "padding_value_data_type", [](const padding1_desc& d) { return d.padding_value_data_type; },
          [](padding1_desc& d, py::handle v) {
              d.padding_value_data_type = parse_data_type(v, where(cls, "padding_value_data_type"));
          },
          "PaddingValueDataType");
    field(c, "padding_value", [](const padding1_desc& d) { return from_union(d.padding_value, d.padding_value_data_type); },
          [](padding1_desc& d, py::handle v) {
              d.padding_value = to_union(v, d.padding_value_data_type, where(cls, "padding_value"));
          },
          "PaddingValue as a number of PaddingValueDataType (set: a number, a numpy scalar or up to 8 bytes)");
    c.def_property_readonly(
        "padding_value_bytes",
        [](const padding1_desc& d) { return py::bytes(reinterpret_cast<const char*>(d.padding_value.bytes.data()), 8); },
        "The 8 bytes of DML_SCALAR_UNION");
    u32s_field(c, cls, "start_padding", &padding1_desc::start_padding, "StartPadding");
    u32s_field(c, cls, "end_padding", &padding1_desc::end_padding, "EndPadding");
    common(c, cls);
}

void bind_identity(py::module_& m) {
    constexpr const char* cls = "ElementWiseIdentityDesc";
    py::class_<element_wise_identity_desc> c(m, cls, R"doc(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC (feature level 1_0).

ElementWiseIdentityDesc(input_tensor, output_tensor, scale_bias=None): the strided copy (transposes
through permuted input strides, broadcasts through zero input strides). scale_bias, a pair
(scale, bias), is DirectML's arithmetic ScaleBias: it can be set and printed, but validate()
refuses it, since dmlref moves data and does not compute scale/bias.)doc");
    auto to_scale_bias = [](py::handle v) -> std::optional<scale_bias> {
        if (v.is_none()) return std::nullopt;
        std::pair<double, double> pair;
        try {
            pair = v.cast<std::pair<double, double>>();
        } catch (const py::cast_error&) {
            throw py::type_error(where(cls, "scale_bias") + " must be None or a pair (scale, bias) of numbers");
        }
        return scale_bias{static_cast<float>(pair.first), static_cast<float>(pair.second)};
    };
    c.def(py::init([to_scale_bias](py::handle in, py::handle out, py::handle sb) {
              element_wise_identity_desc d;
              d.input_tensor = to_tensor(in, where(cls, "input_tensor"));
              d.output_tensor = to_tensor(out, where(cls, "output_tensor"));
              d.scale_bias = to_scale_bias(sb);
              return d;
          }),
          "input_tensor"_a, "output_tensor"_a, "scale_bias"_a = py::none());
    tensors(c, cls);
    field(c, "scale_bias",
          [](const element_wise_identity_desc& d) -> py::object {
              if (!d.scale_bias) return py::none();
              return py::make_tuple(d.scale_bias->scale, d.scale_bias->bias);
          },
          [to_scale_bias](element_wise_identity_desc& d, py::handle v) { d.scale_bias = to_scale_bias(v); },
          "ScaleBias as (scale, bias), or None");
    common(c, cls);
}

void bind_slice_grad(py::module_& m) {
    constexpr const char* cls = "SliceGradDesc";
    py::class_<slice_grad_desc> c(m, cls, R"doc(DML_SLICE_GRAD_OPERATOR_DESC (feature level 3_0).

SliceGradDesc(input_gradient_tensor, output_gradient_tensor, input_window_offsets, input_window_sizes,
input_window_strides): SLICE1's adjoint. CopyStart as SLICE1's; OutputGradient[CopyStart +
InputWindowStrides * g] = InputGradient[g], every other element 0 (all bits clear). The gradient may
be longer than the window as long as InputWindowOffsets + (size - 1) * |stride| stays below the
output's size (DirectML 1.15.4's rule). input_tensor and output_tensor name the same two tensors.)doc");
    c.def(py::init([](py::handle in, py::handle out, py::handle offsets, py::handle sizes, py::handle strides) {
              slice_grad_desc d;
              d.input_tensor = to_tensor(in, where(cls, "input_gradient_tensor"));
              d.output_tensor = to_tensor(out, where(cls, "output_gradient_tensor"));
              d.input_window_offsets = to_vector<std::uint32_t>(offsets, where(cls, "input_window_offsets"));
              d.input_window_sizes = to_vector<std::uint32_t>(sizes, where(cls, "input_window_sizes"));
              d.input_window_strides = to_vector<std::int32_t>(strides, where(cls, "input_window_strides"));
              return d;
          }),
          "input_gradient_tensor"_a, "output_gradient_tensor"_a, "input_window_offsets"_a, "input_window_sizes"_a,
          "input_window_strides"_a);
    tensors(c, cls);
    field(c, "input_gradient_tensor", [](const slice_grad_desc& d) { return d.input_tensor; },
          [](slice_grad_desc& d, py::handle v) { d.input_tensor = to_tensor(v, where(cls, "input_gradient_tensor")); },
          "InputGradientTensor (a copy: assign to change it)");
    field(c, "output_gradient_tensor", [](const slice_grad_desc& d) { return d.output_tensor; },
          [](slice_grad_desc& d, py::handle v) { d.output_tensor = to_tensor(v, where(cls, "output_gradient_tensor")); },
          "OutputGradientTensor (a copy: assign to change it)");
    u32s_field(c, cls, "input_window_offsets", &slice_grad_desc::input_window_offsets, "InputWindowOffsets");
    u32s_field(c, cls, "input_window_sizes", &slice_grad_desc::input_window_sizes, "InputWindowSizes");
    field(c, "input_window_strides", [](const slice_grad_desc& d) { return d.input_window_strides; },
          [](slice_grad_desc& d, py::handle v) {
              d.input_window_strides = to_vector<std::int32_t>(v, where(cls, "input_window_strides"));
          },
          "InputWindowStrides (signed)");
    common(c, cls);
}

} // namespace

void init_descs(py::module_& m) {
    bind_enums(m);
    bind_tensor_desc(m);
    bind_depth_space<depth_to_space_desc>(m, "DepthToSpaceDesc", R"doc(DML_DEPTH_TO_SPACE_OPERATOR_DESC (1_0; always DEPTH_COLUMN_ROW).

DepthToSpaceDesc(input_tensor, output_tensor, block_size))doc");
    bind_depth_space<depth_to_space1_desc>(m, "DepthToSpace1Desc", R"doc(DML_DEPTH_TO_SPACE1_OPERATOR_DESC (2_1).

DepthToSpace1Desc(input_tensor, output_tensor, block_size, order))doc");
    bind_depth_space<space_to_depth_desc>(m, "SpaceToDepthDesc", R"doc(DML_SPACE_TO_DEPTH_OPERATOR_DESC (1_0; always DEPTH_COLUMN_ROW).

SpaceToDepthDesc(input_tensor, output_tensor, block_size))doc");
    bind_depth_space<space_to_depth1_desc>(m, "SpaceToDepth1Desc", R"doc(DML_SPACE_TO_DEPTH1_OPERATOR_DESC (2_1).

SpaceToDepth1Desc(input_tensor, output_tensor, block_size, order))doc");
    bind_slices(m);
    bind_paddings(m);
    bind_identity(m);
    bind_slice_grad(m);

    m.def(
        "validate",
        [](const operator_desc& desc, py::handle level) { return validate(desc, parse_feature_level(level)); }, "desc"_a,
        "feature_level"_a = "6_4",
        R"doc(validate($module, desc, feature_level="6_4")
--

Whether DirectML at feature_level accepts desc: None, or the reason (the message execute raises).
Never reads tensor data. Feature levels as DirectML spells them: "6_4", "5_0", ... (or "6.4").)doc");
    m.def(
        "desc_from_dict",
        [](py::handle d) -> operator_desc {
            py::object text;
            try {
                text = py::module_::import("json").attr("dumps")(d, "allow_nan"_a = false);
            } catch (py::error_already_set& e) {
                if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError)) throw;
                throw validation_error("desc_from_dict: the dict is not JSON (" + std::string(py::str(e.value())) +
                                       "); write NaN and infinities as \"NaN\", \"Inf\" and \"-Inf\" as DxDispatch does");
            }
            return model::parse_dispatchable(text.cast<std::string>(), "desc_from_dict");
        },
        "d"_a,
        R"doc(desc_from_dict($module, d)
--

The desc of a DxDispatch dispatchable: {"type": "DML_OPERATOR_SLICE1", "desc": {"InputTensor": {...}, ...}},
with DirectML's field names, read by the same reader as `dmlref run` model files (enum values with
or without their prefix, DimensionCount and TotalTensorSizeInBytes defaulted, PaddingValue as a
number or {"<Member>": value}); unknown fields are errors. Not validated: see validate().)doc");
}

} // namespace dmlref::python
