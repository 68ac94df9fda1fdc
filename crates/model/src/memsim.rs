//! The memory-system pass of the model (spec §3.6 steps 3-6): rewrite the sample's access
//! stream for a target placement (§3.5 address rules), then run it through the per-SM
//! texture and constant caches, the shared L2 and the shared-memory banks, counting
//! warp-level requests per component, cache misses, the replays of causes (1)-(4)
//! (§3.2.4), addressing instructions (§3.2.3) and the post-L2 DRAM stream with each
//! request's dynamic instruction id (the "filtered memory trace").

use crate::cache::{Cache, Outcome};
use crate::dram::DramReq;
use crate::profile::{Kind, Profile, NO_OBJ};
use crate::space::Place;
use serde::{Deserialize, Serialize};

/// Replay rule (1) for global accesses (spec §3.2.4, §7 #12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum GlobalReplay {
    /// The paper's literal rule: `ceil(bytes of all lanes / transaction) - 1`.
    #[default]
    Literal,
    /// `distinct transaction-size segments touched - 1` (captures scattered divergence).
    Segments,
}

/// Geometry of the modelled caches and banks (spec §2.4 K80 defaults [D]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemCfg {
    /// L2 capacity (bytes), shared by every SM.
    pub l2_bytes: u64,
    /// L2 associativity.
    pub l2_ways: usize,
    /// L2 line and DRAM request size (bytes).
    pub l2_line: u32,
    /// Texture cache per SM (bytes).
    pub tex_bytes: u64,
    /// Texture cache associativity.
    pub tex_ways: usize,
    /// Texture cache line (bytes; a 2-D texture line is a tile of this many bytes).
    pub tex_line: u32,
    /// Constant cache per SM (bytes).
    pub const_bytes: u64,
    /// Constant cache associativity.
    pub const_ways: usize,
    /// Constant cache line (bytes).
    pub const_line: u32,
    /// Shared-memory banks.
    pub banks: u32,
    /// Shared-memory bank width (bytes).
    pub bank_bytes: u32,
    /// Transaction size of replay rule (1) (bytes).
    pub transaction: u32,
    /// Replay rule (1).
    pub global_replay: GlobalReplay,
    /// Physical frames allocated at first touch, in pages of this many bytes (the
    /// simulator's allocator: a page gets the next free frame when an access first
    /// touches it), applied to the DRAM stream's addresses before the bank and row bits
    /// are taken. 0: DRAM sees the profile's (virtual) addresses, physically contiguous
    /// arrays as on the paper's K80 (§2.3). Set from the preset by the CLI.
    #[serde(default)]
    pub first_touch_page: u64,
}

impl Default for MemCfg {
    fn default() -> Self {
        MemCfg {
            l2_bytes: 1536 << 10,
            l2_ways: 16,
            l2_line: 128,
            tex_bytes: 48 << 10,
            tex_ways: 4,
            tex_line: 128,
            const_bytes: 8 << 10,
            const_ways: 4,
            const_line: 64,
            banks: 32,
            bank_bytes: 4,
            transaction: 128,
            global_replay: GlobalReplay::Literal,
            first_touch_page: 0,
        }
    }
}

/// What the pass counted for one placement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Events {
    /// Warp-level memory requests per component (`Place::ALL` order).
    pub req: [u64; 5],
    /// Texture-cache misses (lines).
    pub tex_miss: u64,
    /// Constant-cache misses (lines).
    pub const_miss: u64,
    /// Texture-cache line lookups (distinct lines per warp access).
    pub tex_access: u64,
    /// Constant-cache line lookups (distinct lines per warp access).
    pub const_access: u64,
    /// L2 accesses (lines).
    pub l2_access: u64,
    /// L2 misses that went to DRAM (reads) plus dirty write-backs.
    pub l2_miss: u64,
    /// L2 write misses (write-validate: the line is allocated dirty, nothing is read).
    #[serde(default)]
    pub l2_write_miss: u64,
    /// Replays by cause: (1) global, (2) constant miss, (3) constant divergence, (4) shared
    /// bank conflict.
    pub replays: [u64; 4],
    /// Address-calculation instructions of every access (warp instructions).
    pub addr_insts: u64,
    /// The post-L2 DRAM stream; `t` holds the issuing access's dynamic instruction id.
    pub dram: Vec<DramReq>,
    /// Bytes staged into shared memory per kernel (objects moved X→S: copy-in, and copy-out
    /// for written ones), for the initialisation cost (§3.5 [D]).
    pub staging_bytes: u64,
}

