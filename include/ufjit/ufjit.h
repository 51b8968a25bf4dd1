// ufjit: a runtime JIT compiler for scalar-function ufuncs (the one header an
// embedding program includes).
#pragma once

// C++20 is required (std::span and other C++20 types in the public headers).
// CMake consumers get it from ufjit::ufjit (cxx_std_20); pkg-config users
// pass -std=c++20 themselves.
#if !defined(__cplusplus) || __cplusplus < 202002L
#error "ufjit requires C++20: compile with -std=c++20 (CMake: link ufjit::ufjit, which sets cxx_std_20)"
#endif

#include "ufjit/array.h"
#include "ufjit/device.h"
#include "ufjit/dtype.h"
#include "ufjit/errors.h"
#include "ufjit/kernel.h"
#include "ufjit/runtime.h"
