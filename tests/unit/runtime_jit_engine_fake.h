// A KernelToolchain without a compiler, for tests of the JIT engine and of
// HotKernels (runtime/JitEngine.h): compiles count themselves and make
// kernels numbered 1, 2, ...; loads of stored images make 1000 + the number
// the image was compiled as.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/JitEngine.h"
#include "runtime/KernelRequest.h"
#include "ufjit/errors.h"

namespace ufjit::runtime::testing {

struct FakeKernel : CompiledKernel {
  explicit FakeKernel(int v) : value(v) {}
  int value;
};

class FakeToolchain : public KernelToolchain {
 public:
  const std::string &target_key() const override { return target_key_; }
  const std::string &arch() const override { return arch_; }

  BuiltKernel compile(const KernelRequest &request, codegen::PtxTier tier) override {
    if (before_compile) {
      before_compile(request, tier);
    }
    if (fail_optimised && tier == codegen::PtxTier::Optimized) {
      throw CompileError("the optimised compile of " + request.entry_name() + " failed", {});
    }
    const int number = ++compiles;
    if (tier == codegen::PtxTier::Quick) {
      ++quick_compiles;
    }
    BuiltKernel built;
    built.kernel = std::make_shared<FakeKernel>(number);
    built.image = with_disk ? std::to_string(number) : std::string();
    return built;
  }
  bool can_compile_quick(const KernelRequest &) const override { return quick; }
  std::optional<cache::DiskCacheKey> disk_key(const KernelRequest &request) const override {
    if (!with_disk) {
      return std::nullopt;
    }
    cache::DiskCacheKey key;
    key.ir = "fake code " + std::to_string(request.signature->ir_hash);
    key.entry = request.entry_name();
    key.arch = arch_;
    return key;
  }
  std::shared_ptr<CompiledKernel> load(const std::string &image, const KernelRequest &) override {
    ++loads;
    if (reject_loads) {
      throw DeviceError("the driver rejects this image");
    }
    return std::make_shared<FakeKernel>(1000 + std::stoi(image));
  }
  void note_stored(const KernelRequest &, const cache::KeyHash &, bool) override { ++notes; }

  bool quick = false;
  bool with_disk = false;
  bool fail_optimised = false;
  bool reject_loads = false;
  std::function<void(const KernelRequest &, codegen::PtxTier)> before_compile;
  std::atomic<int> compiles{0};
  std::atomic<int> quick_compiles{0};
  std::atomic<int> loads{0};
  std::atomic<int> notes{0};

 private:
  std::string target_key_ = "fake-target";
  std::string arch_ = "fake-arch";
};

/// A signature with the hashes HotKernels and the keys read.
inline CompiledSignature signature_with_hashes(uint64_t ir_hash, uint64_t name_hash) {
  CompiledSignature s;
  s.ir_hash = ir_hash;
  s.base_name_hash = name_hash;
  s.base_name = "f" + std::to_string(ir_hash) + "_" + std::to_string(name_hash);
  s.signature = "float32(float32)";
  return s;
}

}  // namespace ufjit::runtime::testing
