// What only explicit kernels lower (ir/IR.h: the coordinate intrinsics,
// ArrayAlloc, ArrayAtomic, Sync). On the GPU they are the NVPTX special
// registers, shared memory (addrspace 3), native atomics and the barrier and
// warp instructions. On the CPU they read and call the thread's context
// (codegen/kernel/CpuKernelContext.h), the last parameter of every function
// of a kernel's module: the runtime's block runner makes a block's threads
// meet there as the GPU's would.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>

#include "codegen/kernel/CpuKernelContext.h"
#include "codegen/kernel/KernelCheck.h"
#include "codegen/lower/LowerFunction.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

using ir::IntrinsicOp;
using ir::SyncOp;

struct Register {
  IntrinsicOp op;
  llvm::Intrinsic::ID gpu;
  std::size_t cpu_offset;
};

const Register kRegisters[] = {
    {IntrinsicOp::ThreadIdxX, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, kCtxThreadIdx},
    {IntrinsicOp::ThreadIdxY, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y, kCtxThreadIdx + 4},
    {IntrinsicOp::ThreadIdxZ, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z, kCtxThreadIdx + 8},
    {IntrinsicOp::BlockIdxX, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, kCtxBlockIdx},
    {IntrinsicOp::BlockIdxY, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y, kCtxBlockIdx + 4},
    {IntrinsicOp::BlockIdxZ, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, kCtxBlockIdx + 8},
    {IntrinsicOp::BlockDimX, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x, kCtxBlockDim},
    {IntrinsicOp::BlockDimY, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_y, kCtxBlockDim + 4},
    {IntrinsicOp::BlockDimZ, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_z, kCtxBlockDim + 8},
    {IntrinsicOp::GridDimX, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, kCtxGridDim},
    {IntrinsicOp::GridDimY, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y, kCtxGridDim + 4},
    {IntrinsicOp::GridDimZ, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z, kCtxGridDim + 8},
};

/// The CPU's warp operation of a Sync.
CpuWarpOp cpu_warp_op(SyncOp op) {
  switch (op) {
    case SyncOp::ShflIdx:
      return CpuWarpOp::ShflIdx;
    case SyncOp::ShflUp:
      return CpuWarpOp::ShflUp;
    case SyncOp::ShflDown:
      return CpuWarpOp::ShflDown;
    case SyncOp::ShflXor:
      return CpuWarpOp::ShflXor;
    case SyncOp::VoteAll:
      return CpuWarpOp::VoteAll;
    case SyncOp::VoteAny:
      return CpuWarpOp::VoteAny;
    case SyncOp::VoteUni:
      return CpuWarpOp::VoteUni;
    case SyncOp::Ballot:
      return CpuWarpOp::Ballot;
    case SyncOp::MatchAny:
      return CpuWarpOp::MatchAny;
    case SyncOp::MatchAll:
      return CpuWarpOp::MatchAll;
    case SyncOp::SyncWarp:
      return CpuWarpOp::SyncWarp;
    default:
      return CpuWarpOp::ActiveMask;
  }
}

/// A value's bits as an integer of its width (floats bitcast).
llvm::Value *to_bits(llvm::IRBuilder<> &b, llvm::Value *v) {
  llvm::Type *t = v->getType();
  if (t->isIntegerTy()) return v;
  return b.CreateBitCast(v, b.getIntNTy(t->getPrimitiveSizeInBits()));
}

llvm::Value *from_bits(llvm::IRBuilder<> &b, llvm::Value *bits, llvm::Type *t) {
  return t->isIntegerTy() ? bits : b.CreateBitCast(bits, t);
}

}  // namespace

llvm::Value *FunctionLowerer::context_field(std::size_t offset, llvm::Type *type) {
  internal_assert(kernel_context_ != nullptr) << "a kernel operation without the CPU thread context";
  llvm::Value *at = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), kernel_context_, offset);
  llvm::LoadInst *load = builder_.CreateAlignedLoad(type, at, llvm::Align(type->isIntegerTy(32) ? 4 : 8));
  if (type->isIntegerTy(32)) mark_context_field_range(*load, offset);
  return load;
}

