// GPU kernel entries (codegen/kernel/KernelEntry.h): the ABI of codegen/kernel/KernelABI.h
// as a PTX `.entry` with a grid-stride loop.
//
// requires: a scalar function in value types; guarantees: an external
// ptx_kernel function (also listed in nvvm.annotations) whose loads and
// stores are on addrspace(1) pointers (ld.global/st.global). Each thread
// reads an element's inputs before it writes the output element, so an
// output that aliases an input (`f(x, out=x)`) stays correct; no pointer is
// marked noalias and no load is marked invariant for that reason.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/kernel/KernelEntry.h"
#include "codegen/LaunchHint.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {

namespace {

using namespace kernel_detail;

constexpr uint64_t kVectorBytes = 16;
constexpr uint64_t kMaxLanes = 4;  // elements per thread and group of an expensive body
/// A body up to this cost (scalar_function_cost, libdevice included) gets
/// one copy per lane (vector groups, or lane groups where vector groups do
/// not apply) rather than a loop over one copy: the loop's rotating phis,
/// counter and branches cost strict sincos 3% of its bandwidth (H100 lab,
/// 2026-11-25).
constexpr int kLaneCopiesBodyLimit = 1000;

using Operand = EntryOperand;  // inputs, then the output

class GpuEntryBuilder : EntryBuilderState {
 public:
  GpuEntryBuilder(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                  const KernelVariant &variant, GpuEntryShape shape)
      : EntryBuilderState(module, scalar, sig),
        entry_shape_(shape),
        variant_(variant),
        params_(kernel_params(make_kernel_spec(sig, variant))) {}

  llvm::Function *build(const std::string &name);

 private:
  llvm::FunctionType *entry_type() const;
  void bind_parameters();
  llvm::Value *read_sreg(llvm::Intrinsic::ID id);
  /// The global thread index and the grid size, in the index type.
  std::pair<llvm::Value *, llvm::Value *> emit_thread_index();
  llvm::Value *to_index(llvm::Value *v64);

  /// Computes one element at index `i` of the contiguous layout.
  void emit_contiguous_element(llvm::Value *i);
  /// Computes the elements [v*lanes, v*lanes + lanes) with one vector load
  /// per array input, one copy of the body per lane and one vector store.
  void emit_vector_group(llvm::Value *v, uint64_t lanes);
  /// Expensive bodies on few input bytes, the elements [start, n): each
  /// thread loads `lanes` elements a grid stride apart, computes them (one
  /// copy of the body per lane, or a loop over one copy), then stores them
  /// (see the definition).
  void emit_lane_groups(llvm::Value *start, llvm::Value *stride, uint64_t lanes, bool copies);
  /// A group's results, lane by lane, from its loaded inputs
  /// (`loaded[input][lane]`, null for scalar inputs): a loop over one copy
  /// of the body, or one copy per lane.
  std::vector<llvm::Value *> emit_lane_loop(const std::vector<std::vector<llvm::Value *>> &loaded,
                                            llvm::Value *base, llvm::Value *stride, uint64_t lanes);
  std::vector<llvm::Value *> emit_lane_copies(const std::vector<std::vector<llvm::Value *>> &loaded, uint64_t lanes);
  llvm::PHINode *emit_lane_call(llvm::Value *base, llvm::Value *stride, llvm::Value *lane,
                                const std::vector<llvm::Value *> &inputs, llvm::Type *result_type);
  void disable_unroll(llvm::BranchInst &back);
  void emit_contiguous();
  uint64_t lanes_for_expensive_body() const;
  void emit_strided();
  llvm::Value *call_with(const std::vector<llvm::Value *> &inputs);
  /// KernelABI.h's Done parameter: after every thread's elements.
  void emit_done_signal();

  GpuEntryShape entry_shape_;
  const KernelVariant &variant_;
  std::vector<KernelParam> params_;  // KernelABI.h's table
  llvm::Type *index_type_ = nullptr;
  llvm::Value *n_ = nullptr;      // index type
  llvm::Value *ndim_ = nullptr;   // index type
  llvm::Value *shape_ = nullptr;  // pointer to Dims
  std::vector<Operand> operands_;  // inputs, then the output
  LaunchHint hint_;                // what the loop shape wants of the grid
  llvm::Value *error_flag_ = nullptr;  // KernelABI.h: only when the module can raise
  llvm::Value *done_ = nullptr;  // KernelABI.h's Done parameter (a global pointer), when the entry has it
};

llvm::FunctionType *GpuEntryBuilder::entry_type() const {
  std::vector<llvm::Type *> params;
  for (const KernelParam &p : params_) {
    params.push_back(gpu_param_type(ctx_, p));
  }
  return llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false);
}

