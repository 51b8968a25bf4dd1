// A call's kernel parameters packed once and kept, for calls that differ
// from it only in their data pointers (a LastCallPlan's, runtime/CallPlan.h).
//
// KernelParams walks the entry's parameter table on every call: counts,
// shapes, strides and scalars are the same for every call of one plan, so
// this packs them once and then writes only the slots that change, the data
// pointers and the error and done flags.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/Backend.h"

namespace ufjit::runtime {

class PackedParams {
 public:
  /// Packs `call` (array operands only: a LastCallPlan records no scalars)
  /// for the entry whose parameter table is `table`.
  PackedParams(const PreparedCall &call, std::span<const codegen::KernelParam> table);
  PackedParams(const PackedParams &) = delete;
  PackedParams &operator=(const PackedParams &) = delete;

  /// Writes `call`'s data pointers (a call of the packed one's structure),
  /// `error_flag` (null when the entry has no ErrorFlag parameter) and
  /// `done_flag` (KernelABI.h's Done; null: not asked); the result is what
  /// cuLaunchKernel's kernelParams or a CPU entry take.
  void *const *bind(const PreparedCall &call, void *error_flag, void *done_flag = nullptr);

 private:
  struct alignas(8) Slot {
    uint8_t bytes[sizeof(codegen::Dims)];
  };
  /// A slot written per call: input `operand`'s data, the output's
  /// (operand == the number of inputs), the error flag (kErrorFlag) or the
  /// done flag (kDoneFlag).
  struct Patch {
    std::size_t slot;
    std::size_t operand;
  };
  static constexpr std::size_t kErrorFlag = ~std::size_t{0};
  static constexpr std::size_t kDoneFlag = ~std::size_t{1};

  std::vector<Slot> slots_;
  std::vector<void *> pointers_;
  std::vector<Patch> patches_;
};

}  // namespace ufjit::runtime
