// Both targets: every operation lowers to a verified module; Cuda calls
// libdevice (__nv_*) and the module goes through the NVPTX backend; Cpu calls
// the C library; fastmath sets only the flags it promises.
#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include <string>
#include <vector>

#include "codegen_lower_jit.h"
#include "codegen_typed_source.h"

namespace ufjit::codegen::testing {
namespace {

using ir::IntrinsicOp;

const DType kFloats[] = {DType::Float16, DType::Float32, DType::Float64};
const DType kComplexes[] = {DType::Complex64, DType::Complex128};
const DType kAll[] = {DType::Bool,    DType::Int8,    DType::Int16,   DType::Int32,     DType::Int64,
                      DType::UInt8,   DType::UInt16,  DType::UInt32,  DType::UInt64,    DType::Float16,
                      DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};

DType component(DType c) { return c == DType::Complex64 ? DType::Float32 : DType::Float64; }

bool is_complex_op(IntrinsicOp op) {
  switch (op) {
    case IntrinsicOp::Real:
    case IntrinsicOp::Imag:
    case IntrinsicOp::Conj:
    case IntrinsicOp::CAbs:
    case IntrinsicOp::Phase:
    case IntrinsicOp::CPow:
      return true;
    default:
      return static_cast<int>(op) >= static_cast<int>(IntrinsicOp::CExp);
  }
}

/// One intrinsic call on parameters of `t`, or a null Expr when the pair does not apply.
struct Built {
  std::vector<DType> params;
  std::function<ir::Expr(const std::vector<ir::Expr> &)> build;
};

std::vector<Built> intrinsic_cases() {
  std::vector<Built> cases;
  std::vector<IntrinsicOp> ops;
#define UFJIT_TEST_OP(name, str, arity) ops.push_back(IntrinsicOp::name);
  UFJIT_FOR_EACH_INTRINSIC(UFJIT_TEST_OP)
#undef UFJIT_TEST_OP
  for (IntrinsicOp op : ops) {
    int arity = ir::intrinsic_arity(op);
    if (arity == 0) continue;  // an explicit kernel's coordinates: kernel_test.cpp and lit/ptx/explicit_kernels.ufn
    if (op == IntrinsicOp::IAbs) {
      for (DType t : {DType::Int8, DType::Int64, DType::UInt32}) {
        cases.push_back({{t}, [op, t](const auto &p) { return ir::Intrinsic::make(op, scalar(t), p); }});
      }
      continue;
    }
    if (op == IntrinsicOp::Popc || op == IntrinsicOp::Clz || op == IntrinsicOp::Ffs || op == IntrinsicOp::Brev) {
      for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::UInt64}) {
        DType result = op == IntrinsicOp::Ffs ? DType::UInt32 : t;
        cases.push_back({{t}, [op, result](const auto &p) { return ir::Intrinsic::make(op, scalar(result), p); }});
      }
      continue;
    }
    if (op == IntrinsicOp::Gcd || op == IntrinsicOp::Lcm) {
      for (DType t : {DType::Int8, DType::Int32, DType::Int64, DType::UInt16, DType::UInt64}) {
        cases.push_back({{t, t}, [op, t](const auto &p) { return ir::Intrinsic::make(op, scalar(t), p); }});
      }
      continue;
    }
    if (op == IntrinsicOp::MakeComplex) {
      for (DType c : kComplexes) {
        DType f = component(c);
        cases.push_back({{f, f}, [op, c](const auto &p) { return ir::Intrinsic::make(op, scalar(c), p); }});
      }
      continue;
    }
    if (op == IntrinsicOp::IsNan || op == IntrinsicOp::IsInf || op == IntrinsicOp::IsFinite) {
      for (DType t : kAll) {
        if (t == DType::Bool) {
          continue;
        }
        cases.push_back({{t}, [op](const auto &p) { return ir::Intrinsic::make(op, scalar(DType::Bool), p); }});
      }
      continue;
    }
    if (is_complex_op(op)) {
      for (DType c : kComplexes) {
        bool to_real = op == IntrinsicOp::Real || op == IntrinsicOp::Imag || op == IntrinsicOp::CAbs ||
                       op == IntrinsicOp::Phase;
        DType result = to_real ? component(c) : c;
        cases.push_back({std::vector<DType>(static_cast<std::size_t>(arity), c),
                         [op, result](const auto &p) { return ir::Intrinsic::make(op, scalar(result), p); }});
      }
      continue;
    }
    for (DType f : kFloats) {
      if (op == IntrinsicOp::Ldexp) {
        cases.push_back({{f, DType::Int32}, [op, f](const auto &p) { return ir::Intrinsic::make(op, scalar(f), p); }});
      } else if (op == IntrinsicOp::Frexp || op == IntrinsicOp::Modf) {
        DType second = op == IntrinsicOp::Frexp ? DType::Int32 : f;
        ir::Type result = ir::Type::tuple({scalar(f), scalar(second)});
        cases.push_back({{f}, [op, result](const auto &p) { return ir::Intrinsic::make(op, result, p); }});
      } else {
        cases.push_back({std::vector<DType>(static_cast<std::size_t>(arity), f),
                         [op, f](const auto &p) { return ir::Intrinsic::make(op, scalar(f), p); }});
      }
    }
  }
  return cases;
}