llvm::Value *GpuEntryBuilder::to_index(llvm::Value *v64) {
  if (variant_.index32) {
    return b_.CreateTrunc(v64, index_type_);
  }
  return v64;
}

void GpuEntryBuilder::bind_parameters() {
  const KernelSpec spec = make_kernel_spec(sig_, variant_);
  BoundParams bound = bind_entry_params(b_, spec, params_, [&](unsigned p) -> llvm::Value * {
    mark_gpu_param(*fn_, p, params_[p]);
    return fn_->getArg(p);
  });
  n_ = to_index(bound.n);
  ndim_ = bound.ndim != nullptr ? to_index(bound.ndim) : nullptr;
  shape_ = bound.shape;
  operands_ = std::move(bound.operands);
  error_flag_ = bound.error_flag;
  done_ = bound.done;
}

llvm::Value *GpuEntryBuilder::read_sreg(llvm::Intrinsic::ID id) {
  llvm::Value *v = b_.CreateIntrinsic(id, {}, {});
  if (variant_.index32) {
    return v;
  }
  return b_.CreateZExt(v, index_type_);
}

std::pair<llvm::Value *, llvm::Value *> GpuEntryBuilder::emit_thread_index() {
  // One read per statement: the instruction order (and so the PTX) must not
  // depend on the C++ compiler's order of evaluating arguments.
  llvm::Value *block = read_sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *block_size = read_sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  llvm::Value *thread = read_sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *grid_blocks = read_sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value *block_start = b_.CreateMul(block, block_size, "block.start", true, false);
  llvm::Value *gid = b_.CreateAdd(block_start, thread, "gid", true, false);
  llvm::Value *stride = b_.CreateMul(block_size, grid_blocks, "stride", true, false);
  return {gid, stride};
}

llvm::Value *GpuEntryBuilder::call_with(const std::vector<llvm::Value *> &inputs) {
  return call_scalar(b_, scalar_, sig_, inputs, error_flag_);
}

void GpuEntryBuilder::emit_contiguous_element(llvm::Value *i) {
  std::vector<llvm::Value *> inputs;
  for (std::size_t k = 0; k + 1 < operands_.size(); ++k) {
    const Operand &op = operands_[k];
    if (op.is_scalar) {
      inputs.push_back(op.value);
      continue;
    }
    llvm::Type *storage = element_storage_type(ctx_, op.dtype);
    llvm::Value *addr = b_.CreateInBoundsGEP(storage, op.pointer, i);
    inputs.push_back(load_element(b_, op.dtype, addr, element_align(op.dtype)));
  }
  llvm::Value *result = call_with(inputs);
  const Operand &out = operands_.back();
  llvm::Value *addr = b_.CreateInBoundsGEP(element_storage_type(ctx_, out.dtype), out.pointer, i);
  store_element(b_, out.dtype, result, addr, element_align(out.dtype));
}