impl Events {
    /// All warp-level memory requests.
    pub fn total_req(&self) -> u64 {
        self.req.iter().sum()
    }
    /// Replays of causes (1)-(4).
    pub fn replays_total(&self) -> u64 {
        self.replays.iter().sum()
    }
}

fn slot(p: Place) -> usize {
    p as usize
}

/// Runs the sample trace rewritten for `placement` (one component per object of
/// `p.objects`) through the cache and bank models.
pub fn run(p: &Profile, placement: &[Place], cfg: &MemCfg) -> Events {
    run_inner(p, placement, cfg, None)
}

/// The placement-independent part of every access of a profile, computed once (issue 12:
/// the per-lane analysis was repeated for every target placement): for an access whose
/// object keeps its sample component, the lanes' addresses are not rewritten, so its
/// replays of causes (1), (3) and (4), the units it asks the caches for and the pages it
/// touches are the same in every target. Valid for the [`MemCfg`] it was built with.
#[derive(Clone, Debug, Default)]
pub struct Digest {
    /// Per access: replays of its own cause (global (1), constant divergence (3), shared
    /// bank conflicts (4)); 0 for texture.
    rep: Vec<u32>,
    /// Per access: `unit0[i]..unit0[i + 1]` in `units` (global: L2 line indices; texture:
    /// the address of each distinct texture line's first lane, tiled for 2T; constant:
    /// constant-line indices), in first-touch order.
    unit0: Vec<u32>,
    units: Vec<u64>,
    /// Per access: `page0[i]..page0[i + 1]` in `pages`, the lane addresses of an off-chip
    /// access where the page changes from the lane before (what first-touch frames see).
    page0: Vec<u32>,
    pages: Vec<u64>,
    /// The accesses whose sample component is not shared memory, in trace order: a
    /// target that keeps every shared object in shared memory runs only these through
    /// the caches (a shared access touches no cache, frame or DRAM bank).
    cached: Vec<u32>,
    /// Per object (and last, the accesses of no object) whose sample component is
    /// shared: its accesses and their bank-conflict replays, added at once.
    shared: Vec<(u64, u64)>,
    cfg: MemCfg,
}

impl Digest {
    /// Whether this digest serves `p` under `cfg` (else [`run_digested`] runs the plain
    /// pass).
    pub fn covers(&self, p: &Profile, cfg: &MemCfg) -> bool {
        self.rep.len() == p.accesses.len() && self.cfg == *cfg
    }
    /// Digests every access of `p` in its sample component for `cfg`.
    pub fn new(p: &Profile, cfg: &MemCfg) -> Digest {
        let mut d = Digest {
            cfg: cfg.clone(),
            ..Digest::default()
        };
        d.rep.reserve(p.accesses.len());
        d.unit0.reserve(p.accesses.len() + 1);
        d.page0.reserve(p.accesses.len() + 1);
        d.unit0.push(0);
        d.page0.push(0);
        d.shared = vec![(0, 0); p.objects.len() + 1];
        let shift = if cfg.first_touch_page > 1 {
            cfg.first_touch_page.trailing_zeros()
        } else {
            0
        };
        let line = u64::from(cfg.l2_line);
        let mut addrs: Vec<(u64, u32)> = Vec::with_capacity(32);
        let mut keys: Vec<u64> = Vec::with_capacity(32);
        for a in &p.accesses {
            let (place, oi) = if a.obj == NO_OBJ || a.obj as usize >= p.objects.len() {
                (a.place, usize::MAX)
            } else {
                (p.objects[a.obj as usize].place, a.obj as usize)
            };
            addrs.clear();
            addrs.extend(p.lanes_of(a).iter().map(|l| (l.addr, u32::from(l.bytes))));
            if place.off_chip() && shift > 0 {
                let mut last = u64::MAX;
                for &(ad, _) in &addrs {
                    if ad >> shift != last {
                        last = ad >> shift;
                        d.pages.push(ad);
                    }
                }
            }
            let rep = match place {
                Place::Global => {
                    let tr = u64::from(cfg.transaction);
                    let bytes: u64 = addrs.iter().map(|x| u64::from(x.1)).sum();
                    distinct(&addrs, tr, &mut keys);
                    let r = match cfg.global_replay {
                        GlobalReplay::Literal => bytes.div_ceil(tr).saturating_sub(1),
                        GlobalReplay::Segments => (keys.len() as u64).saturating_sub(1),
                    };
                    distinct(&addrs, line, &mut keys);
                    d.units.extend_from_slice(&keys);
                    r as u32
                }
                Place::Tex1D | Place::Tex2D => {
                    let tl = u64::from(cfg.tex_line);
                    keys.clear();
                    let mut ascending = true;
                    for &(ad, _) in &addrs {
                        let ad = if place == Place::Tex2D && oi != usize::MAX {
                            tiled_addr(&p.objects[oi], ad, tl)
                        } else {
                            ad
                        };
                        let n0 = keys.len();
                        push_distinct(&mut keys, ad / tl, &mut ascending);
                        if keys.len() > n0 {
                            d.units.push(ad);
                        }
                    }
                    0
                }
                Place::Const => {
                    keys.clear();
                    let mut ascending = true;
                    for &(ad, _) in &addrs {
                        push_distinct(&mut keys, ad, &mut ascending);
                    }
                    let r = (keys.len() as u32).saturating_sub(1);
                    distinct(&addrs, u64::from(cfg.const_line), &mut keys);
                    d.units.extend_from_slice(&keys);
                    r
                }
                Place::Shared => bank_conflicts(&addrs, cfg.banks, cfg.bank_bytes),
            };
            if place == Place::Shared {
                let e = &mut d.shared[oi.min(p.objects.len())];
                e.0 += 1;
                e.1 += u64::from(rep);
            } else {
                d.cached.push(d.rep.len() as u32);
            }
            d.rep.push(rep);
            d.unit0.push(d.units.len() as u32);
            d.page0.push(d.pages.len() as u32);
        }
        d
    }
}

