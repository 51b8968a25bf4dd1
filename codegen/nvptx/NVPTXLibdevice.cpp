// libdevice: read once per process (immutable bytes), parsed into each
// compile's LLVMContext and linked with LinkOnlyNeeded (codegen/nvptx/NVPTXTarget.h).
//
// An llvm::Module belongs to its LLVMContext, and every compile owns its
// context, so modules cannot be shared between compiles; bytes can. Even a
// lazy load parses libdevice's module records (its 352 functions' headers,
// symbol table and intrinsic upgrades), about 1-2 ms per compile, while
// sincosf and what it calls is 11 KB of bitcode. So the default load
// (LibdeviceLoad::Sliced) keeps one lazily loaded libdevice in a private
// context for the process and writes each function a module calls, with what
// it uses, as a small bitcode "slice" once; each compile parses and links
// only the slices of its functions.
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "codegen/nvptx/NVPTXTarget.h"
#include "support/InternalAssert.h"
#include "support/Settings.h"
#include "ufjit/errors.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#ifndef UFJIT_LIBDEVICE_PATH
#define UFJIT_LIBDEVICE_PATH ""
#endif

namespace ufjit::codegen {

namespace {

struct LibdeviceFile {
  std::string path;
  std::string bytes;
  std::string error;  // non-empty: the file could not be read
};

LibdeviceFile read_libdevice() {
  LibdeviceFile file;
  const char *env = std::getenv("UFJIT_LIBDEVICE");
  file.path = env != nullptr && *env != '\0' ? env : UFJIT_LIBDEVICE_PATH;
  std::ifstream in(file.path, std::ios::binary);
  if (!in) {
    file.error = "cannot read libdevice at '" + file.path +
                 "' (set UFJIT_LIBDEVICE to the CUDA toolkit's nvvm/libdevice/libdevice.10.bc)";
    return file;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  file.bytes = contents.str();
  if (file.bytes.size() < 4 || file.bytes.compare(0, 2, "BC") != 0) {
    file.error = "'" + file.path + "' is not an LLVM bitcode file (libdevice expected)";
    file.bytes.clear();
  }
  return file;
}

const LibdeviceFile &libdevice_file() {
  // Initialised once, thread-safely, then only read.
  static const LibdeviceFile file = read_libdevice();
  return file;
}

/// The libdevice functions `module` declares but does not define, sorted:
/// the slices are linked in one order whatever the module's.
std::set<std::string> called_libdevice_functions(const llvm::Module &module) {
  std::set<std::string> names;
  for (const llvm::Function &fn : module) {
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_")) {
      names.insert(fn.getName().str());
    }
  }
  return names;
}

std::string error_text(llvm::Error error) {
  std::string text;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) { text += info.message(); });
  return text;
}

std::unique_ptr<llvm::Module> parse_library(llvm::MemoryBufferRef buffer, llvm::LLVMContext &context,
                                            LibdeviceLoad load) {
  llvm::Expected<std::unique_ptr<llvm::Module>> parsed = load == LibdeviceLoad::Lazy
                                                             ? llvm::getLazyBitcodeModule(buffer, context)
                                                             : llvm::parseBitcodeFile(buffer, context);
  if (!parsed) {
    throw Error("cannot parse libdevice (" + libdevice_file().path + "): " + error_text(parsed.takeError()));
  }
  return std::move(*parsed);
}

/// The global values a materialized function's body refers to, directly or
/// through constant expressions (a global's address in a GEP).
void collect_referenced_globals(const llvm::Constant &constant, std::vector<llvm::GlobalValue *> &out) {
  if (const auto *gv = llvm::dyn_cast<llvm::GlobalValue>(&constant)) {
    out.push_back(const_cast<llvm::GlobalValue *>(gv));
    return;
  }
  for (const llvm::Use &operand : constant.operands()) {
    if (const auto *inner = llvm::dyn_cast<llvm::Constant>(operand.get())) {
      collect_referenced_globals(*inner, out);
    }
  }
}

