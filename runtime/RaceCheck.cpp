// The race checker (runtime/RaceCheck.h).
#include "runtime/RaceCheck.h"

#include <algorithm>
#include <vector>

#include "codegen/kernel/KernelCheck.h"
#include "runtime/CpuBlockRunner.h"
#include "runtime/KernelErrors.h"

namespace ufjit::runtime {

using codegen::CpuAccessKind;
using codegen::CpuThreadContext;

namespace {

constexpr int kWarpSize = 32;

/// A thread's place between the block's barriers: barriers it reached, and
/// barriers and syncwarps it reached (which order it against its warp).
struct Clock {
  int32_t epoch = 0;
  int32_t warp_epoch = 0;
};

/// One access of a shared byte.
struct Access {
  int32_t thread = -1;  // linear index in the block; -1: none
  Clock clock;
  int32_t line = 0;
  bool write = false;
};

struct ByteShadow {
  Access writer;
  Access readers[2];  // readers since the last write, two threads at most
};

struct Checker {
  bool active = false;
  uintptr_t shared = 0;
  int64_t static_bytes = 0;
  uintptr_t dynamic = 0;
  int64_t dynamic_bytes = 0;
  int32_t dims[3] = {1, 1, 1};
  int32_t block[3] = {0, 0, 0};
  std::vector<ByteShadow> bytes;  // static shared memory, then dynamic
  std::vector<Clock> clocks;      // per thread
  std::string race;               // the block's first race
};

/// The calling OS thread's checker: a block's fibers all run on it.
Checker &this_thread_checker() {
  thread_local Checker checker;
  return checker;
}

/// Whether `a`, by another thread, and an access by `thread` at `now` are
/// unordered: no barrier between them, nor a syncwarp within one warp.
/// (Threads reach barriers in step, and a thread counts one when it
/// arrives, so only accesses of the same epoch can be unordered.)
bool unordered(const Access &a, int32_t thread, const Clock &now) {
  if (a.thread < 0 || a.thread == thread || a.clock.epoch != now.epoch) return false;
  return a.thread / kWarpSize != thread / kWarpSize || a.clock.warp_epoch == now.warp_epoch;
}

std::string thread_coords(const Checker &c, int32_t thread) {
  return coordinates_text(thread_coordinates(thread, c.dims).data());
}

std::string describe(const Checker &c, const Access &a) {
  return "thread " + thread_coords(c, a.thread) + (a.write ? " writes" : " reads") + " it at line " +
         std::to_string(a.line);
}

void record_race(Checker &c, const Access &earlier, const Access &now, int64_t byte) {
  const bool dynamic = byte >= c.static_bytes;
  const int64_t offset = dynamic ? byte - c.static_bytes : byte;
  c.race = std::string("data race on shared memory, byte ") + std::to_string(offset) + " of the block's " +
           (dynamic ? "dynamic" : "static") + " shared memory: " + describe(c, earlier) + ", " + describe(c, now) +
           ", with no barrier between them (block " + coordinates_text(c.block) + ")";
}

/// Checks and records one access of shared byte `byte`; false after a race.
bool check_byte(Checker &c, ByteShadow &b, const Access &now, int64_t byte) {
  if (unordered(b.writer, now.thread, now.clock)) {
    record_race(c, b.writer, now, byte);
    return false;
  }
  if (now.write) {
    for (const Access &r : b.readers) {
      if (unordered(r, now.thread, now.clock)) {
        record_race(c, r, now, byte);
        return false;
      }
    }
    b.writer = now;
    b.readers[0] = Access{};
    b.readers[1] = Access{};
    return true;
  }
  // Two readers of this epoch, other than each other, are enough: any
  // later writer differs from one of them.
  for (Access &r : b.readers) {
    if (r.thread < 0 || r.thread == now.thread || r.clock.epoch != now.clock.epoch) {
      r = now;
      return true;
    }
  }
  return true;
}

/// The byte of the shadow that `address` is, or -1 outside shared memory.
int64_t shadow_byte(const Checker &c, uintptr_t address) {
  if (address >= c.shared && address < c.shared + static_cast<uint64_t>(c.static_bytes)) {
    return static_cast<int64_t>(address - c.shared);
  }
  if (address >= c.dynamic && address < c.dynamic + static_cast<uint64_t>(c.dynamic_bytes)) {
    return c.static_bytes + static_cast<int64_t>(address - c.dynamic);
  }
  return -1;
}

}  // namespace

void race_check_begin_block(const CpuThreadContext &block, int64_t static_bytes) {
  Checker &c = this_thread_checker();
  c.active = true;
  c.shared = reinterpret_cast<uintptr_t>(block.shared);
  c.static_bytes = block.shared != nullptr ? static_bytes : 0;
  c.dynamic = reinterpret_cast<uintptr_t>(block.dynamic_shared);
  c.dynamic_bytes = block.dynamic_shared != nullptr ? block.dynamic_shared_bytes : 0;
  for (int axis = 0; axis < 3; ++axis) {
    c.dims[axis] = block.block_dim[axis];
    c.block[axis] = block.block_idx[axis];
  }
  c.bytes.assign(static_cast<std::size_t>(c.static_bytes + c.dynamic_bytes), ByteShadow{});
  c.clocks.assign(static_cast<std::size_t>(c.dims[0]) * c.dims[1] * c.dims[2], Clock{});
  c.race.clear();
}

std::string race_check_end_block() {
  Checker &c = this_thread_checker();
  c.active = false;
  return std::move(c.race);
}

void race_check_access(CpuThreadContext *ctx, const void *address, int64_t bytes, int32_t kind, int32_t line) {
  Checker &c = this_thread_checker();
  if (!c.active) return;
  const int32_t thread = ctx->thread_idx[0] + c.dims[0] * (ctx->thread_idx[1] + c.dims[1] * ctx->thread_idx[2]);
  Clock &clock = c.clocks[static_cast<std::size_t>(thread)];
  if (kind == static_cast<int32_t>(CpuAccessKind::Barrier)) {
    ++clock.epoch;
    ++clock.warp_epoch;
    return;
  }
  if (kind == static_cast<int32_t>(CpuAccessKind::WarpSync)) {
    ++clock.warp_epoch;
    return;
  }
  const int64_t first = shadow_byte(c, reinterpret_cast<uintptr_t>(address));
  if (first < 0 || !c.race.empty()) return;
  const Access now{thread, clock, line, kind == static_cast<int32_t>(CpuAccessKind::Write)};
  const auto end = std::min<int64_t>(first + bytes, static_cast<int64_t>(c.bytes.size()));
  for (int64_t byte = first; byte < end; ++byte) {
    if (!check_byte(c, c.bytes[static_cast<std::size_t>(byte)], now, byte)) return;
  }
}

}  // namespace ufjit::runtime
