// Statements of one IR function, and lower_module (the driver).
// requires: a verified ir::Module; guarantees: one internal, alwaysinline
// LLVM function per IR function (the entry: noinline in a huge module, see
// kMaxInlinedBlocks and kMaxInlinedInstructions; a large helper called from
// several places: noinline, see kMaxCopiedInstructions) with structured control
// flow; blocks after a Return/Break/Continue have no predecessors and end in
// `unreachable`.
#include "codegen/kernel/KernelCheck.h"
#include "codegen/lower/KernelRegions.h"
#include "codegen/lower/LowerFunction.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {
namespace lower {

FunctionLowerer::FunctionLowerer(ModuleState &ms, const ir::Function &fn, llvm::Function *out)
    : ms_(ms), fn_(fn), out_(out), builder_(ms.ctx()), emitter_{ms, builder_} {
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(ms.ctx(), "entry", out);
  builder_.SetInsertPoint(entry);
  builder_.setFastMathFlags(ms.fast_math_flags());
  for (std::size_t k = 0; k < fn.params.size(); ++k) {
    const ir::Variable &param = fn.params[k];
    llvm::AllocaInst *a = builder_.CreateAlloca(value_type(ms.ctx(), param.type), nullptr, param.name);
    llvm::Argument *arg = out->getArg(static_cast<unsigned>(k));
    arg->setName(param.name);
    builder_.CreateStore(arg, a);
    slots_[param.name] = a;
  }
  if (ms.can_raise) {
    error_flag_ = out->getArg(static_cast<unsigned>(fn.params.size()));
    error_flag_->setName("ufjit.error");
  }
  if (ms.kernel_context) {
    kernel_context_ = out->getArg(static_cast<unsigned>(fn.params.size() + (ms.can_raise ? 1 : 0)));
    kernel_context_->setName("ufjit.thread");
  }
  for (const ir::Variable &local : fn.locals) {
    internal_assert(slots_.count(local.name) == 0) << "local '" << local.name << "' shadows a parameter";
    slots_[local.name] = builder_.CreateAlloca(value_type(ms.ctx(), local.type), nullptr, local.name);
  }
}

void FunctionLowerer::run() {
  if (&fn_ == ms_.split_function) {
    emit_regions();
    return;
  }
  emit(fn_.body);
  if (builder_.GetInsertBlock()->getTerminator() == nullptr) {
    // Void functions may fall off the end; in others this block is dead
    // (the typer guarantees that every path returns).
    if (fn_.ret.is_void()) {
      builder_.CreateRetVoid();
    } else {
      builder_.CreateUnreachable();
    }
  }
}

void FunctionLowerer::start_dead_block() { builder_.SetInsertPoint(llvm::BasicBlock::Create(ms_.ctx(), "dead", out_)); }

void FunctionLowerer::branch_to(llvm::BasicBlock *target) {
  if (builder_.GetInsertBlock()->getTerminator() == nullptr) {
    builder_.CreateBr(target);
  }
}

void FunctionLowerer::emit(const ir::Stmt &s) {
  switch (s->kind) {
    case ir::NodeKind::Block:
      for (const ir::Stmt &child : s.as<ir::Block>()->stmts) {
        emit(child);
      }
      return;
    case ir::NodeKind::Assign: {
      const auto *a = s.as<ir::Assign>();
      builder_.CreateStore(emit(a->value), slot(a->var));
      return;
    }
    case ir::NodeKind::ArrayStore:
      emit_array_store(*s.as<ir::ArrayStore>());
      return;
    case ir::NodeKind::If:
      emit_if(*s.as<ir::If>());
      return;
    case ir::NodeKind::While:
      emit_while(*s.as<ir::While>());
      return;
    case ir::NodeKind::ForRange:
      emit_for_range(*s.as<ir::ForRange>());
      return;
    case ir::NodeKind::Break:
      emit_loop_exit(true);
      start_dead_block();
      return;
    case ir::NodeKind::Continue:
      emit_loop_exit(false);
      start_dead_block();
      return;
    case ir::NodeKind::Return:
      emit_return(*s.as<ir::Return>());
      return;
    case ir::NodeKind::Evaluate:
      emit(s.as<ir::Evaluate>()->value);
      return;
    case ir::NodeKind::Raise:
      emit_raise(*s.as<ir::Raise>());
      return;
    case ir::NodeKind::Print:
      emit_print(*s.as<ir::Print>());
      return;
    default:
      break;
  }
  internal_error << "cannot lower statement of kind " << ir::node_kind_name(s->kind);
}

void FunctionLowerer::emit_if(const ir::If &first) {
  // An if/elif chain is lowered in a loop and branches to one endif block.
  // Nested, each elif added a level of recursion and an empty endif block
  // branching to the next one.
  std::vector<const ir::If *> chain;
  for (const ir::If *branch = &first; branch != nullptr;) {
    chain.push_back(branch);
    branch = branch->elif ();
  }
  // A long chain: its first branches here, the rest in parts.
  const std::vector<std::size_t> starts = chain_part_starts(chain);
  const std::size_t here = starts.empty() ? chain.size() : starts.front();
  llvm::BasicBlock *merge = new_block(emitter_, "endif");
  for (std::size_t k = 0; k < here; ++k) {
    const ir::If &s = *chain[k];
    llvm::Value *cond = emit(s.cond);
    llvm::BasicBlock *then_block = new_block(emitter_, "then");
    llvm::BasicBlock *else_block = s.else_body ? new_block(emitter_, "else") : nullptr;
    builder_.CreateCondBr(cond, then_block, else_block != nullptr ? else_block : merge);
    builder_.SetInsertPoint(then_block);
    emit(s.then_body);
    branch_to(merge);
    if (else_block == nullptr) break;
    builder_.SetInsertPoint(else_block);
    if (k + 1 < chain.size()) continue;  // the next test is this else
    emit(s.else_body);
    branch_to(merge);
  }
  if (!starts.empty()) emit_chain_parts(chain, starts, merge);
  builder_.SetInsertPoint(merge);
}

void FunctionLowerer::emit_while_loop(const std::function<llvm::Value *()> &cond,
                                      const std::function<void(const Loop &)> &body) {
  llvm::BasicBlock *header = new_block(emitter_, "while.cond");
  llvm::BasicBlock *inside = new_block(emitter_, "while.body");
  llvm::BasicBlock *exit = new_block(emitter_, "while.end");
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  builder_.CreateCondBr(cond(), inside, exit);
  builder_.SetInsertPoint(inside);
  body({header, exit});
  branch_to(header);
  builder_.SetInsertPoint(exit);
}

void FunctionLowerer::emit_while(const ir::While &s) {
  emit_while_loop([&] { return emit(s.cond); },
                  [&](const Loop &loop) {
                    loops_.push_back(loop);
                    emit(s.body);
                    loops_.pop_back();
                  });
}

// The trip count is computed first, in unsigned arithmetic of the variable's
// width, so that no step can overflow past `stop`:
//   step > 0 and start < stop: count = (stop - start - 1) / step + 1
//   step < 0 and start > stop: count = (start - stop - 1) / -step + 1
//   otherwise 0 (step == 0 included).
// The loop then counts an index up to `count`; the variable takes start,
// start + step, ... from a separate slot, so assignments to it in the body
// do not change the iteration, and it keeps its last value afterwards.
llvm::Value *FunctionLowerer::range_trip_count(llvm::Value *start, llvm::Value *stop, llvm::Value *step,
                                               bool is_signed) {
  llvm::Type *t = start->getType();
  llvm::Value *zero = llvm::ConstantInt::get(t, 0);
  llvm::Value *one = llvm::ConstantInt::get(t, 1);

  llvm::Value *runs = nullptr;
  llvm::Value *span = nullptr;
  llvm::Value *magnitude = nullptr;
  if (is_signed) {
    llvm::Value *up = builder_.CreateICmpSGT(step, zero);
    llvm::Value *down = builder_.CreateICmpSLT(step, zero);
    llvm::Value *runs_up = builder_.CreateAnd(up, builder_.CreateICmpSLT(start, stop));
    llvm::Value *runs_down = builder_.CreateAnd(down, builder_.CreateICmpSGT(start, stop));
    runs = builder_.CreateOr(runs_up, runs_down);
    span = builder_.CreateSelect(up, builder_.CreateSub(stop, start), builder_.CreateSub(start, stop));
    magnitude = builder_.CreateSelect(up, step, builder_.CreateNeg(step));
  } else {
    runs = builder_.CreateAnd(builder_.CreateICmpNE(step, zero), builder_.CreateICmpULT(start, stop));
    span = builder_.CreateSub(stop, start);
    magnitude = step;
  }
  llvm::Value *safe_magnitude = builder_.CreateSelect(runs, magnitude, one);
  llvm::Value *safe_span = builder_.CreateSelect(runs, span, one);
  // One iteration needs no division: a kernel's grid-stride loop (one per
  // thread, usually once round) paid a 64-bit udiv per thread for it.
  llvm::Value *once = builder_.CreateICmpULE(safe_span, safe_magnitude);
  llvm::Value *count = emit_if_else(
      emitter_, once, [&] { return std::vector<llvm::Value *>{one}; },
      [&] {
        llvm::Value *q = builder_.CreateUDiv(builder_.CreateSub(safe_span, one), safe_magnitude);
        return std::vector<llvm::Value *>{builder_.CreateAdd(q, one)};
      })[0];
  return builder_.CreateSelect(runs, count, zero, "trip.count");
}

void FunctionLowerer::emit_for_range(const ir::ForRange &s) {
  DType type = s.start.type().dtype();
  internal_assert(is_integer(type)) << "range over " << dtype_name(type);
  llvm::Value *start = emit(s.start);
  llvm::Value *stop = emit(s.stop);
  llvm::Value *step = emit(s.step);
  emit_range_loop(
      start, stop, step, is_signed_int(type), [&](llvm::Value *value) { builder_.CreateStore(value, slot(s.var)); },
      [&](const Loop &loop) {
        loops_.push_back(loop);
        emit(s.body);
        loops_.pop_back();
      });
}

void FunctionLowerer::emit_range_loop(llvm::Value *start, llvm::Value *stop, llvm::Value *step, bool is_signed,
                                      const std::function<void(llvm::Value *)> &assign,
                                      const std::function<void(const Loop &)> &body) {
  llvm::Value *count = range_trip_count(start, stop, step, is_signed);
  llvm::Type *t = start->getType();
  llvm::Value *zero = llvm::ConstantInt::get(t, 0);
  llvm::Value *one = llvm::ConstantInt::get(t, 1);

  llvm::AllocaInst *index_slot = emitter_.entry_alloca(t, "range.index");
  llvm::AllocaInst *next_slot = emitter_.entry_alloca(t, "range.next");
  builder_.CreateStore(zero, index_slot);
  builder_.CreateStore(start, next_slot);

  llvm::BasicBlock *header = new_block(emitter_, "for.cond");
  llvm::BasicBlock *inside = new_block(emitter_, "for.body");
  llvm::BasicBlock *latch = new_block(emitter_, "for.next");
  llvm::BasicBlock *exit = new_block(emitter_, "for.end");
  builder_.CreateBr(header);

  builder_.SetInsertPoint(header);
  llvm::Value *index = builder_.CreateLoad(t, index_slot);
  builder_.CreateCondBr(builder_.CreateICmpULT(index, count), inside, exit);

  builder_.SetInsertPoint(inside);
  assign(builder_.CreateLoad(t, next_slot));
  body({latch, exit});
  branch_to(latch);

  builder_.SetInsertPoint(latch);
  // No wrap while the loop runs (the value stays between start and stop):
  // only the add after the last iteration may wrap, and nothing reads it.
  // Said, it lets LLVM see that `range(cuda.grid(1), n, stride)` never
  // goes negative, so an index needs no wrap of a negative value.
  builder_.CreateStore(builder_.CreateAdd(builder_.CreateLoad(t, next_slot), step, "", !is_signed, is_signed), next_slot);
  builder_.CreateStore(builder_.CreateAdd(builder_.CreateLoad(t, index_slot), one), index_slot);
  builder_.CreateBr(header);

  builder_.SetInsertPoint(exit);
}

void FunctionLowerer::emit_return(const ir::Return &s) {
  emit_return_value(s.value ? emit(s.value) : nullptr);
  start_dead_block();
}

void FunctionLowerer::emit_return_value(llvm::Value *value) {
  if (part_) {
    if (value != nullptr)
      builder_.CreateStore(value,
                           frame_field(part_->frame->type, part_->frame_ptr, part_->frame->return_field));
    leave_part(PartExit::Returned);
  } else if (region_ != nullptr) {
    end_thread();
  } else if (value != nullptr) {
    builder_.CreateRet(value);
  } else {
    builder_.CreateRetVoid();
  }
}

void FunctionLowerer::emit_loop_exit(bool is_break) {
  if (!loops_.empty()) {
    builder_.CreateBr(is_break ? loops_.back().break_target : loops_.back().continue_target);
    return;
  }
  internal_assert(part_) << (is_break ? "break" : "continue") << " outside a loop";
  leave_part(is_break ? PartExit::Break : PartExit::Continue);
}

void FunctionLowerer::emit_array_store(const ir::ArrayStore &s) {
  DType element = s.array.type().dtype();
  llvm::Value *value = emit(s.value);
  llvm::Value *address = element_address(s.array, s.indices);
  report_access(address, dtype_size(element), static_cast<int32_t>(CpuAccessKind::Write), s.line);
  if (element == DType::Bool) {
    value = builder_.CreateZExt(value, builder_.getInt8Ty());
  }
  builder_.CreateAlignedStore(value, address, llvm::Align(dtype_size(component_dtype(element))));
}

}  // namespace lower