/// [`run`] with the accesses that keep their sample component taken from `dig` (built
/// for `p` and `cfg` by [`Digest::new`]); the same events as [`run`].
pub fn run_digested(p: &Profile, placement: &[Place], cfg: &MemCfg, dig: &Digest) -> Events {
    run_inner(p, placement, cfg, dig.covers(p, cfg).then_some(dig))
}

/// The state one memory pass leaves behind: the shared L2, the per-SM texture and
/// constant caches and the first-touch frames. [`run_carried`] starts from it and
/// leaves it for the next launch, so a kernel launched several times is modelled as the
/// spec's one pass over the merged trace (§3.7 "merged into one global order so that the
/// L2 ... is meaningful", §3.8 `run_caches_and_banks(tr_t, hw)` once per trace).
#[derive(Clone, Debug)]
pub struct CacheState {
    l2: Cache,
    tex: Vec<Cache>,
    cst: Vec<Cache>,
    frames: Frames,
}

impl CacheState {
    /// Cold caches and no frame allocated, for `cfg`.
    pub fn new(cfg: &MemCfg) -> CacheState {
        CacheState {
            l2: Cache::new(cfg.l2_bytes, cfg.l2_ways, cfg.l2_line),
            tex: Vec::new(),
            cst: Vec::new(),
            frames: Frames::new(cfg.first_touch_page),
        }
    }
    fn ensure_sms(&mut self, sms: usize, cfg: &MemCfg) {
        while self.tex.len() < sms {
            self.tex
                .push(Cache::new(cfg.tex_bytes, cfg.tex_ways, cfg.tex_line));
            self.cst
                .push(Cache::new(cfg.const_bytes, cfg.const_ways, cfg.const_line));
        }
    }
    /// A kernel boundary as the simulated k80 makes it: the texture and constant caches
    /// of every SM are invalidated (neither is coherent with writes; the simulator's
    /// `spaces_launch`), the L2 and the frames are kept (a single-node machine does
    /// nothing to its L2 at a boundary, `l2.kernel_boundary`).
    pub fn invalidate_tex_const(&mut self) {
        for c in self.tex.iter_mut().chain(self.cst.iter_mut()) {
            c.clear();
        }
    }
}

/// [`run_digested`] starting from `state` (the caches and frames an earlier launch left)
/// and leaving this pass's state in it.
pub fn run_carried(
    p: &Profile,
    placement: &[Place],
    cfg: &MemCfg,
    dig: &Digest,
    state: &mut CacheState,
) -> Events {
    run_with(p, placement, cfg, dig.covers(p, cfg).then_some(dig), state)
}

