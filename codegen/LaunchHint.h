// An entry's launch hint: how a GPU entry wants its grid sized (issue 13
// item 4), stated by code generation beside the kernel ABI of
// codegen/kernel/KernelABI.h and carried inside the compiled module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ufjit::codegen {

/// How a GPU entry wants to be launched: stated by code generation per
/// entry (codegen/kernel/KernelGpu.cpp picks it with the loop shape it emits),
/// applied by the one place that owns launch configuration
/// (runtime/cuda/LaunchConfig.cpp). elements_per_thread > 0: a full grid,
/// ceil(n / (block * elements_per_thread)) blocks, so that each thread takes
/// one group (16-byte vectors: CuPy's one-thread-per-element grid); 0: the
/// grid capped at a few resident waves, each thread looping (lane groups,
/// strided and gufunc entries, and any entry without a hint: CUDA C++ ones).
struct LaunchHint {
  uint32_t elements_per_thread = 0;
  bool operator==(const LaunchHint &o) const { return elements_per_thread == o.elements_per_thread; }
};

/// The hint travels inside the compiled module (PTX, cubin, disk cache,
/// `ufjit compile` output) as the byte array `.global .b8
/// <entry>__launch[elements_per_thread + 1]`: its SIZE is the value plus one
/// (PTX has no empty arrays), so the runtime reads it with cuModuleGetGlobal
/// and no copy. Every entry ufjit builds has one (KernelEntry.h's
/// mark_ptx_kernel); CUDA C++ entries have none, and the runtime does not ask.
std::string launch_hint_symbol(const std::string &entry);
/// The size of the hint's byte array, and the hint a size stands for.
uint32_t launch_hint_bytes(const LaunchHint &hint);
LaunchHint launch_hint_of_bytes(std::size_t bytes);
/// The hint of `entry` in PTX text (the manifest writer's reading of it).
LaunchHint launch_hint_in_ptx(const std::string &ptx, const std::string &entry);

}  // namespace ufjit::codegen
