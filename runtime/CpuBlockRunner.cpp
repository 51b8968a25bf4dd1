// The block runner's scheduler. Every thread of the block is a fiber; the
// running one switches directly to the next ready one when it waits (at a
// barrier, at a warp collective) or returns, and to the runner's own context
// when none is ready: then either every thread has returned, or the block
// cannot proceed. A barrier or collective completes in the thread that
// arrives last, which goes on running; the others join the ready queue.
#include "runtime/CpuBlockRunner.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace ufjit::runtime {

using codegen::CpuSyncOp;
using codegen::CpuThreadContext;
using codegen::CpuWarpOp;

namespace {

constexpr int kWarpSize = 32;

/// What a thread is doing. A Runnable thread runs or sits in the ready queue.
enum class Wait : uint8_t { Runnable, Barrier, Warp, Returned };

struct ThreadState {
  CpuThreadContext ctx;
  CpuBlockRunner::State *block = nullptr;
  int index = 0;  // linear thread index in the block
  Wait wait = Wait::Runnable;
  // The call it waits in, and what that call returns once complete.
  int32_t op = 0;
  int32_t line = 0;
  int32_t arg = 0;
  uint32_t mask = 0;  // a collective's lanes, the caller's own included
  uint64_t value = 0;
  uint64_t result = 0;
};

struct WarpState {
  uint32_t live = 0;     // lanes that exist and have not returned
  uint32_t waiting = 0;  // lanes waiting at a collective
};

/// Lanes may meet at one collective through different calls of one kind
/// (shfl_up_sync and shfl_down_sync, all_sync and ballot_sync: one PTX
/// instruction each, a mode apart); each lane gets its own call's result.
/// Calls of different kinds at one collective are an error.
enum class WarpKind : uint8_t { Shfl, Vote, Match, SyncWarp, ActiveMask };

struct WarpOpInfo {
  const char *name;  // Numba's name, for messages
  WarpKind kind;
};

/// Indexed by CpuWarpOp.
constexpr WarpOpInfo kWarpOps[] = {
    {"shfl_sync", WarpKind::Shfl},        {"shfl_up_sync", WarpKind::Shfl},      {"shfl_down_sync", WarpKind::Shfl},
    {"shfl_xor_sync", WarpKind::Shfl},    {"all_sync", WarpKind::Vote},          {"any_sync", WarpKind::Vote},
    {"eq_sync", WarpKind::Vote},          {"ballot_sync", WarpKind::Vote},       {"match_any_sync", WarpKind::Match},
    {"match_all_sync", WarpKind::Match},  {"syncwarp", WarpKind::SyncWarp},      {"activemask", WarpKind::ActiveMask},
};
constexpr int kWarpOpCount = static_cast<int>(std::size(kWarpOps));
static_assert(kWarpOpCount == static_cast<int>(CpuWarpOp::ActiveMask) + 1);

uint32_t lane_bit(int lane) { return uint32_t{1} << lane; }

}  // namespace

std::array<int32_t, 3> thread_coordinates(int32_t linear, const int32_t dims[3]) {
  return {linear % dims[0], linear / dims[0] % dims[1], linear / (dims[0] * dims[1])};
}

std::string compact_coordinates_text(const int32_t v[3]) {
  std::string text = "(";
  text += std::to_string(v[0]);
  text += ',';
  text += std::to_string(v[1]);
  text += ',';
  text += std::to_string(v[2]);
  text += ')';
  return text;
}

struct CpuBlockRunner::State {
  std::size_t stack_bytes = kFiberStackBytes;
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<ThreadState> threads;
  std::vector<WarpState> warps;
  // The ready queue: a ring of thread indices, each at most once.
  std::vector<int> ready;
  int ready_head = 0;
  int ready_size = 0;
  FiberContext runner_context;  // the OS thread's own, which run() resumes
  codegen::CpuThreadEntry entry = nullptr;
  void *const *params = nullptr;
  int count = 0;  // threads of the block
  int live = 0;   // threads that have not returned
  int at_barrier = 0;
  int barrier_nonzero = 0;
  std::string error;  // why the block was given up, when it was
};

