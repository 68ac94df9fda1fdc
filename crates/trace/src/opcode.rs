//! SASS opcode classification: from the full mnemonic (`LDG.E.128.SYS`) to the instruction
//! class the timing model needs, the memory space it addresses (the trace does not write the
//! space, see the format spec's table) and the per-lane access width its modifiers imply.

use serde::Serialize;

/// What an instruction does, at the grain the timing model needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum OpClass {
    /// Integer / logic / move / anything unrecognised.
    Int,
    /// Floating point (incl. half, double and tensor math).
    Fp,
    /// Special-function unit: transcendentals and conversions.
    Sfu,
    /// Branch / control / convergence.
    Branch,
    /// Memory read.
    Load,
    /// Memory write.
    Store,
    /// Atomic or reduction performed at the data's home.
    Atomic,
    /// Block-wide barrier (`BAR*`).
    Barrier,
    /// Warp exit.
    Exit,
}

impl OpClass {
    /// Every class, in display order.
    pub const ALL: [OpClass; 9] = [
        OpClass::Int,
        OpClass::Fp,
        OpClass::Sfu,
        OpClass::Branch,
        OpClass::Load,
        OpClass::Store,
        OpClass::Atomic,
        OpClass::Barrier,
        OpClass::Exit,
    ];
    /// Lower-case name used in statistics.
    pub fn name(self) -> &'static str {
        match self {
            OpClass::Int => "int",
            OpClass::Fp => "fp",
            OpClass::Sfu => "sfu",
            OpClass::Branch => "branch",
            OpClass::Load => "load",
            OpClass::Store => "store",
            OpClass::Atomic => "atomic",
            OpClass::Barrier => "barrier",
            OpClass::Exit => "exit",
        }
    }
    /// Whether the class accesses memory.
    pub fn is_mem(self) -> bool {
        matches!(self, OpClass::Load | OpClass::Store | OpClass::Atomic)
    }
}

/// Memory space addressed by a memory instruction. `Generic` only appears in
/// [`OpInfo::space`]; instructions read from a trace carry the resolved space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum MemSpace {
    /// Device memory through L1/L2.
    Global,
    /// On-chip per-block shared memory.
    Shared,
    /// Per-thread local memory (stack, spills), in device memory.
    Local,
    /// Constant bank.
    Constant,
    /// Texture / surface path.
    Texture,
    /// Generic pointer: resolved by address windows from the kernel header.
    Generic,
}

impl MemSpace {
    /// Every space, in display order.
    pub const ALL: [MemSpace; 6] = [
        MemSpace::Global,
        MemSpace::Shared,
        MemSpace::Local,
        MemSpace::Constant,
        MemSpace::Texture,
        MemSpace::Generic,
    ];
    /// Lower-case name used in statistics.
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
            MemSpace::Local => "local",
            MemSpace::Constant => "constant",
            MemSpace::Texture => "texture",
            MemSpace::Generic => "generic",
        }
    }
}

/// Classification of one full opcode string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Class when the instruction has memory addresses (the trace's mem_width > 0).
    pub class: OpClass,
    /// Space for memory opcodes, `None` for ALU / control opcodes.
    pub space: Option<MemSpace>,
    /// Bytes per lane derived from the modifiers (`.64` 8, `.128` 16, `.U8`/`.S8` 1,
    /// `.U16`/`.S16` 2, else 4); meaningful for memory opcodes only.
    pub width: u8,
    /// False when the base mnemonic is not in the table (then class is `Int`).
    pub known: bool,
}

/// The base mnemonic: everything before the first `.`.
pub fn base_mnemonic(opcode: &str) -> &str {
    match opcode.find('.') {
        Some(i) => opcode.get(..i).unwrap_or(opcode),
        None => opcode,
    }
}

/// Per-lane width in bytes implied by the opcode's modifiers.
pub fn width_of(opcode: &str) -> u8 {
    let mut w = 4;
    for m in opcode.split('.').skip(1) {
        match m {
            "64" => w = 8,
            "128" => w = 16,
            "U8" | "S8" => w = 1,
            "U16" | "S16" => w = 2,
            _ => {}
        }
    }
    w
}

