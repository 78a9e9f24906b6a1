// dmlref's descs as DirectML's C structs (include/dmlref/directml/translate.hpp), checked field by
// field off Windows too: the layouts are pinned by abi.hpp's static_asserts, the values here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include <dmlref/directml/translate.hpp>

using namespace dmlref;
namespace abi = dmlref::directml::abi;

namespace {
const abi::buffer_tensor_desc& buffer_of(const abi::tensor_desc* t) {
    REQUIRE(t->Type == abi::tensor_type_buffer);
    return *static_cast<const abi::buffer_tensor_desc*>(t->Desc);
}
} // namespace

TEST_CASE("directml translate: PADDING1 carries every field unchanged, invalid values included") {
    padding1_desc d{make_buffer_tensor_desc(data_type::int16, {1, 2, 3}, std::vector<std::uint32_t>{6, 3, 1}),
                    make_buffer_tensor_desc(data_type::int16, {1, 2, 9}),
                    static_cast<padding_mode>(7),
                    data_type::uint16,
                    scalar_union::of(std::uint64_t{0x1122334455667788}),
                    {0, 0, 4},
                    {0, 0, 2}};
    d.input_tensor.total_tensor_size_in_bytes = 1234;
    d.input_tensor.guaranteed_base_offset_alignment = 3;
    d.output_tensor.flags = static_cast<tensor_flags>(2);
    const directml::translated t(d);
    CHECK(t.op().Type == 155);
    const auto& p = *static_cast<const abi::padding1_operator_desc*>(t.op().Desc);
    CHECK(p.PaddingMode == 7);
    CHECK(p.PaddingValueDataType == static_cast<std::uint32_t>(data_type::uint16));
    std::uint64_t value = 0;
    std::memcpy(&value, p.PaddingValue.Bytes, 8);
    CHECK(value == 0x1122334455667788);
    CHECK(p.DimensionCount == 3);
    CHECK(p.StartPadding[2] == 4);
    CHECK(p.EndPadding[2] == 2);
    const auto& in = buffer_of(p.InputTensor);
    CHECK(in.DataType == static_cast<std::uint32_t>(data_type::int16));
    CHECK(in.DimensionCount == 3);
    CHECK(in.Sizes[2] == 3);
    REQUIRE(in.Strides != nullptr);
    CHECK(in.Strides[0] == 6);
    CHECK(in.TotalTensorSizeInBytes == 1234);
    CHECK(in.GuaranteedBaseOffsetAlignment == 3);
    const auto& out = buffer_of(p.OutputTensor);
    CHECK(out.Flags == 2);
    CHECK(out.Strides == nullptr); // packed: no Strides array
    CHECK(&t.input() == &in);
}

TEST_CASE("directml translate: SLICE1's signed strides, the depth/space orders, PADDING's float value") {
    const slice1_desc s{make_buffer_tensor_desc(data_type::float32, {4, 4}), make_buffer_tensor_desc(data_type::float32, {2, 2}),
                        {0, 1}, {4, 3}, {-2, std::numeric_limits<std::int32_t>::min()}};
    const directml::translated ts(s);
    const auto& sd = *static_cast<const abi::slice1_operator_desc*>(ts.op().Desc);
    CHECK(ts.op().Type == 111);
    CHECK(sd.DimensionCount == 2);
    CHECK(sd.InputWindowStrides[0] == -2);
    CHECK(sd.InputWindowStrides[1] == std::numeric_limits<std::int32_t>::min());

    const depth_to_space1_desc d{make_buffer_tensor_desc(data_type::uint8, {1, 4, 1, 1}),
                                 make_buffer_tensor_desc(data_type::uint8, {1, 1, 2, 2}), 2,
                                 depth_space_order::column_row_depth};
    const directml::translated td(d);
    const auto& dd = *static_cast<const abi::depth_space1_operator_desc*>(td.op().Desc);
    CHECK(td.op().Type == 113);
    CHECK(dd.BlockSize == 2);
    CHECK(dd.Order == 1);

    const padding_desc p{make_buffer_tensor_desc(data_type::float32, {2}), make_buffer_tensor_desc(data_type::float32, {4}),
                         padding_mode::wrap, -0.0f, {1}, {1}};
    const directml::translated tp(p);
    const auto& pd = *static_cast<const abi::padding_operator_desc*>(tp.op().Desc);
    CHECK(std::signbit(pd.PaddingValue));
    CHECK(pd.PaddingMode == 4);
}

