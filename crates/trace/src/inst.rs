//! One instruction line of a kernel trace:
//! `[line_num] PC mask dest_num [dests] opcode src_num [srcs] mem_width [addr_mode addresses]
//! [immediate...]`, parsed without allocating (tokens borrowed from the line buffer,
//! addresses appended to the warp's reused address vector).

use crate::header::KernelHeader;
use crate::kernelslist::{parse_dec, parse_hex, parse_signed};
use crate::opcode::{base_mnemonic, classify, MemSpace, OpClass, OpInfo};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Scoreboard register id: 0 = no register; `R n` → n+1 (R255, the zero register, → 0),
/// `UR n` → 256+n (UR63 = URZ → 0), `P n` → 320+n, `UP n` → 330+n (P7/UP7 = true → 0).
/// All ids are below 384.
pub type RegId = u16;
/// "No register".
pub const NO_REG: RegId = 0;
/// Exclusive upper bound of register ids.
pub const MAX_REG_ID: RegId = 384;

/// Map a trace register token to its id; `None` if it is not a register name.
pub fn parse_reg(tok: &str) -> Option<RegId> {
    let (kind, num) = if let Some(n) = tok.strip_prefix("UR") {
        (1, n)
    } else if let Some(n) = tok.strip_prefix("UP") {
        (3, n)
    } else if let Some(n) = tok.strip_prefix('R') {
        (0, n)
    } else if let Some(n) = tok.strip_prefix('P') {
        (2, n)
    } else {
        return None;
    };
    if matches!(num, "Z" | "T") {
        return Some(NO_REG);
    }
    let n = parse_dec(num)?;
    match kind {
        0 if n == 255 => Some(NO_REG),
        0 if n < 255 => Some(n as RegId + 1),
        1 if n == 63 => Some(NO_REG),
        1 if n < 63 => Some(256 + n as RegId),
        2 if n == 7 => Some(NO_REG),
        2 if n < 7 => Some(320 + n as RegId),
        3 if n == 7 => Some(NO_REG),
        3 if n < 7 => Some(330 + n as RegId),
        _ => None,
    }
}

/// One decoded warp instruction of a trace (addresses live in the warp's address vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceInst {
    /// Program counter.
    pub pc: u64,
    /// Active lanes (bit i = lane i).
    pub mask: u32,
    /// Class; a memory opcode without addresses (e.g. `ULDC` with width 0) is `Int`.
    pub class: OpClass,
    /// Resolved memory space (never `Generic`) for instructions with addresses, else `None`.
    pub space: Option<MemSpace>,
    /// Bytes per lane (from the opcode's modifiers), 0 for non-memory instructions.
    pub width: u8,
    /// Index of the full opcode string in the reader's opcode table.
    pub opcode: u32,
    /// Destination register (first non-zero destination), [`NO_REG`] if none.
    pub dst: RegId,
    /// Source registers in trace order, zero registers dropped, [`NO_REG`]-padded.
    pub srcs: [RegId; 5],
    /// Index of the first lane address in [`crate::block::TraceWarp::addrs`].
    pub addr_start: u32,
    /// Number of lane addresses (= active lanes for memory instructions, else 0).
    pub naddrs: u8,
}

impl TraceInst {
    /// Number of active lanes.
    pub fn lanes(&self) -> u32 {
        self.mask.count_ones()
    }
    /// Whether the instruction carries memory addresses.
    pub fn is_mem(&self) -> bool {
        self.width > 0
    }
}

/// A fast non-cryptographic hasher for the opcode table (FxHash).
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

/// One distinct opcode string seen in a kernel file.
#[derive(Clone, Debug)]
pub struct OpcodeEntry {
    /// Full opcode text (`LDG.E.128`).
    pub text: String,
    /// Its classification.
    pub info: OpInfo,
    /// Number of instruction lines with this opcode.
    pub count: u64,
    /// Lines where a non-memory opcode carried addresses (treated as a generic load).
    pub unexpected_addrs: u64,
}

