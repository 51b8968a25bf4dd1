// Dynamic ufuncs (runtime/DynamicUfunc.h).
#include "runtime/DynamicUfunc.h"

#include "support/Diagnostics.h"
#include "typer/Typer.h"

namespace ufjit::runtime {

namespace {

/// NumPy's kind order: bool < integers < floats < complex.
int kind_rank(DType t) {
  switch (dtype_kind(t)) {
    case 'b': return 0;
    case 'i':
    case 'u': return 1;
    case 'f': return 2;
    default: return 3;
  }
}

}  // namespace

std::vector<DType> dynamic_argument_dtypes(const std::vector<const Operand *> &inputs) {
  std::optional<DType> strong;
  for (const Operand *op : inputs) {
    const bool weak = op->kind == Operand::Kind::Scalar && op->scalar.weak;
    if (!weak) {
      const DType t = op->kind == Operand::Kind::Scalar ? op->scalar.dtype : op->array.dtype;
      strong = strong ? promote(*strong, t) : t;
    }
  }
  std::vector<DType> args;
  for (const Operand *op : inputs) {
    const bool weak = op->kind == Operand::Kind::Scalar && op->scalar.weak;
    if (!weak) {
      args.push_back(op->kind == Operand::Kind::Scalar ? op->scalar.dtype : op->array.dtype);
      continue;
    }
    DType own = op->scalar.dtype == DType::UInt64 ? DType::Int64 : op->scalar.dtype;  // Python int
    if (!strong) {
      args.push_back(op->scalar.dtype);
    } else if (kind_rank(*strong) >= kind_rank(own)) {
      args.push_back(*strong);
    } else if (kind_rank(own) == 3 && (*strong == DType::Float32 || *strong == DType::Float16)) {
      args.push_back(DType::Complex64);
    } else {
      args.push_back(own);
    }
  }
  return args;
}

DType gufunc_output_dtype(const std::vector<DType> &input_dtypes) {
  DType common = input_dtypes.empty() ? DType::Float64 : input_dtypes.front();
  for (DType t : input_dtypes) {
    common = promote(common, t);
  }
  return common;
}

SignatureList signatures_for(UfuncState &state, const std::vector<DType> &args, std::size_t &chosen) {
  std::lock_guard<std::mutex> lock(state.dynamic_mutex);
  SignatureList current = state.dynamic_signatures;
  const std::size_t n_in = state.generalized ? state.layout->inputs.size() : args.size();
  const std::vector<DType> inputs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n_in));
  const std::vector<DType> outputs(args.begin() + static_cast<std::ptrdiff_t>(n_in), args.end());
  if (current) {
    for (std::size_t i = 0; i < current->size(); ++i) {
      if ((*current)[i].params == inputs && (*current)[i].out_dtypes == outputs) {
        chosen = i;
        return current;
      }
    }
  }
  DiagnosticEngine diags;
  std::optional<ir::InferredSignature> typed =
      state.generalized ? ir::type_gufunc(state.source, state.name, args, diags, state.link)
                        : ir::type_for_arguments(state.source, state.name, args, diags, state.link);
  diags.throw_if_errors();
  if (!typed) {
    throw CompileError("'" + state.name + "' did not compile for its arguments", diags.to_messages());
  }
  auto next = std::make_shared<std::vector<CompiledSignature>>(current ? *current : std::vector<CompiledSignature>{});
  CompiledSignature sig;
  sig.layout = state.layout;  // null for a ufunc
  sig.module = std::make_shared<const ir::Module>(std::move(typed->module));
  sig.ufunc_name = state.name;
  sig.signature = typed->signature.str();
  sig.index = static_cast<int>(next->size());
  finish_signature(sig);
  next->push_back(std::move(sig));
  chosen = next->size() - 1;
  state.dynamic_signatures = next;
  return next;
}

SignatureList call_signatures(UfuncState &state, std::span<const Operand> operands) {
  if (!state.dynamic) {
    return SignatureList(std::shared_ptr<const void>(), &state.signatures);  // aliasing: no ownership
  }
  std::vector<const Operand *> inputs;
  std::vector<DType> outs;
  for (const Operand &op : operands) {
    if (op.kind != Operand::Kind::Out) {
      inputs.push_back(&op);
    } else {
      outs.push_back(op.array.dtype);
    }
  }
  std::vector<DType> args = dynamic_argument_dtypes(inputs);
  if (state.generalized) {
    const std::size_t n_out = state.layout->outputs.size();
    if (inputs.size() != state.layout->inputs.size() || (!outs.empty() && outs.size() != n_out)) {
      throw DispatchError("'" + state.name + "' (layout '" + state.layout->text + "') takes " +
                          std::to_string(state.layout->inputs.size()) + " inputs and " +
                          std::to_string(n_out) + " outputs (all or none as out(...)), got " +
                          std::to_string(inputs.size()) + " inputs and " + std::to_string(outs.size()) +
                          " out(...)");
    }
    if (outs.empty()) {
      outs.assign(n_out, gufunc_output_dtype(args));
    }
    args.insert(args.end(), outs.begin(), outs.end());
  }
  std::size_t chosen = 0;
  SignatureList all = signatures_for(state, args, chosen);
  // Exactly the compiled signature: dispatch then checks the operands (and
  // weak scalars' ranges) against it as for any call.
  return std::make_shared<const std::vector<CompiledSignature>>(1, (*all)[chosen]);
}

}  // namespace ufjit::runtime
