#include "runtime/Fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#define UFJIT_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UFJIT_FIBER_ASAN 1
#endif
#endif

#if defined(UFJIT_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(UFJIT_FIBER_X86_64)
#include <xmmintrin.h>

// ufjit_fiber_swap(void **save_sp, void *load_sp): pushes the callee-saved
// registers of the System V ABI and the floating-point control state (MXCSR,
// x87 control word; the ABI makes both callee-saved) on the running stack,
// saves its stack pointer, loads the other one and pops the same from it.
// The control state is loaded only where it differs: ldmxcsr and fldcw cost
// more than the rest of the switch, and fibers seldom change it.
//
// ufjit_fiber_trampoline: where a new fiber's first switch returns to (see
// Fiber::start); calls r13(r12), i.e. fiber_enter(fiber). Its CFI marks the
// end of the fiber's call stack for debuggers and unwinders.
asm(R"(
  .text
  .globl ufjit_fiber_swap
  .hidden ufjit_fiber_swap
  .type ufjit_fiber_swap, @function
  .p2align 4
ufjit_fiber_swap:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsp, %rdx
  movq %rsi, %rsp
  movl (%rsp), %eax
  cmpl (%rdx), %eax
  je 1f
  ldmxcsr (%rsp)
1:
  movzwl 4(%rsp), %eax
  cmpw 4(%rdx), %ax
  je 2f
  fldcw 4(%rsp)
2:
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ufjit_fiber_swap, .-ufjit_fiber_swap

  .globl ufjit_fiber_trampoline
  .hidden ufjit_fiber_trampoline
  .type ufjit_fiber_trampoline, @function
  .p2align 4
ufjit_fiber_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %r12, %rdi
  callq *%r13
  ud2
  .cfi_endproc
  .size ufjit_fiber_trampoline, .-ufjit_fiber_trampoline
)");

extern "C" {
__attribute__((visibility("hidden"))) void ufjit_fiber_swap(void **save_sp, void *load_sp);
__attribute__((visibility("hidden"))) void ufjit_fiber_trampoline();
}
#endif

namespace ufjit::runtime {

void fiber_enter(Fiber *fiber);

namespace {

// Offsets of a stack's top: kColors cache lines of kColorBytes.
constexpr std::size_t kColors = 64;
constexpr std::size_t kColorBytes = 64;

#if defined(UFJIT_FIBER_ASAN)
// The context a switch leaves, so that the side it arrives at can record
// that context's stack (the thread's own stack is known only this way).
thread_local FiberContext *t_switch_from = nullptr;
#endif

void before_switch(FiberContext &from, FiberContext &to, bool leaving) {
#if defined(UFJIT_FIBER_ASAN)
  t_switch_from = &from;
  __sanitizer_start_switch_fiber(leaving ? nullptr : &from.fake_stack, to.stack_bottom, to.stack_size);
#endif
}

void after_switch(void *fake_stack) {
#if defined(UFJIT_FIBER_ASAN)
  FiberContext *from = t_switch_from;
  __sanitizer_finish_switch_fiber(fake_stack, &from->stack_bottom, &from->stack_size);
#endif
}

void raw_switch(FiberContext &from, FiberContext &to) {
#if defined(UFJIT_FIBER_X86_64)
  ufjit_fiber_swap(&from.sp, to.sp);
#else
  swapcontext(&from.uc, &to.uc);
#endif
}

#if !defined(UFJIT_FIBER_X86_64)
// makecontext passes int arguments only: the Fiber pointer in two halves.
void ucontext_entry(unsigned high, unsigned low) {
  const auto bits = (static_cast<std::uintptr_t>(high) << 32) | low;
  fiber_enter(reinterpret_cast<Fiber *>(bits));
}
#endif

}  // namespace

void fiber_enter(Fiber *fiber) {
  after_switch(nullptr);
  fiber->body_(fiber->arg_);
  // A body ends with fiber_leave; returning would run off the stack's top.
  __builtin_trap();
}

Fiber::Fiber(std::size_t stack_bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  mapping_bytes_ = stack_bytes_ + page;
  void *p = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED) {
    return;
  }
  mapping_ = static_cast<char *>(p);
  if (mprotect(mapping_, page, PROT_NONE) != 0) {
    return;
  }
  stack_ = mapping_ + page;
  // The mappings are whole pages apart, so the fibers' hot frames at the
  // stack tops would share the same few cache sets; a block's consecutive
  // mappings (17 pages apart by default) get different offsets.
  color_ = (reinterpret_cast<std::uintptr_t>(mapping_) / page % kColors) * kColorBytes;
  context_.stack_bottom = stack_;
  context_.stack_size = stack_bytes_;
}

Fiber::~Fiber() {
  if (mapping_ != nullptr) {
    munmap(mapping_, mapping_bytes_);
  }
}

void Fiber::start(Body body, void *arg) {
  body_ = body;
  arg_ = arg;
#if defined(UFJIT_FIBER_ASAN)
  // Frames abandoned on this stack (a body that ended with fiber_leave, a
  // block given up) leave their redzones poisoned.
  __asan_unpoison_memory_region(stack_, stack_bytes_);
  context_.fake_stack = nullptr;
#endif
#if defined(UFJIT_FIBER_X86_64)
  // What ufjit_fiber_swap pops, from the saved stack pointer up: MXCSR and
  // the x87 control word, r15, r14, r13, r12, rbx, rbp, the return address.
  // The return address sits 8 bytes below a 16-byte boundary, so that the
  // trampoline's call meets the ABI's stack alignment.
  auto *top = reinterpret_cast<std::uintptr_t *>(stack_ + stack_bytes_ - 16 - color_);
  std::uintptr_t *sp = top - 1 - 7;
  uint32_t fp_control[2] = {_mm_getcsr(), 0};
  uint16_t x87_control = 0;
  asm volatile("fnstcw %0" : "=m"(x87_control));
  fp_control[1] = x87_control;
  sp[0] = static_cast<std::uintptr_t>(fp_control[0]) | (static_cast<std::uintptr_t>(fp_control[1]) << 32);
  sp[1] = 0;                                                 // r15
  sp[2] = 0;                                                 // r14
  sp[3] = reinterpret_cast<std::uintptr_t>(&fiber_enter);    // r13
  sp[4] = reinterpret_cast<std::uintptr_t>(this);            // r12
  sp[5] = 0;                                                 // rbx
  sp[6] = 0;                                                 // rbp: ends frame-pointer walks
  sp[7] = reinterpret_cast<std::uintptr_t>(&ufjit_fiber_trampoline);
  context_.sp = sp;
#else
  getcontext(&context_.uc);
  context_.uc.uc_stack.ss_sp = stack_;
  context_.uc.uc_stack.ss_size = stack_bytes_;
  context_.uc.uc_link = nullptr;
  const auto bits = reinterpret_cast<std::uintptr_t>(this);
  makecontext(&context_.uc, reinterpret_cast<void (*)()>(&ucontext_entry), 2, static_cast<unsigned>(bits >> 32),
              static_cast<unsigned>(bits));
#endif
}

void fiber_switch(FiberContext &from, FiberContext &to) {
  before_switch(from, to, false);
  raw_switch(from, to);
  after_switch(from.fake_stack);
}

void fiber_leave(FiberContext &from, FiberContext &to) {
  before_switch(from, to, true);
  raw_switch(from, to);
  __builtin_trap();
}

}  // namespace ufjit::runtime