/// Distinct opcodes of a file with their classification and counts, so each distinct
/// string is classified once and unknown mnemonics can be reported.
#[derive(Clone, Debug, Default)]
pub struct OpcodeTable {
    map: HashMap<String, u32, BuildHasherDefault<FxHasher>>,
    entries: Vec<OpcodeEntry>,
}

impl OpcodeTable {
    fn lookup(&mut self, op: &str) -> u32 {
        if let Some(&i) = self.map.get(op) {
            return i;
        }
        let i = self.entries.len() as u32;
        self.entries.push(OpcodeEntry {
            text: op.to_string(),
            info: classify(op),
            count: 0,
            unexpected_addrs: 0,
        });
        self.map.insert(op.to_string(), i);
        i
    }
    /// Every distinct opcode, in first-seen order.
    pub fn entries(&self) -> &[OpcodeEntry] {
        &self.entries
    }
    /// Entry `i` (as stored in [`TraceInst::opcode`]).
    pub fn get(&self, i: u32) -> Option<&OpcodeEntry> {
        self.entries.get(i as usize)
    }
    /// Warnings: unknown base mnemonics with their instruction counts, opcodes that carried
    /// addresses although they are not memory opcodes.
    pub fn warnings(&self) -> Vec<String> {
        let mut unknown: Vec<(String, u64)> = Vec::new();
        let mut out = Vec::new();
        for e in &self.entries {
            if !e.info.known {
                let b = base_mnemonic(&e.text);
                match unknown.iter_mut().find(|(n, _)| n == b) {
                    Some((_, c)) => *c += e.count,
                    None => unknown.push((b.to_string(), e.count)),
                }
            }
            if e.unexpected_addrs > 0 {
                out.push(format!(
                    "opcode {} is not a memory opcode but carried addresses on {} lines; \
                     treated as a generic load",
                    e.text, e.unexpected_addrs
                ));
            }
        }
        for (n, c) in unknown {
            out.insert(
                0,
                format!("unknown opcode {n} ({c} instructions) treated as integer ALU"),
            );
        }
        out
    }
}

/// Parses instruction lines of one kernel file.
#[derive(Clone, Debug)]
pub(crate) struct InstParser {
    prefix_fields: usize,
    lineinfo: bool,
    /// Distinct opcodes seen so far.
    pub(crate) opcodes: OpcodeTable,
}

impl InstParser {
    pub(crate) fn new(h: &KernelHeader) -> Self {
        InstParser {
            prefix_fields: if h.tracer_version < 3 { 4 } else { 0 },
            lineinfo: h.lineinfo,
            opcodes: OpcodeTable::default(),
        }
    }

