//! The `-key = value` header of a kernel trace file: launch shape, resources, the GPU
//! generation it was traced on and the tracer version, validated so corrupt headers are
//! refused with a clear message instead of producing nonsense downstream.

use crate::error::TraceError;
use crate::kernelslist::{parse_dec, parse_hex};
use serde::Serialize;
use std::path::Path;

/// Validated header of one kernel trace file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelHeader {
    /// Mangled kernel name (may hold spaces and parentheses).
    pub name: String,
    /// `kernel id` (launch number).
    pub id: u64,
    /// Grid dimensions (x, y, z), all nonzero, product <= 2^31.
    pub grid: [u32; 3],
    /// Block dimensions (x, y, z), all nonzero, product <= 1024.
    pub block: [u32; 3],
    /// Shared memory per block in bytes.
    pub shmem: u32,
    /// Registers per thread (1..=255).
    pub nregs: u32,
    /// SM architecture (`binary version`, e.g. 80); `None` when the header omits it.
    pub binary_version: Option<u32>,
    /// CUDA stream id.
    pub cuda_stream: u64,
    /// Base of the generic-address shared-memory window (0 if unknown).
    pub shmem_base: u64,
    /// Base of the generic-address local-memory window (0 if unknown).
    pub local_base: u64,
    /// NVBit version string.
    pub nvbit_version: String,
    /// Accel-Sim tracer version (1..=6; below 3 lines carry a block/warp prefix).
    pub tracer_version: u32,
    /// Whether instruction lines start with a source line number.
    pub lineinfo: bool,
}

/// Size assumed for the shared-memory generic window starting at `shmem base_addr`.
pub const SHARED_WINDOW: u64 = 1 << 24;
/// Size assumed for the local-memory generic window starting at `local mem base_addr`
/// (cut short where the shared window begins).
pub const LOCAL_WINDOW: u64 = 1 << 25;

impl KernelHeader {
    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block[0]
            .saturating_mul(self.block[1])
            .saturating_mul(self.block[2])
    }
    /// Warps per block (threads rounded up to 32).
    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block().div_ceil(32)
    }
    /// Number of thread blocks in the grid.
    pub fn num_blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }
    /// Row-major linear id (x fastest) of block `(x, y, z)`, or `None` if outside the grid.
    pub fn linear_block(&self, b: [u32; 3]) -> Option<u64> {
        if b[0] >= self.grid[0] || b[1] >= self.grid[1] || b[2] >= self.grid[2] {
            return None;
        }
        let [gx, gy, _] = self.grid.map(|d| d as u64);
        Some((b[2] as u64 * gy + b[1] as u64) * gx + b[0] as u64)
    }
    /// GPU generation name of the binary version (so users know what to replay it on).
    pub fn generation(&self) -> &'static str {
        generation_name(self.binary_version)
    }
    /// Resolve a generic address to shared, local or global by the header's windows.
    pub fn resolve_generic(&self, addr: u64) -> crate::opcode::MemSpace {
        use crate::opcode::MemSpace;
        if self.shmem_base != 0 && addr >= self.shmem_base && addr - self.shmem_base < SHARED_WINDOW
        {
            return MemSpace::Shared;
        }
        if self.local_base != 0 && addr >= self.local_base {
            let mut end = self.local_base.saturating_add(LOCAL_WINDOW);
            if self.shmem_base > self.local_base {
                end = end.min(self.shmem_base);
            }
            if addr < end {
                return MemSpace::Local;
            }
        }
        MemSpace::Global
    }
}

/// GPU generation of an SM architecture number.
pub fn generation_name(sm: Option<u32>) -> &'static str {
    match sm {
        Some(30..=39) => "Kepler",
        Some(50..=59) => "Maxwell",
        Some(60..=69) => "Pascal",
        Some(70..=74) => "Volta",
        Some(75..=79) => "Turing",
        Some(80..=88) => "Ampere",
        Some(89) => "Ada",
        Some(90..=99) => "Hopper",
        Some(100..=129) => "Blackwell",
        _ => "unknown",
    }
}

