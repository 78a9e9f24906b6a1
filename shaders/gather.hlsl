// GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1, run from the CPU library's gather plan
// (dmlref::detail::gather_plan): per output axis an input step (0 where an index chooses the
// input coordinate) and an index step, then a tuple of indices, one for GATHER and
// GATHER_ELEMENTS and T for the ND ops, each moving the input element along its own axis:
//   Output[o] = Input[sum_k o_k * step_k + sum_m wrap_m(Indices[at(o) + m * tuple_step]) * stride_m]
// where a negative index counts from the end of its axis: wrap_m(i) = i < 0 ? i + size_m : i.
// The host has checked every index the plan reads against [-size_m, size_m) (sizes < 2^31), so an
// index element's low word carries its value, sign included, for all four index types.
// Header words (the depth/space ones, unused here): input_strides.x = log2 of the index element's
// bytes (2 or 3), .y = the tuple's length, .z = the index stride between its entries.
// Axis table: axis_a[k].z is the plan's input step and axis_b[k].w its index step; axis_b[m].x and
// .y hold tuple entry m's input stride and size.
#include "layout.hlsli"

ByteAddressBuffer indices : register(t1);

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    uint at = 0; // the first index element of this output element's tuple
    src = 0;
    fill = false;
    for (uint k = 0; k < rank; ++k) {
        uint c = rem / axis_a[k].x;
        rem = rem % axis_a[k].x;
        if (c >= axis_a[k].y) valid = false;
        src = c * axis_a[k].z + src;
        at = c * axis_b[k].w + at;
    }
    valid = valid && rem == 0;
    // Only an element reads its indices (a gap's `at` may lie past the indices' buffer).
    if (valid) {
        for (uint m = 0; m < input_strides.y; ++m) {
            int i = int(indices.Load((m * input_strides.z + at) << input_strides.x));
            if (i < 0) i = i + int(axis_b[m].y);
            src = uint(i) * axis_b[m].x + src;
        }
    }
    return valid;
}

#include "main.hlsli"
