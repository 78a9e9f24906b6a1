// verify() has teeth: with a deliberately wrong kernel it reports the mismatch and where. Also the
// public conformance models, a tensor of 16M elements, and the errors of the backend.
#include <dmlref/d3d12.hpp>
#include <dmlref/npy.hpp>
#include <model.hpp>

#include "random_cases.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <numeric>
#include <set>

using namespace dmlref;
using dmlref::random_cases::input_of;
using dmlref::random_cases::output_of;

namespace {

d3d12::context& gpu() {
    static d3d12::context instance;
    return instance;
}

std::vector<std::byte> iota_bytes(std::uint64_t count) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 7 + 1);
    return bytes;
}

const region_count* region(const compare_report& report, std::string_view name) {
    for (const region_count& r : report.regions)
        if (r.region == name) return &r;
    return nullptr;
}

} // namespace

TEST_CASE("d3d12 verify: the correct kernels agree with the CPU", "[d3d12][verify]") {
    const operator_desc desc = depth_to_space1_desc{make_buffer_tensor_desc(data_type::float32, {1, 12, 2, 3}),
                                                    make_buffer_tensor_desc(data_type::float32, {1, 3, 4, 6}), 2,
                                                    depth_space_order::column_row_depth};
    const compare_report report = gpu().verify(desc, iota_bytes(input_of(desc).total_tensor_size_in_bytes));
    CHECK(report.equal());
    CHECK(report.element_count == 72);
}

TEST_CASE("d3d12 verify: strided outputs with gaps and broadcast inputs compare by element", "[d3d12][verify]") {
    // Output {3, 4} of INT16 with rows 6 elements apart (2 gap elements per row); input broadcast on axis 0.
    const operator_desc desc = slice1_desc{make_buffer_tensor_desc(data_type::int16, {3, 5}, std::vector<std::uint32_t>{0, 1}),
                                           make_buffer_tensor_desc(data_type::int16, {3, 4}, std::vector<std::uint32_t>{6, 1}),
                                           {0, 1}, {3, 4}, {1, -1}};
    const auto input = iota_bytes(input_of(desc).total_tensor_size_in_bytes);
    const compare_report report = gpu().verify(desc, input);
    CHECK(report.equal());
    CHECK(report.element_count == 12);
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::swapped_depth_space_order});
    CHECK(wrong.verify(desc, input).equal()); // the fault is in the depth/space kernel only
}

TEST_CASE("d3d12 verify: a kernel with the other depth/space order is caught, with coordinates", "[d3d12][verify]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::swapped_depth_space_order});
    for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
        const operator_desc desc = depth_to_space1_desc{make_buffer_tensor_desc(data_type::uint8, {1, 12, 2, 3}),
                                                        make_buffer_tensor_desc(data_type::uint8, {1, 3, 4, 6}), 2,
                                                        order};
        const auto input = iota_bytes(input_of(desc).total_tensor_size_in_bytes);
        const compare_report report = wrong.verify(desc, input);
        INFO(report.to_string());
        CHECK_FALSE(report.equal());
        // Channel 0 at block offset (0, 0) reads input channel 0 in both orders; the rest differ.
        CHECK(report.mismatch_count > 0);
        CHECK(report.mismatch_count < report.element_count);
        REQUIRE_FALSE(report.first.empty());
        CHECK(report.first[0].coordinates.size() == 4);
        CHECK(report.first[0].expected_bits != report.first[0].actual_bits);
        CHECK(report.to_string().find("elements differ") != std::string::npos);
        // The same desc on the correct kernels agrees.
        CHECK(gpu().verify(desc, input).equal());
    }
}

TEST_CASE("d3d12 verify: an off-by-one fold is caught in the borders, never the interior", "[d3d12][verify]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::off_by_one_fold});
    for (auto mode : {padding_mode::reflection, padding_mode::symmetric, padding_mode::wrap}) {
        const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::int16, {3, 4}),
                                                 make_buffer_tensor_desc(data_type::int16, {3 + 5 + 2, 4 + 9 + 0}),
                                                 mode,
                                                 data_type::int16,
                                                 {},
                                                 {5, 9},
                                                 {2, 0}};
        const auto input = iota_bytes(input_of(desc).total_tensor_size_in_bytes);
        const compare_report report = wrong.verify(desc, input);
        INFO(to_string(mode) << "\n" << report.to_string());
        CHECK_FALSE(report.equal());
        const region_count* interior = region(report, "interior (copied from the input)");
        REQUIRE(interior != nullptr);
        CHECK(interior->mismatches == 0);
        CHECK(region(report, "start padding of axis 1") != nullptr);
        CHECK(region(report, "start padding of axis 1")->mismatches > 0);
        CHECK(gpu().verify(desc, input).equal());
    }
}

