//! MUMmerGPU-like exact matching (Rodinia `mummergpu`, `mummergpuKernel`): one thread per
//! query read. The reference's suffix tree lives in two texture arrays, `nodes` (16 B
//! `_PixelOfNode`: edge start, edge end, string depth, parent) and `children` (16 B
//! `_PixelOfChildren`: the A, C, G, T child addresses); the reference characters and the
//! queries are read through texture too (`REFTEX`, `QRYTEX` builds). Queries are stored back
//! to back, NUL-terminated (`queryAddrs`, `queryLengths`), so the characters of a block's
//! queries are contiguous with input-dependent lengths. For every start position
//! `qrystart <= qlen - min_match_len` the thread walks the tree from the root (child lookup,
//! node lookup, then one reference character per edge position) until a mismatch or the end
//! of the query, and writes one 8-byte `MatchCoord` (node, match length) into the query's
//! contiguous result range (`MATCH_BASE = qryAddr - qryid * min_match_len`).
//!
//! Deviation: MUMmerGPU follows suffix links to the next start position (skip/count on
//! `mustmatch`); this model restarts at the root, so each start position re-walks the top
//! of the tree. The access classes are the same (irregular, tree shared by every block) and
//! the results equal a naive matcher's longest-match lengths.
//!
//! Page sharing (CODA Table 2: core-majority; spec §7 row MG): query and result pages belong
//! to a few consecutive blocks (one GPU), tree pages are read by blocks on every GPU. The
//! defaults keep the reference small (8 kbp, ~100 tree pages) against 16k reads so the read
//! and result pages dominate the page count, as with MUMmerGPU's many-reads inputs; the
//! defaults measure core-majority (72.9% of pages on one GPU). A reference much larger than
//! the reads (e.g. `ref = 512k`) makes tree pages dominate and measures "sharing". The
//! default footprint is small (~1.7 MB) because every start position is an uncoalesced tree
//! walk: 16k reads already give ~3.5 M line requests.

use super::common::{bad, kinfo, loop_step, prologue, seq};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "mg",
    suite: "Rodinia",
    category: "core-majority",
    about: "MUMmerGPU-like: thread per query read, suffix-tree walk through texture",
    params: &[
        ParamSpec {
            name: "ref",
            default: "8k",
            help: "reference length in bases (suffix tree of ~1.6 nodes per base, 32 B each)",
        },
        ParamSpec {
            name: "queries",
            default: "16k",
            help: "number of query reads (one thread each)",
        },
        ParamSpec {
            name: "min_len",
            default: "21",
            help: "shortest query length",
        },
        ParamSpec {
            name: "max_len",
            default: "28",
            help: "longest query length",
        },
        ParamSpec {
            name: "min_match",
            default: "20",
            help: "min_match_len: start positions per query = qlen - min_match + 1",
        },
        ParamSpec {
            name: "error",
            default: "0.08",
            help: "per-base substitution rate of the reads sampled from the reference",
        },
    ],
    build,
};

/// `BLOCKSIZE` of `mummergpu.cu`.
const THREADS: u64 = 256;
/// Root node address (0 is the null address, as in MUMmerGPU).
const ROOT: u32 = 1;

fn code(c: u8) -> usize {
    match c {
        b'A' => 0,
        b'C' => 1,
        b'G' => 2,
        b'T' => 3,
        _ => 4,
    }
}

/// A suffix tree of `text` (which ends in a unique `$`), built by naive suffix insertion:
/// per node `[edge start, edge end (inclusive), string depth, parent]` and 5 children
/// (A, C, G, T, $); index 0 is the null node.
pub(crate) struct SuffixTree {
    pub nodes: Vec<[u32; 4]>,
    pub children: Vec<[u32; 5]>,
}