fn run_inner(p: &Profile, placement: &[Place], cfg: &MemCfg, dig: Option<&Digest>) -> Events {
    run_with(p, placement, cfg, dig, &mut CacheState::new(cfg))
}

fn run_with(
    p: &Profile,
    placement: &[Place],
    cfg: &MemCfg,
    dig: Option<&Digest>,
    state: &mut CacheState,
) -> Events {
    let mut ev = Events::default();
    let sms = p
        .accesses
        .iter()
        .map(|a| a.sm as usize + 1)
        .max()
        .unwrap_or(1);
    state.ensure_sms(sms, cfg);
    let CacheState {
        l2,
        tex,
        cst,
        frames,
    } = state;
    // S→G: the array gets an address range after the highest allocation (§3.5), one
    // private slice per block
    let top = p
        .objects
        .iter()
        .filter(|o| o.place.off_chip())
        .map(|o| o.base + o.bytes)
        .max()
        .unwrap_or(0);
    let mut next = (top + 255) & !255;
    let new_base: Vec<u64> = p
        .objects
        .iter()
        .zip(placement)
        .map(|(o, &t)| {
            if o.place == Place::Shared && t.off_chip() {
                let b = next;
                next += (o.bytes * p.blocks.max(1) + 255) & !255;
                b
            } else {
                o.base
            }
        })
        .collect();
    for (o, &t) in p.objects.iter().zip(placement) {
        if o.place.off_chip() && t == Place::Shared {
            ev.staging_bytes += o.bytes * p.blocks * (1 + u64::from(o.written));
        }
    }
    let mut addrs: Vec<(u64, u32)> = Vec::with_capacity(32);
    let mut keys: Vec<u64> = Vec::with_capacity(32);
    let line = u64::from(cfg.l2_line);
    // every shared object kept in shared memory: its accesses' events at once, and only
    // the other accesses through the caches (the same events, in the same order)
    let fast = dig.filter(|_| {
        placement.len() == p.objects.len()
            && p.objects
                .iter()
                .zip(placement)
                .all(|(o, &t)| o.place != Place::Shared || t == Place::Shared)
    });
    if let Some(d) = fast {
        for (i, &(n, rep)) in d.shared.iter().enumerate() {
            let elem = p.objects.get(i).map_or(4, |o| o.elem_bytes);
            ev.req[slot(Place::Shared)] += n;
            ev.addr_insts += n * u64::from(Place::Shared.addr_insts(elem));
            ev.replays[3] += rep;
        }
    }
    let n_acc = fast.map_or(p.accesses.len(), |d| d.cached.len());
    for j in 0..n_acc {
        let ai = fast.map_or(j, |d| d.cached[j] as usize);
        let a = &p.accesses[ai];
        let (target, elem, sample, oi) = if a.obj == NO_OBJ || a.obj as usize >= placement.len() {
            (a.place, 4, a.place, usize::MAX)
        } else {
            let o = &p.objects[a.obj as usize];
            (
                placement[a.obj as usize],
                o.elem_bytes,
                o.place,
                a.obj as usize,
            )
        };
        ev.req[slot(target)] += 1;
        ev.addr_insts += u64::from(target.addr_insts(elem));
        if let Some(d) = dig.filter(|_| target == sample) {
            // the access keeps its component: its lanes as digested once
            for &ad in &d.pages[d.page0[ai] as usize..d.page0[ai + 1] as usize] {
                frames.touch(ad);
            }
            let units = &d.units[d.unit0[ai] as usize..d.unit0[ai + 1] as usize];
            let write = a.kind != Kind::Load;
            let t = a.dyn_id as f64;
            match target {
                Place::Global => {
                    ev.replays[0] += u64::from(d.rep[ai]);
                    for &k in units {
                        l2_step(l2, frames, k * line, write, t, line, &mut ev);
                    }
                }
                Place::Tex1D | Place::Tex2D => {
                    let tl = u64::from(cfg.tex_line);
                    for &ad in units {
                        ev.tex_access += 1;
                        if tex[a.sm as usize].access_key(ad / tl, false) != Outcome::Hit {
                            ev.tex_miss += 1;
                            l2_step(l2, frames, ad, false, t, line, &mut ev);
                        }
                    }
                }
                Place::Const => {
                    ev.replays[2] += u64::from(d.rep[ai]);
                    for &k in units {
                        let ad = k * u64::from(cfg.const_line);
                        ev.const_access += 1;
                        if cst[a.sm as usize].access(ad, false) != Outcome::Hit {
                            ev.const_miss += 1;
                            ev.replays[1] += 1;
                            l2_step(l2, frames, ad, false, t, line, &mut ev);
                        }
                    }
                }
                Place::Shared => ev.replays[3] += u64::from(d.rep[ai]),
            }
            continue;
        }
        // rewritten lane addresses
        addrs.clear();
        for l in p.lanes_of(a) {
            let addr = if sample == Place::Shared && target.off_chip() {
                new_base[oi] + u64::from(a.block) * p.objects[oi].bytes + l.addr
            } else if sample.off_chip() && target == Place::Shared && oi != usize::MAX {
                l.addr - p.objects[oi].base
            } else {
                l.addr
            };
            addrs.push((addr, u32::from(l.bytes)));
        }
        if target.off_chip() {
            for &(ad, _) in &addrs {
                frames.touch(ad);
            }
        }
        let write = a.kind != Kind::Load;
        let t = a.dyn_id as f64;
        let mut l2_go = |addr: u64, write: bool, ev: &mut Events| {
            l2_step(l2, frames, addr, write, t, line, ev);
        };
        match target {
            Place::Global => {
                let bytes: u64 = addrs.iter().map(|x| u64::from(x.1)).sum();
                let tr = u64::from(cfg.transaction);
                distinct(&addrs, tr, &mut keys);
                let segs = keys.len() as u64;
                ev.replays[0] += match cfg.global_replay {
                    GlobalReplay::Literal => bytes.div_ceil(tr).saturating_sub(1),
                    GlobalReplay::Segments => segs.saturating_sub(1),
                };
                distinct(&addrs, line, &mut keys);
                for &k in &keys {
                    l2_go(k * line, write, &mut ev);
                }
            }
            Place::Tex1D | Place::Tex2D => {
                let tl = u64::from(cfg.tex_line);
                keys.clear();
                let mut ascending = true;
                for &(ad, _) in &addrs {
                    let ad = if target == Place::Tex2D && oi != usize::MAX {
                        tiled_addr(&p.objects[oi], ad, tl)
                    } else {
                        ad
                    };
                    let k = ad / tl;
                    let n0 = keys.len();
                    push_distinct(&mut keys, k, &mut ascending);
                    if keys.len() > n0 {
                        ev.tex_access += 1;
                        if tex[a.sm as usize].access_key(k, false) != Outcome::Hit {
                            ev.tex_miss += 1;
                            l2_go(ad, false, &mut ev);
                        }
                    }
                }
            }
            Place::Const => {
                keys.clear();
                let mut ascending = true;
                for &(ad, _) in &addrs {
                    push_distinct(&mut keys, ad, &mut ascending);
                }
                ev.replays[2] += (keys.len() as u64).saturating_sub(1);
                distinct(&addrs, u64::from(cfg.const_line), &mut keys);
                for &k in &keys {
                    let ad = k * u64::from(cfg.const_line);
                    ev.const_access += 1;
                    if cst[a.sm as usize].access(ad, false) != Outcome::Hit {
                        ev.const_miss += 1;
                        ev.replays[1] += 1;
                        l2_go(ad, false, &mut ev);
                    }
                }
            }
            Place::Shared => {
                ev.replays[3] += u64::from(bank_conflicts(&addrs, cfg.banks, cfg.bank_bytes));
            }
        }
    }
    ev
}

