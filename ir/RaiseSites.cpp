#include "ir/RaiseSites.h"

#include "ir/IRVisitor.h"

namespace ufjit::ir {

namespace {

class Numberer : public IRMutator {
 public:
  Numberer(Module &module, const std::string &function) : module_(module), function_(function) {}
  using IRMutator::visit;
  Stmt visit(const Raise *op, const Stmt &) override {
    module_.raise_sites.push_back({function_, op->exception, op->message, op->file, op->line, op->col,
                                   static_cast<int>(op->values.size())});
    const int site = static_cast<int>(module_.raise_sites.size());
    return Raise::make(op->exception, op->message, op->file, op->line, op->col, site, op->values);
  }

 private:
  Module &module_;
  const std::string &function_;
};

}  // namespace

void number_raise_sites(Module &module) {
  module.raise_sites.clear();
  for (Function &f : module.functions) {
    Numberer numberer(module, f.name);
    f.body = numberer.mutate(f.body);
  }
}

}  // namespace ufjit::ir
