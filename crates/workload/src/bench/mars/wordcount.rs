//! Mars WordCount (`sample_apps/WordCount`): counts the occurrences of every word of at
//! least six letters in an upper-case text. The host cuts the text into records of about
//! 2048 bytes, each extended to the next non-letter, which becomes a `'\0'`; `MAP_COUNT_FUNC`
//! and `MAP_FUNC` scan their record byte by byte (each word's end is overwritten with
//! `'\0'`), emitting the word (with its terminator) as key and its size, written to the
//! thread's `GET_OUTPUT_BUF` slot in shared memory, as value. Workflow MAP_GROUP: the count
//! of a word is the size of its group after the sort (no reduce). Runtime: [`super`].
//!
//! Input: a seeded text of words drawn from a Zipf distribution (exponent 1) over a
//! vocabulary of random upper-case words of 2 to 12 letters, separated by spaces and
//! newlines. NUBA (§6.3, Table 2) lists a 542 MB footprint for WordCount; rule 1 of
//! [`crate::scale`] shrinks the one input dimension, the text size, to the largest power of
//! two whose whole modelled footprint (text, records, intermediate and sorted buffers)
//! fits in 32 MiB: 2 MiB of text. Rule 2 does not apply: a `coda-4gpu` run of that input
//! (the bitonic sort of its 160 K intermediate pairs is 171 `bitonicKernel` launches over
//! 256 K padded records, each comparison a byte-wise string compare) took 48.2 s of host
//! CPU time on an idle machine (BENCHMARKS.md, 2026-11-29; an earlier run on a loaded
//! machine, stopped at 62 s, had halved the text to 1 MiB). Test
//! `defaults_follow_the_scale_rules`.

use super::{input_records, job, App, MarsHost, Rec, Src, Totals, Workflow, Zipf};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{ModelWorkload, Thread};
use crate::program::{ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use std::collections::HashMap;
use std::sync::Arc;

/// Rule 1's input size (see the module doc).
pub const RULE1_TEXT: usize = 2 << 20;
/// Halvings of rule 2 after rule 1 (see the module doc).
pub const RULE2_HALVINGS: u32 = 0;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "mars-wordcount",
    suite: "Mars",
    category: "-",
    about: "Mars WordCount (MAP_GROUP): MapperCount, prescan/uniformAdd, Mapper, \
            bitonicKernel sort, copyChunks_kernel, getChunkBoundary_kernel",
    params: &[
        ParamSpec {
            name: "text",
            default: "2M",
            help: "text size in bytes",
        },
        ParamSpec {
            name: "vocab",
            default: "8192",
            help: "distinct words in the vocabulary (Zipf ranks)",
        },
    ],
    build,
};

/// Mars's WordCount record size (`blockSize = 2048`).
pub const RECORD: usize = 2048;

/// The application callbacks.
struct WordCount {
    file: ObjId,
    keys: ObjId,
    vals: ObjId,
}

fn is_letter(c: u8) -> bool {
    c.is_ascii_uppercase()
}

impl WordCount {
    /// The scan shared by `MAP_COUNT_FUNC` and `MAP_FUNC`: per word, `found(t, start,
    /// wsize)` where `wsize` counts the terminator.
    fn scan(&self, t: &mut Thread<'_>, rec: Rec, found: &mut dyn FnMut(&mut Thread<'_>, u64, u32)) {
        t.alu(2);
        let _file: u64 = t.ld(self.keys, rec.key_off / 8);
        let line_off: i32 = t.ld(self.vals, rec.val_off / 4);
        let line_size: i32 = t.ld(self.vals, rec.val_off / 4 + 1);
        let mut p = line_off as u64;
        let mut start = p;
        let mut lsize = 0i64;
        loop {
            // for (; *p >= 'A' && *p <= 'Z'; p++, lsize++);
            loop {
                let c: u8 = t.ld(self.file, p);
                t.alu(2);
                t.branch(1);
                if !is_letter(c) {
                    break;
                }
                t.alu(2);
                p += 1;
                lsize += 1;
            }
            t.st(self.file, p, 0u8);
            p += 1;
            lsize += 1;
            let wsize = (p - start) as u32;
            t.alu(3);
            t.branch(1);
            if wsize > 6 {
                found(t, start, wsize);
            }
            // for (; lsize < line_size && (*p < 'A' || *p > 'Z'); p++, lsize++);
            loop {
                t.alu(1);
                t.branch(1);
                if lsize >= line_size as i64 {
                    break;
                }
                let c: u8 = t.ld(self.file, p);
                t.alu(2);
                t.branch(1);
                if is_letter(c) {
                    break;
                }
                t.alu(2);
                p += 1;
                lsize += 1;
            }
            t.alu(1);
            t.branch(1);
            if lsize >= line_size as i64 {
                break;
            }
            start = p;
        }
    }
}

