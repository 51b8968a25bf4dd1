// Private to the scalar lowering: the lowering of one ir::Function body
// (expressions in LowerExpr.cpp, statements in LowerStmt.cpp, long if/elif
// chains in parts in LowerParts.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/lower/LowerInternal.h"

namespace ufjit::codegen::lower {

/// How a part of a long if/elif chain (LowerParts.cpp) ended, returned to
/// its caller, which then does the same: continue after the chain, try the
/// next part, return, end the element that raised, or leave the loop around
/// the chain.
enum class PartExit : std::uint32_t { Done, NotTaken, Returned, Raised, Break, Continue };

/// The variables of a chain cut into parts, in one frame that the caller
/// fills before each part's call and reads back after it. A variable is a
/// value that nothing else points to, so copying it in and back out is
/// exact, and each side keeps its own stack slots (mem2reg promotes them).
struct PartFrame {
  llvm::StructType *type = nullptr;
  std::map<std::string, unsigned> field_of;  // variable -> field
  unsigned return_field = 0;                 // the returned value, when the function returns one
};

/// The variables of one part: every one it reads or writes gets a slot
/// there (`used`); those that the rest of the function also reads or writes,
/// and the parameters, cross its call (`crossing`: copied in; `written`, the
/// ones among them it writes: copied back). A variable only the part names
/// needs neither: the typer rejects a read that an assignment does not
/// precede on every path, so no value of it reaches the part's entry (a
/// compiler temporary of each branch's tuple assignment, say).
struct PartVariables {
  std::vector<std::string> used;
  std::vector<std::string> crossing;
  std::vector<std::string> written;
};

/// How many times each variable is named (read or assigned) in a function.
using VariableCounts = std::map<std::string, std::size_t>;

/// Where the parts of a long if/elif chain begin: empty for a chain that
/// lowers to at most kOutlineBlocks blocks (codegen/HugeFunctions.h), else
/// the first branch of each run of about kChainPartBlocks blocks but the
/// first run, which stays in the function (LowerParts.cpp).
std::vector<std::size_t> chain_part_starts(const std::vector<const ir::If *> &chain);

/// Lowers the body of one IR function into its (already declared) LLVM
/// function. Parameters and locals live in entry-block allocas (mem2reg
/// promotes them); control flow is structured.
class FunctionLowerer {
 public:
  FunctionLowerer(ModuleState &ms, const ir::Function &fn, llvm::Function *out);
  /// Emits the whole body; the function is complete afterwards.
  void run();

  /// A lowerer of one part of a long chain that `caller` lowers, into `part`
  /// (i32 (ptr frame[, ptr error flag])): slots for `variables.used` only,
  /// of the caller's slots' types, the crossing ones filled from the frame;
  /// each exit writes `variables.written` back.
  FunctionLowerer(const FunctionLowerer &caller, llvm::Function *part, const PartFrame &frame,
                  const PartVariables &variables);
  /// Emits branches [begin, end) of `chain` (its final `else` when `end` is
  /// its length) and returns the ways the part can end.
  std::set<PartExit> run_part(const std::vector<const ir::If *> &chain, std::size_t begin, std::size_t end);

 private:
  struct Loop {
    llvm::BasicBlock *continue_target;
    llvm::BasicBlock *break_target;
  };

