// The state shared by the handlers of library calls (LibraryCall.h).
#include "typer/LibraryCall.h"

#include <utility>

namespace ufjit::ir::typer {

LibraryCall::LibraryCall(BodyTyper &typer, std::string name, std::string qualified, std::vector<Value> args,
                         const ast::Call &call, std::string arity_note)
    : t_(typer),
      name_(std::move(name)),
      qualified_(std::move(qualified)),
      args_(std::move(args)),
      call_(call),
      loc_(callee_loc(call)),
      arity_note_(std::move(arity_note)) {}

SourceLocation LibraryCall::arg_loc(std::size_t i) const {
  return i < call_.args.size() ? call_.args[i]->loc : loc_;
}

bool LibraryCall::want(std::size_t n) {
  return t_.check_arity(qualified_, args_.size(), n, loc_, arity_note_);
}

bool LibraryCall::want_one_or_two(const std::string &tail) {
  if (args_.size() == 1 || args_.size() == 2) return true;
  t_.error(loc_, qualified_ + "() takes 1 or 2 arguments (" + std::to_string(args_.size()) + " given)" + tail);
  return false;
}

bool LibraryCall::all_weak(const std::vector<Value> &xs) {
  for (const Value &x : xs) {
    if (!x.is_weak()) return false;
  }
  return true;
}

}  // namespace ufjit::ir::typer