void GpuEntryBuilder::emit_vector_group(llvm::Value *v, uint64_t lanes) {
  llvm::Value *first = b_.CreateMul(v, llvm::ConstantInt::get(index_type_, lanes), "first", true, false);
  std::size_t inputs_count = operands_.size() - 1;
  // One vector of lanes * parts components per array input.
  std::vector<llvm::Value *> vectors(inputs_count, nullptr);
  for (std::size_t k = 0; k < inputs_count; ++k) {
    const Operand &op = operands_[k];
    if (op.is_scalar) {
      continue;
    }
    uint64_t parts = is_complex_dtype(op.dtype) ? 2 : 1;
    auto *type = llvm::FixedVectorType::get(component_type(ctx_, op.dtype), static_cast<unsigned>(lanes * parts));
    llvm::Value *addr = b_.CreateInBoundsGEP(element_storage_type(ctx_, op.dtype), op.pointer, first);
    vectors[k] = b_.CreateAlignedLoad(type, addr, llvm::Align(lanes * element_size(op.dtype)));
  }
  // The scalar function once per lane (only cheap bodies get here).
  const Operand &out = operands_.back();
  uint64_t out_parts = is_complex_dtype(out.dtype) ? 2 : 1;
  llvm::Value *stored = llvm::PoisonValue::get(
      llvm::FixedVectorType::get(component_type(ctx_, out.dtype), static_cast<unsigned>(lanes * out_parts)));
  for (uint64_t lane = 0; lane < lanes; ++lane) {
    std::vector<llvm::Value *> inputs;
    for (std::size_t k = 0; k < inputs_count; ++k) {
      const Operand &op = operands_[k];
      if (op.is_scalar) {
        inputs.push_back(op.value);
      } else if (is_complex_dtype(op.dtype)) {
        llvm::Value *re = b_.CreateExtractElement(vectors[k], 2 * lane);
        llvm::Value *im = b_.CreateExtractElement(vectors[k], 2 * lane + 1);
        inputs.push_back(make_complex(b_, op.dtype, re, im));
      } else {
        inputs.push_back(storage_to_value(b_, op.dtype, b_.CreateExtractElement(vectors[k], lane)));
      }
    }
    llvm::Value *result = call_with(inputs);
    if (out_parts == 2) {
      stored = b_.CreateInsertElement(stored, b_.CreateExtractValue(result, {0}), 2 * lane);
      stored = b_.CreateInsertElement(stored, b_.CreateExtractValue(result, {1}), 2 * lane + 1);
    } else {
      stored = b_.CreateInsertElement(stored, value_to_storage(b_, out.dtype, result), lane);
    }
  }
  llvm::Value *addr = b_.CreateInBoundsGEP(element_storage_type(ctx_, out.dtype), out.pointer, first);
  b_.CreateAlignedStore(stored, addr, llvm::Align(lanes * element_size(out.dtype)));
}

void GpuEntryBuilder::emit_contiguous() {
  auto [gid, stride] = emit_thread_index();
  // Lanes per 128-bit access: set by the widest array operand.
  uint64_t widest = 0;
  llvm::Value *address_bits = nullptr;
  for (const Operand &op : operands_) {
    if (op.is_scalar) {
      continue;
    }
    widest = std::max<uint64_t>(widest, element_size(op.dtype));
    llvm::Value *bits = b_.CreatePtrToInt(op.pointer, b_.getInt64Ty());
    address_bits = address_bits == nullptr ? bits : b_.CreateOr(address_bits, bits);
  }
  uint64_t lanes = entry_shape_ == GpuEntryShape::Compact ? 1 : kVectorBytes / widest;
  llvm::Value *rest_start = gid;
  // Vector groups (one 16-byte access per array operand, one copy of the
  // body per lane) for every body small enough to be copied: the cheap ones,
  // memory-bound, and those up to kLaneCopiesBodyLimit, libdevice's sincosf
  // among them, which reach 96% of the copy bandwidth this way against 92%
  // with lane groups (H100 lab, 2026-11-27, docs/PERFORMANCE.md). A larger
  // body would multiply compile time and code size: it gets lane groups.
  // Bodies on >= 16 input bytes keep the scalar loop, which reaches the
  // copy bandwidth (gauss_f64, polar).
  const bool cheap = is_cheap_scalar_function(scalar_);
  const bool copyable = cheap || scalar_function_cost(scalar_, kLaneCopiesBodyLimit) <= kLaneCopiesBodyLimit;
  const uint64_t group_lanes = entry_shape_ == GpuEntryShape::Compact ? 1 : lanes_for_expensive_body();
  if (lanes > 1 && (cheap || (copyable && group_lanes > 1))) {
    // Vector groups cover [0, groups * lanes) when every pointer is 16-byte
    // aligned (the same test in every thread: uniform), none otherwise; the
    // loop below does the rest, so the body exists lanes + 1 times.
    llvm::Value *misalignment = b_.CreateAnd(address_bits, b_.getInt64(kVectorBytes - 1));
    llvm::Value *aligned = b_.CreateICmpEQ(misalignment, b_.getInt64(0), "aligned");
    llvm::Value *all_groups = b_.CreateLShr(n_, llvm::ConstantInt::get(index_type_, llvm::Log2_64(lanes)));
    llvm::Value *groups = b_.CreateSelect(aligned, all_groups, llvm::ConstantInt::get(index_type_, 0), "groups");
    emit_counted_loop(b_, gid, groups, stride, "vec", [&](llvm::Value *v) { emit_vector_group(v, lanes); });
    llvm::Value *vector_end = b_.CreateMul(groups, llvm::ConstantInt::get(index_type_, lanes), "vector.end", true, false);
    rest_start = b_.CreateAdd(vector_end, gid, "rest.start", true, false);
    // One vector group per thread over the whole array (CuPy's grid): 1-3%
    // over a grid capped at 16 waves (bench_ptx_lab, docs/PERFORMANCE.md).
    hint_.elements_per_thread = static_cast<uint32_t>(lanes);
  }
  const bool vectorized = rest_start != gid;
  if (!cheap && group_lanes > 1) {
    // An expensive body on few input bytes: lane groups keep several loads
    // of a thread in flight, for the whole array (a capped grid, the hint's
    // 0: a full one is 2-50% slower in the lab) or for what vector groups
    // left (the tail, or every element of a misaligned call).
    emit_lane_groups(rest_start, stride, group_lanes, copyable && !vectorized);
    return;
  }
  if (!vectorized) {
    // The scalar loop on >= 16 input bytes per element (gauss_f64, polar):
    // two elements per thread over the whole array (lab: full/2).
    hint_.elements_per_thread = 2;
  }
  emit_counted_loop(b_, rest_start, n_, stride, "elem", [&](llvm::Value *i) { emit_contiguous_element(i); });
}

