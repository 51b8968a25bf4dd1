// Placement of calls on a Runtime's devices (see DevicePlacement.h).
#include "runtime/DevicePlacement.h"

#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

/// "device 0" or "devices 0, 1": the set, for errors.
std::string set_words(RuntimeCore &core) {
  std::vector<Backend *> all = core.cuda_backends();
  std::string words = all.size() == 1 ? "device " : "devices ";
  for (std::size_t i = 0; i < all.size(); ++i) {
    words += (i == 0 ? "" : ", ") + std::to_string(all[i]->device_ordinal());
  }
  return words;
}

[[noreturn]] void refuse_outside_set(RuntimeCore &core, const std::string &subject, int device) {
  const std::string ordinal = std::to_string(device);
  throw InputError(subject + " is in the memory of CUDA device " + ordinal +
                   ", which is not one of this runtime's devices (it computes on " + set_words(core) +
                   "): copy it to one of them (Runtime::to_host, then Runtime::to_device(view, device)), " +
                   "or add device " + ordinal + " to RuntimeOptions::devices");
}

/// The device a call runs on, before its operands are checked.
int chosen_device(const Backend &requested, const DeviceOperands &operands, const StreamImpl *stream,
                  int device) {
  if (device >= 0) {
    return device;
  }
  if (stream != nullptr) {
    return requested.stream_device(*stream);
  }
  for (int pass = 0; pass < 2; ++pass) {
    const bool want_written = pass == 0;
    for (std::size_t i = 0; i < operands.views.size(); ++i) {
      const ArrayView *v = operands.views[i];
      if (v != nullptr && v->residence == Residence::Device && operands.written[i] == want_written) {
        return v->device;
      }
    }
  }
  return requested.device_ordinal();
}

}  // namespace

bool all_on_device_of(const Backend &backend, std::span<const ArrayView *const> views) {
  const int ordinal = backend.device_ordinal();
  for (const ArrayView *v : views) {
    if (v != nullptr && v->residence == Residence::Device && v->device != ordinal) {
      return false;
    }
  }
  return true;
}

bool stays_on(const Backend &backend, std::span<const Operand> operands, const StreamImpl *stream) {
  const int ordinal = backend.device_ordinal();
  if (stream != nullptr && backend.kind() == TargetKind::Cuda && backend.stream_device(*stream) != ordinal) {
    return false;
  }
  for (const Operand &op : operands) {
    if (op.kind != Operand::Kind::Scalar && op.array.residence == Residence::Device && op.array.device != ordinal) {
      return false;
    }
  }
  return true;
}

Backend &backend_of_device(RuntimeCore &core, int device, const std::string &what) {
  Backend *backend = core.cuda_backend_of(device);
  if (backend == nullptr) {
    throw InputError(what + " is CUDA device " + std::to_string(device) +
                     ", which is not one of this runtime's devices (it computes on " + set_words(core) +
                     "): name one of them, or add device " + std::to_string(device) +
                     " to RuntimeOptions::devices");
  }
  return *backend;
}

Backend &backend_of_view(RuntimeCore &core, const ArrayView &view, LabelRef label) {
  Backend *backend = core.cuda_backend_of(view.device);
  if (backend == nullptr) {
    refuse_outside_set(core, label() + " (" + view.describe() + ")", view.device);
  }
  return *backend;
}

DevicePlan place_on_device(RuntimeCore &core, Backend &requested, const DeviceOperands &operands,
                           const StreamImpl *stream, int device) {
  DevicePlan plan{&requested, false};
  if (requested.kind() != TargetKind::Cuda) {
    return plan;
  }
  for (std::size_t i = 0; i < operands.views.size(); ++i) {
    const ArrayView *v = operands.views[i];
    if (v != nullptr && v->residence == Residence::Device && core.cuda_backend_of(v->device) == nullptr) {
      refuse_outside_set(core, operands.label(i) + " (" + v->describe() + ")", v->device);
    }
  }
  const int ordinal = chosen_device(requested, operands, stream, device);
  plan.backend =
      &backend_of_device(core, ordinal, stream != nullptr ? "the stream's device" : "the device asked for");
  for (std::size_t i = 0; i < operands.views.size(); ++i) {
    const ArrayView *v = operands.views[i];
    if (v == nullptr || v->residence != Residence::Device || plan.backend->reads_device(v->device)) {
      continue;
    }
    if (!operands.written[i] && operands.copies_allowed && stream == nullptr) {
      plan.copies = true;
      continue;
    }
    const char *why = operands.written[i] ? " (an output or a kernel's argument is never copied)"
                      : stream != nullptr     ? " (an async call makes no copies)"
                                              : " (a method's operand is never copied)";
    const std::string to = std::to_string(ordinal);
    throw InputError(operands.label(i) + " (" + v->describe() + ") is in the memory of CUDA device " +
                     std::to_string(v->device) + ", but this call computes on device " + to +
                     ", which has no peer access to it" + why + ": copy it to device " + to +
                     " first (Runtime::to_host, then Runtime::to_device(view, " + to +
                     ")), or give every operand on one device");
  }
  return plan;
}

Backend &place_ufunc_call(RuntimeCore &core, Backend &requested, std::span<const Operand> operands,
                          const std::string &ufunc_name, StreamImpl *stream, std::vector<Operand> &staged,
                          std::vector<Array> &copies) {
  if (stays_on(requested, operands, stream)) {
    return requested;  // the usual call: no lookup
  }
  DeviceOperands placed;
  std::vector<std::string> labels;
  std::size_t inputs = 0;
  std::size_t outs = 0;
  for (const Operand &op : operands) {
    const bool is_out = op.kind == Operand::Kind::Out;
    placed.views.push_back(op.kind == Operand::Kind::Scalar ? nullptr : &op.array);
    placed.written.push_back(is_out);
    labels.push_back(is_out ? "out " + std::to_string(++outs) : "input " + std::to_string(++inputs));
  }
  placed.label = [&](std::size_t i) {
    const std::string &label = outs == 1 && placed.written[i] ? std::string("out") : labels[i];
    return label + " of '" + ufunc_name + "'";
  };
  placed.copies_allowed = true;
  const DevicePlan plan = place_on_device(core, requested, placed, stream);
  if (plan.copies) {
    copies.reserve(operands.size());
    for (const Operand &op : operands) {
      if (op.kind == Operand::Kind::Array && op.array.residence == Residence::Device &&
          !plan.backend->reads_device(op.array.device)) {
        copies.push_back(copy_to_device_of(core, *plan.backend, op.array));
        staged.emplace_back(copies.back().view());
      } else {
        staged.push_back(op);
      }
    }
  }
  return *plan.backend;
}

Array copy_to_device_of(RuntimeCore &core, Backend &backend, const ArrayView &view) {
  Backend &owner = backend_of_view(core, view, [] { return std::string("a copied operand"); });
  const Array host = owner.to_host(view);
  return backend.to_device(host.view());
}

}  // namespace ufjit::runtime