  // Statements (LowerStmt.cpp).
  /// The trip count of `range(start, stop, step)` (ir::ForRange's semantics).
  llvm::Value *range_trip_count(llvm::Value *start, llvm::Value *stop, llvm::Value *step, bool is_signed);
  void emit(const ir::Stmt &s);
  void emit_if(const ir::If &s);
  void emit_while(const ir::While &s);
  /// `while cond(): body(loop)`, `loop` the targets of its break and continue.
  void emit_while_loop(const std::function<llvm::Value *()> &cond, const std::function<void(const Loop &)> &body);
  void emit_for_range(const ir::ForRange &s);
  /// `for v in range(start, stop, step): body(loop)` (ir::ForRange's
  /// semantics), `assign(value)` giving v each value before the body.
  void emit_range_loop(llvm::Value *start, llvm::Value *stop, llvm::Value *step, bool is_signed,
                       const std::function<void(llvm::Value *)> &assign, const std::function<void(const Loop &)> &body);
  void emit_return(const ir::Return &s);
  /// Returns `value` (null for a void function) from the function, or from a
  /// part through its frame.
  void emit_return_value(llvm::Value *value);
  /// A `break` (or `continue`) of the innermost loop; in a part outside any
  /// loop of its own, the part ends and its caller takes it.
  void emit_loop_exit(bool is_break);
  void emit_array_store(const ir::ArrayStore &s);
  // Raises (LowerRaise.cpp).
  void emit_raise(const ir::Raise &s);
  /// After a call of a function that can raise: ends this function too when
  /// the flag is set, so that a raise in a helper ends the element.
  void emit_raise_check();
  /// In a checked kernel on the CPU, when `won` (the raise stored its site):
  /// the raise's values and the thread's coordinates into the record.
  void record_raise(const ir::Raise &s, llvm::Value *won);
  /// Returns the zero value of the function's type (the value of an element
  /// that raised is unspecified: LANGUAGE.md section 5).
  void emit_raised_return();
  /// After a terminator (return, break, continue): continue emitting into a
  /// fresh block with no predecessors.
  void start_dead_block();
  /// Branches to `target` unless the current block is already terminated.
  void branch_to(llvm::BasicBlock *target);

  // Long if/elif chains lowered in parts (LowerParts.cpp).
  /// Branches [starts[0], end) of `chain` as parts, one function from each
  /// start to the next, called in turn from the current block; every part
  /// that ends Done goes to `merge`, and so does the last one's NotTaken.
  void emit_chain_parts(const std::vector<const ir::If *> &chain, const std::vector<std::size_t> &starts,
                        llvm::BasicBlock *merge);
  /// The frame of a chain's parts: the returned value, then each variable
  /// that crosses a part's call.
  PartFrame chain_frame(const std::vector<PartVariables> &variables);
  /// After a part's call returned `ended`: Done goes to `merge`, NotTaken to
  /// `next`, and a return, raise, break or continue is taken from its block.
  void emit_part_exits(const std::set<PartExit> &exits, llvm::Value *ended, const PartFrame &frame,
                       llvm::Value *frame_ptr, llvm::BasicBlock *next, llvm::BasicBlock *merge);
  /// In a part: records `exit`, stores it and branches to the part's exit
  /// (unless the current block is already terminated).
  void leave_part(PartExit exit);
  /// The address of `field` of `frame` (a PartFrame's type).
  llvm::Value *frame_field(llvm::StructType *type, llvm::Value *frame, unsigned field);

  // Expressions (LowerExpr.cpp).
  llvm::Value *emit(const ir::Expr &e);
  llvm::Value *emit_var(const ir::Var &v);
  llvm::Value *emit_select(const ir::Select &s);
  llvm::Value *emit_short_circuit(const ir::ShortCircuit &s);
  llvm::Value *emit_call(const ir::Call &c);
  llvm::Value *emit_intrinsic(const ir::Intrinsic &i);
  llvm::Value *emit_tuple(const ir::MakeTuple &t);
  /// `t[i]` (`t[i][j]`...) of a tuple held in a local: a load of that element
  /// alone; nullptr when the tuple is not a local.
  llvm::Value *load_element_of_local_tuple(const ir::TupleGet &g);
  /// The address of array[indices...]: data + sum(index_k * byte_stride_k).
  llvm::Value *element_address(const ir::Expr &array, const std::vector<ir::Expr> &indices);
  /// A view {data, shape, strides} of an array (ir::ArraySlice), no copy.
  llvm::Value *emit_array_slice(const ir::ArraySlice &s);
  /// printf on the CPU, vprintf (arguments packed in a buffer) on the GPU.
  void emit_print(const ir::Print &p);
  /// A view {data, shape, strides} of a record field (ir::ArrayField), no copy.
  llvm::Value *emit_array_field(const ir::ArrayField &f);
  /// `cond ? a : b` evaluating only the chosen expression (a select when
  /// both are constants or variables).
  llvm::Value *choose(llvm::Value *cond, const ir::Expr &a, const ir::Expr &b);

  llvm::AllocaInst *slot(const std::string &name) const;