    /// Parse `line`, appending its lane addresses to `addrs`. The error is a message; the
    /// caller adds file and line.
    pub(crate) fn parse(
        &mut self,
        line: &str,
        h: &KernelHeader,
        addrs: &mut Vec<u64>,
    ) -> Result<TraceInst, String> {
        let mut it = line.split_ascii_whitespace();
        let mut field = |what: &str| -> Result<&str, String> {
            it.next()
                .ok_or_else(|| format!("instruction line ends early: expected {what}"))
        };
        for _ in 0..self.prefix_fields {
            let t = field("the tb_x tb_y tb_z warp_id prefix (tracer version < 3)")?;
            parse_dec(t).ok_or_else(|| format!("expected a decimal prefix field, found `{t}`"))?;
        }
        if self.lineinfo {
            let t = field("a source line number")?;
            parse_dec(t).ok_or_else(|| format!("expected a source line number, found `{t}`"))?;
        }
        let t = field("a hexadecimal PC")?;
        let pc = parse_hex(t).ok_or_else(|| format!("expected a hexadecimal PC, found `{t}`"))?;
        let t = field("an 8-digit hexadecimal active mask")?;
        let mask = parse_hex(t)
            .and_then(|m| u32::try_from(m).ok())
            .ok_or_else(|| format!("expected an 8-digit hexadecimal active mask, found `{t}`"))?;
        let t = field("the destination count")?;
        let ndst = parse_dec(t)
            .filter(|&n| n <= 4)
            .ok_or_else(|| format!("expected a destination count 0..=4, found `{t}`"))?;
        let mut dst = NO_REG;
        for _ in 0..ndst {
            let t = field("a destination register")?;
            let r = parse_reg(t).ok_or_else(|| format!("expected a register, found `{t}`"))?;
            if dst == NO_REG {
                dst = r;
            }
        }
        let opname = field("an opcode")?;
        if !opname
            .as_bytes()
            .first()
            .is_some_and(u8::is_ascii_alphabetic)
        {
            return Err(format!("expected an opcode, found `{opname}`"));
        }
        let t = field("the source count")?;
        let nsrc = parse_dec(t)
            .filter(|&n| n <= 8)
            .ok_or_else(|| format!("expected a source count 0..=8, found `{t}`"))?;
        let mut srcs = [NO_REG; 5];
        let mut ns = 0;
        for _ in 0..nsrc {
            let t = field("a source register")?;
            let r = parse_reg(t).ok_or_else(|| format!("expected a register, found `{t}`"))?;
            if r != NO_REG && ns < srcs.len() {
                srcs[ns] = r;
                ns += 1;
            }
        }
        let t = field("the memory width")?;
        let tw = parse_dec(t)
            .filter(|&w| w <= 64)
            .ok_or_else(|| format!("expected a memory width 0..=64, found `{t}`"))?;
        let opi = self.opcodes.lookup(opname);
        let entry = self
            .opcodes
            .entries
            .get_mut(opi as usize)
            .ok_or_else(|| "internal: opcode table".to_string())?;
        entry.count += 1;
        let info = entry.info;
        let mut inst = TraceInst {
            pc,
            mask,
            class: info.class,
            space: None,
            width: 0,
            opcode: opi,
            dst,
            srcs,
            addr_start: addrs.len() as u32,
            naddrs: 0,
        };
        if tw == 0 {
            if info.class.is_mem() {
                inst.class = OpClass::Int;
            }
            return Ok(inst);
        }
        // memory instruction: addresses
        let t = field("an address mode (0, 1 or 2)")?;
        let mode = parse_dec(t).ok_or_else(|| format!("expected an address mode, found `{t}`"))?;
        let lanes = mask.count_ones() as usize;
        match mode {
            0 => {
                for k in 0..lanes {
                    let t = it.next().ok_or_else(|| {
                        format!(
                            "expected {lanes} addresses (one per active lane of mask {mask:08x}), \
                             found {k}"
                        )
                    })?;
                    let a = parse_hex(t)
                        .ok_or_else(|| format!("malformed hexadecimal address `{t}`"))?;
                    addrs.push(a);
                }
                if let Some(t) = it.next() {
                    if t.starts_with("0x") {
                        return Err(format!(
                            "more addresses than the {lanes} active lanes of mask {mask:08x}"
                        ));
                    }
                }
            }
            1 => {
                let t = it
                    .next()
                    .ok_or("expected a base address (address mode 1)")?;
                let base =
                    parse_hex(t).ok_or_else(|| format!("malformed hexadecimal address `{t}`"))?;
                let t = it.next().ok_or("expected a stride (address mode 1)")?;
                let stride =
                    parse_signed(t).ok_or_else(|| format!("malformed decimal stride `{t}`"))?;
                let mut a = base;
                for k in 0..lanes {
                    if k > 0 {
                        a = a.wrapping_add(stride as u64);
                    }
                    addrs.push(a);
                }
            }
            2 => {
                let t = it
                    .next()
                    .ok_or("expected a base address (address mode 2)")?;
                let base =
                    parse_hex(t).ok_or_else(|| format!("malformed hexadecimal address `{t}`"))?;
                let mut a = base;
                for k in 0..lanes {
                    if k > 0 {
                        let t = it.next().ok_or_else(|| {
                            format!(
                                "expected {} address deltas (active lanes of mask {mask:08x} \
                                 after the first), found {}",
                                lanes - 1,
                                k - 1
                            )
                        })?;
                        let d = parse_signed(t)
                            .ok_or_else(|| format!("malformed decimal address delta `{t}`"))?;
                        a = a.wrapping_add(d as u64);
                    }
                    addrs.push(a);
                }
            }
            m => return Err(format!("unknown address mode {m} (expected 0, 1 or 2)")),
        }
        inst.naddrs = lanes as u8;
        let first = addrs.get(inst.addr_start as usize).copied();
        let resolve = |a: Option<u64>| match a {
            Some(a) => h.resolve_generic(a),
            None => MemSpace::Global,
        };
        if info.class.is_mem() {
            inst.width = info.width;
            inst.space = Some(match info.space {
                Some(MemSpace::Generic) | None => resolve(first),
                Some(s) => s,
            });
        } else {
            if let Some(e) = self.opcodes.entries.get_mut(opi as usize) {
                e.unexpected_addrs += 1;
            }
            inst.class = OpClass::Load;
            inst.width = tw.clamp(1, 16) as u8;
            inst.space = Some(resolve(first));
        }
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> KernelHeader {
        KernelHeader {
            name: "k".into(),
            id: 1,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shmem: 0,
            nregs: 16,
            binary_version: Some(80),
            cuda_stream: 0,
            shmem_base: 0x7000_0000_0000,
            local_base: 0x6000_0000_0000,
            nvbit_version: String::new(),
            tracer_version: 5,
            lineinfo: false,
        }
    }

    #[test]
    fn registers() {
        assert_eq!(parse_reg("R0"), Some(1));
        assert_eq!(parse_reg("R254"), Some(255));
        assert_eq!(parse_reg("R255"), Some(0));
        assert_eq!(parse_reg("UR4"), Some(260));
        assert_eq!(parse_reg("P3"), Some(323));
        assert_eq!(parse_reg("PT"), Some(0));
        assert_eq!(parse_reg("UP1"), Some(331));
        assert_eq!(parse_reg("R256"), None);
        assert_eq!(parse_reg("X1"), None);
    }

    #[test]
    fn modes() {
        let h = header();
        let mut p = InstParser::new(&h);
        let mut a = Vec::new();
        let i = p
            .parse(
                "00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0 ",
                &h,
                &mut a,
            )
            .unwrap();
        assert_eq!(
            (i.class, i.space, i.width, i.naddrs),
            (OpClass::Load, Some(MemSpace::Global), 4, 32)
        );
        assert_eq!(a[31], 0x7fb0fc430e00 + 31 * 4);
        assert_eq!(i.dst, 5);
        assert_eq!(i.srcs[0], 5);
        a.clear();
        let i = p
            .parse(
                "00d0 00000005 0 STG.E.U8 2 R4 R255 1 2 0x100 -4",
                &h,
                &mut a,
            )
            .unwrap();
        assert_eq!((i.width, i.naddrs, i.srcs), (1, 2, [5, 0, 0, 0, 0]));
        assert_eq!(a, vec![0x100, 0xfc]);
        a.clear();
        let i = p
            .parse(
                "0010 00000003 0 LD.E 1 R2 4 0 0x700000000010 0x700000000020 0",
                &h,
                &mut a,
            )
            .unwrap();
        assert_eq!(i.space, Some(MemSpace::Shared));
        assert!(p
            .parse("0010 00000003 0 LD.E 1 R2 4 0 0x10", &h, &mut a)
            .is_err());
        assert!(p
            .parse("0010 00000001 0 LD.E 1 R2 4 0 0x10 0x20", &h, &mut a)
            .is_err());
        assert!(p
            .parse("0010 00000001 0 LD.E 1 R2 4 0 0xzz", &h, &mut a)
            .is_err());
        let i = p
            .parse("0070 ffffffff 0 ULDC.64 0 0 0", &h, &mut a)
            .unwrap();
        assert_eq!(i.class, OpClass::Int);
    }
}
