//! Recursive and indirect calls (PTX ISA §9.7.12.4 `call`, §11.3.3–§11.3.5 `.callprototype`
//! and `.calltargets`) on a per-thread call stack in local memory.
//!
//! # Design
//! Direct calls to functions that are neither recursive nor have their address taken are
//! inlined (`lower::call`). The others — *shared* functions ([`CallGraph`]) — cannot be: a
//! call to one, or a call through a register, from inlined code (the kernel) opens a
//! **region**: one copy of every shared function the call can reach, run as a state machine.
//!
//! - A region has a *dispatcher* block and a per-thread `state` variable: the dispatcher
//!   branches on `state` to a function's entry, a call's return site, or (see below) a loop
//!   header. Every call and every `ret` inside the region sets `state` and jumps to the
//!   dispatcher; the external call's return site is the region's only exit.
//! - A call pushes a frame on the thread's stack (`sp`, a byte offset in local memory): the
//!   caller's registers (all variables of the calling function's body, and its frame base `fb`,
//!   when the caller is itself a shared function), the caller's `sp` and the return site's
//!   state id, then the callee's frame: its formals (laid out by signature, so every
//!   function of a prototype agrees), `.local` variables and call parameters. Inside a shared
//!   function a local symbol's address is `fb + offset`, so every activation has its own
//!   locals and a pointer into a caller's frame stays valid. `ret` reads the return state from
//!   the frame; the return site restores `sp`, copies the results out and reloads the caller's
//!   registers. `.reg` formals travel through the frame as well (the callee loads its
//!   parameters at entry and stores its results at `ret`), so that every candidate of an
//!   indirect call finds its arguments in the same places.
//! - An indirect call computes the target's entry state from the pointer value among the
//!   `.calltargets` list, or, with a `.callprototype`, among every function whose address is
//!   taken in the module with the same number of parameters and results. A call with no
//!   candidate at all (numba's runtime calls a destructor pointer that no function of the
//!   module matches) loads, and faults if it is reached. Function addresses
//!   are [`FUNC_ADDR_BASE`]` + 16 · k`, outside every state space's window.
//! - `CallCheck` (an IR warp op) guards each call: a pointer that is no candidate faults
//!   ("indirect call through …"), and a frame that would end past the stack (after the kernel's static
//!   local memory, `Function::call_stack`; its size is the launch's, `LaunchOptions::stack_bytes`,
//!   16 KiB by default) faults with "call stack overflow", naming
//!   the thread and the call depth; the thread then stops.
//!
//! # Why a state machine
//! The warp schedule (`analysis::schedule`) needs a reducible CFG. Return edges from one shared
//! function body to several call sites would enter loops from the side, and a function called
//! from two places of the kernel would be a loop with two entries. In a region every edge into
//! the dispatcher comes from inside it, and the dispatcher is the region's only entry, so the
//! region is one natural loop headed by the dispatcher. Loops *inside* shared function bodies
//! are made to pass through the dispatcher too: after a region is built, every retreating edge
//! of a depth-first walk from the dispatcher is redirected through it (set `state` to the
//! loop header's state, jump to the dispatcher). What remains without the edges into the
//! dispatcher is acyclic, so the region is reducible whatever the functions' control flow.
//!
//! Lanes of a warp may be at different recursion depths: each lane has its own `state`,
//! `sp`, `fb` and stack, and lanes that are at the same block run it together whatever their
//! depth; reconvergence happens where they meet (at the dispatcher's targets).

use super::build::{self, Builder, PBlock, PTerm, Sym, Var};
use super::call::{formal_size, formal_ty, param_symbol, write_reg};
use super::decode::Cx;
use super::LowerError;
use crate::ir::{ICmp, Op, Sign, Space, Type};
use crate::ptx::ast::{self, Operand, StateSpace};
use std::collections::{HashMap, HashSet};

/// The address of the `k`-th function (by name order) is `FUNC_ADDR_BASE + 16 * (k + 1)`:
/// above the generic shared and local windows, below global memory.
pub(crate) const FUNC_ADDR_BASE: u64 = 0x0000_000f_0000_0000;
/// The target state of an indirect call through a pointer that is no candidate.
const BAD_STATE: u64 = u32::MAX as u64;

/// Facts about a module's functions for calls.
#[derive(Debug, Default)]
pub(crate) struct CallGraph {
    /// Functions lowered as shared bodies in regions: recursive ones (in a cycle of direct
    /// calls, or of calls through pointers), those whose address is taken, and those whose
    /// chain of direct calls below is too long to inline (`call::MAX_DEPTH`).
    pub shared: HashSet<String>,
    /// Functions whose address is taken (`mov.u64 %rd, f`, `.calltargets`, an argument).
    pub address_taken: HashSet<String>,
    /// The address of every defined function.
    pub addr: HashMap<String, u64>,
    /// The functions each function may call: its direct callees, and every address-taken
    /// function when it calls through a register.
    pub callees: HashMap<String, Vec<String>>,
    /// The result counts of the module's declarations (prototypes without a body) by name.
    pub declared_results: HashMap<String, Vec<usize>>,
    /// The module's kernels (`.entry`), whose address only a device-side launch takes.
    pub entries: HashSet<String>,
}

impl CallGraph {
    /// The functions a kernel whose body is `body` may reach through calls, by name, sorted.
    pub(crate) fn reachable(
        &self,
        body: &[ast::Statement],
        funcs: &HashMap<String, &ast::Function>,
    ) -> Vec<String> {
        let mut taken = HashSet::new();
        let mut scan = Scan {
            funcs,
            calls: HashSet::new(),
            taken: &mut taken,
            indirect: false,
        };
        scan.stmts(body);
        let mut stack: Vec<String> = scan.calls.into_iter().collect();
        if scan.indirect {
            stack.extend(self.address_taken.iter().cloned());
        }
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(n) = stack.pop() {
            if let Some(next) = self.callees.get(&n) {
                stack.extend(next.iter().filter(|x| !seen.contains(*x)).cloned());
            }
            seen.insert(n);
        }
        let mut out: Vec<String> = seen.into_iter().collect();
        out.sort();
        out
    }
}