TEST_CASE("directml translate: what DirectML's structs cannot carry is refused by name") {
    slice_desc s{make_buffer_tensor_desc(data_type::float32, {4, 4}), make_buffer_tensor_desc(data_type::float32, {2, 2}),
                 {0, 0}, {2, 2}, {1, 1, 1}};
    CHECK_THROWS_WITH(directml::translated(s), Catch::Contains("SLICE: Strides has 3 entries"));
    s.strides = {1, 1};
    s.input_tensor.strides = std::vector<std::uint32_t>{4, 1, 1};
    CHECK_THROWS_WITH(directml::translated(s), Catch::Contains("InputTensor.Strides has 3 entries and Sizes 2"));
}

TEST_CASE("directml translate: ELEMENT_WISE_IDENTITY, with ScaleBias null or carried as given") {
    element_wise_identity_desc e{make_buffer_tensor_desc(data_type::float16, {2, 3}, std::vector<std::uint32_t>{0, 1}),
                                 make_buffer_tensor_desc(data_type::float16, {2, 3}), std::nullopt};
    {
        const directml::translated t(e);
        CHECK(t.op().Type == 1);
        const auto& d = *static_cast<const abi::element_wise_identity_operator_desc*>(t.op().Desc);
        CHECK(d.ScaleBias == nullptr);
        const auto& in = buffer_of(d.InputTensor);
        REQUIRE(in.Strides != nullptr);
        CHECK(in.Strides[0] == 0);
        CHECK(buffer_of(d.OutputTensor).Strides == nullptr);
    }
    e.scale_bias = scale_bias{2.0f, -0.0f};
    const directml::translated t(e);
    const auto& d = *static_cast<const abi::element_wise_identity_operator_desc*>(t.op().Desc);
    REQUIRE(d.ScaleBias != nullptr);
    CHECK(d.ScaleBias->Scale == 2.0f);
    CHECK(std::signbit(d.ScaleBias->Bias));
}

TEST_CASE("directml translate: SLICE_GRAD carries its window and DirectML's tensor names") {
    slice_grad_desc g{make_buffer_tensor_desc(data_type::float32, {2, 2}, std::vector<std::uint32_t>{0, 1}),
                      make_buffer_tensor_desc(data_type::float32, {4, 4}), {0, 1}, {4, 3}, {2, -2}};
    const directml::translated t(g);
    CHECK(t.op().Type == 135);
    const auto& d = *static_cast<const abi::slice_grad_operator_desc*>(t.op().Desc);
    CHECK(d.DimensionCount == 2);
    CHECK(d.InputWindowOffsets[1] == 1);
    CHECK(d.InputWindowSizes[0] == 4);
    CHECK(d.InputWindowStrides[1] == -2);
    const auto& in = buffer_of(d.InputGradientTensor);
    REQUIRE(in.Strides != nullptr);
    CHECK(in.Strides[0] == 0);
    CHECK(buffer_of(d.OutputGradientTensor).Sizes[1] == 4);
    g.input_window_strides.pop_back();
    CHECK_THROWS_WITH(directml::translated(g), Catch::Contains("SLICE_GRAD: InputWindowStrides has 1 entries"));
    g.input_window_strides.push_back(1);
    g.input_tensor.strides = std::vector<std::uint32_t>{1};
    CHECK_THROWS_WITH(directml::translated(g), Catch::Contains("InputGradientTensor.Strides has 1 entries and Sizes 2"));
}

