//! Rodinia `b+tree` (cuda/b+tree), registry name `btree`: batched B+ tree searches on the
//! GPU. The host inserts every key into a B+ tree of order `DEFAULT_ORDER = 256` (bpt.c:
//! leaves hold up to 255 keys and split at `cut(255) = 128`, internal nodes split at
//! `cut(256) = 128` pushing the middle key up) and `transform_to_cuda` lays it out
//! breadth-first as an array of `knode` records (`int location; int indices[257]; int
//! keys[257]; bool is_leaf; int num_keys;` = 2068 bytes): `keys[0] = INT_MIN`, the node's
//! keys from 1, then `INT_MAX`; `indices` are child knode numbers, or record numbers in a
//! leaf. Two kernels, one block of `order` threads per query, thread `thid` owning slot
//! `thid` of the current node:
//!
//! - `findK` (command `k count`): per tree level the thread with `keys[thid] <= key <
//!   keys[thid+1]` writes the child into `offsetD[bid]`; `__syncthreads()`; thread 0 moves
//!   `currKnodeD[bid]` down; `__syncthreads()`. At the leaf the thread holding the key copies
//!   its record into `ansD[bid]`.
//! - `findRangeK` (command `j count range`): the same descent for the range start and end
//!   at once (`currKnodeD`/`offsetD` and `lastKnodeD`/`offset_2D`), then the record index of
//!   the start and the length of the range.
//!
//! Input: the keys stand for Rodinia's `mil.txt` (1M keys; here a seeded permutation of
//! `0..keys`, each record's value its key); queries as main.c draws them (`rand()/RAND_MAX *
//! size`; ranges clipped at the end). Commands as Rodinia's `command.txt`: `k 10000` then
//! `j 6000 3000`.
//!
//! Inputs: NUBA §6.3 Table 2 lists B+tree at 39 MB; Rodinia's default (1M keys) is about
//! 20 MB of knodes and records here, under the 32 MiB cap, so rule 1 keeps it.

use crate::bench::dense::common::{bad, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "btree",
    suite: "Rodinia",
    category: "-",
    about: "Rodinia b+tree: findK and findRangeK, one 256-thread block per query descending \
            a breadth-first knode array built by bpt.c insertion",
    params: &[
        ParamSpec {
            name: "keys",
            default: "1M",
            help: "keys inserted into the tree (Rodinia mil.txt: 1M)",
        },
        ParamSpec {
            name: "k_count",
            default: "10000",
            help: "findK queries (command `k 10000`)",
        },
        ParamSpec {
            name: "j_count",
            default: "6000",
            help: "findRangeK queries (command `j 6000 3000`)",
        },
        ParamSpec {
            name: "j_range",
            default: "3000",
            help: "findRangeK range size",
        },
    ],
    build,
};

/// `DEFAULT_ORDER`.
pub const ORDER: usize = 256;
/// 32-bit words of one `knode`.
pub const KN_WORDS: u64 = 517;
const W_INDICES: u64 = 1;
const W_KEYS: u64 = 1 + ORDER as u64 + 1;

/// A host B+ tree node (bpt.c `node`): children (internal) or record values (leaf).
#[derive(Clone, Debug)]
struct Node {
    leaf: bool,
    keys: Vec<i32>,
    ptrs: Vec<usize>,
    parent: Option<usize>,
}

/// bpt.c `cut`.
fn cut(len: usize) -> usize {
    len.div_ceil(2)
}

/// A B+ tree built by bpt.c's insertion (leaf records: the values in `ptrs`).
pub struct Bpt {
    nodes: Vec<Node>,
    root: usize,
}

impl Bpt {
    /// Insert `keys` in order (distinct keys, value = key).
    pub fn build(keys: &[i32]) -> Bpt {
        let mut t = Bpt {
            nodes: vec![Node {
                leaf: true,
                keys: Vec::new(),
                ptrs: Vec::new(),
                parent: None,
            }],
            root: 0,
        };
        for &k in keys {
            t.insert(k);
        }
        t
    }

    fn find_leaf(&self, key: i32) -> usize {
        let mut c = self.root;
        while !self.nodes[c].leaf {
            let n = &self.nodes[c];
            let mut i = 0;
            while i < n.keys.len() && key >= n.keys[i] {
                i += 1;
            }
            c = n.ptrs[i];
        }
        c
    }