/// Kernel entries call the lowered entry function, which LLVM inlines into
/// their loops unless the module has more basic blocks than this (its helpers
/// are inlined into it either way). Inlined into a loop, a long if/elif chain
/// on a loop-invariant operand (a scalar operand of the CPU kernel) has its
/// compares hoisted by LICM; SimplifyCFG then turns the chain into one select
/// chain, on which InstCombine is quadratic (isImpliedCondition against each
/// earlier condition): 1,000 elifs took 17 s, 3,000 over 100 s. Called, the
/// function is optimized once, on its own, in linear time; a call costs
/// nothing next to a thousand blocks of work.
constexpr std::size_t kMaxInlinedBlocks = 1000;
/// Nor when it has more instructions than this: each kernel variant (PTX has
/// four or five) would optimize and code-generate its own copy.
constexpr std::size_t kMaxInlinedInstructions = 20000;

/// A helper is called, not inlined, where inlining it at each of its call
/// sites would add more than this many instructions of copies (its body,
/// with the helpers it calls inlined into it, times its call sites but one).
/// Inlining every call copies a call tree whole: a chain of 20 helpers each
/// calling the one below twice inlined 2^20 copies of the last, over a
/// minute to PTX for 1 KB of source. Under this bound, the code after
/// inlining grows at most linearly with the number of helpers.
constexpr std::size_t kMaxCopiedInstructions = 20000;