/// Every intrinsic, every binary/compare opcode and every cast, one
/// function each, in one module.
ir::Module every_operation_module() {
  std::vector<Built> cases = intrinsic_cases();
  for (DType t : kAll) {
    for (int op = 0; op <= static_cast<int>(ir::BinaryOpcode::Shr); ++op) {
      auto opcode = static_cast<ir::BinaryOpcode>(op);
      bool ok = true;
      bool is_bit = opcode == ir::BinaryOpcode::BitAnd || opcode == ir::BinaryOpcode::BitOr ||
                    opcode == ir::BinaryOpcode::BitXor;
      bool is_shift = opcode == ir::BinaryOpcode::Shl || opcode == ir::BinaryOpcode::Shr;
      if (t == DType::Bool) ok = is_bit;
      if (is_float(t)) ok = !is_bit && !is_shift;
      if (is_complex(t)) ok = opcode == ir::BinaryOpcode::Add || opcode == ir::BinaryOpcode::Sub ||
                              opcode == ir::BinaryOpcode::Mul || opcode == ir::BinaryOpcode::Div;
      if (is_integer(t)) ok = opcode != ir::BinaryOpcode::Div;
      if (ok) {
        cases.push_back({{t, t}, [opcode](const auto &p) { return ir::Binary::make(opcode, p[0], p[1]); }});
      }
    }
    for (DType to : kAll) {
      cases.push_back({{t}, [to](const auto &p) { return ir::Cast::make(to, p[0]); }});
    }
    cases.push_back({{t, t}, [](const auto &p) { return ir::Compare::make(ir::CompareOpcode::Ne, p[0], p[1]); }});
  }
  ir::Module m;
  m.name = "every";
  for (std::size_t k = 0; k < cases.size(); ++k) {
    ir::Module one = expr_module(cases[k].params, cases[k].build);
    ir::Function fn = one.functions[0];
    fn.name = "op" + std::to_string(k);
    m.functions.push_back(fn);
  }
  return m;
}

TEST(LowerTargets, EveryOperationVerifiesOnBothTargets) {
  ir::Module m = every_operation_module();
  EXPECT_GT(m.functions.size(), 300u);
  std::string cuda = lower_to_text(m, TargetKind::Cuda);
  std::string cpu = lower_to_text(m, TargetKind::Cpu);
  std::string fast = lower_to_text(m, TargetKind::Cuda, true);
  EXPECT_EQ(cuda.find("@sinf("), std::string::npos) << "C library call in a Cuda module";
  EXPECT_EQ(cpu.find("@__nv_"), std::string::npos) << "libdevice call in a Cpu module";
}

TEST(LowerTargets, CudaCallsLibdeviceAndCpuCallsTheCLibrary) {
  auto module = [](IntrinsicOp op, DType t) {
    return expr_module({t}, [op, t](const auto &p) { return ir::Intrinsic::make(op, scalar(t), p); });
  };
  struct Case {
    IntrinsicOp op;
    DType t;
    const char *cuda;
    const char *cpu;
  };
  const Case cases[] = {
      {IntrinsicOp::Sin, DType::Float32, "@__nv_sinf(", "@sinf("},
      {IntrinsicOp::Sin, DType::Float64, "@__nv_sin(", "@sin("},
      {IntrinsicOp::Gamma, DType::Float32, "@__nv_tgammaf(", "@tgammaf("},
      {IntrinsicOp::Lgamma, DType::Float64, "@__nv_lgamma(", "@lgamma("},
      {IntrinsicOp::Erfc, DType::Float16, "@__nv_erfcf(", "@erfcf("},
      {IntrinsicOp::Expm1, DType::Float32, "@__nv_expm1f(", "@expm1f("},
      {IntrinsicOp::Sqrt, DType::Float32, "@llvm.sqrt.f32(", "@llvm.sqrt.f32("},
  };
  for (const Case &c : cases) {
    std::string cuda = lower_to_text(module(c.op, c.t), TargetKind::Cuda);
    std::string cpu = lower_to_text(module(c.op, c.t), TargetKind::Cpu);
    EXPECT_NE(cuda.find(c.cuda), std::string::npos) << c.cuda << " missing in\n" << cuda;
    EXPECT_NE(cpu.find(c.cpu), std::string::npos) << c.cpu << " missing in\n" << cpu;
  }
  ir::Type frexp_type = ir::Type::tuple({scalar(DType::Float32), scalar(DType::Int32)});
  std::string frexp = lower_to_text(expr_module({DType::Float32}, [&](const auto &p) {
                                      return ir::Intrinsic::make(IntrinsicOp::Frexp, frexp_type, p);
                                    }),
                                    TargetKind::Cuda);
  EXPECT_NE(frexp.find("@__nv_frexpf(float"), std::string::npos) << frexp;
}

