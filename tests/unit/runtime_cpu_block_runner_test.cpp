// The CPU block runner (runtime/CpuBlockRunner.h) and its fibers
// (runtime/Fiber.h), with kernels written as plain C++ functions of type
// CpuThreadEntry, calling `sync` and `warp` as generated code does.
#include <gtest/gtest.h>

#include <cfenv>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <tuple>

#include "runtime/CpuBlockRunner.h"

namespace ufjit::runtime {
namespace {

using codegen::CpuSyncOp;
using codegen::CpuThreadContext;
using codegen::CpuWarpOp;

constexpr uint32_t kFullMask = 0xffffffffu;

CpuThreadContext block_of(int x, int y = 1, int z = 1, char *shared = nullptr) {
  CpuThreadContext block{};
  block.block_dim[0] = x;
  block.block_dim[1] = y;
  block.block_dim[2] = z;
  block.grid_dim[0] = 1;
  block.grid_dim[1] = 1;
  block.grid_dim[2] = 1;
  block.shared = shared;
  return block;
}

int linear(const CpuThreadContext *c) {
  return c->thread_idx[0] + c->thread_idx[1] * c->block_dim[0] + c->thread_idx[2] * c->block_dim[0] * c->block_dim[1];
}

int block_size(const CpuThreadContext *c) {
  return c->block_dim[0] * c->block_dim[1] * c->block_dim[2];
}

int32_t barrier(CpuThreadContext *c, CpuSyncOp op = CpuSyncOp::Plain, int32_t value = 0, int32_t line = 0) {
  return c->sync(c, static_cast<int32_t>(op), value, line);
}

uint64_t warp(CpuThreadContext *c, CpuWarpOp op, uint64_t value, int32_t arg = 0, uint32_t mask = kFullMask,
              int32_t line = 0) {
  return c->warp(c, static_cast<int32_t>(op), value, arg, mask, line);
}

template <typename T>
T *param(void *const *params, int i) {
  return static_cast<T *>(params[i]);
}

// ------------------------------------------------------------ kernels

/// out[blockIdx.x] = the sum of the block's slice of in: a shared-memory tree
/// reduction with a barrier after every step (block size a power of two).
void tree_sum_kernel(CpuThreadContext *c, void *const *params) {
  const auto *in = param<const int64_t>(params, 0);
  auto *out = param<int64_t>(params, 1);
  auto *partial = reinterpret_cast<int64_t *>(c->shared);
  const int t = linear(c);
  const int n = block_size(c);
  partial[t] = in[int64_t{c->block_idx[0]} * n + t];
  barrier(c);
  for (int stride = n / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      partial[t] += partial[t + stride];
    }
    barrier(c);
  }
  if (t == 0) {
    out[c->block_idx[0]] = partial[0];
  }
}

/// Sums blocks of `threads` threads with tree_sum_kernel on `runner`.
std::vector<int64_t> tree_sums(CpuBlockRunner &runner, const std::vector<int64_t> &in, int threads,
                               std::string &error) {
  const int blocks = static_cast<int>(in.size()) / threads;
  std::vector<int64_t> shared(threads);
  std::vector<int64_t> out(blocks, -1);
  void *params[] = {const_cast<int64_t *>(in.data()), out.data()};
  CpuThreadContext block = block_of(threads, 1, 1, reinterpret_cast<char *>(shared.data()));
  block.grid_dim[0] = blocks;
  for (int b = 0; b < blocks && error.empty(); ++b) {
    block.block_idx[0] = b;
    error = runner.run(block, &tree_sum_kernel, params);
  }
  return out;
}

std::vector<int64_t> expected_sums(const std::vector<int64_t> &in, int threads) {
  std::vector<int64_t> sums(in.size() / threads, 0);
  for (std::size_t i = 0; i < in.size(); ++i) {
    sums[i / threads] += in[i];
  }
  return sums;
}

std::vector<int64_t> iota_values(int n, int64_t scale) {
  std::vector<int64_t> values(n);
  for (int i = 0; i < n; ++i) {
    values[i] = (i * scale) % 1000 - 300;
  }
  return values;
}

/// out[3t .. 3t+2]: syncthreads_count, _and and _or of (t % 3 == 0), then
/// out[3n + 3t ..]: the same of a predicate every thread holds.
void reducing_barriers_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<int32_t>(params, 0);
  const int t = linear(c);
  const int n = block_size(c);
  const int32_t p = t % 3 == 0 ? 1 : 0;
  out[3 * t] = barrier(c, CpuSyncOp::Count, p);
  out[3 * t + 1] = barrier(c, CpuSyncOp::And, p);
  out[3 * t + 2] = barrier(c, CpuSyncOp::Or, p);
  out[3 * n + 3 * t] = barrier(c, CpuSyncOp::Count, 7);
  out[3 * n + 3 * t + 1] = barrier(c, CpuSyncOp::And, 7);
  out[3 * n + 3 * t + 2] = barrier(c, CpuSyncOp::Or, 0);
}

