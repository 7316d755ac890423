//! CUDA's device-side `printf` (`vprintf(fmt, args)`, CUDA C++ Programming Guide "Formatted
//! Output"): the format string is a generic address of a NUL-terminated string; the arguments
//! are packed in a buffer at a generic address, each at its natural alignment (integers 4
//! bytes, or 8 with `l`/`ll`/`z`/`j`/`t`; floating-point values promoted to `double`, 8 bytes;
//! `%s` and `%p` pointers 8 bytes). Formatting follows C's `printf` for the conversions
//! `d i u o x X c s f F e E g G a A p %` with flags, width and precision. The text goes to the
//! launching context's [`PrintfOutput`] (stdout unless the host chose another [`PrintfSink`]).

/// Read-only access to device memory for the formatter: `byte(addr)` is `None` for an
/// address the thread may not read.
pub trait DeviceBytes {
    fn byte(&self, addr: u64) -> Option<u8>;
}

/// Longest format or `%s` string read (bytes).
const MAX_STR: u64 = 4096;

/// The NUL-terminated string at generic address `addr` (at most 4096 bytes), lossily as
/// UTF-8; `"(unreadable)"` when the thread may not read it.
pub fn c_string(mem: &dyn DeviceBytes, addr: u64) -> String {
    match read_cstr(mem, addr) {
        Some(b) => String::from_utf8_lossy(&b).into_owned(),
        None => "(unreadable)".to_string(),
    }
}

fn read_cstr(mem: &dyn DeviceBytes, addr: u64) -> Option<Vec<u8>> {
    let mut out = vec![];
    for i in 0..MAX_STR {
        match mem.byte(addr.wrapping_add(i))? {
            0 => return Some(out),
            b => out.push(b),
        }
    }
    Some(out)
}

struct Args<'m> {
    mem: &'m dyn DeviceBytes,
    base: u64,
    off: u64,
}

impl Args<'_> {
    fn next(&mut self, size: u64) -> u64 {
        self.off = self.off.div_ceil(size) * size;
        let mut v = 0u64;
        for i in 0..size {
            let b = self
                .mem
                .byte(self.base.wrapping_add(self.off + i))
                .unwrap_or(0);
            v |= (b as u64) << (8 * i);
        }
        self.off += size;
        v
    }
}