impl App for WordCount {
    fn map_count(
        &self,
        t: &mut Thread<'_>,
        rec: Rec,
        emit: &mut dyn FnMut(&mut Thread<'_>, u32, u32),
    ) {
        self.scan(t, rec, &mut |t, _start, wsize| emit(t, wsize, 4));
    }
    fn map(&self, t: &mut Thread<'_>, rec: Rec, emit: &mut dyn FnMut(&mut Thread<'_>, Src, Src)) {
        let file = self.file;
        self.scan(t, rec, &mut |t, start, wsize| {
            // int* o_val = GET_OUTPUT_BUF(0); *o_val = wsize;
            let word = t.tid.x * 5;
            t.alu(2);
            t.sh_st(word, wsize);
            emit(
                t,
                Src::Global {
                    obj: file,
                    off: start,
                    len: wsize,
                },
                Src::Shared { word, val: wsize },
            );
        });
    }
    /// WordCount's `compare`: `strcmp` of the two words (a byte of each, the compare and
    /// the loop control per character).
    fn compare(&self, t: &mut Thread<'_>, raw: ObjId, a: u64, b: u64) -> i32 {
        strcmp(t, raw, a, raw, b)
    }
}

/// Byte-wise `strcmp` of two `'\0'`-terminated strings.
pub(crate) fn strcmp(t: &mut Thread<'_>, oa: ObjId, a: u64, ob: ObjId, b: u64) -> i32 {
    let mut i = 0;
    loop {
        let x: u8 = t.ld(oa, a + i);
        let y: u8 = t.ld(ob, b + i);
        t.alu(3);
        t.branch(1);
        if x != y || x == 0 {
            return match x.cmp(&y) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
        }
        t.alu(1);
        i += 1;
    }
}

/// The generated text (upper case, with a trailing `'\0'` byte) and its records
/// (offset, size) cut the way WordCount's `main` cuts them.
pub fn text(bytes: usize, vocab: usize, seed: u64) -> (Vec<u8>, Vec<(u32, u32)>) {
    let mut rng = Rng::new(seed);
    let words: Vec<Vec<u8>> = (0..vocab.max(1))
        .map(|_| {
            let len = 2 + rng.below(11) as usize;
            (0..len).map(|_| b'A' + rng.below(26) as u8).collect()
        })
        .collect();
    let zipf = Zipf::new(words.len(), 1.0);
    let mut f = Vec::with_capacity(bytes + 16);
    let mut col = 0;
    while f.len() < bytes {
        let w = &words[zipf.sample(&mut rng)];
        f.extend_from_slice(w);
        col += w.len() + 1;
        if col > 72 {
            f.push(b'\n');
            col = 0;
        } else {
            f.push(b' ');
        }
    }
    f.truncate(bytes.max(1));
    f.push(0);
    // records: 2048 bytes, then up to the next non-letter, which becomes '\0'
    let n = f.len();
    let mut recs = Vec::new();
    let mut off = 0usize;
    while off < n {
        let mut p = (off + RECORD).min(n - 1);
        while p < n - 1 && is_letter(f[p]) {
            p += 1;
        }
        f[p] = 0;
        recs.push((off as u32, (p + 1 - off) as u32));
        off = p + 1;
    }
    (f, recs)
}

/// Host reference: the words of at least six letters and their counts.
pub fn reference(f: &[u8]) -> HashMap<Vec<u8>, u32> {
    let mut h = HashMap::new();
    for w in f.split(|c| !is_letter(*c)) {
        if w.len() >= 6 {
            *h.entry(w.to_vec()).or_insert(0) += 1;
        }
    }
    h
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let bytes = p.u64("text", 2 << 20)?;
    let vocab = p.u64("vocab", 8192)?;
    if bytes < 64 || vocab == 0 {
        return Err(WorkloadError::Msg(
            "mars-wordcount: need text >= 64 bytes and vocab >= 1".into(),
        ));
    }
    Ok(workload(bytes as usize, vocab as usize, p.seed))
}

/// The workload for a text of `bytes` bytes.
pub fn workload(bytes: usize, vocab: usize, seed: u64) -> ModelWorkload {
    let (f, recs) = text(bytes, vocab, seed);
    let counts = reference(&f);
    let pairs: u64 = counts.values().map(|&c| c as u64).sum();
    let key_bytes: u64 = counts
        .iter()
        .map(|(w, &c)| (w.len() as u64 + 1) * c as u64)
        .sum();
    let tot = Totals {
        records: recs.len() as u64,
        key_bytes,
        val_bytes: 4 * pairs,
        pairs,
        groups: counts.len() as u64,
    };
    let mut m = Memory::new();
    let file = m.alloc_from("d_filebuf", &f, false);
    let recs_kv: Vec<(Vec<u8>, Vec<u8>)> = recs
        .iter()
        .map(|&(o, s)| {
            let mut v = o.to_le_bytes().to_vec();
            v.extend_from_slice(&s.to_le_bytes());
            (0u64.to_le_bytes().to_vec(), v)
        })
        .collect();
    let input = input_records(&mut m, "", &recs_kv);
    let app = Arc::new(WordCount {
        file,
        keys: input.keys,
        vals: input.vals,
    });
    let mut steps = Vec::new();
    job(&mut m, &mut steps, "", app, input, tot, Workflow::MapGroup);
    ModelWorkload::new("mars-wordcount", m, Box::new(MarsHost(steps.into_iter())))
}