/// out[4t ..]: shfl_sync from lane+5, shfl_up_sync by 3, shfl_down_sync by
/// 3, shfl_xor_sync with 7 of the value 2^40 + t; out[4n + 4t ..]: the same
/// with sources outside the warp (idx 37, up 40, down 32, xor 32).
void shuffles_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<uint64_t>(params, 0);
  const int t = linear(c);
  const int n = block_size(c);
  const int lane = t % 32;
  const uint64_t v = (uint64_t{1} << 40) + t;
  out[4 * t] = warp(c, CpuWarpOp::ShflIdx, v, lane + 5);
  out[4 * t + 1] = warp(c, CpuWarpOp::ShflUp, v, 3);
  out[4 * t + 2] = warp(c, CpuWarpOp::ShflDown, v, 3);
  out[4 * t + 3] = warp(c, CpuWarpOp::ShflXor, v, 7);
  out[4 * n + 4 * t] = warp(c, CpuWarpOp::ShflIdx, v, 37);
  out[4 * n + 4 * t + 1] = warp(c, CpuWarpOp::ShflUp, v, 40);
  out[4 * n + 4 * t + 2] = warp(c, CpuWarpOp::ShflDown, v, 32);
  out[4 * n + 4 * t + 3] = warp(c, CpuWarpOp::ShflXor, v, 32);
}

/// Lanes 0-15 and 16-31 shuffle down by 8 in two collectives of their own.
void half_warp_shuffle_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<uint64_t>(params, 0);
  const int t = linear(c);
  const uint32_t mask = t < 16 ? 0x0000ffffu : 0xffff0000u;
  out[t] = warp(c, CpuWarpOp::ShflDown, 100 + t, 8, mask);
}

/// out[8t ..]: all, any, eq and ballot of (lane odd); all, eq of true;
/// any, eq of false.
void votes_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<uint64_t>(params, 0);
  const int t = linear(c);
  const uint64_t odd = t % 2;
  out[8 * t] = warp(c, CpuWarpOp::VoteAll, odd);
  out[8 * t + 1] = warp(c, CpuWarpOp::VoteAny, odd);
  out[8 * t + 2] = warp(c, CpuWarpOp::VoteUni, odd);
  out[8 * t + 3] = warp(c, CpuWarpOp::Ballot, odd);
  out[8 * t + 4] = warp(c, CpuWarpOp::VoteAll, 5);
  out[8 * t + 5] = warp(c, CpuWarpOp::VoteUni, 5);
  out[8 * t + 6] = warp(c, CpuWarpOp::VoteAny, 0);
  out[8 * t + 7] = warp(c, CpuWarpOp::VoteUni, 0);
}

/// out[3t ..]: match_any of lane/4, match_all of lane/4, match_all of 9.
void matches_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<uint64_t>(params, 0);
  const int t = linear(c);
  out[3 * t] = warp(c, CpuWarpOp::MatchAny, t / 4);
  out[3 * t + 1] = warp(c, CpuWarpOp::MatchAll, t / 4);
  out[3 * t + 2] = warp(c, CpuWarpOp::MatchAll, 9);
}

/// out[4t ..]: ballot of true, activemask, shfl_down by 4, match_all of 1,
/// all with the full mask.
void full_mask_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<uint64_t>(params, 0);
  const int t = linear(c);
  out[4 * t] = warp(c, CpuWarpOp::Ballot, 1);
  out[4 * t + 1] = warp(c, CpuWarpOp::ActiveMask, 0);
  out[4 * t + 2] = warp(c, CpuWarpOp::ShflDown, t, 4);
  out[4 * t + 3] = warp(c, CpuWarpOp::MatchAll, 1);
}

