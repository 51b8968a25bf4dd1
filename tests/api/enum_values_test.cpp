// Values of the public API's enums that are none of their enumerators (a
// uint8_t DType holds 14..255; a cast or deserialised value): every one is an
// InputError naming the field and the value where it enters, never a trap,
// an abort or an InternalError further in. Also the structs' other fields
// that have a range (RuntimeOptions, CompileRequest).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ufjit/compiler.h>
#include <ufjit/ufjit.h>

namespace {

using ufjit::ArrayView;
using ufjit::DType;
using ufjit::InputError;

/// Every value an enum of underlying type uint8_t can hold that is not one
/// of its `count` enumerators.
std::vector<unsigned> values_past(unsigned count) {
  std::vector<unsigned> values;
  for (unsigned v = count; v <= 255; ++v) {
    values.push_back(v);
  }
  return values;
}

template <typename F>
void expect_input_error(const F &call, const std::string &needle, const std::string &what) {
  try {
    call();
    ADD_FAILURE() << what << ": accepted";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << what << ": " << e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << what << ": not an InputError: " << e.what();
  }
}

class EnumValues : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
    add_ = rt_->vectorize("@vectorize(identity=0)\ndef add(a, b):\n    return a + b\n", {"float64(float64, float64)"});
  }
  static void TearDownTestSuite() {
    add_ = ufjit::Ufunc();
    rt_.reset();
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static ufjit::Ufunc add_;
  std::vector<double> x_ = {1.0, 2.0, 3.0};
  std::vector<double> y_ = {0.0, 0.0, 0.0};
};
std::unique_ptr<ufjit::Runtime> EnumValues::rt_;
ufjit::Ufunc EnumValues::add_;

TEST_F(EnumValues, EveryDTypeValuePastTheEnumeratorsIsRefusedInAView) {
  for (unsigned value : values_past(ufjit::kNumDTypes)) {
    ArrayView v = ufjit::view(x_);
    v.dtype = static_cast<DType>(value);
    const std::string what = "dtype " + std::to_string(value);
    expect_input_error([&] { (void)add_(v, 1.0); }, "dtype value " + std::to_string(value), what + " as an input");
    expect_input_error([&] { (void)add_(ufjit::view(x_), 1.0, ufjit::out(v)); }, "dtype value", what + " as out");
    expect_input_error([&] { (void)add_.reduce(v); }, "dtype value", what + " in reduce");
    expect_input_error([&] { (void)rt_->to_host(v); }, "dtype value", what + " in to_host");
  }
  EXPECT_EQ(y_, (std::vector<double>{0.0, 0.0, 0.0}));  // nothing was written
}

TEST_F(EnumValues, EveryResidenceValuePastHostAndDeviceIsRefused) {
  for (unsigned value : values_past(2)) {
    ArrayView v = ufjit::view(x_);
    v.residence = static_cast<ufjit::Residence>(value);
    expect_input_error([&] { (void)add_(v, 1.0); }, "residence value " + std::to_string(value),
                       "residence " + std::to_string(value));
  }
}

TEST_F(EnumValues, ANegativeDeviceOrdinalOfADeviceViewIsRefused) {
  ArrayView v = ufjit::view(x_);
  v.residence = ufjit::Residence::Device;
  v.device = -3;
  expect_input_error([&] { (void)add_(v, 1.0); }, "device -3", "device -3");
}

TEST_F(EnumValues, ScalarsWithADTypeValuePastTheEnumeratorsOrAStrongDTypeMarkedWeakAreRefused) {
  for (unsigned value : values_past(ufjit::kNumDTypes)) {
    ufjit::Operand s(2.0);
    s.scalar.dtype = static_cast<DType>(value);
    expect_input_error([&] { (void)add_(ufjit::view(x_), s); }, "dtype value", "scalar dtype " + std::to_string(value));
  }
  ufjit::Operand weak_float32(2.0);
  weak_float32.scalar.dtype = DType::Float32;
  expect_input_error([&] { (void)add_(ufjit::view(x_), weak_float32); }, "weak scalar of dtype float32",
                     "a weak float32 scalar");
}

