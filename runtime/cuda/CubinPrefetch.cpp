// Cubins loaded while their source is typed (runtime/cuda/CubinPrefetch.h).
#include "runtime/cuda/CubinPrefetch.h"

#include <exception>
#include <iostream>
#include <optional>
#include <vector>

#include "runtime/cache/SourceIndex.h"
#include "runtime/cuda/KernelKeys.h"
#include "driver/Pipeline.h"
#include "support/Milliseconds.h"
#include "support/Settings.h"

namespace ufjit::cuda {

namespace {

runtime::PrefetchKey prefetch_key(const runtime::SourceKey &source) { return {source.low, source.high}; }

/// A loaded kernel is handed over for its cubin AND entry name: an index
/// pairing a cubin with another of its functions is never believed.
runtime::PrefetchKey prefetch_key(const cache::KeyHash &cubin, const std::string &entry) {
  const cache::KeyHash both = cache::hash_bytes(cubin.hex() + " " + entry);
  return {both.low, both.high};
}

}  // namespace

CubinPrefetch::CubinPrefetch(std::shared_ptr<const CudaContext> context, cache::DiskCache &disk,
                             const codegen::GpuOptions &gpu, TierUp &worker)
    : context_(std::move(context)), disk_(disk), gpu_(gpu), worker_(worker) {
  enabled_ = support::read_switch("UFJIT_PREFETCH", true);
}

cache::KeyHash CubinPrefetch::index_key(const runtime::SourceKey &source) const {
  return cache::hash_key(source_index_key(source, *context_, gpu_));
}

void CubinPrefetch::start(const runtime::SourceKey &source) {
  if (!enabled_ || source.empty() || !disk_.enabled() || !kernels_.expect(prefetch_key(source))) {
    return;
  }
  worker_.submit([this, source, queued = Clock::now()] { load_listed(source, queued); });
}

void CubinPrefetch::load_listed(const runtime::SourceKey &source, Clock::time_point queued) {
  const Clock::time_point started = Clock::now();
  if (!kernels_.begin(prefetch_key(source))) {
    return;  // a first call came before this job started and loaded its kernel itself
  }
  std::vector<cache::IndexedCubin> cubins;
  try {
    if (std::optional<std::string> text = disk_.load(index_key(source))) {
      cubins = cache::parse_source_index(*text);
    }
  } catch (const std::exception &) {
    cubins.clear();  // out of memory: no prefetch, and listed() below still releases a waiting build()
  }
  std::vector<runtime::PrefetchKey> keys;
  keys.reserve(cubins.size());
  for (const cache::IndexedCubin &cubin : cubins) {
    keys.push_back(prefetch_key(cubin.key, cubin.entry));
  }
  const std::vector<runtime::PrefetchKey> to_load = kernels_.listed(prefetch_key(source), keys);
  const Clock::time_point read = Clock::now();
  for (const cache::IndexedCubin &cubin : cubins) {
    const runtime::PrefetchKey key = prefetch_key(cubin.key, cubin.entry);
    if (!kernels_.claim(key)) {
      continue;  // not queued by listed(), or taken over by a first call
    }
    std::shared_ptr<CudaKernel> kernel;
    try {
      if (std::optional<std::string> image = disk_.load(cubin.key)) {
        kernel = load_kernel(context_, *image, cubin.entry, HintSource::InModule);
      }
    } catch (const std::exception &) {
      kernel = nullptr;  // rejected by the driver: the first call reads it, fails too, and recompiles
    }
    kernels_.finish(key, std::move(kernel));
  }
  if (support::debug_level() >= 1 && !cubins.empty()) {
    const auto ms = support::milliseconds_between;
    std::cerr << "ufjit: prefetch: started " << ms(queued, started) << " ms after vectorize, index of "
              << cubins.size() << " cubin" << (cubins.size() == 1 ? "" : "s") << " read in " << ms(started, read)
              << " ms, " << to_load.size() << " loaded in " << support::milliseconds_since(read) << " ms\n";
  }
}

std::shared_ptr<CudaKernel> CubinPrefetch::take(const runtime::SourceKey &source, const cache::KeyHash &key,
                                                const std::string &entry) {
  return kernels_.take(prefetch_key(source), prefetch_key(key, entry));
}

void CubinPrefetch::note(const runtime::SourceKey &source, const cache::KeyHash &key, const std::string &entry) {
  if (source.empty() || !disk_.enabled()) {
    return;
  }
  worker_.submit([this, source, key, entry] { note_here(source, key, entry); });
}

void CubinPrefetch::note_here(const runtime::SourceKey &source, const cache::KeyHash &key, const std::string &entry) {
  if (source.empty() || !disk_.enabled()) {
    return;
  }
  try {
    const cache::KeyHash index = index_key(source);
    const std::optional<std::string> text = disk_.load(index);
    if (std::optional<std::string> updated = cache::add_to_source_index(text ? *text : "", {key, entry})) {
      disk_.store_in_background(index, "source index " + entry + " " + context_->properties().arch(), *updated);
    }
  } catch (const std::exception &) {
    // Only the next process's prefetch is lost.
  }
}

}  // namespace ufjit::cuda