TEST(LowerTargets, FastmathSetsContractAfnArcpNszButNeverNnanOrNinf) {
  ir::Module m = expr_module({DType::Float32, DType::Float32}, [](const auto &p) {
    ir::Expr prod = ir::Binary::make(ir::BinaryOpcode::Mul, p[0], p[1]);
    return ir::Binary::make(ir::BinaryOpcode::Add, prod, p[0]);
  });
  std::string precise = lower_to_text(m, TargetKind::Cuda, false);
  std::string fast = lower_to_text(m, TargetKind::Cuda, true);
  EXPECT_EQ(precise.find("contract"), std::string::npos) << precise;
  EXPECT_NE(fast.find("fmul nsz arcp contract afn float"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("nnan"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("ninf"), std::string::npos) << fast;
}

/// Runs a backend (NVPTX, or the host's) on a lowered module without
/// optimizing it, so that every function is compiled, and returns the
/// assembly. External math functions stay declarations.
std::string to_assembly(const ir::Module &m, TargetKind kind) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext ctx;
  llvm::Module out("asm", ctx);
  LoweringTarget target;
  target.kind = kind;
  lower_module(m, out, "t.", target);
  bool cuda = kind == TargetKind::Cuda;
  const std::string triple = cuda ? "nvptx64-nvidia-cuda" : llvm::sys::getProcessTriple();
  const std::string cpu = cuda ? "sm_90" : llvm::sys::getHostCPUName().str();
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (t == nullptr) {
    ADD_FAILURE() << error;
    return "";
  }
  std::unique_ptr<llvm::TargetMachine> tm(
      t->createTargetMachine(triple, cpu, cuda ? "+ptx80" : "", llvm::TargetOptions(), std::nullopt));
  out.setTargetTriple(triple);
  out.setDataLayout(tm->createDataLayout());
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, stream, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    ADD_FAILURE() << "the backend cannot emit assembly";
    return "";
  }
  pm.run(out);
  return std::string(buffer.str());
}

TEST(LowerTargets, EveryOperationGoesThroughTheNvptxBackend) {
  std::string ptx = to_assembly(every_operation_module(), TargetKind::Cuda);
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find("__nv_sinf"), std::string::npos);
}

TEST(LowerTargets, EveryOperationGoesThroughTheHostBackend) {
  std::string assembly = to_assembly(every_operation_module(), TargetKind::Cpu);
  EXPECT_NE(assembly.find("sinf"), std::string::npos);
}

TEST(LowerTargets, EveryFunctionOfAFastmathGpuModuleCarriesFastmathsAttributes) {
  // A helper kept out of line (a large call tree) compiled without them:
  // `add.f32` where the same code inlined had `add.ftz.f32`, so a result
  // depended on the helper's size. Every function gets them, or none.
  const ir::Module m = typed(R"SRC(
@cuda.jit(device=True)
def h(x):
    return x / (x + 1.5)

@vectorize(["float32(float32)"], fastmath=True)
def f(x):
    return h(x) + h(x + 1.0)
)SRC");
  for (bool fastmath : {false, true}) {
    llvm::LLVMContext ctx;
    llvm::Module out("fastmath", ctx);
    LoweringTarget target;
    target.kind = TargetKind::Cuda;
    target.fastmath = fastmath;
    lower_module(m, out, "t.", target);
    std::size_t defined = 0;
    for (const llvm::Function &fn : out) {
      if (fn.isDeclaration()) continue;
      ++defined;
      EXPECT_EQ(fn.hasFnAttribute("denormal-fp-math-f32"), fastmath) << fn.getName().str();
      EXPECT_EQ(fn.hasFnAttribute("unsafe-fp-math"), fastmath) << fn.getName().str();
    }
    EXPECT_GE(defined, 2u) << "the helper and the ufunc";
  }
}

}  // namespace
}  // namespace ufjit::codegen::testing
