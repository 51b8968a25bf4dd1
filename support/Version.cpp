// ufjit::version() (ufjit/runtime.h): in support/ because every stage that
// writes it down (the compile driver's manifest, the disk cache's keys, the
// tool) sits above it.
#include <string>

#include "ufjit/runtime.h"

namespace ufjit {

std::string version() { return std::string(UFJIT_VERSION) + " (LLVM " + UFJIT_LLVM_VERSION + ")"; }

}  // namespace ufjit
