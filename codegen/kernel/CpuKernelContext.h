// What an explicit kernel (`@cuda.jit`) reads on the CPU target where the GPU
// has special registers: the thread's and block's coordinates, the block's
// shared memory, and the functions that make a block's threads meet at a
// barrier or a warp collective. The contract between the code generated for
// kernels (codegen/lower/, codegen/kernel/KernelExplicit.cpp), which reads
// the fields at the offsets below, and the runtime's block runner
// (runtime/CpuBlockRunner.h), which fills them and implements `sync` and
// `warp`. Plain C layout: generated code addresses it by byte offset.
//
// One context per thread of a block. A kernel without barriers or warp
// collectives never calls `sync` or `warp`: its entry loops over the block's
// threads itself, rewriting `thread_idx` in one context. A kernel with them
// runs each thread on a fiber of its own (runtime/CpuBlockRunner.h), and a
// call of `sync` or `warp` returns when every thread it waits for has made
// the same call (the GPU's semantics: CUDA's __syncthreads and __*_sync).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ufjit::codegen {

struct CpuThreadContext;

/// A block barrier (cuda.syncthreads and its reducing forms). Returns, in
/// every thread, once every thread of the block that has not returned from
/// the kernel is waiting at a barrier: for Count the number of waiting
/// threads whose `value` is non-zero, for And/Or 1 or 0 as the values say,
/// for Plain 0. `line`: the source line of the call, for messages.
enum class CpuSyncOp : int32_t { Plain = 0, Count = 1, And = 2, Or = 3 };
using CpuSyncFn = int32_t (*)(CpuThreadContext *ctx, int32_t op, int32_t value, int32_t line);

/// A warp collective of the lanes in `mask` (lanes 32k .. 32k+31 of the
/// block's linear thread index form warp k; a lane that has returned from
/// the kernel is no longer waited for). Each lane passes its `value` (the
/// bits of a scalar of up to 64 bits, zero-extended) and `arg`; the call
/// returns, in each lane, once every lane of `mask` that still runs has made
/// it:
///   ShflIdx/Up/Down/Xor: the `value` of the source lane (arg: the lane,
///     the delta or the xor mask; PTX's shfl.sync with c = 31: a source
///     lane outside the warp (up, down, xor) or not in `mask` gives the
///     caller's own value; idx takes arg & 31);
///   VoteAll/Any/Uni: 1 or 0 for the lanes' `value != 0`;
///   Ballot: the bits of the lanes whose `value != 0`;
///   MatchAny: the bits of the lanes whose `value` equals the caller's;
///   MatchAll: `mask` (the participating lanes) if every one passed the
///     same `value`, else 0;
///   SyncWarp: 0 (cuda.syncwarp: only the meeting).
/// ActiveMask returns at once: the bits of the warp's lanes that have not
/// returned from the kernel.
enum class CpuWarpOp : int32_t {
  ShflIdx = 0,
  ShflUp = 1,
  ShflDown = 2,
  ShflXor = 3,
  VoteAll = 4,
  VoteAny = 5,
  VoteUni = 6,
  Ballot = 7,
  MatchAny = 8,
  MatchAll = 9,
  SyncWarp = 10,
  ActiveMask = 11,
};
using CpuWarpFn = uint64_t (*)(CpuThreadContext *ctx, int32_t op, uint64_t value, int32_t arg, uint32_t mask,
                               int32_t line);

/// A kernel split at its barriers (codegen/lower/KernelRegions.h) runs a
/// block's threads in loops, without `sync`: that field holds this instead,
/// which records that threads `first` and `other` (linear indices) of block
/// (`bx`, `by`, `bz`) took different paths around the barrier of `line`
/// (the generated code then ends the block). `runner`: the context's field.
using CpuDivergedFn = void (*)(void *runner, int32_t first, int32_t other, int32_t line, int32_t bx, int32_t by,
                               int32_t bz);

struct CpuThreadContext {
  int32_t thread_idx[3];  // cuda.threadIdx.x/y/z
  int32_t block_idx[3];   // cuda.blockIdx
  int32_t block_dim[3];   // cuda.blockDim
  int32_t grid_dim[3];    // cuda.gridDim
  /// The block's static shared memory (ir::Module::shared_bytes of them,
  /// 16-byte aligned; each cuda.shared.array at its ArrayAlloc::offset).
  char *shared;
  /// The block's dynamic shared memory (cuda.shared.array(0, dtype)), of
  /// `dynamic_shared_bytes` bytes, 16-byte aligned.
  char *dynamic_shared;
  int64_t dynamic_shared_bytes;
  CpuSyncFn sync;  // null in a kernel without barriers
  CpuWarpFn warp;  // null in a kernel without warp collectives
  /// The runner's own state for this thread (its fiber, its block).
  void *runner;
};

/// Byte offsets that generated code uses (checked against the struct here).
inline constexpr std::size_t kCtxThreadIdx = 0;
inline constexpr std::size_t kCtxBlockIdx = 12;
inline constexpr std::size_t kCtxBlockDim = 24;
inline constexpr std::size_t kCtxGridDim = 36;
inline constexpr std::size_t kCtxShared = 48;
inline constexpr std::size_t kCtxDynamicShared = 56;
inline constexpr std::size_t kCtxDynamicSharedBytes = 64;
inline constexpr std::size_t kCtxSync = 72;
inline constexpr std::size_t kCtxWarp = 80;
inline constexpr std::size_t kCtxRunner = 88;
static_assert(offsetof(CpuThreadContext, thread_idx) == kCtxThreadIdx);
static_assert(offsetof(CpuThreadContext, block_idx) == kCtxBlockIdx);
static_assert(offsetof(CpuThreadContext, block_dim) == kCtxBlockDim);
static_assert(offsetof(CpuThreadContext, grid_dim) == kCtxGridDim);
static_assert(offsetof(CpuThreadContext, shared) == kCtxShared);
static_assert(offsetof(CpuThreadContext, dynamic_shared) == kCtxDynamicShared);
static_assert(offsetof(CpuThreadContext, dynamic_shared_bytes) == kCtxDynamicSharedBytes);
static_assert(offsetof(CpuThreadContext, sync) == kCtxSync);
static_assert(offsetof(CpuThreadContext, warp) == kCtxWarp);
static_assert(offsetof(CpuThreadContext, runner) == kCtxRunner);

/// The values an int32 coordinate field at byte `offset` can hold, [lo, hi)
/// (CUDA's limits, which a launch checks): generated code tells LLVM, so
/// that an index built from them is known non-negative (no wrap of a
/// negative index, accesses it can vectorize). {0, 0} for other offsets.
struct FieldRange {
  int64_t lo = 0;
  int64_t hi = 0;
};
constexpr FieldRange context_field_range(std::size_t offset) {
  if (offset >= kCtxThreadIdx && offset < kCtxBlockIdx) return {0, 1024};
  if (offset >= kCtxBlockIdx && offset < kCtxBlockDim) return {0, (int64_t{1} << 31) - 1};
  if (offset >= kCtxBlockDim && offset < kCtxGridDim) return {1, 1025};
  if (offset >= kCtxGridDim && offset < kCtxShared) return {1, int64_t{1} << 31};
  return {};
}

/// The CPU entry of a kernel with barriers or warp collectives: one thread.
/// `params` as every CPU entry's (codegen/kernel/KernelABI.h, kind Explicit).
using CpuThreadEntry = void (*)(CpuThreadContext *ctx, void *const *params);

}  // namespace ufjit::codegen
