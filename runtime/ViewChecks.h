// Checks of caller-supplied array views at the call boundary, and the
// byte-level questions the call path asks about them (extent, overlap).
//
// A view reaches a kernel only after validate_view: its dims are
// non-negative, its element count, byte size and byte extent fit in int64
// without wrapping the address space, its data pointer is non-null when it
// has elements, and its data pointer and strides are multiples of the
// element's alignment (kernels load elements with natural alignment).
// Arithmetic here never overflows: every product and sum is checked.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ufjit/array.h"
#include "ufjit/runtime.h"
#include "ufjit/target.h"

namespace ufjit::runtime {

class Backend;

/// The byte range [lo, hi) that a view's elements touch, relative to its
/// data pointer (lo <= 0 < hi for a non-empty view; {0, 0} for an empty one).
struct ByteExtent {
  int64_t lo = 0;
  int64_t hi = 0;
};

/// The byte extent of a view whose shape and strides have one entry per
/// dim. Throws ShapeError when it does not fit in int64.
ByteExtent byte_extent(const ArrayView &v);

/// Whether the bytes [address + extent.lo, address + extent.hi) lie inside
/// the address space (validate_view's range check).
inline bool extent_fits_address_space(uintptr_t address, const ByteExtent &extent) {
  uintptr_t end = 0;
  return address >= static_cast<uintptr_t>(-extent.lo) &&
         !__builtin_add_overflow(address, static_cast<uintptr_t>(extent.hi), &end);
}

/// Whether two such byte ranges, each inside the address space, intersect
/// (may_overlap's test on non-empty extents).
inline bool extents_meet(uintptr_t a, const ByteExtent &ea, uintptr_t b, const ByteExtent &eb) {
  return a - static_cast<uintptr_t>(-ea.lo) < b + static_cast<uintptr_t>(eb.hi) &&
         b - static_cast<uintptr_t>(-eb.lo) < a + static_cast<uintptr_t>(ea.hi);
}

/// The bytes of `shape` elements of `dtype` (allocation size). Throws
/// ShapeError for a negative dim or when the size does not fit in int64.
int64_t checked_bytes(DType dtype, const Dims &shape);

/// The alignment (bytes) a kernel assumes for an element: its size, or the
/// size of one component for complex dtypes.
std::size_t element_alignment(DType dtype);

/// A callable that words an error's subject ("input 1 of 'f'"), called only
/// when there is an error. A reference, not a std::function: a capturing
/// lambda in a std::function is a heap allocation on every call.
class LabelRef {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, LabelRef> &&
                                                    !std::is_function_v<F>>>
  LabelRef(const F &f)  // NOLINT: implicit, as std::function's
      : object_(&f), call_([](const void *o) -> std::string { return (*static_cast<const F *>(o))(); }) {}
  /// A plain function.
  LabelRef(std::string (*fn)())  // NOLINT: implicit, as std::function's
      : function_(fn) {}
  std::string operator()() const { return function_ != nullptr ? function_() : call_(object_); }

 private:
  const void *object_ = nullptr;
  std::string (*call_)(const void *) = nullptr;
  std::string (*function_)() = nullptr;
};

/// Rejects a malformed view (see the top of this file): ShapeError for
/// shapes, strides and extents, InputError for a null or misaligned data
/// pointer or misaligned strides. `label` words the error ("input 1 of
/// 'f'") and is called only when there is one.
void validate_view(const ArrayView &v, LabelRef label);

/// Refuses memory `backend` cannot use, before anything runs: device memory
/// on the CPU target, and device memory of another GPU than the backend's
/// unless it has peer access to it (an array of another would be read
/// through the wrong context; runtime/DevicePlacement.h chooses the device
/// first). InputError naming `label()` and the fix.
void check_usable_memory(const Backend &backend, const ArrayView &view, LabelRef label);

/// Whether a value held by one of the public API's enums (an integer type
/// that can hold more than its enumerators: a deserialised or cast value)
/// is one of them. Every enum is checked where it enters, so that nothing
/// past the entry indexes a table with it.
bool is_dtype(DType t);
/// InputError naming `label()`, the value and what the enum takes, unless
/// the value is one of the enumerators.
void check_dtype(DType t, LabelRef label);
void check_target(TargetKind t, LabelRef label);
/// A scalar operand: its dtype, and a weak one's (bool, int64, uint64,
/// float64 or complex128: what C++ arithmetic values become).
void check_scalar(const Scalar &s, LabelRef label);
/// An operand's kind.
void check_operand_kind(Operand::Kind kind, LabelRef label);
/// Every field of RuntimeOptions (target, device, cpu_threads).
void check_runtime_options(const RuntimeOptions &options);

/// Refuses a view the call would write whose memory is read-only
/// (ArrayView::read_only: a view of const data): InputError naming
/// `label()`, before anything runs.
void check_writable(const ArrayView &v, LabelRef label);

/// Whether two validated views in the same memory space may share a byte
/// (their byte ranges intersect). Conservative: interleaved views with
/// disjoint elements also count as overlapping.
bool may_overlap(const ArrayView &a, const ArrayView &b);

/// Whether two views denote exactly the same elements in the same order:
/// same data pointer, shape and strides (strides of size-1 dims ignored).
bool same_elements(const ArrayView &a, const ArrayView &b);

}  // namespace ufjit::runtime