/// Format one `printf` call. Returns the text, or `None` when the format string cannot be
/// read (the caller reports a fault).
pub fn format(mem: &dyn DeviceBytes, fmt_addr: u64, args_addr: u64) -> Option<String> {
    let fmt = read_cstr(mem, fmt_addr)?;
    let mut args = Args {
        mem,
        base: args_addr,
        off: 0,
    };
    let mut out = String::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            // Copy a run of literal bytes (UTF-8 passes through).
            let start = i - 1;
            while i < fmt.len() && fmt[i] != b'%' {
                i += 1;
            }
            out.push_str(&String::from_utf8_lossy(&fmt[start..i]));
            continue;
        }
        let (mut left, mut plus, mut space, mut alt, mut zero) =
            (false, false, false, false, false);
        while i < fmt.len() {
            match fmt[i] {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'0' => zero = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        if i < fmt.len() && fmt[i] == b'*' {
            let w = args.next(4) as u32 as i32;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        }
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = width * 10 + (fmt[i] - b'0') as usize;
            i += 1;
        }
        let mut prec: Option<usize> = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            let mut p = 0usize;
            if i < fmt.len() && fmt[i] == b'*' {
                let v = args.next(4) as u32 as i32;
                i += 1;
                prec = (v >= 0).then_some(v as usize);
            } else {
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = p * 10 + (fmt[i] - b'0') as usize;
                    i += 1;
                }
                prec = Some(p);
            }
        }
        let mut long = false;
        // `h`/`hh`: the (int-promoted) argument converted to short/char before printing.
        let mut short_bits = 0u32;
        while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'z' | b'j' | b't' | b'L' | b'q') {
            match fmt[i] {
                b'l' | b'z' | b'j' | b't' | b'q' => long = true,
                b'h' => short_bits = if short_bits == 16 { 8 } else { 16 },
                _ => {}
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.push('%');
            break;
        };
        i += 1;
        let isize_ = if long { 8 } else { 4 };
        let (sign, body): (&str, String) = match conv {
            b'%' => {
                out.push('%');
                continue;
            }
            b'd' | b'i' => {
                let v = args.next(isize_);
                let v = match (long, short_bits) {
                    (true, _) => v as i64,
                    (false, 8) => v as u8 as i8 as i64,
                    (false, 16) => v as u16 as i16 as i64,
                    _ => v as u32 as i32 as i64,
                };
                let digits = int_digits(v.unsigned_abs(), 10, false, prec);
                let sign = if v < 0 {
                    "-"
                } else if plus {
                    "+"
                } else if space {
                    " "
                } else {
                    ""
                };
                (sign, digits)
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = args.next(isize_);
                let v = match (long, short_bits) {
                    (true, _) => v,
                    (false, 8) => v as u8 as u64,
                    (false, 16) => v as u16 as u64,
                    _ => v as u32 as u64,
                };
                let (radix, upper) = match conv {
                    b'x' => (16, false),
                    b'X' => (16, true),
                    b'o' => (8, false),
                    _ => (10, false),
                };
                let mut d = int_digits(v, radix, upper, prec);
                // `#`: `0x`/`0X` before a nonzero hex value; for `o` a first digit of 0, which
                // a zero printed with precision 0 (no digits otherwise) gets too (C11
                // §7.21.6.1: "increases the precision ... to force the first digit of the
                // result to be a zero").
                if alt {
                    d = match conv {
                        b'x' if v != 0 => format!("0x{d}"),
                        b'X' if v != 0 => format!("0X{d}"),
                        b'o' if !d.starts_with('0') => format!("0{d}"),
                        _ => d,
                    };
                }
                ("", d)
            }
            b'c' => {
                // A `0` flag pads a character with spaces, as glibc does (C leaves it
                // undefined), like a string.
                zero = false;
                ("", ((args.next(4) as u8) as char).to_string())
            }
            b's' => {
                let p = args.next(8);
                let s = if p == 0 {
                    "(null)".to_string()
                } else {
                    match read_cstr(mem, p) {
                        Some(b) => String::from_utf8_lossy(&b).to_string(),
                        // The GPU would fault; the text says so instead of printing nothing.
                        None => format!("(unreadable string at 0x{p:x})"),
                    }
                };
                let s = match prec {
                    Some(n) => s.chars().take(n).collect(),
                    None => s,
                };
                zero = false;
                ("", s)
            }
            b'p' => ("", format!("0x{:x}", args.next(8))),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let x = f64::from_bits(args.next(8));
                let sign = if x.is_sign_negative() && !x.is_nan() {
                    "-"
                } else if plus {
                    "+"
                } else if space {
                    " "
                } else {
                    ""
                };
                let upper = conv.is_ascii_uppercase();
                let body = if !x.is_finite() {
                    zero = false;
                    let t = if x.is_nan() { "nan" } else { "inf" };
                    if upper {
                        t.to_uppercase()
                    } else {
                        t.to_string()
                    }
                } else {
                    let a = x.abs();
                    let lower = conv.to_ascii_lowercase();
                    let mut b = match lower {
                        b'f' => format!("{:.*}", prec.unwrap_or(6), a),
                        b'e' => exp_form(a, prec.unwrap_or(6)),
                        b'g' => g_form(a, prec.unwrap_or(6), alt),
                        _ => hex_form(a, prec),
                    };
                    // `#`: the decimal point is printed even when no digit follows it (C11
                    // §7.21.6.1), before the exponent where there is one.
                    if alt && !b.contains('.') {
                        let exp = if lower == b'a' { 'p' } else { 'e' };
                        let at = b.find(exp).unwrap_or(b.len());
                        b.insert(at, '.');
                    }
                    if upper {
                        b.to_uppercase()
                    } else {
                        b
                    }
                };
                (sign, body)
            }
            other => {
                // Unknown conversion: printed as written.
                out.push('%');
                out.push(other as char);
                continue;
            }
        };
        let len = sign.len() + body.chars().count();
        let pad = width.saturating_sub(len);
        let int_prec = matches!(conv, b'd' | b'i' | b'u' | b'x' | b'X' | b'o') && prec.is_some();
        if left {
            out.push_str(sign);
            out.push_str(&body);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if zero && !int_prec {
            out.push_str(sign);
            // Zeros go after a 0x prefix.
            let (pre, rest) = if body.starts_with("0x") || body.starts_with("0X") {
                body.split_at(2)
            } else {
                ("", body.as_str())
            };
            out.push_str(pre);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(rest);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(sign);
            out.push_str(&body);
        }
    }
    Some(out)
}

