// dmlref D3D12 kernels: the bindings and parameters the four kernels share. The DXBC the backend
// runs is assembled from include/dmlref/d3d12/kernels.hpp, which mirrors these files; they are
// the readable source (compiled in CI by glslang's HLSL front end so that they cannot rot).
#ifndef WIDTH
#define WIDTH 4 // element bytes: 1, 2, 4 or 8
#endif

// Root constants (16 words).
cbuffer header : register(b0) {
    uint unit_count;     // threads with work: output words (WIDTH <= 4) or 8-byte elements
    uint row_pitch;      // threads per row of the 2-D dispatch
    uint rank;           // axes in the table below
    uint option;         // padding: PaddingMode; depth/space: bit 0 space-to-depth, bit 1 COLUMN_ROW_DEPTH
    uint fill_low;       // padding: the constant's raw bits
    uint fill_high;
    uint block_size;     // depth/space: B
    uint channels;       // depth/space: C', the channels of the "space" tensor
    uint4 input_strides; // depth/space: the input's element strides of N, C, H, W
    uint input_base;     // the input element the tensor starts at (SPLIT: its part of the whole input)
    uint output_base;    // the output element the tensor starts at (JOIN: its part of the whole output)
    uint2 unused;
};

// One row pair per output axis, in decreasing output stride (size-1 axes last, stride 1).
cbuffer axes : register(b1) {
    uint4 axis_a[8]; // output stride, output size, input stride, a (slice: CopyStart; padding: StartPadding)
    uint4 axis_b[8]; // b (slice, slice_grad: the signed window stride; padding: the input size), n (slice_grad: the gradient's size), the desc's axis, 0
#ifdef SCATTER_TABLES
    uint4 free_axis[8];  // scatter: per free axis, outermost first: size, UpdatesTensor stride, IndicesTensor stride, 0
    uint4 tuple_axis[8]; // scatter: per index tuple entry: OutputTensor size, OutputTensor stride, 0, 0
#endif
};

ByteAddressBuffer input : register(t0);
RWByteAddressBuffer output : register(u0);

static const uint CONSTANT = 0, EDGE = 1, REFLECTION = 2, SYMMETRIC = 3, WRAP = 4;