llvm::Value *FunctionLowerer::emit_coordinate(IntrinsicOp op) {
  if (op == IntrinsicOp::LaneId) {
    if (ms_.target.kind == TargetKind::Cuda) {
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid, {}, {});
    }
    // The linear thread index modulo 32: x + y * bx + z * bx * by.
    llvm::Value *linear = nullptr;
    llvm::Value *scale = builder_.getInt32(1);
    for (int axis = 0; axis < 3; ++axis) {
      llvm::Value *t = context_field(kCtxThreadIdx + 4 * axis, builder_.getInt32Ty());
      llvm::Value *term = builder_.CreateMul(t, scale);
      linear = linear == nullptr ? term : builder_.CreateAdd(linear, term);
      scale = builder_.CreateMul(scale, context_field(kCtxBlockDim + 4 * axis, builder_.getInt32Ty()));
    }
    return builder_.CreateAnd(linear, builder_.getInt32(31));
  }
  for (const Register &r : kRegisters) {
    if (r.op != op) continue;
    if (ms_.target.kind == TargetKind::Cuda) return builder_.CreateIntrinsic(r.gpu, {}, {});
    return context_field(r.cpu_offset, builder_.getInt32Ty());
  }
  internal_error << "not a coordinate: " << ir::intrinsic_name(op);
}

llvm::Value *FunctionLowerer::shared_base(bool dynamic) {
  llvm::LLVMContext &ctx = ms_.ctx();
  if (ms_.target.kind == TargetKind::Cpu) {
    return context_field(dynamic ? kCtxDynamicShared : kCtxShared, builder_.getPtrTy());
  }
  // CUDA's `extern __shared__` for the dynamic bytes; one array per kernel
  // module for the static ones (ir::ArrayAlloc::offset within it).
  const std::string name = dynamic ? std::string("ufjit_dynamic_shared") : ms_.prefix + "shared";
  llvm::GlobalVariable *g = ms_.module.getNamedGlobal(name);
  if (g == nullptr) {
    const uint64_t bytes = dynamic ? 0 : static_cast<uint64_t>(std::max<int64_t>(ms_.shared_bytes, 1));
    llvm::Type *type = llvm::ArrayType::get(builder_.getInt8Ty(), bytes);
    g = new llvm::GlobalVariable(ms_.module, type, false,
                                 dynamic ? llvm::GlobalValue::ExternalLinkage : llvm::GlobalValue::InternalLinkage,
                                 dynamic ? nullptr : llvm::UndefValue::get(type), name, nullptr,
                                 llvm::GlobalValue::NotThreadLocal, 3);
    g->setAlignment(llvm::Align(16));
  }
  return builder_.CreateAddrSpaceCast(g, llvm::PointerType::get(ctx, 0));
}

llvm::Value *FunctionLowerer::constant_array_data(const std::string &data) {
  llvm::GlobalVariable *&g = ms_.constant_arrays[data];
  const unsigned space = ms_.target.kind == TargetKind::Cuda ? 4 : 0;  // NVPTX's constant address space
  if (g == nullptr) {
    llvm::Type *type = llvm::ArrayType::get(builder_.getInt8Ty(), std::max<std::size_t>(data.size(), 1));
    llvm::Constant *init = data.empty() ? llvm::Constant::getNullValue(type)
                                        : llvm::ConstantDataArray::getRaw(data, data.size(), builder_.getInt8Ty());
    g = new llvm::GlobalVariable(ms_.module, type, true, llvm::GlobalValue::InternalLinkage, init,
                                 ms_.prefix + "const." + std::to_string(ms_.constant_arrays.size()), nullptr,
                                 llvm::GlobalValue::NotThreadLocal, space);
    g->setAlignment(llvm::Align(16));
  }
  if (space == 0) return g;
  return builder_.CreateAddrSpaceCast(g, llvm::PointerType::get(ms_.ctx(), 0));
}

