// The CPU target's part of the JIT engine (runtime/JitEngine.h): a request
// becomes host code through codegen::CpuCompiler (LLVM's ORC JIT, for the
// host CPU's features). No disk cache and no tiering: host code is compiled
// optimised at once.
#pragma once

#include <string>

#include "codegen/Codegen.h"
#include "runtime/JitEngine.h"

namespace ufjit::runtime {

/// A compiled CPU entry (codegen/kernel/KernelABI.h's ABI): elementwise,
/// gufunc or method.
struct CpuKernel : CompiledKernel {
  explicit CpuKernel(codegen::CpuEntry e) : entry(e) {}
  codegen::CpuEntry entry;
};

class CpuToolchain final : public KernelToolchain {
 public:
  /// Backend::key() of the CPU target: "cpu-" and the host's description.
  CpuToolchain();

  const std::string &target_key() const override { return target_key_; }
  const std::string &arch() const override { return arch_; }
  BuiltKernel compile(const KernelRequest &request, codegen::PtxTier tier) override;
  /// Whether the host CPU has streaming (non-temporal) stores.
  bool has_streaming_stores() const { return compiler_.has_streaming_stores(); }

 private:
  codegen::CpuCompiler compiler_;
  std::string target_key_;
  std::string arch_ = "host";
};

}  // namespace ufjit::runtime