/// Threads with t % 4 == 3 return at once; the others count the threads at
/// each of three barriers and ballot their warp.
void early_return_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<int64_t>(params, 0);
  const int t = linear(c);
  if (t % 4 == 3) {
    return;
  }
  for (int i = 0; i < 3; ++i) {
    out[4 * t + i] = barrier(c, CpuSyncOp::Count, 1);
  }
  out[4 * t + 3] = static_cast<int64_t>(warp(c, CpuWarpOp::Ballot, 1));
}

/// Thread 0 waits at a barrier after all the others have returned.
void last_one_at_barrier_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<int32_t>(params, 0);
  if (linear(c) == 0) {
    *out = barrier(c, CpuSyncOp::Count, 1);
  }
}

/// Lanes 0-9 return; the others read activemask.
void active_mask_kernel(CpuThreadContext *c, void *const *params) {
  auto *out = param<uint64_t>(params, 0);
  const int t = linear(c);
  if (t < 10) {
    return;
  }
  out[t] = warp(c, CpuWarpOp::ActiveMask, 0);
}

/// Lanes 0-15 wait at a barrier (line 7), lanes 16-31 at a full-warp shuffle
/// (line 9): neither can complete.
void deadlock_kernel(CpuThreadContext *c, void *const *) {
  if (linear(c) < 16) {
    barrier(c, CpuSyncOp::Plain, 0, 7);
  } else {
    warp(c, CpuWarpOp::ShflIdx, 1, 0, kFullMask, 9);
  }
}

/// Even lanes shuffle (line 3), odd lanes ballot (line 4) with the full mask.
void mixed_collective_kernel(CpuThreadContext *c, void *const *) {
  if (linear(c) % 2 == 0) {
    warp(c, CpuWarpOp::ShflIdx, 1, 0, kFullMask, 3);
  } else {
    warp(c, CpuWarpOp::Ballot, 1, 0, kFullMask, 4);
  }
}

/// Calls a barrier and a warp collective that the runner does not know.
void unknown_ops_kernel(CpuThreadContext *c, void *const *) {
  if (c->block_idx[0] == 0) {
    c->sync(c, 9, 0, 5);
  } else {
    c->warp(c, 12, 0, 0, kFullMask, 6);
  }
}

/// Writes each thread's coordinates, then after a barrier reads the next
/// thread's; out2 = ballot of (x == 0).
void coordinates_kernel(CpuThreadContext *c, void *const *params) {
  auto *coords = param<int32_t>(params, 0);
  auto *next = param<int32_t>(params, 1);
  auto *ballots = param<uint64_t>(params, 2);
  auto *shared = reinterpret_cast<int32_t *>(c->shared);
  const int t = linear(c);
  const int n = block_size(c);
  for (int d = 0; d < 3; ++d) {
    coords[3 * t + d] = c->thread_idx[d];
  }
  shared[t] = t;
  barrier(c);
  next[t] = shared[(t + 1) % n];
  ballots[t] = warp(c, CpuWarpOp::Ballot, c->thread_idx[0] == 0 ? 1 : 0);
}

/// Counts into shared memory between barriers: 2 barriers an iteration;
/// thread 0 counts the iterations where a barrier let a thread through early.
void switch_heavy_kernel(CpuThreadContext *c, void *const *params) {
  const int iterations = *param<const int>(params, 0);
  auto *mismatches = param<int>(params, 1);
  auto *counter = reinterpret_cast<int64_t *>(c->shared);
  const int n = block_size(c);
  for (int i = 0; i < iterations; ++i) {
    *counter += 1;
    barrier(c);
    if (linear(c) == 0 && *counter != int64_t{i + 1} * n) {
      ++*mismatches;
    }
    barrier(c);
  }
}