llvm::Value *FunctionLowerer::emit_array_alloc(const ir::ArrayAlloc &a) {
  const DType element = a.type.dtype();
  const int64_t item = static_cast<int64_t>(dtype_size(element));
  llvm::Value *data = nullptr;
  std::vector<llvm::Value *> shape;
  if (a.space == ir::MemorySpace::DynamicShared) {
    data = shared_base(true);
    llvm::Value *bytes = nullptr;
    if (ms_.target.kind == TargetKind::Cuda) {
      llvm::FunctionType *type = llvm::FunctionType::get(builder_.getInt32Ty(), false);
      llvm::InlineAsm *read = llvm::InlineAsm::get(type, "mov.u32 $0, %dynamic_smem_size;", "=r", false);
      bytes = builder_.CreateZExt(builder_.CreateCall(type, read), builder_.getInt64Ty());
    } else {
      bytes = context_field(kCtxDynamicSharedBytes, builder_.getInt64Ty());
    }
    shape.push_back(builder_.CreateUDiv(bytes, builder_.getInt64(static_cast<uint64_t>(item))));
  } else {
    int64_t bytes = item;
    for (int64_t d : a.shape) bytes *= d;
    if (a.space == ir::MemorySpace::Shared) {
      data = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), shared_base(false),
                                                 static_cast<uint64_t>(a.offset));
    } else if (a.space == ir::MemorySpace::Constant) {
      data = constant_array_data(*a.data);
    } else {
      llvm::Type *storage = llvm::ArrayType::get(builder_.getInt8Ty(), static_cast<uint64_t>(std::max<int64_t>(bytes, 1)));
      llvm::AllocaInst *local = emitter_.entry_alloca(storage, "local.array");
      local->setAlignment(llvm::Align(16));
      data = local;
    }
    for (int64_t d : a.shape) shape.push_back(builder_.getInt64(static_cast<uint64_t>(d)));
  }
  // A C-contiguous view {data, shape, byte strides}.
  llvm::Value *view = llvm::UndefValue::get(value_type(ms_.ctx(), a.type));
  view = builder_.CreateInsertValue(view, data, {0});
  llvm::Value *stride = builder_.getInt64(static_cast<uint64_t>(item));
  for (std::size_t k = shape.size(); k-- > 0;) {
    view = builder_.CreateInsertValue(view, shape[k], {1, static_cast<unsigned>(k)});
    view = builder_.CreateInsertValue(view, stride, {2, static_cast<unsigned>(k)});
    stride = builder_.CreateMul(stride, shape[k]);
  }
  return view;
}

llvm::Value *FunctionLowerer::emit_float_atomic_loop(ir::AtomicOp op, llvm::Value *address, llvm::Value *value) {
  // max/min/nanmax/nanmin of floats: a compare-and-swap loop on the bits.
  llvm::Type *ft = value->getType();
  llvm::Type *it = builder_.getIntNTy(ft->getPrimitiveSizeInBits());
  const llvm::Align align(ft->getPrimitiveSizeInBits() / 8);
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::BasicBlock *loop = new_block(emitter_, "atomic.loop");
  llvm::BasicBlock *done = new_block(emitter_, "atomic.done");
  llvm::LoadInst *first = builder_.CreateAlignedLoad(it, address, align);
  first->setAtomic(llvm::AtomicOrdering::Monotonic);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *old_bits = builder_.CreatePHI(it, 2);
  old_bits->addIncoming(first, before);
  llvm::Value *old = builder_.CreateBitCast(old_bits, ft);
  llvm::Value *chosen = nullptr;
  if (op == ir::AtomicOp::Max || op == ir::AtomicOp::Min) {
    // Python's max/min(old, value): value only when it compares greater (less).
    llvm::Value *better = op == ir::AtomicOp::Max ? builder_.CreateFCmpOGT(value, old) : builder_.CreateFCmpOLT(value, old);
    chosen = builder_.CreateSelect(better, value, old);
  } else {
    llvm::Intrinsic::ID id = op == ir::AtomicOp::NanMax ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum;
    chosen = builder_.CreateBinaryIntrinsic(id, old, value);
  }
  llvm::Value *new_bits = builder_.CreateBitCast(chosen, it);
  llvm::BasicBlock *swap = new_block(emitter_, "atomic.swap");
  builder_.CreateCondBr(builder_.CreateICmpEQ(new_bits, old_bits), done, swap);
  builder_.SetInsertPoint(swap);
  llvm::Value *pair = builder_.CreateAtomicCmpXchg(address, old_bits, new_bits, align, llvm::AtomicOrdering::Monotonic,
                                                   llvm::AtomicOrdering::Monotonic);
  llvm::Value *seen = builder_.CreateExtractValue(pair, {0});
  old_bits->addIncoming(seen, swap);
  builder_.CreateCondBr(builder_.CreateExtractValue(pair, {1}), done, loop);
  builder_.SetInsertPoint(done);
  llvm::PHINode *result = builder_.CreatePHI(it, 2);
  result->addIncoming(old_bits, loop);
  result->addIncoming(old_bits, swap);
  return builder_.CreateBitCast(result, ft);
}

