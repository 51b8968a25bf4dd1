#!/usr/bin/python3
"""Writes semantic_numpy_function_cases.h: the np.* functions of
typer/NumpyFunctions.cpp and the complex/integer forms of NumpyCalls.cpp, with
expected values computed by the NumPy this runs (Debian's 1.24) on one-element
arrays (so that a Python float next to a float32 array stays float32, as NEP 50
has it for scalars too), and Python's exact integers for the mixed
signed/unsigned comparisons NumPy >= 1.25 makes exact.

    /usr/bin/python3 tests/api/gen_numpy_function_cases.py > tests/api/semantic_numpy_function_cases.h
"""
import math
import warnings

import numpy as np

INF = math.inf
NAN = math.nan

CTOR = {np.float64: "f64", np.float32: "f32", np.float16: "f16", np.int8: "i8", np.int16: "i16",
        np.int32: "i32", np.int64: "i64", np.uint8: "u8", np.uint16: "u16", np.uint32: "u32",
        np.uint64: "u64", np.complex128: "c128", np.complex64: "c64", np.bool_: "boolean"}
NAME = {np.float64: "float64", np.float32: "float32", np.float16: "float16", np.int8: "int8",
        np.int16: "int16", np.int32: "int32", np.int64: "int64", np.uint8: "uint8", np.uint16: "uint16",
        np.uint32: "uint32", np.uint64: "uint64", np.complex128: "complex128", np.complex64: "complex64",
        np.bool_: "bool"}


def real(x):
    x = float(x)
    if math.isnan(x):
        return "kNaN"
    if math.isinf(x):
        return "kInf" if x > 0 else "-kInf"
    return repr(x)


def literal(dtype, v):
    ctor = CTOR[dtype]
    if dtype in (np.complex128, np.complex64):
        v = complex(v)
        return "%s(%s, %s)" % (ctor, real(v.real), real(v.imag))
    if dtype in (np.float64, np.float32, np.float16):
        return "%s(%s)" % (ctor, real(v))
    if dtype is np.bool_:
        return "boolean(%s)" % ("true" if v else "false")
    v = int(v)
    if dtype is np.int64 and v == -2**63:
        return "i64(kI64Min)"
    if dtype is np.uint64:
        return "u64(%du)" % v
    return "%s(%d)" % (ctor, v)


CASES = []


def case(name, body, params, out, rows, fn, ulps=0, signed_zero=False):
    """rows: tuples of inputs (Python numbers); fn(*one_element_arrays) -> expected."""
    lines = []
    for row in rows:
        arrays = [np.array([v], dtype=t) for v, t in zip(row, params)]
        expected = fn(*arrays)
        expected = np.asarray(expected).astype(out)[0]
        ins = ", ".join(literal(t, a[0]) for t, a in zip(params, arrays))
        lines.append("{{%s}, %s}" % (ins, literal(out, expected)))
    names = "xyzw"[:len(params)]
    source = "import numpy as np\\n\\ndef f(%s):\\n" % ", ".join(names)
    source += "".join("    %s\\n" % line for line in body.split("\n"))
    signature = "%s(%s)" % (NAME[out], ", ".join(NAME[t] for t in params))
    CASES.append((name, source, signature, lines, ulps, signed_zero))


