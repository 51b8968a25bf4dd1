// The preparation steps of the ufunc methods (runtime/Methods.h): operand
// and signature checks, NumPy's dtype=/out=/where= rules, and the moves of
// operands into the backend's compute memory. Internal to the runtime.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "runtime/Methods.h"

namespace ufjit::runtime::methods {

/// A one-element host value of `dtype` that run_call reads as a scalar.
struct HostValue {
  alignas(16) std::array<uint8_t, 16> bytes{};
  ArrayView view(DType dtype) const;
};

/// `a` as an array view (validated), or InputError for a scalar, out(...),
/// or device memory on the CPU target.
const ArrayView &array_operand(const MethodTarget &t, const Operand &a, const char *method);

/// The (T, T) -> T signature of a method call (NumPy's rules): T == `dtype`
/// when given (DispatchError when the ufunc has no such signature), else
/// dispatch on (out, a) when `out` is given, else on (a, a).
const CompiledSignature &method_signature(const MethodTarget &t, DType a, const std::optional<DType> &dtype,
                                          const std::optional<Out> &out, const char *method);

/// The axis `axis` of an array of `ndim` dims, negative counting from the end.
int normalize_axis(int axis, int ndim);

/// `v` with dims in the order `order` (shape[i] = v.shape[order[i]]).
ArrayView permute(const ArrayView &v, const std::vector<int> &order);

/// Host for the CPU target, device for CUDA.
Residence compute_memory(const MethodTarget &t);

Array allocate(const MethodTarget &t, DType dtype, const std::vector<int64_t> &shape, Residence where);

/// dst = src converted to dst's dtype (same shape, any memory and strides);
/// NumPy's unsafe casting.
void convert_into(const MethodTarget &t, const ArrayView &src, const ArrayView &dst);

/// Every element of `dst` = `value` (of dtype `value_dtype`).
void fill(const MethodTarget &t, const HostValue &value, DType value_dtype, const ArrayView &dst);

/// `v` as a C-contiguous array of `dtype` in the backend's memory: `v`
/// itself when it is one, else a converted copy kept in `keep`.
const void *compute_input(const MethodTarget &t, const ArrayView &v, DType dtype, Array &keep);

/// The result array: `computed` (in the backend's memory) moved where the
/// caller wants it: into `out` (converted to its dtype), or to the host for
/// a host operand.
Array deliver(const MethodTarget &t, Array computed, const ArrayView &computed_view, Residence wanted,
              const std::optional<Out> &out);

/// NumPy's checks of `out` for a result of `shape`: dims, then shape; the
/// memory the target can use. Any dtype (cast into, as NumPy).
void check_out(const MethodTarget &t, const std::optional<Out> &out, const std::vector<int64_t> &shape,
               const char *method);

/// The identity of the ufunc as a value of `type`; nullopt without one
/// (Identity::None and Reorderable).
std::optional<HostValue> identity_value(const MethodTarget &t, DType type);

/// `where` checked (bool, memory the target can use) and broadcast to `shape`.
ArrayView where_mask(const MethodTarget &t, const ArrayView &where, const std::vector<int64_t> &shape);

/// A masked reduction (ReduceOptions::where) of `a` and `mask` (views of
/// one shape: the kept dims, then the `reduced` reduced ones) into
/// `computed` (rows elements, compute memory): rows of len + 1 elements
/// whose first element is `start` (taken) and the rest a's (taken where the
/// mask is true), one launch of the ReduceWhere entry.
void run_masked_reduce(const MethodTarget &t, const CompiledSignature &sig, const ArrayView &a,
                       const ArrayView &mask, int reduced, const HostValue &start, Array &computed);

std::string identity_name(Identity identity);

}  // namespace ufjit::runtime::methods