namespace {

using State = CpuBlockRunner::State;

void push_ready(State &s, int thread) {
  int slot = s.ready_head + s.ready_size;
  if (slot >= s.count) {
    slot -= s.count;
  }
  s.ready[slot] = thread;
  ++s.ready_size;
}

/// The next ready thread's context, or the runner's when none is ready.
FiberContext &next_context(State &s) {
  if (s.ready_size == 0) {
    return s.runner_context;
  }
  const int thread = s.ready[s.ready_head];
  if (++s.ready_head == s.count) {
    s.ready_head = 0;
  }
  --s.ready_size;
  return s.fibers[thread]->context();
}

/// Suspends `t` until a completed barrier or collective makes it ready.
void suspend(State &s, ThreadState &t) {
  fiber_switch(s.fibers[t.index]->context(), next_context(s));
}

/// Leaves `t`'s fiber for good: its thread returned, or the block is given up.
[[noreturn]] void leave(State &s, ThreadState &t) {
  fiber_leave(s.fibers[t.index]->context(), next_context(s));
}

/// Gives up the block from the running thread `t`; s.error says why.
[[noreturn]] void give_up(State &s, ThreadState &t) {
  fiber_leave(s.fibers[t.index]->context(), s.runner_context);
}

/// Gives up the block when generated code passes an op this runner lacks
/// (code and runtime of different versions).
[[noreturn]] void give_up_unknown(State &s, ThreadState &t, const char *what, int32_t op, int32_t line) {
  s.error = "thread " + compact_coordinates_text(t.ctx.thread_idx) + " calls an unknown " + what + " (" +
            std::to_string(op) + ") at line " + std::to_string(line);
  give_up(s, t);
}

int32_t barrier_result(int32_t op, int nonzero, int arrived) {
  switch (static_cast<CpuSyncOp>(op)) {
    case CpuSyncOp::Count:
      return nonzero;
    case CpuSyncOp::And:
      return nonzero == arrived ? 1 : 0;
    case CpuSyncOp::Or:
      return nonzero > 0 ? 1 : 0;
    case CpuSyncOp::Plain:
      break;
  }
  return 0;
}

/// Every thread that has not returned waits at a barrier: all go on, the
/// running one (if any) without a switch.
void release_barrier(State &s, const ThreadState *running) {
  for (int i = 0; i < s.count; ++i) {
    ThreadState &t = s.threads[i];
    if (t.wait != Wait::Barrier) {
      continue;
    }
    t.result = static_cast<uint64_t>(barrier_result(t.op, s.barrier_nonzero, s.at_barrier));
    t.wait = Wait::Runnable;
    if (&t != running) {
      push_ready(s, i);
    }
  }
  s.at_barrier = 0;
  s.barrier_nonzero = 0;
}

int32_t block_sync(CpuThreadContext *ctx, int32_t op, int32_t value, int32_t line) {
  auto &t = *static_cast<ThreadState *>(ctx->runner);
  State &s = *t.block;
  if (op < 0 || op > static_cast<int32_t>(CpuSyncOp::Or)) {
    give_up_unknown(s, t, "barrier", op, line);
  }
  t.wait = Wait::Barrier;
  t.op = op;
  t.line = line;
  ++s.at_barrier;
  if (value != 0) {
    ++s.barrier_nonzero;
  }
  if (s.at_barrier == s.live) {
    release_barrier(s, &t);
  } else {
    suspend(s, t);
  }
  return static_cast<int32_t>(t.result);
}

/// The source lane of a shuffle, or -1 where PTX's shfl.sync (c = 31) gives
/// the caller's own value: outside the warp for up, down and xor.
int shfl_source(CpuWarpOp op, int lane, int32_t arg) {
  int64_t source = 0;
  switch (op) {
    case CpuWarpOp::ShflIdx:
      return arg & (kWarpSize - 1);
    case CpuWarpOp::ShflUp:
      source = int64_t{lane} - arg;
      break;
    case CpuWarpOp::ShflDown:
      source = int64_t{lane} + arg;
      break;
    default:
      source = int64_t{lane} ^ int64_t{arg};
      break;
  }
  return source >= 0 && source < kWarpSize ? static_cast<int>(source) : -1;
}

/// What lane `t`'s call returns at a collective of the lanes `group` (of the
/// warp whose first thread is `base`); `nonzero`: the group's lanes whose
/// value is not zero.
uint64_t warp_result(const State &s, const ThreadState &t, int base, uint32_t group, uint32_t nonzero) {
  const auto op = static_cast<CpuWarpOp>(t.op);
  switch (op) {
    case CpuWarpOp::ShflIdx:
    case CpuWarpOp::ShflUp:
    case CpuWarpOp::ShflDown:
    case CpuWarpOp::ShflXor: {
      const int source = shfl_source(op, t.index - base, t.arg);
      const bool present = source >= 0 && (group & t.mask & lane_bit(source)) != 0;
      return present ? s.threads[base + source].value : t.value;
    }
    case CpuWarpOp::VoteAll:
      return nonzero == group ? 1 : 0;
    case CpuWarpOp::VoteAny:
      return nonzero != 0 ? 1 : 0;
    case CpuWarpOp::VoteUni:
      return nonzero == 0 || nonzero == group ? 1 : 0;
    case CpuWarpOp::Ballot:
      return nonzero;
    case CpuWarpOp::MatchAny:
    case CpuWarpOp::MatchAll: {
      uint32_t same = 0;
      for (uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
        const int lane = std::countr_zero(lanes);
        if (s.threads[base + lane].value == t.value) {
          same |= lane_bit(lane);
        }
      }
      if (op == CpuWarpOp::MatchAny) {
        return same;
      }
      return same == group ? group : 0;
    }
    default:
      return 0;
  }
}

std::string disagree_message(const State &s, int base, uint32_t group, const ThreadState &caller) {
  const WarpKind kind = kWarpOps[caller.op].kind;
  for (uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const ThreadState &other = s.threads[base + std::countr_zero(lanes)];
    if (kWarpOps[other.op].kind != kind) {
      const int32_t *block = caller.ctx.block_idx;
      return "threads of block " + compact_coordinates_text(block) + " disagree at a warp collective: thread " +
             compact_coordinates_text(caller.ctx.thread_idx) + " calls " + kWarpOps[caller.op].name + " at line " +
             std::to_string(caller.line) + ", thread " + compact_coordinates_text(other.ctx.thread_idx) + " " +
             kWarpOps[other.op].name + " at line " + std::to_string(other.line);
    }
  }
  return "lanes disagree at a warp collective";
}

/// Completes the collective of `caller`'s lanes if every one of them that
/// has not returned waits at it. The others of the group go on later; the
/// running thread, if one of them, at once.
bool try_complete(State &s, int warp, const ThreadState &caller, ThreadState &running) {
  WarpState &w = s.warps[warp];
  const uint32_t group = caller.mask & w.live;
  if ((group & ~w.waiting) != 0) {
    return false;
  }
  const int base = warp * kWarpSize;
  const WarpKind kind = kWarpOps[caller.op].kind;
  bool same_kind = true;
  uint32_t nonzero = 0;
  for (uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const int lane = std::countr_zero(lanes);
    const ThreadState &t = s.threads[base + lane];
    same_kind = same_kind && kWarpOps[t.op].kind == kind;
    if (t.value != 0) {
      nonzero |= lane_bit(lane);
    }
  }
  if (!same_kind) {
    s.error = disagree_message(s, base, group, caller);
    give_up(s, running);
  }
  for (uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    ThreadState &t = s.threads[base + std::countr_zero(lanes)];
    t.result = warp_result(s, t, base, group, nonzero);
  }
  for (uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    ThreadState &t = s.threads[base + std::countr_zero(lanes)];
    t.wait = Wait::Runnable;
    if (&t != &running) {
      push_ready(s, t.index);
    }
  }
  w.waiting &= ~group;
  return true;
}

uint64_t warp_collective(CpuThreadContext *ctx, int32_t op, uint64_t value, int32_t arg, uint32_t mask, int32_t line) {
  auto &t = *static_cast<ThreadState *>(ctx->runner);
  State &s = *t.block;
  const int warp = t.index / kWarpSize;
  const int lane = t.index % kWarpSize;
  if (op == static_cast<int32_t>(CpuWarpOp::ActiveMask)) {
    return s.warps[warp].live;
  }
  if (op < 0 || op >= kWarpOpCount) {
    give_up_unknown(s, t, "warp collective", op, line);
  }
  t.wait = Wait::Warp;
  t.op = op;
  t.line = line;
  t.value = value;
  t.arg = arg;
  t.mask = mask | lane_bit(lane);
  s.warps[warp].waiting |= lane_bit(lane);
  if (!try_complete(s, warp, t, t)) {
    suspend(s, t);
  }
  return t.result;
}

/// A returned thread no longer holds back its block's barrier nor its
/// warp's collectives.
void retire(State &s, ThreadState &t) {
  t.wait = Wait::Returned;
  --s.live;
  if (s.at_barrier > 0 && s.at_barrier == s.live) {
    release_barrier(s, nullptr);
  }
  const int warp = t.index / kWarpSize;
  WarpState &w = s.warps[warp];
  w.live &= ~lane_bit(t.index % kWarpSize);
  for (uint32_t lanes = w.waiting; lanes != 0; lanes &= lanes - 1) {
    const int lane = std::countr_zero(lanes);
    if ((w.waiting & lane_bit(lane)) != 0) {
      try_complete(s, warp, s.threads[warp * kWarpSize + lane], t);
    }
  }
}

void thread_main(void *arg) {
  auto &t = *static_cast<ThreadState *>(arg);
  State &s = *t.block;
  s.entry(&t.ctx, s.params);
  retire(s, t);
  leave(s, t);
}

/// Where one waiting thread waits, for the deadlock message.
std::string wait_site(const ThreadState &t) {
  const char *what = t.wait == Wait::Barrier ? "the barrier" : kWarpOps[t.op].name;
  return std::string(what) + " of line " + std::to_string(t.line);
}

/// Names the first thread of each distinct place the threads wait at (a few).
std::string deadlock_message(const State &s) {
  constexpr int kMaxSites = 4;
  std::vector<std::string> sites;
  std::string message =
      "threads of block " + compact_coordinates_text(s.threads[0].ctx.block_idx) + " cannot proceed: ";
  for (int i = 0; i < s.count; ++i) {
    const ThreadState &t = s.threads[i];
    if (t.wait != Wait::Barrier && t.wait != Wait::Warp) {
      continue;
    }
    std::string site = wait_site(t);
    if (std::find(sites.begin(), sites.end(), site) != sites.end()) {
      continue;
    }
    if (static_cast<int>(sites.size()) == kMaxSites) {
      return message + ", ...";
    }
    message += sites.empty() ? "thread " + compact_coordinates_text(t.ctx.thread_idx) + " waits at " + site
                             : ", thread " + compact_coordinates_text(t.ctx.thread_idx) + " at " + site;
    sites.push_back(std::move(site));
  }
  return message;
}

void prepare_threads(State &s, const CpuThreadContext &block, int count) {
  for (int i = 0; i < count; ++i) {
    ThreadState &t = s.threads[i];
    t.ctx = block;
    const std::array<int32_t, 3> at = thread_coordinates(i, block.block_dim);
    std::copy(at.begin(), at.end(), t.ctx.thread_idx);
    t.ctx.sync = &block_sync;
    t.ctx.warp = &warp_collective;
    t.ctx.runner = &t;
    t.block = &s;
    t.index = i;
    t.wait = Wait::Runnable;
    s.fibers[i]->start(&thread_main, &t);
    s.ready[i] = i;
  }
  s.warps.assign((count + kWarpSize - 1) / kWarpSize, WarpState{});
  for (std::size_t w = 0; w < s.warps.size(); ++w) {
    const int lanes = std::min(kWarpSize, count - static_cast<int>(w) * kWarpSize);
    s.warps[w].live = lanes == kWarpSize ? ~uint32_t{0} : lane_bit(lanes) - 1;
  }
  s.count = count;
  s.live = count;
  s.ready_head = 0;
  s.ready_size = count;
  s.at_barrier = 0;
  s.barrier_nonzero = 0;
  s.error.clear();
}

/// The block's thread count, or -1 (and `error`) for dimensions the GPU refuses.
int block_threads(const CpuThreadContext &block, std::string &error) {
  const int32_t *dim = block.block_dim;
  if (dim[0] < 1 || dim[1] < 1 || dim[2] < 1) {
    error = "the block dimensions " + compact_coordinates_text(dim) + " must each be at least 1";
    return -1;
  }
  const int64_t count = int64_t{dim[0]} * dim[1] * dim[2];
  if (count > kMaxBlockThreads) {
    error = "a block of " + compact_coordinates_text(dim) + " threads has " + std::to_string(count) +
            ", more than the " + std::to_string(kMaxBlockThreads) + " a block may have";
    return -1;
  }
  return static_cast<int>(count);
}

}  // namespace