/// One L2 access of the pass: a miss of a load reads its line from DRAM, a miss that
/// evicts a dirty line writes it back (write-validate: a store miss reads nothing).
#[inline]
fn l2_step(
    l2: &mut Cache,
    frames: &mut Frames,
    addr: u64,
    write: bool,
    t: f64,
    line: u64,
    ev: &mut Events,
) {
    ev.l2_access += 1;
    if let Outcome::Miss { evicted_dirty } = l2.access(addr, write) {
        ev.l2_write_miss += u64::from(write);
        if let Some(v) = evicted_dirty {
            ev.l2_miss += 1;
            ev.dram.push(DramReq {
                t,
                addr: frames.phys(v),
                write: true,
            });
        }
        if !write {
            ev.l2_miss += 1;
            ev.dram.push(DramReq {
                t,
                addr: frames.phys(addr & !(line - 1)),
                write: false,
            });
        }
    }
}

/// First-touch frame allocation ([`MemCfg::first_touch_page`]): page -> frame in the order
/// pages are first touched. The last page looked up is remembered (a warp's lanes mostly
/// share one page), so the map is consulted about once per access.
#[derive(Clone, Debug)]
struct Frames {
    shift: u32,
    map: std::collections::HashMap<u64, u64, PageHash>,
    last: (u64, u64),
}

