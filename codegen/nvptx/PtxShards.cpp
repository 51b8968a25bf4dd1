// A huge kernel's parts compiled in modules of their own (codegen/nvptx/PtxShards.h).
#include "codegen/nvptx/PtxShards.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>
#include <string_view>

#include "codegen/HugeFunctions.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {

namespace {

/// Whether constant `c` names a global anywhere inside it (a constant
/// expression or aggregate around a global's address).
bool mentions_global(const llvm::Constant *c) {
  if (llvm::isa<llvm::GlobalValue>(c)) return true;
  if (!llvm::isa<llvm::ConstantExpr>(c) && !llvm::isa<llvm::ConstantAggregate>(c)) return false;
  for (const llvm::Use &operand : c->operands()) {
    if (mentions_global(llvm::cast<llvm::Constant>(operand.get()))) return true;
  }
  return false;
}

/// The calls a part makes. It cannot move if it names a global other than
/// as a callee (a global variable, a function's address), or if it is used
/// other than as a callee.
struct PartReferences {
  bool movable = true;
  std::vector<llvm::CallInst *> calls;  // of a function named directly
};

PartReferences references_of(llvm::Function &part) {
  PartReferences refs;
  for (const llvm::Use &use : part.uses()) {
    const auto *call = llvm::dyn_cast<llvm::CallInst>(use.getUser());
    if (call == nullptr || !call->isCallee(&use)) refs.movable = false;
  }
  for (llvm::BasicBlock &block : part) {
    for (llvm::Instruction &inst : block) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
      for (const llvm::Use &operand : inst.operands()) {
        auto *constant = llvm::dyn_cast<llvm::Constant>(operand.get());
        if (constant == nullptr || !mentions_global(constant)) continue;
        auto *callee = llvm::dyn_cast<llvm::Function>(constant);
        if (call != nullptr && callee != nullptr && call->isCallee(&operand)) {
          refs.calls.push_back(call);
        } else {
          refs.movable = false;
        }
      }
    }
  }
  return refs;
}

/// Whether a part may call `f` from a module of its own: a declaration, or
/// a libdevice function (linked into the kernel's module as it was built),
/// which each module that calls it links again (finish_to_ptx).
bool callable_from_a_shard(const llvm::Function &f) {
  return f.isDeclaration() || f.getName().starts_with("__nv_");
}

/// `f` as LLVM prints a local name in PTX ('.' is not a PTX identifier
/// character), so that the name of a moved part stays valid once external.
std::string ptx_identifier(llvm::StringRef name) {
  std::string out;
  for (char c : name) {
    if (c == '.') {
      out += "_$_";
    } else {
      out += c;
    }
  }
  return out;
}

/// `module`'s declaration of `f` (a function of another module), made once.
llvm::Function *declaration_in(llvm::Module &module, llvm::Function &f) {
  if (llvm::Function *existing = module.getFunction(f.getName())) {
    internal_assert(existing->getFunctionType() == f.getFunctionType())
        << "two functions named " << f.getName().str() << " of different types";
    return existing;
  }
  llvm::Function *decl =
      llvm::Function::Create(f.getFunctionType(), llvm::GlobalValue::ExternalLinkage, f.getName(), module);
  decl->setCallingConv(f.getCallingConv());
  decl->setAttributes(f.getAttributes());
  return decl;
}

