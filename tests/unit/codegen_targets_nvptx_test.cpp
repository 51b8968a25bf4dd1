// The NVPTX internals: sliced, lazy and full libdevice loading agree, NVVMReflect
// resolves __CUDA_FTZ from the fastmath option, entries weigh the scalar
// body to choose vector groups, and PTX ISA resolution.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "codegen/kernel/KernelEntry.h"
#include "codegen/kernel/KernelModule.h"
#include "codegen/nvptx/NVPTXTarget.h"
#include "tests/unit/codegen_targets_ir.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {
namespace {

bool contains(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

std::string compile_with(const ir::Module &m, LibdeviceLoad load) {
  initialize_llvm_targets();
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("t", context);
  GpuOptions gpu;
  prepare_nvptx_module(*module);
  EntryRequest request{&m, m.name + "__t", {KernelVariant{}}};
  EntryModuleInfo info =
      build_entry_module({request}, *module, TargetKind::Cuda, [load](llvm::Module &mm) { link_libdevice(mm, load); });
  NvptxCompileOptions options;
  options.gpu = gpu;
  options.entries.insert(info.entry_names.begin(), info.entry_names.end());
  options.libdevice = load;
  return compile_module_to_ptx(*module, options);
}

/// How often each instruction occurs in `ptx` (opcode with its type
/// suffixes; operands, directives and moves aside): the code a compile
/// made, whatever its register numbers, its functions' order and its
/// address moves.
std::map<std::string, int> instruction_counts(const std::string &ptx) {
  std::map<std::string, int> counts;
  std::istringstream lines(ptx);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string opcode;
    words >> opcode;
    if (!opcode.empty() && opcode[0] == '@') {
      words >> opcode;  // a predicated instruction
    }
    // Directives (.param, .reg) aside: a function defined after its caller
    // is declared first, and its parameters are listed twice.
    const bool instruction =
        line.size() > 1 && line[0] == '\t' && opcode.find('.') != std::string::npos && opcode[0] != '.';
    if (instruction && opcode.rfind("mov.", 0) != 0) {
      ++counts[opcode];
    }
  }
  return counts;
}

TEST(CodegenNvptx, SlicedLazyAndFullLibdeviceLoadingGiveTheSameCode) {
  for (const ir::Module &m : {test_ir::sincos_module(DType::Float32), test_ir::gaussian_module(DType::Float64),
                              test_ir::polar_module(DType::Float32)}) {
    const std::string full = compile_with(m, LibdeviceLoad::Full);
    ASSERT_GT(instruction_counts(full).size(), 20u) << m.name;
    EXPECT_EQ(compile_with(m, LibdeviceLoad::Lazy), full) << m.name;
    // Twice: the first makes the slices, the second reuses them. Where two
    // libdevice functions use one table (sinf, cosf and sincosf), a full
    // load links a copy per link call and the slices one in all, so the
    // table's address moves and the order of globals may differ.
    for (int pass = 0; pass < 2; ++pass) {
      const std::string sliced = compile_with(m, LibdeviceLoad::Sliced);
      EXPECT_EQ(instruction_counts(sliced), instruction_counts(full)) << m.name;
      EXPECT_LE(std::count(sliced.begin(), sliced.end(), '\n'), std::count(full.begin(), full.end(), '\n'));
    }
  }
  const ir::Module exp_only = test_ir::gaussian_module(DType::Float64);
  EXPECT_EQ(compile_with(exp_only, LibdeviceLoad::Sliced), compile_with(exp_only, LibdeviceLoad::Full));
}

TEST(CodegenNvptx, CompilesOnManyThreadsAtOnceShareTheSlicesAndGetTheSameCode) {
  const ir::Module m = test_ir::polar_module(DType::Float64);
  const std::string expected = compile_with(m, LibdeviceLoad::Lazy);
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (std::string &ptx : got) {
    threads.emplace_back([&] { ptx = compile_with(m, LibdeviceLoad::Sliced); });
  }
  for (std::thread &thread : threads) {
    thread.join();
  }
  for (const std::string &ptx : got) {
    EXPECT_EQ(instruction_counts(ptx), instruction_counts(expected));
  }
}

TEST(CodegenNvptx, AFunctionLibdeviceLacksStaysDeclaredAndTheOthersAreLinked) {
  initialize_llvm_targets();
  llvm::LLVMContext context;
  llvm::Module module("t", context);
  prepare_nvptx_module(module);
  llvm::Type *f32 = llvm::Type::getFloatTy(context);
  llvm::FunctionType *unary = llvm::FunctionType::get(f32, {f32}, false);
  module.getOrInsertFunction("__nv_no_such_function", unary);
  module.getOrInsertFunction("__nv_expf", unary);
  prepare_libdevice_slices({"__nv_no_such_function", "__nv_expf"});
  link_libdevice(module);
  EXPECT_TRUE(module.getFunction("__nv_no_such_function")->isDeclaration());
  EXPECT_FALSE(module.getFunction("__nv_expf")->isDeclaration());
}

TEST(CodegenNvptx, LibdeviceBytesAreBitcode) {
  const std::string &bytes = libdevice_bytes();
  ASSERT_GT(bytes.size(), 100000u);
  EXPECT_EQ(bytes.substr(0, 2), "BC");
}

TEST(CodegenNvptx, FastmathFlushesDenormalsThroughNvvmReflect) {
  ir::Module strict = test_ir::gaussian_module(DType::Float32, false);
  ir::Module fast = test_ir::gaussian_module(DType::Float32, true);
  EntryRequest strict_request{&strict, "g", {KernelVariant{}}};
  EntryRequest fast_request{&fast, "g", {KernelVariant{}}};
  std::string strict_ptx = emit_ptx({strict_request}, GpuOptions{});
  std::string fast_ptx = emit_ptx({fast_request}, GpuOptions{});
  // libdevice's expf range-reduces first and then uses ex2.approx.ftz on an
  // argument that cannot be denormal; every other instruction must keep denormals.
  std::string strict_without_ex2 = strict_ptx;
  for (size_t at; (at = strict_without_ex2.find("ex2.approx.ftz")) != std::string::npos;)
    strict_without_ex2.erase(at, 14);
  EXPECT_FALSE(contains(strict_without_ex2, ".ftz")) << strict_ptx;
  EXPECT_TRUE(contains(fast_ptx, ".ftz")) << fast_ptx;
  // Correctly rounded division without fastmath, approximate with it.
  EXPECT_TRUE(contains(strict_ptx, "div.rn.f32")) << strict_ptx;
  EXPECT_FALSE(contains(fast_ptx, "div.rn.f32")) << fast_ptx;
}

TEST(CodegenNvptx, CopyableBodiesOnFewInputBytesGetVectorGroupsAndWideOnesTheScalarLoop) {
  // sincos (libdevice's sinf and cosf, 4 input bytes) is expensive but under
  // the size copied per lane: 16-byte vector groups like a cheap add. polar
  // (16 input bytes, two sincos) keeps the scalar loop, which already reaches
  // the copy bandwidth (codegen/kernel/KernelGpu.cpp).
  ir::Module sincos = test_ir::sincos_module(DType::Float32);
  ir::Module add = test_ir::add_module(DType::Float32);
  ir::Module polar = test_ir::polar_module(DType::Float32);
  std::string sincos_ptx = emit_ptx({{&sincos, "s", {KernelVariant{}}}}, GpuOptions{});
  std::string add_ptx = emit_ptx({{&add, "a", {KernelVariant{}}}}, GpuOptions{});
  std::string polar_ptx = emit_ptx({{&polar, "p", {KernelVariant{}}}}, GpuOptions{});
  EXPECT_TRUE(contains(sincos_ptx, "ld.global.v4.f32")) << sincos_ptx;
  EXPECT_TRUE(contains(add_ptx, "ld.global.v4.f32"));
  EXPECT_FALSE(contains(polar_ptx, "ld.global.v4")) << "polar's sinf/cosf bodies were copied per lane";
}

TEST(CodegenNvptx, ScalarFunctionCostCountsHelpersAndLinkedLibdevice) {
  llvm::LLVMContext context;
  llvm::Module module("cost", context);
  ir::Module add = test_ir::add_module(DType::Float32);
  ir::Module sincos = test_ir::sincos_module(DType::Float32);
  llvm::Function *add_fn = lower_module(add, module, "a.", LoweringTarget{});
  llvm::Function *sincos_fn = lower_module(sincos, module, "s.", LoweringTarget{});
  EXPECT_TRUE(kernel_detail::is_cheap_scalar_function(*add_fn));
  // Unlinked libdevice declarations have unknown size: not cheap.
  EXPECT_FALSE(kernel_detail::is_cheap_scalar_function(*sincos_fn));
  module.setTargetTriple(kNvptxTriple);
  link_libdevice(module);
  // Linked: sinf and cosf with their range reduction are large, but under
  // the size that gets one copy per lane (codegen/kernel/KernelGpu.cpp); counting
  // stops just past the limit asked for.
  const int cost = kernel_detail::scalar_function_cost(*sincos_fn, 100000);
  EXPECT_GT(cost, 160);
  EXPECT_LT(cost, 1000);
  EXPECT_LE(kernel_detail::scalar_function_cost(*sincos_fn, 100), 200);
}

TEST(CodegenNvptx, PtxIsaResolution) {
  GpuOptions gpu;
  gpu.arch = "sm_80";
  EXPECT_EQ(resolve_ptx_isa(gpu), "85");
  gpu.ptx_isa = "7.8";
  EXPECT_EQ(resolve_ptx_isa(gpu), "78");
  gpu.ptx_isa = "ptx81";
  EXPECT_EQ(resolve_ptx_isa(gpu), "81");
  gpu.ptx_isa = "x";
  EXPECT_THROW(resolve_ptx_isa(gpu), Error);
  gpu.arch = "sm_90a";
  gpu.ptx_isa = "";
  EXPECT_EQ(resolve_ptx_isa(gpu), "85");
}

/// Calls of the function named `name` in `m`.
int calls_to(const llvm::Module &m, const char *name) {
  const llvm::Function *f = m.getFunction(name);
  return f == nullptr ? 0 : static_cast<int>(f->getNumUses());
}

TEST(CodegenNvptx, SinAndCosOfOneArgumentShareOneSincosCall) {
  llvm::LLVMContext ctx;
  llvm::Module m("sincos", ctx);
  llvm::Type *f32 = llvm::Type::getFloatTy(ctx);
  auto *unary = llvm::FunctionType::get(f32, {f32}, false);
  llvm::FunctionCallee sinf = m.getOrInsertFunction("__nv_sinf", unary);
  llvm::FunctionCallee cosf = m.getOrInsertFunction("__nv_cosf", unary);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(f32, {f32, f32}, false),
                                    llvm::Function::ExternalLinkage, "f", m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  // x goes through a variable slot, as the lowering emits it.
  llvm::AllocaInst *slot = b.CreateAlloca(f32);
  b.CreateStore(fn->getArg(0), slot);
  llvm::Value *c = b.CreateCall(cosf, {b.CreateLoad(f32, slot)});
  llvm::Value *s = b.CreateCall(sinf, {b.CreateLoad(f32, slot)});
  llvm::Value *other = b.CreateCall(sinf, {fn->getArg(1)});  // no cos of y: stays
  b.CreateRet(b.CreateFAdd(b.CreateFAdd(b.CreateFMul(c, c), b.CreateFMul(s, s)), other));

  merge_sin_cos_calls(m);

  std::string error;
  llvm::raw_string_ostream os(error);
  ASSERT_FALSE(llvm::verifyModule(m, &os)) << error;
  EXPECT_EQ(calls_to(m, "__nv_sincosf"), 1);
  EXPECT_EQ(calls_to(m, "__nv_cosf"), 0);
  EXPECT_EQ(calls_to(m, "__nv_sinf"), 1);  // sin(y) alone
}

}  // namespace
}  // namespace ufjit::codegen
