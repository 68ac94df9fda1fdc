//! Random access to the thread blocks of one kernel file, in whatever order the simulator's
//! block scheduler asks for them.
//!
//! * Plain files: an index of block id → offset of its `#BEGIN_TB`, built incrementally as
//!   the file is read (never a separate full pass for in-order access); a block not yet
//!   indexed is found by reading forward, an indexed one by seeking.
//! * `.xz` files (not seekable): sequential decoding with a reorder buffer holding blocks
//!   decoded ahead of their request. In-order access keeps the buffer empty; memory grows
//!   only with the distance between request order and file order. A block requested again
//!   after it was delivered (e.g. probed, then run) is found by restarting the decoder.

use crate::block::TraceBlock;
use crate::error::TraceError;
use crate::header::KernelHeader;
use crate::reader::{KernelReader, Pos};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug)]
enum Mode {
    Seek {
        index: HashMap<u64, Pos>,
        /// Where the forward scan stopped.
        scanned: Pos,
        done: bool,
    },
    Stream {
        /// Blocks decoded ahead of their request.
        pending: HashMap<u64, TraceBlock>,
        /// Block id → ordinal in the file, for every block decoded so far.
        seen: HashMap<u64, u64>,
        /// Ordinal of the next block in the current pass.
        ordinal: u64,
        /// Number of blocks decoded over all passes (blocks beyond are new).
        furthest: u64,
        done: bool,
        spare: Vec<TraceBlock>,
    },
}

/// A kernel file opened for random access by block id.
#[derive(Debug)]
pub struct KernelTrace {
    path: PathBuf,
    reader: KernelReader,
    mode: Mode,
    restarts: u64,
}

impl KernelTrace {
    /// Open a kernel file: seek mode for plain files, stream mode for `.xz`.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let reader = KernelReader::open(path)?;
        let stream = !reader.is_seekable();
        Ok(Self::with_reader(path, reader, stream))
    }

    /// Open in stream (reorder-buffer) mode even for a plain file (used to cross-check the
    /// two access paths).
    pub fn open_streaming(path: &Path) -> Result<Self, TraceError> {
        let reader = KernelReader::open(path)?;
        Ok(Self::with_reader(path, reader, true))
    }

    fn with_reader(path: &Path, reader: KernelReader, stream: bool) -> Self {
        let mode = if stream {
            Mode::Stream {
                pending: HashMap::new(),
                seen: HashMap::new(),
                ordinal: 0,
                furthest: 0,
                done: false,
                spare: Vec::new(),
            }
        } else {
            Mode::Seek {
                index: HashMap::new(),
                scanned: reader.pos(),
                done: false,
            }
        };
        KernelTrace {
            path: path.to_path_buf(),
            reader,
            mode,
            restarts: 0,
        }
    }

    /// The kernel's header.
    pub fn header(&self) -> &KernelHeader {
        self.reader.header()
    }

    /// Warnings of the underlying reader (unknown opcodes, tolerated header problems).
    pub fn warnings(&self) -> Vec<String> {
        self.reader.warnings()
    }

    /// Blocks currently held in the reorder buffer (0 in seek mode).
    pub fn buffered_blocks(&self) -> usize {
        match &self.mode {
            Mode::Seek { .. } => 0,
            Mode::Stream { pending, .. } => pending.len(),
        }
    }

    /// How many times the `.xz` stream was restarted to serve a repeated request.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Read block `linear` (row-major id, x fastest) into `out`. `Ok(false)` if the trace
    /// does not contain that block.
    pub fn read_block(&mut self, linear: u64, out: &mut TraceBlock) -> Result<bool, TraceError> {
        match &mut self.mode {
            Mode::Seek {
                index,
                scanned,
                done,
            } => {
                if let Some(&p) = index.get(&linear) {
                    self.reader.seek(p)?;
                    if !self.reader.next_block(out)? || out.linear != linear {
                        return Err(TraceError::new(
                            &self.path,
                            p.line,
                            "file changed while being read",
                        ));
                    }
                    return Ok(true);
                }
                if *done {
                    return Ok(false);
                }
                self.reader.seek(*scanned)?;
                loop {
                    if !self.reader.next_block(out)? {
                        *done = true;
                        *scanned = self.reader.pos();
                        return Ok(false);
                    }
                    *scanned = self.reader.pos();
                    let p = Pos {
                        offset: out.offset,
                        line: out.line,
                    };
                    if let Some(prev) = index.insert(out.linear, p) {
                        return Err(TraceError::new(
                            &self.path,
                            out.line,
                            format!(
                                "thread block {:?} appears twice (first at line {})",
                                out.index, prev.line
                            ),
                        ));
                    }
                    if out.linear == linear {
                        return Ok(true);
                    }
                }
            }
            Mode::Stream {
                pending,
                seen,
                ordinal,
                furthest,
                done,
                spare,
            } => {
                if let Some(mut b) = pending.remove(&linear) {
                    std::mem::swap(&mut b, out);
                    spare.push(b);
                    return Ok(true);
                }
                match seen.get(&linear) {
                    Some(&ord) if ord < *ordinal => {
                        // delivered earlier in this pass: restart the decoder
                        self.reader = KernelReader::open(&self.path)?;
                        *ordinal = 0;
                        self.restarts += 1;
                    }
                    Some(_) => {}
                    None if *done => return Ok(false),
                    None => {}
                }
                loop {
                    let mut b = spare.pop().unwrap_or_default();
                    if !self.reader.next_block(&mut b)? {
                        *done = true;
                        spare.push(b);
                        return Ok(false);
                    }
                    let ord = *ordinal;
                    *ordinal += 1;
                    if ord < *furthest {
                        // already decoded in an earlier pass: either pending or delivered
                        if b.linear == linear && !pending.contains_key(&linear) {
                            std::mem::swap(&mut b, out);
                            spare.push(b);
                            return Ok(true);
                        }
                        spare.push(b);
                        continue;
                    }
                    *furthest = ord + 1;
                    if let Some(prev) = seen.insert(b.linear, ord) {
                        let _ = prev;
                        return Err(TraceError::new(
                            &self.path,
                            b.line,
                            format!("thread block {:?} appears twice", b.index),
                        ));
                    }
                    if b.linear == linear {
                        std::mem::swap(&mut b, out);
                        spare.push(b);
                        return Ok(true);
                    }
                    pending.insert(b.linear, b);
                }
            }
        }
    }
}
