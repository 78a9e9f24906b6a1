#pragma once
/// \file indexed.hpp
/// DirectML's indexed operators over strided views and byte buffers: GATHER, GATHER_ELEMENTS,
/// GATHER_ND and GATHER_ND1 (ops/gather.hpp), SCATTER_ELEMENTS and SCATTER_ND (ops/scatter.hpp),
/// ONE_HOT (ops/one_hot.hpp). Their index equations open each op header; the
/// element-by-element evaluator to audit them against is <dmlref/textbook_indexed.hpp>.

#include "ops/gather.hpp"  // IWYU pragma: export
#include "ops/one_hot.hpp" // IWYU pragma: export
#include "ops/scatter.hpp" // IWYU pragma: export
