// REVERSE_SUBSEQUENCES (Axis a, n = Input.Sizes[a]): at position o of its sequence,
//   Output[o] = Input[min(len - 1 - o, n - 1)] for o < len, Input[o] for o >= len,
// len = SequenceLengths at the same coordinates with Axis set to 0, held at 2n - 1 (past which
// every element reads the axis' last one). That is DirectML's own rule: its page says a length
// past the axis acts as n, but DirectML reads min(len - 1 - o, n - 1) (docs/directml.md). Lengths
// are never refused, so the whole UINT64 is read: a high word set means a length past the axis.
// Header words (the depth/space ones, unused here): input_strides.x = log2 of the length
// element's bytes (2 or 3), .y = the input's stride along Axis, .z = n.
// Axis table: the input and lengths strides are 0 on Axis; axis_b[k].y is 1 on Axis (the row
// whose coordinate is o); axis_b[k].w is the SequenceLengthsTensor's stride.
#include "layout.hlsli"

ByteAddressBuffer lengths : register(t1);

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    uint at = 0; // the length element of this sequence
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
    // Only an element reads its length (a gap's `at` may lie past the lengths' buffer).
    if (valid) {
        uint address = at << input_strides.x;
        uint low = lengths.Load(address), high = 0;
        if (input_strides.x == 3) high = lengths.Load(address + 4);
        uint most = (input_strides.z << 1) - 1;
        uint len = (low >= most || high != 0) ? most : low;
        uint mirror = len - o - 1;
        uint last = input_strides.z - 1;
        mirror = mirror < last ? mirror : last;
        uint t = o >= len ? o : mirror;
        src = t * input_strides.y + src;
    }
    return valid;
}

#include "main.hlsli"
