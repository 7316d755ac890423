# Host reference for nan_chain.toml. Inputs are NaNs with payloads, infinities, signed zeros
# and small numbers, so every finite fma/add/sub/mul is exact in double precision; div and
# sqrt are correctly rounded in double, and rounding those to f32 is then correct too
# (double has more than 2 * 24 + 2 bits). NaN results are the canonical NaN
# (0x7fffffff, 0x7fffffffffffffff: ptx-tests/isa/float_special.isa). The outputs are bit
# patterns (u32/u64), compared exactly. Prints the case body.
import math, struct

NAN = float("nan")
POOL32 = ["0f7FC00001", "0fFFC00123", "0f7F800001", "0f7FFFFFFF", "inf", "-inf", "0", "-0.0",
          "1", "2", "-3", "0.5", "4", "-1"]
POOL64 = ["0d7FF8000000000001", "0dFFF0000000000042", "inf", "-inf", "0", "-0.0", "1", "3",
          "-2", "0.25"]

def val(s):
    if s.startswith("0f"):
        return struct.unpack("<f", bytes.fromhex(s[2:])[::-1])[0]
    if s.startswith("0d"):
        return struct.unpack("<d", bytes.fromhex(s[2:])[::-1])[0]
    return float(s)

def f32(x):  # round a double to f32
    return struct.unpack("<f", struct.pack("<f", x))[0] if not math.isnan(x) else NAN

def div(x, y):
    if y == 0:
        if x == 0 or math.isnan(x):
            return NAN
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y

def sqrt(x):
    if math.isnan(x) or x < 0:
        return NAN
    return math.sqrt(x)

def bits32(x):
    return "0x7FFFFFFF" if math.isnan(x) else "0x%08X" % struct.unpack("<I", struct.pack("<f", x))[0]

def bits64(x):
    return "0x7FFFFFFFFFFFFFFF" if math.isnan(x) else "0x%016X" % struct.unpack("<Q", struct.pack("<d", x))[0]

n = 32
A = [POOL32[i % len(POOL32)] for i in range(n)]
B = [POOL32[(i * 7 + 3) % len(POOL32)] for i in range(n)]
C = [POOL32[(i * 5 + 1) % len(POOL32)] for i in range(n)]
DA = [POOL64[i % len(POOL64)] for i in range(n)]
DB = [POOL64[(i * 3 + 2) % len(POOL64)] for i in range(n)]
mid, out, dout = [], [], []
for i in range(n):
    a, b, c = val(A[i]), val(B[i]), val(C[i])
    x = f32(a * b + c)            # fma.rn.f32: exact here
    y = f32(x * b + a)
    mid.append(bits32(y))
    z = f32(y + c)
    z = f32(z * a)
    z = f32(z - b)
    z = f32(div(z, b))
    out.append(bits32(f32(sqrt(z))))
    da, db = val(DA[i]), val(DB[i])
    u = da * db + da              # fma.rn.f64: exact here
    u = u + db
    u = u * da
    dout.append(bits64(sqrt(u)))

def lst(v):
    return "[" + ", ".join(f'"{x}"' for x in v) + "]"

print(f'''ptx = "nan_chain.ptx"
kernel = "nan_chain"
grid = [1, 1, 1]
block = [{n}, 1, 1]
args = [{{ buffer = "a" }}, {{ buffer = "b" }}, {{ buffer = "c" }}, {{ buffer = "mid" }}, {{ buffer = "out" }},
        {{ buffer = "da" }}, {{ buffer = "db" }}, {{ buffer = "dout" }}]
''')
for name, t, v in [("a", "f32", A), ("b", "f32", B), ("c", "f32", C), ("da", "f64", DA), ("db", "f64", DB)]:
    print(f'[buffers.{name}]\ntype = "{t}"\ninit = {{ values = {lst(v)} }}\n')
for name, t in [("mid", "u32"), ("out", "u32"), ("dout", "u64")]:
    print(f'[buffers.{name}]\ntype = "{t}"\nlen = {n}\n')
for name, v in [("mid", mid), ("out", out), ("dout", dout)]:
    print(f'[expect.{name}]\nvalues = {lst(v)}\n')
