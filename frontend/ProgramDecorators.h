// Reading decorators for collect_program: which decorator a def carries
// (through any import alias), its signatures and options. Private to the
// frontend.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/Program.h"

namespace ufjit::frontend {

class DecoratorReader {
 public:
  DecoratorReader(Program &program, DiagnosticEngine &diags) : program_(program), diags_(diags) {}

  /// Adds `def` to the program as a ufunc or a helper, by its decorators.
  void collect_function(const ast::FunctionDef &def);

  /// The dotted name `e` stands for after imports: `nb.vectorize` ->
  /// "numba.vectorize", `cuda.jit` -> "numba.cuda.jit" (after `from numba
  /// import cuda`). Nothing for an expression that is not a dotted name.
  std::optional<std::string> resolve(const ast::Expr &e) const;
  bool resolves_to(const ast::Expr &e, std::initializer_list<std::string_view> names) const;

 private:
  enum class Kind { Vectorize, GuVectorize, CudaJit, Device, Jit, Unknown };
  Kind classify(const std::string &resolved) const;
  void read_ufunc(const ast::FunctionDef &def, const ast::Decorator &d, Kind kind);
  /// Checks a helper decorator's options; `signatures` gets its explicit
  /// signatures (`@cuda.jit('float32(float32)', device=True)`), if any.
  bool read_helper(const ast::Decorator &d, Kind kind, std::vector<Signature> &signatures);
  /// `@cuda.jit` without device=True: a kernel (Program::kernels).
  void read_kernel(const ast::FunctionDef &def, const ast::Decorator &d);
  void read_signatures(const ast::Expr &e, std::vector<Signature> &out);
  /// `identity=`: 0, 1, None or 'reorderable' (Numba's parse_identity; True,
  /// False, 0.0 and 1.0 are the same dictionary keys in Python).
  void read_identity(const ast::Expr &value, UfuncOptions &options);
  /// `boundscheck=True|False|None` on the decorator of `def` (Program::boundscheck).
  void read_boundscheck(const ast::Expr &value, const ast::FunctionDef &def);
  void read_option(const ast::Keyword &kw, UfuncDecl &ufunc, bool &have_signatures,
                   const ast::Expr *&layout_expr);
  /// The BoolLit of option `name`, or null after an error.
  const ast::BoolLit *bool_option(const ast::Expr &value, const std::string &name);
  /// `target='cuda'|'cpu'|'parallel'`, or a module-level name bound to one.
  void read_target(const ast::Expr &value, UfuncOptions &options);
  /// `link=['helpers.cu', ...]`: CUDA C++ files linked with the kernels.
  void read_link(const ast::Expr &value, UfuncOptions &options);
  /// `nopython=` and `forceobj=`: accepted only when they ask for nopython mode.
  void read_object_mode(const ast::Keyword &kw, const char *decorator);
  /// `writable_args=(0, 'a')`: kept in pending_writable_ until the layout is known.
  void read_writable_args(const ast::Expr &value);
  void check_signatures(const UfuncDecl &ufunc);
  /// Turns the `writable_args=` items read by read_option into parameter
  /// indices of `def` (names or indices; inputs only).
  void resolve_writable_args(const ast::FunctionDef &def, UfuncDecl &ufunc);

  Program &program_;
  DiagnosticEngine &diags_;
  /// `writable_args=` items of the decorator being read: (item, index or -1 for a name).
  std::vector<std::pair<const ast::Expr *, int>> pending_writable_;
  /// The def whose decorators are being read (for helper options such as boundscheck).
  const ast::FunctionDef *helper_def_ = nullptr;
};

}  // namespace ufjit::frontend
