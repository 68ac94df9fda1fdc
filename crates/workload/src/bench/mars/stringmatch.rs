//! Mars StringMatch (`sample_apps/StringMatch`): finds every line of a text equal to a
//! keyword. The host cuts the text into records of about 1024 bytes ending after a newline;
//! `MAP_COUNT_FUNC` and `MAP_FUNC` walk their record line by line (a byte load per
//! character up to the `'\n'`), compare lines of the keyword's length with the keyword
//! byte by byte, and emit (line offset, line size) from the thread's `GET_OUTPUT_BUF`
//! slots. Workflow MAP_ONLY (map count, prefix sums, map). Runtime: [`super`].
//!
//! One fix: Mars's loop counts only the non-newline characters against the record size
//! (`cur`), so it runs past its record into the next one (reporting those lines twice) and
//! past the end of the file; the model stops at its record's end.
//!
//! Input: seeded lines of one word each, drawn from a Zipf distribution (exponent 1) over a
//! vocabulary of random upper-case words of 2 to 12 letters; the keyword is the word of
//! Zipf rank `rank`. NUBA (§6.3, Table 2) lists a 146 MB footprint; rule 1 of
//! [`crate::scale`] shrinks the text (the one input dimension) to the largest power of two
//! whose modelled footprint fits in 32 MiB: 16 MiB (test `defaults_follow_the_scale_rules`).
//! Rule 2 does not apply: the default run on `coda-4gpu` took 42 s of CPU (46 M warp
//! instructions, 36 M L1 requests), measured on a heavily loaded host.

use super::{input_records, job, App, MarsHost, Rec, Src, Totals, Workflow, Zipf};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{ModelWorkload, Thread};
use crate::program::{ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use std::sync::Arc;

/// Rule 1's input size (see the module doc).
pub const RULE1_TEXT: usize = 16 << 20;
/// Halvings of rule 2 after rule 1 (see the module doc).
pub const RULE2_HALVINGS: u32 = 0;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "mars-stringmatch",
    suite: "Mars",
    category: "-",
    about: "Mars StringMatch (MAP_ONLY): MapperCount, prescan/uniformAdd, Mapper",
    params: &[
        ParamSpec {
            name: "text",
            default: "16M",
            help: "text size in bytes",
        },
        ParamSpec {
            name: "vocab",
            default: "8192",
            help: "distinct words in the vocabulary (Zipf ranks)",
        },
        ParamSpec {
            name: "rank",
            default: "7",
            help: "Zipf rank of the keyword (0 = most frequent word)",
        },
    ],
    build,
};

/// Mars's StringMatch record size (`blockSize = 1024`).
pub const RECORD: usize = 1024;

struct StringMatch {
    file: ObjId,
    keyword: ObjId,
    keys: ObjId,
    vals: ObjId,
}

impl StringMatch {
    fn scan(&self, t: &mut Thread<'_>, rec: Rec, found: &mut dyn FnMut(&mut Thread<'_>, u64, u32)) {
        t.alu(3);
        let _file: u64 = t.ld(self.keys, rec.key_off / 8);
        let _kw: u64 = t.ld(self.keys, rec.key_off / 8 + 1);
        let off: i32 = t.ld(self.vals, rec.val_off / 4);
        let size: i32 = t.ld(self.vals, rec.val_off / 4 + 1);
        let ksize: i32 = t.ld(self.vals, rec.val_off / 4 + 2);
        let (mut p, end) = (off as u64, off as u64 + size as u64);
        let mut start = p;
        loop {
            loop {
                let c: u8 = t.ld(self.file, p);
                t.alu(1);
                t.branch(1);
                if c == b'\n' {
                    break;
                }
                t.alu(2);
                p += 1;
            }
            p += 1;
            let wsize = (p - start) as u32;
            t.alu(3);
            t.branch(1);
            if wsize as i32 == ksize {
                let mut i = 0;
                loop {
                    let s: u8 = t.ld(self.file, start + i);
                    let k: u8 = t.ld(self.keyword, i);
                    t.alu(2);
                    t.branch(1);
                    if s != k || k == 0 {
                        t.alu(1);
                        t.branch(1);
                        if s == b'\n' {
                            found(t, start, wsize);
                        }
                        break;
                    }
                    t.alu(2);
                    i += 1;
                }
            }
            t.alu(1);
            t.branch(1);
            if p >= end {
                break;
            }
            start = p;
        }
    }
}

