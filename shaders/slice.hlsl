// SLICE and SLICE1: Output[o] = Input[CopyStart + InputWindowStrides * o], per axis
//   CopyStart = InputWindowOffsets + (InputWindowStrides < 0 ? InputWindowSizes - 1 : 0)
// (SLICE v0 is the same with CopyStart = Offsets and positive strides).
#include "layout.hlsli"

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    src = 0;
    fill = false;
    for (uint k = 0; k < rank; ++k) {
        // The output coordinate on this axis, from the largest stride down.
        uint c = rem / axis_a[k].x;
        rem = rem % axis_a[k].x;
        if (c >= axis_a[k].y) valid = false;
        // src += (CopyStart + WindowStride * c) * InputStride, in wrapping 32-bit arithmetic.
        int t = int(axis_b[k].x) * int(c) + int(axis_a[k].w);
        src = uint(t * int(axis_a[k].z) + int(src));
    }
    return valid && rem == 0;
}

#include "main.hlsli"
