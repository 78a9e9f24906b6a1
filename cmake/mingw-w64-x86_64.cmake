# Cross-building dmlref for Windows x86-64 with Debian's mingw-w64 GCC (posix thread model: the
# win32 model has no std::thread in GCC 12, which <dmlref/parallel.hpp> needs).
#   cmake -S . -B build-windows -G Ninja --toolchain cmake/mingw-w64-x86_64.cmake
# Programs link statically (no libstdc++, libgcc or winpthread DLLs to ship) and run under wine64
# through CMAKE_CROSSCOMPILING_EMULATOR, so ctest and Catch2's test discovery work unchanged.
# The header-only dependencies (fmt used header-only, Catch2 v2, nlohmann-json, CLI11) come from
# the host's /usr/include through the small package configs in cmake/mingw-w64/, which expose only
# those headers: /usr/include itself must never reach the cross compiler (its glibc headers would
# shadow mingw's C headers).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(DMLREF_MINGW_TRIPLET x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${DMLREF_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${DMLREF_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${DMLREF_MINGW_TRIPLET}-windres)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Libraries and headers from the mingw sysroot and the header-only shims; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${DMLREF_MINGW_TRIPLET} "${CMAKE_CURRENT_LIST_DIR}/mingw-w64")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/wine64-run.sh")
