// Parameters packed once, pointers written per call (see PackedParams.h).
#include "runtime/PackedParams.h"

#include <cstring>

#include "support/InternalAssert.h"

namespace ufjit::runtime {

PackedParams::PackedParams(const PreparedCall &call, std::span<const codegen::KernelParam> table) {
  std::vector<const void *> inputs;
  for (const PreparedOperand &in : call.inputs) {
    internal_assert(!in.is_scalar) << "PackedParams of a call with a scalar operand";
    inputs.push_back(in.array.data);
  }
  // Any non-null error flag packs the same layout; bind() writes the real one.
  void *const placeholder_flag = this;
  const KernelParams packed(call, table, inputs, call.output.data, placeholder_flag);
  internal_assert(packed.count() == table.size()) << "parameter table and packed parameters disagree";
  slots_.resize(table.size());
  for (std::size_t k = 0; k < table.size(); ++k) {
    std::memcpy(slots_[k].bytes, packed.pointers()[k], table[k].size());
    if (table[k].role == codegen::ParamRole::Data) {
      patches_.push_back({k, static_cast<std::size_t>(table[k].operand)});
    } else if (table[k].role == codegen::ParamRole::ErrorFlag) {
      patches_.push_back({k, kErrorFlag});
    } else if (table[k].role == codegen::ParamRole::Done) {
      patches_.push_back({k, kDoneFlag});
    }
  }
  for (Slot &slot : slots_) {
    pointers_.push_back(slot.bytes);
  }
}

void *const *PackedParams::bind(const PreparedCall &call, void *error_flag, void *done_flag) {
  for (const Patch &patch : patches_) {
    const void *value = patch.operand == kErrorFlag           ? error_flag
                        : patch.operand == kDoneFlag          ? done_flag
                        : patch.operand == call.inputs.size() ? call.output.data
                                                              : call.inputs[patch.operand].array.data;
    std::memcpy(slots_[patch.slot].bytes, &value, sizeof value);
  }
  return pointers_.data();
}

}  // namespace ufjit::runtime
