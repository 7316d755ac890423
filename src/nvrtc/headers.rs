//! The C and C++ standard headers that ptxjit gives every NVRTC compilation in memory.
//!
//! NVRTC has no host headers: `#include <cstdio>` or `<stdint.h>`, which most CUDA files
//! start with, fails ("cannot open source file"). NVRTC already declares what device code
//! can use of them (`printf`, `malloc`/`free`, `memcpy`/`memset`, the math library's float
//! and double overloads at global scope), so these headers only add the names the standard
//! puts in them: the fixed-width integer types and limits (from libcu++, which the CCCL
//! wheel provides, so that `<cuda/std/cstdint>` in the same file agrees), `<float.h>`'s
//! limits (IEEE 754 binary32/binary64 values, as C11 §5.2.4.2.2 names them), `INFINITY`,
//! `NAN`, `HUGE_VAL*` and POSIX's `M_*` constants, and for the `<c...>` forms the same
//! names in namespace `std`. C++ library headers (`<type_traits>`, `<limits>`, …) are not
//! given: use libcu++'s `<cuda/std/...>` ones.

/// `(include name, text)` of every header given in memory.
pub const MEMORY_HEADERS: [(&str, &str); 16] = [
    ("assert.h", ASSERT_H),
    ("cassert", ASSERT_H),
    ("stdio.h", STDIO_H),
    ("cstdio", CSTDIO),
    ("stdint.h", STDINT_H),
    ("cstdint", CSTDINT),
    ("stddef.h", STDDEF_H),
    ("cstddef", CSTDDEF),
    ("limits.h", LIMITS_H),
    ("climits", LIMITS_H),
    ("float.h", FLOAT_H),
    ("cfloat", FLOAT_H),
    ("math.h", MATH_H),
    ("cmath", CMATH),
    ("stdlib.h", STDLIB_H),
    ("cstdlib", CSTDLIB),
];

/// `<assert.h>`: the assert of NVRTC's builtin header (a failed assert calls `__assertfail`,
/// which traps; `NDEBUG` turns it off).
const ASSERT_H: &str = "\
// <assert.h> as ptxjit gives it to NVRTC: the assert of NVRTC's builtin header.
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
#define assert(e) ((e) ? static_cast<void>(0) \\
    : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
";

const STDIO_H: &str = "\
// <stdio.h> as ptxjit gives it to NVRTC: device code's printf is NVRTC's builtin.
#pragma once
";

const CSTDIO: &str = "\
// <cstdio> as ptxjit gives it to NVRTC: device code's printf is NVRTC's builtin.
#pragma once
namespace std { using ::printf; }
";

const STDINT_H: &str = "\
// <stdint.h> as ptxjit gives it to NVRTC: libcu++'s definitions.
#pragma once
#include <cuda/std/cstdint>
";

const CSTDINT: &str = "\
// <cstdint> as ptxjit gives it to NVRTC: libcu++'s definitions, also in namespace std.
#pragma once
#include <cuda/std/cstdint>
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;
using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;
using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;
using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
";

const STDDEF_H: &str = "\
// <stddef.h> as ptxjit gives it to NVRTC: libcu++'s definitions.
#pragma once
#include <cuda/std/cstddef>
";

const CSTDDEF: &str = "\
// <cstddef> as ptxjit gives it to NVRTC: libcu++'s definitions, also in namespace std.
#pragma once
#include <cuda/std/cstddef>
namespace std { using ::size_t; using ::ptrdiff_t; using cuda::std::nullptr_t; }
";

const LIMITS_H: &str = "\
// <limits.h> as ptxjit gives it to NVRTC: libcu++'s definitions.
#pragma once
#include <cuda/std/climits>
";

const FLOAT_H: &str = "\
// <float.h> as ptxjit gives it to NVRTC: IEEE 754 binary32 and binary64.
#pragma once
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859812e+38F
#define DBL_MAX 1.79769313486231570815e+308
#define FLT_EPSILON 1.19209289550781250000e-7F
#define DBL_EPSILON 2.22044604925031308085e-16
#define FLT_MIN 1.17549435082228750797e-38F
#define DBL_MIN 2.22507385850720138309e-308
#define FLT_TRUE_MIN 1.40129846432481707092e-45F
#define DBL_TRUE_MIN 4.94065645841246544177e-324
#define FLT_HAS_SUBNORM 1
#define DBL_HAS_SUBNORM 1
#define FLT_EVAL_METHOD 0
";

const MATH_H: &str = "\
// <math.h> as ptxjit gives it to NVRTC: the functions are NVRTC's builtins; INFINITY and NAN
// from libcu++; HUGE_VAL* and POSIX's M_* constants.
#pragma once
#include <cuda/std/cmath>
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (static_cast<double>(INFINITY))
#endif
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
";

const CMATH: &str = "\
// <cmath> as ptxjit gives it to NVRTC: <math.h>, and NVRTC's builtin functions (float and
// double overloads) in namespace std.
#pragma once
#include <math.h>
namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma;
using ::fmax; using ::fmin; using ::fdim; using ::exp; using ::exp2; using ::expm1;
using ::log; using ::log10; using ::log2; using ::log1p; using ::pow; using ::sqrt;
using ::cbrt; using ::hypot; using ::sin; using ::cos; using ::tan; using ::asin;
using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh;
using ::asinh; using ::acosh; using ::atanh; using ::erf; using ::erfc; using ::tgamma;
using ::lgamma; using ::ceil; using ::floor; using ::trunc; using ::round; using ::lround;
using ::llround; using ::nearbyint; using ::rint; using ::lrint; using ::llrint;
using ::frexp; using ::ldexp; using ::modf; using ::scalbn; using ::scalbln; using ::ilogb;
using ::logb; using ::nextafter; using ::copysign; using ::isnan; using ::isinf;
using ::isfinite; using ::signbit;
}
";

const STDLIB_H: &str = "\
// <stdlib.h> as ptxjit gives it to NVRTC: malloc and free are NVRTC's builtins.
#pragma once
#include <cuda/std/cstdlib>
";

const CSTDLIB: &str = "\
// <cstdlib> as ptxjit gives it to NVRTC: malloc and free are NVRTC's builtins, also in
// namespace std.
#pragma once
#include <cuda/std/cstdlib>
namespace std { using ::malloc; using ::free; using ::abs; using ::labs; using ::llabs; }
";