    fn insert(&mut self, key: i32) {
        let leaf = self.find_leaf(key);
        let pos = self.nodes[leaf].keys.partition_point(|&k| k < key);
        if self.nodes[leaf].keys.len() < ORDER - 1 {
            self.nodes[leaf].keys.insert(pos, key);
            self.nodes[leaf].ptrs.insert(pos, key as usize);
            return;
        }
        // insert_into_leaf_after_splitting
        let mut tk = self.nodes[leaf].keys.clone();
        let mut tp = self.nodes[leaf].ptrs.clone();
        tk.insert(pos, key);
        tp.insert(pos, key as usize);
        let split = cut(ORDER - 1);
        let right = Node {
            leaf: true,
            keys: tk[split..].to_vec(),
            ptrs: tp[split..].to_vec(),
            parent: self.nodes[leaf].parent,
        };
        tk.truncate(split);
        tp.truncate(split);
        self.nodes[leaf].keys = tk;
        self.nodes[leaf].ptrs = tp;
        let r = self.nodes.len();
        let k = right.keys[0];
        self.nodes.push(right);
        self.insert_into_parent(leaf, k, r);
    }

    fn insert_into_parent(&mut self, left: usize, key: i32, right: usize) {
        let Some(p) = self.nodes[left].parent else {
            let root = self.nodes.len();
            self.nodes.push(Node {
                leaf: false,
                keys: vec![key],
                ptrs: vec![left, right],
                parent: None,
            });
            self.nodes[left].parent = Some(root);
            self.nodes[right].parent = Some(root);
            self.root = root;
            return;
        };
        let li = self.nodes[p].ptrs.iter().position(|&c| c == left).unwrap();
        if self.nodes[p].keys.len() < ORDER - 1 {
            self.nodes[p].keys.insert(li, key);
            self.nodes[p].ptrs.insert(li + 1, right);
            self.nodes[right].parent = Some(p);
            return;
        }
        // insert_into_node_after_splitting
        let mut tk = self.nodes[p].keys.clone();
        let mut tp = self.nodes[p].ptrs.clone();
        tk.insert(li, key);
        tp.insert(li + 1, right);
        let split = cut(ORDER);
        let k_prime = tk[split - 1];
        let new = Node {
            leaf: false,
            keys: tk[split..].to_vec(),
            ptrs: tp[split..].to_vec(),
            parent: self.nodes[p].parent,
        };
        tk.truncate(split - 1);
        tp.truncate(split);
        self.nodes[p].keys = tk;
        self.nodes[p].ptrs = tp;
        let nn = self.nodes.len();
        // `right` stays under `p` unless it moved to the new node with its siblings
        self.nodes[right].parent = Some(p);
        for &c in &new.ptrs {
            self.nodes[c].parent = Some(nn);
        }
        self.nodes.push(new);
        self.insert_into_parent(p, k_prime, nn);
    }

    /// bpt.c `height`: internal levels above the leaves.
    pub fn height(&self) -> u64 {
        let mut h = 0;
        let mut c = self.root;
        while !self.nodes[c].leaf {
            c = self.nodes[c].ptrs[0];
            h += 1;
        }
        h
    }

    /// `transform_to_cuda`: the knode words (breadth first) and the records.
    pub fn to_knodes(&self) -> (Vec<u32>, Vec<i32>) {
        let mut kn: Vec<u32> = Vec::new();
        let mut records: Vec<i32> = Vec::new();
        let mut queue = std::collections::VecDeque::from([self.root]);
        let mut nodeindex = 1u32;
        let mut qi = 0u32;
        while let Some(n) = queue.pop_front() {
            let node = &self.nodes[n];
            let base = kn.len();
            kn.resize(base + KN_WORDS as usize, 0);
            let nk = node.keys.len() + 2;
            let w = |i: u64| base + i as usize;
            kn[w(0)] = qi;
            qi += 1;
            kn[w(W_KEYS)] = i32::MIN as u32;
            kn[w(W_KEYS + nk as u64 - 1)] = i32::MAX as u32;
            for i in nk..ORDER {
                kn[w(W_KEYS + i as u64)] = i32::MAX as u32;
            }
            if !node.leaf {
                kn[w(W_INDICES)] = nodeindex;
                nodeindex += 1;
                for i in 1..nk - 1 {
                    kn[w(W_KEYS + i as u64)] = node.keys[i - 1] as u32;
                    queue.push_back(node.ptrs[i - 1]);
                    kn[w(W_INDICES + i as u64)] = nodeindex;
                    nodeindex += 1;
                }
                queue.push_back(node.ptrs[nk - 2]);
            } else {
                for i in 1..nk - 1 {
                    kn[w(W_KEYS + i as u64)] = node.keys[i - 1] as u32;
                    kn[w(W_INDICES + i as u64)] = records.len() as u32;
                    records.push(node.ptrs[i - 1] as i32);
                }
            }
            kn[w(W_INDICES + nk as u64 - 1)] = qi;
            kn[w(515)] = node.leaf as u32;
            kn[w(516)] = nk as u32;
        }
        (kn, records)
    }
}

