// A reference build for bench/compile_time.sh: Eigen's Tensor module included and nothing else
// (Debian's libeigen3-dev, the benchmark's peer). The probe's time over this one's is a figure
// that a host's changing speed moves far less than either time.

#include <unsupported/Eigen/CXX11/Tensor>
