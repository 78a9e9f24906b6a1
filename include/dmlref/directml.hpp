#pragma once
/// \file directml.hpp
/// The optional DirectML backend (target dmlref::directml, Windows only): the real DirectML.dll,
/// loaded at run time, as the oracle of what DirectML accepts and computes, checked against the CPU
/// reference. Not part of dmlref.hpp. See docs/directml.md.
///
///   dmlref::directml::device dml;                        // DMLREF_DIRECTML_DLL, or the system's DirectML.dll
///   if (auto why = dml.accepts(desc)) ...                // nullopt: CreateOperator and CompileOperator succeed
///   dmlref::compare_report r = dml.verify(desc, input);  // DirectML's output against dmlref's, bit for bit

#include "d3d12/platform.hpp" // first: it configures <d3d12.h>

#include "directml/abi.hpp"
#include "directml/device.hpp"
#include "directml/translate.hpp"