impl Frames {
    fn new(page: u64) -> Frames {
        Frames {
            shift: if page > 1 { page.trailing_zeros() } else { 0 },
            map: std::collections::HashMap::default(),
            last: (u64::MAX, 0),
        }
    }
    fn touch(&mut self, addr: u64) -> u64 {
        if self.shift == 0 {
            return 0;
        }
        let vpn = addr >> self.shift;
        if self.last.0 != vpn {
            let next = self.map.len() as u64;
            self.last = (vpn, *self.map.entry(vpn).or_insert(next));
        }
        self.last.1
    }
    fn phys(&mut self, addr: u64) -> u64 {
        if self.shift == 0 {
            return addr;
        }
        let f = self.touch(addr);
        (f << self.shift) | (addr & ((1u64 << self.shift) - 1))
    }
}

/// A multiplicative hash for page numbers (no hash-flooding concern: the keys are the
/// profile's own pages); SipHash cost more than the frame lookup it serves.
#[derive(Clone, Copy, Debug, Default)]
struct PageHash;

impl std::hash::BuildHasher for PageHash {
    type Hasher = PageHasher;
    fn build_hasher(&self) -> PageHasher {
        PageHasher(0)
    }
}

struct PageHasher(u64);

impl std::hash::Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Distinct `gran`-aligned units touched by the lanes (in first-touch order), as unit
/// indices (address / gran). Lanes usually ascend (coalesced, or one row per thread): a
/// unit above the last one found is new without a search, so the common cases are linear;
/// once the order breaks, each unit is looked up in the list as before (same result, same
/// order).
fn distinct(addrs: &[(u64, u32)], gran: u64, out: &mut Vec<u64>) {
    out.clear();
    let mut ascending = true;
    if gran.is_power_of_two() {
        // every geometry of the machine: a shift, not a division per lane
        let sh = gran.trailing_zeros();
        for &(a, b) in addrs {
            let (lo, hi) = (a >> sh, (a + u64::from(b.max(1)) - 1) >> sh);
            push_distinct(out, lo, &mut ascending);
            for k in lo + 1..=hi {
                push_distinct(out, k, &mut ascending);
            }
        }
        return;
    }
    for &(a, b) in addrs {
        let (lo, hi) = (a / gran, (a + u64::from(b.max(1)) - 1) / gran);
        for k in lo..=hi {
            push_distinct(out, k, &mut ascending);
        }
    }
}

/// Appends `k` to `out` unless present; `ascending` says `out` is strictly increasing so
/// far (then only its last element can equal `k` when `k` is not below it).
#[inline]
fn push_distinct(out: &mut Vec<u64>, k: u64, ascending: &mut bool) {
    match out.last() {
        None => out.push(k),
        Some(&l) if *ascending && k > l => out.push(k),
        Some(&l) if *ascending && k == l => {}
        _ => {
            if !out.contains(&k) {
                *ascending = false;
                out.push(k);
            }
        }
    }
}

/// Block-linear address of a 2-D texture element (spec §2.2 "2T uses tiled (block-linear)
/// layout", §7 #20): the array as rows of `row_elems` elements (else the square-ish
/// power-of-two width), cut into tiles of one texture line (`tile_bytes`) each, `w x h`
/// elements with `w` the larger power of two, tiles row-major. A tile is contiguous in
/// memory, so a texture-line miss fetches the L2 line at this address: the data a 2-D
/// neighbourhood shares, not the first lane's linear address.
fn tiled_addr(o: &crate::profile::ObjInfo, addr: u64, tile_bytes: u64) -> u64 {
    let e = u64::from(o.elem_bytes.max(1));
    let n = (o.bytes / e).max(1);
    let width = if o.row_elems > 0 {
        o.row_elems
    } else {
        ((n as f64).sqrt().ceil() as u64).max(1).next_power_of_two()
    };
    let per_tile = (tile_bytes / e).max(1);
    let tw = 1u64 << per_tile.trailing_zeros().div_ceil(2);
    let th = (per_tile / tw).max(1);
    let i = addr.saturating_sub(o.base) / e;
    let (x, y) = (i % width, i / width);
    let tile = (y / th) * width.div_ceil(tw) + x / tw;
    let t = o.base + (tile * per_tile + (y % th) * tw + x % tw) * e;
    // the last tile row may be padded past the object: keep the linear address there
    if t < o.base + o.bytes {
        t
    } else {
        addr
    }
}

