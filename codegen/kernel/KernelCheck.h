// The checking mode of explicit kernels (ir::Module::checked: `debug=True`,
// UFJIT_CHECK=1, LaunchConfig::check) on the CPU target: the contract
// between the code generated for a checked kernel (codegen/lower/), which
// records a failed bounds check's details and reports every array access
// and barrier, and the runtime (runtime/CpuKernels.cpp,
// runtime/RaceCheck.h), which reads the record and finds the races.
//
// A checked kernel's error flag (codegen/kernel/KernelABI.h) points at a
// KernelCheckRecord instead of a bare uint32: its first field is the flag
// itself, so the raise protocol is unchanged; the thread that stores the
// site also stores its coordinates and the raise's values (a boundscheck's
// index and extent) after it. `access` is called, on the CPU only, before
// every array load and store that is not atomic, with the element's address
// and bytes, and at every barrier and syncwarp (address null): the runtime
// keeps a shadow of the block's shared memory and reports two threads that
// touch the same byte between two barriers, at least one writing. On the
// GPU the flag stays a uint32 and only the site is stored: the bounds are
// checked there too, races are compute-sanitizer's business.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codegen/kernel/CpuKernelContext.h"

namespace ufjit::codegen {

/// What a call of CpuAccessFn reports.
enum class CpuAccessKind : int32_t { Read = 0, Write = 1, Barrier = 2, WarpSync = 3 };

/// Called by a checked kernel's thread for each access (kind Read/Write,
/// `bytes` at `address`) and before each barrier or syncwarp (address null).
/// `line`: the source line.
using CpuAccessFn = void (*)(CpuThreadContext *ctx, const void *address, int64_t bytes, int32_t kind, int32_t line);

/// Plain C layout: generated code addresses it by the offsets below.
struct KernelCheckRecord {
  uint32_t site;          // the error flag: 0, or the first raise's site
  int32_t thread_idx[3];  // the raising thread's coordinates (CPU)
  int32_t block_idx[3];
  int32_t unused;
  int64_t values[2];   // the raise's values (ir::Raise::values)
  CpuAccessFn access;  // the runtime's race checker (CPU)
};

inline constexpr std::size_t kCheckThreadIdx = 4;
inline constexpr std::size_t kCheckBlockIdx = 16;
inline constexpr std::size_t kCheckValues = 32;
inline constexpr std::size_t kCheckAccess = 48;
static_assert(offsetof(KernelCheckRecord, site) == 0);
static_assert(offsetof(KernelCheckRecord, thread_idx) == kCheckThreadIdx);
static_assert(offsetof(KernelCheckRecord, block_idx) == kCheckBlockIdx);
static_assert(offsetof(KernelCheckRecord, values) == kCheckValues);
static_assert(offsetof(KernelCheckRecord, access) == kCheckAccess);

}  // namespace ufjit::codegen