TEST_CASE("directml translate: TILE carries RepeatsCount and Repeats as given") {
    const tile_desc desc{make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 3}),
                         make_buffer_tensor_desc(data_type::float32, {1, 1, 6, 9}), {1, 1, 3, 3}};
    const directml::translated t(desc);
    CHECK(t.op().Type == 70);
    const auto& d = *static_cast<const abi::tile_operator_desc*>(t.op().Desc);
    REQUIRE(d.RepeatsCount == 4);
    CHECK(d.Repeats[2] == 3);
    CHECK(d.Repeats[3] == 3);
    CHECK(buffer_of(d.OutputTensor).Sizes[3] == 9);
    // A RepeatsCount that differs from the tensors' DimensionCount goes to DirectML as it is.
    const tile_desc short_repeats{desc.input_tensor, desc.output_tensor, {3}};
    const directml::translated u(short_repeats);
    CHECK(static_cast<const abi::tile_operator_desc*>(u.op().Desc)->RepeatsCount == 1);
}

TEST_CASE("directml translate: UPSAMPLE_2D carries ScaleSize (Width first) and InterpolationMode as given") {
    const upsample_2d_desc desc{make_buffer_tensor_desc(data_type::float16, {1, 1, 2, 2}),
                                make_buffer_tensor_desc(data_type::float16, {1, 1, 4, 6}), {3, 2},
                                interpolation_mode::linear};
    const directml::translated t(desc);
    CHECK(t.op().Type == 66);
    const auto& d = *static_cast<const abi::upsample_2d_operator_desc*>(t.op().Desc);
    CHECK(d.ScaleSize.Width == 3);
    CHECK(d.ScaleSize.Height == 2);
    CHECK(d.InterpolationMode == 1);
}

TEST_CASE("directml translate: JOIN carries InputCount, a contiguous array of its inputs, and Axis") {
    join_desc j{{make_buffer_tensor_desc(data_type::int8, {1, 2, 3}),
                 make_buffer_tensor_desc(data_type::int8, {1, 4, 3}, std::vector<std::uint32_t>{0, 3, 1}),
                 make_buffer_tensor_desc(data_type::int8, {1, 1, 3})},
                make_buffer_tensor_desc(data_type::int8, {1, 7, 3}),
                1};
    j.input_tensors[2].flags = static_cast<tensor_flags>(2);
    const directml::translated t(j);
    CHECK(t.op().Type == 63);
    REQUIRE(t.input_count() == 3);
    REQUIRE(t.output_count() == 1);
    const auto& d = *static_cast<const abi::join_operator_desc*>(t.op().Desc);
    REQUIRE(d.InputCount == 3);
    CHECK(d.Axis == 1);
    // DML_TENSOR_DESCs side by side, each pointing at its own buffer desc, in binding order.
    for (std::uint32_t k = 0; k < 3; ++k) {
        INFO("InputTensors[" << k << "]");
        const auto& in = buffer_of(&d.InputTensors[k]);
        CHECK(&in == &t.input(k));
        CHECK(in.DimensionCount == 3);
        CHECK(in.Sizes[1] == j.input_tensors[k].sizes[1]);
        CHECK((in.Strides != nullptr) == (k == 1));
    }
    CHECK(buffer_of(&d.InputTensors[1]).Strides[0] == 0);
    CHECK(buffer_of(&d.InputTensors[2]).Flags == 2);
    CHECK(buffer_of(d.OutputTensor).Sizes[1] == 7);
    CHECK(&buffer_of(d.OutputTensor) == &t.output());

    // InputCount 0 goes to DirectML as it is, with no array; an Axis past the rank too.
    const join_desc none{{}, make_buffer_tensor_desc(data_type::int8, {4}), 7};
    const directml::translated u(none);
    const auto& e = *static_cast<const abi::join_operator_desc*>(u.op().Desc);
    CHECK(e.InputCount == 0);
    CHECK(e.InputTensors == nullptr);
    CHECK(e.Axis == 7);
    CHECK(u.input_count() == 0);
}