/// Checks the fields that the runner copies from the block into each context.
void context_fields_kernel(CpuThreadContext *c, void *const *params) {
  const auto *block = param<const CpuThreadContext>(params, 0);
  auto *ok = param<int32_t>(params, 1);
  bool same = c->shared == block->shared && c->dynamic_shared == block->dynamic_shared &&
              c->dynamic_shared_bytes == block->dynamic_shared_bytes && c->sync != nullptr && c->warp != nullptr &&
              c->runner != nullptr;
  for (int d = 0; d < 3; ++d) {
    same = same && c->block_idx[d] == block->block_idx[d] && c->block_dim[d] == block->block_dim[d] &&
           c->grid_dim[d] == block->grid_dim[d];
  }
  ok[linear(c)] = same ? 1 : 0;
}

/// Thread 0 rounds toward zero from its start; every thread reports its
/// rounding mode after a barrier.
void rounding_kernel(CpuThreadContext *c, void *const *params) {
  auto *modes = param<int>(params, 0);
  const int t = linear(c);
  if (t == 0) {
    std::fesetround(FE_TOWARDZERO);
  }
  barrier(c);
  modes[t] = std::fegetround();
}

// ------------------------------------------------------------ tests

TEST(CpuBlockRunner, TreeReductionWithBarriersInALoop) {
  CpuBlockRunner runner(256);
  const std::vector<int64_t> in = iota_values(256 * 3, 7);
  std::string error;
  const std::vector<int64_t> sums = tree_sums(runner, in, 256, error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(sums, expected_sums(in, 256));
}

TEST(CpuBlockRunner, BlocksOf1024Threads) {
  CpuBlockRunner runner(1024);
  const std::vector<int64_t> in = iota_values(1024 * 2, 13);
  std::string error;
  const std::vector<int64_t> sums = tree_sums(runner, in, 1024, error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(sums, expected_sums(in, 1024));
}

TEST(CpuBlockRunner, SyncthreadsCountAndOrReduceTheWaitingThreadsValues) {
  CpuBlockRunner runner(100);
  const int n = 100;
  std::vector<int32_t> out(6 * n, -1);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(n), &reducing_barriers_kernel, params), "");
  for (int t = 0; t < n; ++t) {
    EXPECT_EQ(std::make_tuple(out[3 * t], out[3 * t + 1], out[3 * t + 2]), std::make_tuple(34, 0, 1)) << t;
    EXPECT_EQ(std::make_tuple(out[3 * n + 3 * t], out[3 * n + 3 * t + 1], out[3 * n + 3 * t + 2]),
              std::make_tuple(100, 1, 0))
        << t;
  }
}

TEST(CpuBlockRunner, ShufflesOfEachKindIncludingSourcesOutsideTheWarp) {
  const int n = 64;
  CpuBlockRunner runner(n);
  std::vector<uint64_t> out(8 * n, 0);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(n), &shuffles_kernel, params), "");
  const auto value = [](int t) { return (uint64_t{1} << 40) + t; };
  for (int t = 0; t < n; ++t) {
    const int base = t / 32 * 32;
    const int lane = t % 32;
    EXPECT_EQ(out[4 * t], value(base + (lane + 5) % 32)) << t;
    EXPECT_EQ(out[4 * t + 1], value(lane >= 3 ? t - 3 : t)) << t;
    EXPECT_EQ(out[4 * t + 2], value(lane + 3 <= 31 ? t + 3 : t)) << t;
    EXPECT_EQ(out[4 * t + 3], value(base + (lane ^ 7))) << t;
    EXPECT_EQ(out[4 * n + 4 * t], value(base + 5)) << t;  // idx takes the source lane modulo 32
    EXPECT_EQ(out[4 * n + 4 * t + 1], value(t)) << t;
    EXPECT_EQ(out[4 * n + 4 * t + 2], value(t)) << t;
    EXPECT_EQ(out[4 * n + 4 * t + 3], value(t)) << t;
  }
}

TEST(CpuBlockRunner, ShuffleFromALaneOutsideTheMaskGivesTheCallersValue) {
  CpuBlockRunner runner(32);
  std::vector<uint64_t> out(32, 0);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(32), &half_warp_shuffle_kernel, params), "");
  for (int t = 0; t < 32; ++t) {
    const bool in_half = t % 16 + 8 < 16;
    EXPECT_EQ(out[t], uint64_t(100 + (in_half ? t + 8 : t))) << t;
  }
}