fn key_of(t: &mut Thread<'_>, kn: ObjId, node: u64, slot: u64) -> i32 {
    t.ld::<i32>(kn, node * KN_WORDS + W_KEYS + slot)
}

/// `findK`: phases `2l` (compare at level `l`) and `2l + 1` (thread 0 moves down), then the
/// leaf phase.
struct FindK {
    height: u64,
    knodes: ObjId,
    knodes_elem: u64,
    records: ObjId,
    curr: ObjId,
    offset: ObjId,
    keys: ObjId,
    ans: ObjId,
    count: u64,
}

impl Kernel for FindK {
    fn info(&self) -> KernelInfo {
        kinfo(
            "findK",
            Dim3::x(self.count as u32),
            Dim3::x(ORDER as u32),
            22,
            0,
        )
    }
    fn phases(&self) -> u32 {
        2 * self.height as u32 + 1
    }
    /// Per thread (sm_70-class SASS, issue 7 §1 counting): entry `MOV; S2R` x2 and the
    /// loop entry test (2); per level the `currKnodeD[bid]` load (`IMAD.WIDE`, `LDG.64`),
    /// the knode address (`IMAD.WIDE`), `LDG keys[thid]`, `LDG keysD[bid]` (its address
    /// 1), `ISETP` and branch; lanes with `keys[thid] <= key` load `keys[thid+1]` (`LDG`,
    /// `ISETP`, branch); the matching lane loads `offsetD[bid]` (`LDG.64`), the knode
    /// address, `LDG indices[thid]`, `ISETP` against `knodes_elem`, `STG.64 offsetD`.
    /// Phase 2: `ISETP thid == 0` and branch; thread 0: `LDG.64 offsetD`, `STG.64
    /// currKnodeD`; the loop step (3). Leaf: `LDG.64 currKnode`, address, `LDG keys`, `LDG
    /// keysD`, `ISETP`, branch; the holder: `LDG indices`, `IMAD.WIDE`, `LDG record`,
    /// `IMAD.WIDE`, `STG ans`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let thid = t.tid.x as u64;
        let bid = t.block.x as u64;
        let level_phases = 2 * self.height as u32;
        if phase == 0 {
            t.alu(5);
        }
        if phase < level_phases && phase.is_multiple_of(2) {
            t.alu(1);
            let cur: i64 = t.ld(self.curr, bid);
            t.alu(1);
            let k0 = key_of(t, self.knodes, cur as u64, thid);
            t.alu(1);
            let key: i32 = t.ld(self.keys, bid);
            t.alu(1);
            t.branch(1);
            if k0 <= key {
                let k1 = key_of(t, self.knodes, cur as u64, thid + 1);
                t.alu(1);
                t.branch(1);
                if k1 > key {
                    let off: i64 = t.ld(self.offset, bid);
                    t.alu(1);
                    let idx: i32 = t.ld(self.knodes, off as u64 * KN_WORDS + W_INDICES + thid);
                    t.alu(1);
                    if (idx as u64) < self.knodes_elem {
                        t.st(self.offset, bid, idx as i64);
                    }
                }
            }
        } else if phase < level_phases {
            t.alu(1);
            t.branch(1);
            if thid == 0 {
                let off: i64 = t.ld(self.offset, bid);
                t.st(self.curr, bid, off);
            }
            t.alu(2);
            t.branch(1);
        } else {
            t.alu(1);
            let cur: i64 = t.ld(self.curr, bid);
            t.alu(1);
            let k = key_of(t, self.knodes, cur as u64, thid);
            let key: i32 = t.ld(self.keys, bid);
            t.alu(1);
            t.branch(1);
            if k == key {
                let ri: i32 = t.ld(self.knodes, cur as u64 * KN_WORDS + W_INDICES + thid);
                t.alu(1);
                let v: i32 = t.ld(self.records, ri as u64);
                t.alu(1);
                t.st(self.ans, bid, v);
            }
        }
    }
}

