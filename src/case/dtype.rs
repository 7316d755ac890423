//! Element types of case buffers and the numbers case files write.
//!
//! A buffer is a flat array of one [`DType`], held on the host as little-endian bytes (the
//! device's layout). A number in a case file is a [`Num`]: a TOML integer, a TOML float, or a
//! string (for values TOML cannot hold: integers above `i64::MAX`, hexadecimal integers, and
//! exact float bit patterns in PTX's `0f`/`0d` notation). [`DType::encode`] converts a `Num`
//! to an element with range checks; [`DType::format`] prints an element for reports.

use half::{bf16, f16};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// The element type of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
    F16,
    BF16,
    F32,
    F64,
}

/// Every type name, in the order the docs list them.
pub const DTYPE_NAMES: &str = "u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64";

impl DType {
    pub const ALL: [DType; 12] = [
        DType::U8,
        DType::S8,
        DType::U16,
        DType::S16,
        DType::U32,
        DType::S32,
        DType::U64,
        DType::S64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// The case-file name (`f32`).
    pub fn name(self) -> &'static str {
        match self {
            DType::U8 => "u8",
            DType::S8 => "s8",
            DType::U16 => "u16",
            DType::S16 => "s16",
            DType::U32 => "u32",
            DType::S32 => "s32",
            DType::U64 => "u64",
            DType::S64 => "s64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// Parse a case-file type name.
    pub fn parse(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::S8 => 1,
            DType::U16 | DType::S16 | DType::F16 | DType::BF16 => 2,
            DType::U32 | DType::S32 | DType::F32 => 4,
            DType::U64 | DType::S64 | DType::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// The inclusive range of an integer type (`None` for floats).
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.size() as u32;
        match self {
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Some((0, (1i128 << bits) - 1)),
            DType::S8 | DType::S16 | DType::S32 | DType::S64 => {
                Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
            }
            _ => None,
        }
    }

    /// The `.npy` type string (`<f4`), `None` for bf16 (numpy has no bfloat16).
    pub fn npy_descr(self) -> Option<&'static str> {
        Some(match self {
            DType::U8 => "|u1",
            DType::S8 => "|i1",
            DType::U16 => "<u2",
            DType::S16 => "<i2",
            DType::U32 => "<u4",
            DType::S32 => "<i4",
            DType::U64 => "<u8",
            DType::S64 => "<i8",
            DType::F16 => "<f2",
            DType::BF16 => return None,
            DType::F32 => "<f4",
            DType::F64 => "<f8",
        })
    }

    /// Append the element for `v` (little-endian) to `out`. Integers must be in range (floats
    /// with an integral value are accepted); floats are rounded to nearest from f64 (or taken
    /// as exact bits from a `0f`/`0d` literal of the same width). Errors say why.
    pub fn encode(self, v: Num, out: &mut Vec<u8>) -> Result<(), String> {
        if let Some((lo, hi)) = self.int_range() {
            let i = match v {
                Num::Int(i) => i,
                Num::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e38 => f as i128,
                Num::Float(f) => {
                    return Err(format!("{f} is not an integer (type {})", self.name()))
                }
                Num::Bits { .. } => {
                    return Err(format!(
                        "{v} is a float bit pattern; type {} is an integer",
                        self.name()
                    ))
                }
            };
            if i < lo || i > hi {
                return Err(format!(
                    "{i} is out of range for {} ({lo} to {hi})",
                    self.name()
                ));
            }
            out.extend_from_slice(&(i as u64).to_le_bytes()[..self.size()]);
            return Ok(());
        }
        if let Num::Bits { bits, width } = v {
            return match (self, width) {
                (DType::F32, 32) => {
                    out.extend_from_slice(&(bits as u32).to_le_bytes());
                    Ok(())
                }
                (DType::F64, 64) => {
                    out.extend_from_slice(&bits.to_le_bytes());
                    Ok(())
                }
                _ => Err(format!(
                    "{v} is a {width}-bit float bit pattern; type is {}",
                    self.name()
                )),
            };
        }
        let f = match v {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
            Num::Bits { .. } => unreachable!("handled above"),
        };
        let at = out.len();
        self.encode_f64(f, out);
        if f.is_finite() && matches!(self.decode(&out[at..]), Elem::Float(g, _) if g.is_infinite())
        {
            out.truncate(at);
            return Err(format!(
                "{f:?} is too large for {} (it would be an infinity; write inf for one)",
                self.name()
            ));
        }
        Ok(())
    }

    /// Append float `f` converted (round to nearest even) to this float type.
    /// Integer types: `f` is truncated toward zero and saturated (only used by generators that
    /// already produce in-range values).
    pub fn encode_f64(self, f: f64, out: &mut Vec<u8>) {
        match self {
            DType::F16 => out.extend_from_slice(&f16::from_f64(f).to_bits().to_le_bytes()),
            DType::BF16 => out.extend_from_slice(&bf16::from_f64(f).to_bits().to_le_bytes()),
            DType::F32 => out.extend_from_slice(&(f as f32).to_le_bytes()),
            DType::F64 => out.extend_from_slice(&f.to_le_bytes()),
            _ => self.encode_wrapping(f as i128, out),
        }
    }

    /// Append integer `i` reduced modulo 2^bits (two's complement wrap-around).
    pub fn encode_wrapping(self, i: i128, out: &mut Vec<u8>) {
        out.extend_from_slice(&(i as u64).to_le_bytes()[..self.size()]);
    }

    /// Decode one element (exactly `size()` bytes).
    pub fn decode(self, b: &[u8]) -> Elem {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let raw = u64::from_le_bytes(w);
        match self {
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Elem::Int(raw as i128),
            DType::S8 => Elem::Int(raw as u8 as i8 as i128),
            DType::S16 => Elem::Int(raw as u16 as i16 as i128),
            DType::S32 => Elem::Int(raw as u32 as i32 as i128),
            DType::S64 => Elem::Int(raw as i64 as i128),
            DType::F16 => Elem::Float(f16::from_bits(raw as u16).to_f64(), raw),
            DType::BF16 => Elem::Float(bf16::from_bits(raw as u16).to_f64(), raw),
            DType::F32 => Elem::Float(f32::from_bits(raw as u32) as f64, raw),
            DType::F64 => Elem::Float(f64::from_bits(raw), raw),
        }
    }

    /// Print one element as a report shows it: integers in decimal, floats in the shortest
    /// form that reads back to the same value in their own type (`1.5`, `NaN`, `-inf`).
    pub fn format(self, b: &[u8]) -> String {
        match self.decode(b) {
            Elem::Int(i) => i.to_string(),
            Elem::Float(_, raw) => match self {
                DType::F16 => f16::from_bits(raw as u16).to_string(),
                DType::BF16 => bf16::from_bits(raw as u16).to_string(),
                DType::F32 => f32::from_bits(raw as u32).to_string(),
                _ => f64::from_bits(raw).to_string(),
            },
        }
    }

    /// The raw bits of one element in hexadecimal (`0x3fc00000`).
    pub fn format_bits(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        format!(
            "{:#0width$x}",
            u64::from_le_bytes(w),
            width = 2 + 2 * self.size()
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl<'de> Deserialize<'de> for DType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        DType::parse(&s)
            .ok_or_else(|| de::Error::custom(format!("unknown type '{s}' (types: {DTYPE_NAMES})")))
    }
}

/// A decoded element: an integer, or a float as f64 with its raw bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    Int(i128),
    Float(f64, u64),
}

/// A number written in a case file (or on the command line).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer (TOML integer, or a string holding a decimal or `0x` hexadecimal integer).
    Int(i128),
    /// A float (TOML float, including `nan`, `inf`, `-inf`).
    Float(f64),
    /// Exact float bits: `"0f3F800000"` (32-bit) or `"0d3FF0000000000000"` (64-bit), as PTX writes them.
    Bits { bits: u64, width: u8 },
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x:?}"),
            Num::Bits { bits, width: 32 } => write!(f, "0f{bits:08X}"),
            Num::Bits { bits, .. } => write!(f, "0d{bits:016X}"),
        }
    }
}

