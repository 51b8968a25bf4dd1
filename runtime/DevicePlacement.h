// Which device of a Runtime's set a call runs on, and how each device
// operand reaches it (docs/guide/cpp.md, "Several GPUs"):
//
//   - an explicit device (LaunchConfig::device) or an async call's stream
//     decides; else the device of the first written operand (`out`) that is
//     on a device, else that of the first device input; a call of host
//     operands only runs on the default device (the first of the set);
//   - an operand on another device of the set is used in place when the
//     call's device has peer access to it; else a synchronous ufunc call
//     reads an input through a copy (made through the host); anything else
//     (an output, a kernel argument, an async call, a device outside the
//     set) is refused with an InputError naming the operand, both devices
//     and the fix. Never a read through the wrong context.
//
// The usual call, whose device operands all live on the requested backend's
// device, never gets here: callers test that first (no lookup, no lock).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/RuntimeImpl.h"
#include "runtime/ViewChecks.h"

namespace ufjit::runtime {

/// The device operands of one call or launch, in order, for place_on_device.
struct DeviceOperands {
  std::vector<const ArrayView *> views;  // null for scalars
  std::vector<bool> written;             // outputs and kernel arguments: never copied
  /// Operand `index`'s words in errors ("input 1 of 'f'"); called only for one.
  std::function<std::string(std::size_t index)> label;
  /// A synchronous ufunc call may read an input through a copy.
  bool copies_allowed = false;
};

/// Where a call runs.
struct DevicePlan {
  Backend *backend = nullptr;
  /// Some input is on a device `backend` cannot read in place: the caller
  /// runs the call on copies (copy_to_device_of).
  bool copies = false;
};

/// Whether every device view of `views` (nulls skipped) is on `backend`'s
/// device: such a call stays on `backend`.
bool all_on_device_of(const Backend &backend, std::span<const ArrayView *const> views);

/// Whether a call of `operands` (async on `stream`, when not null) stays on
/// `backend`: its device arrays and its stream are all of `backend`'s device.
bool stays_on(const Backend &backend, std::span<const Operand> operands, const StreamImpl *stream);

/// The backend a call runs on (rules at the top of this file). `requested`:
/// the target's backend (the CPU's is returned as it is: its checks word
/// the error). `stream`: an async call's (null: synchronous). `device`: an
/// explicit ordinal (-1: none).
DevicePlan place_on_device(RuntimeCore &core, Backend &requested, const DeviceOperands &operands,
                           const StreamImpl *stream, int device = -1);

/// The backend a ufunc or gufunc call of `operands` runs on (its inputs
/// and out(...) operands; the rules at the top of this file). When an
/// input must be read through a copy, `staged` receives the operands with
/// the copies (kept alive in `copies`) and the caller runs those instead.
Backend &place_ufunc_call(RuntimeCore &core, Backend &requested, std::span<const Operand> operands,
                          const std::string &ufunc_name, StreamImpl *stream, std::vector<Operand> &staged,
                          std::vector<Array> &copies);

/// The CUDA backend of `view`'s device, for copies out of it (to_host).
/// InputError naming `label()` when the device is not one of the set.
Backend &backend_of_view(RuntimeCore &core, const ArrayView &view, LabelRef label);

/// The CUDA backend of device `device`, one of the set (InputError naming
/// `what` and the set otherwise).
Backend &backend_of_device(RuntimeCore &core, int device, const std::string &what);

/// A C-contiguous copy of device view `view` in `backend`'s device memory,
/// made through the host (a device without peer access to the view's).
Array copy_to_device_of(RuntimeCore &core, Backend &backend, const ArrayView &view);

}  // namespace ufjit::runtime