fn int_digits(v: u64, radix: u32, upper: bool, prec: Option<usize>) -> String {
    let mut s = match radix {
        16 if upper => format!("{v:X}"),
        16 => format!("{v:x}"),
        8 => format!("{v:o}"),
        _ => v.to_string(),
    };
    if let Some(p) = prec {
        if p == 0 && v == 0 {
            s.clear();
        } else if s.len() < p {
            s = "0".repeat(p - s.len()) + &s;
        }
    }
    s
}

/// `%a` of a non-negative finite value (C11 §7.21.6.1): `0x1.hhhp+d` for normal values,
/// `0x0.hhhp-1022` for subnormals, `0x0p+0` for zero; without a precision as many hex digits
/// as the value needs, with one the fraction rounded to nearest even to that many digits.
fn hex_form(a: f64, prec: Option<usize>) -> String {
    let bits = a.to_bits();
    let (exp_field, mut frac) = ((bits >> 52) as i64, bits & ((1u64 << 52) - 1));
    if a == 0.0 {
        let digits = prec.map(|p| "0".repeat(p)).unwrap_or_default();
        let dot = if digits.is_empty() { "" } else { "." };
        return format!("0x0{dot}{digits}p+0");
    }
    let (mut lead, exp) = if exp_field == 0 {
        (0u64, -1022)
    } else {
        (1u64, exp_field - 1023)
    };
    let mut ndig = 13usize;
    if let Some(p) = prec.filter(|&p| p < 13) {
        // Keep p hex digits of the 52-bit fraction, rounding the rest to nearest even.
        let drop = 4 * (13 - p) as u32;
        let kept = frac >> drop;
        let rest = frac & ((1u64 << drop) - 1);
        let half = 1u64 << (drop - 1);
        let mut k = kept;
        // Ties go to the even last digit (the leading digit when no fraction digit is kept).
        let odd = if p == 0 { lead & 1 == 1 } else { kept & 1 == 1 };
        if rest > half || (rest == half && odd) {
            k += 1;
        }
        if k >> (4 * p) != 0 {
            // The fraction carried into the leading digit.
            lead += 1;
            k &= (1u64 << (4 * p)) - 1;
        }
        frac = k;
        ndig = p;
    }
    let mut digits = if ndig == 0 {
        String::new()
    } else {
        format!("{frac:0ndig$x}")
    };
    if let Some(p) = prec {
        while digits.len() < p {
            digits.push('0');
        }
    } else {
        while digits.ends_with('0') {
            digits.pop();
        }
    }
    let dot = if digits.is_empty() { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("0x{lead}{dot}{digits}p{sign}{}", exp.abs())
}

/// `%e` of a non-negative finite value: `d.ddddde+XX`.
fn exp_form(a: f64, prec: usize) -> String {
    let s = format!("{a:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%g` of a non-negative finite value (C11 §7.21.6.1).
fn g_form(a: f64, prec: usize, alt: bool) -> String {
    let p = prec.max(1);
    let e = if a == 0.0 {
        0
    } else {
        let s = format!("{a:.*e}", p - 1);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut s = if (p as i32) > e && e >= -4 {
        format!("{a:.*}", (p as i32 - 1 - e) as usize)
    } else {
        exp_form(a, p - 1)
    };
    if !alt {
        let (m, tail) = match s.find('e') {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            m
        };
        s = m + &tail;
    }
    s
}

/// Where device `printf` output and the messages of failed device `assert`s go: a
/// context's sink (`host::Context::set_printf_sink`). Each warp's text is written whole, in
/// one call, so lines of different warps never interleave.
///
/// As CUDA does, `printf` text goes to standard output and failed-assertion lines to standard
/// error (CUDA C++ Programming Guide, "Formatted Output" and "Assertion": "each thread for
/// which expression is equal to zero prints a message to stderr"), a launch's assertion lines
/// after its `printf` text; the other sinks keep both, in that order.
#[derive(Default)]
pub enum PrintfSink {
    /// The process's standard output for `printf`, flushed after each warp's text, and its
    /// standard error for failed-assertion lines (CUDA's behaviour; the default).
    #[default]
    Stdout,
    /// The process's standard error (the CLI's `run --json`, whose stdout is one JSON object).
    Stderr,
    /// Kept in memory until read with `host::Context::take_printf_output` (or
    /// [`PrintfOutput::take_captured_streams`], which keeps the two streams apart).
    Capture,
    /// Any writer, flushed after each warp's text.
    Writer(Box<dyn std::io::Write + Send>),
}

impl std::fmt::Debug for PrintfSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PrintfSink::Stdout => "Stdout",
            PrintfSink::Stderr => "Stderr",
            PrintfSink::Capture => "Capture",
            PrintfSink::Writer(_) => "Writer(..)",
        })
    }
}

