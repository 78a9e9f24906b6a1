// SLICE_GRAD: SLICE1's adjoint. Output[o] = InputGradient[q] where o = CopyStart + InputWindowStrides * q
// for some q < the gradient's size, on every axis; 0 (all bits clear) everywhere else:
//   CopyStart = InputWindowOffsets + (InputWindowStrides < 0 ? InputWindowSizes - 1 : 0)
// (an empty window with a negative stride starts at InputWindowOffsets - 1).
#include "layout.hlsli"

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    src = 0;
    fill = false;
    for (uint k = 0; k < rank; ++k) {
        uint c = rem / axis_a[k].x;
        rem = rem % axis_a[k].x;
        if (c >= axis_a[k].y) valid = false;
        int stride = int(axis_b[k].x);
        // t counts from CopyStart in the window's direction; the element is the q-th of the
        // window when t is a non-negative multiple of |stride| and q is below the gradient's size.
        int t = int(c) - int(axis_a[k].w);
        if (stride < 0) t = -t;
        uint step = stride < 0 ? uint(-stride) : uint(stride);
        uint q = uint(t) / step;
        if (t < 0 || uint(t) % step != 0 || q >= axis_b[k].y) fill = true;
        src += q * axis_a[k].z;
    }
    return valid && rem == 0;
}

#include "main.hlsli"
