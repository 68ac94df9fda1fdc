//! Streaming reader of one kernel trace file (plain or `.xz`): the header at open, then one
//! thread block at a time into a reused [`TraceBlock`]. Lines are read into one reused
//! buffer; nothing proportional to the file size is ever held in memory.

use crate::block::TraceBlock;
use crate::error::TraceError;
use crate::header::{HeaderBuilder, KernelHeader};
use crate::inst::{InstParser, OpcodeTable};
use crate::kernelslist::parse_dec;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Longest accepted line; longer ones are refused rather than buffered.
pub const MAX_LINE: u64 = 1 << 20;
const BUF_SIZE: usize = 256 * 1024;

/// A position in a kernel file: where a line starts and its 1-based number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Byte offset in the (decompressed) file.
    pub offset: u64,
    /// 1-based line number of the line starting at `offset`.
    pub line: u64,
}

enum Source {
    Plain(BufReader<File>),
    Xz(Box<BufReader<xz2::read::XzDecoder<File>>>),
}

/// Line reader tracking line numbers and byte offsets.
struct Lines {
    file: PathBuf,
    src: Source,
    buf: Vec<u8>,
    /// Number of the last line returned.
    line: u64,
    /// Offset where the last returned line starts.
    start: u64,
    /// Offset after the last returned line.
    end: u64,
    /// Return the last line again on the next call.
    replay: bool,
}

impl Lines {
    fn err(&self, line: u64, msg: impl Into<String>) -> TraceError {
        TraceError::new(&self.file, line, msg)
    }

    fn next(&mut self) -> Result<Option<(u64, &str)>, TraceError> {
        if self.replay {
            self.replay = false;
        } else {
            self.buf.clear();
            let r = match &mut self.src {
                Source::Plain(r) => r.by_ref().take(MAX_LINE).read_until(b'\n', &mut self.buf),
                Source::Xz(r) => r.by_ref().take(MAX_LINE).read_until(b'\n', &mut self.buf),
            };
            let n = match r {
                Ok(n) => n,
                Err(e) => {
                    let what = if matches!(self.src, Source::Xz(_)) {
                        "corrupt or truncated .xz stream"
                    } else {
                        "read error"
                    };
                    return Err(self.err(self.line + 1, format!("{what}: {e}")));
                }
            };
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            self.start = self.end;
            self.end += n as u64;
            if n as u64 == MAX_LINE && self.buf.last() != Some(&b'\n') {
                return Err(self.err(self.line, "line longer than 1 MiB"));
            }
        }
        let mut b: &[u8] = &self.buf;
        if let [rest @ .., b'\n'] = b {
            b = rest;
        }
        if let [rest @ .., b'\r'] = b {
            b = rest;
        }
        match std::str::from_utf8(b) {
            Ok(s) => Ok(Some((self.line, s))),
            Err(e) => Err(TraceError::new(
                &self.file,
                self.line,
                format!("non-UTF-8 bytes at column {}", e.valid_up_to() + 1),
            )),
        }
    }

    /// Position of the next line to be read.
    fn pos(&self) -> Pos {
        if self.replay {
            Pos {
                offset: self.start,
                line: self.line,
            }
        } else {
            Pos {
                offset: self.end,
                line: self.line + 1,
            }
        }
    }
}

/// Streaming reader of one kernel trace file.
pub struct KernelReader {
    lines: Lines,
    header: KernelHeader,
    parser: InstParser,
    warnings: Vec<String>,
}

impl std::fmt::Debug for KernelReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelReader")
            .field("file", &self.lines.file)
            .field("header", &self.header)
            .finish()
    }
}

const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];

fn open_source(path: &Path) -> Result<Source, TraceError> {
    let open =
        || File::open(path).map_err(|e| TraceError::new(path, 0, format!("cannot open: {e}")));
    let mut f = open()?;
    let mut magic = [0u8; 6];
    let mut got = 0;
    while got < magic.len() {
        match f.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(TraceError::new(path, 0, format!("cannot read: {e}"))),
        }
    }
    let f = open()?;
    if got == magic.len() && magic == XZ_MAGIC {
        let dec = xz2::read::XzDecoder::new_multi_decoder(f);
        Ok(Source::Xz(Box::new(BufReader::with_capacity(
            BUF_SIZE, dec,
        ))))
    } else if path.extension().is_some_and(|e| e == "xz") {
        Err(TraceError::new(
            path,
            0,
            "corrupt .xz stream: file does not start with the xz magic bytes",
        ))
    } else {
        Ok(Source::Plain(BufReader::with_capacity(BUF_SIZE, f)))
    }
}

