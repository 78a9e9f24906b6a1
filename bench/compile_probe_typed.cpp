// A translation unit with one typed op, for bench/compile_time.sh: the umbrella header and one
// call of slice() on float views of rank 4.

#include <dmlref/dmlref.hpp>

void run_slice(dmlref::strided_view<const float, 4> input, dmlref::strided_view<float, 4> output,
               const dmlref::index_array<4>& offsets, const dmlref::index_array<4>& sizes,
               const dmlref::index_array<4>& strides) {
    dmlref::slice(input, output, offsets, sizes, strides);
}