impl Num {
    /// Parse a number from text: a decimal or `0x`/`-0x` hexadecimal integer, a float
    /// (`2.5`, `1e-3`, `nan`, `inf`, `-inf`), or PTX float bits `0fXXXXXXXX` / `0dXXXXXXXXXXXXXXXX`.
    pub fn parse(s: &str) -> Result<Num, String> {
        let t = s.trim().replace('_', "");
        let bad = || format!("'{s}' is not a number");
        let (neg, body) = match t.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, t.strip_prefix('+').unwrap_or(&t)),
        };
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            let v = u128::from_str_radix(h, 16).map_err(|_| bad())?;
            let v = i128::try_from(v).map_err(|_| bad())?;
            return Ok(Num::Int(if neg { -v } else { v }));
        }
        for (prefix, width) in [("0f", 32u8), ("0F", 32), ("0d", 64), ("0D", 64)] {
            if let Some(h) = body.strip_prefix(prefix) {
                if neg || h.len() != width as usize / 4 {
                    return Err(format!(
                        "'{s}': a {prefix} literal has exactly {} hex digits",
                        width / 4
                    ));
                }
                let bits = u64::from_str_radix(h, 16).map_err(|_| bad())?;
                return Ok(Num::Bits { bits, width });
            }
        }
        if !body.is_empty() && body.bytes().all(|c| c.is_ascii_digit()) {
            let v: i128 = body.parse().map_err(|_| bad())?;
            // "-0" is negative zero, as reports print it (for integer types it is 0).
            if neg && v == 0 {
                return Ok(Num::Float(-0.0));
            }
            return Ok(Num::Int(if neg { -v } else { v }));
        }
        match body.to_ascii_lowercase().as_str() {
            "nan" => return Ok(Num::Float(if neg { -f64::NAN } else { f64::NAN })),
            "inf" | "infinity" => {
                return Ok(Num::Float(if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }))
            }
            _ => {}
        }
        let looks_float = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && body
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
        if !looks_float {
            return Err(bad());
        }
        t.parse::<f64>().map(Num::Float).map_err(|_| bad())
    }

    /// The value as f64 (ints converted, bit patterns reinterpreted).
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
            Num::Bits { bits, width: 32 } => f32::from_bits(bits as u32) as f64,
            Num::Bits { bits, .. } => f64::from_bits(bits),
        }
    }

    /// The value as an integer, if it is one (an integral float counts).
    pub fn as_int(self) -> Option<i128> {
        match self {
            Num::Int(i) => Some(i),
            Num::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e38 => Some(f as i128),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number (integer, float, or a string such as \"0x80000000\" or \"0f3F800000\")")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num::Int(v as i128))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num::Int(v as i128))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num::Float(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Num::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_numbers() {
        assert_eq!(Num::parse("12").unwrap(), Num::Int(12));
        assert_eq!(Num::parse("-0x10").unwrap(), Num::Int(-16));
        assert_eq!(
            Num::parse("18446744073709551615").unwrap(),
            Num::Int(u64::MAX as i128)
        );
        assert_eq!(Num::parse("2.5").unwrap(), Num::Float(2.5));
        assert_eq!(Num::parse("-1e3").unwrap(), Num::Float(-1000.0));
        assert_eq!(Num::parse("-inf").unwrap(), Num::Float(f64::NEG_INFINITY));
        assert!(matches!(Num::parse("nan").unwrap(), Num::Float(f) if f.is_nan()));
        assert!(
            matches!(Num::parse("-0").unwrap(), Num::Float(f) if f == 0.0 && f.is_sign_negative())
        );
        let mut b = vec![];
        DType::S32
            .encode(Num::parse("-0").unwrap(), &mut b)
            .unwrap();
        assert_eq!(b, [0, 0, 0, 0]);
        assert_eq!(
            Num::parse("0f3F800000").unwrap(),
            Num::Bits {
                bits: 0x3F80_0000,
                width: 32
            }
        );
        assert!(Num::parse("0f3F80").is_err());
        assert!(Num::parse("abc").is_err());
        assert!(Num::parse("1.2.3").is_err());
        assert!(Num::parse("").is_err());
    }

    #[test]
    fn finite_floats_too_large_for_the_type_are_errors() {
        let mut b = vec![];
        // f32's largest finite value is 3.4028235e38; f16's 65504; bf16's about 3.39e38.
        let e = DType::F32.encode(Num::Float(1e40), &mut b).unwrap_err();
        assert!(e.contains("too large for f32"), "{e}");
        assert!(DType::F16.encode(Num::Float(1e6), &mut b).is_err());
        assert!(DType::F16.encode(Num::Int(70000), &mut b).is_err());
        assert!(DType::BF16.encode(Num::Float(3.5e38), &mut b).is_err());
        assert!(b.is_empty(), "nothing appended on error");
        DType::F32.encode(Num::Float(3.4e38), &mut b).unwrap();
        DType::F16.encode(Num::Float(65504.0), &mut b).unwrap();
        DType::F32
            .encode(Num::Float(f64::INFINITY), &mut b)
            .unwrap();
        assert_eq!(b.len(), 4 + 2 + 4);
    }

    #[test]
    fn encode_checks_ranges() {
        let mut b = vec![];
        assert!(DType::U8.encode(Num::Int(256), &mut b).is_err());
        assert!(DType::S8.encode(Num::Int(-129), &mut b).is_err());
        assert!(DType::U32.encode(Num::Float(1.5), &mut b).is_err());
        DType::S16.encode(Num::Int(-2), &mut b).unwrap();
        DType::U32.encode(Num::Float(7.0), &mut b).unwrap();
        assert_eq!(b, [0xfe, 0xff, 7, 0, 0, 0]);
        let mut b = vec![];
        DType::F32
            .encode(
                Num::Bits {
                    bits: 0x7fc0_0001,
                    width: 32,
                },
                &mut b,
            )
            .unwrap();
        assert_eq!(DType::F32.format_bits(&b), "0x7fc00001");
        assert!(DType::F64
            .encode(Num::Bits { bits: 1, width: 32 }, &mut b)
            .is_err());
    }

    #[test]
    fn decode_and_format() {
        let mut b = vec![];
        DType::F16.encode(Num::Float(1.5), &mut b).unwrap();
        assert_eq!(DType::F16.format(&b), "1.5");
        let mut b = vec![];
        DType::BF16.encode(Num::Int(3), &mut b).unwrap();
        assert_eq!(DType::BF16.format(&b), "3");
        assert_eq!(DType::S32.format(&(-5i32).to_le_bytes()), "-5");
        assert_eq!(DType::F32.format(&f32::NAN.to_le_bytes()), "NaN");
        assert_eq!(
            DType::U64.format(&u64::MAX.to_le_bytes()),
            "18446744073709551615"
        );
    }
}