/// libdevice lazily loaded once into a context of its own, and the slices
/// written from it. Every member is guarded by `mutex`; the slices' bytes are
/// immutable once made, so compiles parse them without the lock.
class LibdeviceSlices {
 public:
  /// The slice of libdevice's function `name`; null when libdevice does not
  /// define it. At most one slice per libdevice function is ever kept.
  std::shared_ptr<const std::string> slice(const std::string &name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = slices_.find(name);
    if (found != slices_.end()) {
      return found->second;
    }
    if (library_ == nullptr) {
      llvm::MemoryBufferRef buffer(libdevice_bytes(), "libdevice.10.bc");
      library_ = parse_library(buffer, context_, LibdeviceLoad::Lazy);
    }
    std::shared_ptr<const std::string> bytes;
    llvm::Function *fn = library_->getFunction(name);
    if (fn != nullptr && !fn->isDeclaration()) {
      bytes = std::make_shared<const std::string>(write_slice(*fn));
    }
    slices_.emplace(name, bytes);
    return bytes;
  }

 private:
  /// `root` and every function and global it uses, transitively,
  /// materialized in the library, in the order found.
  std::vector<llvm::GlobalValue *> close_over(llvm::Function &root) {
    std::vector<llvm::GlobalValue *> closure;
    std::set<const llvm::GlobalValue *> seen;
    std::vector<llvm::GlobalValue *> pending{&root};
    while (!pending.empty()) {
      llvm::GlobalValue *gv = pending.back();
      pending.pop_back();
      if (!seen.insert(gv).second) {
        continue;
      }
      closure.push_back(gv);
      if (llvm::Error error = gv->materialize()) {
        throw Error("cannot read " + gv->getName().str() + " from libdevice (" + libdevice_file().path +
                    "): " + error_text(std::move(error)));
      }
      if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
        // A table or string that the file only declares: LLVM's NVVMReflect
        // would crash on it, so the file is not a usable libdevice.
        if (!var->hasInitializer()) {
          throw Error("libdevice at '" + libdevice_file().path + "' declares " + var->getName().str() +
                      ", which " + root.getName().str() +
                      " uses, without defining it (set UFJIT_LIBDEVICE to the CUDA " +
                      "toolkit's nvvm/libdevice/libdevice.10.bc)");
        }
        collect_referenced_globals(*var->getInitializer(), pending);
      }
      if (auto *fn = llvm::dyn_cast<llvm::Function>(gv)) {
        for (llvm::Instruction &inst : llvm::instructions(*fn)) {
          for (const llvm::Use &operand : inst.operands()) {
            if (const auto *constant = llvm::dyn_cast<llvm::Constant>(operand.get())) {
              collect_referenced_globals(*constant, pending);
            }
          }
        }
      }
    }
    return closure;
  }

  /// A module of the closure's members alone (llvm::CloneModule would
  /// declare all of libdevice's functions first), with libdevice's named
  /// metadata, as a link of the whole library brings it. Every definition is
  /// linkonce_odr: two slices may both hold a helper or a table (sinf's and
  /// tanf's argument reduction, __cudart_i2opi_f), and the linker keeps one.
  /// The compile internalizes them afterwards, as it does the whole library.
  std::unique_ptr<llvm::Module> clone_closure(const std::vector<llvm::GlobalValue *> &closure) {
    auto slice = std::make_unique<llvm::Module>("libdevice slice", context_);
    slice->setTargetTriple(library_->getTargetTriple());
    slice->setDataLayout(library_->getDataLayout());
    llvm::ValueToValueMapTy map;
    for (llvm::GlobalValue *gv : closure) {
      if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
        auto *copy = new llvm::GlobalVariable(*slice, var->getValueType(), var->isConstant(),
                                              var->getLinkage(), nullptr, var->getName(), nullptr,
                                              var->getThreadLocalMode(), var->getAddressSpace());
        copy->copyAttributesFrom(var);
        if (var->hasInitializer()) {
          copy->setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
        }
        map[var] = copy;
      } else if (auto *fn = llvm::dyn_cast<llvm::Function>(gv)) {
        llvm::Function *copy = llvm::Function::Create(fn->getFunctionType(), fn->getLinkage(),
                                                      fn->getAddressSpace(), fn->getName(), slice.get());
        copy->copyAttributesFrom(fn);
        if (!fn->isDeclaration()) {
          copy->setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
        }
        map[fn] = copy;
      } else {
        internal_error << "libdevice's " << gv->getName().str() << " is neither a function nor a variable";
      }
    }
    for (llvm::GlobalValue *gv : closure) {
      if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv); var != nullptr && var->hasInitializer()) {
        llvm::cast<llvm::GlobalVariable>(map[var])->setInitializer(
            llvm::MapValue(var->getInitializer(), map));
      }
      auto *fn = llvm::dyn_cast<llvm::Function>(gv);
      if (fn == nullptr || fn->isDeclaration()) {
        continue;
      }
      auto *copy = llvm::cast<llvm::Function>(map[fn]);
      auto copy_arg = copy->arg_begin();
      for (const llvm::Argument &arg : fn->args()) {
        copy_arg->setName(arg.getName());
        map[&arg] = &*copy_arg++;
      }
      llvm::SmallVector<llvm::ReturnInst *, 8> returns;
      llvm::CloneFunctionInto(copy, fn, map, llvm::CloneFunctionChangeType::DifferentModule, returns);
    }
    for (const llvm::NamedMDNode &named : library_->named_metadata()) {
      llvm::NamedMDNode *copy = slice->getOrInsertNamedMetadata(named.getName());
      for (const llvm::MDNode *node : named.operands()) {
        copy->addOperand(llvm::MapMetadata(node, map));
      }
    }
    // CloneFunctionInto adds an llvm.dbg.cu list for the clones' compile
    // units; libdevice has none, and an empty list makes the reader warn
    // that it strips invalid debug info.
    if (llvm::NamedMDNode *units = slice->getNamedMetadata("llvm.dbg.cu");
        units != nullptr && units->getNumOperands() == 0) {
      slice->eraseNamedMetadata(units);
    }
    return slice;
  }

  std::string write_slice(llvm::Function &root) {
    std::unique_ptr<llvm::Module> slice = clone_closure(close_over(root));
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    llvm::WriteBitcodeToFile(*slice, os);
    os.flush();
    return bytes;
  }

  std::mutex mutex_;
  // Member order fixes destruction: the slices, the library, then its context.
  llvm::LLVMContext context_;
  std::unique_ptr<llvm::Module> library_;
  std::map<std::string, std::shared_ptr<const std::string>> slices_;
};

