#include "runtime/KernelErrors.h"

#include "support/Diagnostics.h"
#include "support/InternalAssert.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {

bool can_raise(const CompiledSignature &sig) { return sig.module != nullptr && sig.module->can_raise(); }

namespace {

/// Throws the KernelError of raise site `site` (not 0) of `sig`'s module;
/// `detail` follows the source's message.
[[noreturn]] void throw_raised(const CompiledSignature &sig, uint32_t site, const std::string &detail) {
  internal_assert(sig.module != nullptr && site <= sig.module->raise_sites.size())
      << "kernel of " << sig.ufunc_name << " reported raise site " << site << " it does not have";
  const ir::RaiseSite &r = sig.module->raise_sites[site - 1];
  const std::string message = r.message + detail;
  // what() is printed as it is: the source's message (and file name) could
  // hold terminal escapes, bidi overrides or a NUL, which would cut it short;
  // message() keeps the text as the source wrote it.
  std::string what =
      escape_text(r.file) + ":" + std::to_string(r.line) + ":" + std::to_string(r.col) + ": " + r.exception;
  if (!message.empty()) {
    what += ": " + escape_text(message);
  }
  const bool kernel = sig.module != nullptr && sig.module->explicit_kernel;
  what += std::string(" (raised by ") + (kernel ? "kernel '" : "ufunc '") + sig.ufunc_name + "', signature " +
          sig.signature + ")";
  throw KernelError(what, r.exception, message, r.file, r.line, r.col);
}

}  // namespace

std::string coordinates_text(const int32_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

void check_raised(const CompiledSignature &sig, uint32_t site) {
  if (site != 0) throw_raised(sig, site, "");
}

void check_raised(const CompiledSignature &sig, const codegen::KernelCheckRecord &record) {
  if (record.site == 0) return;
  std::string detail;
  bool bare = true;  // the source gave no message
  if (sig.module != nullptr && record.site <= sig.module->raise_sites.size()) {
    const ir::RaiseSite &r = sig.module->raise_sites[record.site - 1];
    bare = r.message.empty();
    // A boundscheck's values: the index and the extent.
    if (r.values == 2) {
      detail += " (index " + std::to_string(record.values[0]) + ", size " + std::to_string(record.values[1]) + ")";
    }
  }
  detail += std::string(bare ? "in thread " : ", in thread ") + coordinates_text(record.thread_idx) + " of block " +
            coordinates_text(record.block_idx);
  throw_raised(sig, record.site, detail);
}

}  // namespace ufjit::runtime
