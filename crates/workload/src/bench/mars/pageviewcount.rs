//! Mars PageViewCount (`sample_apps/PageViewCount`): the number of distinct views of every
//! page in a web log of `URL \t IP \t cookie` lines. Two MapReduce jobs, as its `main`
//! runs them:
//!
//! 1. MAP_REDUCE, removing duplicate log entries: the map hashes each entry
//!    (`hash_func`, a byte load and four integer operations per character), stores the
//!    hash in the record's key and emits the key (`{file_buf, entry_offset, entry_hash}`,
//!    16 bytes) and value (`{phase, entry_size}`); the sort's `compare` orders by hash, then
//!    by the entry's bytes; the reduce keeps one entry per group with `phase = 1`;
//! 2. MAP_GROUP over the first job's output (copied back as the new input): the map finds
//!    the URL and the IP (byte loads up to each tab, both tabs overwritten with `'\0'`),
//!    hashes the URL and emits the key and the IP offset; the size of a URL's group is its
//!    number of distinct views.
//!
//! Runtime: [`super`]. Input: seeded log lines whose URLs follow a Zipf distribution
//! (exponent 1) over `urls` pages, IPs and cookies drawn from pools, and a fraction `dup`
//! of lines repeating an earlier line. NUBA (§6.3, Table 2) lists a 1,081 MB footprint;
//! rule 1 of [`crate::scale`] shrinks the one input dimension, the number of log lines, to
//! the largest power of two whose whole modelled footprint fits in 32 MiB: 64 K lines
//! (test `defaults_follow_the_scale_rules`). Rule 2 not applied, but not verified either:
//! 53 M warp instructions, a little above StringMatch's default (46 M, 42 s of CPU on
//! `coda-4gpu`); its own timed run did not complete on the loaded host.

use super::{input_records, job, App, Input, MarsHost, Rec, Src, Step, Totals, Workflow, Zipf};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{ModelWorkload, Thread};
use crate::program::{ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Rule 1's input size (see the module doc).
pub const RULE1_LINES: usize = 64 << 10;
/// Halvings of rule 2 after rule 1 (see the module doc).
pub const RULE2_HALVINGS: u32 = 0;

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "mars-pageviewcount",
    suite: "Mars",
    category: "-",
    about: "Mars PageViewCount (MAP_REDUCE then MAP_GROUP): MapperCount, prescan/uniformAdd, \
            Mapper, bitonicKernel sort, copyChunks_kernel, getChunkBoundary_kernel, \
            ReducerCount, Reducer",
    params: &[
        ParamSpec {
            name: "lines",
            default: "64k",
            help: "web log lines",
        },
        ParamSpec {
            name: "urls",
            default: "4096",
            help: "distinct pages (Zipf ranks)",
        },
        ParamSpec {
            name: "dup",
            default: "0.2",
            help: "fraction of lines repeating an earlier line",
        },
    ],
    build,
};

struct PageViewCount {
    file: ObjId,
    /// The job's input key and value buffers (the map writes the hash into the key).
    keys: ObjId,
    vals: ObjId,
}

/// Mars's `hash_func` over `len` bytes: `hash = (hash << 4) ^ (hash >> 28) ^ str[i]`.
pub fn hash(bytes: &[u8]) -> i32 {
    let mut h = bytes.len() as i32;
    for &c in bytes {
        h = h.wrapping_shl(4) ^ (h >> 28) ^ (c as i8 as i32);
    }
    h
}

fn hash_dev(t: &mut Thread<'_>, file: ObjId, off: u64, len: u64) -> i32 {
    let mut h = len as i32;
    t.alu(1);
    for i in 0..len {
        let c: u8 = t.ld(file, off + i);
        t.alu(4);
        h = h.wrapping_shl(4) ^ (h >> 28) ^ (c as i8 as i32);
        super::loop_step(t);
    }
    h
}

