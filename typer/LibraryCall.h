// One call of a library function being typed: math.*, cmath.*, np.*,
// cuda.* or a Python builtin. Each family looks the called name up in a
// static table whose entries name a small handler (a member function of a
// class derived from LibraryCall); the handlers read the call from here.
#pragma once

#include <string>
#include <vector>

#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

/// The entry of `table` whose `name` is `name`, or nullptr: the tables are
/// short, and a linear scan keeps them plain arrays in source order.
template <typename Entry, std::size_t N>
const Entry *find_entry(const Entry (&table)[N], const std::string &name) {
  for (const Entry &e : table) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

/// A table row of a family whose handlers read everything from the call:
/// the called name, how many arguments it takes and the member of `Call`
/// that types it.
template <typename Call>
struct CallHandler {
  const char *name;
  std::size_t arity;
  Value (Call::*handler)();
};

/// The state every handler of a call needs: the typer, the called name as
/// messages spell it, the typed arguments and where they are.
class LibraryCall {
 public:
  /// `qualified`: the name in messages ("math.sqrt", "np.add", "abs");
  /// `arity_note`: what an arity error adds after the count of given arguments.
  LibraryCall(BodyTyper &typer, std::string name, std::string qualified, std::vector<Value> args,
              const ast::Call &call, std::string arity_note = "");

 protected:
  /// Where argument `i` is written; the callee for one expanded from `*t`.
  SourceLocation arg_loc(std::size_t i) const;
  /// Whether the call has `n` arguments; else reports "takes n arguments".
  bool want(std::size_t n);
  /// Whether the call has 1 or 2 arguments; else reports it, `tail` after the count.
  bool want_one_or_two(const std::string &tail = "");
  /// Whether every value of `xs` is a weak (Python) number.
  static bool all_weak(const std::vector<Value> &xs);

  BodyTyper &t_;
  std::string name_;
  std::string qualified_;
  std::vector<Value> args_;
  const ast::Call &call_;
  SourceLocation loc_;
  std::string arity_note_;
};

}  // namespace ufjit::ir::typer
