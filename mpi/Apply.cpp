// Ufuncs, generalized ufuncs and their methods on distributed arrays
// (ufjit/mpi.h): each rank works on its own rows; reductions and
// accumulations along the split axis combine the ranks' partial results
// with the ufunc itself, in rank order.
#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

#include "MpiUtil.h"
#include "ufjit/mpi.h"

namespace ufjit::mpi {
namespace {

/// The number of core dimensions of each input in a gufunc layout
/// ("(m,n),(n)->(m)" gives 2, 1).
std::vector<int> input_core_dims(const std::string &layout) {
  std::vector<int> dims;
  const std::string inputs = layout.substr(0, layout.find("->"));
  for (std::size_t open = inputs.find('('); open != std::string::npos; open = inputs.find('(', open + 1)) {
    const std::size_t close = inputs.find(')', open);
    const std::string names = inputs.substr(open + 1, close - open - 1);
    int count = names.find_first_not_of(' ') == std::string::npos ? 0 : 1;
    for (const char c : names) {
      count += c == ',' ? 1 : 0;
    }
    dims.push_back(count);
  }
  return dims;
}

/// Checks that the distributed operands share a communicator and are the
/// ones plan_split splits, and that the whole operands broadcast along the
/// split dimension.
void check_split(const Ufunc &ufunc, const std::vector<DistOperand> &operands) {
  std::vector<std::optional<Dims>> shapes;
  const DistArray *first = nullptr;
  for (const DistOperand &operand : operands) {
    if (operand.operand.kind == Operand::Kind::Out) {
      throw InputError("mpi::apply makes its outputs; give no out(...) operand");
    }
    if (operand.split != nullptr) {
      first = first ? first : operand.split;
      shapes.emplace_back(operand.split->shape());
    } else if (operand.operand.kind == Operand::Kind::Array) {
      shapes.emplace_back(operand.operand.array.shape);
    } else {
      shapes.emplace_back();
    }
  }
  if (first == nullptr) {
    throw InputError("mpi::apply needs at least one DistArray operand to split the call");
  }
  const CallSplit plan = plan_split(ufunc, shapes);
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const std::string name = "operand " + std::to_string(k);
    if (const DistArray *split = operands[k].split) {
      if (split->comm() != first->comm()) {
        throw InputError("mpi::apply: the DistArray operands must share one communicator");
      }
      if (!plan.split[k]) {
        throw ShapeError(name + " (" + describe(split->dtype(), split->shape()) +
                         ") is split on a dimension that is not the call's outer loop dimension");
      }
    } else if (plan.split[k] && (*shapes[k])[0] != 1) {
      throw ShapeError(name + " (" + operands[k].operand.array.describe() +
                       ", held whole) does not broadcast " + "along the split outer dimension of " +
                       std::to_string(plan.rows) +
                       " rows: give it as a DistArray, or with an outer extent of 1");
    }
  }
}

/// Every rank's bytes of `mine` (possibly none), concatenated in rank order
/// on every rank, with each rank's byte count.
std::vector<char> all_gather_bytes(MPI_Comm comm, const void *mine, int64_t bytes, std::vector<int> &counts) {
  const std::vector<int64_t> sizes = all_gather(comm, bytes);
  counts.assign(sizes.size(), 0);
  std::vector<int> displacements(sizes.size(), 0);
  int64_t total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    if (total + sizes[r] > INT_MAX) {
      throw_agreed(
          std::make_exception_ptr(ShapeError("the ranks' partial results are too large to combine")));
    }
    counts[r] = static_cast<int>(sizes[r]);
    displacements[r] = static_cast<int>(total);
    total += sizes[r];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine, static_cast<int>(bytes), MPI_BYTE, all.data(), counts.data(), displacements.data(),
                 MPI_BYTE, comm);
  return all;
}

/// The dtype and shape of `partial` on the lowest rank that has one
/// (`holder`), sent to every rank.
void broadcast_layout(MPI_Comm comm, int holder, DType &dtype, Dims &shape) {
  int64_t header[2] = {static_cast<int64_t>(dtype), static_cast<int64_t>(shape.size())};
  MPI_Bcast(header, 2, MPI_INT64_T, holder, comm);
  dtype = static_cast<DType>(header[0]);
  shape.resize(static_cast<std::size_t>(header[1]));
  if (header[1] > 0) {
    MPI_Bcast(shape.data(), static_cast<int>(header[1]), MPI_INT64_T, holder, comm);
  }
}