impl App for PageViewCount {
    fn map_count(
        &self,
        t: &mut Thread<'_>,
        rec: Rec,
        emit: &mut dyn FnMut(&mut Thread<'_>, u32, u32),
    ) {
        let phase: i32 = t.ld(self.vals, rec.val_off / 4);
        t.branch(1);
        if phase == 0 {
            emit(t, 16, 8);
        } else {
            emit(t, 16, 4);
        }
    }
    fn map(&self, t: &mut Thread<'_>, rec: Rec, emit: &mut dyn FnMut(&mut Thread<'_>, Src, Src)) {
        let k4 = rec.key_off / 4;
        let entry: i32 = t.ld(self.keys, k4 + 2);
        let phase: i32 = t.ld(self.vals, rec.val_off / 4);
        t.alu(2);
        t.branch(1);
        let key = Src::Global {
            obj: self.keys,
            off: rec.key_off,
            len: 16,
        };
        if phase == 0 {
            let size: i32 = t.ld(self.vals, rec.val_off / 4 + 1);
            let h = hash_dev(t, self.file, entry as u64, size as u64);
            t.st(self.keys, k4 + 3, h);
            let val = Src::Global {
                obj: self.vals,
                off: rec.val_off,
                len: 8,
            };
            emit(t, key, val);
        } else {
            let mut p = entry as u64;
            let mut url_size = 1u64;
            loop {
                let c: u8 = t.ld(self.file, p);
                t.alu(1);
                t.branch(1);
                if c == b'\t' {
                    break;
                }
                t.alu(2);
                p += 1;
                url_size += 1;
            }
            t.st(self.file, p, 0u8);
            let ip_offset = entry as u64 + url_size;
            t.alu(1);
            loop {
                let c: u8 = t.ld(self.file, p);
                t.alu(1);
                t.branch(1);
                if c == b'\t' {
                    break;
                }
                t.alu(1);
                p += 1;
            }
            t.st(self.file, p, 0u8);
            let w = t.tid.x * 5;
            t.alu(2);
            t.sh_st(w, ip_offset as u32);
            let h = hash_dev(t, self.file, entry as u64, url_size);
            t.st(self.keys, k4 + 3, h);
            emit(
                t,
                key,
                Src::Shared {
                    word: w,
                    val: ip_offset as u32,
                },
            );
        }
    }
    /// PageViewCount's `compare`: the entry hashes, then the entries' bytes up to the first
    /// difference or `'\0'`.
    fn compare(&self, t: &mut Thread<'_>, raw: ObjId, a: u64, b: u64) -> i32 {
        let h1: i32 = t.ld(raw, a / 4 + 3);
        let h2: i32 = t.ld(raw, b / 4 + 3);
        t.alu(1);
        t.branch(1);
        if h1 != h2 {
            return if h1 > h2 { 1 } else { -1 };
        }
        let e1: i32 = t.ld(raw, a / 4 + 2);
        let e2: i32 = t.ld(raw, b / 4 + 2);
        t.alu(2);
        super::wordcount::strcmp(t, self.file, e1 as u64, self.file, e2 as u64)
    }
    fn reduce_count(&self) -> (u32, u32) {
        (16, 8)
    }
    /// `pVal->phase = 1` on the group's first value.
    fn reduce(&self, t: &mut Thread<'_>, vals: ObjId, val_off: u64) {
        t.st(vals, val_off / 4, 1i32);
    }
}

/// The generated log (lines ending in `'\0'` as `main` leaves them) and each line's
/// (offset, size with the terminator).
pub fn log(lines: usize, urls: usize, dup: f64, seed: u64) -> (Vec<u8>, Vec<(u32, u32)>) {
    let mut rng = Rng::new(seed);
    let zipf = Zipf::new(urls.max(1), 1.0);
    let ips = (lines / 4).max(16);
    let mut text: Vec<Vec<u8>> = Vec::with_capacity(lines);
    for _ in 0..lines {
        if !text.is_empty() && rng.f64() < dup {
            let j = rng.below(text.len() as u64) as usize;
            let l = text[j].clone();
            text.push(l);
            continue;
        }
        let u = zipf.sample(&mut rng);
        let ip = rng.below(ips as u64);
        let cookie = rng.next_u64() & 0xffff_ffff;
        let l = format!(
            "http://www.site{}.com/page{}.html\t{}.{}.{}.{}\t{:08x}",
            u % 97,
            u,
            10 + (ip >> 16) % 200,
            (ip >> 8) & 255,
            ip & 255,
            (ip * 7) % 251,
            cookie
        );
        text.push(l.into_bytes());
    }
    let mut f = Vec::new();
    let mut recs = Vec::with_capacity(lines);
    for l in &text {
        recs.push((f.len() as u32, l.len() as u32 + 1));
        f.extend_from_slice(l);
        f.push(0);
    }
    (f, recs)
}

