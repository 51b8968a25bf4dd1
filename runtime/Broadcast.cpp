// NumPy broadcasting and dimension collapsing (see Broadcast.h).
#include "runtime/Broadcast.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "ufjit/errors.h"

namespace ufjit::runtime {

std::string format_shape(const Dims &shape) {
  std::ostringstream os;
  os << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    os << (i ? "," : "") << shape[i];
  }
  if (shape.size() == 1) {
    os << ',';
  }
  os << ')';
  return os.str();
}

int64_t checked_size(const Dims &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      throw ShapeError("negative dimension in shape " + format_shape(shape));
    }
    if (__builtin_mul_overflow(n, d, &n)) {
      throw ShapeError("shape " + format_shape(shape) + " has more elements than fit in int64");
    }
  }
  return n;
}

std::vector<int64_t> broadcast_shapes(const std::vector<std::vector<int64_t>> &shapes) {
  std::size_t ndim = 0;
  for (const auto &s : shapes) {
    ndim = std::max(ndim, s.size());
  }
  std::vector<int64_t> result(ndim, 1);
  bool ok = true;
  for (const auto &s : shapes) {
    const std::size_t offset = ndim - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      int64_t &r = result[offset + i];
      if (s[i] == r || s[i] == 1) {
        continue;
      }
      if (r == 1) {
        r = s[i];
      } else {
        ok = false;
      }
    }
  }
  if (!ok) {
    std::string message = "operands could not be broadcast together with shapes";
    for (const auto &s : shapes) {
      message += ' ';
      message += format_shape(s);
    }
    throw ShapeError(message);
  }
  checked_size(result);
  return result;
}

bool broadcasts_to(const Dims &from, const Dims &to) {
  if (from.size() > to.size()) {
    return false;
  }
  const std::size_t offset = to.size() - from.size();
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[offset + i]) {
      return false;
    }
  }
  return true;
}

ArrayView broadcast_to(const ArrayView &v, const Dims &shape) {
  ArrayView b = v;
  const std::size_t offset = shape.size() - v.shape.size();
  b.shape = shape;
  b.strides.assign(shape.size(), 0);
  for (std::size_t i = 0; i < v.shape.size(); ++i) {
    b.strides[offset + i] = v.shape[i] == shape[offset + i] ? v.strides[i] : 0;
  }
  return b;
}

namespace {

/// Dims with size != 1 ordered by |stride| descending (stable), for one view.
std::vector<int> memory_order_of(const Dims &shape, const std::vector<int64_t> &strides) {
  std::vector<int> dims;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) {
      dims.push_back(static_cast<int>(d));
    }
  }
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
    return std::llabs(strides[static_cast<std::size_t>(a)]) > std::llabs(strides[static_cast<std::size_t>(b)]);
  });
  return dims;
}

}  // namespace

std::vector<int> output_memory_order(const Dims &shape, const std::vector<ArrayView> &inputs) {
  std::vector<int> identity(shape.size());
  std::iota(identity.begin(), identity.end(), 0);
  bool have = false;
  std::vector<int> order;
  for (const ArrayView &in : inputs) {
    if (in.shape != shape) {
      continue;  // broadcast operands do not vote
    }
    std::vector<int> o = memory_order_of(in.shape, in.strides);
    if (!have) {
      order = o;
      have = true;
    } else if (o != order) {
      return identity;
    }
  }
  if (!have) {
    return identity;
  }
  // Size-1 dims go first (outermost): they do not affect the layout.
  std::vector<int> full;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      full.push_back(static_cast<int>(d));
    }
  }
  full.insert(full.end(), order.begin(), order.end());
  return full;
}

ArrayView unpermute(const ArrayView &array, const std::vector<int> &order) {
  ArrayView v = array;
  for (std::size_t j = 0; j < order.size(); ++j) {
    const auto d = static_cast<std::size_t>(order[j]);
    v.shape[d] = array.shape[j];
    v.strides[d] = array.strides[j];
  }
  return v;
}

Dims collapse_dims(const Dims &shape, std::span<ArrayView *const> views, int max_dims) {
  if (shape.size() == 1 && shape[0] != 1) {
    return shape;  // nothing to drop or merge
  }
  if (shape.size() == 1 || shape.empty()) {
    // One element, or 0-d: every dim dropped, as the general path below
    // would (no vectors built: the per-call path of tiny calls).
    for (ArrayView *v : views) {
      v->shape.clear();
      v->strides.clear();
    }
    return {};
  }
  // 1. Drop size-1 dims; keep the order given by the first view's strides.
  std::vector<int> dims = views.empty() ? std::vector<int>() : memory_order_of(shape, views.front()->strides);
  if (views.empty()) {
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] != 1) {
        dims.push_back(static_cast<int>(d));
      }
    }
  }
  Dims new_shape;
  std::vector<Dims> new_strides(views.size());
  for (int d : dims) {
    const auto du = static_cast<std::size_t>(d);
    // 2. Merge into the previous (outer) dim when contiguous for every view.
    bool merge = !new_shape.empty();
    for (std::size_t k = 0; merge && k < views.size(); ++k) {
      merge = new_strides[k].back() == views[k]->strides[du] * shape[du];
    }
    if (merge) {
      new_shape.back() *= shape[du];
      for (std::size_t k = 0; k < views.size(); ++k) {
        new_strides[k].back() = views[k]->strides[du];
      }
      continue;
    }
    new_shape.push_back(shape[du]);
    for (std::size_t k = 0; k < views.size(); ++k) {
      new_strides[k].push_back(views[k]->strides[du]);
    }
  }
  if (static_cast<int>(new_shape.size()) > max_dims) {
    throw ShapeError("the call has " + std::to_string(new_shape.size()) +
                     " dimensions after merging contiguous ones (broadcast shape " + format_shape(shape) +
                     "); at most " + std::to_string(max_dims) + " are supported");
  }
  for (std::size_t k = 0; k < views.size(); ++k) {
    views[k]->shape = new_shape;
    views[k]->strides = new_strides[k];
  }
  return new_shape;
}

}  // namespace ufjit::runtime