llvm::Value *FunctionLowerer::emit_array_atomic(const ir::ArrayAtomic &a) {
  using ir::AtomicOp;
  const DType t = a.type.dtype();
  llvm::Value *value = emit(a.value);
  llvm::Value *compare = a.compare ? emit(a.compare) : nullptr;
  llvm::Value *address = element_address(a.array, a.indices);
  const llvm::Align align(dtype_size(t));
  const bool is_float = ufjit::is_float(t);
  const bool is_signed = is_signed_int(t);
  if (a.op == AtomicOp::Cas) {
    llvm::Value *pair = builder_.CreateAtomicCmpXchg(address, compare, value, align, llvm::AtomicOrdering::Monotonic,
                                                     llvm::AtomicOrdering::Monotonic);
    return builder_.CreateExtractValue(pair, {0});
  }
  using Bin = llvm::AtomicRMWInst::BinOp;
  Bin bin = Bin::Xchg;
  switch (a.op) {
    case AtomicOp::Add:
      bin = is_float ? Bin::FAdd : Bin::Add;
      break;
    case AtomicOp::Sub:
      if (is_float) {
        // The GPU has atom.add.f32/f64 but no float subtract: add the negation.
        value = builder_.CreateFNeg(value);
        bin = Bin::FAdd;
        break;
      }
      bin = Bin::Sub;
      break;
    case AtomicOp::Max:
    case AtomicOp::NanMax:
      if (is_float) return emit_float_atomic_loop(a.op, address, value);
      bin = is_signed ? Bin::Max : Bin::UMax;
      break;
    case AtomicOp::Min:
    case AtomicOp::NanMin:
      if (is_float) return emit_float_atomic_loop(a.op, address, value);
      bin = is_signed ? Bin::Min : Bin::UMin;
      break;
    case AtomicOp::And:
      bin = Bin::And;
      break;
    case AtomicOp::Or:
      bin = Bin::Or;
      break;
    case AtomicOp::Xor:
      bin = Bin::Xor;
      break;
    case AtomicOp::Inc:
      bin = Bin::UIncWrap;
      break;
    case AtomicOp::Dec:
      bin = Bin::UDecWrap;
      break;
    default:
      break;
  }
  return builder_.CreateAtomicRMW(bin, address, value, align, llvm::AtomicOrdering::Monotonic);
}

llvm::Value *FunctionLowerer::emit_sync(const ir::Sync &s) {
  std::vector<llvm::Value *> args;
  for (const ir::Expr &arg : s.args) args.push_back(emit(arg));
  if (s.op == SyncOp::FenceBlock || s.op == SyncOp::FenceDevice || s.op == SyncOp::FenceSystem) {
    if (ms_.target.kind == TargetKind::Cpu) {
      builder_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
      return nullptr;
    }
    const llvm::Intrinsic::ID id = s.op == SyncOp::FenceBlock    ? llvm::Intrinsic::nvvm_membar_cta
                                   : s.op == SyncOp::FenceDevice ? llvm::Intrinsic::nvvm_membar_gl
                                                                 : llvm::Intrinsic::nvvm_membar_sys;
    builder_.CreateIntrinsic(id, {}, {});
    return nullptr;
  }
  const bool barrier = s.op == SyncOp::SyncThreads || s.op == SyncOp::SyncThreadsCount ||
                       s.op == SyncOp::SyncThreadsAnd || s.op == SyncOp::SyncThreadsOr;
  if (ms_.target.kind == TargetKind::Cpu) return barrier ? emit_cpu_barrier(s, args) : emit_cpu_warp(s, args);
  return barrier ? emit_gpu_barrier(s, args) : emit_gpu_warp(s, args);
}

