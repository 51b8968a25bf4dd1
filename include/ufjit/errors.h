// ufjit public API: the exceptions a call may throw.
//
// Every error derives from ufjit::Error. None leaves a cache entry, a device
// allocation or a stream behind (DESIGN.md "The C++ API").
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

/// Operand shapes do not broadcast, or `out` has the wrong shape or dtype.
class ShapeError : public Error {
 public:
  using Error::Error;
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

/// A bad input file or argument outside the language (a malformed .npy file).
class InputError : public Error {
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
