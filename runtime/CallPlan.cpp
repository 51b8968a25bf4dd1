// The plan of a ufunc's last call (see CallPlan.h).
#include "runtime/CallPlan.h"

#include "runtime/Call.h"

namespace ufjit::runtime {

bool LastCallPlan::matches(std::span<const Operand> operands, StreamImpl *stream, const Backend &backend) const {
  if (!valid_ || backend_ != &backend || async_ != (stream != nullptr) || operands.size() != keys_.size()) {
    return false;
  }
  if (stream != nullptr && runs_on_->stream_device(*stream) != runs_on_->device_ordinal()) {
    return false;  // an async call runs on its stream's device (DevicePlacement.h)
  }
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Operand &op = operands[k];
    const OperandKey &key = keys_[k];
    if (op.kind != key.kind || op.array.dtype != key.dtype || op.array.residence != key.residence ||
        op.array.device != key.device || op.array.read_only != key.read_only || op.array.shape != key.shape ||
        op.array.strides != key.strides) {
      return false;
    }
  }
  return true;
}

bool LastCallPlan::pointers_pass(std::span<const Operand> operands) const {
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const auto address = reinterpret_cast<uintptr_t>(operands[k].array.data);
    if (address == 0 || (address & (keys_[k].alignment - 1)) != 0 || !extent_fits_address_space(address, keys_[k].extent)) {
      return false;
    }
  }
  if (out_index_ == keys_.size()) {
    return true;
  }
  // An input that may share bytes with `out` is read through a copy, unless
  // it is `out` itself element for element (run_call's must_stage): the
  // full path decides the rest.
  const ArrayView &out = operands[out_index_].array;
  const auto out_address = reinterpret_cast<uintptr_t>(out.data);
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const ArrayView &in = operands[k].array;
    if (k != out_index_ && keys_[k].residence == keys_[out_index_].residence &&
        extents_meet(reinterpret_cast<uintptr_t>(in.data), keys_[k].extent, out_address, keys_[out_index_].extent) &&
        !(in.shape == out.shape && same_elements(in, out))) {
      return false;
    }
  }
  return true;
}

bool LastCallPlan::run(Backend &backend, std::span<const Operand> operands, StreamImpl *stream, Array &result) {
  const Claim claim(busy_);
  if (!claim.owned() || !matches(operands, stream, backend) || !pointers_pass(operands)) {
    return false;
  }
  std::size_t input = 0;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (k != out_index_) {
      call_.inputs[input++].array.data = operands[k].array.data;
    }
  }
  if (out_index_ < keys_.size()) {
    call_.output.data = operands[out_index_].array.data;
  } else {
    result = allocate_call_output(*runs_on_, call_.signature->ret, shape_, full_shape_inputs_,
                                  result_residence_, stream);
    call_.output.data = result.data();
  }
  runs_on_->runner().execute_planned(call_, stream, launch_memo_);
  return true;
}

void LastCallPlan::record(std::span<const Operand> operands, const PreparedCall &call, const Facts &facts) {
  std::size_t input = 0;
  std::size_t out_index = operands.size();
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Operand &op = operands[k];
    if (op.kind == Operand::Kind::Scalar) {
      return;
    }
    if (op.kind == Operand::Kind::Out) {
      out_index = k;
      continue;
    }
    // A scalar parameter (a one-element host array is passed as one), a
    // cast or a staged copy: the kernel does not read the operand's memory.
    if (input >= call.inputs.size() || call.inputs[input].is_scalar ||
        call.inputs[input].array.data != op.array.data) {
      return;
    }
    ++input;
  }
  if (input != call.inputs.size()) {
    return;
  }
  const Claim claim(busy_);
  if (!claim.owned()) {
    return;
  }
  keys_.resize(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const ArrayView &v = operands[k].array;
    OperandKey &key = keys_[k];
    key.kind = operands[k].kind;
    key.dtype = v.dtype;
    key.residence = v.residence;
    key.device = v.device;
    key.read_only = v.read_only;
    key.shape = v.shape;
    key.strides = v.strides;
    key.extent = byte_extent(v);
    key.alignment = element_alignment(v.dtype);
  }
  out_index_ = out_index;
  backend_ = facts.backend;
  runs_on_ = facts.runs_on;
  async_ = facts.async;
  call_ = call;
  launch_memo_.reset();
  shape_ = *facts.shape;
  full_shape_inputs_ = *facts.full_shape_inputs;
  result_residence_ = facts.result_residence;
  valid_ = true;
}

}  // namespace ufjit::runtime