/// `findRangeK`: phases `2l`/`2l + 1` per level as [`FindK`], then the start record
/// (phase `2h`) and, after a `__syncthreads()`, the range length (phase `2h + 1`).
struct FindRangeK {
    height: u64,
    knodes: ObjId,
    knodes_elem: u64,
    curr: ObjId,
    offset: ObjId,
    last: ObjId,
    offset2: ObjId,
    start: ObjId,
    end: ObjId,
    recstart: ObjId,
    reclen: ObjId,
    count: u64,
}

impl FindRangeK {
    /// One side's descent step (`node`, `off`, `bound`: curr/offset/start or
    /// last/offset_2/end).
    fn step(&self, t: &mut Thread<'_>, node: ObjId, off: ObjId, bound: ObjId) {
        let thid = t.tid.x as u64;
        let bid = t.block.x as u64;
        t.alu(1);
        let cur: i64 = t.ld(node, bid);
        t.alu(1);
        let k0 = key_of(t, self.knodes, cur as u64, thid);
        t.alu(1);
        let b: i32 = t.ld(bound, bid);
        t.alu(1);
        t.branch(1);
        if k0 <= b {
            let k1 = key_of(t, self.knodes, cur as u64, thid + 1);
            t.alu(1);
            t.branch(1);
            if k1 > b {
                let cur2: i64 = t.ld(node, bid);
                t.alu(1);
                let idx: i32 = t.ld(self.knodes, cur2 as u64 * KN_WORDS + W_INDICES + thid);
                t.alu(1);
                if (idx as u64) < self.knodes_elem {
                    t.st(off, bid, idx as i64);
                }
            }
        }
    }
}

impl Kernel for FindRangeK {
    fn info(&self) -> KernelInfo {
        kinfo(
            "findRangeK",
            Dim3::x(self.count as u32),
            Dim3::x(ORDER as u32),
            26,
            0,
        )
    }
    fn phases(&self) -> u32 {
        2 * self.height as u32 + 2
    }
    /// Per thread: as [`FindK`] for each of the two descents per level (the matching lane
    /// reloads `currKnodeD[bid]` / `lastKnodeD[bid]` for the `indices` address: the
    /// pointers may alias); thread 0 moves both (`LDG.64` x2, `STG.64` x2). Then the start
    /// (`LDG.64`, address, `LDG keys`, `LDG startD`, `ISETP`, branch; the holder `LDG
    /// indices`, `STG RecstartD`) and, after the barrier, the end (the same with `LDG
    /// RecstartD`, `IADD3` x2 and `STG ReclenD`).
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let thid = t.tid.x as u64;
        let bid = t.block.x as u64;
        let lp = 2 * self.height as u32;
        if phase == 0 {
            t.alu(5);
        }
        if phase < lp && phase.is_multiple_of(2) {
            self.step(t, self.curr, self.offset, self.start);
            self.step(t, self.last, self.offset2, self.end);
        } else if phase < lp {
            t.alu(1);
            t.branch(1);
            if thid == 0 {
                let o: i64 = t.ld(self.offset, bid);
                t.st(self.curr, bid, o);
                let o2: i64 = t.ld(self.offset2, bid);
                t.st(self.last, bid, o2);
            }
            t.alu(2);
            t.branch(1);
        } else if phase == lp {
            t.alu(1);
            let cur: i64 = t.ld(self.curr, bid);
            t.alu(1);
            let k = key_of(t, self.knodes, cur as u64, thid);
            let s: i32 = t.ld(self.start, bid);
            t.alu(1);
            t.branch(1);
            if k == s {
                let ri: i32 = t.ld(self.knodes, cur as u64 * KN_WORDS + W_INDICES + thid);
                t.st(self.recstart, bid, ri);
            }
        } else {
            t.alu(1);
            let cur: i64 = t.ld(self.last, bid);
            t.alu(1);
            let k = key_of(t, self.knodes, cur as u64, thid);
            let e: i32 = t.ld(self.end, bid);
            t.alu(1);
            t.branch(1);
            if k == e {
                let ri: i32 = t.ld(self.knodes, cur as u64 * KN_WORDS + W_INDICES + thid);
                let rs: i32 = t.ld(self.recstart, bid);
                t.alu(2);
                t.st(self.reclen, bid, ri - rs + 1);
            }
        }
    }
}

