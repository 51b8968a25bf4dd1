// ufjit: a runtime JIT compiler for scalar-function ufuncs (the one header an
// embedding program includes).
#pragma once

#include "ufjit/array.h"
#include "ufjit/device.h"
#include "ufjit/dtype.h"
#include "ufjit/errors.h"
#include "ufjit/runtime.h"