/// Replays of one shared access (cause (4), §3.2.4 precise rule): the most distinct
/// words any bank is asked for, minus one; lanes reading the same word broadcast.
pub fn bank_conflicts(addrs: &[(u64, u32)], banks: u32, bank_bytes: u32) -> u32 {
    let mut words = [0u64; 128];
    let mut n = 0usize;
    for &(a, b) in addrs {
        let bw = u64::from(bank_bytes);
        for w in (a / bw)..=((a + u64::from(b.max(1)) - 1) / bw) {
            if n < words.len() && !words[..n].contains(&w) {
                words[n] = w;
                n += 1;
            }
        }
    }
    let mut per_bank = [0u32; 64];
    let nb = banks.clamp(1, 64) as u64;
    let mut worst = 0;
    for &w in &words[..n] {
        let b = (w % nb) as usize;
        per_bank[b] += 1;
        worst = worst.max(per_bank[b]);
    }
    worst.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(f: impl Fn(u64) -> u64) -> Vec<(u64, u32)> {
        (0..32).map(|i| (f(i), 4)).collect()
    }

    /// Hand-derived bank conflicts (32 banks x 4 B): unit stride none; stride 2 two-way;
    /// stride 32 words 32-way; all lanes one word broadcast; stride 33 none (odd stride).
    #[test]
    fn bank_conflicts_hand_cases() {
        assert_eq!(bank_conflicts(&lanes(|i| 4 * i), 32, 4), 0);
        assert_eq!(bank_conflicts(&lanes(|i| 8 * i), 32, 4), 1);
        assert_eq!(bank_conflicts(&lanes(|i| 128 * i), 32, 4), 31);
        assert_eq!(bank_conflicts(&lanes(|_| 64), 32, 4), 0);
        assert_eq!(bank_conflicts(&lanes(|i| 132 * i), 32, 4), 0);
        // two lanes per word, stride of 16 words over 16 lanes: banks 0 and 16, 8 words each
        assert_eq!(bank_conflicts(&lanes(|i| 64 * (i / 2)), 32, 4), 7);
    }

    /// The reference: every unit searched in the list (the implementation before the
    /// ascending fast path).
    fn distinct_ref(addrs: &[(u64, u32)], gran: u64) -> Vec<u64> {
        let mut out = Vec::new();
        for &(a, b) in addrs {
            for k in (a / gran)..=((a + u64::from(b.max(1)) - 1) / gran) {
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        }
        out
    }

    /// The fast path gives the same units in the same first-touch order as the plain
    /// search, on ascending, descending, repeated, straddling and scrambled lanes. Fails
    /// if a unit were dropped or duplicated once the lanes stop ascending.
    #[test]
    fn distinct_matches_the_plain_search() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut k = Vec::new();
        for case in 0..2000u64 {
            let lanes: Vec<(u64, u32)> = (0..32u64)
                .map(|i| {
                    let a = match case % 5 {
                        0 => 4 * i,
                        1 => 4096 - 8 * i,
                        2 => 64 * (i / 4) + rnd() % 3,
                        3 => 120 + 8 * i, // 8-byte lanes straddling lines
                        _ => rnd() % 4096,
                    };
                    (a, if case % 2 == 0 { 4 } else { 8 })
                })
                .collect();
            for gran in [4u64, 32, 48, 64, 128] {
                distinct(&lanes, gran, &mut k);
                assert_eq!(k, distinct_ref(&lanes, gran), "case {case} gran {gran}");
            }
        }
    }

    #[test]
    fn distinct_units() {
        let mut k = Vec::new();
        distinct(&lanes(|i| 4 * i), 128, &mut k);
        assert_eq!(k, vec![0]);
        distinct(&lanes(|i| 128 * i), 128, &mut k);
        assert_eq!(k.len(), 32);
    }
}