TEST_CASE("d3d12 verify: a SLICE_GRAD kernel that fills the window's gaps is caught there", "[d3d12][verify]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::slice_grad_no_gaps});
    // Stride 3 on axis 1: of the window's span only every third coordinate holds an element.
    const operator_desc desc = slice_grad_desc{make_buffer_tensor_desc(data_type::float16, {2, 3}),
                                               make_buffer_tensor_desc(data_type::float16, {4, 10}), {1, 1}, {2, 9}, {1, 3}};
    const auto input = iota_bytes(input_of(desc).total_tensor_size_in_bytes);
    const compare_report report = wrong.verify(desc, input);
    INFO(report.to_string());
    CHECK_FALSE(report.equal());
    CHECK(report.mismatch_count == 2 * 3 * 2); // the two gaps after each of a row's three elements, in both rows
    CHECK(gpu().verify(desc, input).equal());
}

TEST_CASE("d3d12 verify: descs of several inputs, a GATHER_ND whose tuples a broken kernel misreads", "[d3d12][verify]") {
    // Tuples (0, 1), (1, 0), (1, 1) of a {2, 2, 3} input, each taking a row of 3.
    const operator_desc desc = gather_nd_desc{make_buffer_tensor_desc(data_type::float32, {1, 2, 2, 3}),
                                              make_buffer_tensor_desc(data_type::int32, {1, 1, 3, 2}),
                                              make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 3}), 3, 2};
    const auto input = iota_bytes(48);
    const std::vector<std::int32_t> tuples = {0, 1, 1, 0, -1, -1};
    std::vector<std::byte> indices(tuples.size() * 4);
    std::memcpy(indices.data(), tuples.data(), indices.size());
    const std::span<const std::byte> both[] = {input, indices};
    const compare_report report = gpu().verify(desc, both);
    CHECK(report.equal());
    CHECK(report.element_count == 9);
    // Reading each tuple's first index for both entries: (0, 0), (1, 1), (-1, -1) -> rows 0, 3, 3:
    // the first two rows differ, the third is right.
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::gather_tuple_first_entry});
    const compare_report caught = wrong.verify(desc, both);
    INFO(caught.to_string());
    CHECK(caught.mismatch_count == 6);
    // One buffer for a desc that binds two is refused with the counts.
    CHECK_THROWS_WITH(gpu().verify(desc, input), "GATHER_ND: 1 input buffers for 2 input tensors; bind one buffer to each");
}

TEST_CASE("d3d12: every public conformance model bit-exactly on the GPU", "[d3d12][conformance]") {
    const std::filesystem::path dir = std::filesystem::path(DMLREF_CONFORMANCE_DIR);
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (std::filesystem::exists(entry.path() / "model.json")) names.insert(entry.path().filename().string());
    CHECK(names.size() == 28);
    for (const std::string& name : names) {
        DYNAMIC_SECTION(name) {
            auto m = model::load(dir / name / "model.json");
            REQUIRE(m.commands.size() == 2);
            const auto& dispatch = std::get<model::dispatch_command>(m.commands[0]);
            auto& output = m.resources.at(dispatch.outputs.at(0));
            m.commands.resize(1); // the dispatch; the test reads the output resource itself
            int calls = 0;
            model::run(m, {.execute = [&](const operator_desc& d, std::span<const std::byte> in, std::span<std::byte> out) {
                               ++calls;
                               const auto bytes = output_of(d).total_tensor_size_in_bytes;
                               const auto result = gpu().run(d, in, std::span<const std::byte>(out.first(bytes)));
                               std::copy(result.begin(), result.end(), out.begin());
                           }});
            CHECK(calls == 1);
            const auto expected = npy::read(dir / name / "expected.npy");
            REQUIRE(output.value_bytes == expected.data.size());
            const auto actual = output.bytes().first(expected.data.size());
            CHECK(std::equal(actual.begin(), actual.end(), expected.data.begin()));
        }
    }
}