llvm::Value *FunctionLowerer::emit_gpu_barrier(const ir::Sync &s, const std::vector<llvm::Value *> &args) {
  switch (s.op) {
    case SyncOp::SyncThreads:
      builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
      return nullptr;
    case SyncOp::SyncThreadsCount:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0_popc, {}, {args[0]});
    case SyncOp::SyncThreadsAnd:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0_and, {}, {args[0]});
    default:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0_or, {}, {args[0]});
  }
}

llvm::Value *FunctionLowerer::gpu_shuffle(SyncOp op, llvm::Value *mask, llvm::Value *word, llvm::Value *lane) {
  // One 32-bit shfl.sync; c = 31 clamps idx/down/bfly to the warp, 0 up.
  const llvm::Intrinsic::ID id = op == SyncOp::ShflIdx    ? llvm::Intrinsic::nvvm_shfl_sync_idx_i32
                                 : op == SyncOp::ShflUp   ? llvm::Intrinsic::nvvm_shfl_sync_up_i32
                                 : op == SyncOp::ShflDown ? llvm::Intrinsic::nvvm_shfl_sync_down_i32
                                                          : llvm::Intrinsic::nvvm_shfl_sync_bfly_i32;
  llvm::Value *clamp = builder_.getInt32(op == SyncOp::ShflUp ? 0 : 31);
  return builder_.CreateIntrinsic(id, {}, {mask, word, lane, clamp});
}

llvm::Value *FunctionLowerer::emit_gpu_warp(const ir::Sync &s, const std::vector<llvm::Value *> &args) {
  switch (s.op) {
    case SyncOp::SyncWarp:
      builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {args[0]});
      return nullptr;
    case SyncOp::ActiveMask:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_activemask, {}, {});
    case SyncOp::VoteAll:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_all_sync, {}, {args[0], args[1]});
    case SyncOp::VoteAny:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_any_sync, {}, {args[0], args[1]});
    case SyncOp::VoteUni:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_uni_sync, {}, {args[0], args[1]});
    case SyncOp::Ballot:
      return builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_ballot_sync, {}, {args[0], args[1]});
    case SyncOp::MatchAny:
    case SyncOp::MatchAll: {
      llvm::Value *bits = to_bits(builder_, args[1]);
      const bool wide = bits->getType()->getIntegerBitWidth() == 64;
      if (s.op == SyncOp::MatchAny) {
        auto id = wide ? llvm::Intrinsic::nvvm_match_any_sync_i64 : llvm::Intrinsic::nvvm_match_any_sync_i32;
        return builder_.CreateIntrinsic(id, {}, {args[0], bits});
      }
      auto id = wide ? llvm::Intrinsic::nvvm_match_all_sync_i64p : llvm::Intrinsic::nvvm_match_all_sync_i32p;
      return builder_.CreateExtractValue(builder_.CreateIntrinsic(id, {}, {args[0], bits}), {0});
    }
    default:
      break;
  }
  // Shuffles: a 64-bit value moves as two 32-bit halves.
  llvm::Value *bits = to_bits(builder_, args[1]);
  llvm::Type *type = args[1]->getType();
  if (bits->getType()->getIntegerBitWidth() == 32) {
    return from_bits(builder_, gpu_shuffle(s.op, args[0], bits, args[2]), type);
  }
  llvm::Value *lo = builder_.CreateTrunc(bits, builder_.getInt32Ty());
  llvm::Value *hi = builder_.CreateTrunc(builder_.CreateLShr(bits, 32), builder_.getInt32Ty());
  lo = builder_.CreateZExt(gpu_shuffle(s.op, args[0], lo, args[2]), builder_.getInt64Ty());
  hi = builder_.CreateZExt(gpu_shuffle(s.op, args[0], hi, args[2]), builder_.getInt64Ty());
  return from_bits(builder_, builder_.CreateOr(lo, builder_.CreateShl(hi, 32)), type);
}

