#include "runtime/KernelErrors.h"

#include "support/Diagnostics.h"
#include "support/InternalAssert.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {

bool can_raise(const CompiledSignature &sig) { return sig.module != nullptr && sig.module->can_raise(); }

void check_raised(const CompiledSignature &sig, uint32_t site) {
  if (site == 0) {
    return;
  }
  internal_assert(sig.module != nullptr && site <= sig.module->raise_sites.size())
      << "kernel of " << sig.ufunc_name << " reported raise site " << site << " it does not have";
  const ir::RaiseSite &r = sig.module->raise_sites[site - 1];
  // what() is printed as it is: the source's message (and file name) could
  // hold terminal escapes, bidi overrides or a NUL, which would cut it short;
  // message() keeps the text as the source wrote it.
  std::string what =
      escape_text(r.file) + ":" + std::to_string(r.line) + ":" + std::to_string(r.col) + ": " + r.exception;
  if (!r.message.empty()) {
    what += ": " + escape_text(r.message);
  }
  const bool kernel = sig.module != nullptr && sig.module->explicit_kernel;
  what += std::string(" (raised by ") + (kernel ? "kernel '" : "ufunc '") + sig.ufunc_name + "', signature " +
          sig.signature + ")";
  throw KernelError(what, r.exception, r.message, r.file, r.line, r.col);
}

}  // namespace ufjit::runtime