TEST_CASE("d3d12: tensors of 16M elements", "[d3d12][large]") {
    SECTION("SLICE1 of FLOAT32 {4096, 4096} reversed on one axis") {
        const operator_desc desc = slice1_desc{make_buffer_tensor_desc(data_type::float32, {4096, 4096}),
                                               make_buffer_tensor_desc(data_type::float32, {4096, 4096}),
                                               {0, 0},
                                               {4096, 4096},
                                               {1, -1}};
        const auto report = gpu().verify(desc, iota_bytes(input_of(desc).total_tensor_size_in_bytes));
        INFO(report.to_string());
        CHECK(report.equal());
        CHECK(report.element_count == 16u * 1024 * 1024);
    }
    SECTION("DEPTH_TO_SPACE1 of UINT8 {1, 64, 512, 512}, four elements per word") {
        const operator_desc desc = depth_to_space1_desc{make_buffer_tensor_desc(data_type::uint8, {1, 64, 512, 512}),
                                                        make_buffer_tensor_desc(data_type::uint8, {1, 4, 2048, 2048}),
                                                        4, depth_space_order::column_row_depth};
        const auto report = gpu().verify(desc, iota_bytes(input_of(desc).total_tensor_size_in_bytes));
        INFO(report.to_string());
        CHECK(report.equal());
        CHECK(report.element_count == 16u * 1024 * 1024);
    }
}

TEST_CASE("d3d12: descs are validated before any GPU work", "[d3d12][errors]") {
    const operator_desc bad = slice1_desc{make_buffer_tensor_desc(data_type::float32, {4}),
                                          make_buffer_tensor_desc(data_type::float32, {2}), {3}, {2}, {1}};
    const std::vector<std::byte> input(16);
    CHECK_THROWS_WITH(gpu().run(bad, input), Catch::Contains("SLICE1") && Catch::Contains("InputWindowOffsets[0]"));
    CHECK_THROWS_AS(gpu().verify(bad, input), validation_error);

    const operator_desc good = slice1_desc{make_buffer_tensor_desc(data_type::float32, {4}),
                                           make_buffer_tensor_desc(data_type::float32, {2}), {0}, {2}, {1}};
    CHECK_THROWS_WITH(gpu().run(good, std::span(input).first(8)), Catch::Contains("has 8 bytes"));
    auto small = gpu().create_buffer(4);
    auto large = gpu().create_buffer(16);
    CHECK_THROWS_WITH(gpu().execute(good, small.get(), large.get()),
                      Catch::Contains("InputTensor") && Catch::Contains("has 4 bytes"));
    CHECK_THROWS_WITH(gpu().execute(good, large.get(), large.get()), Catch::Contains("same"));
}

TEST_CASE("d3d12: a failing D3D12 call throws with its name and HRESULT", "[d3d12][errors]") {
    // 1 TiB exceeds every allocation limit (lavapipe: 2 GiB).
    try {
        gpu().create_buffer(std::uint64_t{1} << 40);
        FAIL("creating a 1 TiB buffer succeeded");
    } catch (const d3d12::error& e) {
        CHECK(e.call() == "ID3D12Device::CreateCommittedResource");
        CHECK(FAILED(e.result()));
        CHECK(std::string(e.what()).find("HRESULT 0x") != std::string::npos);
    }
}

TEST_CASE("d3d12: execute on caller-owned resources, upload and readback", "[d3d12]") {
    const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::int8, {5}),
                                             make_buffer_tensor_desc(data_type::int8, {9}), padding_mode::wrap,
                                             data_type::int8, scalar_union::of(std::int8_t{0}), {3}, {1}};
    auto in = gpu().create_buffer(8);
    auto out = gpu().create_buffer(12);
    const std::vector<std::byte> input = iota_bytes(8);
    gpu().upload(in.get(), input);
    gpu().upload(out.get(), std::vector<std::byte>(12, std::byte{0x55}));
    gpu().execute(desc, in.get(), out.get());
    const auto result = gpu().readback(out.get(), 12);
    std::vector<std::byte> expected(12, std::byte{0x55});
    dmlref::execute(desc, input, expected);
    CHECK(result == expected);
    CHECK(result[9] == std::byte{0x55}); // past the tensor: untouched
}