impl App for StringMatch {
    fn map_count(
        &self,
        t: &mut Thread<'_>,
        rec: Rec,
        emit: &mut dyn FnMut(&mut Thread<'_>, u32, u32),
    ) {
        self.scan(t, rec, &mut |t, _, _| emit(t, 4, 4));
    }
    fn map(&self, t: &mut Thread<'_>, rec: Rec, emit: &mut dyn FnMut(&mut Thread<'_>, Src, Src)) {
        self.scan(t, rec, &mut |t, start, wsize| {
            let w = t.tid.x * 5;
            t.alu(2);
            t.sh_st(w, start as u32);
            t.sh_st(w + 1, wsize);
            emit(
                t,
                Src::Shared {
                    word: w,
                    val: start as u32,
                },
                Src::Shared {
                    word: w + 1,
                    val: wsize,
                },
            );
        });
    }
    fn compare(&self, _t: &mut Thread<'_>, _raw: ObjId, _a: u64, _b: u64) -> i32 {
        0
    }
}

/// The generated text (one word per line), the keyword, and the records (offset, size)
/// cut the way StringMatch's `main` cuts them.
pub fn text(
    bytes: usize,
    vocab: usize,
    rank: usize,
    seed: u64,
) -> (Vec<u8>, Vec<u8>, Vec<(u32, u32)>) {
    let mut rng = Rng::new(seed);
    let words: Vec<Vec<u8>> = (0..vocab.max(1))
        .map(|_| {
            let len = 2 + rng.below(11) as usize;
            (0..len).map(|_| b'A' + rng.below(26) as u8).collect()
        })
        .collect();
    let zipf = Zipf::new(words.len(), 1.0);
    let mut f = Vec::with_capacity(bytes + 16);
    while f.len() < bytes {
        f.extend_from_slice(&words[zipf.sample(&mut rng)]);
        f.push(b'\n');
    }
    let keyword = words[rank.min(words.len() - 1)].clone();
    let n = f.len();
    let mut recs = Vec::new();
    let mut off = 0usize;
    while off < n {
        let mut p = (off + RECORD).min(n - 1);
        while f[p] != b'\n' {
            p += 1;
        }
        recs.push((off as u32, (p + 1 - off) as u32));
        off = p + 1;
    }
    (f, keyword, recs)
}

/// Host reference: offsets of the lines equal to the keyword.
pub fn reference(f: &[u8], keyword: &[u8]) -> Vec<u32> {
    let mut v = Vec::new();
    let mut off = 0;
    for line in f.split(|c| *c == b'\n') {
        if line == keyword && off < f.len() {
            v.push(off as u32);
        }
        off += line.len() + 1;
    }
    v
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let bytes = p.u64("text", 16 << 20)?;
    let vocab = p.u64("vocab", 8192)?;
    let rank = p.u64("rank", 7)?;
    if bytes < 64 || vocab == 0 {
        return Err(WorkloadError::Msg(
            "mars-stringmatch: need text >= 64 bytes and vocab >= 1".into(),
        ));
    }
    Ok(workload(
        bytes as usize,
        vocab as usize,
        rank as usize,
        p.seed,
    ))
}

/// The workload for a text of `bytes` bytes.
pub fn workload(bytes: usize, vocab: usize, rank: usize, seed: u64) -> ModelWorkload {
    let (f, keyword, recs) = text(bytes, vocab, rank, seed);
    let hits = reference(&f, &keyword).len() as u64;
    let tot = Totals {
        records: recs.len() as u64,
        key_bytes: 4 * hits,
        val_bytes: 4 * hits,
        pairs: hits,
        groups: hits,
    };
    let mut m = Memory::new();
    let file = m.alloc_from("d_filebuf", &f, true);
    let mut kw = keyword.clone();
    kw.push(0);
    let ksize = kw.len() as u32;
    let keyword_obj = m.alloc_from("d_keyword", &kw, true);
    // SM_KEY_T {char* ptrFile; char* ptrKeyword}, SM_VAL_T {int linebuf_offset,
    // linebuf_size, keyword_size} (padded to 16 bytes)
    let recs_kv: Vec<(Vec<u8>, Vec<u8>)> = recs
        .iter()
        .map(|&(o, s)| {
            let mut v = Vec::with_capacity(16);
            v.extend_from_slice(&o.to_le_bytes());
            v.extend_from_slice(&s.to_le_bytes());
            v.extend_from_slice(&ksize.to_le_bytes());
            v.extend_from_slice(&0u32.to_le_bytes());
            (vec![0u8; 16], v)
        })
        .collect();
    let input = input_records(&mut m, "", &recs_kv);
    let app = Arc::new(StringMatch {
        file,
        keyword: keyword_obj,
        keys: input.keys,
        vals: input.vals,
    });
    let mut steps = Vec::new();
    job(&mut m, &mut steps, "", app, input, tot, Workflow::MapOnly);
    ModelWorkload::new("mars-stringmatch", m, Box::new(MarsHost(steps.into_iter())))
}
