// Long if/elif chains lowered in parts: a chain of more than kOutlineBlocks
// blocks keeps its first run of branches in its function, and each further
// run of about kChainPartBlocks blocks becomes a noinline function of its
// own, called in turn until one takes a branch.
//
// Before, such a chain was lowered whole and cut into parts after lowering
// (HugeFunctions.cpp, outline_huge_regions): one LLVM function of 200,000
// blocks for 100,000 branches, promoted to SSA, its dominator tree built and
// walked, each part extracted by CodeExtractor. That cut grew 16x per 10x
// branches in time (its instructions 4x per 4x: a working set past the
// caches). Cut here, no function is ever larger than a part, and nothing
// walks the chain whole after lowering.
//
// requires: a chain's branches in order (If::elif); guarantees: the same
// semantics as the chain lowered whole. Variables cross a part's call by
// copy through a frame (PartFrame): copied in before, the written ones
// copied back after, so that each side's slots stay promotable; those only
// the part names stay in it (PartVariables).
#include "codegen/HugeFunctions.h"
#include "codegen/lower/LowerFunction.h"
#include "support/InternalAssert.h"
#include "ir/IRVisitor.h"

namespace ufjit::codegen::lower {

namespace {

/// The blocks of a part. Below kOutlineBlocks, so that no part is cut again
/// after lowering; above kHugeFunctionBlocks, so that every part gets the
/// pass skipping of a huge function whatever a chain of selects it becomes.
constexpr std::size_t kChainPartBlocks = 2000;

/// About how many blocks lowering `s` makes: two a branch of an if/elif
/// chain and its endif, three or four a loop, one a statement that ends its
/// block. Expressions (and/or, raise checks) are not counted: a part that
/// grows past kOutlineBlocks all the same is cut after lowering.
std::size_t estimated_blocks(const ir::Stmt &s) {
  if (!s) return 0;
  switch (s->kind) {
    case ir::NodeKind::Block: {
      std::size_t n = 0;
      for (const ir::Stmt &child : s.as<ir::Block>()->stmts) n += estimated_blocks(child);
      return n;
    }
    case ir::NodeKind::If: {
      std::size_t n = 1;
      for (const ir::If *branch = s.as<ir::If>();;) {
        n += 2 + estimated_blocks(branch->then_body);
        const ir::If *next = branch->elif ();
        if (next == nullptr) return n + estimated_blocks(branch->else_body);
        branch = next;
      }
    }
    case ir::NodeKind::While:
      return 3 + estimated_blocks(s.as<ir::While>()->body);
    case ir::NodeKind::ForRange:
      return 4 + estimated_blocks(s.as<ir::ForRange>()->body);
    case ir::NodeKind::Break:
    case ir::NodeKind::Continue:
    case ir::NodeKind::Return:
      return 1;
    case ir::NodeKind::Raise:
      return 3;
    default:
      return 0;
  }
}

/// The variables that statements and expressions read or write: how often
/// each is named, in order of first use, and which are assigned. An if/elif
/// chain is walked in a loop (recursing, the depth would be the chain's
/// length).
class VariableUses : public ir::IRVisitor {
 public:
  /// One branch of a chain: its test and its body.
  void add_branch(const ir::If &branch) {
    visit_expr(branch.cond);
    visit_stmt(branch.then_body);
  }
  void add(const ir::Stmt &s) { visit_stmt(s); }
  const VariableCounts &counts() const { return counts_; }
  const std::vector<std::string> &in_order() const { return order_; }
  bool written(const std::string &name) const { return written_.count(name) != 0; }

 protected:
  void visit(const ir::Var *op) override { note(op->name, false); }
  void visit(const ir::Assign *op) override {
    note(op->var, true);
    ir::IRVisitor::visit(op);
  }
  void visit(const ir::ForRange *op) override {
    note(op->var, true);
    ir::IRVisitor::visit(op);
  }
  void visit(const ir::If *op) override {
    for (const ir::If *branch = op;;) {
      add_branch(*branch);
      const ir::If *next = branch->elif ();
      if (next == nullptr) {
        visit_stmt(branch->else_body);
        return;
      }
      branch = next;
    }
  }
  using ir::IRVisitor::visit;

 private:
  void note(const std::string &name, bool written) {
    if (counts_[name]++ == 0) order_.push_back(name);
    if (written) written_.insert(name);
  }

