// A kernel split at its barriers on the CPU (codegen/lower/KernelRegions.h):
// the kernel function runs one whole block, each region between two barriers
// a loop over the block's threads.
// requires: fn_ is ms_.split_function (cpu_block_shape gave Regions), its
// context the block's own copy (KernelExplicit.cpp); guarantees: every live
// thread runs a region before any runs the next; a thread that returns (or
// raises) is skipped by the later regions; control around a barrier that
// threads evaluate differently is reported through the context's `sync`
// field (CpuDivergedFn) and ends the block.
//
// Variables live across a barrier (per_thread_variables) have an array of a
// value per thread; a region copies a thread's values into the variables'
// ordinary slots before running it and back after, so that inside the
// region every variable is a plain slot that mem2reg promotes.
#include "codegen/kernel/CpuKernelContext.h"
#include "codegen/lower/KernelRegions.h"
#include "codegen/lower/LowerFunction.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {

/// The largest block (CUDA's limit, which a launch checks): the per-thread
/// arrays have this many values.
constexpr uint64_t kMaxThreads = 1024;

struct FunctionLowerer::RegionState {
  std::set<std::string> per_thread;
  std::map<std::string, llvm::AllocaInst *> values;  // per-thread variable -> [kMaxThreads x T]
  llvm::AllocaInst *done = nullptr;                  // [kMaxThreads x i8]: the thread has returned
  llvm::Value *dims[3] = {nullptr, nullptr, nullptr};
  llvm::Value *threads = nullptr;   // i32: the block's thread count
  llvm::BasicBlock *end = nullptr;  // returns: the block is done
  // Inside a thread loop: the thread (i32 linear index) and the loop's latch.
  llvm::Value *thread = nullptr;
  llvm::BasicBlock *next = nullptr;
};

namespace {

/// The barrier of a statement the split cuts at (KernelRegions.cpp's barrier_of).
const ir::Sync *statement_barrier(const ir::Stmt &s) {
  ir::Expr value;
  if (const auto *a = s.as<ir::Assign>()) value = a->value;
  if (const auto *e = s.as<ir::Evaluate>()) value = e->value;
  if (const auto *cast = value.as<ir::Cast>()) value = cast->value;
  return value.as<ir::Sync>();
}

}  // namespace

void FunctionLowerer::emit_regions() {
  region_ = std::make_shared<RegionState>();
  RegionState &r = *region_;
  llvm::Type *i8 = builder_.getInt8Ty();
  llvm::Type *i32 = builder_.getInt32Ty();
  for (int axis = 0; axis < 3; ++axis) r.dims[axis] = context_field(kCtxBlockDim + 4 * axis, i32);
  r.threads = builder_.CreateMul(builder_.CreateMul(r.dims[0], r.dims[1]), r.dims[2], "block.threads");
  r.done = emitter_.entry_alloca(llvm::ArrayType::get(i8, kMaxThreads), "thread.done");
  builder_.CreateMemSet(r.done, builder_.getInt8(0), builder_.CreateZExt(r.threads, builder_.getInt64Ty()),
                        llvm::MaybeAlign(1));
  r.per_thread = per_thread_variables(fn_);
  for (const std::string &name : r.per_thread) {
    llvm::AllocaInst *s = slot(name);
    r.values[name] = emitter_.entry_alloca(llvm::ArrayType::get(s->getAllocatedType(), kMaxThreads), "per.thread");
  }
  // A parameter that a region assigns starts, in every thread, as given.
  for (const ir::Variable &param : fn_.params) {
    if (r.per_thread.count(param.name) != 0) {
      llvm::AllocaInst *s = slot(param.name);
      store_uniform(param.name, builder_.CreateLoad(s->getAllocatedType(), s));
    }
  }
  r.end = new_block(emitter_, "block.end");
  emit_region_body(fn_.body);
  branch_to(r.end);
  builder_.SetInsertPoint(r.end);
  builder_.CreateRetVoid();
}