TEST(CpuBlockRunner, VotesAndBallot) {
  CpuBlockRunner runner(32);
  std::vector<uint64_t> out(8 * 32, 9);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(32), &votes_kernel, params), "");
  for (int t = 0; t < 32; ++t) {
    const std::vector<uint64_t> got(out.begin() + 8 * t, out.begin() + 8 * t + 8);
    EXPECT_EQ(got, (std::vector<uint64_t>{0, 1, 0, 0xaaaaaaaau, 1, 1, 0, 1})) << t;
  }
}

TEST(CpuBlockRunner, MatchAnyAndMatchAll) {
  CpuBlockRunner runner(32);
  std::vector<uint64_t> out(3 * 32, 9);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(32), &matches_kernel, params), "");
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(out[3 * t], uint64_t{0xf} << (t / 4 * 4)) << t;
    EXPECT_EQ(out[3 * t + 1], 0u) << t;
    EXPECT_EQ(out[3 * t + 2], kFullMask) << t;
  }
}

TEST(CpuBlockRunner, APartialLastWarpHasOnlyTheLanesOfTheBlock) {
  const int n = 40;
  CpuBlockRunner runner(n);
  std::vector<uint64_t> out(4 * n, 0);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(n), &full_mask_kernel, params), "");
  for (int t = 0; t < n; ++t) {
    const bool last = t >= 32;
    const uint64_t lanes = last ? 0xffu : kFullMask;
    EXPECT_EQ(out[4 * t], lanes) << t;
    EXPECT_EQ(out[4 * t + 1], lanes) << t;
    const bool source_exists = last ? t + 4 < n : t % 32 + 4 < 32;
    EXPECT_EQ(out[4 * t + 2], uint64_t(source_exists ? t + 4 : t)) << t;
    EXPECT_EQ(out[4 * t + 3], lanes) << t;
  }
}

TEST(CpuBlockRunner, ThreadsThatReturnEarlyDoNotBlockBarriersOrCollectives) {
  const int n = 64;
  CpuBlockRunner runner(n);
  std::vector<int64_t> out(4 * n, -1);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(n), &early_return_kernel, params), "");
  for (int t = 0; t < n; ++t) {
    if (t % 4 == 3) {
      continue;
    }
    EXPECT_EQ(out[4 * t], 48) << t;
    EXPECT_EQ(out[4 * t + 2], 48) << t;
    EXPECT_EQ(out[4 * t + 3], 0x77777777) << t;
  }
}

TEST(CpuBlockRunner, ABarrierAfterTheOthersReturnedPasses) {
  CpuBlockRunner runner(64);
  int32_t count = -1;
  void *params[] = {&count};
  ASSERT_EQ(runner.run(block_of(64), &last_one_at_barrier_kernel, params), "");
  EXPECT_EQ(count, 1);
}

TEST(CpuBlockRunner, ActiveMaskNamesTheLanesThatHaveNotReturned) {
  CpuBlockRunner runner(32);
  std::vector<uint64_t> out(32, 0);
  void *params[] = {out.data()};
  ASSERT_EQ(runner.run(block_of(32), &active_mask_kernel, params), "");
  // activemask does not switch: each lane runs on to its return, so lane 10,
  // the first to ask, sees lanes 10-31, and every later lane one fewer.
  for (int t = 10; t < 32; ++t) {
    EXPECT_EQ(out[t], kFullMask << t) << t;
  }
}

TEST(CpuBlockRunner, ADeadlockIsReportedWithThreadsAndLines) {
  CpuBlockRunner runner(32);
  CpuThreadContext block = block_of(32);
  block.block_idx[0] = 2;
  EXPECT_EQ(runner.run(block, &deadlock_kernel, nullptr),
            "threads of block (2,0,0) cannot proceed: thread (0,0,0) waits at the barrier of line 7, "
            "thread (16,0,0) at shfl_sync of line 9");
}

TEST(CpuBlockRunner, DifferentCollectivesInOneWarpAreAnError) {
  CpuBlockRunner runner(32);
  EXPECT_EQ(runner.run(block_of(32), &mixed_collective_kernel, nullptr),
            "threads of block (0,0,0) disagree at a warp collective: thread (31,0,0) calls ballot_sync at line 4, "
            "thread (0,0,0) shfl_sync at line 3");
}

