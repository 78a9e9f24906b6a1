# For packaging.toolchain: a toolchain file that changes nothing but one compile definition in
# Release builds, which the consumer reports, so the test sees that dmlref's install and the
# consumer were configured with the main build's toolchain file.
string(APPEND CMAKE_CXX_FLAGS_RELEASE_INIT " -DDMLREF_PACKAGING_TOOLCHAIN=1")