/// Accumulates header lines and validates them.
#[derive(Default)]
pub(crate) struct HeaderBuilder {
    name: Option<String>,
    id: Option<u64>,
    grid: Option<([u32; 3], u64)>,
    block: Option<([u32; 3], u64)>,
    shmem: Option<(u64, u64)>,
    nregs: Option<(u64, u64)>,
    binary: Option<(u64, u64)>,
    stream: Option<u64>,
    shmem_base: Option<u64>,
    local_base: Option<u64>,
    nvbit: Option<String>,
    tracer: Option<(u64, u64)>,
    lineinfo: Option<bool>,
}

fn parse_dim(v: &str) -> Option<[u32; 3]> {
    let v = v.trim();
    let v = v.strip_prefix('(').unwrap_or(v);
    let v = v.strip_suffix(')').unwrap_or(v);
    let mut it = v.split(',').map(|s| parse_dec(s.trim()));
    let x = it.next()??;
    let y = it.next()??;
    let z = it.next()??;
    if it.next().is_some() {
        return None;
    }
    Some([
        u32::try_from(x).ok()?,
        u32::try_from(y).ok()?,
        u32::try_from(z).ok()?,
    ])
}

impl HeaderBuilder {
    /// Take one `-key = value` line (without the leading `-`). Unknown keys are returned as
    /// a warning; malformed values of known keys are errors.
    pub(crate) fn line(
        &mut self,
        file: &Path,
        ln: u64,
        text: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(), TraceError> {
        let Some((key, value)) = text.split_once('=') else {
            return Err(TraceError::new(
                file,
                ln,
                format!("expected a header line `-key = value`, found `-{text}`"),
            ));
        };
        let key = key.trim();
        let value = value.strip_prefix(' ').unwrap_or(value);
        let vt = value.trim();
        let bad = |what: &str| {
            TraceError::new(
                file,
                ln,
                format!("malformed `{key}` value `{vt}`: expected {what}"),
            )
        };
        let num = || parse_dec(vt).ok_or_else(|| bad("a decimal number"));
        let hex = || parse_hex(vt).ok_or_else(|| bad("a hexadecimal address"));
        match key {
            "kernel name" => self.name = Some(value.trim_end().to_string()),
            "kernel id" => self.id = Some(num()?),
            "grid dim" => self.grid = Some((parse_dim(vt).ok_or_else(|| bad("(x,y,z)"))?, ln)),
            "block dim" => self.block = Some((parse_dim(vt).ok_or_else(|| bad("(x,y,z)"))?, ln)),
            "shmem" => self.shmem = Some((num()?, ln)),
            "nregs" => self.nregs = Some((num()?, ln)),
            "binary version" => self.binary = Some((num()?, ln)),
            "cuda stream id" => self.stream = Some(num()?),
            "shmem base_addr" => self.shmem_base = Some(hex()?),
            "local mem base_addr" => self.local_base = Some(hex()?),
            "nvbit version" => self.nvbit = Some(vt.to_string()),
            "accelsim tracer version" => self.tracer = Some((num()?, ln)),
            "enable lineinfo" => {
                self.lineinfo = Some(match vt {
                    "0" => false,
                    "1" => true,
                    _ => return Err(bad("0 or 1")),
                })
            }
            _ => warnings.push(format!(
                "{}:{ln}: unknown header key `{key}` ignored",
                file.display()
            )),
        }
        Ok(())
    }

    /// Validate and produce the header; `end_line` is the first line after the header.
    pub(crate) fn finish(
        self,
        file: &Path,
        end_line: u64,
        warnings: &mut Vec<String>,
    ) -> Result<KernelHeader, TraceError> {
        let err = |ln: u64, msg: String| TraceError::new(file, ln, msg);
        let (grid, gl) = self
            .grid
            .ok_or_else(|| err(end_line, "header lacks `-grid dim = (x,y,z)`".into()))?;
        let (block, bl) = self
            .block
            .ok_or_else(|| err(end_line, "header lacks `-block dim = (x,y,z)`".into()))?;
        if grid.contains(&0) {
            return Err(err(gl, format!("grid dim {grid:?} has a zero dimension")));
        }
        let total: u64 = grid.iter().map(|&d| d as u64).product();
        if total > 1 << 31 {
            return Err(err(
                gl,
                format!("grid dim {grid:?} has {total} blocks, more than 2^31: corrupt header"),
            ));
        }
        if block.contains(&0) {
            return Err(err(bl, format!("block dim {block:?} has a zero dimension")));
        }
        let threads: u64 = block.iter().map(|&d| d as u64).product();
        if threads > 1024 {
            return Err(err(
                bl,
                format!("block dim {block:?} has {threads} threads, more than 1024"),
            ));
        }
        let nregs = match self.nregs {
            Some((n, ln)) => {
                if !(1..=255).contains(&n) {
                    return Err(err(
                        ln,
                        format!("nregs = {n} is not a register count (1..=255): corrupt header"),
                    ));
                }
                n as u32
            }
            None => {
                warnings.push(format!(
                    "{}: header lacks `nregs`; assuming 32",
                    file.display()
                ));
                32
            }
        };
        let binary_version = match self.binary {
            Some((v, ln)) => {
                if !(30..=130).contains(&v) {
                    return Err(err(
                        ln,
                        format!(
                            "binary version = {v} is not a known SM architecture (30..=130): \
                             corrupt header"
                        ),
                    ));
                }
                Some(v as u32)
            }
            None => {
                warnings.push(format!(
                    "{}: header lacks `binary version`; GPU generation unknown",
                    file.display()
                ));
                None
            }
        };
        let shmem = match self.shmem {
            Some((s, ln)) => {
                if s > 1 << 20 {
                    return Err(err(
                        ln,
                        format!("shmem = {s} bytes per block is more than 1 MiB: corrupt header"),
                    ));
                }
                s as u32
            }
            None => 0,
        };
        let tracer_version = match self.tracer {
            Some((v, ln)) => {
                if !(1..=6).contains(&v) {
                    return Err(err(
                        ln,
                        format!("accelsim tracer version = {v} is not supported (1..=6)"),
                    ));
                }
                if v < 3 {
                    warnings.push(format!(
                        "{}: tracer version {v} (< 3): per-line block/warp prefix skipped",
                        file.display()
                    ));
                }
                v as u32
            }
            None => {
                warnings.push(format!(
                    "{}: header lacks `accelsim tracer version`; assuming 3",
                    file.display()
                ));
                3
            }
        };
        Ok(KernelHeader {
            name: self.name.unwrap_or_else(|| "kernel".to_string()),
            id: self.id.unwrap_or(0),
            grid,
            block,
            shmem,
            nregs,
            binary_version,
            cuda_stream: self.stream.unwrap_or(0),
            shmem_base: self.shmem_base.unwrap_or(0),
            local_base: self.local_base.unwrap_or(0),
            nvbit_version: self.nvbit.unwrap_or_default(),
            tracer_version,
            lineinfo: self.lineinfo.unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims() {
        assert_eq!(parse_dim("(196,1,1)"), Some([196, 1, 1]));
        assert_eq!(parse_dim("( 2, 3 ,4)"), Some([2, 3, 4]));
        assert_eq!(parse_dim("(1,1)"), None);
        assert_eq!(parse_dim("(99999999999,1,1)"), None);
    }

    #[test]
    fn generations() {
        assert_eq!(generation_name(Some(80)), "Ampere");
        assert_eq!(generation_name(Some(90)), "Hopper");
        assert_eq!(generation_name(Some(61)), "Pascal");
        assert_eq!(generation_name(None), "unknown");
    }
}
