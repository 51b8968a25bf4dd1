// A huge kernel's parts compiled in modules of their own (codegen/nvptx/PtxShards.h):
// which parts move, what each module keeps, and the joined PTX (each moved
// function defined once, internal, assembled by nvJitLink; the same module,
// the same text).
#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>

#include <map>
#include <regex>
#include <string>

#include "codegen/Codegen.h"
#include "codegen/HugeFunctions.h"
#include "codegen/LLVMHeaders.h"
#include "codegen/lower/Lowering.h"
#include "codegen/nvptx/NVPTXTarget.h"
#include "codegen/nvptx/PtxShards.h"
#include "support/Diagnostics.h"
#include "typer/Typer.h"

namespace ufjit::codegen {
namespace {

/// An elif chain of `n` branches assigning to y: `body + i` in every
/// `every`-th branch, i + 1 in the others.
std::string elif_chain(int n, const std::string &body = "", int every = 1) {
  std::string source =
      "import math\n@vectorize(['float64(float64)'])\ndef k(x):\n    y = -1.0\n"
      "    if x == 0.0:\n        y = 1.0\n";
  for (int i = 1; i < n; ++i) {
    const std::string value = body.empty() || i % every != 0 ? std::to_string(i + 1) + ".0"
                                                             : body + " + " + std::to_string(i) + ".0";
    source += "    elif x == " + std::to_string(i) + ".0:\n        y = " + value + "\n";
  }
  return source + "    return y\n";
}

std::optional<ir::TypedProgram> typed(const std::string &source) {
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program =
      ir::compile_to_ir(std::make_shared<const SourceFile>("shards.ufn", source), diags);
  EXPECT_TRUE(program) << diags.render_all();
  return program;
}

/// The PTX of `source`'s ufunc as one contiguous entry, k__test.
std::string ptx_of(const std::string &source, PtxTier tier = PtxTier::Optimized) {
  std::optional<ir::TypedProgram> program = typed(source);
  if (!program) return "";
  EntryRequest request{
      &program->ufuncs.at(0).modules.at(0), "k__test", {KernelVariant{Layout::Contiguous, true, 0}}};
  GpuOptions gpu;
  gpu.arch = "sm_90";
  return emit_ptx({request}, gpu, tier);
}

/// How many lines of `ptx` match `pattern` (a whole line).
std::size_t lines_matching(const std::string &ptx, const std::string &pattern) {
  const std::regex line(pattern);
  std::size_t n = 0;
  std::size_t at = 0;
  while (at < ptx.size()) {
    std::size_t end = ptx.find('\n', at);
    if (end == std::string::npos) end = ptx.size();
    if (std::regex_match(ptx.begin() + static_cast<std::ptrdiff_t>(at),
                         ptx.begin() + static_cast<std::ptrdiff_t>(end), line)) {
      ++n;
    }
    at = end + 1;
  }
  return n;
}

void expect_assembles(const std::string &ptx) {
  if (!nvjitlink_available()) GTEST_SKIP() << "nvJitLink not available: PTX not assembled";
  EXPECT_FALSE(ptx_to_cubin(ptx, "sm_90").empty());
}

TEST(PtxShards, EachPartOfALongChainMovesToAModuleOfItsOwnAndTheKernelDeclaresIt) {
  std::optional<ir::TypedProgram> program = typed(elif_chain(6000));
  ASSERT_TRUE(program);
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  prepare_nvptx_module(module);
  lower_module(program->ufuncs.at(0).modules.at(0), module, "k.", LoweringTarget{});
  std::size_t parts = 0;
  for (const llvm::Function &f : module) parts += f.hasFnAttribute(kPartAttribute) ? 1 : 0;
  ASSERT_GE(parts, 4u);

  const std::vector<PtxShard> shards = split_off_parts(module);

  ASSERT_EQ(shards.size(), parts);
  EXPECT_FALSE(llvm::verifyModule(module, &llvm::errs()));
  for (const PtxShard &shard : shards) {
    EXPECT_FALSE(llvm::verifyModule(*shard.module, &llvm::errs()));
    ASSERT_EQ(shard.functions.size(), 1u);
    const std::string &name = *shard.functions.begin();
    EXPECT_EQ(name.find('.'), std::string::npos) << name << ": a PTX identifier once external";
    const llvm::Function *definition = shard.module->getFunction(name);
    ASSERT_NE(definition, nullptr);
    EXPECT_FALSE(definition->isDeclaration());
    EXPECT_FALSE(definition->hasLocalLinkage()) << "kept while its module compiles";
    const llvm::Function *declaration = module.getFunction(name);
    ASSERT_NE(declaration, nullptr) << name;
    EXPECT_TRUE(declaration->isDeclaration());
    EXPECT_EQ(declaration->getNumUses(), 1u) << name << ": called once, in turn";
  }
  for (const llvm::Function &f : module) {
    EXPECT_FALSE(!f.isDeclaration() && f.hasFnAttribute(kPartAttribute)) << f.getName().str() << " stayed";
  }
}

TEST(PtxShards, APartThatNamesADefinitionOfTheKernelsModuleStaysAndSoDoItsCallers) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  prepare_nvptx_module(module);
  llvm::Type *f64 = llvm::Type::getDoubleTy(context);
  llvm::FunctionType *unary = llvm::FunctionType::get(f64, {f64}, false);
  auto define = [&](const char *name, auto &&body) {
    llvm::Function *f = llvm::Function::Create(unary, llvm::GlobalValue::InternalLinkage, name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
    b.CreateRet(body(b, f->getArg(0)));
    return f;
  };
  auto *table = new llvm::GlobalVariable(module, f64, true, llvm::GlobalValue::InternalLinkage,
                                         llvm::ConstantFP::get(f64, 2.0), "table");
  llvm::Function *helper =
      define("helper", [](llvm::IRBuilder<> &b, llvm::Value *x) { return b.CreateFMul(x, x); });
  llvm::Function *sqrt = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::sqrt, {f64});
  auto part = [&](const char *name, auto &&body) {
    llvm::Function *f = define(name, body);
    f->addFnAttr(kPartAttribute);
    f->addFnAttr(llvm::Attribute::NoInline);
    return f;
  };
  llvm::Function *calls_helper =
      part("calls_helper", [&](llvm::IRBuilder<> &b, llvm::Value *x) { return b.CreateCall(helper, {x}); });
  llvm::Function *reads_table = part("reads_table", [&](llvm::IRBuilder<> &b, llvm::Value *x) {
    return b.CreateFAdd(x, b.CreateLoad(f64, table));
  });
  llvm::Function *calls_staying_part = part("calls_staying_part", [&](llvm::IRBuilder<> &b, llvm::Value *x) {
    return b.CreateCall(calls_helper, {x});
  });
  llvm::Function *calls_intrinsic =
      part("calls_intrinsic", [&](llvm::IRBuilder<> &b, llvm::Value *x) { return b.CreateCall(sqrt, {x}); });
  llvm::Function *calls_moving_part = part("calls_moving_part", [&](llvm::IRBuilder<> &b, llvm::Value *x) {
    return b.CreateCall(calls_intrinsic, {x});
  });
  define("kernel", [&](llvm::IRBuilder<> &b, llvm::Value *x) {
    llvm::Value *sum = x;
    for (llvm::Function *f :
         {calls_helper, reads_table, calls_staying_part, calls_intrinsic, calls_moving_part}) {
      sum = b.CreateFAdd(sum, b.CreateCall(f, {x}));
    }
    return sum;
  })->setLinkage(llvm::GlobalValue::ExternalLinkage);

