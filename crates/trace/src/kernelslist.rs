//! `kernelslist.g`: the program's command list (host-to-device copies naming the data
//! objects, and kernel launches naming their trace files, in execution order).

use crate::error::TraceError;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A `MemcpyHtoD,0xADDR,BYTES` command: a device buffer the program allocated and filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Memcpy {
    /// Device virtual address of the destination.
    pub addr: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// 1-based line in kernelslist.g.
    pub line: u64,
}

/// One command of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Host-to-device copy.
    Memcpy(Memcpy),
    /// Kernel launch: the resolved path of its `.traceg` / `.traceg.xz` file and the line.
    Kernel {
        /// Path of the kernel trace file (kernelslist.g's folder joined with the name).
        path: PathBuf,
        /// 1-based line in kernelslist.g.
        line: u64,
    },
}

/// A data object of the trace: a MemcpyHtoD buffer, named `obj<i>` by list order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceObject {
    /// `obj0`, `obj1`, ... in kernelslist.g order.
    pub name: String,
    /// Base virtual address.
    pub base: u64,
    /// Size in bytes.
    pub bytes: u64,
}

/// A parsed `kernelslist.g`.
#[derive(Clone, Debug)]
pub struct KernelList {
    /// Path of the kernelslist.g file.
    pub path: PathBuf,
    /// Folder holding it (kernel file names are relative to it).
    pub dir: PathBuf,
    /// Commands in list order.
    pub commands: Vec<Command>,
}

/// Parse a `0x`-prefixed (or bare) hexadecimal number without overflow.
pub(crate) fn parse_hex(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let d = if b.len() > 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        &b[2..]
    } else {
        b
    };
    if d.is_empty() || d.len() > 16 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in d {
        let x = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | x as u64;
    }
    Some(v)
}

/// Parse an unsigned decimal number without overflow.
pub(crate) fn parse_dec(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// Parse a signed decimal number without overflow.
pub(crate) fn parse_signed(s: &str) -> Option<i64> {
    if let Some(r) = s.strip_prefix('-') {
        let v = parse_dec(r)?;
        if v <= i64::MAX as u64 + 1 {
            Some((v as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        let v = parse_dec(s.strip_prefix('+').unwrap_or(s))?;
        i64::try_from(v).ok()
    }
}

impl KernelList {
    /// Read the list from a trace folder or from the `kernelslist.g` path itself. Kernel files
    /// must exist (plain or `.xz`); a missing one is an error naming it.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = if path.is_dir() {
            path.join("kernelslist.g")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read(&file)
            .map_err(|e| TraceError::new(&file, 0, format!("cannot read kernel list: {e}")))?;
        let dir = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let mut commands = Vec::new();
        for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
            let ln = i as u64 + 1;
            let line = std::str::from_utf8(raw)
                .map_err(|_| TraceError::new(&file, ln, "non-UTF-8 bytes in line"))?
                .trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix("MemcpyHtoD,") {
                let mut it = rest.split(',').map(str::trim);
                let (Some(a), Some(n), None) = (it.next(), it.next(), it.next()) else {
                    return Err(TraceError::new(
                        &file,
                        ln,
                        format!("expected `MemcpyHtoD,0x<addr>,<bytes>`, found `{line}`"),
                    ));
                };
                let addr = parse_hex(a).ok_or_else(|| {
                    TraceError::new(&file, ln, format!("malformed hex address `{a}`"))
                })?;
                let bytes = parse_dec(n).ok_or_else(|| {
                    TraceError::new(&file, ln, format!("malformed byte count `{n}`"))
                })?;
                if addr.checked_add(bytes).is_none() {
                    return Err(TraceError::new(&file, ln, "buffer wraps the address space"));
                }
                commands.push(Command::Memcpy(Memcpy {
                    addr,
                    bytes,
                    line: ln,
                }));
            } else if line.ends_with(".traceg") || line.ends_with(".traceg.xz") {
                let p = dir.join(line);
                if !p.is_file() {
                    return Err(TraceError::new(
                        &file,
                        ln,
                        format!("kernel trace file {} is missing", p.display()),
                    ));
                }
                commands.push(Command::Kernel { path: p, line: ln });
            } else {
                return Err(TraceError::new(
                    &file,
                    ln,
                    format!(
                        "expected `MemcpyHtoD,0x<addr>,<bytes>` or a `.traceg`/`.traceg.xz` \
                         kernel file name, found `{line}`"
                    ),
                ));
            }
        }
        Ok(KernelList {
            path: file,
            dir,
            commands,
        })
    }

    /// Kernel trace files in launch order.
    pub fn kernels(&self) -> impl Iterator<Item = &Path> {
        self.commands.iter().filter_map(|c| match c {
            Command::Kernel { path, .. } => Some(path.as_path()),
            Command::Memcpy(_) => None,
        })
    }

    /// Host-to-device copies in list order.
    pub fn memcpys(&self) -> impl Iterator<Item = &Memcpy> {
        self.commands.iter().filter_map(|c| match c {
            Command::Memcpy(m) => Some(m),
            Command::Kernel { .. } => None,
        })
    }

    /// The program's data objects: one per distinct MemcpyHtoD buffer, named `obj<i>` in list
    /// order, returned sorted by base address and made disjoint (a copy to an address already
    /// named keeps the first name and the larger size; a partial overlap shortens the lower
    /// buffer to end where the next begins), so address lookups are unambiguous.
    pub fn objects(&self) -> Vec<TraceObject> {
        let mut objs: Vec<TraceObject> = Vec::new();
        for m in self.memcpys() {
            if let Some(o) = objs.iter_mut().find(|o| o.base == m.addr) {
                o.bytes = o.bytes.max(m.bytes);
                continue;
            }
            objs.push(TraceObject {
                name: format!("obj{}", objs.len()),
                base: m.addr,
                bytes: m.bytes,
            });
        }
        objs.sort_by_key(|o| o.base);
        for i in 1..objs.len() {
            let next = objs[i].base;
            let prev = &mut objs[i - 1];
            if prev.base.saturating_add(prev.bytes) > next {
                prev.bytes = next - prev.base;
            }
        }
        objs
    }
}

/// Index of the object containing `addr` in `objs` (sorted by base, disjoint), if any.
pub fn object_index(objs: &[TraceObject], addr: u64) -> Option<usize> {
    let i = objs.partition_point(|o| o.base <= addr);
    let o = objs.get(i.checked_sub(1)?)?;
    (addr - o.base < o.bytes).then_some(i - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_hex("0x00007fb0fc400000"), Some(0x7fb0fc400000));
        assert_eq!(parse_hex("ffffffff"), Some(0xffffffff));
        assert_eq!(parse_hex("0x"), None);
        assert_eq!(parse_hex("0x12345678123456789"), None);
        assert_eq!(parse_hex("0xg"), None);
        assert_eq!(parse_dec("18446744073709551616"), None);
        assert_eq!(parse_signed("-60"), Some(-60));
        assert_eq!(parse_signed("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_signed("9223372036854775808"), None);
    }
}