llvm::Value *FunctionLowerer::emit_cpu_barrier(const ir::Sync &s, const std::vector<llvm::Value *> &args) {
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::FunctionType *type = llvm::FunctionType::get(i32, {ptr, i32, i32, i32}, false);
  llvm::Value *fn = context_field(kCtxSync, ptr);
  CpuSyncOp op = CpuSyncOp::Plain;
  if (s.op == SyncOp::SyncThreadsCount) op = CpuSyncOp::Count;
  if (s.op == SyncOp::SyncThreadsAnd) op = CpuSyncOp::And;
  if (s.op == SyncOp::SyncThreadsOr) op = CpuSyncOp::Or;
  llvm::Value *value = args.empty() ? builder_.getInt32(0) : args[0];
  report_access(nullptr, 0, static_cast<int32_t>(CpuAccessKind::Barrier), s.line);
  llvm::Value *result = builder_.CreateCall(
      type, fn, {kernel_context_, builder_.getInt32(static_cast<uint32_t>(op)), value, builder_.getInt32(s.line)});
  return s.op == SyncOp::SyncThreads ? nullptr : result;
}

void FunctionLowerer::report_access(llvm::Value *address, int64_t bytes, int32_t kind, int line) {
  if (!ms_.checked_cpu) return;
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::Value *at = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), error_flag_, kCheckAccess);
  llvm::Value *fn = builder_.CreateAlignedLoad(ptr, at, llvm::Align(8));
  llvm::FunctionType *type = llvm::FunctionType::get(builder_.getVoidTy(), {ptr, ptr, i64, i32, i32}, false);
  if (address == nullptr) address = llvm::ConstantPointerNull::get(llvm::PointerType::get(ms_.ctx(), 0));
  builder_.CreateCall(type, fn,
                      {kernel_context_, address, builder_.getInt64(static_cast<uint64_t>(bytes)),
                       builder_.getInt32(static_cast<uint32_t>(kind)), builder_.getInt32(static_cast<uint32_t>(line))});
}

llvm::Value *FunctionLowerer::emit_cpu_warp(const ir::Sync &s, const std::vector<llvm::Value *> &args) {
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::FunctionType *type = llvm::FunctionType::get(i64, {ptr, i32, i64, i32, i32, i32}, false);
  llvm::Value *fn = context_field(kCtxWarp, ptr);
  llvm::Value *mask = args.empty() ? builder_.getInt32(0xffffffffu) : args[0];
  llvm::Value *value = builder_.getInt64(0);
  if (args.size() >= 2) value = builder_.CreateZExt(to_bits(builder_, args[1]), i64);
  llvm::Value *arg = args.size() >= 3 ? args[2] : builder_.getInt32(0);
  const auto op = static_cast<uint32_t>(cpu_warp_op(s.op));
  if (s.op == SyncOp::SyncWarp) report_access(nullptr, 0, static_cast<int32_t>(CpuAccessKind::WarpSync), s.line);
  llvm::Value *result = builder_.CreateCall(
      type, fn, {kernel_context_, builder_.getInt32(op), value, arg, mask, builder_.getInt32(s.line)});
  switch (s.op) {
    case SyncOp::SyncWarp:
      return nullptr;
    case SyncOp::VoteAll:
    case SyncOp::VoteAny:
    case SyncOp::VoteUni:
      return builder_.CreateICmpNE(result, builder_.getInt64(0));
    case SyncOp::Ballot:
    case SyncOp::MatchAny:
    case SyncOp::MatchAll:
    case SyncOp::ActiveMask:
      return builder_.CreateTrunc(result, i32);
    default: {
      llvm::Type *t = args[1]->getType();
      llvm::Value *bits = builder_.CreateTrunc(result, builder_.getIntNTy(t->getPrimitiveSizeInBits()));
      return from_bits(builder_, bits, t);
    }
  }
}

}  // namespace ufjit::codegen::lower

namespace ufjit::codegen {

void mark_context_field_range(llvm::LoadInst &load, std::size_t offset) {
  const FieldRange range = context_field_range(offset);
  if (range.hi <= range.lo) return;
  llvm::MDBuilder md(load.getContext());
  load.setMetadata(llvm::LLVMContext::MD_range, md.createRange(llvm::APInt(32, static_cast<uint64_t>(range.lo)),
                                                               llvm::APInt(32, static_cast<uint64_t>(range.hi))));
}

}  // namespace ufjit::codegen
