// ufjit public API: CUDA streams and events as RAII types.
#pragma once

#include <memory>

#include "ufjit/export.h"

namespace ufjit {

struct StreamImpl;
struct EventImpl;

/// A CUDA stream of the Runtime's device context (`Runtime::stream()`).
/// Destroying it waits for nothing and frees the stream after its work
/// completes (driver semantics); it never throws. A default-constructed
/// (or moved-from) Stream is empty: synchronize() does nothing, and
/// Ufunc::async and Event::record given an empty stream throw InputError.
class UFJIT_API Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream &&) noexcept;
  Stream &operator=(Stream &&) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  /// Blocks until all work enqueued on this stream has completed. Throws
  /// DeviceError when that work failed.
  void synchronize();
  /// False for an empty (default-constructed or moved-from) stream.
  bool valid() const { return impl_ != nullptr; }
  /// The driver's CUstream, as an opaque pointer, for handing to other CUDA
  /// libraries (CuPy's ExternalStream, PyTorch's ExternalStream). Null for an
  /// empty stream and for a borrowed legacy default stream.
  void *handle() const;
  StreamImpl *impl() const { return impl_.get(); }
  explicit Stream(std::unique_ptr<StreamImpl> impl);

 private:
  std::unique_ptr<StreamImpl> impl_;
};

/// The CUDA device ordinal whose memory holds `ptr`, as the driver knows it
/// (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL): for a pointer another library hands
/// over without naming its device (`__cuda_array_interface__`). -1 when the
/// driver does not know the pointer (host memory) or there is no driver.
UFJIT_API int device_of_pointer(const void *ptr);

/// A CUDA event: record on a stream, wait, or measure elapsed time. The
/// driver event is made at the first record(), in that stream's context, so
/// an Event needs no Runtime to be declared. Destruction never throws.
class UFJIT_API Event {
 public:
  Event();
  ~Event();
  Event(Event &&) noexcept;
  Event &operator=(Event &&) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  /// Captures the work enqueued so far on `stream` (throws InputError for
  /// an empty stream).
  void record(Stream &stream);
  /// Waits for the recorded work; does nothing if never recorded.
  void synchronize();
  /// Milliseconds between two recorded events (InputError when either was
  /// never recorded).
  static float elapsed_ms(const Event &start, const Event &end);
  EventImpl *impl() const { return impl_.get(); }
  explicit Event(std::unique_ptr<EventImpl> impl);

 private:
  std::unique_ptr<EventImpl> impl_;
};

}  // namespace ufjit
