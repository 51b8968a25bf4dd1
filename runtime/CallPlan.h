// The plan of a ufunc's last call, reused when the next call has the same
// structure (runtime/Call.cpp; docs/PERFORMANCE.md, "Per call").
//
// A small GPU call is a few microseconds, and most of ufjit's share of it is
// work whose outcome depends only on the operands' structure: view checks,
// dispatch, residence, broadcasting, `out` checks, placing views and
// collapsing dims. A loop that calls a ufunc again and again with arrays of
// one structure (the usual case) gets the same answers every time. So
// run_call records the PreparedCall it built, with what it depended on, and
// the next call whose operands match reuses it: only what depends on the
// data pointers is checked again (null, alignment, the address range, and
// overlap with `out`), the pointers are put in, and the backend runs it.
//
// Only calls of arrays without scalars, casts or staged copies are
// recorded; anything else takes the full path each time, as does a call
// whose data pointers fail a check (the full path then words the error).
// The pointer checks are the pointer-dependent part of validate_view and of
// run_call's must_stage, on the byte extents recorded with the plan.
#pragma once

#include <atomic>
#include <span>
#include <vector>

#include "runtime/KernelRunner.h"
#include "runtime/ViewChecks.h"
#include "ufjit/runtime.h"

namespace ufjit::runtime {

class LastCallPlan {
 public:
  /// Runs the call through the recorded plan when `operands` match it and
  /// their data pointers pass the checks; `result` then holds the new output
  /// (empty with out(...)). Returns false, having done nothing, otherwise,
  /// and when another thread holds the plan.
  bool run(Backend &backend, std::span<const Operand> operands, StreamImpl *stream, Array &result);

  /// What run_call knows of a call it prepared, for record().
  struct Facts {
    /// The backend the call was asked of (what run() is given), and the one
    /// of the device it ran on (DevicePlacement.h; the same for the usual call).
    const Backend *backend = nullptr;
    Backend *runs_on = nullptr;
    bool async = false;
    /// The call's broadcast shape, and the full-shape inputs that chose a
    /// new output's memory order (allocate_output's arguments).
    const Dims *shape = nullptr;
    const std::vector<ArrayView> *full_shape_inputs = nullptr;
    Residence result_residence = Residence::Device;
  };
  /// Keeps `call` (prepared by run_call for `operands`, with every check
  /// passed) as the plan for later calls, when it is a call this plan can
  /// reuse (see the top of this file). `call`'s data pointers are replaced
  /// on every reuse.
  void record(std::span<const Operand> operands, const PreparedCall &call, const Facts &facts);

 private:
  /// What a matching operand must equal, and what its pointer is checked
  /// against.
  struct OperandKey {
    Operand::Kind kind = Operand::Kind::Array;
    DType dtype = DType::Float64;
    Residence residence = Residence::Device;
    int device = 0;
    bool read_only = false;
    Dims shape;
    Dims strides;
    ByteExtent extent;
    std::size_t alignment = 1;  // a power of two
  };
  bool matches(std::span<const Operand> operands, StreamImpl *stream, const Backend &backend) const;
  bool pointers_pass(std::span<const Operand> operands) const;

  /// Held by the one call that reads or writes the plan; never waited for:
  /// a call that finds it held takes the full path (a flag, not a mutex:
  /// taking it is a few instructions of every call).
  class Claim {
   public:
    explicit Claim(std::atomic<bool> &busy)
        : busy_(busy), owned_(!busy.exchange(true, std::memory_order_acquire)) {}
    ~Claim() {
      if (owned_) busy_.store(false, std::memory_order_release);
    }
    Claim(const Claim &) = delete;
    Claim &operator=(const Claim &) = delete;
    bool owned() const { return owned_; }

   private:
    std::atomic<bool> &busy_;
    bool owned_;
  };
  std::atomic<bool> busy_{false};
  bool valid_ = false;
  const Backend *backend_ = nullptr;
  Backend *runs_on_ = nullptr;  // the operands' devices are part of the key, so the same device each time
  bool async_ = false;
  std::vector<OperandKey> keys_;
  std::size_t out_index_ = 0;  // keys_ index of out(...); keys_.size() when none
  PreparedCall call_;
  std::unique_ptr<LaunchMemo> launch_memo_;  // the backend's, for call_
  Dims shape_;
  std::vector<ArrayView> full_shape_inputs_;
  Residence result_residence_ = Residence::Device;
};

}  // namespace ufjit::runtime