TEST(CpuBlockRunner, UnknownOpsAreAnError) {
  CpuBlockRunner runner(4);
  CpuThreadContext block = block_of(4);
  EXPECT_EQ(runner.run(block, &unknown_ops_kernel, nullptr), "thread (0,0,0) calls an unknown barrier (9) at line 5");
  block.block_idx[0] = 1;
  EXPECT_EQ(runner.run(block, &unknown_ops_kernel, nullptr),
            "thread (0,0,0) calls an unknown warp collective (12) at line 6");
}

TEST(CpuBlockRunner, ThreeDimensionalThreadIndicesWithXFastest) {
  CpuBlockRunner runner(24);
  const int n = 24;
  std::vector<int32_t> shared(n);
  std::vector<int32_t> coords(3 * n, -1);
  std::vector<int32_t> next(n, -1);
  std::vector<uint64_t> ballots(n, 0);
  void *params[] = {coords.data(), next.data(), ballots.data()};
  ASSERT_EQ(runner.run(block_of(4, 3, 2, reinterpret_cast<char *>(shared.data())), &coordinates_kernel, params), "");
  std::set<std::tuple<int, int, int>> seen;
  for (int t = 0; t < n; ++t) {
    seen.insert({coords[3 * t], coords[3 * t + 1], coords[3 * t + 2]});
    EXPECT_EQ(next[t], (t + 1) % n) << t;
    EXPECT_EQ(ballots[t], 0x111111u) << t;  // lanes with x == 0: every fourth
  }
  EXPECT_EQ(seen.size(), 24u);
  EXPECT_EQ(std::make_tuple(coords[3 * 23], coords[3 * 23 + 1], coords[3 * 23 + 2]), std::make_tuple(3, 2, 1));
}

TEST(CpuBlockRunner, TheBlocksContextFieldsReachEveryThread) {
  CpuBlockRunner runner(8);
  std::vector<char> shared(64);
  std::vector<char> dynamic_shared(48);
  CpuThreadContext block = block_of(2, 2, 2, shared.data());
  block.block_idx[0] = 3;
  block.block_idx[1] = 4;
  block.block_idx[2] = 5;
  block.grid_dim[0] = 6;
  block.grid_dim[1] = 7;
  block.grid_dim[2] = 8;
  block.dynamic_shared = dynamic_shared.data();
  block.dynamic_shared_bytes = 48;
  std::vector<int32_t> ok(8, 0);
  void *params[] = {&block, ok.data()};
  ASSERT_EQ(runner.run(block, &context_fields_kernel, params), "");
  EXPECT_EQ(ok, std::vector<int32_t>(8, 1));
}

TEST(CpuBlockRunner, BlockDimensionsOutsideTheGpusLimitsAreRefused) {
  CpuBlockRunner runner(1);
  EXPECT_EQ(runner.run(block_of(0), &deadlock_kernel, nullptr),
            "the block dimensions (0,1,1) must each be at least 1");
  EXPECT_EQ(runner.run(block_of(32, 32, 2), &deadlock_kernel, nullptr),
            "a block of (32,32,2) threads has 2048, more than the 1024 a block may have");
}

TEST(CpuBlockRunner, ManyRunsReuseTheRunnerAfterSuccessAndDeadlock) {
  CpuBlockRunner runner(16);
  const std::vector<int64_t> in = iota_values(64 * 4, 3);
  for (int round = 0; round < 100; ++round) {
    const int threads = round % 3 == 0 ? 64 : 32;
    std::string error;
    const std::vector<int64_t> sums = tree_sums(runner, in, threads, error);
    ASSERT_EQ(error, "") << round;
    ASSERT_EQ(sums, expected_sums(in, threads)) << round;
    if (round % 10 == 0) {
      EXPECT_NE(runner.run(block_of(32), &deadlock_kernel, nullptr), "");
    }
  }
  EXPECT_EQ(runner.max_threads(), 64);
}

