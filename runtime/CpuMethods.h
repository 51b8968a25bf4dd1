// The CPU side of the ufunc methods: compiles the method entries
// (codegen/kernel/KernelReduce.h) from the JIT engine and runs them over the
// thread pool. Long rows are reduced in chunks by the pool, then the chunks'
// results left to right.
#pragma once

#include <functional>
#include <string>

#include "runtime/KernelRunner.h"
#include "runtime/JitEngine.h"
#include "runtime/ThreadPool.h"

namespace ufjit::runtime {

/// Runs `launch` on the CPU (host memory), synchronously. `interrupt`
/// (RuntimeOptions::interrupt, may be empty) is polled between chunks; when
/// it says stop, throws Cancelled once the running chunks finished.
void run_cpu_method(const MethodLaunch &launch, JitEngine &engine, ThreadPool &pool,
                    const std::function<bool()> &interrupt);

}  // namespace ufjit::runtime