/// Which of CUDA's two output streams a piece of device text belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceStream {
    /// Device `printf` output (CUDA writes it to standard output).
    Printf,
    /// Failed-`assert` lines (CUDA writes them to standard error).
    Assert,
}

/// A context's printf output: the sink and the text captured so far (in order, each piece
/// with its stream). Kernel code on several worker threads writes to it at once (through
/// `CtaEnv::printf`); a lock keeps each warp's text whole.
#[derive(Debug, Default)]
pub struct PrintfOutput {
    inner: std::sync::Mutex<(PrintfSink, Vec<(DeviceStream, String)>)>,
}

impl PrintfOutput {
    fn lock(&self) -> std::sync::MutexGuard<'_, (PrintfSink, Vec<(DeviceStream, String)>)> {
        // A writer that panicked leaves the sink as it was: keep using it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Send later output to `sink`; returns the previous sink. Text captured so far stays
    /// until [`take_captured`](Self::take_captured).
    pub fn set_sink(&self, sink: PrintfSink) -> PrintfSink {
        std::mem::replace(&mut self.lock().0, sink)
    }

    /// The text captured (with [`PrintfSink::Capture`]) since the last call, both streams in
    /// the order written, and clear it.
    pub fn take_captured(&self) -> String {
        std::mem::take(&mut self.lock().1)
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }

    /// The text captured since the last call as runs of one stream each, in the order
    /// written (a front end that writes `printf` text to standard output and assertion lines
    /// to standard error, as CUDA does), and clear it.
    pub fn take_captured_streams(&self) -> Vec<(DeviceStream, String)> {
        std::mem::take(&mut self.lock().1)
    }

    /// Write one warp's `printf` text to the sink, whole. Write errors are ignored: device
    /// `printf` output is best effort, as on a GPU (whose printf buffer drops what does not
    /// fit).
    pub fn write(&self, text: &str) {
        self.write_to(DeviceStream::Printf, text);
    }

    /// Write a launch's failed-assertion lines to the sink, whole: standard error under
    /// [`PrintfSink::Stdout`], as CUDA prints them.
    pub fn write_assert(&self, text: &str) {
        self.write_to(DeviceStream::Assert, text);
    }

