#include "support/InternalAssert.h"

namespace ufjit::detail {

InternalErrorReporter::InternalErrorReporter(const char *file, int line, const char *condition) {
  message_ << "internal error at " << file << ":" << line;
  if (condition != nullptr) message_ << ": condition failed: " << condition;
  message_ << ": ";
}

InternalErrorReporter::~InternalErrorReporter() noexcept(false) {
  throw InternalError(message_.str());
}

}  // namespace ufjit::detail
