// ONE_HOT (Axis a, n = Output.Sizes[a]): at position o of its sequence along Axis,
//   Output[o] = wrap(i) == o ? OnValue : OffValue,  i = Indices at the same coordinates, Axis at 0,
// where a negative signed index counts from the end (wrap(i) = i + n) and an index outside
// [-n, n) (signed) or [0, n) (unsigned) hits nothing: the whole sequence is OffValue. Indices are
// never refused, so the whole 64-bit index is read: its high word must extend the low one.
// t0 is the ValuesTensor: OffValue is its element 0, OnValue its element input_strides.y.
// Header words (the depth/space ones, unused here): input_strides.x = log2 of the index element's
// bytes (2 or 3), .y = OnValue's element, .z = n, .w = all ones for signed indices, else 0.
// Axis table: the input stride is 0 (the index chooses between the two values); axis_b[k].y is 1
// on Axis (the row whose coordinate is o); axis_b[k].w is the IndicesTensor's stride (0 on Axis).
#include "layout.hlsli"

ByteAddressBuffer indices : register(t1);

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    uint at = 0; // the index element of this sequence
    uint o = 0;  // the position in the sequence
    src = 0;
    fill = false;
    for (uint k = 0; k < rank; ++k) {
        uint c = rem / axis_a[k].x;
        rem = rem % axis_a[k].x;
        if (c >= axis_a[k].y) valid = false;
        src = c * axis_a[k].z + src;
        at = c * axis_b[k].w + at;
        if (axis_b[k].y != 0) o = c;
    }
    valid = valid && rem == 0;
    if (valid) {
        uint address = at << input_strides.x;
        uint lo = indices.Load(address);
        uint extension = (int(lo) < 0 ? 0xffffffffu : 0u) & input_strides.w; // a 32-bit index's high word
        uint hi = extension;
        if (input_strides.x == 3) hi = indices.Load(address + 4);
        bool in_range = hi == extension;
        if (extension != 0) lo = lo + input_strides.z;
        in_range = in_range && lo < input_strides.z;
        src = in_range && lo == o ? input_strides.y : 0;
    }
    return valid;
}

#include "main.hlsli"