fn mem(class: OpClass, space: MemSpace) -> (OpClass, Option<MemSpace>) {
    (class, Some(space))
}

/// Classify a full opcode (`IMAD.WIDE.U32`, `LDG.E.128.SYS`, `BAR.SYNC.DEFER_BLOCKING`).
pub fn classify(opcode: &str) -> OpInfo {
    use MemSpace as S;
    use OpClass as C;
    let base = base_mnemonic(opcode);
    let alu = |c| (c, None);
    let entry: Option<(OpClass, Option<MemSpace>)> = match base {
        // memory
        "LDG" | "LDGSTS" => Some(mem(C::Load, S::Global)),
        "STG" => Some(mem(C::Store, S::Global)),
        "ATOMG" | "RED" | "REDG" => Some(mem(C::Atomic, S::Global)),
        "LDS" | "LDSM" => Some(mem(C::Load, S::Shared)),
        "STS" | "STSM" => Some(mem(C::Store, S::Shared)),
        "ATOMS" => Some(mem(C::Atomic, S::Shared)),
        "LDL" => Some(mem(C::Load, S::Local)),
        "STL" => Some(mem(C::Store, S::Local)),
        "LDC" | "ULDC" => Some(mem(C::Load, S::Constant)),
        "TEX" | "TLD" | "TLD4" | "TXQ" | "TXD" | "TEXS" | "TLDS" | "TLD4S" | "TMML" | "SULD"
        | "SULDGA" => Some(mem(C::Load, S::Texture)),
        "SUST" | "SUSTGA" => Some(mem(C::Store, S::Texture)),
        "SUATOM" | "SURED" => Some(mem(C::Atomic, S::Texture)),
        "LD" => Some(mem(C::Load, S::Generic)),
        "ST" => Some(mem(C::Store, S::Generic)),
        "ATOM" => Some(mem(C::Atomic, S::Generic)),
        // control
        "EXIT" => Some(alu(C::Exit)),
        "BRA" | "BRX" | "BRXU" | "JMP" | "JMX" | "JMXU" | "CALL" | "RET" | "BSYNC" | "BSSY"
        | "BREAK" | "BMOV" | "WARPSYNC" | "YIELD" | "SSY" | "SYNC" | "PBK" | "BRK" | "PCNT"
        | "CONT" | "PRET" | "PLONGJMP" | "LONGJMP" | "KILL" | "BPT" | "RTT" | "CAL" | "JCAL"
        | "ACQBULK" | "WARPGROUP" | "NANOSLEEP" | "BRKPT" => Some(alu(C::Branch)),
        // floating point
        "FADD" | "FADD32I" | "FMUL" | "FMUL32I" | "FFMA" | "FFMA32I" | "FSET" | "FSETP"
        | "FMNMX" | "FCHK" | "FSWZADD" | "FSEL" | "F2F" | "F2FP" | "HADD2" | "HADD2_32I"
        | "HFMA2" | "HFMA2_32I" | "HMUL2" | "HMUL2_32I" | "HSET2" | "HSETP2" | "HMNMX2"
        | "DADD" | "DMUL" | "DFMA" | "DSETP" | "DSET" | "DMNMX" | "HMMA" | "DMMA" | "HGMMA"
        | "BMMA" | "BGMMA" | "FMNMX3" | "FADD2" | "FMUL2" | "FFMA2" | "QGMMA" | "OMMA"
        | "UFADD" | "UFMUL" | "UFFMA" | "UFSETP" | "UFMNMX" | "UFSEL" => Some(alu(C::Fp)),
        // special function / conversion
        "MUFU" | "F2I" | "I2F" | "FRND" | "I2FP" | "F2IP" | "RRO" | "DRND" | "UF2F" | "UI2F"
        | "UF2I" | "UFRND" => Some(alu(C::Sfu)),
        // barrier
        "BAR" | "BARRIER" => Some(alu(C::Barrier)),
        // integer / logic / move / misc
        "IMAD" | "IMAD32I" | "IADD3" | "IADD" | "IADD32I" | "ISETP" | "ISET" | "LOP3" | "LOP"
        | "LOP32I" | "SHF" | "SHL" | "SHR" | "LEA" | "MOV" | "MOV32I" | "S2R" | "S2UR" | "CS2R"
        | "SEL" | "IMNMX" | "IABS" | "POPC" | "FLO" | "BREV" | "PRMT" | "PLOP3" | "PSETP"
        | "P2R" | "R2P" | "VIADD" | "VIADDMNMX" | "VIMNMX" | "VIMNMX3" | "IMUL" | "IMUL32I"
        | "XMAD" | "ISCADD" | "ISCADD32I" | "ICMP" | "BFE" | "BFI" | "SGXT" | "UIADD3"
        | "UIMAD" | "UMOV" | "ULOP3" | "ULOP" | "ULOP32I" | "USHF" | "USHL" | "USHR" | "USEL"
        | "UISETP" | "ULEA" | "UPRMT" | "UFLO" | "UPOPC" | "USGXT" | "UBREV" | "UBMSK"
        | "UPLOP3" | "UPSETP" | "UP2UR" | "UR2UP" | "R2UR" | "UCLEA" | "UIMNMX" | "UIABS"
        | "ULDSM" | "SHFL" | "VOTE" | "VOTEU" | "MATCH" | "REDUX" | "IDP" | "IDP4A" | "I2I"
        | "I2IP" | "IMMA" | "IDE" | "NOP" | "DEPBAR" | "MEMBAR" | "ERRBAR" | "CCTL" | "CCTLL"
        | "CCTLT" | "FENCE" | "ARRIVES" | "LDGDEPBAR" | "B2R" | "R2B" | "PMTRIG" | "CSMTEST"
        | "SETCTAID" | "SETLMEMBASE" | "GETLMEMBASE" | "LEPC" | "BMSK" | "ELECT"
        | "ENDCOLLECTIVE" | "SYNCS" | "UCGABAR_ARV" | "UCGABAR_WAIT" | "USETMAXREG"
        | "VABSDIFF" | "VABSDIFF4" | "IMNMX3" | "QSPC" | "ULEPC" | "UVIADD" | "UVIMNMX"
        | "UTMACCTL" | "UTMAPF" | "UBLKPF" | "CGAERRBAR" | "FMNMX_UNUSED" | "S2UR_UNUSED" => {
            Some(alu(C::Int))
        }
        _ => None,
    };
    let width = width_of(opcode);
    match entry {
        Some((class, space)) => OpInfo {
            class,
            space,
            width,
            known: true,
        },
        None => OpInfo {
            class: C::Int,
            space: None,
            width,
            known: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_spaces() {
        let c = classify("LDG.E.128.SYS");
        assert_eq!(
            (c.class, c.space, c.width),
            (OpClass::Load, Some(MemSpace::Global), 16)
        );
        assert_eq!(classify("STG.E.U8").width, 1);
        assert_eq!(classify("LDS.U16").width, 2);
        assert_eq!(classify("ATOMG.E.ADD.64").width, 8);
        assert_eq!(classify("ATOMS.ADD").space, Some(MemSpace::Shared));
        assert_eq!(classify("LD.E").space, Some(MemSpace::Generic));
        assert_eq!(classify("BAR.SYNC.DEFER_BLOCKING").class, OpClass::Barrier);
        assert_eq!(classify("BAR.ARV").class, OpClass::Barrier);
        assert_eq!(classify("EXIT").class, OpClass::Exit);
        assert_eq!(classify("MUFU.RCP").class, OpClass::Sfu);
        assert_eq!(classify("HFMA2.MMA").class, OpClass::Fp);
        assert_eq!(classify("BSSY").class, OpClass::Branch);
        assert_eq!(classify("IMAD.WIDE.U32").class, OpClass::Int);
        let u = classify("FOOBAR.X");
        assert!(!u.known);
        assert_eq!(u.class, OpClass::Int);
    }
}
