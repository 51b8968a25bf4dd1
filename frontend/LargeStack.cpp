// run_on_large_stack_impl (LargeStack.h) on POSIX threads: std::thread cannot
// choose its stack size.
#include "frontend/LargeStack.h"

#include <pthread.h>

#include <cstring>
#include <string>

#include "ufjit/errors.h"

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

}  // namespace

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
