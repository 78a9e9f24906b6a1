// GATHER_ELEMENTS (Axis a): Output[o] = Input[o with o[a] replaced by wrap(Indices[o])], where a
// negative index counts from the end: wrap(i) = i < 0 ? i + Input.Sizes[a] : i.
// The host has checked every index against [-Input.Sizes[a], Input.Sizes[a]) (sizes < 2^31), so
// an index element's low word carries its value, sign included, for all four index types.
// Header words (the depth/space ones, unused here): input_strides.x = log2 of the index element's
// bytes (2 or 3), .y = the input's stride along Axis, .z = the input's size along Axis.
// Axis table: the input stride is 0 on Axis (the index supplies that coordinate); axis_b[k].w is
// the IndicesTensor's stride.
#include "layout.hlsli"

ByteAddressBuffer indices : register(t1);

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    uint at = 0; // the index element at the same coordinates as the output element
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
    // Only an element reads its index (a gap's `at` may lie past the indices' buffer).
    if (valid) {
        int i = int(indices.Load(at << input_strides.x));
        if (i < 0) i = i + int(input_strides.z);
        src = uint(i) * input_strides.y + src;
    }
    return valid;
}

#include "main.hlsli"