uint64_t GpuEntryBuilder::lanes_for_expensive_body() const {
  // A thread of the scalar loop has one load per array input in flight; on
  // few input bytes (sincos: 4) the whole GPU then keeps too few bytes in
  // flight to reach the copy bandwidth. Lanes raise it to kVectorBytes.
  uint64_t input_bytes = 0;
  for (std::size_t k = 0; k + 1 < operands_.size(); ++k) {
    if (!operands_[k].is_scalar) {
      input_bytes += element_size(operands_[k].dtype);
    }
  }
  if (input_bytes == 0) {
    return 1;
  }
  return std::min<uint64_t>(kMaxLanes, (kVectorBytes + input_bytes - 1) / input_bytes);
}

void GpuEntryBuilder::emit_lane_groups(llvm::Value *start, llvm::Value *stride, uint64_t lanes, bool copies) {
  // Group g of a thread holds the elements base + j * stride, j < lanes
  // (base = start + g * lanes * stride): each access of one j is coalesced
  // across a warp, and the loads of all j are issued before any use. Lanes
  // past n (only in a thread's last group) load element n - 1 (base < n, so
  // n >= 1) and store nothing. A thread reads its elements before it writes
  // them, as the scalar loop, so an output that aliases an input stays
  // correct. With `copies` the body exists once per lane, else once, in a
  // loop (compile time and code size as the scalar loop's). Loading the
  // next group before computing this one was measured and dropped: its
  // registers cost occupancy, 2-3% slower for a large body and for
  // sincos's tail (H100 lab, 2026-11-27).
  llvm::Value *step =
      b_.CreateMul(stride, llvm::ConstantInt::get(index_type_, lanes), "group.step", true, false);
  emit_counted_loop(b_, start, n_, step, "group", [&](llvm::Value *base) {
    llvm::Value *last = b_.CreateSub(n_, llvm::ConstantInt::get(index_type_, 1), "last");
    std::vector<llvm::Value *> index(lanes);
    std::vector<llvm::Value *> in_bounds(lanes);
    std::size_t inputs_count = operands_.size() - 1;
    std::vector<std::vector<llvm::Value *>> loaded(inputs_count, std::vector<llvm::Value *>(lanes, nullptr));
    for (uint64_t j = 0; j < lanes; ++j) {
      llvm::Value *offset =
          b_.CreateMul(stride, llvm::ConstantInt::get(index_type_, j), "lane.offset", true, false);
      index[j] = b_.CreateAdd(base, offset, "lane.index", true, false);
      in_bounds[j] = b_.CreateICmpULT(index[j], n_, "lane.in");
      llvm::Value *clamped = b_.CreateSelect(in_bounds[j], index[j], last, "lane.load");
      for (std::size_t k = 0; k < inputs_count; ++k) {
        const Operand &op = operands_[k];
        if (!op.is_scalar) {
          llvm::Value *addr = b_.CreateInBoundsGEP(element_storage_type(ctx_, op.dtype), op.pointer, clamped);
          loaded[k][j] = load_element(b_, op.dtype, addr, element_align(op.dtype));
        }
      }
    }
    const Operand &out = operands_.back();
    const std::vector<llvm::Value *> final_results =
        copies ? emit_lane_copies(loaded, lanes) : emit_lane_loop(loaded, base, stride, lanes);
    for (uint64_t j = 0; j < lanes; ++j) {
      llvm::Value *addr = b_.CreateInBoundsGEP(element_storage_type(ctx_, out.dtype), out.pointer, index[j]);
      if (j == 0) {  // base < n
        store_element(b_, out.dtype, final_results[j], addr, element_align(out.dtype));
        continue;
      }
      llvm::BasicBlock *store = llvm::BasicBlock::Create(ctx_, "lane.store", fn_);
      llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx_, "lane.stored", fn_);
      b_.CreateCondBr(in_bounds[j], store, after);
      b_.SetInsertPoint(store);
      store_element(b_, out.dtype, final_results[j], addr, element_align(out.dtype));
      b_.CreateBr(after);
      b_.SetInsertPoint(after);
    }
  });
}

