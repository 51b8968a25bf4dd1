// Minimal stackful fibers for the CPU block runner (runtime/CpuBlockRunner.h):
// each thread of a block with barriers runs on a fiber of its own, so that a
// barrier suspends it until the others arrive. On x86-64 a switch is a few
// instructions of hand-written assembly (the callee-saved registers, the stack
// pointer, MXCSR and the x87 control word): ucontext's swapcontext makes a
// sigprocmask system call per switch, far too slow for a block's millions of
// barrier waits. Elsewhere ucontext serves.
//
// A fiber never migrates between OS threads, and a fiber's body never
// returns: it ends by switching away for good (fiber_leave).
#pragma once

#include <cstddef>

// The hand-written switch; UFJIT_FIBER_UCONTEXT picks the portable one (to
// test it on x86-64).
#if defined(__x86_64__) && !defined(UFJIT_FIBER_UCONTEXT)
#define UFJIT_FIBER_X86_64 1
#endif

#if !defined(UFJIT_FIBER_X86_64)
#include <ucontext.h>
#endif

namespace ufjit::runtime {

/// Stack of one fiber unless the caller asks for another size: a GPU
/// thread's code keeps few locals (arrays live in shared memory or in the
/// caller's buffers), and a block of 1024 threads maps 1024 of them.
inline constexpr std::size_t kFiberStackBytes = 64 * 1024;

/// Where a suspended execution resumes: a fiber's, or that of the thread
/// that runs fibers (its own stack; filled by the first switch away).
struct FiberContext {
#if defined(UFJIT_FIBER_X86_64)
  void *sp = nullptr;  // the stack pointer its last switch saved
#else
  ucontext_t uc{};
#endif
  // The stack it runs on and its fake stack, for AddressSanitizer's
  // annotations of every switch (unused without ASan).
  const void *stack_bottom = nullptr;
  std::size_t stack_size = 0;
  void *fake_stack = nullptr;
};

/// A stack (mapped with an inaccessible guard page below it, so that an
/// overflow faults instead of corrupting the memory next to it) and the
/// context that runs a body on it.
class Fiber {
 public:
  /// What a fiber runs; it must not return (it ends with fiber_leave).
  using Body = void (*)(void *arg);

  /// Maps the stack, `stack_bytes` rounded up to whole pages; ok() says
  /// whether the mapping succeeded (a runner reports it, never aborts).
  explicit Fiber(std::size_t stack_bytes = kFiberStackBytes);
  ~Fiber();
  Fiber(const Fiber &) = delete;
  Fiber &operator=(const Fiber &) = delete;

  bool ok() const { return stack_ != nullptr; }

  /// Makes the next switch to context() run body(arg) from the top of the
  /// stack, with the calling thread's floating-point control state. Any
  /// frames a previous body left suspended there are abandoned: generated
  /// code has no destructors to run.
  void start(Body body, void *arg);

  FiberContext &context() { return context_; }

 private:
  char *mapping_ = nullptr;  // guard page, then the stack
  std::size_t mapping_bytes_ = 0;
  char *stack_ = nullptr;
  std::size_t stack_bytes_ = 0;
  std::size_t color_ = 0;  // bytes left unused at the stack's top
  Body body_ = nullptr;
  void *arg_ = nullptr;
  FiberContext context_;

  friend void fiber_enter(Fiber *fiber);
};

/// Saves the running execution in `from` and resumes `to`; returns when
/// some later switch resumes `from`. Both belong to the calling OS thread.
void fiber_switch(FiberContext &from, FiberContext &to);

/// Switches to `to` from a fiber whose frames are never resumed (its body
/// has ended, or its block was abandoned), so that AddressSanitizer frees
/// the fiber's fake stack. `from` is only a place to save registers into.
[[noreturn]] void fiber_leave(FiberContext &from, FiberContext &to);

}  // namespace ufjit::runtime