namespace {

/// Keeps large, shared call trees out of line (kMaxCopiedInstructions),
/// so that the code after inlining grows with the source, not with the
/// number of paths through the call graph.
/// requires: `module.functions` lists callees before their callers.
void keep_large_call_trees_out_of_line(const ir::Module &module, const lower::ModuleState &ms) {
  if (ms.functions.size() < 2) return;  // no helpers: nothing to walk for
  std::map<const llvm::Function *, std::vector<const llvm::Function *>> calls;  // one entry per call site
  for (const auto &named : ms.functions) calls[named.second];
  std::map<const llvm::Function *, std::size_t> call_sites;
  // A call in a part cut from a long chain (LowerParts.cpp) is a call of
  // the function it was cut from.
  std::vector<std::pair<const llvm::Function *, const llvm::Function *>> bodies;
  for (const auto &named : ms.functions) bodies.push_back({named.second, named.second});
  for (const auto &[owner, part] : ms.parts) bodies.push_back({owner, part});
  for (const auto &[caller, body] : bodies) {
    std::vector<const llvm::Function *> &callees = calls[caller];
    for (const llvm::BasicBlock &block : *body) {
      for (const llvm::Instruction &inst : block) {
        const auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
        const llvm::Function *callee = call == nullptr ? nullptr : call->getCalledFunction();
        if (callee == nullptr || callee == caller || calls.count(callee) == 0) continue;
        callees.push_back(callee);
        ++call_sites[callee];
      }
    }
  }
  // Callees first: each helper's size counts its callees as they will be,
  // inlined or called.
  std::map<const llvm::Function *, std::size_t> inlined_size;
  for (const ir::Function &fn : module.functions) {
    llvm::Function *f = ms.functions.at(fn.name);
    std::size_t size = f->getInstructionCount();
    for (const llvm::Function *callee : calls[f]) size += inlined_size[callee];
    if (call_sites[f] > 1 && size * (call_sites[f] - 1) > kMaxCopiedInstructions) {
      f->removeFnAttr(llvm::Attribute::AlwaysInline);
      f->addFnAttr(llvm::Attribute::NoInline);
      size = 1;  // to its callers, a call
    }
    inlined_size[f] = size;
  }
}

}  // namespace

