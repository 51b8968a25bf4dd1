// Test-only JIT for the lowering tests (see codegen_lower_jit.h).
#include "codegen_lower_jit.h"

#include <limits>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>

namespace ufjit::codegen::testing {

ir::Expr var(DType t, const std::string &name) { return ir::Var::make(ir::Type::scalar(t), name); }

ir::Type scalar(DType t) { return ir::Type::scalar(t); }

ir::Module expr_module(const std::vector<DType> &params,
                       const std::function<ir::Expr(const std::vector<ir::Expr> &)> &build, bool fastmath) {
  ir::Function fn;
  fn.name = "f";
  std::vector<ir::Expr> vars;
  for (std::size_t k = 0; k < params.size(); ++k) {
    std::string name = "p" + std::to_string(k);
    fn.params.push_back({name, ir::Type::scalar(params[k])});
    vars.push_back(var(params[k], name));
  }
  ir::Expr body = build(vars);
  fn.ret = body.type();
  fn.body = ir::Block::make({ir::Return::make(body)});
  ir::Module m;
  m.name = "test";
  m.functions.push_back(std::move(fn));
  m.options.fastmath = fastmath;
  return m;
}

ir::Module stmt_module(const std::vector<ir::Variable> &params, const std::vector<ir::Variable> &locals,
                       const ir::Type &ret, const ir::Stmt &body) {
  ir::Function fn;
  fn.name = "f";
  fn.params = params;
  fn.locals = locals;
  fn.ret = ret;
  fn.body = body;
  ir::Module m;
  m.name = "test";
  m.functions.push_back(std::move(fn));
  return m;
}

namespace {

void initialize_llvm_once() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Memory type of a parameter or result in the wrapper's argument blocks.
llvm::Type *memory_type(llvm::LLVMContext &ctx, const ir::Type &t) {
  return t.is_scalar() ? storage_type(ctx, t.dtype()) : value_type(ctx, t);
}

void add_wrapper(llvm::Module &m, llvm::Function *entry, const ir::Function &fn) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto *wrapper = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "ufjit_test_wrapper", m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  std::vector<llvm::Value *> args;
  for (std::size_t k = 0; k < fn.params.size(); ++k) {
    const ir::Type &t = fn.params[k].type;
    llvm::Value *slot = b.CreateGEP(ptr, wrapper->getArg(0), b.getInt64(k));
    llvm::Value *address = b.CreateLoad(ptr, slot);
    llvm::Value *v = b.CreateLoad(memory_type(ctx, t), address);
    if (t.is_bool()) {
      v = b.CreateICmpNE(v, b.getInt8(0));
    }
    args.push_back(v);
  }
  llvm::Value *result = b.CreateCall(entry, args);
  if (!fn.ret.is_void()) {
    if (fn.ret.is_bool()) {
      result = b.CreateZExt(result, b.getInt8Ty());
    }
    b.CreateStore(result, wrapper->getArg(1));
  }
  b.CreateRetVoid();
}

void optimize(llvm::Module &m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(m, mam);
}

}  // namespace

struct Jit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

Jit::Jit(const ir::Module &module) : impl_(std::make_unique<Impl>()) {
  initialize_llvm_once();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = std::make_unique<llvm::Module>("test", *ctx);
  LoweringTarget target;
  target.kind = TargetKind::Cpu;
  target.fastmath = module.options.fastmath;
  llvm::Function *entry = lower_module(module, *m, "t.", target);
  add_wrapper(*m, entry, module.entry_function());
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  if (llvm::verifyModule(*m, &problem_stream)) {
    ADD_FAILURE() << "lowered module does not verify: " << problems;
    return;
  }
  impl_->jit = llvm::cantFail(llvm::orc::LLJITBuilder().create());
  const llvm::DataLayout &layout = impl_->jit->getDataLayout();
  impl_->jit->getMainJITDylib().addGenerator(llvm::cantFail(
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(layout.getGlobalPrefix())));
  m->setDataLayout(layout);
  m->setTargetTriple(impl_->jit->getTargetTriple().str());
  optimize(*m);
  llvm::raw_string_ostream text(ir_text_);
  m->print(text, nullptr);
  llvm::cantFail(impl_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))));
  auto symbol = impl_->jit->lookup("ufjit_test_wrapper");
  if (!symbol) {
    ADD_FAILURE() << "lookup failed: " << llvm::toString(symbol.takeError());
    return;
  }
  wrapper_ = symbol->toPtr<void (*)(void **, void *)>();
}

Jit::~Jit() = default;

std::string lower_to_text(const ir::Module &module, TargetKind kind, bool fastmath) {
  llvm::LLVMContext ctx;
  llvm::Module m("test", ctx);
  LoweringTarget target;
  target.kind = kind;
  target.fastmath = fastmath;
  lower_module(module, m, "t.", target);
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  EXPECT_FALSE(llvm::verifyModule(m, &problem_stream)) << problems;
  std::string text;
  llvm::raw_string_ostream stream(text);
  m.print(stream, nullptr);
  return text;
}

uint16_t float_to_half_bits(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t bits = 0;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

float half_bits_to_float(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof bits);
  return static_cast<float>(h);
}

namespace {

template <typename Float, typename Int>
int64_t ulps(Float a, Float b) {
  if (std::isnan(a) && std::isnan(b)) {
    return 0;
  }
  if (std::isnan(a) || std::isnan(b)) {
    return std::numeric_limits<int64_t>::max();
  }
  if (a == b) {
    return 0;
  }
  // Map the floats to a monotonic integer line.
  auto key = [](Float x) {
    Int bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits < 0 ? std::numeric_limits<Int>::min() - bits : bits;
  };
  Int ka = key(a);
  Int kb = key(b);
  return ka > kb ? static_cast<int64_t>(ka - kb) : static_cast<int64_t>(kb - ka);
}

}  // namespace

int64_t ulp_distance(double a, double b) { return ulps<double, int64_t>(a, b); }

int64_t ulp_distance(float a, float b) { return ulps<float, int32_t>(a, b); }

}  // namespace ufjit::codegen::testing
