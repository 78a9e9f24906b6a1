// SCATTER_ELEMENTS and SCATTER_ND, the second of two dispatches: the first (slice.hlsl as
// ELEMENT_WISE_IDENTITY) has copied InputTensor to OutputTensor; this one writes the updates.
// Out[o] = Updates[u] for the LAST u, in the updates' row-major order, whose indices name o
// (dmlref's rule for duplicate targets); an element no update names keeps the copy.
// An update u can land on o only where u's coordinates equal o's on the "fixed" axes: all but
// Axis (SCATTER_ELEMENTS), the trailing R = InputDimensionCount - T axes (SCATTER_ND, T the tuple
// length). So the kernel runs over the "free" coordinates alone (SCATTER_ELEMENTS: Axis;
// SCATTER_ND: the index tuples), from the last to the first, and takes the first match:
// address(u) = sum over the tuple's entries m of wrap(Indices[at(u) + m * tuple_step]) * tuple_axis[m].y
// equals o's offset along the tuple's axes (target).
// The host has checked every index against [-size, size) of the output axis it addresses (sizes
// < 2^31), so an index element's low word carries its value, sign included.
// Header words: input_strides.x = log2 of the index element's bytes (2 or 3), .y = the free axes,
// .z = the tuple length, .w = the IndicesTensor's stride between a tuple's entries; unused.x = the
// candidates (the free axes' sizes' product). Axis table: axis_a[k].z = the UpdatesTensor's
// stride and axis_a[k].w the IndicesTensor's (0 on free axes); axis_b[k].x = the output stride on
// the tuple's axes, else 0. t0 is the UpdatesTensor.
#define SCATTER_TABLES
#include "layout.hlsli"

ByteAddressBuffer indices : register(t1);

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    uint at = 0;     // the fixed part of the index offset
    uint target = 0; // o's offset along the tuple's axes
    src = 0;         // the fixed part of the update offset
    fill = false;
    for (uint k = 0; k < rank; ++k) {
        uint c = rem / axis_a[k].x;
        rem = rem % axis_a[k].x;
        if (c >= axis_a[k].y) valid = false;
        src = c * axis_a[k].z + src;
        at = c * axis_a[k].w + at;
        target = c * axis_b[k].x + target;
    }
    valid = valid && rem == 0;
    // Only an element reads indices (a gap's `at` may lie past the indices' buffer).
    if (valid) {
        uint chosen = 0;
        bool found = false;
        for (uint n = 0; n < unused.x; ++n) {
            uint q = unused.x - 1 - n; // the last update first: the first match is the last that lands
            uint u = src, i_at = at;
            for (uint f = input_strides.y; f != 0;) {
                --f;
                uint c = q % free_axis[f].x;
                q = q / free_axis[f].x;
                u = c * free_axis[f].y + u;
                i_at = c * free_axis[f].z + i_at;
            }
            uint address = 0;
            for (uint m = 0; m < input_strides.z; ++m) {
                int i = int(indices.Load((m * input_strides.w + i_at) << input_strides.x));
                if (i < 0) i = i + int(tuple_axis[m].x);
                address = uint(i) * tuple_axis[m].y + address;
            }
            bool match = address == target;
            if (match) chosen = u;
            found = found || match;
            if (match) break;
        }
        src = chosen;
        valid = found;
    }
    return valid;
}

#include "main.hlsli"
