#pragma once
/// \file indexed.hpp
/// DirectML's indexed operators over strided views and byte buffers: GATHER, GATHER_ELEMENTS,
/// GATHER_ND and GATHER_ND1 (ops/gather.hpp). Their index equations open each op header; the
/// element-by-element evaluator to audit them against is <dmlref/textbook_indexed.hpp>.

#include "ops/gather.hpp" // IWYU pragma: export
