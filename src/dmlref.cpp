// The compiled mode's library (CMake target dmlref::compiled): the one translation unit that
// defines what the headers only declare under DMLREF_COMPILED (see detail/config.hpp): the copy
// engine for every element width, the op checks and plans, and the desc-level validate, check
// and execute. Its users' files then compile only what they call.

#ifndef DMLREF_COMPILED
#error "src/dmlref.cpp builds the compiled mode: define DMLREF_COMPILED (the dmlref::compiled target does)"
#endif
#define DMLREF_COMPILED_SOURCE

#include <dmlref/detail/execute.hpp>
#include <dmlref/dmlref.hpp>