  VariableCounts counts_;
  std::vector<std::string> order_;
  std::set<std::string> written_;
};

/// The variables of a part whose uses are `part`, in a function `fn` whose
/// uses are `all` (PartVariables).
PartVariables part_variables(const VariableUses &part, const VariableCounts &all, const ir::Function &fn) {
  std::set<std::string> params;
  for (const ir::Variable &v : fn.params) params.insert(v.name);
  PartVariables variables;
  for (const std::string &name : part.in_order()) {
    variables.used.push_back(name);
    auto total = all.find(name);
    const bool named_elsewhere = total != all.end() && total->second > part.counts().at(name);
    if (!named_elsewhere && params.count(name) == 0) continue;
    variables.crossing.push_back(name);
    if (part.written(name)) variables.written.push_back(name);
  }
  return variables;
}

}  // namespace

std::vector<std::size_t> chain_part_starts(const std::vector<const ir::If *> &chain) {
  std::vector<std::size_t> blocks;
  std::size_t total = 1;
  for (std::size_t k = 0; k < chain.size(); ++k) {
    std::size_t n = 2 + estimated_blocks(chain[k]->then_body);
    if (k + 1 == chain.size()) n += estimated_blocks(chain[k]->else_body);
    blocks.push_back(n);
    total += n;
  }
  std::vector<std::size_t> starts;
  if (total <= kOutlineBlocks) return starts;
  std::size_t run = 0;
  for (std::size_t k = 0; k < chain.size(); ++k) {
    if (run > 0 && run + blocks[k] > kChainPartBlocks) {
      starts.push_back(k);
      run = 0;
    }
    run += blocks[k];
  }
  return starts;
}

llvm::Value *FunctionLowerer::frame_field(llvm::StructType *type, llvm::Value *frame, unsigned field) {
  return builder_.CreateStructGEP(type, frame, field);
}

FunctionLowerer::FunctionLowerer(const FunctionLowerer &caller, llvm::Function *part, const PartFrame &frame,
                                 const PartVariables &variables)
    : ms_(caller.ms_),
      fn_(caller.fn_),
      out_(part),
      builder_(ms_.ctx()),
      emitter_{ms_, builder_},
      variable_counts_(caller.variable_counts_) {
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(ms_.ctx(), "entry", part);
  builder_.SetInsertPoint(entry);
  builder_.setFastMathFlags(ms_.fast_math_flags());
  llvm::Value *frame_ptr = part->getArg(0);
  if (ms_.can_raise) error_flag_ = part->getArg(1);
  if (ms_.kernel_context) kernel_context_ = part->getArg(ms_.can_raise ? 2 : 1);
  // The caller has a slot for each variable its parts name: all of the
  // function's, or (a part itself) those its own part names.
  for (const std::string &name : variables.used) {
    slots_[name] = builder_.CreateAlloca(caller.slot(name)->getAllocatedType(), nullptr, name);
  }
  for (const std::string &name : variables.crossing) {
    llvm::AllocaInst *slot = slots_.at(name);
    llvm::Value *field = frame_field(frame.type, frame_ptr, frame.field_of.at(name));
    builder_.CreateStore(builder_.CreateLoad(slot->getAllocatedType(), field), slot);
  }
  llvm::AllocaInst *exit_slot = builder_.CreateAlloca(builder_.getInt32Ty(), nullptr, "part.exit");
  // Every way out of the part writes its variables back, then returns how
  // it ended.
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ms_.ctx(), "part.return", part);
  llvm::IRBuilder<> at_exit(exit);
  for (const std::string &name : variables.written) {
    llvm::AllocaInst *slot = slots_.at(name);
    at_exit.CreateStore(at_exit.CreateLoad(slot->getAllocatedType(), slot),
                        at_exit.CreateStructGEP(frame.type, frame_ptr, frame.field_of.at(name)));
  }
  at_exit.CreateRet(at_exit.CreateLoad(at_exit.getInt32Ty(), exit_slot));
  part_ = PartState{&frame, frame_ptr, exit_slot, exit, {}};
}

void FunctionLowerer::leave_part(PartExit exit) {
  if (builder_.GetInsertBlock()->getTerminator() != nullptr) return;
  part_->exits.insert(exit);
  builder_.CreateStore(builder_.getInt32(static_cast<std::uint32_t>(exit)), part_->exit_slot);
  builder_.CreateBr(part_->exit);
}

std::set<PartExit> FunctionLowerer::run_part(const std::vector<const ir::If *> &chain, std::size_t begin,
                                             std::size_t end) {
  for (std::size_t k = begin; k < end; ++k) {
    const ir::If &s = *chain[k];
    llvm::BasicBlock *then_block = new_block(emitter_, "then");
    llvm::BasicBlock *else_block = new_block(emitter_, "else");
    builder_.CreateCondBr(emit(s.cond), then_block, else_block);
    builder_.SetInsertPoint(then_block);
    emit(s.then_body);
    leave_part(PartExit::Done);
    builder_.SetInsertPoint(else_block);
  }
  if (end < chain.size()) {
    leave_part(PartExit::NotTaken);
  } else {
    if (chain[end - 1]->else_body) emit(chain[end - 1]->else_body);  // the chain's final else
    leave_part(PartExit::Done);
  }
  return part_->exits;
}

PartFrame FunctionLowerer::chain_frame(const std::vector<PartVariables> &variables) {
  PartFrame frame;
  std::vector<llvm::Type *> fields;
  if (!fn_.ret.is_void()) {
    frame.return_field = 0;
    fields.push_back(value_type(ms_.ctx(), fn_.ret));
  }
  for (const PartVariables &part : variables) {
    for (const std::string &name : part.crossing) {
      auto [it, fresh] = frame.field_of.try_emplace(name, static_cast<unsigned>(fields.size()));
      if (fresh) fields.push_back(slot(name)->getAllocatedType());
    }
  }
  frame.type = llvm::StructType::get(ms_.ctx(), fields);
  return frame;
}