impl SuffixTree {
    pub(crate) fn build(text: &[u8]) -> Self {
        let end = text.len() as u32 - 1;
        let mut t = SuffixTree {
            nodes: vec![[0; 4], [0, 0, 0, 0]],
            children: vec![[0; 5], [0; 5]],
        };
        for i in 0..text.len() {
            let (mut cur, mut pos) = (ROOT, i);
            loop {
                let c = code(text[pos]);
                let ch = t.children[cur as usize][c];
                let depth = t.nodes[cur as usize][2];
                if ch == 0 {
                    let leaf = t.push([pos as u32, end, depth + (end + 1 - pos as u32), cur]);
                    t.children[cur as usize][c] = leaf;
                    break;
                }
                let [s, e, _, _] = t.nodes[ch as usize];
                let mut k = 0usize;
                while s as usize + k <= e as usize && text[s as usize + k] == text[pos + k] {
                    k += 1;
                }
                if s as usize + k > e as usize {
                    cur = ch;
                    pos += k;
                    continue;
                }
                // split the edge after k characters
                let mid = t.push([s, s + k as u32 - 1, depth + k as u32, cur]);
                t.children[cur as usize][c] = mid;
                t.nodes[ch as usize][0] = s + k as u32;
                t.nodes[ch as usize][3] = mid;
                t.children[mid as usize][code(text[s as usize + k])] = ch;
                let leaf = t.push([
                    (pos + k) as u32,
                    end,
                    depth + k as u32 + (end + 1 - (pos + k) as u32),
                    mid,
                ]);
                t.children[mid as usize][code(text[pos + k])] = leaf;
                break;
            }
        }
        t
    }
    fn push(&mut self, n: [u32; 4]) -> u32 {
        self.nodes.push(n);
        self.children.push([0; 5]);
        self.nodes.len() as u32 - 1
    }
}

/// `mummergpuKernel(match_coords, queries, nodes, children, ref, queryAddrs, queryLengths,
/// numQueries, min_match_len)`.
struct MummerKernel {
    matches: ObjId,
    queries: ObjId,
    nodes: ObjId,
    children: ObjId,
    reference: ObjId,
    addrs: ObjId,
    lengths: ObjId,
    num: u64,
    min_match: i64,
}

