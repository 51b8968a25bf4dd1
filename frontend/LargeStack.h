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

/// Runs `body` on a thread with kCompileStackBytes of stack and waits for it;
/// an exception thrown by `body` is rethrown here. Runs `body` directly when
/// already on such a thread (nested compile steps share one thread).
void run_on_large_stack_impl(const std::function<void()> &body);

/// As run_on_large_stack_impl, returning what `body` returns.
template <typename F>
auto run_with_large_stack(F &&body) -> std::invoke_result_t<F &> {
  using R = std::invoke_result_t<F &>;
  if constexpr (std::is_void_v<R>) {
    run_on_large_stack_impl([&] { body(); });
  } else {
    std::optional<R> result;
    run_on_large_stack_impl([&] { result.emplace(body()); });
    return std::move(*result);
  }
}

}  // namespace ufjit
