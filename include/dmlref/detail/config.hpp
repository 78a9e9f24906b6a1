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
// Loops over a vector tile's rows, unrolled whole: at -O2 GCC leaves a 16-row tile's loops rolled
// and keeps its vectors in memory (a 16 x 16 byte tile ran at half the speed).
#if defined(__clang__)
#define DMLREF_UNROLL _Pragma("unroll")
#else
#define DMLREF_UNROLL _Pragma("GCC unroll 16")
#endif
// Error paths: the functions that build messages are optimised for size and their callers' paths
// to them predicted not taken (the compile probe: 17.37 to 16.88 billion compiler instructions).
#define DMLREF_COLD __attribute__((cold))
#else
#define DMLREF_PREFETCH(address) static_cast<void>(address)
#define DMLREF_NOINLINE
#define DMLREF_UNROLL
#define DMLREF_COLD
#endif

// The compiled mode (fmt's choice between header-only and a compiled library). With
// DMLREF_COMPILED, which the CMake target dmlref::compiled defines for its users, the headers only
// declare the functions that cost every user's file its build time (the engine, the op checks and
// plans, the desc-level entry points): src/dmlref.cpp defines them once, for every element width.
// Without it (the default) they are inline, defined in every file that includes them.
#ifdef DMLREF_COMPILED
#define DMLREF_FUNC
#else
#define DMLREF_FUNC inline
#endif

// Whether this translation unit defines those functions: every one header-only; in compiled mode,
// src/dmlref.cpp alone (it defines DMLREF_COMPILED_SOURCE).
#if !defined(DMLREF_COMPILED) || defined(DMLREF_COMPILED_SOURCE)
#define DMLREF_DEFINE_FUNCS 1
#else
#define DMLREF_DEFINE_FUNCS 0
#endif