TEST_CASE("directml translate: SPLIT carries its input, OutputCount, a contiguous array of its outputs, and Axis") {
    const split_desc s{make_buffer_tensor_desc(data_type::float64, {6, 2}),
                       {make_buffer_tensor_desc(data_type::float64, {2, 2}),
                        make_buffer_tensor_desc(data_type::float64, {4, 2}, std::vector<std::uint32_t>{3, 1})},
                       0};
    const directml::translated t(s);
    CHECK(t.op().Type == 62);
    REQUIRE(t.output_count() == 2);
    const auto& d = *static_cast<const abi::split_operator_desc*>(t.op().Desc);
    CHECK(d.OutputCount == 2);
    CHECK(d.Axis == 0);
    CHECK(buffer_of(d.InputTensor).Sizes[0] == 6);
    CHECK(&buffer_of(&d.OutputTensors[1]) == &t.output(1));
    CHECK(buffer_of(&d.OutputTensors[1]).Strides[0] == 3);
    CHECK(buffer_of(&d.OutputTensors[1]).TotalTensorSizeInBytes == s.output_tensors[1].total_tensor_size_in_bytes);
    // A part whose Strides has another length than its Sizes cannot be carried: refused by its name.
    split_desc bad = s;
    bad.output_tensors[1].strides = std::vector<std::uint32_t>{1};
    CHECK_THROWS_WITH(directml::translated(bad), Catch::Contains("OutputTensors[1].Strides has 1 entries and Sizes 2"));
}

namespace {
// Each tensor pointer of an indexed operator's struct must point at the translated buffer desc of
// the same binding slot (inputs_of order), with that tensor's own sizes.
void check_tensor(const abi::tensor_desc* field, const abi::buffer_tensor_desc& slot, const buffer_tensor_desc& t) {
    const auto& b = buffer_of(field);
    CHECK(&b == &slot);
    REQUIRE(b.DimensionCount == t.sizes.size());
    for (std::size_t i = 0; i < t.sizes.size(); ++i) CHECK(b.Sizes[i] == t.sizes[i]);
    CHECK(b.DataType == static_cast<std::uint32_t>(t.data_type));
}
} // namespace

TEST_CASE("directml translate: REVERSE_SUBSEQUENCES and ONE_HOT carry their two inputs in order and Axis") {
    const reverse_subsequences_desc r{make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 4}),
                                      make_buffer_tensor_desc(data_type::uint32, {1, 1, 3, 1}),
                                      make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 4}), 3};
    const directml::translated t(r);
    CHECK(t.op().Type == 106);
    REQUIRE(t.input_count() == 2);
    const auto& d = *static_cast<const abi::reverse_subsequences_operator_desc*>(t.op().Desc);
    check_tensor(d.InputTensor, t.input(0), r.input_tensor);
    check_tensor(d.SequenceLengthsTensor, t.input(1), r.sequence_lengths_tensor);
    check_tensor(d.OutputTensor, t.output(), r.output_tensor);
    CHECK(d.Axis == 3);

    const one_hot_desc o{make_buffer_tensor_desc(data_type::int64, {1, 1, 1, 3}),
                         make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 2}),
                         make_buffer_tensor_desc(data_type::float16, {1, 1, 3, 5}), 9}; // an Axis past the rank, as given
    const directml::translated u(o);
    CHECK(u.op().Type == 95);
    const auto& e = *static_cast<const abi::one_hot_operator_desc*>(u.op().Desc);
    check_tensor(e.IndicesTensor, u.input(0), o.indices_tensor);
    check_tensor(e.ValuesTensor, u.input(1), o.values_tensor);
    check_tensor(e.OutputTensor, u.output(), o.output_tensor);
    CHECK(e.Axis == 9);
}