impl KernelReader {
    /// Open a kernel file (`.xz` detected by its magic bytes) and read its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let src = open_source(path)?;
        let mut lines = Lines {
            file: path.to_path_buf(),
            src,
            buf: Vec::with_capacity(256),
            line: 0,
            start: 0,
            end: 0,
            replay: false,
        };
        let mut b = HeaderBuilder::default();
        let mut warnings = Vec::new();
        let mut any = false;
        while let Some((ln, l)) = lines.next()? {
            let t = l.trim_end();
            if t.trim_start().is_empty() {
                continue;
            }
            if let Some(rest) = t.strip_prefix('-') {
                b.line(path, ln, rest, &mut warnings)?;
                any = true;
            } else if t.starts_with('#') {
                if t == "#BEGIN_TB" {
                    lines.replay = true;
                }
                break;
            } else {
                return Err(TraceError::new(
                    path,
                    ln,
                    format!("expected a header line `-key = value` or `#...`, found `{t}`"),
                ));
            }
        }
        if !any {
            return Err(TraceError::new(
                path,
                lines.line.max(1),
                "no `-key = value` header: not a kernel trace file (empty or truncated?)",
            ));
        }
        let header = b.finish(path, lines.pos().line, &mut warnings)?;
        let parser = InstParser::new(&header);
        Ok(KernelReader {
            lines,
            header,
            parser,
            warnings,
        })
    }

    /// The validated header.
    pub fn header(&self) -> &KernelHeader {
        &self.header
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.lines.file
    }

    /// Whether the file can be repositioned with [`KernelReader::seek`] (plain files).
    pub fn is_seekable(&self) -> bool {
        matches!(self.lines.src, Source::Plain(_))
    }

    /// Position of the next line to be read.
    pub fn pos(&self) -> Pos {
        self.lines.pos()
    }

    /// Reposition a plain file at `pos` (a position returned by [`KernelReader::pos`] or a
    /// block's `offset`/`line`). Refused for `.xz` streams.
    pub fn seek(&mut self, pos: Pos) -> Result<(), TraceError> {
        if self.lines.pos() == pos {
            return Ok(());
        }
        let file = self.lines.file.clone();
        match &mut self.lines.src {
            Source::Plain(r) => {
                r.seek(SeekFrom::Start(pos.offset))
                    .map_err(|e| TraceError::new(&file, pos.line, format!("seek failed: {e}")))?;
            }
            Source::Xz(_) => {
                return Err(TraceError::new(
                    &file,
                    pos.line,
                    "cannot seek in an .xz stream",
                ))
            }
        }
        self.lines.replay = false;
        self.lines.end = pos.offset;
        self.lines.start = pos.offset;
        self.lines.line = pos.line.saturating_sub(1);
        Ok(())
    }

    /// Distinct opcodes seen so far, with counts.
    pub fn opcodes(&self) -> &OpcodeTable {
        &self.parser.opcodes
    }

    /// Warnings so far: tolerated header problems, unknown opcodes with counts.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.warnings.clone();
        let f = self.lines.file.display();
        w.extend(
            self.parser
                .opcodes
                .warnings()
                .into_iter()
                .map(|s| format!("{f}: {s}")),
        );
        w
    }

    /// Read the next thread block into `out`. Returns `Ok(false)` at the end of the file.
    pub fn next_block(&mut self, out: &mut TraceBlock) -> Result<bool, TraceError> {
        let file = &self.lines.file.clone();
        let err = |ln: u64, m: String| TraceError::new(file, ln, m);
        // find #BEGIN_TB
        loop {
            let Some((ln, l)) = self.lines.next()? else {
                return Ok(false);
            };
            let t = l.trim();
            if t.is_empty() {
                continue;
            }
            if t == "#BEGIN_TB" {
                break;
            }
            if t == "#END_TB" || !t.starts_with('#') {
                return Err(err(ln, format!("expected `#BEGIN_TB`, found `{t}`")));
            }
        }
        out.line = self.lines.line;
        out.offset = self.lines.start;
        // thread block = x,y,z
        let idx = loop {
            let Some((ln, l)) = self.lines.next()? else {
                return Err(err(
                    self.lines.line + 1,
                    "file ends after #BEGIN_TB: expected `thread block = x,y,z` (truncated)".into(),
                ));
            };
            let t = l.trim();
            if t.is_empty() {
                continue;
            }
            let v = t
                .strip_prefix("thread block")
                .and_then(|r| r.trim_start().strip_prefix('='))
                .ok_or_else(|| err(ln, format!("expected `thread block = x,y,z`, found `{t}`")))?;
            let mut it = v.split(',').map(|s| parse_dec(s.trim()));
            let parsed = match (it.next(), it.next(), it.next(), it.next()) {
                (Some(Some(x)), Some(Some(y)), Some(Some(z)), None) => {
                    match (u32::try_from(x), u32::try_from(y), u32::try_from(z)) {
                        (Ok(x), Ok(y), Ok(z)) => Some([x, y, z]),
                        _ => None,
                    }
                }
                _ => None,
            };
            break parsed.ok_or_else(|| {
                err(
                    ln,
                    format!("malformed block index `{}`: expected x,y,z", v.trim()),
                )
            })?;
        };
        let h = &self.header;
        out.index = idx;
        out.linear = h.linear_block(idx).ok_or_else(|| {
            err(
                self.lines.line,
                format!("thread block {idx:?} lies outside the grid {:?}", h.grid),
            )
        })?;
        let nwarps = h.warps_per_block() as usize;
        out.reset(nwarps);
        let mut cur: Option<usize> = None;
        let mut declared: u64 = 0;
        let mut remaining: u64 = 0;
        let mut awaiting_insts = false;
        loop {
            let Some((ln, l)) = self.lines.next()? else {
                let what = match cur {
                    Some(w) if remaining > 0 => format!(
                        "warp {w} declared insts = {declared} but the file ends after {}",
                        declared - remaining
                    ),
                    _ => "expected `#END_TB`".to_string(),
                };
                return Err(err(
                    self.lines.line + 1,
                    format!("file ends inside thread block {idx:?} (truncated): {what}"),
                ));
            };
            let first = l
                .as_bytes()
                .iter()
                .copied()
                .find(|c| !c.is_ascii_whitespace());
            match first {
                None => continue,
                Some(b'#') => {
                    let t = l.trim();
                    if t != "#END_TB" {
                        return Err(err(
                            ln,
                            format!(
                                "expected `#END_TB` to close thread block {idx:?}, found `{t}`"
                            ),
                        ));
                    }
                    if awaiting_insts {
                        return Err(err(ln, "`#END_TB` where `insts = n` was expected".into()));
                    }
                    if remaining > 0 {
                        return Err(err(
                            ln,
                            format!(
                                "insts mismatch: warp {} declared insts = {declared} but has {} \
                                 instruction lines before `#END_TB`",
                                cur.unwrap_or(0),
                                declared - remaining
                            ),
                        ));
                    }
                    return Ok(true);
                }
                Some(b'w') => {
                    let t = l.trim();
                    let v = t
                        .strip_prefix("warp")
                        .and_then(|r| r.trim_start().strip_prefix('='))
                        .map(str::trim)
                        .ok_or_else(|| err(ln, format!("expected `warp = w`, found `{t}`")))?;
                    if remaining > 0 || awaiting_insts {
                        return Err(err(
                            ln,
                            format!(
                                "insts mismatch: warp {} declared insts = {declared} but has {} \
                                 instruction lines before the next `warp =`",
                                cur.unwrap_or(0),
                                declared - remaining
                            ),
                        ));
                    }
                    let w =
                        parse_dec(v).ok_or_else(|| err(ln, format!("malformed warp id `{v}`")))?;
                    let wi = usize::try_from(w)
                        .ok()
                        .filter(|&w| w < nwarps)
                        .ok_or_else(|| {
                            err(
                                ln,
                                format!(
                                "warp {w} does not exist in a block of {} threads ({nwarps} warps)",
                                h.threads_per_block()
                            ),
                            )
                        })?;
                    let warp = out
                        .warps
                        .get_mut(wi)
                        .ok_or_else(|| err(ln, "warp".into()))?;
                    if warp.present {
                        return Err(err(ln, format!("warp {w} appears twice in block {idx:?}")));
                    }
                    warp.present = true;
                    cur = Some(wi);
                    awaiting_insts = true;
                }
                Some(b'i') => {
                    let t = l.trim();
                    let v = t
                        .strip_prefix("insts")
                        .and_then(|r| r.trim_start().strip_prefix('='))
                        .map(str::trim)
                        .ok_or_else(|| err(ln, format!("expected `insts = n`, found `{t}`")))?;
                    if !awaiting_insts {
                        return Err(err(ln, "`insts = n` without a preceding `warp = w`".into()));
                    }
                    declared = parse_dec(v)
                        .ok_or_else(|| err(ln, format!("malformed instruction count `{v}`")))?;
                    remaining = declared;
                    awaiting_insts = false;
                    if let Some(w) = cur.and_then(|w| out.warps.get_mut(w)) {
                        w.insts.reserve(declared.min(1 << 16) as usize);
                    }
                }
                Some(_) => {
                    let Some(w) = cur.and_then(|w| out.warps.get_mut(w)) else {
                        return Err(err(
                            ln,
                            format!(
                                "expected `warp = w` before instruction lines, found `{}`",
                                l.trim()
                            ),
                        ));
                    };
                    if awaiting_insts {
                        return Err(err(
                            ln,
                            format!("expected `insts = n`, found `{}`", l.trim()),
                        ));
                    }
                    if remaining == 0 {
                        return Err(err(
                            ln,
                            format!(
                                "insts mismatch: extra instruction line, warp {} declared insts \
                                 = {declared}",
                                cur.unwrap_or(0)
                            ),
                        ));
                    }
                    let inst = self.parser.parse(l, h, &mut w.addrs).map_err(|m| {
                        if self.lines.buf.last() == Some(&b'\n') {
                            err(ln, m)
                        } else {
                            err(
                                ln,
                                format!("{m} (last line of the file is cut short: truncated?)"),
                            )
                        }
                    })?;
                    w.insts.push(inst);
                    remaining -= 1;
                }
            }
        }
    }
}
