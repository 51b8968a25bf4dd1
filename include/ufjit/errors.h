// ufjit public API: the exceptions a call may throw.
//
// Every error derives from ufjit::Error. None leaves a cache entry, a device
// allocation or a stream behind (DESIGN.md "The C++ API").
//
// One type per kind of mistake, whatever the API entry point:
//   - ShapeError: shapes and strides. Operands that do not broadcast, an
//     `out` whose shape the inputs do not broadcast to, a negative dim, an
//     element count, byte size or byte extent (strides x shape) that does not
//     fit in int64 or wraps the address space.
//   - InputError: a handle or array the caller cannot use that way. An empty
//     (default-constructed or moved-from) Ufunc, Array, Stream or Event
//     argument; an array in the wrong memory (a device array on the CPU
//     target, to_vector of a device array, a host array in an async call);
//     a null data pointer with elements; a data pointer or stride that is
//     not a multiple of the element's alignment; a dtype that is not T's
//     (TypedArray<T>, host_data<T>, to_vector<T>); a name a UfuncSet lacks;
//     a malformed file; host memory that cannot be allocated.
//   - DispatchError: operand dtypes or counts no signature takes.
//   - DeviceError: the GPU or its driver failed (device out of memory too).
//   - KernelError: the kernel's own code raised (`raise` in the body, or an
//     index out of range under boundscheck=True), reported after the call.
//   - Cancelled: RuntimeOptions::interrupt stopped a CPU call.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ufjit {

/// Base of every error ufjit throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One located diagnostic of LANGUAGE.md section 7, already rendered.
struct DiagnosticMessage {
  std::string file;
  int line = 0;
  int column = 0;
  std::string severity;  // "error", "warning" or "note"
  std::string message;   // without location
  std::string rendered;  // "file:line:col: error: message\n<source line>\n<caret>"
};

/// The source did not compile. what() holds every rendered diagnostic.
class CompileError : public Error {
 public:
  CompileError(std::string what, std::vector<DiagnosticMessage> diagnostics)
      : Error(std::move(what)), diagnostics_(std::move(diagnostics)) {}
  const std::vector<DiagnosticMessage> &diagnostics() const { return diagnostics_; }

 private:
  std::vector<DiagnosticMessage> diagnostics_;
};

/// No signature of the ufunc accepts the operands' dtypes.
class DispatchError : public Error {
 public:
  using Error::Error;
};

/// Operand shapes do not broadcast, `out` has a shape the inputs do not
/// broadcast to, or a shape/strides overflow (see the top of this file).
class ShapeError : public Error {
 public:
  using Error::Error;
};

/// A kernel body raised (LANGUAGE.md section 5, "Errors in kernels"): a
/// `raise` statement ran for some element. Reported after the call (a
/// synchronous call), or by the next synchronize of its stream (an async
/// call). what(): "file:line:col: ExceptionType: message (raised by ufunc
/// 'f', signature float64(float64))". When several elements raise, the
/// first raise to reach the flag wins. The call's outputs are unspecified.
class KernelError : public Error {
 public:
  KernelError(std::string what, std::string exception, std::string message, std::string file, int line, int column)
      : Error(std::move(what)),
        exception_(std::move(exception)),
        message_(std::move(message)),
        file_(std::move(file)),
        line_(line),
        column_(column) {}
  /// The exception class as written: "ValueError", "IndexError".
  const std::string &exception() const { return exception_; }
  /// The message as written (may be empty).
  const std::string &message() const { return message_; }
  /// Where the raise is in the source.
  const std::string &file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  std::string exception_;
  std::string message_;
  std::string file_;
  int line_ = 0;
  int column_ = 0;
};

/// A CUDA driver call failed; what() names the call, the CUresult name and text.
class DeviceError : public Error {
 public:
  using Error::Error;
};

/// No CUDA driver or device is usable; what() gives a one-line reason.
class NoDeviceError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

/// A handle, array or file the caller cannot use that way (see the top of
/// this file): an empty handle, an array in the wrong memory, a null or
/// misaligned data pointer, a wrong T, an unknown name, a malformed .npy file.
class InputError : public Error {
 public:
  using Error::Error;
};

/// RuntimeOptions::interrupt said stop during a synchronous CPU call: no
/// chunk of work started after that, the running ones finished, and then
/// the call threw this. A result it would have returned is freed; an `out`
/// given to it holds a mix of new and old elements; the Runtime is usable
/// at once (nothing is left running or allocated).
class Cancelled : public Error {
 public:
  using Error::Error;
};

/// A bug in ufjit itself: an internal invariant failed. Reported with
/// ufjit's source file and line; never a user's fault.
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace ufjit
