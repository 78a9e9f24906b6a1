// DEPTH_TO_SPACE(1) and SPACE_TO_DEPTH(1) on 4-D {N, C, H, W}, block size B, C' = the channels of
// the "space" tensor, bh = y % B, bw = x % B:
//   DepthToSpace: Out[n, c, y, x]  = In[n, cd, y / B, x / B]
//   SpaceToDepth: Out[n, cd, h, w] = In[n, c, h * B + bh, w * B + bw]
//     DEPTH_COLUMN_ROW: cd = (bh * B + bw) * C' + c
//     COLUMN_ROW_DEPTH: cd = (c * B + bh) * B + bw
#include "layout.hlsli"

bool locate(uint offset, out uint src, out bool fill) {
    uint rem = offset;
    bool valid = true;
    fill = false;
    uint4 o = uint4(0, 0, 0, 0); // the output coordinates (N, C, H, W)
    for (uint k = 0; k < rank; ++k) {
        uint c = rem / axis_a[k].x;
        rem = rem % axis_a[k].x;
        if (c >= axis_a[k].y) valid = false;
        uint axis = axis_b[k].z;
        o.x = axis == 0 ? c : o.x;
        o.y = axis == 1 ? c : o.y;
        o.z = axis == 2 ? c : o.z;
        o.w = axis == 3 ? c : o.w;
    }
    uint B = block_size;
    bool crd = (option & 2) != 0;
    uint4 i; // the input coordinates
    if ((option & 1) == 0) { // DepthToSpace
        uint bh = o.z % B, bw = o.w % B;
        uint cd = crd ? (o.y * B + bh) * B + bw : (bh * B + bw) * channels + o.y;
        i = uint4(o.x, cd, o.z / B, o.w / B);
    } else { // SpaceToDepth
        uint c, bh, bw;
        if (crd) {
            uint q = o.y / B;
            bw = o.y % B;
            c = q / B;
            bh = q % B;
        } else {
            uint q = o.y / channels;
            c = o.y % channels;
            bh = q / B;
            bw = q % B;
        }
        i = uint4(o.x, c, o.z * B + bh, o.w * B + bw);
    }
    src = i.x * input_strides.x + i.y * input_strides.y + i.z * input_strides.z + i.w * input_strides.w;
    return valid && rem == 0;
}

#include "main.hlsli"
