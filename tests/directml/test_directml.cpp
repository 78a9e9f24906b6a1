// The DirectML backend against the real DirectML.dll (DMLREF_DIRECTML_DLL): the device reports its
// capabilities, its verdicts and outputs on known descs, the sentinel, and the references it holds.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <vector>

#include <dmlref/directml.hpp>


using namespace dmlref;

namespace {

/// One DirectML device for the whole suite: creating one takes seconds under Wine.
directml::device& dml() {
    static directml::device device;
    return device;
}

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), values.size() * 4);
    return values;
}

slice1_desc readme_slice() {
    return slice1_desc{make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4}),
                       make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}),
                       {0, 0, 0, 1},
                       {1, 1, 4, 3},
                       {1, 1, -2, 2}};
}

std::vector<std::byte> one_to_sixteen() {
    std::vector<float> v(16);
    for (int i = 0; i < 16; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
    std::vector<std::byte> bytes(64);
    std::memcpy(bytes.data(), v.data(), 64);
    return bytes;
}

} // namespace

TEST_CASE("directml: the device reports its feature level and data types, queried, not assumed") {
    const directml::capabilities& caps = dml().caps();
    INFO("DLL " << caps.dll.string() << ", feature level " << to_string(caps.max_feature_level));
    CHECK(caps.max_feature_level >= feature_level::fl_2_1);
    CHECK(caps.supported_types.size() + caps.unsupported_types.size() == std::size(movable_data_types));
    CHECK(caps.supports(data_type::float32));
    WARN("DirectML at " << caps.dll.string() << ": feature level " << to_string(caps.max_feature_level) << ", "
                        << caps.supported_types.size() << " of 11 data types supported");
}

TEST_CASE("directml: accepts the documented SLICE1 example and refuses a window past the input") {
    slice1_desc d = readme_slice();
    CHECK_FALSE(dml().accepts(d).has_value());
    d.input_window_sizes[3] = 4; // offset 1 + 4 reaches past W = 4
    const auto why = dml().accepts(d);
    REQUIRE(why.has_value());
    CHECK_THAT(*why, Catch::Contains("CreateOperator failed with HRESULT 0x80070057 (E_INVALIDARG)"));
}

TEST_CASE("directml: runs the documented SLICE1 example to DirectML's bytes, and verify agrees with the reference") {
    const auto out = as_floats(dml().run(readme_slice(), one_to_sixteen()));
    CHECK(out == std::vector<float>{14, 16, 6, 8});
    const compare_report report = dml().verify(readme_slice(), one_to_sixteen());
    INFO(report.to_string());
    CHECK(report.equal());
}

TEST_CASE("directml: the output buffer starts as the sentinel, so bytes no element covers keep it") {
    // A strided output with a gap element between rows: DirectML writes 4 elements of 6.
    slice1_desc d = readme_slice();
    d.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}, std::vector<std::uint32_t>{6, 6, 3, 1});
    const std::vector<std::byte> out = dml().run(d, one_to_sixteen());
    REQUIRE(out.size() == 20); // the last element is at index 1*3 + 1*1 = 4: five elements of 4 bytes
    const auto values = as_floats(out);
    CHECK(values[0] == 14);
    CHECK(values[1] == 16);
    CHECK(values[3] == 6);
    CHECK(values[4] == 8);
    std::uint32_t gap = 0;
    std::memcpy(&gap, out.data() + 8, 4);
    CHECK(gap == 0xA5A5A5A5u);
}

TEST_CASE("directml: a planted one-element difference fails verify with the report") {
    const slice1_desc d = readme_slice();
    std::vector<std::byte> expected(16);
    execute(d, one_to_sixteen(), expected);
    std::vector<std::byte> actual = dml().run(d, one_to_sixteen());
    actual[4] ^= std::byte{1};
    const compare_report report = compare(data_type::float32, d.output_tensor.sizes, expected, actual, {}, nullptr);
    CHECK_FALSE(report.equal());
    CHECK_THAT(report.to_string(), Catch::Contains("1 of 4 elements differ"));
}

TEST_CASE("directml: a desc DirectML's structs cannot carry is refused by name") {
    slice1_desc d = readme_slice();
    d.input_tensor.strides = std::vector<std::uint32_t>{16, 16, 4, 1, 1};
    CHECK_THROWS_AS(dml().accepts(d), directml::not_expressible);
}

TEST_CASE("directml: the backend releases every COM object it creates") {
    d3d12::context gpu;
    ID3D12Device* device = gpu.device();
    const auto references = [&] {
        device->AddRef();
        return device->Release();
    };
    const ULONG before = references();
    {
        directml::device local(gpu);
        CHECK(references() > before); // DirectML holds the D3D12 device
        CHECK_FALSE(local.accepts(readme_slice()).has_value());
        (void)local.run(readme_slice(), one_to_sixteen());
    }
    CHECK(references() == before);
}
