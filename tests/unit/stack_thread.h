// A test helper: run a function on a new thread with a stack of a chosen
// size (std::thread cannot choose), for the tests of deep sources and of the
// compile stack budget (support/LargeStack.h).
#pragma once

#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>
#include <functional>

namespace ufjit::testing_threads {

/// Runs `body` on a new thread with `stack_bytes` of stack and waits for it.
inline void run_on_stack_of(std::size_t stack_bytes, const std::function<void()> &body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
  pthread_t thread;
  auto run = [](void *arg) -> void * {
    (*static_cast<const std::function<void()> *>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, const_cast<std::function<void()> *>(&body)), 0);
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
}

}  // namespace ufjit::testing_threads
