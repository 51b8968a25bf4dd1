// Calls across the devices of a set (see DeviceSplit.h).
#include "runtime/DeviceSplit.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime/KernelRunner.h"
#include "runtime/RuntimeImpl.h"

namespace ufjit::runtime {
namespace {

/// A part of a 1-D call starts on a multiple of this many elements, so that
/// every part keeps the alignment the contiguous (vector) kernels want.
constexpr int64_t kPartAlignElements = 4096;

/// Whether a synchronous call of `size` elements on `backend` may be split:
/// the first test of every call, so the cheap ones come first.
bool may_split(RuntimeCore &core, const Backend &backend, StreamImpl *stream, int64_t size) {
  return size >= kSplitMinElements && stream == nullptr && backend.kind() == TargetKind::Cuda &&
         core.cuda_device_count() >= 2;
}

/// Row boundaries of `parts` near-equal parts of `rows` rows, each but the
/// last a multiple of `align` rows: part k is [bounds[k], bounds[k + 1]).
/// Parts may be empty when there are fewer rows than parts.
std::vector<int64_t> part_bounds(int64_t rows, std::size_t parts, int64_t align) {
  std::vector<int64_t> bounds{0};
  for (std::size_t k = 1; k < parts; ++k) {
    const int64_t even = static_cast<int64_t>((static_cast<__int128>(rows) * k) / parts);
    bounds.push_back(std::max(bounds.back(), std::min(rows, even / align * align)));
  }
  bounds.push_back(rows);
  return bounds;
}

/// Rows [begin, end) of `view`'s first dimension.
ArrayView rows_of(const ArrayView &view, int64_t begin, int64_t end) {
  ArrayView part = view;
  part.data = static_cast<char *>(view.data) + begin * view.strides[0];
  part.shape[0] = end - begin;
  return part;
}

/// Runs run(device, begin, end) for each device's part [begin, end) of
/// `rows` rows (part_bounds), all at once: the first part on the calling
/// thread, the others on threads of their own. Once every part has finished,
/// rethrows the lowest part's exception, if any (the same error whichever
/// part finishes first).
void run_row_parts(const std::vector<Backend *> &devices, int64_t rows, int64_t align,
                   const std::function<void(Backend &, int64_t, int64_t)> &run) {
  const std::size_t parts = devices.size();
  const std::vector<int64_t> bounds = part_bounds(rows, parts, align);
  std::vector<std::exception_ptr> errors(parts);
  auto guarded = [&](std::size_t k) {
    try {
      if (bounds[k] < bounds[k + 1]) {
        run(*devices[k], bounds[k], bounds[k + 1]);
      }
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (std::size_t k = 1; k < parts; ++k) {
    try {
      threads.emplace_back(guarded, k);
    } catch (const std::system_error &) {
      guarded(k);  // no thread to be had: this part runs before the others
    }
  }
  guarded(0);
  for (std::thread &t : threads) {
    t.join();
  }
  for (const std::exception_ptr &error : errors) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
}

}  // namespace

bool run_across_devices(RuntimeCore &core, const Backend &backend, const PreparedCall &call, StreamImpl *stream) {
  if (!may_split(core, backend, stream, call.size) || call.signature->external ||
      call.output.residence != Residence::Host || call.shape.empty()) {
    return false;
  }
  for (const PreparedOperand &in : call.inputs) {
    if (!in.is_scalar && in.array.residence != Residence::Host) {
      return false;
    }
  }
  const std::vector<Backend *> devices = core.cuda_backends();
  const int64_t row_elements = call.size / call.shape[0];
  const int64_t align = call.shape.size() == 1 ? kPartAlignElements : 1;
  run_row_parts(devices, call.shape[0], align, [&](Backend &device, int64_t begin, int64_t end) {
    PreparedCall part = call;
    for (PreparedOperand &in : part.inputs) {
      if (!in.is_scalar) {
        in.array = rows_of(in.array, begin, end);
      }
    }
    part.output = rows_of(call.output, begin, end);
    part.shape[0] = end - begin;
    part.size = part.shape[0] * row_elements;
    device.runner().execute(part, nullptr);
  });
  return true;
}

bool run_across_devices(RuntimeCore &core, const Backend &backend, const PreparedGufunc &call, StreamImpl *stream) {
  if (!may_split(core, backend, stream, call.loop_size) || call.loop_shape.empty()) {
    return false;
  }
  for (const ArrayView &v : call.operands) {
    if (v.residence != Residence::Host) {
      return false;
    }
  }
  const std::vector<Backend *> devices = core.cuda_backends();
  const int64_t row_elements = call.loop_size / call.loop_shape[0];
  run_row_parts(devices, call.loop_shape[0], 1, [&](Backend &device, int64_t begin, int64_t end) {
    PreparedGufunc part = call;
    for (ArrayView &v : part.operands) {
      v = rows_of(v, begin, end);
    }
    part.loop_shape[0] = end - begin;
    part.loop_size = part.loop_shape[0] * row_elements;
    device.runner().execute_gufunc(part, nullptr);
  });
  return true;
}

}  // namespace ufjit::runtime
