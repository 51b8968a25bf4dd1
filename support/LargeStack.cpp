// run_on_large_stack_impl (LargeStack.h) on POSIX threads: std::thread cannot
// choose its stack size.
#include "support/LargeStack.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "ufjit/errors.h"

extern "C" void *__libc_stack_end;  // glibc: the main thread's stack end, set at start

namespace ufjit {

namespace {

thread_local bool on_large_stack = false;

struct Job {
  const std::function<void()> *body = nullptr;
  std::exception_ptr error;
};

void *run_job(void *arg) {
  auto *job = static_cast<Job *>(arg);
  on_large_stack = true;
  try {
    (*job->body)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

/// Bytes of stack left below the caller's frame on this thread, or 0 when
/// unknown. The stack's bounds are looked up once per thread: for the main
/// thread pthread_getattr_np reads /proc/self/maps (50-120 us), so the main
/// thread's bounds come from glibc's __libc_stack_end and RLIMIT_STACK.
std::size_t free_stack_bytes() {
  struct Bounds {
    bool known = false;
    uintptr_t low = 0;  // lowest usable address
  };
  thread_local const Bounds bounds = [] {
    Bounds b;
    if (getpid() == static_cast<pid_t>(syscall(SYS_gettid))) {
      rlimit limit{};
      if (getrlimit(RLIMIT_STACK, &limit) != 0) return b;
      // An unlimited main stack may still meet a mapping: assume the default 8 MiB.
      const std::size_t size = limit.rlim_cur == RLIM_INFINITY ? std::size_t{8} << 20 : limit.rlim_cur;
      const auto top = reinterpret_cast<uintptr_t>(__libc_stack_end);
      // Above __libc_stack_end lie the arguments and environment (the kernel
      // caps them at a quarter of the limit) and the auxiliary vector.
      const std::size_t above = size / 4 + (std::size_t{64} << 10);
      if (top < size || size <= above) return b;
      b.low = top - size + above;
      b.known = true;
      return b;
    }
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
    void *address = nullptr;
    std::size_t size = 0;
    std::size_t guard = 0;
    if (pthread_attr_getstack(&attr, &address, &size) == 0 && pthread_attr_getguardsize(&attr, &guard) == 0) {
      b.low = reinterpret_cast<uintptr_t>(address) + guard;
      b.known = true;
    }
    pthread_attr_destroy(&attr);
    return b;
  }();
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return bounds.known && here > bounds.low ? here - bounds.low : 0;
}

}  // namespace

void run_with_stack_for_impl(std::size_t source_bytes, const std::function<void()> &body) {
  if (on_large_stack) {
    body();
    return;
  }
  const std::size_t needed = compile_stack_for(source_bytes);
  if (source_bytes > kCompileStackBytes / kStackPerSourceByte || free_stack_bytes() < needed) {
    run_on_large_stack_impl(body);
    return;
  }
  // Nested steps see a compile thread and run here too.
  struct Mark {
    Mark() { on_large_stack = true; }
    ~Mark() { on_large_stack = false; }
  } mark;
  body();
}

void run_on_large_stack_impl(const std::function<void()> &body) {
  if (on_large_stack) {
    body();
    return;
  }
  Job job;
  job.body = &body;
  pthread_attr_t attr;
  if (int rc = pthread_attr_init(&attr); rc != 0) {
    throw Error(std::string("cannot start the compile thread: ") + std::strerror(rc));
  }
  int rc = pthread_attr_setstacksize(&attr, kCompileStackBytes);
  pthread_t thread;
  if (rc == 0) rc = pthread_create(&thread, &attr, run_job, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    throw Error(std::string("cannot start the compile thread (") + std::to_string(kCompileStackBytes >> 20) +
                " MiB stack): " + std::strerror(rc));
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace ufjit