/// Host reference: for every URL, the number of distinct log entries that view it.
pub fn reference(f: &[u8], recs: &[(u32, u32)]) -> HashMap<Vec<u8>, u32> {
    let distinct: HashSet<&[u8]> = recs
        .iter()
        .map(|&(o, s)| &f[o as usize..(o + s - 1) as usize])
        .collect();
    let mut h = HashMap::new();
    for e in distinct {
        let url = e.split(|c| *c == b'\t').next().unwrap().to_vec();
        *h.entry(url).or_insert(0) += 1;
    }
    h
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let lines = p.u64("lines", 64 << 10)?;
    let urls = p.u64("urls", 4096)?;
    let dup = p.f64("dup", 0.2)?;
    if lines == 0 || urls == 0 || !(0.0..1.0).contains(&dup) {
        return Err(WorkloadError::Msg(
            "mars-pageviewcount: need lines >= 1, urls >= 1 and 0 <= dup < 1".into(),
        ));
    }
    Ok(workload(lines as usize, urls as usize, dup, p.seed))
}

/// The workload for a log of `lines` lines.
pub fn workload(lines: usize, urls: usize, dup: f64, seed: u64) -> ModelWorkload {
    let (f, recs) = log(lines, urls, dup, seed);
    let distinct = recs
        .iter()
        .map(|&(o, s)| &f[o as usize..(o + s) as usize])
        .collect::<HashSet<_>>()
        .len() as u64;
    let url_groups = reference(&f, &recs).len() as u64;
    let n = recs.len() as u64;
    let mut m = Memory::new();
    let file = m.alloc_from("d_filebuf", &f, false);
    let kv: Vec<(Vec<u8>, Vec<u8>)> = recs
        .iter()
        .map(|&(o, s)| {
            let mut k = 0u64.to_le_bytes().to_vec();
            k.extend_from_slice(&o.to_le_bytes());
            k.extend_from_slice(&0i32.to_le_bytes());
            let mut v = 0i32.to_le_bytes().to_vec();
            v.extend_from_slice(&s.to_le_bytes());
            (k, v)
        })
        .collect();
    let input = input_records(&mut m, "", &kv);
    let mut steps = Vec::new();
    let app1 = Arc::new(PageViewCount {
        file,
        keys: input.keys,
        vals: input.vals,
    });
    let t1 = Totals {
        records: n,
        key_bytes: 16 * n,
        val_bytes: 8 * n,
        pairs: n,
        groups: distinct,
    };
    let out1 = job(&mut m, &mut steps, "", app1, input, t1, Workflow::MapReduce);
    // the second job's input: the first job's output, copied back as new input records
    let input2 = Input {
        keys: m.alloc::<u8>("job2_inputKeys", out1.key_bytes, false),
        vals: m.alloc::<u8>("job2_inputVals", out1.val_bytes, true),
        offsets: m.alloc::<i32>("job2_inputOffsetSizes", 4 * out1.records, true),
    };
    for (src, dst, bytes) in [
        (out1.keys, input2.keys, out1.key_bytes),
        (out1.vals, input2.vals, out1.val_bytes),
        (out1.offsets, input2.offsets, 16 * out1.records),
    ] {
        steps.push(Step::Copy {
            src,
            src_off: 0,
            dst,
            dst_off: 0,
            bytes,
        });
    }
    let app2 = Arc::new(PageViewCount {
        file,
        keys: input2.keys,
        vals: input2.vals,
    });
    let t2 = Totals {
        records: distinct,
        key_bytes: 16 * distinct,
        val_bytes: 4 * distinct,
        pairs: distinct,
        groups: url_groups,
    };
    job(
        &mut m,
        &mut steps,
        "job2_",
        app2,
        input2,
        t2,
        Workflow::MapGroup,
    );
    ModelWorkload::new(
        "mars-pageviewcount",
        m,
        Box::new(MarsHost(steps.into_iter())),
    )
}
