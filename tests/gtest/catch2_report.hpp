#pragma once
// The Catch2 matcher's description of a mismatch (catch2_report.cpp); "" where the tensors match.
#include <string>

#include <dmlref/operator.hpp>
#include <dmlref/strided_view.hpp>

std::string catch2_report(const dmlref::tensor<float, 4>& actual, const dmlref::tensor<float, 4>& expected,
                          const dmlref::operator_desc* op);