TEST(CpuBlockRunner, SwitchHeavyBlockFinishesQuickly) {
  const int n = 256;
  const int barriers = 2000;
  CpuBlockRunner runner(n);
  int64_t counter = 0;
  int iterations = barriers / 2;
  int mismatches = 0;
  void *params[] = {&iterations, &mismatches};
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(runner.run(block_of(n, 1, 1, reinterpret_cast<char *>(&counter)), &switch_heavy_kernel, params), "");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(counter, int64_t{n} * iterations);
  std::printf("%d threads x %d barriers: %.1f ms, %.1f ns per barrier per thread\n", n, barriers, seconds * 1e3,
              seconds * 1e9 / (double(n) * barriers));
  EXPECT_LT(seconds, 10.0);
}

TEST(CpuBlockRunner, BlocksRunOnSeveralOsThreadsAtOnce) {
  constexpr int kThreads = 4;
  const std::vector<int64_t> in = iota_values(128 * 40, 11);
  std::vector<std::vector<int64_t>> sums(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> workers;
  for (int w = 0; w < kThreads; ++w) {
    workers.emplace_back([&, w] {
      CpuBlockRunner &runner = this_thread_block_runner(128);
      sums[w] = tree_sums(runner, in, 128, errors[w]);
    });
  }
  for (std::thread &worker : workers) {
    worker.join();
  }
  for (int w = 0; w < kThreads; ++w) {
    EXPECT_EQ(errors[w], "") << w;
    EXPECT_EQ(sums[w], expected_sums(in, 128)) << w;
  }
}

TEST(CpuBlockRunner, TheThreadsRunnerIsKeptAndGrown) {
  CpuBlockRunner &first = this_thread_block_runner(32);
  CpuBlockRunner &second = this_thread_block_runner(300);
  EXPECT_EQ(&first, &second);
  EXPECT_GE(second.max_threads(), 300);
}

TEST(CpuBlockRunner, EachThreadKeepsItsOwnRoundingMode) {
  CpuBlockRunner runner(4);
  std::vector<int> modes(4, -1);
  void *params[] = {modes.data()};
  ASSERT_EQ(runner.run(block_of(4), &rounding_kernel, params), "");
  EXPECT_EQ(modes, (std::vector<int>{FE_TOWARDZERO, FE_TONEAREST, FE_TONEAREST, FE_TONEAREST}));
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// ------------------------------------------------------------ fibers

struct PingPong {
  FiberContext caller;
  Fiber *fiber = nullptr;
  std::vector<int> trace;
};

void ping_pong_body(void *arg) {
  auto &p = *static_cast<PingPong *>(arg);
  for (int i = 0; i < 3; ++i) {
    p.trace.push_back(10 + i);
    fiber_switch(p.fiber->context(), p.caller);
  }
  fiber_leave(p.fiber->context(), p.caller);
}

TEST(Fiber, SwitchesToAndFroAndStartsAgain) {
  Fiber fiber;
  ASSERT_TRUE(fiber.ok());
  PingPong p;
  p.fiber = &fiber;
  for (int round = 0; round < 2; ++round) {
    fiber.start(&ping_pong_body, &p);
    for (int i = 0; i < 4; ++i) {
      p.trace.push_back(i);
      fiber_switch(p.caller, fiber.context());
    }
  }
  EXPECT_EQ(p.trace, (std::vector<int>{0, 10, 1, 11, 2, 12, 3, 0, 10, 1, 11, 2, 12, 3}));
}

/// Deep enough to overflow any fiber stack, and finite for the compiler.
int recurse(volatile char *previous, int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  frame[1] = previous != nullptr ? previous[0] : 0;
  if (depth == 1 << 20) {
    return frame[1];
  }
  return recurse(frame, depth + 1) + frame[1];
}

struct Overflow {
  Fiber fiber{16 * 1024};
  FiberContext caller;
  int result = 0;
};

void overflow_body(void *arg) {
  auto &o = *static_cast<Overflow *>(arg);
  o.result = recurse(nullptr, 0);
  fiber_leave(o.fiber.context(), o.caller);
}

TEST(FiberDeathTest, AStackOverflowFaultsOnTheGuardPage) {
  EXPECT_DEATH(
      {
        Overflow o;
        o.fiber.start(&overflow_body, &o);
        fiber_switch(o.caller, o.fiber.context());
      },
      "");
}

}  // namespace
}  // namespace ufjit::runtime