/// Collect the call graph of module `m`; `funcs` are its device functions by name.
pub(crate) fn call_graph(m: &ast::Module, funcs: &HashMap<String, &ast::Function>) -> CallGraph {
    let mut g = CallGraph::default();
    let mut names: Vec<&String> = funcs.keys().collect();
    names.sort();
    for (k, n) in names.iter().enumerate() {
        g.addr
            .insert((*n).clone(), FUNC_ADDR_BASE + 16 * (k as u64 + 1));
    }
    // Direct edges, and whether a function calls through a register.
    let mut edges: HashMap<String, HashSet<String>> = HashMap::new();
    let mut indirect: HashSet<String> = HashSet::new();
    for item in &m.items {
        if let ast::Item::Function(f) = item {
            if f.kind == ast::FunctionKind::Entry {
                g.entries.insert(f.name.name.clone());
            }
            if f.body.is_none() {
                g.declared_results
                    .entry(f.name.name.clone())
                    .or_default()
                    .push(f.returns.len());
            }
        }
    }
    // Functions named in module-scope initializers (tables of function pointers).
    for item in &m.items {
        if let ast::Item::Var(d) = item {
            let mut stack: Vec<&ast::Initializer> = d.init.iter().collect();
            while let Some(i) = stack.pop() {
                match i {
                    ast::Initializer::Symbol { name, .. } if funcs.contains_key(&name.name) => {
                        g.address_taken.insert(name.name.clone());
                    }
                    ast::Initializer::List(items, _) => stack.extend(items),
                    ast::Initializer::Mask { inner, .. } => stack.push(inner),
                    _ => {}
                }
            }
        }
    }
    for item in &m.items {
        let ast::Item::Function(f) = item else {
            continue;
        };
        let Some(body) = &f.body else { continue };
        let mut scan = Scan {
            funcs,
            calls: HashSet::new(),
            taken: &mut g.address_taken,
            indirect: false,
        };
        scan.stmts(body);
        if scan.indirect {
            indirect.insert(f.name.name.clone());
        }
        edges.insert(f.name.name.clone(), scan.calls);
    }
    let succ = |n: &str| -> Vec<String> {
        let mut s: Vec<String> = edges
            .get(n)
            .map(|e| e.iter().cloned().collect())
            .unwrap_or_default();
        if indirect.contains(n) {
            s.extend(g.address_taken.iter().cloned());
        }
        s
    };
    for name in funcs.keys() {
        // Recursive: reaches itself.
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack = succ(name);
        let mut recursive = false;
        while let Some(x) = stack.pop() {
            if &x == name {
                recursive = true;
                break;
            }
            if seen.insert(x.clone()) {
                stack.extend(succ(&x));
            }
        }
        if recursive || g.address_taken.contains(name) {
            g.shared.insert(name.clone());
        }
    }
    // Inlining nests the functions of a chain of direct calls (`lower::call`, at most
    // `call::MAX_DEPTH` deep; a shared function's body starts one deep). Where the chain
    // below a function is longer than that, the function runs on the call stack instead, and
    // the chains through it restart at its body: a chain of 400 non-recursive calls runs.
    let mut height: HashMap<String, usize> = HashMap::new();
    let mut roots: Vec<&String> = funcs.keys().collect();
    roots.sort();
    for root in roots {
        // Post-order over the direct calls (iterative: a chain may be long).
        let mut stack: Vec<(String, bool)> = vec![(root.clone(), false)];
        while let Some((n, callees_done)) = stack.pop() {
            if height.contains_key(&n) {
                continue;
            }
            if g.shared.contains(&n) {
                height.insert(n, 0);
                continue;
            }
            let direct: Vec<&String> = edges
                .get(&n)
                .map(|e| e.iter().collect())
                .unwrap_or_default();
            if !callees_done {
                stack.push((n.clone(), true));
                stack.extend(
                    direct
                        .into_iter()
                        .filter(|c| !height.contains_key(*c))
                        .map(|c| (c.clone(), false)),
                );
                continue;
            }
            let h = 1 + direct
                .iter()
                .map(|c| height.get(*c).copied().unwrap_or(0))
                .max()
                .unwrap_or(0);
            if h >= super::call::MAX_DEPTH {
                g.shared.insert(n.clone());
                height.insert(n, 0);
            } else {
                height.insert(n, h);
            }
        }
    }
    let names: Vec<String> = funcs.keys().cloned().collect();
    for name in names {
        let next = succ(&name);
        g.callees.insert(name, next);
    }
    g
}

/// A walk over a body collecting direct callees and functions whose address is taken.
struct Scan<'a, 'b> {
    funcs: &'a HashMap<String, &'a ast::Function>,
    calls: HashSet<String>,
    taken: &'b mut HashSet<String>,
    indirect: bool,
}