/// The lane's result: the scalar function of `inputs` when its element
/// (base + lane * stride) is below n, else zero.
llvm::PHINode *GpuEntryBuilder::emit_lane_call(llvm::Value *base, llvm::Value *stride, llvm::Value *lane,
                                               const std::vector<llvm::Value *> &inputs,
                                               llvm::Type *result_type) {
  llvm::Value *lane_offset =
      b_.CreateMul(b_.CreateZExtOrTrunc(lane, index_type_), stride, "lane.offset", true, false);
  llvm::Value *active = b_.CreateICmpULT(b_.CreateAdd(base, lane_offset, "", true, false), n_, "lane.active");
  llvm::BasicBlock *compute = llvm::BasicBlock::Create(ctx_, "lane.compute", fn_);
  llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx_, "lane.join", fn_);
  llvm::BasicBlock *skip_from = b_.GetInsertBlock();
  b_.CreateCondBr(active, compute, join);
  b_.SetInsertPoint(compute);
  llvm::Value *computed = call_with(inputs);
  llvm::BasicBlock *computed_in = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  llvm::PHINode *result = b_.CreatePHI(result_type, 2, "lane.result");
  result->addIncoming(computed, computed_in);
  result->addIncoming(llvm::Constant::getNullValue(result_type), skip_from);
  return result;
}

/// Marks the loop whose back edge is `back` as never to be unrolled.
void GpuEntryBuilder::disable_unroll(llvm::BranchInst &back) {
  llvm::MDNode *unroll_disable =
      llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")});
  llvm::MDNode *loop_id = llvm::MDNode::getDistinct(ctx_, {nullptr, unroll_disable});
  loop_id->replaceOperandWith(0, loop_id);
  back.setMetadata(llvm::LLVMContext::MD_loop, loop_id);
}