void FunctionLowerer::emit_part_exits(const std::set<PartExit> &exits, llvm::Value *ended,
                                      const PartFrame &frame, llvm::Value *frame_ptr, llvm::BasicBlock *next,
                                      llvm::BasicBlock *merge) {
  llvm::SwitchInst *dispatch = builder_.CreateSwitch(ended, merge, static_cast<unsigned>(exits.size()));
  for (PartExit e : exits) {
    if (e == PartExit::Done) continue;
    llvm::ConstantInt *value = builder_.getInt32(static_cast<std::uint32_t>(e));
    if (e == PartExit::NotTaken) {
      dispatch->addCase(value, next);
      continue;
    }
    llvm::BasicBlock *taken = new_block(emitter_, "chain.exit");
    dispatch->addCase(value, taken);
    builder_.SetInsertPoint(taken);
    if (e == PartExit::Returned) {
      llvm::Value *value_returned = nullptr;
      if (!fn_.ret.is_void()) {
        value_returned = builder_.CreateLoad(frame.type->getElementType(frame.return_field),
                                             frame_field(frame.type, frame_ptr, frame.return_field));
      }
      emit_return_value(value_returned);
    } else if (e == PartExit::Raised) {
      emit_raised_return();
    } else {
      emit_loop_exit(e == PartExit::Break);
    }
  }
}

void FunctionLowerer::emit_chain_parts(const std::vector<const ir::If *> &chain,
                                       const std::vector<std::size_t> &starts, llvm::BasicBlock *merge) {
  llvm::LLVMContext &ctx = ms_.ctx();
  if (variable_counts_ == nullptr) {
    VariableUses all;
    all.add(fn_.body);
    variable_counts_ = std::make_shared<const VariableCounts>(all.counts());
  }
  // Each part's variables, and one frame with a field for each that
  // crosses a call.
  auto end_of = [&](std::size_t p) { return p + 1 < starts.size() ? starts[p + 1] : chain.size(); };
  std::vector<PartVariables> variables;
  for (std::size_t p = 0; p < starts.size(); ++p) {
    const std::size_t end = end_of(p);
    VariableUses uses;
    for (std::size_t k = starts[p]; k < end; ++k) uses.add_branch(*chain[k]);
    if (end == chain.size()) uses.add(chain[end - 1]->else_body);
    variables.push_back(part_variables(uses, *variable_counts_, fn_));
  }
  const PartFrame frame = chain_frame(variables);
  llvm::AllocaInst *frame_ptr = emitter_.entry_alloca(frame.type, "chain.frame");

  std::vector<llvm::Type *> params = {llvm::PointerType::get(ctx, 0)};
  if (ms_.can_raise) params.push_back(llvm::PointerType::get(ctx, 0));
  if (ms_.kernel_context) params.push_back(llvm::PointerType::get(ctx, 0));
  llvm::FunctionType *part_type = llvm::FunctionType::get(builder_.getInt32Ty(), params, false);
  llvm::Function *owner = ms_.functions.at(fn_.name);
  for (std::size_t p = 0; p < starts.size(); ++p) {
    const std::size_t end = end_of(p);
    llvm::Function *part = llvm::Function::Create(part_type, llvm::GlobalValue::InternalLinkage,
                                                  owner->getName() + ".part", ms_.module);
    part->addFnAttr(llvm::Attribute::NoInline);
    part->addFnAttr(llvm::Attribute::NoUnwind);
    part->addFnAttr(kHugeAttribute);
    part->addFnAttr(kPartAttribute);
    if (ms_.target.kind == TargetKind::Cuda && ms_.target.fastmath) mark_gpu_fastmath(*part);
    ms_.parts.push_back({owner, part});
    const std::set<PartExit> exits =
        FunctionLowerer(*this, part, frame, variables[p]).run_part(chain, starts[p], end);

    for (const std::string &name : variables[p].crossing) {
      llvm::AllocaInst *a = slot(name);
      builder_.CreateStore(builder_.CreateLoad(a->getAllocatedType(), a),
                           frame_field(frame.type, frame_ptr, frame.field_of.at(name)));
    }
    std::vector<llvm::Value *> args = {frame_ptr};
    if (ms_.can_raise) args.push_back(error_flag_);
    if (ms_.kernel_context) args.push_back(kernel_context_);
    llvm::Value *ended = builder_.CreateCall(part, args);
    for (const std::string &name : variables[p].written) {
      llvm::AllocaInst *a = slot(name);
      builder_.CreateStore(builder_.CreateLoad(a->getAllocatedType(),
                                               frame_field(frame.type, frame_ptr, frame.field_of.at(name))),
                           a);
    }
    // Done goes to the merge; each other way the part ended, from its block.
    llvm::BasicBlock *next = end < chain.size() ? new_block(emitter_, "chain.next") : merge;
    emit_part_exits(exits, ended, frame, frame_ptr, next, merge);
    builder_.SetInsertPoint(next);
  }
}

}  // namespace ufjit::codegen::lower