TEST_CASE("directml translate: the gathers carry Input, Indices, Output and their counts in DirectML's field order") {
    const auto in = make_buffer_tensor_desc(data_type::int16, {1, 2, 3, 4});
    const auto idx = make_buffer_tensor_desc(data_type::uint64, {1, 1, 2, 2});
    const auto out = make_buffer_tensor_desc(data_type::int16, {1, 2, 2, 4});
    {
        const gather_desc g{in, idx, out, 2, 5};
        const directml::translated t(g);
        CHECK(t.op().Type == 67);
        const auto& d = *static_cast<const abi::gather_operator_desc*>(t.op().Desc);
        check_tensor(d.InputTensor, t.input(0), in);
        check_tensor(d.IndicesTensor, t.input(1), idx);
        check_tensor(d.OutputTensor, t.output(), out);
        CHECK(d.Axis == 2);
        CHECK(d.IndexDimensions == 5);
    }
    {
        const gather_elements_desc g{in, idx, out, 7};
        const directml::translated t(g);
        CHECK(t.op().Type == 107);
        const auto& d = *static_cast<const abi::gather_elements_operator_desc*>(t.op().Desc);
        check_tensor(d.IndicesTensor, t.input(1), idx);
        CHECK(d.Axis == 7);
    }
    {
        const gather_nd_desc g{in, idx, out, 3, 4};
        const directml::translated t(g);
        CHECK(t.op().Type == 108);
        const auto& d = *static_cast<const abi::gather_nd_operator_desc*>(t.op().Desc);
        check_tensor(d.InputTensor, t.input(0), in);
        check_tensor(d.IndicesTensor, t.input(1), idx);
        CHECK(d.InputDimensionCount == 3);
        CHECK(d.IndicesDimensionCount == 4);
    }
    {
        const gather_nd1_desc g{in, idx, out, 4, 3, 2};
        const directml::translated t(g);
        CHECK(t.op().Type == 140);
        const auto& d = *static_cast<const abi::gather_nd1_operator_desc*>(t.op().Desc);
        check_tensor(d.OutputTensor, t.output(), out);
        CHECK(d.InputDimensionCount == 4);
        CHECK(d.IndicesDimensionCount == 3);
        CHECK(d.BatchDimensionCount == 2);
    }
}

TEST_CASE("directml translate: the scatters carry Input, Indices, Updates, Output and their fields in DirectML's order") {
    const auto in = make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 3});
    const auto idx = make_buffer_tensor_desc(data_type::int32, {1, 1, 2, 3});
    const auto upd = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 3}, std::vector<std::uint32_t>{6, 6, 3, 1});
    const auto out = make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 3});
    {
        const scatter_elements_desc s{in, idx, upd, out, 2};
        const directml::translated t(s);
        CHECK(t.op().Type == 94);
        REQUIRE(t.input_count() == 3);
        const auto& d = *static_cast<const abi::scatter_operator_desc*>(t.op().Desc);
        check_tensor(d.InputTensor, t.input(0), in);
        check_tensor(d.IndicesTensor, t.input(1), idx);
        check_tensor(d.UpdatesTensor, t.input(2), upd);
        check_tensor(d.OutputTensor, t.output(), out);
        CHECK(buffer_of(d.UpdatesTensor).Strides[0] == 6);
        CHECK(d.Axis == 2);
    }
    {
        const scatter_nd_desc s{in, idx, upd, out, 4, 3};
        const directml::translated t(s);
        CHECK(t.op().Type == 109);
        const auto& d = *static_cast<const abi::scatter_nd_operator_desc*>(t.op().Desc);
        check_tensor(d.UpdatesTensor, t.input(2), upd);
        check_tensor(d.OutputTensor, t.output(), out);
        CHECK(d.InputDimensionCount == 4);
        CHECK(d.IndicesDimensionCount == 3);
    }
}
