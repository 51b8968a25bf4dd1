// run_with_large_stack: runs a compile step on a thread whose stack size ufjit
// chooses, so that the caller's stack (a host program's worker thread may have
// 256 KiB) never decides how deep a source can be.
//
// The parser, the typer, the lowering and LLVM recurse over the tree of a
// source. The parser caps that tree (frontend/ParserImpl.h: kMaxTreeDepth and
// friends) and the typer caps helper call chains (kMaxCallDepth); the stack
// given here is sized so that every source inside those caps fits with a wide
// margin. The stack is reserved address space: only the pages a compile
// touches are ever backed by memory.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

namespace ufjit {

/// Stack of the compile thread: 512 MiB of address space.
inline constexpr std::size_t kCompileStackBytes = std::size_t{512} << 20;

/// Stack reserved per byte of source by compile_stack_for. Every stage's
/// recursion follows the nesting of the source, and each level of nesting
/// takes at least one byte of it; the deepest sources per byte measured (a
/// flat sum `x+x+...+x` and a `-` chain, every stage down to PTX or host
/// code) used at most 700 bytes of stack per byte of source, so this is a
/// margin of about 6x (docs/PERFORMANCE.md, "Warm disk cache").
inline constexpr std::size_t kStackPerSourceByte = std::size_t{4} << 10;
/// Stack reserved for a compile besides the per-byte part: LLVM's pass
/// managers and the outermost frames (60 KiB measured for a one-line source).
inline constexpr std::size_t kStackBaseBytes = std::size_t{512} << 10;

/// The stack a compile of a source of `source_bytes` bytes may use.
constexpr std::size_t compile_stack_for(std::size_t source_bytes) {
  return kStackBaseBytes + source_bytes * kStackPerSourceByte;
}

/// Runs `body` on a thread with kCompileStackBytes of stack and waits for it;
/// an exception thrown by `body` is rethrown here. Runs `body` directly when
/// already on such a thread (nested compile steps share one thread).
void run_on_large_stack_impl(const std::function<void()> &body);

/// As run_on_large_stack_impl, but directly on the calling thread (and every
/// nested step with it) when that thread has compile_stack_for(source_bytes)
/// of stack left: starting a thread with a fresh 512 MiB stack costs 0.1-0.3
/// ms, which is most of what typing a small source costs.
void run_with_stack_for_impl(std::size_t source_bytes, const std::function<void()> &body);

namespace detail {

/// Calls `run` with a void() function that runs `body`, returning its result.
template <typename Run, typename F>
auto run_returning(const Run &run, F &body) -> std::invoke_result_t<F &> {
  using R = std::invoke_result_t<F &>;
  if constexpr (std::is_void_v<R>) {
    run([&] { body(); });
  } else {
    std::optional<R> result;
    run([&] { result.emplace(body()); });
    return std::move(*result);
  }
}

}  // namespace detail

/// As run_on_large_stack_impl, returning what `body` returns.
template <typename F>
auto run_with_large_stack(F &&body) -> std::invoke_result_t<F &> {
  return detail::run_returning([](const std::function<void()> &f) { run_on_large_stack_impl(f); }, body);
}

/// As run_with_stack_for_impl, returning what `body` returns. For the
/// outermost step of a compile whose source size is known (Runtime::vectorize).
template <typename F>
auto run_with_stack_for(std::size_t source_bytes, F &&body) -> std::invoke_result_t<F &> {
  return detail::run_returning(
      [source_bytes](const std::function<void()> &f) { run_with_stack_for_impl(source_bytes, f); }, body);
}

}  // namespace ufjit