std::vector<llvm::Value *> GpuEntryBuilder::emit_lane_loop(const std::vector<std::vector<llvm::Value *>> &loaded,
                                                         llvm::Value *base, llvm::Value *stride, uint64_t lanes) {
  // The body runs in a loop over the lanes (values rotate through phis, so
  // nothing is indexed dynamically and all stays in registers), one copy of
  // it, never unrolled. Lanes past n skip the body: a grid that covers n in
  // one group per thread computes each element once.
  const std::size_t inputs_count = operands_.size() - 1;
  llvm::BasicBlock *pre = b_.GetInsertBlock();
  llvm::BasicBlock *body = llvm::BasicBlock::Create(ctx_, "lane.body", fn_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(ctx_, "lane.exit", fn_);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  llvm::PHINode *lane = b_.CreatePHI(b_.getInt32Ty(), 2, "lane");
  lane->addIncoming(b_.getInt32(0), pre);
  // held[k][j]: input k of the lane j iterations ahead; results[j]: the
  // result of the lane j iterations back (after the loop: lane j's). The
  // results start as zeros, not poison: a register read before it is
  // written (undefined in PTX) let the driver's ptxas miscompile the loop
  // when the body is small (H100, 2026-11-23, docs/PERFORMANCE.md).
  std::vector<std::vector<llvm::PHINode *>> held(inputs_count);
  std::vector<llvm::Value *> inputs;
  for (std::size_t k = 0; k < inputs_count; ++k) {
    const Operand &op = operands_[k];
    if (op.is_scalar) {
      inputs.push_back(op.value);
      continue;
    }
    for (uint64_t j = 0; j < lanes; ++j) {
      held[k].push_back(b_.CreatePHI(loaded[k][j]->getType(), 2, "held"));
      held[k][j]->addIncoming(loaded[k][j], pre);
    }
    inputs.push_back(held[k][0]);
  }
  const Operand &out = operands_.back();
  llvm::Type *result_type = element_value_type(ctx_, out.dtype);
  std::vector<llvm::PHINode *> results;
  for (uint64_t j = 0; j < lanes; ++j) {
    results.push_back(b_.CreatePHI(result_type, 2, "result"));
    results[j]->addIncoming(llvm::Constant::getNullValue(result_type), pre);
  }
  llvm::PHINode *result = emit_lane_call(base, stride, lane, inputs, result_type);
  llvm::BasicBlock *latch = b_.GetInsertBlock();
  for (std::size_t k = 0; k < inputs_count; ++k) {
    for (uint64_t j = 0; j < held[k].size(); ++j) {
      held[k][j]->addIncoming(held[k][(j + 1) % lanes], latch);
    }
  }
  for (uint64_t j = 0; j + 1 < lanes; ++j) {
    results[j]->addIncoming(results[j + 1], latch);
  }
  results[lanes - 1]->addIncoming(result, latch);
  llvm::Value *next = b_.CreateAdd(lane, b_.getInt32(1), "lane.next", true, true);
  lane->addIncoming(next, latch);
  llvm::BranchInst *back =
      b_.CreateCondBr(b_.CreateICmpULT(next, b_.getInt32(static_cast<uint32_t>(lanes))), body, done);
  disable_unroll(*back);
  b_.SetInsertPoint(done);
  // The values after the last iteration: each result phi's latch input.
  std::vector<llvm::Value *> final_results;
  for (uint64_t j = 0; j + 1 < lanes; ++j) {
    final_results.push_back(results[j + 1]);
  }
  final_results.push_back(result);
  return final_results;
}

std::vector<llvm::Value *> GpuEntryBuilder::emit_lane_copies(const std::vector<std::vector<llvm::Value *>> &loaded,
                                                           uint64_t lanes) {
  // Every lane computes, those past n on element n - 1 (stored nowhere): no
  // branch between the loads and the bodies, so that no load sinks into a
  // lane's branch and waits behind the lanes before it (which made tanh 10%
  // slower than the loop, H100 lab 2026-11-25). A raise in such a lane is
  // element n - 1's own, which its own lane raises too.
  std::vector<llvm::Value *> results;
  for (uint64_t j = 0; j < lanes; ++j) {
    std::vector<llvm::Value *> inputs;
    for (std::size_t k = 0; k + 1 < operands_.size(); ++k) {
      inputs.push_back(operands_[k].is_scalar ? operands_[k].value : loaded[k][j]);
    }
    results.push_back(call_with(inputs));
  }
  return results;
}

void GpuEntryBuilder::emit_strided() {
  auto [gid, stride] = emit_thread_index();
  llvm::Type *i64 = b_.getInt64Ty();
  // Loop-carried values of the coordinate loop live in allocas that SROA
  // promotes; it keeps this builder free of hand-made phis.
  llvm::IRBuilder<> entry_builder(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  llvm::Value *rem_slot = entry_builder.CreateAlloca(index_type_, nullptr, "rem.slot");
  std::vector<llvm::Value *> offset_slots(operands_.size(), nullptr);
  for (std::size_t k = 0; k < operands_.size(); ++k) {
    if (!operands_[k].is_scalar) {
      offset_slots[k] = entry_builder.CreateAlloca(index_type_, nullptr, "off.slot");
    }
  }
  llvm::Value *zero = llvm::ConstantInt::get(index_type_, 0);
  llvm::Value *one = llvm::ConstantInt::get(index_type_, 1);
  emit_counted_loop(b_, gid, n_, stride, "elem", [&](llvm::Value *i) {
    b_.CreateStore(i, rem_slot);
    for (llvm::Value *slot : offset_slots) {
      if (slot != nullptr) {
        b_.CreateStore(zero, slot);
      }
    }
    // Dimensions from the innermost (d = ndim - 1) outwards; ndim >= 1.
    emit_counted_loop(b_, zero, ndim_, one, "dim", [&](llvm::Value *j) {
      llvm::Value *d64 = b_.CreateZExt(b_.CreateSub(b_.CreateSub(ndim_, one), j), i64);
      llvm::Value *extent = to_index(b_.CreateAlignedLoad(i64, b_.CreateInBoundsGEP(i64, shape_, d64), llvm::Align(8)));
      llvm::Value *rem = b_.CreateLoad(index_type_, rem_slot);
      llvm::Value *coord = b_.CreateURem(rem, extent, "coord");
      b_.CreateStore(b_.CreateUDiv(rem, extent), rem_slot);
      for (std::size_t k = 0; k < operands_.size(); ++k) {
        if (offset_slots[k] == nullptr) {
          continue;
        }
        llvm::Value *s = to_index(
            b_.CreateAlignedLoad(i64, b_.CreateInBoundsGEP(i64, operands_[k].strides, d64), llvm::Align(8)));
        llvm::Value *offset = b_.CreateLoad(index_type_, offset_slots[k]);
        b_.CreateStore(b_.CreateAdd(offset, b_.CreateMul(coord, s)), offset_slots[k]);
      }
    });
    std::vector<llvm::Value *> addresses(operands_.size(), nullptr);
    for (std::size_t k = 0; k < operands_.size(); ++k) {
      if (offset_slots[k] != nullptr) {
        llvm::Value *offset = b_.CreateLoad(index_type_, offset_slots[k]);
        addresses[k] = b_.CreateGEP(b_.getInt8Ty(), operands_[k].pointer, offset);
      }
    }
    const std::vector<llvm::Value *> inputs = load_inputs(b_, operands_, addresses);
    llvm::Value *result = call_with(inputs);
    const Operand &out = operands_.back();
    store_element(b_, out.dtype, result, addresses.back(), element_align(out.dtype));
  });
}

void GpuEntryBuilder::emit_done_signal() {
  // Every thread reaches this block (the loops above have no other way
  // out), so the barrier sees the whole block; the branch on `done` is the
  // same in every thread. The barrier orders each thread's stores before
  // thread 0's fence, and the fence (cumulative, system scope) orders them
  // before the flag reaches host memory: whoever sees the flag sees the
  // results. Launches with a null `done` skip all of it.
  llvm::BasicBlock *signal = llvm::BasicBlock::Create(ctx_, "done.signal", fn_);
  llvm::BasicBlock *store = llvm::BasicBlock::Create(ctx_, "done.store", fn_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b_.CreateCondBr(b_.CreateIsNotNull(done_, "done.wanted"), signal, exit);
  b_.SetInsertPoint(signal);
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  llvm::Value *thread = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {});
  b_.CreateCondBr(b_.CreateICmpEQ(thread, b_.getInt32(0), "done.first"), store, exit);
  b_.SetInsertPoint(store);
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_membar_sys, {}, {});
  b_.CreateAlignedStore(b_.getInt32(1), done_, llvm::Align(4), /*isVolatile=*/true);
  b_.CreateBr(exit);
  b_.SetInsertPoint(exit);
}

llvm::Function *GpuEntryBuilder::build(const std::string &name) {
  internal_assert(module_.getFunction(name) == nullptr) << "entry " << name << " defined twice";
  index_type_ = variant_.index32 ? b_.getInt32Ty() : b_.getInt64Ty();
  fn_ = llvm::Function::Create(entry_type(), llvm::GlobalValue::ExternalLinkage, name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(entry);
  bind_parameters();
  if (variant_.layout == Layout::Contiguous) {
    emit_contiguous();
  } else {
    emit_strided();
  }
  if (done_ != nullptr) {
    emit_done_signal();
  }
  b_.CreateRetVoid();
  mark_ptx_kernel(*fn_, hint_);
  return fn_;
}

}  // namespace

llvm::Function *build_gpu_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                const KernelVariant &variant, const std::string &name, GpuEntryShape shape) {
  GpuEntryBuilder builder(module, scalar, sig, variant, shape);
  return builder.build(name);
}

}  // namespace ufjit::codegen
