// check_usable_memory (runtime/ViewChecks.h): apart from the view checks,
// which the .npy fuzzer compiles without the backends.
#include "runtime/Backend.h"
#include "runtime/ViewChecks.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {

void check_usable_memory(const Backend &backend, const ArrayView &view, LabelRef label) {
  if (view.residence != Residence::Device) {
    return;
  }
  if (backend.kind() == TargetKind::Cpu) {
    throw InputError("the CPU target cannot use device memory: " + label() + " (" + view.describe() +
                     ") is on the device; copy it with Runtime::to_host or call on the CUDA target");
  }
  const int ordinal = backend.device_ordinal();
  if (view.device != ordinal && !backend.reads_device(view.device)) {
    throw InputError(
        label() + " (" + view.describe() + ") is in the memory of CUDA device " +
        std::to_string(view.device) + ", but this call computes on device " + std::to_string(ordinal) +
        ", which cannot use it in place: copy it to device " + std::to_string(ordinal) +
        " (Runtime::to_host, then to_device), or use a Runtime whose RuntimeOptions::devices holds "
        "both devices with peer access between them");
  }
}

}  // namespace ufjit::runtime
