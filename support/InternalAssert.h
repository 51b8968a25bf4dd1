// internal_assert(cond) << "message": the channel for ufjit's own bugs.
//
// User errors go through the DiagnosticEngine; this is for invariants that only
// a bug in ufjit can break. The message is built lazily (only on failure) and
// thrown as ufjit::InternalError carrying our file:line, so a library bug never
// kills the host process (STYLE.md "avoid" 3).
#pragma once

#include <sstream>
#include <string>

#include "ufjit/errors.h"

namespace ufjit::detail {

class InternalErrorReporter {
 public:
  InternalErrorReporter(const char *file, int line, const char *condition);
  InternalErrorReporter(const InternalErrorReporter &) = delete;
  InternalErrorReporter &operator=(const InternalErrorReporter &) = delete;
  // Throws InternalError; destructors may throw only because this object is a
  // temporary that lives inside one full expression and is never unwound.
  [[noreturn]] ~InternalErrorReporter() noexcept(false);

  template <typename T>
  InternalErrorReporter &operator<<(const T &value) {
    message_ << value;
    return *this;
  }

 private:
  std::ostringstream message_;
};

}  // namespace ufjit::detail

#define internal_assert(cond) \
  if (cond) {                 \
  } else                      \
    ::ufjit::detail::InternalErrorReporter(__FILE__, __LINE__, #cond)

#define internal_error ::ufjit::detail::InternalErrorReporter(__FILE__, __LINE__, nullptr)
