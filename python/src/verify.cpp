// Verification from Python: compare() and its report (the C++ compare_report, word for word), and
// DxDispatch model files through the command-line tool's reader.
#include "binding.hpp"

#include <memory>
#include <sstream>

#include <pybind11/stl.h>

#include <dmlref/compare.hpp>

#include "model.hpp"

namespace dmlref::python {

namespace {

using namespace pybind11::literals;

std::string dtype_text(const py::array& a) { return py::str(py::handle(a.dtype())).cast<std::string>(); }

/// A's elements packed in C order, in this machine's byte order (copies move bits exactly).
py::array packed_native(const py::array& a, bool swapped) {
    const py::module_ np = py::module_::import("numpy");
    py::array copy = np.attr("ascontiguousarray")(a);
    if (swapped) copy = copy.attr("byteswap")().attr("view")(a.dtype().attr("newbyteorder")("="));
    return copy;
}

compare_report compare_arrays(py::handle actual_obj, py::handle expected_obj, const std::optional<operator_desc>& desc,
                              bool nan_equal, std::int64_t max_listed) {
    const py::array actual = py::array::ensure(actual_obj), expected = py::array::ensure(expected_obj);
    if (!actual || !expected) throw py::error_already_set();
    bool actual_swapped = false, expected_swapped = false;
    const data_type type = data_type_of(actual.dtype(), &actual_swapped);
    const data_type expected_type = data_type_of(expected.dtype(), &expected_swapped);
    for (const auto& [name, a, t] : {std::tuple{"actual", &actual, type}, std::tuple{"expected", &expected, expected_type}})
        if (t == data_type::unknown)
            throw validation_error(detail::message("compare: {} has dtype {}; dmlref compares DirectML's eleven types", name,
                                                   dtype_text(*a)));
    if (type != expected_type)
        throw validation_error(detail::message("compare: actual has dtype {} ({}); expected has {} ({}); a bit-exact "
                                               "comparison needs one type",
                                               dtype_text(actual), to_string(type), dtype_text(expected),
                                               to_string(expected_type)));
    bool same = actual.ndim() == expected.ndim();
    for (py::ssize_t i = 0; same && i < actual.ndim(); ++i) same = actual.shape(i) == expected.shape(i);
    if (!same)
        throw validation_error(detail::message("compare: actual has shape {}; expected has shape {}",
                                               py::str(actual.attr("shape")).cast<std::string>(),
                                               py::str(expected.attr("shape")).cast<std::string>()));
    std::vector<std::uint32_t> sizes;
    for (py::ssize_t i = 0; i < actual.ndim(); ++i) {
        if (actual.shape(i) > 0xffff'ffff)
            throw validation_error(detail::message("compare: axis {} has {} elements; DirectML's sizes are at most "
                                                   "4294967295",
                                                   i, actual.shape(i)));
        sizes.push_back(static_cast<std::uint32_t>(actual.shape(i)));
    }
    if (max_listed < 0) throw validation_error(detail::message("compare: max_listed is {}; it counts mismatches", max_listed));
    const py::array a = packed_native(actual, actual_swapped), e = packed_native(expected, expected_swapped);
    const std::span<const std::byte> a_bytes(static_cast<const std::byte*>(a.data()), static_cast<std::size_t>(a.nbytes()));
    const std::span<const std::byte> e_bytes(static_cast<const std::byte*>(e.data()), static_cast<std::size_t>(e.nbytes()));
    const compare_options options{nan_equal, static_cast<std::size_t>(max_listed)};
    py::gil_scoped_release released;
    return compare(type, sizes, e_bytes, a_bytes, options, desc ? &*desc : nullptr);
}

/// A loaded model file and the text its last run printed.
struct loaded_model {
    model::model m;
    std::string log;
};

py::array resource_array(const model::resource& r, py::handle owner) {
    const std::size_t width = element_size(r.type);
    const auto count = static_cast<py::ssize_t>(r.value_bytes / width);
    return py::array(dtype_of(r.type), {count}, {static_cast<py::ssize_t>(width)}, r.storage.get(), owner);
}

model::load_options load_options_of(py::handle level, py::handle max_memory, bool allow_outside_paths) {
    model::load_options options;
    options.level = parse_feature_level(level);
    options.allow_outside_paths = allow_outside_paths;
    if (py::isinstance<py::str>(max_memory)) {
        const auto bytes = model::parse_byte_count(max_memory.cast<std::string>());
        if (!bytes)
            throw validation_error(detail::message("max_memory \"{}\" is not a byte count (\"512M\", \"2G\", 1048576)",
                                                   max_memory.cast<std::string>()));
        options.max_memory = *bytes;
    } else if (!max_memory.is_none()) {
        const std::int64_t bytes = to_int(max_memory, "max_memory", "");
        if (bytes <= 0) throw validation_error(detail::message("max_memory is {}; it must be a positive byte count", bytes));
        options.max_memory = static_cast<std::uint64_t>(bytes);
    }
    return options;
}

std::string run_loaded(loaded_model& lm, feature_level level) {
    std::ostringstream log;
    {
        py::gil_scoped_release released;
        model::run(lm.m, model::run_options{.execute = {}, .log = &log, .level = level});
    }
    lm.log = log.str();
    return lm.log;
}

} // namespace

void init_verify(py::module_& m) {
    py::class_<mismatch>(m, "Mismatch", "One differing element: its coordinates, both bit patterns, and its source.")
        .def_property_readonly("coordinates", [](const mismatch& x) { return py::tuple(py::cast(x.coordinates)); })
        .def_readonly("expected_bits", &mismatch::expected_bits)
        .def_readonly("actual_bits", &mismatch::actual_bits)
        .def_readonly("source", &mismatch::source, "Where the operator takes the element from (given a desc), else None.")
        .def("__repr__", [](const mismatch& x) {
            return detail::message("<dmlref.Mismatch at {} expected {:#x} actual {:#x}>",
                                   py::str(py::tuple(py::cast(x.coordinates))).cast<std::string>(), x.expected_bits,
                                   x.actual_bits);
        });
    py::class_<region_count>(m, "Region", "One region of an operator's output and how many of its elements differ.")
        .def_readonly("region", &region_count::region)
        .def_readonly("mismatches", &region_count::mismatches)
        .def_readonly("elements", &region_count::elements)
        .def("__repr__", [](const region_count& r) {
            return detail::message("<dmlref.Region {}: {} of {} differ>", r.region, r.mismatches, r.elements);
        });
    py::class_<compare_report>(m, "CompareReport", R"doc(The result of dmlref.compare: where two tensors differ.

str(report) is dmlref's report: the count, the first mismatches with both values and bit patterns
(and, given the desc, where the operator takes each from), the coordinate ranges per axis, and the
regions of the operator's output (padding borders, block offsets, window edges).)doc")
        .def_property_readonly("equal", &compare_report::equal, "True when every element is bit-identical.")
        .def_readonly("mismatches", &compare_report::mismatch_count, "How many elements differ.")
        .def_readonly("element_count", &compare_report::element_count)
        .def_readonly("data_type", &compare_report::type)
        .def_property_readonly("shape", [](const compare_report& r) { return py::tuple(py::cast(r.sizes)); })
        .def_readonly("first", &compare_report::first, "The first mismatches in C order (max_listed of them).")
        .def_readonly("axis_ranges", &compare_report::axis_ranges, "Per axis, the [first, last] coordinate runs that hold mismatches.")
        .def_readonly("op", &compare_report::op, "The operator the regions belong to (\"\" without a desc).")
        .def_readonly("regions", &compare_report::regions, "Per region of the operator's output, most mismatches first.")
        .def("__str__", &compare_report::to_string)
        .def("__repr__", [](const compare_report& r) {
            return r.equal() ? detail::message("<dmlref.CompareReport: all {} elements are bit-identical>", r.element_count)
                             : detail::message("<dmlref.CompareReport: {} of {} elements differ>", r.mismatch_count,
                                               r.element_count);
        });
    m.def("compare", &compare_arrays, "actual"_a, "expected"_a, "desc"_a = py::none(), "nan_equal"_a = false,
          "max_listed"_a = 10,
          R"doc(compare($module, actual, expected, desc=None, nan_equal=False, max_listed=10)
--

Compares two arrays bit for bit (any strides and byte order; -0.0 differs from 0.0; NaNs by their
bits unless nan_equal) and returns a CompareReport. desc, the operator whose output `expected` is
(OutputTensor.Sizes must be the arrays' shape), adds the regions of that output and, for each
listed mismatch, the input element (or the padding constant) it comes from. Raises
ValidationError where the dtypes or shapes differ.)doc");

    py::class_<loaded_model, std::shared_ptr<loaded_model>>(m, "Model", R"doc(A DxDispatch model file, read by dmlref run's reader.

resources: name -> a numpy array over the resource's values (zero-copy; write inputs into it before
run()); dispatchables: name -> desc; commands: what run() does; log: what the last run printed.)doc")
        .def_property_readonly("file", [](const loaded_model& lm) { return lm.m.file.string(); })
        .def_property_readonly("resources",
                               [](py::object self) {
                                   const auto& lm = self.cast<const loaded_model&>();
                                   py::dict resources;
                                   for (const auto& [name, r] : lm.m.resources) resources[py::str(name)] = resource_array(r, self);
                                   return resources;
                               })
        .def_property_readonly("dispatchables",
                               [](const loaded_model& lm) {
                                   py::dict descs;
                                   for (const auto& [name, d] : lm.m.dispatchables) descs[py::str(name)] = py::cast(d.desc);
                                   return descs;
                               })
        .def_property_readonly("commands",
                               [](const loaded_model& lm) {
                                   py::list commands;
                                   for (const model::command& c : lm.m.commands) {
                                       if (const auto* d = std::get_if<model::dispatch_command>(&c))
                                           commands.append(py::dict("type"_a = "dispatch", "dispatchable"_a = d->dispatchable,
                                                                    "input"_a = d->inputs.at(0), "output"_a = d->outputs.at(0)));
                                       else if (const auto* p = std::get_if<model::print_command>(&c))
                                           commands.append(py::dict("type"_a = "print", "resource"_a = p->resource,
                                                                    "verbose"_a = p->verbose));
                                       else if (const auto* w = std::get_if<model::write_file_command>(&c))
                                           commands.append(py::dict("type"_a = "writeFile", "resource"_a = w->resource,
                                                                    "target"_a = w->target.string()));
                                   }
                                   return commands;
                               })
        .def_readonly("log", &loaded_model::log, "What the last run() printed, as `dmlref run` prints it.")
        .def(
            "run", [](loaded_model& lm, py::handle level) { return run_loaded(lm, parse_feature_level(level)); },
            "feature_level"_a = "6_4",
            "run($self, feature_level=\"6_4\")\n--\n\nRuns the commands in order (dispatch, print, writeFile) and returns "
            "what they printed.")
        .def("__repr__", [](const loaded_model& lm) {
            return detail::message("<dmlref.Model {}: {} resources, {} dispatchables, {} commands>", lm.m.file.string(),
                                   lm.m.resources.size(), lm.m.dispatchables.size(), lm.m.commands.size());
        });
    m.def(
        "load_model",
        [](py::handle path_like, py::handle level, py::handle max_memory, bool allow_outside_paths) {
            const auto path = py::str(py::module_::import("os").attr("fspath")(path_like)).cast<std::string>();
            auto lm = std::make_shared<loaded_model>();
            const auto options = load_options_of(level, max_memory, allow_outside_paths);
            py::gil_scoped_release released;
            lm->m = model::load(path, options);
            return lm;
        },
        "path"_a, "feature_level"_a = "6_4", "max_memory"_a = py::none(), "allow_outside_paths"_a = false,
        R"doc(load_model($module, path, feature_level="6_4", max_memory=None, allow_outside_paths=False)
--

Reads a DxDispatch model file as `dmlref run` does: every field and binding checked (at
feature_level), resources read and bounded by max_memory (bytes, or "512M", "2G"; default the memory
available), sourcePath and targetPath kept inside the model's folder unless allow_outside_paths.
Returns a Model; raises ValidationError naming the file, the JSON path and the value.)doc");
    m.def(
        "run_model",
        [](py::handle model_or_path, py::handle level, py::handle max_memory, bool allow_outside_paths) {
            std::shared_ptr<loaded_model> lm;
            if (py::isinstance<loaded_model>(model_or_path)) {
                lm = model_or_path.cast<std::shared_ptr<loaded_model>>();
            } else {
                const auto path = py::str(py::module_::import("os").attr("fspath")(model_or_path)).cast<std::string>();
                const auto options = load_options_of(level, max_memory, allow_outside_paths);
                lm = std::make_shared<loaded_model>();
                py::gil_scoped_release released;
                lm->m = model::load(path, options);
            }
            run_loaded(*lm, parse_feature_level(level));
            return lm;
        },
        "model"_a, "feature_level"_a = "6_4", "max_memory"_a = py::none(), "allow_outside_paths"_a = false,
        R"doc(run_model($module, model, feature_level="6_4", max_memory=None, allow_outside_paths=False)
--

Runs a model file (a path, or a Model from load_model) as `dmlref run` does and returns the Model:
its resources hold the results, model.log the text the tool prints ("Resource 'output': 7, 9").)doc");
}

} // namespace dmlref::python
