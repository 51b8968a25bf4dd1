// The runtime layout and the gufunc schedule (runtime/GufuncLayout.h).
#include "runtime/GufuncLayout.h"

#include "runtime/Broadcast.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {

namespace {

std::string operand_name(const GufuncLayout &layout, std::size_t k) {
  if (k < layout.inputs.size()) {
    return "input " + std::to_string(k + 1);
  }
  return "output " + std::to_string(k - layout.inputs.size() + 1);
}

std::string format_core(const std::vector<std::string> &core) {
  std::string s = "(";
  for (std::size_t d = 0; d < core.size(); ++d) {
    s += (d > 0 ? "," : "") + core[d];
  }
  return s + ")";
}

}  // namespace

GufuncLayout make_gufunc_layout(const frontend::GufuncLayout &core, const std::vector<int> &writable_args) {
  GufuncLayout layout;
  layout.text = core.str();
  for (const frontend::GufuncLayout::Operand &op : core.inputs) {
    layout.inputs.push_back(op.dims);
  }
  for (const frontend::GufuncLayout::Operand &op : core.outputs) {
    layout.outputs.push_back(op.dims);
  }
  layout.writable.assign(layout.inputs.size(), false);
  for (int i : writable_args) {
    if (i >= 0 && static_cast<std::size_t>(i) < layout.inputs.size()) {
      layout.writable[static_cast<std::size_t>(i)] = true;  // the frontend refuses others, located
    }
  }
  return layout;
}

GufuncSchedule schedule(const GufuncLayout &layout, const std::vector<std::vector<int64_t>> &input_shapes,
                        const std::vector<std::vector<int64_t>> &out_shapes, const std::string &ufunc_name) {
  const std::size_t n_in = layout.inputs.size();
  const std::size_t n_out = layout.outputs.size();
  if (input_shapes.size() != n_in) {
    throw DispatchError("'" + ufunc_name + "' (layout '" + layout.text + "') takes " + std::to_string(n_in) +
                        " inputs, got " + std::to_string(input_shapes.size()));
  }
  if (!out_shapes.empty() && out_shapes.size() != n_out) {
    throw DispatchError("'" + ufunc_name + "' has " + std::to_string(n_out) + " outputs; give all of them with out(...) or none, not " +
                        std::to_string(out_shapes.size()));
  }
  GufuncSchedule s;
  std::vector<std::vector<int64_t>> outers;
  std::map<std::string, std::size_t> bound_by;  // which operand fixed a dim, for messages
  auto bind = [&](std::size_t k, const std::vector<int64_t> &shape) {
    const std::vector<std::string> &core = layout.core(k);
    if (shape.size() < core.size()) {
      throw ShapeError("'" + ufunc_name + "': " + operand_name(layout, k) + " has shape " + format_shape(shape) +
                       " but its core dimensions " + format_core(core) + " in layout '" + layout.text + "' need " +
                       std::to_string(core.size()) + " dims");
    }
    const std::size_t outer = shape.size() - core.size();
    std::vector<int64_t> core_shape(shape.begin() + static_cast<std::ptrdiff_t>(outer), shape.end());
    for (std::size_t d = 0; d < core.size(); ++d) {
      auto [it, fresh] = s.dims.emplace(core[d], core_shape[d]);
      if (!fresh && it->second != core_shape[d]) {
        const std::size_t first = bound_by[core[d]];
        throw ShapeError("'" + ufunc_name + "': core dimension '" + core[d] + "' of layout '" + layout.text +
                         "' is " + std::to_string(it->second) + " in " + operand_name(layout, first) + " (shape " +
                         format_shape(first < n_in ? input_shapes[first] : out_shapes[first - n_in]) + ") but " +
                         std::to_string(core_shape[d]) + " in " + operand_name(layout, k) + " (shape " +
                         format_shape(shape) + ")");
      }
      if (fresh) {
        bound_by[core[d]] = k;
      }
    }
    outers.emplace_back(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(outer));
    return core_shape;
  };
  for (std::size_t k = 0; k < n_in; ++k) {
    s.input_core.push_back(bind(k, input_shapes[k]));
  }
  for (std::size_t k = 0; k < out_shapes.size(); ++k) {
    s.output_core.push_back(bind(n_in + k, out_shapes[k]));
  }
  s.loop_shape = broadcast_shapes(outers);
  if (!out_shapes.empty()) {
    for (std::size_t k = 0; k < n_out; ++k) {
      const std::vector<int64_t> &outer = outers[n_in + k];
      if (outer != s.loop_shape) {
        throw ShapeError("'" + ufunc_name + "': out(...) " + std::to_string(k + 1) + " has shape " +
                         format_shape(out_shapes[k]) + " whose outer dims " + format_shape(outer) +
                         " are not the loop shape " + format_shape(s.loop_shape) + " (outputs do not broadcast)");
      }
    }
  } else {
    for (std::size_t k = 0; k < n_out; ++k) {
      std::vector<int64_t> core;
      for (const std::string &name : layout.outputs[k]) {
        auto it = s.dims.find(name);
        if (it == s.dims.end()) {
          throw ShapeError("'" + ufunc_name + "': core dimension '" + name + "' of output " + std::to_string(k + 1) +
                           " in layout '" + layout.text + "' is named by no input; pass the outputs with out(...)");
        }
        core.push_back(it->second);
      }
      s.output_core.push_back(std::move(core));
    }
  }
  s.loop_size = checked_size(s.loop_shape);
  for (std::size_t k = 0; k < n_out; ++k) {
    std::vector<int64_t> shape = s.loop_shape;
    shape.insert(shape.end(), s.output_core[k].begin(), s.output_core[k].end());
    s.output_shapes.push_back(std::move(shape));
  }
  return s;
}

MergedLoop merge_loop_dims(const Dims &loop_shape, const std::vector<Dims> &loop_strides) {
  MergedLoop merged;
  for (std::size_t d = 0; d < loop_shape.size(); ++d) {
    if (loop_shape[d] == 1) {
      continue;  // indexes nothing, whatever its strides
    }
    bool contiguous = !merged.shape.empty();
    for (std::size_t k = 0; contiguous && k < loop_strides.size(); ++k) {
      int64_t span = 0;  // an overflowing product is no contiguous walk
      contiguous = !__builtin_mul_overflow(loop_strides[k][d], loop_shape[d], &span) &&
                   loop_strides[k][merged.innermost.back()] == span;
    }
    if (contiguous) {
      merged.shape.back() *= loop_shape[d];
      merged.innermost.back() = d;
    } else {
      merged.shape.push_back(loop_shape[d]);
      merged.innermost.push_back(d);
    }
  }
  return merged;
}

}  // namespace ufjit::runtime