def main():
    warnings.simplefilter("ignore")
    f64, f32, f16 = np.float64, np.float32, np.float16
    pairs = [(0.0, 0.0), (INF, INF), (-INF, -INF), (INF, -INF), (1.0, NAN), (NAN, NAN), (1000.0, 1000.5),
             (-1000.0, 3.0), (3.0, 1.0), (1e-300, 2.0), (-50.0, -49.0), (-INF, 2.0)]
    for fn in ("logaddexp", "logaddexp2"):
        for t in (f64, f32):
            case("Npf_%s_%s" % (fn, NAME[t].capitalize()), "return np.%s(x, y)" % fn, [t, t], t, pairs,
                 getattr(np, fn), ulps=4)
    case("Npf_logaddexp_OfInt32IsFloat64", "return np.logaddexp(x, y)", [np.int32, np.int32], f64,
         [(1, 2), (-3, 7), (0, 0)], np.logaddexp, ulps=2)

    ldexp_rows = [(1.5, 3), (1.0, -1074), (1.0, 1024), (-0.0, 5), (INF, -3), (NAN, 2), (3.0, -2**40),
                  (3.0, 2**40), (0.75, 0)]
    case("Npf_ldexp_Float64Int64ClampsHugeExponents", "return np.ldexp(x, y)", [f64, np.int64], f64, ldexp_rows,
         np.ldexp, signed_zero=True)
    case("Npf_ldexp_Float32Int32", "return np.ldexp(x, y)", [f32, np.int32], f32,
         [(1.5, 3), (1.0, -149), (1.0, 128), (-2.5, -1)], np.ldexp, signed_zero=True)
    case("Npf_ldexp_Int8IsFloat16", "return np.ldexp(x, y)", [np.int8, np.int8], f16,
         [(3, 2), (-1, -24), (1, 16), (100, -3)], np.ldexp)
    case("Npf_ldexp_UInt64Exponent", "return np.ldexp(x, y)", [f64, np.uint64], f64,
         [(1.0, 3), (1.0, 2**63), (0.0, 2**64 - 1)], lambda x, n: np.ldexp(x, np.minimum(n, 100000).astype(np.int64)))

    frexp_values = [0.0, -0.0, 1.0, -3.5, 1e-310, 1e300, INF, -INF, NAN, 0.1]
    for t in (f64, f32):
        rows = [(v,) for v in frexp_values]
        case("Npf_frexp_Mantissa_%s" % NAME[t].capitalize(), "return np.frexp(x)[0]", [t], t, rows,
             lambda x: np.frexp(x)[0], signed_zero=True)
        case("Npf_frexp_Exponent_%s" % NAME[t].capitalize(), "return np.frexp(x)[1]", [t], np.int32, rows,
             lambda x: np.frexp(x)[1])
        case("Npf_modf_Fraction_%s" % NAME[t].capitalize(), "return np.modf(x)[0]", [t], t,
             [(v,) for v in (2.5, -2.5, -0.0, INF, -INF, NAN, 7.0, -1e-5)], lambda x: np.modf(x)[0],
             signed_zero=True)
        case("Npf_modf_Integral_%s" % NAME[t].capitalize(), "return np.modf(x)[1]", [t], t,
             [(v,) for v in (2.5, -2.5, -0.0, INF, -INF, NAN, 7.0, -1e-5)], lambda x: np.modf(x)[1],
             signed_zero=True)
    case("Npf_frexp_OfInt8IsFloat16", "return np.frexp(x)[0]", [np.int8], f16, [(3,), (-128,), (0,)],
         lambda x: np.frexp(x)[0])
    case("Npf_frexp_UnpackedRoundTripsThroughLdexp", "m, e = np.frexp(x)\nreturn np.ldexp(m, e)", [f64], f64,
         [(v,) for v in (0.1, -3.5, 1e-310, 1e300)], lambda x: x)

    int_div = [(7, 2), (-7, 2), (7, -2), (-7, -2), (5, 0), (0, 3)]
    case("Npf_divmod_Int64", "q, r = np.divmod(x, y)\nreturn q * 1000 + r", [np.int64, np.int64], np.int64,
         int_div, lambda x, y: np.floor_divide(x, y) * 1000 + np.remainder(x, y))
    case("Npf_divmod_Int8Wraps", "q, r = np.divmod(x, y)\nreturn q * 2 + r", [np.int8, np.int8], np.int8,
         [(-128, -1), (-128, 3), (127, -1)], lambda x, y: np.floor_divide(x, y) * 2 + np.remainder(x, y))
    float_div = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (INF, 2.0),
                 (-0.0, 3.0), (5.0, INF)]
    case("Npf_divmod_Quotient_Float64", "return np.divmod(x, y)[0]", [f64, f64], f64, float_div,
         lambda x, y: np.divmod(x, y)[0], signed_zero=True)
    case("Npf_divmod_Remainder_Float64", "return np.divmod(x, y)[1]", [f64, f64], f64, float_div,
         lambda x, y: np.divmod(x, y)[1], signed_zero=True)

    spacing_values = [0.0, -0.0, 1.0, -1.0, 1e-310, 3.5, -3.5, -1e300, INF, -INF, NAN]
    for t in (f64, f32, f16):
        extra = [float(np.finfo(t).max), -float(np.finfo(t).max), -float(np.finfo(t).tiny)]
        case("Npf_spacing_%s" % NAME[t].capitalize(), "return np.spacing(x)", [t], t,
             [(v,) for v in spacing_values + extra], np.spacing, signed_zero=True)

    heaviside_rows = [(-1.0, 0.5), (0.0, 0.5), (-0.0, 0.5), (2.0, 0.5), (NAN, 0.5), (0.0, NAN), (-INF, 0.5),
                      (INF, 0.5), (1e-320, 0.25)]
    for t in (f64, f32):
        case("Npf_heaviside_%s" % NAME[t].capitalize(), "return np.heaviside(x, y)", [t, t], t, heaviside_rows,
             np.heaviside, signed_zero=True)
    case("Npf_heaviside_OfInt8IsFloat16", "return np.heaviside(x, y)", [np.int8, np.int8], f16,
         [(-3, 5), (0, 5), (4, 5)], np.heaviside)

    gcd_rows = {np.int8: [(-128, 6), (-128, 0), (12, -18), (0, 0), (7, 13), (100, 3), (-4, 6), (-128, 3)],
                np.int32: [(-2**31, 6), (12, 18), (0, -5), (1071, 462), (2**30, 2**20), (65536, 65536)],
                np.int64: [(-2**63, 0), (2**62, 6), (-12, -18), (10**18, 10**12), (3, 5)],
                np.uint8: [(200, 150), (0, 7), (255, 255), (16, 24)],
                np.uint64: [(2**64 - 2, 6), (2**63, 2**62), (0, 0), (3, 2**63)]}
    for t, rows in gcd_rows.items():
        for fn in ("gcd", "lcm"):
            case("Npf_%s_%s" % (fn, NAME[t].capitalize()), "return np.%s(x, y)" % fn, [t, t], t, rows,
                 getattr(np, fn))

    round_values = [2.675, -2.675, 1.005, 1234.5678, 0.5, 1.5, 2.5, -0.5, 1e300, -1e-300, INF, NAN, 123456.789]
    for t in (f64, f32):
        for d in (2, 0, -2):
            case("Npf_round_%sDecimals%s" % (NAME[t].capitalize(), str(d).replace("-", "Minus")),
                 "return np.round(x, %d)" % d, [t], t, [(v,) for v in round_values],
                 lambda x, d=d: np.round(x, d), signed_zero=True)
        case("Npf_around_%sDecimalsAtRunTime" % NAME[t].capitalize(), "return np.around(x, y)", [t, np.int64], t,
             [(v, d) for v in (2.675, -1234.5678, 0.125, 1e300) for d in (3, 1, 0, -1, -3, 22, -22, 400)],
             lambda x, d: np.round(x, int(d[0])), ulps=1, signed_zero=False)
    case("Npf_round__Float16", "return np.round_(x, 1)", [f16], f16, [(v,) for v in (2.675, -0.25, 1000.0, 0.05)],
         lambda x: np.round(x, 1))
    case("Npf_round_Int64NegativeDecimals", "return np.round(x, -2)", [np.int64], np.int64,
         [(v,) for v in (1250, 1350, -1250, 49, -51, 10**15 + 50)], lambda x: np.round(x, -2))
    case("Npf_round_Int8DecimalsAtRunTime", "return np.round(x, y)", [np.int8, np.int64], np.int8,
         [(125, -1), (-125, -1), (125, 2), (33, 0), (-128, -2)], lambda x, d: np.round(x, int(d[0])))
    case("Npf_round_Complex128", "return np.round(x, 1)", [np.complex128], np.complex128,
         [(complex(1.25, -2.35),), (complex(-0.05, 7.75),), (complex(NAN, 1.26),)], lambda x: np.round(x, 1))

    fmod_rows = {np.int32: [(-7, 2), (7, -2), (-7, -2), (5, 0), (-2**31, -1), (-2**31, 3), (0, 5)],
                 np.int8: [(-128, -1), (-128, 7), (100, -7)], np.uint8: [(250, 7), (7, 0), (3, 250)]}
    for t, rows in fmod_rows.items():
        case("Npf_fmod_%s" % NAME[t].capitalize(), "return np.fmod(x, y)", [t, t], t, rows, np.fmod)
    case("Npf_reciprocal_Int32", "return np.reciprocal(x)", [np.int32], np.int32,
         [(1,), (-1,), (2,), (-3,), (100,)], np.reciprocal)

    cvalues = [complex(0.5, 0.25), complex(-1.5, 2.0), complex(3.0, -0.75), complex(0.0, 1.0), complex(-0.25, -0.5)]
    for fn in ("exp2", "log2", "expm1", "log1p"):
        for t in (np.complex128, np.complex64):
            case("Npf_%s_%s" % (fn, NAME[t].capitalize()), "return np.%s(x)" % fn, [t], t, [(v,) for v in cvalues],
                 getattr(np, fn), ulps=8)
    for t in (np.complex128, np.complex64):
        case("Npf_rint_%s" % NAME[t].capitalize(), "return np.rint(x)", [t], t,
             [(complex(2.5, -3.5),), (complex(-0.4, 1.6),), (complex(NAN, 2.2),)], np.rint, signed_zero=True)

    cpairs = [(complex(1, 2), complex(1, 3)), (complex(1, 2), complex(1, 2)), (complex(2, 0), complex(1, 5)),
              (complex(1, NAN), complex(2, 0)), (complex(2, NAN), complex(1, 0)), (complex(NAN, 0), complex(1, 0)),
              (complex(1, 0), complex(1, NAN)), (complex(-1, 5), complex(-1, -5))]
    order = "return np.greater(x, y) + 2 * np.greater_equal(x, y) + 4 * np.less(x, y) + 8 * np.less_equal(x, y)"
    for t in (np.complex128, np.complex64):
        case("Npf_ordering_%s" % NAME[t].capitalize(), order, [t, t], np.int64, cpairs,
             lambda a, b: (np.greater(a, b) + 2 * np.greater_equal(a, b).astype(np.int64) + 4 * np.less(a, b)
                           + 8 * np.less_equal(a, b).astype(np.int64)))
        for fn in ("maximum", "minimum", "fmax", "fmin"):
            case("Npf_%s_%s" % (fn, NAME[t].capitalize()), "return np.%s(x, y)" % fn, [t, t], t, cpairs,
                 getattr(np, fn))

    # NumPy >= 1.25 and Python compare int64 with uint64 exactly (not through float64).
    mixed = [(-1, 2**64 - 1), (2**53 + 1, 2**53), (2**63 - 1, 2**63), (5, 5), (-2**63, 0), (7, 3)]
    exact = "return (x < y) + 2 * (x <= y) + 4 * np.greater(x, y) + 8 * np.greater_equal(x, y) + 16 * (x == y) + 32 * np.not_equal(x, y)"
    case("Npf_CompareInt64WithUInt64IsExact", exact, [np.int64, np.uint64], np.int64, mixed,
         lambda a, b: np.array([(int(a[0]) < int(b[0])) + 2 * (int(a[0]) <= int(b[0])) + 4 * (int(a[0]) > int(b[0]))
                                + 8 * (int(a[0]) >= int(b[0])) + 16 * (int(a[0]) == int(b[0]))
                                + 32 * (int(a[0]) != int(b[0]))]))
    case("Npf_CompareUInt64WithInt32IsExact", "return (x < y) + 2 * (x > y) + 4 * (x == y)", [np.uint64, np.int32],
         np.int64, [(2**64 - 1, -1), (3, 3), (2**63, 2**31 - 1), (0, -2**31)],
         lambda a, b: np.array([(int(a[0]) < int(b[0])) + 2 * (int(a[0]) > int(b[0])) + 4 * (int(a[0]) == int(b[0]))]))

    # NumPy functions (not ufuncs) Numba supports on scalars.
    sinc_values = [0.0, 0.5, -1.5, 3.0, 1e-8, 100.25, INF, NAN]
    for t in (f64, f32):
        case("Npf_sinc_%s" % NAME[t].capitalize(), "return np.sinc(x)", [t], t, [(v,) for v in sinc_values],
             np.sinc, ulps=4)
    case("Npf_sinc_OfInt32IsFloat64", "return np.sinc(x)", [np.int32], f64, [(0,), (2,), (-3,)], np.sinc, ulps=4)
    case("Npf_sinc_Complex128", "return np.sinc(x)", [np.complex128], np.complex128,
         [(complex(0.5, 0.25),), (0j,), (complex(-1.5, 1.0),)], np.sinc, ulps=8)
    angle_values = [complex(1, 1), complex(-1, 0), complex(-1, -0.0), complex(0, -2), complex(NAN, 1), 0j]
    for t in (np.complex128, np.complex64):
        part = f64 if t is np.complex128 else f32
        case("Npf_angle_%s" % NAME[t].capitalize(), "return np.angle(x)", [t], part, [(v,) for v in angle_values],
             np.angle, ulps=2, signed_zero=True)
    case("Npf_angle_DegOfFloat64", "return np.angle(x, deg=True)", [f64], f64, [(v,) for v in (-2.0, 3.0, -0.0, 0.0)],
         lambda x: np.angle(x, deg=True), ulps=2, signed_zero=True)
    case("Npf_angle_OfInt8IsFloat16", "return np.angle(x, True)", [np.int8], f16, [(-1,), (5,)],
         lambda x: np.angle(x, True), ulps=2)
    n2n_values = [NAN, INF, -INF, 1.5, -0.0]
    for t in (f64, f32, f16):
        case("Npf_nan_to_num_%s" % NAME[t].capitalize(), "return np.nan_to_num(x)", [t], t,
             [(v,) for v in n2n_values], np.nan_to_num, signed_zero=True)
    case("Npf_nan_to_num_Complex128", "return np.nan_to_num(x)", [np.complex128], np.complex128,
         [(complex(NAN, INF),), (complex(-INF, 2),)], np.nan_to_num)
    case("Npf_isneginf_isposinf", "return np.isneginf(x) + 2 * np.isposinf(x)", [f64], np.int64,
         [(v,) for v in (-INF, INF, NAN, 0.0, -1e308)],
         lambda x: np.isneginf(x).astype(np.int64) + 2 * np.isposinf(x).astype(np.int64))
    case("Npf_iscomplex_isreal", "return np.iscomplex(x) + 2 * np.isreal(x) + 4 * np.iscomplexobj(x) + 8 * np.isrealobj(x)",
         [np.complex128], np.int64, [(complex(1, 0),), (complex(1, -0.0),), (complex(0, 2),), (complex(NAN, NAN),)],
         lambda x: (np.iscomplex(x).astype(np.int64) + 2 * np.isreal(x).astype(np.int64) + 4 * np.iscomplexobj(x)
                    + 8 * np.isrealobj(x)))
    case("Npf_iscomplex_isreal_OfFloat64", "return np.iscomplex(x) + 2 * np.isreal(x) + 4 * np.iscomplexobj(x)",
         [f64], np.int64, [(1.5,), (NAN,)],
         lambda x: np.iscomplex(x).astype(np.int64) + 2 * np.isreal(x).astype(np.int64) + 4 * np.iscomplexobj(x))

    print("// Generated by tests/api/gen_numpy_function_cases.py from NumPy " + np.__version__ + "; do not edit.")
    print("// np.* functions of typer/NumpyFunctions.cpp and the complex/integer forms of NumpyCalls.cpp.")
    print("#pragma once\n\n#include <vector>\n\nnamespace semantic {\n")
    print("inline std::vector<Case> numpy_function_cases() {")
    print("  using namespace detail;")
    print("  std::vector<Case> cases;")
    for name, source, signature, lines, ulps, signed_zero in CASES:
        print('  cases.push_back(make("%s", "%s", "%s",' % (name, source, signature))
        print("                       {%s}," % ",\n                        ".join(lines))
        print("                       %s, %s));" % (repr(float(ulps)), "true" if signed_zero else "false"))
    print("  return cases;")
    print("}\n\n}  // namespace semantic")


if __name__ == "__main__":
    main()