impl Kernel for MummerKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "mummergpuKernel",
            Dim3::x(self.num.div_ceil(THREADS) as u32),
            Dim3::x(THREADS as u32),
            28,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia `mummergpuKernel` (sm_70+ SASS, issue 7 §1
    /// counting) on this model's walk: entry `MOV; S2R x2; IMAD; ISETP; EXIT` (6), the
    /// `queryLengths` and `queryAddrs` addresses (2), `LDG` x2, `MATCH_BASE` and the last
    /// start (2), the start-loop guard (`ISETP; BRA`). Per start position: its query offset
    /// (1), `TEX` of the first character; per tree step: the end-of-query test (`ISETP;
    /// BRA`), the children coordinate (3), `TEX`, the 4-way child select and the null test
    /// (4 + `BRA`), the node coordinate (2), `TEX` x2, `refpos`, the match length and the
    /// next query coordinate (3), `TEX`; per edge character: the loop test (`ISETP` x2;
    /// `BRA`), `TEX` of the reference, the compare (`ISETP; BRA`), the two increments and
    /// the query coordinate (3), `TEX`. Per start: the result address and the packed
    /// `MatchCoord` (3), `STG`, the start-loop control (3); `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let qid = t.gid();
        prologue(t, 2, 1);
        if qid >= self.num {
            return;
        }
        t.alu(2);
        let qlen: i32 = t.ld(self.lengths, qid);
        let qaddr: i32 = t.ld(self.addrs, qid);
        t.alu(3);
        t.branch(1);
        let (qlen, qaddr) = (qlen as i64, qaddr as u64);
        let base = qaddr - qid * self.min_match as u64;
        let last = qlen - self.min_match;
        let mut qs = 0i64;
        while qs <= last {
            let mut cur = ROOT;
            let mut len = 0u64;
            let qbase = qaddr + qs as u64;
            t.alu(1);
            let mut c: u8 = t.ld_tex(self.queries, qbase);
            'walk: loop {
                t.alu(1);
                t.branch(1);
                if c == 0 {
                    break;
                }
                t.alu(3);
                let ch: u32 = t.ld_tex(self.children, 4 * cur as u64 + code(c).min(3) as u64);
                t.alu(4);
                t.branch(1);
                if ch == 0 || code(c) > 3 {
                    break;
                }
                t.alu(2);
                let start: u32 = t.ld_tex(self.nodes, 4 * ch as u64);
                let end: u32 = t.ld_tex(self.nodes, 4 * ch as u64 + 1);
                t.alu(3);
                cur = ch;
                len += 1;
                let mut refpos = start as u64 + 1;
                c = t.ld_tex(self.queries, qbase + len);
                loop {
                    t.alu(2);
                    t.branch(1);
                    if !(refpos <= end as u64 && c != 0) {
                        break;
                    }
                    let r: u8 = t.ld_tex(self.reference, refpos);
                    t.alu(1);
                    t.branch(1);
                    if r != c {
                        break 'walk;
                    }
                    len += 1;
                    refpos += 1;
                    t.alu(3);
                    c = t.ld_tex(self.queries, qbase + len);
                }
            }
            t.alu(3);
            t.st(self.matches, base + qs as u64, ((cur as u64) << 32) | len);
            qs += 1;
            loop_step(t);
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let rlen = p.u64("ref", 8 << 10)?;
    let nq = p.u64("queries", 16 << 10)?;
    let (lo, hi) = (p.u64("min_len", 21)?, p.u64("max_len", 28)?);
    let min_match = p.u64("min_match", 20)?;
    let err = p.f64("error", 0.08)?;
    if !(64..=(1 << 24)).contains(&rlen) || nq == 0 || lo == 0 || hi < lo || hi > rlen {
        return Err(bad(
            "mg: 64 <= ref <= 16M, queries > 0, 0 < min_len <= max_len <= ref".into(),
        ));
    }
    if min_match == 0 || min_match > lo || !(0.0..=1.0).contains(&err) {
        return Err(bad("mg: 0 < min_match <= min_len, 0 <= error <= 1".into()));
    }
    let mut rng = Rng::new(p.seed);
    const BASES: &[u8; 4] = b"ACGT";
    let mut text: Vec<u8> = (0..rlen).map(|_| BASES[rng.below(4) as usize]).collect();
    text.push(b'$');
    let tree = SuffixTree::build(&text);
    let mut qbuf = Vec::new();
    let (mut addrs, mut lens) = (Vec::new(), Vec::new());
    let mut results = 0u64;
    for _ in 0..nq {
        let len = lo + rng.below(hi - lo + 1);
        let at = rng.below(rlen - len + 1);
        addrs.push(qbuf.len() as i32);
        lens.push(len as i32);
        for k in 0..len {
            let mut b = text[(at + k) as usize];
            if rng.f64() < err {
                b = BASES[rng.below(4) as usize];
            }
            qbuf.push(b);
        }
        qbuf.push(0);
        results += len - min_match + 1;
    }
    let mut m = Memory::new();
    let nodes: Vec<u32> = tree.nodes.iter().flatten().copied().collect();
    let children: Vec<u32> = tree
        .children
        .iter()
        .flat_map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    let queries = m.alloc_from("queries", &qbuf, true);
    let nodes = m.alloc_from("nodes", &nodes, true);
    let children = m.alloc_from("children", &children, true);
    let reference = m.alloc_from("ref", &text, true);
    let addrs = m.alloc_from("queryAddrs", &addrs, true);
    let lengths = m.alloc_from("queryLengths", &lens, true);
    let matches = m.alloc::<u64>("match_coords", results, false);
    let k = MummerKernel {
        matches,
        queries,
        nodes,
        children,
        reference,
        addrs,
        lengths,
        num: nq,
        min_match: min_match as i64,
    };
    Ok(ModelWorkload::new("mg", m, seq(vec![Box::new(k)])))
}