CpuBlockRunner::CpuBlockRunner(int max_threads, std::size_t stack_bytes) : state_(std::make_unique<State>()) {
  state_->stack_bytes = stack_bytes;
  reserve(max_threads);
}

CpuBlockRunner::~CpuBlockRunner() = default;

int CpuBlockRunner::max_threads() const {
  return static_cast<int>(state_->fibers.size());
}

bool CpuBlockRunner::reserve(int threads) {
  State &s = *state_;
  const auto wanted = static_cast<std::size_t>(std::clamp(threads, 1, kMaxBlockThreads));
  while (s.fibers.size() < wanted) {
    auto fiber = std::make_unique<Fiber>(s.stack_bytes);
    if (!fiber->ok()) {
      return false;
    }
    s.fibers.push_back(std::move(fiber));
  }
  if (s.threads.size() < s.fibers.size()) {
    s.threads.resize(s.fibers.size());
    s.ready.resize(s.fibers.size());
  }
  return true;
}

std::string CpuBlockRunner::run(const CpuThreadContext &block, codegen::CpuThreadEntry entry, void *const *params) {
  State &s = *state_;
  std::string error;
  const int count = block_threads(block, error);
  if (count < 0) {
    return error;
  }
  if (!reserve(count)) {
    return "cannot map the stacks of a block of " + std::to_string(count) + " threads (" +
           std::to_string(s.stack_bytes) + " bytes each)";
  }
  s.entry = entry;
  s.params = params;
  prepare_threads(s, block, count);
  fiber_switch(s.runner_context, next_context(s));
  if (!s.error.empty()) {
    return s.error;
  }
  if (s.live == 0) {
    return "";
  }
  return deadlock_message(s);
}

CpuBlockRunner &this_thread_block_runner(int threads) {
  thread_local std::unique_ptr<CpuBlockRunner> runner;
  if (runner == nullptr) {
    runner = std::make_unique<CpuBlockRunner>(threads);
  } else {
    runner->reserve(threads);
  }
  return *runner;
}

}  // namespace ufjit::runtime