TEST_F(EnumValues, OperandKindValuesPastOutAreRefused) {
  for (unsigned value : values_past(3)) {
    ufjit::Operand op(ufjit::view(x_));
    op.kind = static_cast<ufjit::Operand::Kind>(value);
    expect_input_error([&] { (void)add_(op, 1.0); }, "kind value " + std::to_string(value),
                       "kind " + std::to_string(value));
    expect_input_error([&] { (void)add_.reduce(op); }, "kind value", "kind in reduce");
  }
}

TEST_F(EnumValues, MethodOptionsWithAnInvalidDTypeOrInitialAreRefused) {
  ufjit::ReduceOptions reduce;
  reduce.dtype = static_cast<DType>(99);
  expect_input_error([&] { (void)add_.reduce(ufjit::view(x_), reduce); }, "dtype= of 'add'.reduce", "reduce dtype=");
  ufjit::AccumulateOptions accumulate;
  accumulate.dtype = static_cast<DType>(200);
  expect_input_error([&] { (void)add_.accumulate(ufjit::view(x_), accumulate); }, "dtype value 200",
                     "accumulate dtype=");
  ufjit::ReduceOptions initial;
  initial.initial = ufjit::Operand(1.0);
  initial.initial->scalar.dtype = static_cast<DType>(77);
  expect_input_error([&] { (void)add_.reduce(ufjit::view(x_), initial); }, "initial of 'add'.reduce", "initial=");
}

TEST_F(EnumValues, TargetValuesPastCudaAreRefusedWhereverATargetIsGiven) {
  for (unsigned value : values_past(2)) {
    const auto target = static_cast<ufjit::TargetKind>(value);
    expect_input_error([&] { (void)add_.call_on(target, {ufjit::view(x_), 1.0}); }, "not a ufjit::TargetKind",
                       "call_on");
    expect_input_error([&] { ufjit::Runtime rt(ufjit::RuntimeOptions{.target = target}); },
                       "RuntimeOptions::target", "RuntimeOptions::target");
    EXPECT_STREQ(ufjit::target_name(target), "<not a target>");
  }
}

TEST_F(EnumValues, DTypeFunctionsOfThePublicHeaderAreTotal) {
  for (unsigned value : values_past(ufjit::kNumDTypes)) {
    const auto bad = static_cast<DType>(value);
    EXPECT_EQ(ufjit::dtype_name(bad), "<not a dtype>");
    EXPECT_EQ(ufjit::dtype_size(bad), 0u);
    EXPECT_THROW((void)ufjit::promote(bad, DType::Float32), InputError);
    EXPECT_THROW((void)ufjit::can_cast_safe(DType::Int8, bad), InputError);
    EXPECT_THROW((void)ufjit::Array::host(bad, {2}), InputError);
  }
}

TEST_F(EnumValues, RuntimeOptionsOutOfRangeAreRefused) {
  expect_input_error([] { ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu, .device = -1}); },
                     "RuntimeOptions::device is -1", "device -1");
  expect_input_error(
      [] { ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu, .cpu_threads = -4}); },
      "RuntimeOptions::cpu_threads is -4", "cpu_threads -4");
}

TEST_F(EnumValues, CompileRequestFieldsOutOfRangeAreRefused) {
  ufjit::CompileRequest request;
  request.source = "@vectorize(['float64(float64)'])\ndef f(x):\n    return x\n";
  request.emit = static_cast<ufjit::EmitKind>(42);
  expect_input_error([&] { (void)ufjit::compile(request); }, "CompileRequest::emit value 42", "emit 42");
  request.emit = ufjit::EmitKind::Ir;
  request.error_limit = -1;
  expect_input_error([&] { (void)ufjit::compile(request); }, "CompileRequest::error_limit is -1", "error_limit");
}

}  // namespace