  // Explicit kernels (LowerKernel.cpp).
  /// A field of the CPU thread context at byte `offset`.
  llvm::Value *context_field(std::size_t offset, llvm::Type *type);
  llvm::Value *emit_coordinate(ir::IntrinsicOp op);
  /// A generic pointer to the block's static (or dynamic) shared memory.
  llvm::Value *shared_base(bool dynamic);
  /// A pointer to a constant array's `data`: the GPU's constant memory, the CPU's read-only data.
  llvm::Value *constant_array_data(const std::string &data);
  llvm::Value *emit_array_alloc(const ir::ArrayAlloc &a);
  llvm::Value *emit_array_atomic(const ir::ArrayAtomic &a);
  llvm::Value *emit_float_atomic_loop(ir::AtomicOp op, llvm::Value *address, llvm::Value *value);
  /// Null for the Syncs that give no value.
  llvm::Value *emit_sync(const ir::Sync &s);
  llvm::Value *emit_gpu_barrier(const ir::Sync &s, const std::vector<llvm::Value *> &args);
  llvm::Value *emit_gpu_warp(const ir::Sync &s, const std::vector<llvm::Value *> &args);
  llvm::Value *gpu_shuffle(ir::SyncOp op, llvm::Value *mask, llvm::Value *word, llvm::Value *lane);
  llvm::Value *emit_cpu_barrier(const ir::Sync &s, const std::vector<llvm::Value *> &args);
  llvm::Value *emit_cpu_warp(const ir::Sync &s, const std::vector<llvm::Value *> &args);
  /// In a checked kernel on the CPU: tells the race checker of an access
  /// (`bytes` at `address`) or, with a null address, a barrier or syncwarp
  /// (codegen/kernel/KernelCheck.h). `kind`: a CpuAccessKind.
  void report_access(llvm::Value *address, int64_t bytes, int32_t kind, int line);

  // A kernel split at its barriers (LowerRegions.cpp, codegen/lower/KernelRegions.h).
  struct RegionState;
  /// The body of a split kernel: its regions, one block's worth.
  void emit_regions();
  /// The statements of `body` (a Block or one statement): each run of them
  /// without a barrier is one loop over the threads; the rest keep their
  /// control, evaluated by every thread and taken when all agree.
  void emit_region_body(const ir::Stmt &body);
  void emit_region_if(const ir::If &s);
  void emit_region_while(const ir::While &s);
  void emit_region_for(const ir::ForRange &s);
  /// `v = syncthreads_count(p)` (and/or, or the plain barrier): the
  /// predicate in every thread, reduced.
  void emit_region_barrier(const ir::Stmt &s);
  /// Runs `body` once for each thread of the block that has not returned,
  /// with the thread's coordinates in the context and its own values of the
  /// per-thread variables among `names` in their slots.
  void emit_thread_loop(const std::set<std::string> &names, const std::function<void()> &body);
  /// `exprs` in every live thread; the first live thread's values, once
  /// every thread gave the same (else the divergence is reported, naming
  /// barrier `line`, and the block ends, as it does when no thread lives).
  std::vector<llvm::Value *> uniform_values(const std::vector<ir::Expr> &exprs, int line);
  /// Assigns every thread's `var` (a `for` variable, a barrier's result).
  void store_uniform(const std::string &var, llvm::Value *value);
  /// `body(i)` for i in [0, count) (i32).
  void emit_index_loop(llvm::Value *count, const std::function<void(llvm::Value *)> &body);
  /// A `return` (or a raise) in a region: the thread is done.
  void end_thread();
  /// Set while lowering a split kernel.
  std::shared_ptr<RegionState> region_;

  ModuleState &ms_;
  const ir::Function &fn_;
  llvm::Function *out_;
  llvm::IRBuilder<> builder_;
  Emitter emitter_;
  std::map<std::string, llvm::AllocaInst *> slots_;
  std::vector<Loop> loops_;
  llvm::Value *error_flag_ = nullptr;  // the last parameter when ms_.can_raise
  llvm::Value *kernel_context_ = nullptr;  // after it when ms_.kernel_context

  /// Set while lowering a part: where its exits go.
  struct PartState {
    const PartFrame *frame;
    llvm::Value *frame_ptr;
    llvm::AllocaInst *exit_slot;  // the PartExit, read at `exit`
    llvm::BasicBlock *exit;
    std::set<PartExit> exits;
  };
  std::optional<PartState> part_;
  /// The function's VariableCounts, made for its first long chain and
  /// shared with the lowerers of its parts (which take it from their caller).
  std::shared_ptr<const VariableCounts> variable_counts_;
};

}  // namespace ufjit::codegen::lower