/// Folds every rank's `partial` (a null one stands for a rank without data)
/// with `ufunc` in rank order, on every rank: the combine step of reduce and
/// of accumulate's scan. `upto` ranks take part (accumulate: the ranks
/// before this one). Returns an empty Array when no rank had data.
Array fold_partials(const Ufunc &ufunc, MPI_Comm comm, const Array &partial, int upto) {
  const int64_t bytes =
      partial.empty_handle() ? 0 : partial.size() * static_cast<int64_t>(dtype_size(partial.dtype()));
  const std::vector<int64_t> has = all_gather(comm, partial.empty_handle() ? 0 : 1);
  int holder = -1;
  for (std::size_t r = 0; r < has.size() && holder < 0; ++r) {
    holder = has[r] != 0 ? static_cast<int>(r) : -1;
  }
  if (holder < 0) {
    return Array();
  }
  DType dtype = partial.empty_handle() ? DType::Float64 : partial.dtype();
  Dims shape = partial.empty_handle() ? Dims() : partial.shape();
  broadcast_layout(comm, holder, dtype, shape);
  std::vector<int> counts;
  std::vector<char> all =
      all_gather_bytes(comm, partial.empty_handle() ? nullptr : partial.data(), bytes, counts);
  Array acc;
  agree(comm, [&] {
    char *at = all.data();
    for (int r = 0; r < upto; ++r) {
      if (has[static_cast<std::size_t>(r)] == 0) {
        continue;
      }
      const ArrayView view = c_view(at, dtype, shape);
      if (acc.empty_handle()) {
        // An owning copy: the gathered bytes do not outlive this call.
        acc = Array::host(dtype, std::vector<int64_t>(shape.begin(), shape.end()));
        std::memcpy(acc.data(), at, static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
      } else {
        acc = ufunc(acc.view(), view);
      }
      at += counts[static_cast<std::size_t>(r)];
    }
  });
  return acc;
}

/// The reduced axes of an `ndim`-dimensional array, normalised, or throws.
std::vector<int> reduced_axes(const ReduceOptions &options, int ndim) {
  std::vector<int> axes;
  if (options.all_axes) {
    for (int i = 0; i < ndim; ++i) {
      axes.push_back(i);
    }
    return axes;
  }
  if (options.axes.empty()) {
    return {0};
  }
  for (const int axis : options.axes) {
    if (axis < -ndim || axis >= ndim) {
      throw ShapeError("axis " + std::to_string(axis) + " is out of bounds for an array of " +
                       std::to_string(ndim) + " dimensions");
    }
    axes.push_back(axis < 0 ? axis + ndim : axis);
  }
  return axes;
}

bool reduces_axis0(const ReduceOptions &options, const DistArray &a) {
  std::vector<int> axes;
  agree(a.comm(), [&] {
    if (options.where) {
      throw InputError("a reduction of a DistArray takes no `where` mask");
    }
    axes = reduced_axes(options, static_cast<int>(a.shape().size()));
  });
  return std::find(axes.begin(), axes.end(), 0) != axes.end();
}

}  // namespace

CallSplit plan_split(const Ufunc &ufunc, const std::vector<std::optional<Dims>> &shapes) {
  const std::vector<int> core = ufunc.is_generalized() ? input_core_dims(ufunc.layout()) : std::vector<int>();
  const auto loop_ndim = [&](std::size_t k) {
    return static_cast<int>(shapes[k]->size()) - (k < core.size() ? core[k] : 0);
  };
  int outer = 0;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    outer = shapes[k] ? std::max(outer, loop_ndim(k)) : outer;
  }
  CallSplit plan;
  plan.split.assign(shapes.size(), false);
  if (outer == 0) {
    return plan;
  }
  plan.rows = 1;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    if (shapes[k] && loop_ndim(k) == outer && (*shapes[k])[0] != 1) {
      if (plan.rows != 1 && plan.rows != (*shapes[k])[0]) {
        throw ShapeError("operands could not be broadcast together: outer extents " +
                         std::to_string(plan.rows) + " and " + std::to_string((*shapes[k])[0]));
      }
      plan.rows = (*shapes[k])[0];
    }
  }
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    plan.split[k] = shapes[k] && loop_ndim(k) == outer && (*shapes[k])[0] == plan.rows;
  }
  return plan;
}