void FunctionLowerer::emit_region_body(const ir::Stmt &body) {
  std::vector<ir::Stmt> stmts;
  if (const auto *block = body.as<ir::Block>()) {
    stmts = block->stmts;
  } else if (body) {
    stmts.push_back(body);
  }
  std::vector<ir::Stmt> run;
  auto flush = [&] {
    if (run.empty()) return;
    std::set<std::string> names;
    for (const ir::Stmt &s : run) add_variable_names(s, names);
    emit_thread_loop(names, [&] {
      for (const ir::Stmt &s : run) emit(s);
    });
    run.clear();
  };
  for (const ir::Stmt &s : stmts) {
    if (!has_block_barrier(s)) {
      run.push_back(s);
      continue;
    }
    flush();
    if (const auto *i = s.as<ir::If>()) {
      emit_region_if(*i);
    } else if (const auto *w = s.as<ir::While>()) {
      emit_region_while(*w);
    } else if (const auto *f = s.as<ir::ForRange>()) {
      emit_region_for(*f);
    } else if (s.as<ir::Block>() != nullptr) {
      emit_region_body(s);
    } else {
      emit_region_barrier(s);
    }
  }
  flush();
}

void FunctionLowerer::emit_region_if(const ir::If &s) {
  int line = first_barrier_line(s.then_body);
  if (line == 0) line = first_barrier_line(s.else_body);
  llvm::Value *cond = uniform_values({s.cond}, line)[0];
  llvm::BasicBlock *then_block = new_block(emitter_, "uniform.then");
  llvm::BasicBlock *else_block = new_block(emitter_, "uniform.else");
  llvm::BasicBlock *merge = new_block(emitter_, "uniform.endif");
  builder_.CreateCondBr(cond, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  emit_region_body(s.then_body);
  branch_to(merge);
  builder_.SetInsertPoint(else_block);
  emit_region_body(s.else_body);
  branch_to(merge);
  builder_.SetInsertPoint(merge);
}

void FunctionLowerer::emit_region_while(const ir::While &s) {
  // A `break` or `continue` of this loop stays in the fibers' kernels.
  emit_while_loop([&] { return uniform_values({s.cond}, first_barrier_line(s.body))[0]; },
                  [&](const Loop &) { emit_region_body(s.body); });
}

void FunctionLowerer::emit_region_for(const ir::ForRange &s) {
  const std::vector<llvm::Value *> range =
      uniform_values({s.start, s.stop, s.step}, first_barrier_line(s.body));
  emit_range_loop(
      range[0], range[1], range[2], is_signed_int(s.start.type().dtype()),
      [&](llvm::Value *value) { store_uniform(s.var, value); }, [&](const Loop &) { emit_region_body(s.body); });
}

void FunctionLowerer::emit_region_barrier(const ir::Stmt &s) {
  const ir::Sync *sync = statement_barrier(s);
  internal_assert(sync != nullptr && is_block_barrier(sync->op)) << "a barrier the split cannot cut";
  if (sync->op == ir::SyncOp::SyncThreads) return;  // the boundary between two regions is the barrier
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::AllocaInst *nonzero = emitter_.entry_alloca(i32, "barrier.nonzero");
  llvm::AllocaInst *arrived = emitter_.entry_alloca(i32, "barrier.arrived");
  builder_.CreateStore(builder_.getInt32(0), nonzero);
  builder_.CreateStore(builder_.getInt32(0), arrived);
  std::set<std::string> names;
  add_variable_names(sync->args[0], names);
  emit_thread_loop(names, [&] {
    llvm::Value *value = emit(sync->args[0]);
    llvm::Value *set = builder_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
    builder_.CreateStore(builder_.CreateAdd(builder_.CreateLoad(i32, nonzero), builder_.CreateZExt(set, i32)), nonzero);
    builder_.CreateStore(builder_.CreateAdd(builder_.CreateLoad(i32, arrived), builder_.getInt32(1)), arrived);
  });
  // As the fibers' runner (CpuSyncOp): the count, or whether all (any) were set.
  llvm::Value *count = builder_.CreateLoad(i32, nonzero);
  llvm::Value *result = count;
  if (sync->op == ir::SyncOp::SyncThreadsAnd) {
    result = builder_.CreateZExt(builder_.CreateICmpEQ(count, builder_.CreateLoad(i32, arrived)), i32);
  } else if (sync->op == ir::SyncOp::SyncThreadsOr) {
    result = builder_.CreateZExt(builder_.CreateICmpNE(count, builder_.getInt32(0)), i32);
  }
  const auto *assign = s.as<ir::Assign>();
  if (assign == nullptr) return;
  if (const auto *cast = assign->value.as<ir::Cast>()) {
    result = lower_cast(emitter_, result, sync->type.dtype(), cast->type.dtype());
  }
  store_uniform(assign->var, result);
}

void FunctionLowerer::emit_index_loop(llvm::Value *count, const std::function<void(llvm::Value *)> &body) {
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::BasicBlock *header = new_block(emitter_, "index.loop");
  llvm::BasicBlock *inside = new_block(emitter_, "index.body");
  llvm::BasicBlock *exit = new_block(emitter_, "index.end");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode *i = builder_.CreatePHI(builder_.getInt32Ty(), 2, "index");
  i->addIncoming(builder_.getInt32(0), before);
  builder_.CreateCondBr(builder_.CreateICmpULT(i, count), inside, exit);
  builder_.SetInsertPoint(inside);
  body(i);
  i->addIncoming(builder_.CreateAdd(i, builder_.getInt32(1)), builder_.GetInsertBlock());
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void FunctionLowerer::store_uniform(const std::string &var, llvm::Value *value) {
  llvm::AllocaInst *s = slot(var);
  builder_.CreateStore(value, s);
  auto it = region_->values.find(var);
  if (it == region_->values.end()) return;
  llvm::AllocaInst *values = it->second;
  emit_index_loop(region_->threads, [&](llvm::Value *t) {
    builder_.CreateStore(value, builder_.CreateInBoundsGEP(values->getAllocatedType(), values, {builder_.getInt32(0), t}));
  });
}

void FunctionLowerer::emit_thread_loop(const std::set<std::string> &names, const std::function<void()> &body) {
  RegionState &r = *region_;
  internal_assert(r.thread == nullptr) << "a thread loop inside another";
  llvm::Type *i8 = builder_.getInt8Ty();
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::BasicBlock *header = new_block(emitter_, "threads.loop");
  llvm::BasicBlock *check = new_block(emitter_, "threads.check");
  llvm::BasicBlock *live = new_block(emitter_, "threads.live");
  llvm::BasicBlock *latch = new_block(emitter_, "threads.next");
  llvm::BasicBlock *exit = new_block(emitter_, "threads.end");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode *t = builder_.CreatePHI(i32, 2, "thread");
  llvm::PHINode *coord[3];
  for (int axis = 0; axis < 3; ++axis) {
    coord[axis] = builder_.CreatePHI(i32, 2, "tid");
    coord[axis]->addIncoming(builder_.getInt32(0), before);
  }
  t->addIncoming(builder_.getInt32(0), before);
  builder_.CreateCondBr(builder_.CreateICmpULT(t, r.threads), check, exit);
  builder_.SetInsertPoint(check);
  llvm::Value *done = builder_.CreateLoad(i8, builder_.CreateInBoundsGEP(r.done->getAllocatedType(), r.done,
                                                                        {builder_.getInt32(0), t}));
  builder_.CreateCondBr(builder_.CreateICmpNE(done, builder_.getInt8(0)), latch, live);
  builder_.SetInsertPoint(live);
  for (int axis = 0; axis < 3; ++axis) {
    // What the context's range metadata says of a coordinate it holds
    // (the loads of it become this value): no wrap of a negative index.
    builder_.CreateAssumption(builder_.CreateICmpULT(coord[axis], builder_.getInt32(kMaxThreads)));
    builder_.CreateAlignedStore(
        coord[axis], builder_.CreateConstInBoundsGEP1_64(i8, kernel_context_, kCtxThreadIdx + 4 * axis),
        llvm::Align(4));
  }
  std::vector<std::pair<llvm::AllocaInst *, llvm::Value *>> copies;  // slot, the thread's value
  for (const std::string &name : names) {
    auto it = r.values.find(name);
    if (it == r.values.end()) continue;
    llvm::AllocaInst *s = slot(name);
    llvm::Value *own = builder_.CreateInBoundsGEP(it->second->getAllocatedType(), it->second, {builder_.getInt32(0), t});
    builder_.CreateStore(builder_.CreateLoad(s->getAllocatedType(), own), s);
    copies.push_back({s, own});
  }
  r.thread = t;
  r.next = latch;
  body();
  if (builder_.GetInsertBlock()->getTerminator() == nullptr) {
    for (const auto &[s, own] : copies) builder_.CreateStore(builder_.CreateLoad(s->getAllocatedType(), s), own);
    builder_.CreateBr(latch);
  }
  r.thread = nullptr;
  r.next = nullptr;
  // The next thread's coordinates, x fastest, without a division.
  builder_.SetInsertPoint(latch);
  llvm::Value *carry = builder_.getInt1(true);
  for (int axis = 0; axis < 3; ++axis) {
    llvm::Value *bumped = builder_.CreateAdd(coord[axis], builder_.CreateZExt(carry, i32));
    llvm::Value *wraps = builder_.CreateAnd(carry, builder_.CreateICmpEQ(bumped, r.dims[axis]));
    coord[axis]->addIncoming(axis < 2 ? builder_.CreateSelect(wraps, builder_.getInt32(0), bumped) : bumped, latch);
    carry = wraps;
  }
  t->addIncoming(builder_.CreateAdd(t, builder_.getInt32(1)), latch);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

std::vector<llvm::Value *> FunctionLowerer::uniform_values(const std::vector<ir::Expr> &exprs, int line) {
  RegionState &r = *region_;
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::AllocaInst *first = emitter_.entry_alloca(i32, "uniform.first");  // -1: no thread yet
  builder_.CreateStore(builder_.getInt32(-1), first);
  std::vector<llvm::AllocaInst *> slots;
  std::set<std::string> names;
  for (const ir::Expr &e : exprs) {
    slots.push_back(emitter_.entry_alloca(value_type(ms_.ctx(), e.type()), "uniform.value"));
    add_variable_names(e, names);
  }
  emit_thread_loop(names, [&] {
    std::vector<llvm::Value *> values;
    for (const ir::Expr &e : exprs) values.push_back(emit(e));
    llvm::BasicBlock *take = new_block(emitter_, "uniform.take");
    llvm::BasicBlock *compare = new_block(emitter_, "uniform.compare");
    llvm::BasicBlock *diverged = new_block(emitter_, "uniform.diverged");
    llvm::BasicBlock *agreed = new_block(emitter_, "uniform.agreed");
    llvm::Value *first_thread = builder_.CreateLoad(i32, first);
    builder_.CreateCondBr(builder_.CreateICmpSLT(first_thread, builder_.getInt32(0)), take, compare);
    builder_.SetInsertPoint(take);
    builder_.CreateStore(r.thread, first);
    for (std::size_t k = 0; k < values.size(); ++k) builder_.CreateStore(values[k], slots[k]);
    builder_.CreateBr(agreed);
    builder_.SetInsertPoint(compare);
    llvm::Value *differ = builder_.getInt1(false);
    for (std::size_t k = 0; k < values.size(); ++k) {
      llvm::Value *taken = builder_.CreateLoad(slots[k]->getAllocatedType(), slots[k]);
      differ = builder_.CreateOr(differ, builder_.CreateICmpNE(values[k], taken));
    }
    builder_.CreateCondBr(differ, diverged, agreed);
    builder_.SetInsertPoint(diverged);
    llvm::Type *ptr = builder_.getPtrTy();
    llvm::FunctionType *type = llvm::FunctionType::get(builder_.getVoidTy(), {ptr, i32, i32, i32, i32, i32, i32}, false);
    builder_.CreateCall(type, context_field(kCtxSync, ptr),
                        {context_field(kCtxRunner, ptr), first_thread, r.thread, builder_.getInt32(line),
                         context_field(kCtxBlockIdx, i32), context_field(kCtxBlockIdx + 4, i32),
                         context_field(kCtxBlockIdx + 8, i32)});
    builder_.CreateBr(r.end);
    builder_.SetInsertPoint(agreed);
  });
  // No thread left: the block is done.
  llvm::BasicBlock *go = new_block(emitter_, "uniform.go");
  builder_.CreateCondBr(builder_.CreateICmpSLT(builder_.CreateLoad(i32, first), builder_.getInt32(0)), r.end, go);
  builder_.SetInsertPoint(go);
  std::vector<llvm::Value *> values;
  for (llvm::AllocaInst *s : slots) values.push_back(builder_.CreateLoad(s->getAllocatedType(), s));
  return values;
}

void FunctionLowerer::end_thread() {
  RegionState &r = *region_;
  internal_assert(r.thread != nullptr) << "a return outside the regions of a split kernel";
  builder_.CreateStore(builder_.getInt8(1),
                       builder_.CreateInBoundsGEP(r.done->getAllocatedType(), r.done, {builder_.getInt32(0), r.thread}));
  builder_.CreateBr(r.next);
}

}  // namespace ufjit::codegen::lower