/// main.c's query draw: `(rand()/(float)RAND_MAX) * size`.
fn draw(rng: &mut Rng, size: u64) -> i32 {
    ((rng.f32() * size as f32) as i64).min(size as i64 - 1) as i32
}

/// The generated keys (a seeded permutation standing for mil.txt).
pub fn gen_keys(n: u64, seed: u64) -> Vec<i32> {
    let mut rng = Rng::new(seed);
    let mut v: Vec<i32> = (0..n as i32).collect();
    rng.shuffle(&mut v);
    v
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("keys", 1 << 20)?;
    let kc = p.u64("k_count", 10000)?;
    let jc = p.u64("j_count", 6000)?;
    let jr = p.u64("j_range", 3000)?;
    if n < 2 || n > i32::MAX as u64 || kc == 0 || jc == 0 || jr >= n {
        return Err(bad(format!(
            "btree: need keys >= 2, k_count >= 1, j_count >= 1 and j_range < keys (got keys {n}, k_count {kc}, j_count {jc}, j_range {jr})"
        )));
    }
    let keys = gen_keys(n, p.seed);
    let tree = Bpt::build(&keys);
    let height = tree.height();
    let (kn, recs) = tree.to_knodes();
    let knodes_elem = kn.len() as u64 / KN_WORDS;
    let mut rng = Rng::new(p.seed ^ 0x5eed);
    let qk: Vec<i32> = (0..kc).map(|_| draw(&mut rng, n)).collect();
    let mut st = Vec::with_capacity(jc as usize);
    let mut en = Vec::with_capacity(jc as usize);
    for _ in 0..jc {
        let mut s = draw(&mut rng, n) as i64;
        let mut e = s + jr as i64;
        if e >= n as i64 {
            s -= e - n as i64;
            e = n as i64 - 1;
        }
        st.push(s as i32);
        en.push(e as i32);
    }
    let mut mem = Memory::new();
    let records = mem.alloc_from("recordsD", &recs, true);
    let knodes = mem.alloc_from("knodesD", &kn, true);
    let curr = mem.alloc::<i64>("currKnodeD", kc, false);
    let offset = mem.alloc::<i64>("offsetD", kc, false);
    let keys_o = mem.alloc_from("keysD", &qk, true);
    let ans_v = vec![-1i32; kc as usize];
    let ans = mem.alloc_from("ansD", &ans_v, false);
    let curr2 = mem.alloc::<i64>("currKnodeD_2", jc, false);
    let offset2a = mem.alloc::<i64>("offsetD_2", jc, false);
    let last = mem.alloc::<i64>("lastKnodeD", jc, false);
    let offset2 = mem.alloc::<i64>("offset_2D", jc, false);
    let start = mem.alloc_from("startD", &st, true);
    let end = mem.alloc_from("endD", &en, true);
    let recstart = mem.alloc::<i32>("RecstartD", jc, false);
    let reclen = mem.alloc::<i32>("ReclenD", jc, false);
    let kernels: Vec<Box<dyn Kernel>> = vec![
        Box::new(FindK {
            height,
            knodes,
            knodes_elem,
            records,
            curr,
            offset,
            keys: keys_o,
            ans,
            count: kc,
        }),
        Box::new(FindRangeK {
            height,
            knodes,
            knodes_elem,
            curr: curr2,
            offset: offset2a,
            last,
            offset2,
            start,
            end,
            recstart,
            reclen,
            count: jc,
        }),
    ];
    Ok(ModelWorkload::new(
        "btree",
        mem,
        crate::bench::dense::common::seq(kernels),
    ))
}