std::vector<DistArray> apply(const Ufunc &ufunc, const std::vector<DistOperand> &operands) {
  const DistArray *first = nullptr;
  MPI_Comm comm = MPI_COMM_WORLD;
  for (const DistOperand &operand : operands) {
    if (operand.split != nullptr && first == nullptr) {
      first = operand.split;
      comm = first->comm();
    }
  }
  std::string whole_shapes;
  for (const DistOperand &operand : operands) {
    if (operand.split == nullptr && operand.operand.kind == Operand::Kind::Array) {
      whole_shapes += operand.operand.array.describe() + " ";
    }
  }
  check_same_on_every_rank(comm, whole_shapes, "the operands held whole");  // before any work
  std::vector<Array> results;
  agree(comm, [&] {
    check_split(ufunc, operands);
    std::vector<Operand> local;
    for (const DistOperand &operand : operands) {
      local.push_back(operand.operand);
    }
    results = ufunc.call_all(local);
    for (Array &result : results) {
      result = c_contiguous(std::move(result));
    }
  });
  std::vector<DistArray> out;
  for (Array &result : results) {
    out.emplace_back(comm, first->shape()[0], first->rows(), std::move(result));
  }
  return out;
}

Array reduce(const Ufunc &ufunc, const DistArray &a, const ReduceOptions &options) {
  if (!reduces_axis0(options, a)) {
    throw InputError("mpi::reduce reduces axis 0 among others; use mpi::reduce_local for other axes");
  }
  ReduceOptions local = options;
  local.initial.reset();
  Array partial;
  agree(a.comm(), [&] {
    if (a.rows().count() > 0) {
      partial = c_contiguous(ufunc.reduce(a.local(), local));
    }
  });
  Array acc = fold_partials(ufunc, a.comm(), partial, comm_size(a.comm()));
  agree(a.comm(), [&] {
    if (acc.empty_handle()) {
      acc = ufunc.reduce(a.local(), options);  // no rows anywhere: the empty reduction
    } else if (options.initial) {
      acc = ufunc(*options.initial, acc.view());
    }
  });
  return acc;
}

DistArray reduce_local(const Ufunc &ufunc, const DistArray &a, const ReduceOptions &options) {
  if (reduces_axis0(options, a)) {
    throw InputError("mpi::reduce_local reduces axes other than 0; use mpi::reduce to reduce axis 0");
  }
  Array result;
  agree(a.comm(), [&] { result = c_contiguous(ufunc.reduce(a.local(), options)); });
  return DistArray(a.comm(), a.shape()[0], a.rows(), std::move(result));
}

DistArray accumulate(const Ufunc &ufunc, const DistArray &a, const AccumulateOptions &options) {
  const int ndim = static_cast<int>(a.shape().size());
  Array result;
  agree(a.comm(), [&] {
    if (options.axis < -ndim || options.axis >= ndim) {
      throw ShapeError("axis " + std::to_string(options.axis) + " is out of bounds for an array of " +
                       std::to_string(ndim) + " dimensions");
    }
    result = c_contiguous(ufunc.accumulate(a.local(), options));
  });
  if (options.axis != 0 && options.axis != -ndim) {
    return DistArray(a.comm(), a.shape()[0], a.rows(), std::move(result));
  }
  // The last row of each rank's running total, then the total of the ranks
  // before this one, which every one of its rows takes in.
  Array last;
  if (a.rows().count() > 0) {
    ArrayView row = result.view();
    row.data = static_cast<char *>(row.data) + (a.rows().count() - 1) * row.strides[0];
    row.shape.erase(row.shape.begin());
    row.strides.erase(row.strides.begin());
    last = Array(row, result.holder());
  }
  const Array carry = fold_partials(ufunc, a.comm(), last, comm_rank(a.comm()));
  agree(a.comm(), [&] {
    if (!carry.empty_handle() && a.rows().count() > 0) {
      ufunc(carry.view(), result.view(), out(result.view()));
    }
  });
  return DistArray(a.comm(), a.shape()[0], a.rows(), std::move(result));
}

}  // namespace ufjit::mpi