  const std::vector<PtxShard> shards = split_off_parts(module);

  std::set<std::string> moved;
  for (const PtxShard &shard : shards) {
    moved.insert(shard.functions.begin(), shard.functions.end());
    EXPECT_FALSE(llvm::verifyModule(*shard.module, &llvm::errs()));
  }
  EXPECT_EQ(moved, (std::set<std::string>{"calls_intrinsic", "calls_moving_part"}));
  EXPECT_FALSE(llvm::verifyModule(module, &llvm::errs()));
  for (const char *stays : {"calls_helper", "reads_table", "calls_staying_part"}) {
    EXPECT_FALSE(module.getFunction(stays)->isDeclaration()) << stays;
  }
  // The part that calls the other moved part calls its own module's declaration.
  for (const PtxShard &shard : shards) {
    if (shard.functions.count("calls_moving_part") == 0) continue;
    const llvm::Function *callee = shard.module->getFunction("calls_intrinsic");
    ASSERT_NE(callee, nullptr);
    EXPECT_TRUE(callee->isDeclaration());
  }
}

TEST(PtxShards, JoinedPtxDefinesEachMovedFunctionOnceAsAnInternalFunction) {
  const std::string ptx = ptx_of(elif_chain(6000));
  ASSERT_FALSE(ptx.empty());
  EXPECT_EQ(lines_matching(ptx, R"(\.extern \.func.*part.*)"), 0u);
  EXPECT_EQ(lines_matching(ptx, R"(\.visible \.func.*)"), 0u);
  EXPECT_EQ(lines_matching(ptx, R"(\.version .*)"), 1u) << "one header";
  const std::size_t definitions = lines_matching(ptx, R"(\.func .*part[0-9]*\()");
  EXPECT_GE(definitions, 4u);
  EXPECT_EQ(lines_matching(ptx, R"(\.func .*part[0-9]*)"), definitions)
      << "a prototype of each before its calls";
  expect_assembles(ptx);
}

TEST(PtxShards, PartsThatCallLibdeviceLinkItEachUnderNamesOfTheirOwnInBothTiers) {
  // Every part calls sin, which the kernel's module linked as it was built:
  // each shard links its own (its slow path kept out of line in the quick
  // tier), so the joined text would define it once per shard.
  const std::string source = elif_chain(4000, "math.sin(x)", 250);
  for (PtxTier tier : {PtxTier::Optimized, PtxTier::Quick}) {
    const std::string ptx = ptx_of(source, tier);
    ASSERT_FALSE(ptx.empty());
    if (tier == PtxTier::Quick) {
      EXPECT_GE(lines_matching(ptx, R"(\.func .*__internal_trig_reduction_slowpathd_\$_shard[0-9]+\()"), 2u)
          << "one copy per shard";
    }
    expect_assembles(ptx);
  }
}

TEST(PtxShards, TheSameKernelGivesTheSamePtx) {
  const std::string source = elif_chain(4000, "math.sin(x)", 250);
  EXPECT_EQ(ptx_of(source), ptx_of(source));
}

TEST(PtxShards, JoiningRewritesOnlyTheMovedFunctionsLines) {
  std::vector<PtxShard> shards(1);
  shards[0].functions = {"p1"};
  const std::string kernel =
      "//\n.version 8.5\n.target sm_90\n.address_size 64\n\n"
      ".extern .func  (.param .b32 func_retval0) p1\n(\n\t.param .b64 p1_param_0\n)\n;\n"
      ".extern .func  (.param .b32 func_retval0) vprintf\n(\n)\n;\n.visible .entry k(\n)\n{\n}\n";
  const std::string shard =
      "//\n.version 8.5\n.target sm_90\n.address_size 64\n\n"
      ".visible .func  (.param .b32 func_retval0) p1(\n\t.param .b64 p1_param_0\n)\n{\n}\n";
  const std::string joined = join_shard_ptx(kernel, {shard}, shards);
  EXPECT_EQ(joined,
            "//\n.version 8.5\n.target sm_90\n.address_size 64\n\n"
            ".func  (.param .b32 func_retval0) p1\n(\n\t.param .b64 p1_param_0\n)\n;\n"
            ".extern .func  (.param .b32 func_retval0) vprintf\n(\n)\n;\n.visible .entry k(\n)\n{\n}\n"
            "\n.func  (.param .b32 func_retval0) p1(\n\t.param .b64 p1_param_0\n)\n{\n}\n");
}

}  // namespace
}  // namespace ufjit::codegen
