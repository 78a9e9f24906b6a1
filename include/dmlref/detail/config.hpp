#pragma once
/// \file config.hpp
/// The compiler switches of the library: which extensions it uses, and the attributes and hints it
/// spells through macros so that other compilers read plain C++.

// Every compiler extension of the library (GCC and Clang's builtins, attributes, vector types and
// x86 intrinsics) sits behind DMLREF_EXTENSIONS. Defining DMLREF_PORTABLE (the CMake option of the
// same name) turns it off: the library is then plain C++20, the path MSVC and any other compiler
// take, and a GCC or Clang build can test that path.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(DMLREF_PORTABLE)
#define DMLREF_EXTENSIONS 1
#else
#define DMLREF_EXTENSIONS 0
#endif

// GCC 12+ and Clang can shuffle 16-byte vectors in portable code (__builtin_shufflevector). The
// kernels use that for reversed and interleaved runs, which compilers do not vectorize at -O2;
// elsewhere the scalar loops below do the same work.
#if DMLREF_EXTENSIONS && (defined(__clang__) || __GNUC__ >= 12)
#define DMLREF_VECTOR_KERNELS 1
#else
#define DMLREF_VECTOR_KERNELS 0
#endif

#if DMLREF_EXTENSIONS
#define DMLREF_PREFETCH(address) __builtin_prefetch(address)
#define DMLREF_NOINLINE __attribute__((noinline))
// Error paths: the functions that build messages are optimised for size and their callers' paths
// to them predicted not taken (the compile probe: 17.37 to 16.88 billion compiler instructions).
#define DMLREF_COLD __attribute__((cold))
#else
#define DMLREF_PREFETCH(address) static_cast<void>(address)
#define DMLREF_NOINLINE
#define DMLREF_COLD
#endif
