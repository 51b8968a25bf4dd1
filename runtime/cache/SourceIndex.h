// Which cubins a source's ufuncs ran with: the disk cache's source indexes.
//
// A disk cache key needs the typed IR (DiskCache.h), so a process with a
// warm disk cache could only read and load a kernel after the frontend had
// typed its source: the two ran one after the other in every first call.
// A source index is one more cache entry, keyed by the source text, its
// signatures and options (SourceKey) instead of the IR: it lists the
// cubins (key hash and entry name) that ufuncs of that source were built
// with. `vectorize` hands the source key to the CUDA backend, which reads
// the index and loads the cubins it names on its worker thread while the
// caller types the source (KernelPrefetch.h). The index is a hint only: a
// prefetched kernel is used when its cubin key, computed from the typed IR
// as always, is the one the call needs, and a stale, lost or corrupt index
// costs a wasted load, never a wrong kernel.
//
// Text format, one cubin per line, newest last: "<32 hex digits> <entry>".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cache/DiskCache.h"

namespace ufjit::cache {

/// The most cubins an index remembers (the oldest go first): a source of a
/// few signatures and kernel variants fits; a prefetch stays bounded.
inline constexpr std::size_t kSourceIndexEntries = 32;

struct IndexedCubin {
  KeyHash key;
  std::string entry;  // codegen::entry_name: the kernel function in the cubin
};

/// The cubins of an index's text, oldest first. Lines that do not parse
/// are skipped.
std::vector<IndexedCubin> parse_source_index(std::string_view text);

/// `text` with `cubin` added at the end, the oldest lines dropped beyond
/// kSourceIndexEntries; nothing when `text` already lists `cubin` (so that a
/// process which finds its kernels listed writes nothing).
std::optional<std::string> add_to_source_index(std::string_view text, const IndexedCubin &cubin);

}  // namespace ufjit::cache
