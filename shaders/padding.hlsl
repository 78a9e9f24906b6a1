// PADDING and PADDING1: Output[o] = Input[src(o)], separable per axis with t = o - StartPadding,
// n = the input size:
//   inside      0 <= t < n      src = t
//   CONSTANT    t outside       the padding value (raw bits)
//   EDGE        src = clamp(t, 0, n - 1)
//   REFLECTION  p = 2n - 2, m = t mod p    src = m < n ? m : p - m
//   SYMMETRIC   p = 2n,     m = t mod p    src = m < n ? m : p - 1 - m
//   WRAP        p = n,      m = t mod p    src = m
// with a non-negative mod, so pads larger than the axis fold periodically.
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
        uint n = axis_b[k].x;
        int t = int(c) - int(axis_a[k].w);
        if (uint(t) >= n) { // outside [0, n): a negative t is a large unsigned value
            if (option == CONSTANT) fill = true;
            uint p = option == REFLECTION ? 2 * n - 2 : option == SYMMETRIC ? 2 * n : n;
            uint r = uint(abs(t)) % p;
            uint m = (t < 0 && r != 0) ? p - r : r;
            uint folded = m < n ? m : p - m - (option == SYMMETRIC ? 1 : 0);
            uint edge = t < 0 ? 0 : n - 1;
            t = int(option == EDGE ? edge : folded);
        }
        src += uint(t) * axis_a[k].z;
    }
    return valid && rem == 0;
}

#include "main.hlsli"