/// The name a PTX line declaring or defining a function gives it:
/// `.extern .func  (.param .b32 func_retval0) name` or `... name(`.
std::string_view function_name_of(std::string_view line) {
  while (!line.empty() && (line.back() == '(' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  const std::size_t start = line.find_last_of(" \t)");
  return start == std::string_view::npos ? line : line.substr(start + 1);
}

/// Appends `text` to `out`, a moved function's `.extern .func` declarations
/// and `.visible .func` definition made `.func`. Only lines that begin with
/// `.` can declare a function: the text between them is copied whole.
void append_internalized(std::string &out, std::string_view text,
                         const std::set<std::string, std::less<>> &moved) {
  constexpr std::string_view kPrefixes[] = {".extern .func", ".visible .func"};
  std::size_t copied = 0;
  for (std::size_t line = 0; line < text.size();) {
    std::size_t end = text.find('\n', line);
    end = end == std::string_view::npos ? text.size() : end;
    for (std::string_view prefix : kPrefixes) {
      if (text.compare(line, prefix.size(), prefix) != 0) continue;
      if (moved.count(function_name_of(text.substr(line, end - line))) == 0) break;
      out.append(text, copied, line - copied);
      out += ".func";
      copied = line + prefix.size();
      break;
    }
    // The next line that begins with '.'.
    line = text.find("\n.", end);
    line = line == std::string_view::npos ? text.size() : line + 1;
  }
  out.append(text, copied, std::string_view::npos);
}

}  // namespace

std::vector<PtxShard> split_off_parts(llvm::Module &module) {
  std::map<llvm::Function *, PartReferences> parts;
  std::vector<llvm::Function *> order;
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || !f.hasLocalLinkage() || !f.hasFnAttribute(kPartAttribute)) continue;
    PartReferences refs = references_of(f);
    if (!refs.movable) continue;
    parts.emplace(&f, std::move(refs));
    order.push_back(&f);
  }
  // A part that calls a definition that stays (a helper of the kernel's)
  // stays too, and so, in turn, do the parts that call it.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = parts.begin(); it != parts.end();) {
      bool stays = false;
      for (llvm::CallInst *call : it->second.calls) {
        llvm::Function *callee = call->getCalledFunction();
        if (!callable_from_a_shard(*callee) && parts.count(callee) == 0) stays = true;
      }
      if (stays) {
        it = parts.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
  std::erase_if(order, [&](llvm::Function *f) { return parts.count(f) == 0; });
  if (order.empty()) return {};

  // Who calls each part, before it moves.
  std::vector<std::vector<llvm::CallInst *>> callers(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (llvm::User *user : order[i]->users()) callers[i].push_back(llvm::cast<llvm::CallInst>(user));
  }
  llvm::SmallVector<llvm::Module::ModuleFlagEntry, 4> flags;
  module.getModuleFlagsMetadata(flags);
  std::vector<PtxShard> shards;
  for (llvm::Function *part : order) {
    PtxShard shard;
    shard.module = std::make_unique<llvm::Module>(part->getName(), module.getContext());
    shard.module->setTargetTriple(module.getTargetTriple());
    shard.module->setDataLayout(module.getDataLayout());
    for (const llvm::Module::ModuleFlagEntry &flag : flags) {
      shard.module->addModuleFlag(flag.Behavior, flag.Key->getString(), flag.Val);
    }
    const std::string name = ptx_identifier(part->getName());
    shard.module->getFunctionList().splice(shard.module->end(), module.getFunctionList(),
                                           part->getIterator());
    part->setName(name);
    internal_assert(part->getName() == name) << "a moved part's name is taken: " << name;
    part->setLinkage(llvm::GlobalValue::ExternalLinkage);
    shard.functions.insert(name);
    shards.push_back(std::move(shard));
  }
  // Each call of a function of another module goes to that module's
  // declaration of it.
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (llvm::CallInst *call : callers[i]) {
      call->setCalledOperand(declaration_in(*call->getModule(), *order[i]));
    }
    for (llvm::CallInst *call : parts.at(order[i]).calls) {
      llvm::Function *callee = call->getCalledFunction();
      // A part's callers are redirected above; a declaration is the module's own.
      if (callee->getParent() == order[i]->getParent() || parts.count(callee) != 0) continue;
      call->setCalledOperand(declaration_in(*order[i]->getParent(), *callee));
    }
  }
  return shards;
}

void make_shard_names_unique(llvm::Module &shard, std::size_t index) {
  const std::string suffix = ".shard" + std::to_string(index);
  for (llvm::GlobalObject &object : shard.global_objects()) {
    if (object.hasLocalLinkage()) object.setName(object.getName() + suffix);
  }
}

std::string join_shard_ptx(std::string kernel_ptx, const std::vector<std::string> &shard_ptx,
                           const std::vector<PtxShard> &shards) {
  std::set<std::string, std::less<>> moved;
  for (const PtxShard &shard : shards) moved.insert(shard.functions.begin(), shard.functions.end());
  std::size_t size = kernel_ptx.size();
  for (const std::string &text : shard_ptx) size += text.size();
  std::string out;
  out.reserve(size);
  append_internalized(out, kernel_ptx, moved);
  kernel_ptx.clear();
  kernel_ptx.shrink_to_fit();
  constexpr std::string_view kHeaderEnd = "\n.address_size ";
  for (const std::string &text : shard_ptx) {
    const std::size_t header = text.find(kHeaderEnd);
    internal_assert(header != std::string::npos) << "a shard's PTX has no .address_size line";
    const std::size_t body = text.find('\n', header + kHeaderEnd.size());
    if (body != std::string::npos) append_internalized(out, std::string_view(text).substr(body + 1), moved);
  }
  return out;
}

}  // namespace ufjit::codegen