impl Scan<'_, '_> {
    fn stmts(&mut self, stmts: &[ast::Statement]) {
        for s in stmts {
            match s {
                ast::Statement::Instruction(i) => self.inst(i),
                ast::Statement::Block(inner, _) => self.stmts(inner),
                ast::Statement::Directive(d) if d.name == "calltargets" => {
                    for n in &d.names {
                        if self.funcs.contains_key(&n.name) {
                            self.taken.insert(n.name.clone());
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn inst(&mut self, i: &ast::Instruction) {
        let mut callee_k = None;
        if i.opcode.name == "call" {
            let k = usize::from(matches!(i.operands.first(), Some(Operand::List(..))));
            callee_k = Some(k);
            match i.operands.get(k).and_then(name_of) {
                Some(n) if self.funcs.contains_key(n) => {
                    self.calls.insert(n.to_string());
                }
                _ => self.indirect = true,
            }
        }
        for (k, o) in i.operands.iter().enumerate() {
            if Some(k) != callee_k {
                self.operand(o);
            }
        }
    }

    fn operand(&mut self, o: &Operand) {
        match o {
            Operand::List(items, _)
            | Operand::Vector(items, _)
            | Operand::Bracketed(items, _)
            | Operand::VecPred(items, _, _) => {
                for x in items {
                    self.operand(x);
                }
            }
            Operand::Address {
                base: Some(name), ..
            } => self.name(&name.name),
            other => {
                if let Some(n) = name_of(other) {
                    self.name(n);
                }
            }
        }
    }

    fn name(&mut self, n: &str) {
        if self.funcs.contains_key(n) {
            self.taken.insert(n.to_string());
        }
    }
}

/// The name of a symbol or register operand.
fn name_of(o: &Operand) -> Option<&str> {
    match o {
        Operand::Symbol { name, offset: 0 } => Some(&name.name),
        Operand::Reg {
            name,
            component: None,
        } => Some(&name.name),
        _ => None,
    }
}

/// One shared function's copy in a region.
#[derive(Debug)]
pub(crate) struct FuncCopy {
    name: String,
    entry_state: u32,
    entry: PBlock,
    /// Frame offsets of the formals (parameters, then results; see [`layout`]).
    param_offs: Vec<u64>,
    ret_offs: Vec<u64>,
    /// Bytes of the frame (set once built).
    frame_bytes: u64,
    /// The variables an activation owns, saved around its calls (set once built).
    vars: Vec<Var>,
}

/// A call whose save and restore blocks are filled once the caller's variables are known.
#[derive(Debug)]
struct SiteFill {
    caller: usize,
    save: PBlock,
    save_base: Var,
    restore: PBlock,
    restore_base: Var,
    /// The constant holding the save area's size: (block, instruction index).
    save_bytes: (PBlock, usize),
}

/// A constant patched once a region is complete: the largest frame of `funcs`.
#[derive(Debug)]
struct FramePatch {
    at: (PBlock, usize),
    funcs: Vec<usize>,
}

/// The region being built.
#[derive(Debug)]
pub(crate) struct Region {
    dispatch: PBlock,
    state: Var,
    sp: Var,
    depth: Var,
    fb: Var,
    /// The block of state `k` (index 0 unused).
    states: Vec<PBlock>,
    /// Blocks with index ≥ this belong to the region (except `outside`).
    first_block: PBlock,
    outside: Vec<PBlock>,
    funcs: Vec<FuncCopy>,
    sites: Vec<SiteFill>,
    frames: Vec<FramePatch>,
    /// Variables of the call protocol itself (never saved).
    protocol: HashSet<Var>,
    /// Index of the function whose body is being built.
    current: Option<usize>,
}

/// A shared function's frame while its body is built: local symbols are `fb + offset`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub fb: Var,
    pub top: u64,
}

/// Patches applied when the kernel is complete (the stack's place is known then).
#[derive(Debug, Default)]
pub(crate) struct StackPatches {
    /// Constants that hold the stack's base offset.
    pub bases: Vec<(PBlock, usize)>,
    /// `CallCheck` ops, whose stack base is set.
    pub checks: Vec<(PBlock, usize)>,
}

/// What a call calls.
pub(super) enum Callee {
    Direct(String),
    /// Through a pointer register, among these candidates.
    Indirect {
        ptr: Var,
        targets: Vec<String>,
    },
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Frame offsets of a function's formals by signature (parameters, then results), and the
/// bytes they take. `.reg` formals have a slot too: the caller stores the argument there and
/// the callee loads it at entry (a result: stored at `ret`, loaded at the return site), so
/// every function of a prototype receives its arguments in the same place, whichever of them
/// an indirect call reaches.
type Layout = (Vec<u64>, Vec<u64>, u64);

fn layout(f: &ast::Function) -> Result<Layout, LowerError> {
    let mut top = 0u64;
    let mut place = |ps: &[ast::Param]| -> Result<Vec<u64>, LowerError> {
        ps.iter()
            .map(|p| {
                let (size, align) = formal_size(p)?;
                let off = align_up(top, align);
                // Saturating: a frame past u64 is refused as too much local memory.
                top = off.saturating_add(size.max(1));
                Ok(off)
            })
            .collect()
    };
    let params = place(&f.params)?;
    let rets = place(&f.returns)?;
    Ok((params, rets, top))
}

/// Emit a constant of type `ty` to be patched later; returns it and its position.
fn patchable(b: &mut Builder, cx: &Cx, ty: Type) -> (Var, (PBlock, usize)) {
    let at = (b.cur, b.blocks[b.cur as usize].insts.len());
    let v = b.emit1(Op::Const { bits: 0 }, vec![], ty, cx.loc, &cx.ptx);
    (v, at)
}

fn set_term(b: &mut Builder, t: PTerm, cx: &Cx) {
    let cur = b.cur as usize;
    b.blocks[cur].term = t;
    b.blocks[cur].term_loc = cx.loc;
}

fn add(b: &mut Builder, cx: &Cx, a: Var, k: u64) -> Var {
    if k == 0 {
        return a;
    }
    let kv = b.konst(cx, Type::I64, k);
    b.emit1(Op::IAdd {}, vec![a, kv], Type::I64, cx.loc, &cx.ptx)
}

/// Load a `ty` from local address `addr`; a predicate is a byte (0 or 1) in memory.
fn load(b: &mut Builder, cx: &Cx, addr: Var, ty: Type, align: u64) -> Var {
    if ty == Type::Pred {
        let x = load(b, cx, addr, Type::I8, align);
        let zero = b.konst(cx, Type::I8, 0);
        let cmp = Op::ICmp {
            cc: ICmp::Ne,
            sign: Sign::Unsigned,
        };
        return b.emit1(cmp, vec![x, zero], Type::Pred, cx.loc, &cx.ptx);
    }
    let op = Op::Load {
        space: Space::Local,
        align: (ty.bytes() as u64).min(align.max(1)) as u8,
    };
    b.emit1(op, vec![addr], ty, cx.loc, &cx.ptx)
}

/// Store `v` at local address `addr`; a predicate is a byte (0 or 1) in memory.
fn store(b: &mut Builder, cx: &Cx, addr: Var, v: Var, align: u64) {
    let mut v = v;
    let mut ty = b.vars[v as usize];
    if ty == Type::Pred {
        let (one, zero) = (b.konst(cx, Type::I8, 1), b.konst(cx, Type::I8, 0));
        v = b.emit1(Op::Select {}, vec![one, zero, v], Type::I8, cx.loc, &cx.ptx);
        ty = Type::I8;
    }
    let op = Op::Store {
        space: Space::Local,
        align: (ty.bytes() as u64).min(align.max(1)) as u8,
    };
    b.emit(op, vec![addr, v], vec![], cx.loc, &cx.ptx);
}

/// Pieces (offset, type) to copy `size` bytes aligned to `align` with.
fn chunks(size: u64, align: u64) -> Vec<(u64, Type)> {
    let mut out = vec![];
    let mut off = 0;
    while off < size {
        let left = size - off;
        let ty = [
            (8, Type::I64),
            (4, Type::I32),
            (2, Type::I16),
            (1, Type::I8),
        ]
        .into_iter()
        .find(|&(n, _)| n <= left && align.is_multiple_of(n) && off.is_multiple_of(n))
        .map(|(_, t)| t)
        .unwrap_or(Type::I8);
        out.push((off, ty));
        off += ty.bytes() as u64;
    }
    out
}

impl Builder<'_> {
    /// The address of local symbol offset `off` as a value of type `ty`: the offset itself,
    /// or `fb + off` inside a shared function's body.
    pub(super) fn local_addr(&mut self, cx: &Cx, off: u64, ty: Type) -> Result<Var, LowerError> {
        match self.frame {
            None => Ok(self.konst(cx, ty, off)),
            Some(fr) => {
                let a = add(self, cx, fr.fb, off);
                if ty == Type::I64 {
                    Ok(a)
                } else {
                    let span = cx.inst.span;
                    self.coerce(cx, a, ty, Some(Sign::Unsigned), span)
                }
            }
        }
    }
}

/// The candidates of an indirect call: the `.calltargets` list `table`, or every function
/// whose address is taken with the `.callprototype` `table`'s parameter and result sizes
/// (without a readable prototype: with `nparams` parameters and `nrets` results).
pub(super) fn indirect_targets(
    b: &Builder,
    table: Option<&str>,
    nparams: usize,
    nrets: usize,
) -> Vec<String> {
    if let Some(names) = table.and_then(|t| b.branch_tables.get(t)) {
        return names.iter().map(|n| n.name.clone()).collect();
    }
    let proto = table
        .and_then(|t| b.prototypes.get(t))
        .and_then(|text| prototype_sizes(text));
    // A function with a formal too large to lay out matches no prototype (lowering it
    // reports the formal).
    let sizes = |ps: &[ast::Param]| -> Option<Vec<u64>> {
        ps.iter()
            .map(|p| formal_size(p).ok().map(|(size, _)| size))
            .collect()
    };
    let mut out: Vec<String> = b
        .graph
        .address_taken
        .iter()
        .filter(|n| {
            b.funcs.get(*n).is_some_and(|f| {
                f.body.is_some()
                    && match &proto {
                        Some((rets, params)) => {
                            sizes(&f.returns).as_ref() == Some(rets)
                                && sizes(&f.params).as_ref() == Some(params)
                        }
                        None => f.params.len() == nparams && f.returns.len() == nrets,
                    }
            })
        })
        .cloned()
        .collect();
    out.sort();
    out
}

/// The byte sizes of a `.callprototype`'s results and parameters (PTX ISA §11.3.4):
/// `[(ret-list)] _ (param-list)`, each item `.param{.align N} .type _{[n]}` (or `.reg`).
/// `None` when the text does not have that shape.
fn prototype_sizes(text: &str) -> Option<(Vec<u64>, Vec<u64>)> {
    let text = text.trim();
    let (rets, rest) = if let Some(r) = text.strip_prefix('(') {
        let end = r.find(')')?;
        (&r[..end], r[end + 1..].trim())
    } else {
        ("", text)
    };
    let rest = rest.strip_prefix('_')?.trim();
    let params = match rest.strip_prefix('(') {
        Some(p) => p.strip_suffix(')')?,
        None if rest.is_empty() => "",
        None => return None,
    };
    let list = |s: &str| -> Option<Vec<u64>> {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|item| {
                let mut elem = None;
                let mut count = 1u64;
                for tok in item.split_whitespace() {
                    if let Some(t) = tok.strip_prefix('.') {
                        let bits = t
                            .strip_prefix(['b', 'u', 's', 'f'])
                            .and_then(|n| n.parse::<u64>().ok());
                        if let Some(bits) = bits {
                            elem = Some(bits / 8);
                        }
                    } else if let Some(open) = tok.find('[') {
                        let n = tok[open + 1..].trim_end_matches(']');
                        count = n.parse::<u64>().ok()?;
                    }
                }
                Some(elem? * count)
            })
            .collect()
    };
    Some((list(rets)?, list(params)?))
}

/// Add function `name` to the current region (once); returns its index.
fn add_func(b: &mut Builder, cx: &Cx, name: &str) -> Result<usize, LowerError> {
    let Some(region) = b.region.as_ref() else {
        return Err(cx.bad("internal: no region"));
    };
    if let Some(k) = region.funcs.iter().position(|f| f.name == name) {
        return Ok(k);
    }
    let Some(f) = b.funcs.get(name).copied() else {
        return Err(cx.bad(&format!("call to unknown function '{name}'")));
    };
    if f.body.is_none() {
        return Err(cx.bad(&format!(
            "call to function '{name}', which is declared but not defined in this module"
        )));
    }
    for p in f.params.iter().chain(&f.returns) {
        if p.space == StateSpace::Reg {
            formal_ty(cx, p)?;
        }
    }
    let (param_offs, ret_offs, _) = layout(f)?;
    let entry = b.new_block();
    let Some(region) = b.region.as_mut() else {
        return Err(cx.bad("internal: no region"));
    };
    let entry_state = region.states.len() as u32;
    region.states.push(entry);
    region.funcs.push(FuncCopy {
        name: name.to_string(),
        entry_state,
        entry,
        param_offs,
        ret_offs,
        frame_bytes: 0,
        vars: vec![],
    });
    Ok(region.funcs.len() - 1)
}

/// How an argument reaches a callee's formal.
enum ArgSrc {
    /// A value of the formal's type.
    Value(Var),
    /// This many bytes at a caller's local address (a call-sequence `.param` variable).
    Bytes(Var, u64),
}

/// A call to a shared function or through a pointer, guarded or not (see the module docs).
pub(super) fn region_call(
    b: &mut Builder,
    cx: &Cx,
    guard: Option<(Var, bool)>,
    callee: Callee,
    args: &[Operand],
    rets: &[Operand],
) -> Result<(), LowerError> {
    let fall = match guard {
        None => None,
        Some((p, neg)) => {
            let body_b = b.new_block();
            let fall = b.new_block();
            let (t, e) = if neg { (fall, body_b) } else { (body_b, fall) };
            set_term(b, PTerm::Branch(p, t, e), cx);
            b.cur = body_b;
            Some(fall)
        }
    };
    let external = b.region.is_none();
    // The return site: outside the region for an external call.
    let ret_site = b.new_block();
    if external {
        let dispatch = b.new_block();
        let (state, sp, depth, fb) = (
            b.new_var(Type::I32),
            b.new_var(Type::I64),
            b.new_var(Type::I64),
            b.new_var(Type::I64),
        );
        let protocol: HashSet<Var> = [state, sp, depth, fb].into_iter().collect();
        b.region = Some(Box::new(Region {
            dispatch,
            state,
            sp,
            depth,
            fb,
            states: vec![0],
            first_block: dispatch,
            outside: vec![ret_site],
            funcs: vec![],
            sites: vec![],
            frames: vec![],
            protocol,
            current: None,
        }));
    }
    let targets: Vec<String> = match &callee {
        Callee::Direct(n) => vec![n.clone()],
        Callee::Indirect { targets, .. } => targets.clone(),
    };
    let mut idx = vec![];
    for t in &targets {
        idx.push(add_func(b, cx, t)?);
    }
    let v0 = b.vars.len();
    let result = emit_call(b, cx, &callee, &idx, args, rets, ret_site, external);
    if let Some(r) = b.region.as_mut() {
        r.protocol.extend(v0 as u32..b.vars.len() as u32);
    }
    result?;
    if external {
        let cont = b.cur;
        build_region(b, cx)?;
        b.cur = cont;
    }
    if let Some(fall) = fall {
        set_term(b, PTerm::Jump(fall), cx);
        b.cur = fall;
    }
    Ok(())
}

/// The call sequence and the return site (module docs, "Design").
#[allow(clippy::too_many_arguments)]
fn emit_call(
    b: &mut Builder,
    cx: &Cx,
    callee: &Callee,
    idx: &[usize],
    args: &[Operand],
    rets: &[Operand],
    ret_site: PBlock,
    external: bool,
) -> Result<(), LowerError> {
    let Some(region) = b.region.as_ref() else {
        return Err(cx.bad("internal: no region"));
    };
    let (dispatch, state, sp, depth, fb) = (
        region.dispatch,
        region.state,
        region.sp,
        region.depth,
        region.fb,
    );
    let current = region.current;
    // The signature: every candidate's must agree with the first's.
    let sig_name = match (callee, idx.first()) {
        (_, Some(&k)) => region.funcs[k].name.clone(),
        (Callee::Direct(n), None) => n.clone(),
        (Callee::Indirect { .. }, None) => String::new(),
    };
    let sig = b.funcs.get(&sig_name).copied();
    // No candidate (an indirect call whose prototype no address-taken function of the module
    // has): nothing is passed, and `CallCheck` faults on the pointer if the call is reached.
    let (param_offs, ret_offs) = match idx.first() {
        Some(&k) => (
            region.funcs[k].param_offs.clone(),
            region.funcs[k].ret_offs.clone(),
        ),
        None => (vec![], vec![]),
    };
    for &k in idx.iter().skip(1) {
        let f = &region.funcs[k];
        if f.param_offs != param_offs || f.ret_offs != ret_offs {
            return Err(cx.unsupported(&format!(
                "indirect call whose targets '{}' and '{}' lay out their parameters differently",
                sig_name, f.name
            )));
        }
    }
    if let Some(f) = sig {
        if args.len() != f.params.len() || rets.len() != f.returns.len() {
            return Err(cx.bad(&format!(
                "'{}' takes {} arguments and {} results, the call passes {} and {}",
                f.name.name,
                f.params.len(),
                f.returns.len(),
                args.len(),
                rets.len()
            )));
        }
    }
    // Arguments, in the caller's scope.
    let mut srcs = vec![];
    for (k, actual) in args.iter().enumerate() {
        let (Some(p), Some(&off)) = (sig.and_then(|f| f.params.get(k)), param_offs.get(k)) else {
            continue;
        };
        let (size, align) = formal_size(p)?;
        let src = match (p.space, param_symbol(b, actual)) {
            (StateSpace::Reg, _) | (_, None) => {
                let ty = formal_ty(cx, p)?;
                ArgSrc::Value(b.src_rel(cx, actual, ty, Some(Sign::Unsigned))?)
            }
            (_, Some(from)) => {
                let a = b.local_addr(cx, from, Type::I64)?;
                ArgSrc::Bytes(a, size)
            }
        };
        srcs.push((off, src, align));
    }
    if external {
        let (base, at) = patchable(b, cx, Type::I64);
        b.stack.bases.push(at);
        b.copy(sp, base, cx.loc, &cx.ptx);
        let zero = b.konst(cx, Type::I64, 0);
        b.copy(depth, zero, cx.loc, &cx.ptx);
    }
    // The new frame, and the checks before anything is written.
    let (save_bytes, save_at) = patchable(b, cx, Type::I64);
    let t = b.emit1(
        Op::IAdd {},
        vec![sp, save_bytes],
        Type::I64,
        cx.loc,
        &cx.ptx,
    );
    let t = add(b, cx, t, 16 + 15);
    let m = b.konst(cx, Type::I64, !15u64);
    let new_fb = b.emit1(Op::And {}, vec![t, m], Type::I64, cx.loc, &cx.ptx);
    let (frame, frame_at) = patchable(b, cx, Type::I64);
    let new_sp = b.emit1(Op::IAdd {}, vec![new_fb, frame], Type::I64, cx.loc, &cx.ptx);
    let one = b.konst(cx, Type::I64, 1);
    let new_depth = b.emit1(Op::IAdd {}, vec![depth, one], Type::I64, cx.loc, &cx.ptx);
    let (ptr, target) = match callee {
        Callee::Direct(_) => {
            let st = idx
                .first()
                .and_then(|&k| b.region.as_ref().map(|r| r.funcs[k].entry_state))
                .unwrap_or(u32::MAX);
            (b.konst(cx, Type::I64, 0), b.konst(cx, Type::I32, st as u64))
        }
        Callee::Indirect { ptr, .. } => {
            let mut st = b.konst(cx, Type::I32, BAD_STATE);
            for &k in idx {
                let (name, entry) = match b.region.as_ref() {
                    Some(r) => (r.funcs[k].name.clone(), r.funcs[k].entry_state),
                    None => continue,
                };
                let a = b.graph.addr.get(&name).copied().unwrap_or(0);
                let av = b.konst(cx, Type::I64, a);
                let cmp = Op::ICmp {
                    cc: ICmp::Eq,
                    sign: Sign::Unsigned,
                };
                let eq = b.emit1(cmp, vec![*ptr, av], Type::Pred, cx.loc, &cx.ptx);
                let ev = b.konst(cx, Type::I32, entry as u64);
                st = b.emit1(Op::Select {}, vec![ev, st, eq], Type::I32, cx.loc, &cx.ptx);
            }
            (*ptr, st)
        }
    };
    let d32 = b.coerce(cx, new_depth, Type::I32, Some(Sign::Unsigned), cx.inst.span)?;
    let check_at = (b.cur, b.blocks[b.cur as usize].insts.len());
    let ok = b.emit1(
        Op::CallCheck { base: 0 },
        vec![new_sp, d32, ptr, target],
        Type::Pred,
        cx.loc,
        &cx.ptx,
    );
    b.stack.checks.push(check_at);
    let go = b.new_block();
    let stop = b.new_block();
    set_term(b, PTerm::Branch(ok, go, stop), cx);
    b.cur = stop;
    set_term(b, PTerm::Exit, cx);
    b.cur = go;
    // Save the caller's registers (filled in once its body is complete).
    let mut save = None;
    if !external {
        let s = b.new_block();
        set_term(b, PTerm::Jump(s), cx);
        b.cur = s;
        let p = b.new_block();
        set_term(b, PTerm::Jump(p), cx);
        save = Some(s);
        b.cur = p;
    }
    let hdr = b.konst(cx, Type::I64, 16u64.wrapping_neg());
    let hdr = b.emit1(Op::IAdd {}, vec![new_fb, hdr], Type::I64, cx.loc, &cx.ptx);
    store(b, cx, hdr, sp, 8);
    let ret_state = {
        let Some(r) = b.region.as_mut() else {
            return Err(cx.bad("internal: no region"));
        };
        r.states.push(ret_site);
        r.states.len() as u64 - 1
    };
    let rs = b.konst(cx, Type::I32, ret_state);
    let rs_at = add(b, cx, hdr, 8);
    store(b, cx, rs_at, rs, 4);
    for (off, src, align) in srcs {
        let dst = add(b, cx, new_fb, off);
        match src {
            ArgSrc::Bytes(from, size) => {
                for (o, ty) in chunks(size, align) {
                    let s = add(b, cx, from, o);
                    let v = load(b, cx, s, ty, align);
                    let d = add(b, cx, dst, o);
                    store(b, cx, d, v, align);
                }
            }
            ArgSrc::Value(v) => store(b, cx, dst, v, align),
        }
    }
    b.copy(sp, new_sp, cx.loc, &cx.ptx);
    b.copy(depth, new_depth, cx.loc, &cx.ptx);
    b.copy(fb, new_fb, cx.loc, &cx.ptx);
    b.copy(state, target, cx.loc, &cx.ptx);
    set_term(b, PTerm::Jump(dispatch), cx);

    // The return site: the callee's frame is still at `fb`.
    b.cur = ret_site;
    let minus16 = b.konst(cx, Type::I64, 16u64.wrapping_neg());
    let hdr = b.emit1(Op::IAdd {}, vec![fb, minus16], Type::I64, cx.loc, &cx.ptx);
    let old = load(b, cx, hdr, Type::I64, 8);
    enum Out {
        Reg(Var, Type),
        Bytes(u64, Vec<(u64, Var)>, u64),
    }
    let mut outs = vec![];
    for (k, actual) in rets.iter().enumerate() {
        let (Some(p), Some(&off)) = (sig.and_then(|f| f.returns.get(k)), ret_offs.get(k)) else {
            continue;
        };
        let ty = formal_ty(cx, p)?;
        let (size, align) = formal_size(p)?;
        let from = add(b, cx, fb, off);
        match (p.space, param_symbol(b, actual)) {
            (StateSpace::Reg, _) | (_, None) => {
                let v = load(b, cx, from, ty, align);
                outs.push((actual.clone(), Out::Reg(v, ty)));
            }
            (_, Some(slot)) => {
                let mut parts = vec![];
                for (o, t) in chunks(size, align) {
                    let a = add(b, cx, from, o);
                    parts.push((o, load(b, cx, a, t, align)));
                }
                outs.push((actual.clone(), Out::Bytes(slot, parts, align)));
            }
        }
    }
    b.copy(sp, old, cx.loc, &cx.ptx);
    let back = b.emit1(Op::ISub {}, vec![depth, one], Type::I64, cx.loc, &cx.ptx);
    b.copy(depth, back, cx.loc, &cx.ptx);
    if let (Some(s), Some(caller)) = (save, current) {
        let restore = b.new_block();
        set_term(b, PTerm::Jump(restore), cx);
        b.cur = restore;
        let cont = b.new_block();
        set_term(b, PTerm::Jump(cont), cx);
        b.cur = cont;
        if let Some(r) = b.region.as_mut() {
            r.sites.push(SiteFill {
                caller,
                save: s,
                save_base: sp,
                restore,
                restore_base: old,
                save_bytes: save_at,
            });
        }
    } else {
        // External: nothing saved.
        let blk = &mut b.blocks[save_at.0 as usize];
        blk.insts[save_at.1].op = Op::Const { bits: 0 };
    }
    if let Some(r) = b.region.as_mut() {
        r.frames.push(FramePatch {
            at: frame_at,
            funcs: idx.to_vec(),
        });
    }
    for (actual, out) in outs {
        match out {
            Out::Reg(v, ty) => write_reg(b, cx, &actual, v, ty)?,
            Out::Bytes(slot, parts, align) => {
                let base = b.local_addr(cx, slot, Type::I64)?;
                for (o, v) in parts {
                    let a = add(b, cx, base, o);
                    store(b, cx, a, v, align);
                }
            }
        }
    }
    Ok(())
}

/// Build the bodies of the region's functions, then close it: fill the saves and restores,
/// patch the frame sizes, route retreating edges through the dispatcher, and write the
/// dispatcher. The region is taken off the builder.
fn build_region(b: &mut Builder, cx: &Cx) -> Result<(), LowerError> {
    let mut k = 0;
    while b.region.as_ref().is_some_and(|r| k < r.funcs.len()) {
        build_body(b, k)?;
        k += 1;
    }
    let Some(mut region) = b.region.take() else {
        return Err(cx.bad("internal: no region"));
    };
    // Saves and restores.
    for site in std::mem::take(&mut region.sites) {
        let mut vars = region.funcs[site.caller].vars.clone();
        vars.push(region.fb);
        let bytes = 8 * vars.len() as u64;
        b.blocks[site.save_bytes.0 as usize].insts[site.save_bytes.1].op =
            Op::Const { bits: bytes };
        let term = b.blocks[site.save as usize].term.clone();
        b.cur = site.save;
        for (i, &v) in vars.iter().enumerate() {
            let a = add(b, cx, site.save_base, 8 * i as u64);
            let val = if b.vars[v as usize] == Type::Pred {
                let (one, zero) = (b.konst(cx, Type::I8, 1), b.konst(cx, Type::I8, 0));
                b.emit1(Op::Select {}, vec![one, zero, v], Type::I8, cx.loc, &cx.ptx)
            } else {
                v
            };
            store(b, cx, a, val, 8);
        }
        b.blocks[site.save as usize].term = term;
        let term = b.blocks[site.restore as usize].term.clone();
        b.cur = site.restore;
        for (i, &v) in vars.iter().enumerate() {
            let a = add(b, cx, site.restore_base, 8 * i as u64);
            let ty = b.vars[v as usize];
            if ty == Type::Pred {
                let x = load(b, cx, a, Type::I8, 8);
                let zero = b.konst(cx, Type::I8, 0);
                let cmp = Op::ICmp {
                    cc: ICmp::Ne,
                    sign: Sign::Unsigned,
                };
                let p = b.emit1(cmp, vec![x, zero], Type::Pred, cx.loc, &cx.ptx);
                b.copy(v, p, cx.loc, &cx.ptx);
            } else {
                let x = load(b, cx, a, ty, 8);
                b.copy(v, x, cx.loc, &cx.ptx);
            }
        }
        b.blocks[site.restore as usize].term = term;
    }
    for fp in &region.frames {
        let bytes = fp
            .funcs
            .iter()
            .map(|&k| region.funcs[k].frame_bytes)
            .max()
            .unwrap_or(0);
        b.blocks[fp.at.0 as usize].insts[fp.at.1].op = Op::Const { bits: bytes };
    }
    redirect_retreating(b, cx, &mut region);
    // The dispatcher: a chain of compares on the state.
    b.cur = region.dispatch;
    for (k, &target) in region.states.iter().enumerate().skip(1) {
        let kv = b.konst(cx, Type::I32, k as u64);
        let cmp = Op::ICmp {
            cc: ICmp::Eq,
            sign: Sign::Unsigned,
        };
        let eq = b.emit1(cmp, vec![region.state, kv], Type::Pred, cx.loc, &cx.ptx);
        let next = b.new_block();
        set_term(b, PTerm::Branch(eq, target, next), cx);
        b.cur = next;
    }
    set_term(b, PTerm::Trap, cx);
    Ok(())
}

/// Redirect every retreating edge of a depth-first walk over the region from its dispatcher
/// through the dispatcher (module docs, "Why a state machine").
fn redirect_retreating(b: &mut Builder, cx: &Cx, region: &mut Region) {
    let n = b.blocks.len();
    let inside = |x: PBlock, r: &Region| {
        x >= r.first_block && x != r.dispatch && !r.outside.contains(&x) && (x as usize) < n
    };
    // 0: unvisited, 1: on the stack, 2: done.
    let mut color = vec![0u8; n];
    let roots: Vec<PBlock> = region.states.iter().skip(1).copied().collect();
    let mut redirects: Vec<(PBlock, usize, PBlock)> = vec![];
    for root in roots {
        if !inside(root, region) || color[root as usize] != 0 {
            continue;
        }
        let mut stack: Vec<(PBlock, usize)> = vec![(root, 0)];
        color[root as usize] = 1;
        while let Some(&mut (x, ref mut i)) = stack.last_mut() {
            let succ = term_targets(&b.blocks[x as usize].term);
            if *i < succ.len() {
                let s = succ[*i];
                let k = *i;
                *i += 1;
                if !inside(s, region) {
                    continue;
                }
                match color[s as usize] {
                    0 => {
                        color[s as usize] = 1;
                        stack.push((s, 0));
                    }
                    1 => redirects.push((x, k, s)),
                    _ => {}
                }
            } else {
                color[x as usize] = 2;
                stack.pop();
            }
        }
    }
    for (x, k, header) in redirects {
        let st = region.states.len() as u64;
        region.states.push(header);
        let stub = b.new_block();
        b.cur = stub;
        let sv = b.konst(cx, Type::I32, st);
        b.copy(region.state, sv, cx.loc, &cx.ptx);
        let loc = b.blocks[x as usize].term_loc;
        b.blocks[stub as usize].term = PTerm::Jump(region.dispatch);
        b.blocks[stub as usize].term_loc = loc;
        set_target(&mut b.blocks[x as usize].term, k, stub);
    }
}

/// Variables that can never be live across a call in the blocks from `first` on and `entry`:
/// every definition and use is in one block, and the first occurrence there is a definition.
/// (A call always ends a block, so such a variable holds nothing its block needs after one.)
fn block_local(blocks: &[build::PBlockData], first: PBlock, entry: PBlock) -> HashSet<Var> {
    // Per variable: its block, and whether it stays local.
    let mut seen: HashMap<Var, (usize, bool)> = HashMap::new();
    let ids = std::iter::once(entry as usize).chain(first as usize..blocks.len());
    for bi in ids {
        let blk = &blocks[bi];
        let mut note = |v: Var, def: bool| {
            seen.entry(v)
                .and_modify(|e| {
                    if e.0 != bi {
                        e.1 = false;
                    }
                })
                .or_insert((bi, def));
        };
        for i in &blk.insts {
            for &a in &i.args {
                note(a, false);
            }
            for &r in &i.results {
                note(r, true);
            }
        }
        if let PTerm::Branch(c, _, _) = blk.term {
            note(c, false);
        }
    }
    seen.into_iter()
        .filter(|&(_, (_, local))| local)
        .map(|(v, _)| v)
        .collect()
}

fn term_targets(t: &PTerm) -> Vec<PBlock> {
    match t {
        PTerm::Jump(x) | PTerm::Barrier(x) => vec![*x],
        PTerm::Branch(_, a, c) => vec![*a, *c],
        PTerm::Open | PTerm::Exit | PTerm::Trap => vec![],
    }
}

fn set_target(t: &mut PTerm, k: usize, to: PBlock) {
    match t {
        PTerm::Jump(x) | PTerm::Barrier(x) => *x = to,
        PTerm::Branch(_, a, c) => {
            if k == 0 {
                *a = to
            } else {
                *c = to
            }
        }
        PTerm::Open | PTerm::Exit | PTerm::Trap => {}
    }
}

/// Build the body of the region's function `k` at its entry block.
fn build_body(b: &mut Builder, k: usize) -> Result<(), LowerError> {
    let Some(region) = b.region.as_mut() else {
        return Ok(());
    };
    region.current = Some(k);
    let fc = &region.funcs[k];
    let (name, entry, fb, dispatch, state) = (
        fc.name.clone(),
        fc.entry,
        region.fb,
        region.dispatch,
        region.state,
    );
    let Some(f) = b.funcs.get(&name).copied() else {
        return Ok(());
    };
    let Some(body) = &f.body else { return Ok(()) };
    let (param_offs, ret_offs, formal_top) = layout(f)?;
    let v_start = b.vars.len();
    // The function's world.
    let mut syms: HashMap<String, Sym> = b.callee_syms();
    // `.param` formals are frame symbols; `.reg` formals are registers, loaded from their
    // slots at entry (parameters) and stored to them at `ret` (results).
    let mut scope = build::Scope::default();
    let entry_loc = b.loc(f.name.span);
    // The formals' moves are attributed to the function's name.
    let inst = ast::Instruction {
        guard: None,
        opcode: f.name.clone(),
        modifiers: vec![],
        operands: vec![],
        span: f.name.span,
    };
    let cx = Cx {
        inst: &inst,
        loc: entry_loc,
        ptx: f.name.name.clone(),
        mods: vec![],
        writes: vec![],
    };
    let mut reg_rets = vec![];
    b.cur = entry;
    for (k, (p, &off)) in f
        .params
        .iter()
        .zip(&param_offs)
        .chain(f.returns.iter().zip(&ret_offs))
        .enumerate()
    {
        if p.space != StateSpace::Reg {
            syms.insert(p.name.name.clone(), Sym::Local { offset: off });
            continue;
        }
        let ty = formal_ty(&cx, p)?;
        let (_, align) = formal_size(p)?;
        let v = b.new_var(ty);
        if k < f.params.len() {
            let a = add(b, &cx, fb, off);
            let x = load(b, &cx, a, ty, align);
            b.copy(v, x, entry_loc, &cx.ptx);
        } else {
            reg_rets.push((v, off, align));
        }
        scope.insert(p.name.name.clone(), v);
    }
    let saved_frame = b.frame.replace(Frame {
        fb,
        top: formal_top,
    });
    super::call::function_locals(b, body, &mut syms)?;
    let b_start = b.blocks.len() as PBlock;
    let ret_block = b.new_block();
    let saved_scopes = std::mem::replace(&mut b.scopes, vec![scope]);
    let saved_syms = std::mem::replace(&mut b.syms, syms);
    let saved_labels = std::mem::take(&mut b.labels);
    let saved_tables = std::mem::replace(&mut b.branch_tables, build::branch_tables(body));
    let saved_protos = std::mem::replace(&mut b.prototypes, build::prototypes(body));
    let saved_ret = b.ret_target.replace(ret_block);
    let saved_stack = std::mem::replace(&mut b.inline_stack, vec![name.clone()]);
    // Its caller is on the thread's call stack: the frame names the function only.
    b.call_frames.push(crate::ir::CallFrame {
        function: name.clone(),
        site: None,
    });
    let saved_call_frame = std::mem::replace(&mut b.cur_frame, b.call_frames.len() as u32);
    b.cur = entry;
    let walked = build::walk(b, body);
    b.cur_frame = saved_call_frame;
    let labels = std::mem::replace(&mut b.labels, saved_labels);
    b.scopes = saved_scopes;
    b.syms = saved_syms;
    b.ret_target = saved_ret;
    b.branch_tables = saved_tables;
    b.prototypes = saved_protos;
    b.inline_stack = saved_stack;
    let frame = std::mem::replace(&mut b.frame, saved_frame);
    walked?;
    for (label, (_, defined, span)) in &labels {
        if !defined {
            return Err(LowerError::new(
                *span,
                format!("branch to undefined label '{label}' in function '{name}'"),
            ));
        }
    }
    let end_loc = b.loc(crate::ptx::span::Span::new(
        f.span.end as usize,
        f.span.end as usize,
    ));
    let cur = b.cur as usize;
    if matches!(b.blocks[cur].term, PTerm::Open) {
        b.blocks[cur].term = PTerm::Jump(ret_block);
        b.blocks[cur].term_loc = end_loc;
    }
    // `ret`: the return state from the frame header, then the dispatcher.
    let v_ret = b.vars.len();
    b.cur = ret_block;
    let loc = end_loc;
    let m8 = b.new_var(Type::I64);
    b.blocks[ret_block as usize].insts.push(build::PInst {
        op: Op::Const {
            bits: 8u64.wrapping_neg(),
        },
        args: vec![],
        results: vec![m8],
        loc,
        ptx: "ret".into(),
        copy: false,
        sync: crate::ir::MemSync::None,
    });
    let a = b.emit1(Op::IAdd {}, vec![fb, m8], Type::I64, loc, "ret");
    let ret_cx = Cx {
        loc,
        ptx: "ret".into(),
        ..cx
    };
    for (v, off, align) in reg_rets {
        let at = add(b, &ret_cx, fb, off);
        store(b, &ret_cx, at, v, align);
    }
    let rid = b.emit1(
        Op::Load {
            space: Space::Local,
            align: 4,
        },
        vec![a],
        Type::I32,
        loc,
        "ret",
    );
    b.copy(state, rid, loc, "ret");
    b.blocks[ret_block as usize].term = PTerm::Jump(dispatch);
    b.blocks[ret_block as usize].term_loc = loc;
    let v_end = b.vars.len();
    let Some(region) = b.region.as_mut() else {
        return Ok(());
    };
    region.protocol.extend(v_ret as u32..v_end as u32);
    let local = block_local(&b.blocks, b_start, entry);
    let own: Vec<Var> = (v_start as u32..v_ret as u32)
        .filter(|v| !region.protocol.contains(v) && !local.contains(v))
        .collect();
    let fc = &mut region.funcs[k];
    fc.vars = own;
    fc.frame_bytes = align_up(frame.map(|f| f.top).unwrap_or(formal_top), 16);
    region.current = None;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::prototype_sizes;

    #[test]
    fn prototype_sizes_from_the_isa_forms() {
        assert_eq!(
            prototype_sizes("(.param .b32 _) _ (.param .b32 _)"),
            Some((vec![4], vec![4]))
        );
        assert_eq!(
            prototype_sizes("_ (.param .b64 _, .param .align 16 .b8 _[24], .param .f32 _)"),
            Some((vec![], vec![8, 24, 4]))
        );
        assert_eq!(prototype_sizes("_ ()"), Some((vec![], vec![])));
        assert_eq!(prototype_sizes("_"), Some((vec![], vec![])));
        assert_eq!(prototype_sizes("(.param .b32 _) f (.param .b32 _)"), None);
        assert_eq!(prototype_sizes("_ (.param .pred _)"), None);
    }
}