llvm::Function *lower_module(const ir::Module &module, llvm::Module &out, const std::string &name_prefix,
                             const LoweringTarget &target) {
  lower::ModuleState ms{out, target, name_prefix, {}, {}};
  ms.can_raise = module.can_raise();
  ms.kernel_context = module.explicit_kernel && target.kind == TargetKind::Cpu;
  ms.checked_cpu = ms.kernel_context && module.checked;
  ms.shared_bytes = module.shared_bytes;
  if (ms.kernel_context && cpu_block_shape(module) == CpuBlockShape::Regions) ms.split_function = &module.entry_function();
  llvm::LLVMContext &ctx = out.getContext();
  lower::declare_externs(module, ms);
  // Callers are created before their callees (the IR lists callees first):
  // the always-inliner walks the module in order, so it inlines a chain of
  // helpers top-down, cloning each body once. Bottom-up, each helper would be
  // cloned with all it had inlined, quadratic in the chain's length.
  for (auto it = module.functions.rbegin(); it != module.functions.rend(); ++it) {
    const ir::Function &fn = *it;
    std::vector<llvm::Type *> params;
    for (const ir::Variable &param : fn.params) {
      params.push_back(value_type(ctx, param.type));
    }
    if (ms.can_raise) {
      params.push_back(llvm::PointerType::get(ctx, 0));
    }
    if (ms.kernel_context) {
      params.push_back(llvm::PointerType::get(ctx, 0));
    }
    llvm::FunctionType *type = llvm::FunctionType::get(value_type(ctx, fn.ret), params, false);
    std::string name = name_prefix + fn.name;
    internal_assert(out.getFunction(name) == nullptr) << "function " << name << " lowered twice";
    llvm::Function *f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, out);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    // Every function of a fastmath module, not only its entry: a helper kept
    // out of line (a large call tree) flushed no subnormals while the same
    // code inlined did, so a result depended on the helper's size.
    if (target.kind == TargetKind::Cuda && target.fastmath) mark_gpu_fastmath(*f);
    internal_assert(ms.functions.count(fn.name) == 0) << "two IR functions named " << fn.name;
    ms.functions[fn.name] = f;
  }
  // Not verified here: every caller verifies the whole module it builds
  // around these functions (compile_module_to_ptx, build_host_module), and a
  // second walk of each function (with its dominator tree) was 40% of
  // lowering a 100,000-branch elif chain.
  for (const ir::Function &fn : module.functions) {
    lower::FunctionLowerer(ms, fn, ms.functions.at(fn.name)).run();
  }
  keep_large_call_trees_out_of_line(module, ms);
  llvm::Function *entry = ms.functions.at(module.entry_function().name);
  std::size_t blocks = 0;
  for (const auto &named : ms.functions) blocks += named.second->size();
  // Counting instructions walks every one: only when the blocks are few.
  std::size_t instructions = 0;
  if (blocks <= kMaxInlinedBlocks) {
    for (const auto &named : ms.functions) instructions += named.second->getInstructionCount();
  }
  if (blocks > kMaxInlinedBlocks || instructions > kMaxInlinedInstructions) {
    entry->removeFnAttr(llvm::Attribute::AlwaysInline);
    entry->addFnAttr(llvm::Attribute::NoInline);
  }
  return entry;
}

}  // namespace ufjit::codegen