/// UFJIT_LIBDEVICE_SLICES=0: every compile loads libdevice lazily, as
/// before slices (to measure what they save, or to rule them out).
bool slices_enabled() {
  static const bool enabled = support::read_switch("UFJIT_LIBDEVICE_SLICES", true);
  return enabled;
}

LibdeviceSlices &libdevice_slices() {
  // Never destroyed: a compile on another thread may still run at exit.
  static LibdeviceSlices *slices = new LibdeviceSlices();
  return *slices;
}

}  // namespace

const std::string &libdevice_bytes() {
  const LibdeviceFile &file = libdevice_file();
  if (!file.error.empty()) {
    throw Error(file.error);
  }
  return file.bytes;
}

namespace {

void link_library(llvm::Module &module, std::unique_ptr<llvm::Module> library) {
  // libdevice carries its own triple ("nvptx64-nvidia-gpulibs") and layout;
  // adopt ours so the linker does not warn.
  library->setTargetTriple(module.getTargetTriple());
  library->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(module, std::move(library), llvm::Linker::LinkOnlyNeeded);
  internal_assert(!failed) << "linking libdevice failed";
}

}  // namespace

void link_libdevice(llvm::Module &module, LibdeviceLoad load) {
  const std::set<std::string> names = called_libdevice_functions(module);
  if (names.empty()) {
    return;
  }
  if (load == LibdeviceLoad::Sliced && !slices_enabled()) {
    load = LibdeviceLoad::Lazy;
  }
  if (load != LibdeviceLoad::Sliced) {
    llvm::MemoryBufferRef buffer(libdevice_bytes(), "libdevice.10.bc");
    link_library(module, parse_library(buffer, module.getContext(), load));
    return;
  }
  for (const std::string &name : names) {
    // A name libdevice lacks stays declared, as the other loads leave it.
    if (std::shared_ptr<const std::string> slice = libdevice_slices().slice(name)) {
      llvm::MemoryBufferRef buffer(*slice, name);
      link_library(module, parse_library(buffer, module.getContext(), load));
    }
  }
}

void prepare_libdevice_slices(const std::vector<std::string> &names) {
  if (!slices_enabled()) {
    return;
  }
  for (const std::string &name : names) {
    libdevice_slices().slice(name);
  }
}

}  // namespace ufjit::codegen
