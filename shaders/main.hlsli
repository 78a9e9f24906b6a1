// dmlref D3D12 kernels: the entry point the four kernels share; each defines
//   bool locate(uint offset, out uint src, out bool fill)
// first: whether element offset `offset` of the output buffer is an element of the output tensor,
// the input element it copies, and whether it takes the padding constant instead.
//
// A thread owns one unit of the output buffer and writes it whole: one word for 1-, 2- and
// 4-byte elements, one 8-byte element otherwise; so no two threads write the same word.
// The tensors start at element input_base of the input buffer and output_base of the output
// buffer (JOIN's and SPLIT's parts in the whole tensor; 0 otherwise): locate sees offsets from the
// output's base, so a lane that is no element of this tensor keeps its bits.

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint unit = id.y * row_pitch + id.x;
    if (unit >= unit_count) return;
    uint src;
    bool fill;
#if WIDTH >= 4
    if (locate(unit - output_base, src, fill)) {
#if WIDTH == 8
        uint2 value;
        if (fill) value = uint2(fill_low, fill_high);
        else value = input.Load2((src + input_base) * 8);
        output.Store2(unit * 8, value);
#else
        uint value;
        if (fill) value = fill_low;
        else value = input.Load((src + input_base) * 4);
        output.Store(unit * 4, value);
#endif
    }
#else
    // Assemble the word lane by lane; lanes that are no element keep their bits.
    const uint lanes = 4 / WIDTH, bits = 8 * WIDTH, field = (1u << bits) - 1;
    uint word = output.Load(unit * 4);
    [unroll] for (uint lane = 0; lane < lanes; ++lane) {
        if (locate(unit * lanes + lane - output_base, src, fill)) {
            uint value;
            if (fill) {
                value = fill_low;
            } else {
                uint byte_address = (src + input_base) * WIDTH;
                value = (input.Load(byte_address & ~3u) >> ((byte_address & 3u) * 8)) & field; // ubfe
            }
            word = (word & ~(field << (lane * bits))) | ((value & field) << (lane * bits)); // bfi
        }
    }
    output.Store(unit * 4, word);
#endif
}