    fn write_to(&self, stream: DeviceStream, text: &str) {
        use std::io::Write;
        let mut g = self.lock();
        let (sink, captured) = &mut *g;
        match (sink, stream) {
            (PrintfSink::Stdout, DeviceStream::Printf) => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            (PrintfSink::Stdout, DeviceStream::Assert) | (PrintfSink::Stderr, _) => {
                // (Standard output was flushed after each warp's text: the lines follow it.)
                let mut out = std::io::stderr().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            (PrintfSink::Capture, _) => match captured.last_mut() {
                Some((s, t)) if *s == stream => t.push_str(text),
                _ => captured.push((stream, text.to_string())),
            },
            (PrintfSink::Writer(w), _) => {
                let _ = w.write_all(text.as_bytes());
                let _ = w.flush();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mem(Vec<u8>);
    impl DeviceBytes for Mem {
        fn byte(&self, addr: u64) -> Option<u8> {
            self.0.get(addr as usize).copied()
        }
    }

    /// C printf results (glibc) for each format.
    #[test]
    fn formats_like_c() {
        let mut m = b"x=%d u=%u h=%#x s=%s f=%.3f e=%e g=%g|%5d|%-4d|%05.1f|%c%%\0".to_vec();
        let s_at = m.len() as u64;
        m.extend(b"hi\0");
        while !m.len().is_multiple_of(8) {
            m.push(0);
        }
        let args_at = m.len() as u64;
        let mut a = vec![];
        a.extend((-42i32).to_le_bytes());
        a.extend(7u32.to_le_bytes());
        a.extend(255u32.to_le_bytes());
        a.extend(0u32.to_le_bytes()); // padding to 8
        a.extend(s_at.to_le_bytes());
        a.extend(3.14659f64.to_le_bytes());
        a.extend(12345.678f64.to_le_bytes());
        a.extend(0.0001f64.to_le_bytes());
        a.extend(42i32.to_le_bytes());
        a.extend(7i32.to_le_bytes());
        a.extend(2.25f64.to_le_bytes());
        a.extend((b'Z' as u32).to_le_bytes());
        m.extend(a);
        let got = format(&Mem(m), 0, args_at).expect("readable");
        assert_eq!(
            got,
            "x=-42 u=7 h=0xff s=hi f=3.147 e=1.234568e+04 g=0.0001|   42|7   |002.2|Z%"
        );
    }

    /// `%a` as glibc prints it.
    #[test]
    fn hex_floats_like_c() {
        assert_eq!(hex_form(std::f64::consts::PI, None), "0x1.921fb54442d18p+1");
        assert_eq!(hex_form(0.1, None), "0x1.999999999999ap-4");
        assert_eq!(hex_form(1.0, None), "0x1p+0");
        assert_eq!(hex_form(0.5, None), "0x1p-1");
        assert_eq!(hex_form(255.0, None), "0x1.fep+7");
        assert_eq!(hex_form(0.0, None), "0x0p+0");
        assert_eq!(hex_form(5e-324, None), "0x0.0000000000001p-1022");
        assert_eq!(hex_form(1.0, Some(1)), "0x1.0p+0");
        assert_eq!(hex_form(1.5, Some(0)), "0x2p+0");
        assert_eq!(hex_form(1.03125, Some(1)), "0x1.0p+0");
        assert_eq!(hex_form(1.09375, Some(1)), "0x1.2p+0");
    }

    /// `hh`/`h` convert the promoted int to char/short first (C11 §7.21.6.1).
    #[test]
    fn short_length_modifiers() {
        let mut m = b"%hhd %hd %hhu %hhx %d\0".to_vec();
        while !m.len().is_multiple_of(8) {
            m.push(0);
        }
        let args_at = m.len() as u64;
        for v in [300i32, 70000, 300, 0x1ff, 300] {
            m.extend(v.to_le_bytes());
        }
        assert_eq!(format(&Mem(m), 0, args_at).unwrap(), "44 4464 44 ff 300");
    }

    /// Formats `fmt` with one 8-byte argument (an `f64`'s bits, or an integer).
    fn one(fmt: &str, arg: u64) -> String {
        let mut m = fmt.as_bytes().to_vec();
        m.push(0);
        while !m.len().is_multiple_of(8) {
            m.push(0);
        }
        let args_at = m.len() as u64;
        m.extend(arg.to_le_bytes());
        format(&Mem(m), 0, args_at).expect("readable")
    }

    /// The `#` flag and `%c` with a `0` flag as glibc's printf prints them (the expected
    /// strings are glibc's output for the same format and value).
    #[test]
    fn alternative_forms_like_c() {
        let f = |fmt: &str, x: f64| one(fmt, x.to_bits());
        assert_eq!(f("%#.0f", 3.0), "3.");
        assert_eq!(f("%#.0f", -0.0), "-0.");
        assert_eq!(f("%#8.0f", 2.5), "      2.");
        assert_eq!(f("%-#4.0f|", 1.0), "1.  |");
        assert_eq!(f("%#.0e", 1.0), "1.e+00");
        assert_eq!(f("%#.0E", 0.0), "0.E+00");
        assert_eq!(f("%#g", 123456.789), "123457.");
        assert_eq!(f("%#.1g", 0.0), "0.");
        assert_eq!(f("%#.0g", 1e-5), "1.e-05");
        assert_eq!(f("%#.3g", 1e-5), "1.00e-05");
        assert_eq!(f("%#a", 1.0), "0x1.p+0");
        assert_eq!(f("%#.0A", 1.5), "0X2.P+0");
        assert_eq!(f("%#a", 0.0), "0x0.p+0");
        assert_eq!(f("%#.3f", 2.5), "2.500");
        assert_eq!(f("%#f", 1e-5), "0.000010");
        assert_eq!(one("%#.0o", 0), "0");
        assert_eq!(one("%#8.0o|", 0), "       0|");
        assert_eq!(one("%-#8.0o|", 0), "0       |");
        assert_eq!(one("%#o", 8), "010");
        assert_eq!(one("%#.0x|", 0), "|");
        assert_eq!(one("%#x", 0), "0");
        assert_eq!(one("%08c|", 42), "       *|");
        assert_eq!(one("%-08c|", 42), "*       |");
    }

    #[test]
    fn g_switches_to_exponent_form() {
        assert_eq!(g_form(1e-5, 6, false), "1e-05");
        assert_eq!(g_form(123456789.0, 6, false), "1.23457e+08");
        assert_eq!(g_form(100.0, 6, false), "100");
        assert_eq!(g_form(0.5, 6, true), "0.500000");
    }
}
