// One call across every GPU of a Runtime's device set (RuntimeOptions::
// devices): a synchronous elementwise or gufunc call whose array operands and
// output are all host memory is cut along its outermost dimension into one
// part per device, each part staged through its own device's pinned pipeline
// (cuda/HostStaging.h) and all parts running at once, so that the host links
// add up. Every part runs the same kernel on its own rows: the results are
// bitwise those of one device.
//
// Device arrays are not split: a call on them runs on their device
// (DevicePlacement.h), as the data is already there.
#pragma once

#include <cstdint>

#include "runtime/Backend.h"

namespace ufjit::runtime {

class RuntimeCore;

/// Calls smaller than this run on one device: below it, one launch and its
/// staging cost less than starting the others (a thread and a launch each).
inline constexpr int64_t kSplitMinElements = int64_t{1} << 20;

/// Runs `call` as one part per CUDA device of `core`'s set when it qualifies:
/// `backend` is a CUDA backend, the set holds more than one device, `stream`
/// is null, the output and every array input are host memory, the call has
/// at least kSplitMinElements elements and is not a CUDA C++ kernel (which
/// sees the whole call's indices). Returns false, having run nothing,
/// otherwise. A raise in a part is reported (the lowest part's) once every
/// part has finished.
bool run_across_devices(RuntimeCore &core, const Backend &backend, const PreparedCall &call, StreamImpl *stream);

/// The same for a gufunc call, cut along its outermost loop dimension.
bool run_across_devices(RuntimeCore &core, const Backend &backend, const PreparedGufunc &call, StreamImpl *stream);

}  // namespace ufjit::runtime
