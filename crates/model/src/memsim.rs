//! The memory-system pass of the model (spec §3.6 steps 3-6): rewrite the sample's access
//! stream for a target placement (§3.5 address rules), then run it through the per-SM
//! texture and constant caches, the shared L2 and the shared-memory banks, counting
//! warp-level requests per component, cache misses, the replays of causes (1)-(4)
//! (§3.2.4), addressing instructions (§3.2.3) and the post-L2 DRAM stream with each
//! request's dynamic instruction id (the "filtered memory trace").

use crate::cache::{Cache, Outcome, GROUP_KEYS, NO_GROUP};
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

/// Geometry of the modelled caches and banks (spec §2.4 K80 defaults \[D\]).
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
    /// What a move into shared memory copies per block: false, the whole object (spec
    /// §4's rule, default); true, the named reading `block-range` (the simulator's
    /// `spaces.shared_stage`): the range of the object each block's accesses span, which
    /// sets the capacity check, `T_init`'s bytes and the occupancy change
    /// ([`Profile::block_spans`]).
    #[serde(default)]
    pub shared_block_range: bool,
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
            shared_block_range: false,
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
    /// for written ones), for the initialisation cost (§3.5 \[D\]).
    pub staging_bytes: u64,
    /// Bytes of shared memory each block gains (objects moved X→S) or gives up (shared
    /// arrays moved S→X) under the placement: `N` is recomputed with it
    /// ([`Profile::warps_per_sm_with`], §7 #18 \[D\]).
    #[serde(default)]
    pub smem_delta: i64,
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
    /// access where the page changes from the lane before (what first-touch frames see),
    /// less the pages an earlier access of the same object listed (touched already in
    /// every target where this access touches them: a neuralnet weights row per thread
    /// touches the same 32 pages for many accesses, the frame lookups were 16 % of a
    /// prediction).
    page0: Vec<u32>,
    pages: Vec<u64>,
    /// The accesses whose sample component is not shared memory, in trace order: a
    /// target that keeps every shared object in shared memory runs only these through
    /// the caches (a shared access touches no cache, frame or DRAM bank).
    cached: Vec<u32>,
    /// Per object (and last, the accesses of no object) whose sample component is
    /// shared: its accesses and their bank-conflict replays, added at once.
    shared: Vec<(u64, u64)>,
    /// Per access: `moved0[i]..moved0[i + 1]` in `moved`, for an access of a shared
    /// object whose lanes each stay within one L2 line: the distinct L2 lines of its
    /// block-relative offsets (offset / line, first-touch order). Moved to global memory
    /// (S→G), the object's slice of each block starts at a line-aligned address `B`, so
    /// the rewritten access asks the L2 for lines `B / line + moved[..]`, in this order,
    /// and touches their pages in this order (a page's first lane is in its first line):
    /// no lane is rewritten. Empty for every other access.
    moved0: Vec<u32>,
    moved: Vec<u32>,
    /// Per access with `moved` lines: its replays of cause (1) once in global memory,
    /// valid for a `B` aligned to the transaction size.
    moved_rep: Vec<u32>,
    /// Per access of a read-only global object (the objects a texture may hold): the
    /// texture units it asks for once moved to a 1-D texture (G→T: `tex1_0[i]..tex1_0[i +
    /// 1]` in `tex1`) and to a 2-D one (G→2T, tiled: in `tex2`), each the address of
    /// the first lane of a distinct texture line ([`tex_units`]). Digested once for the
    /// kernel, not per placement: a search predicts each object's texture moves in many
    /// placements (exhaustive enumeration, every variant of `repro hms`). Empty ranges
    /// for the other accesses.
    tex1_0: Vec<u32>,
    tex1: Vec<u64>,
    tex2_0: Vec<u32>,
    tex2: Vec<u64>,
    /// Per access of a read-only global array of at most [`CONST_DIGEST_MAX`] bytes (the
    /// arrays constant memory may hold): once moved to constant memory (G→C), its replays
    /// of cause (3) (`const_rep[i]`, `u32::MAX` for the other accesses) and its constant
    /// lines (`cunit0[i]..cunit0[i + 1]` in `cunits`, line indices, first-touch order).
    const_rep: Vec<u32>,
    cunit0: Vec<u32>,
    cunits: Vec<u64>,
    /// Per access of a global array of at most [`SHARED_DIGEST_MAX`] bytes: once moved to
    /// shared memory (G→S), its bank-conflict replays (cause (4)); `u32::MAX` for the
    /// other accesses.
    shared_rep: Vec<u32>,
    /// Per access, for its sample units (`units`), its G→T and G→2T units (`tex1`,
    /// `tex2`) and its G→C lines (`cunits`): the last earlier access of the same object
    /// on the same SM that asked for two or more units of that kind, when its list was
    /// the same, compared by cache line (texture units are lane addresses) ([`NO_GROUP`]
    /// otherwise). Both go to the same cache in every target, so
    /// [`Cache::access_group`] finds the keys again without a search when that access
    /// was the last group of the object's bank (neuralnet's weights rows: the same lines
    /// for up to 16 accesses in a row). Then, for the texture units (sample, G→T, G→2T),
    /// the L2 lines their misses read: the first access of the run of accesses of the
    /// same object and SM (two or more units each) asking for the same L2 lines, named
    /// by every access of the run (the L2 lookups of an access whose units all missed
    /// are a group: [`tex_lookups`]).
    same: [Vec<u32>; 7],
    /// Per access, for each of the first four lists of `same`: whether a later access
    /// names it there (else its lookups need not be remembered: most accesses of a
    /// kernel that streams, as sort's, are named by none).
    named: [Vec<bool>; 4],
    /// SMs the accesses run on (the largest SM index + 1): the per-SM caches a pass needs.
    sms: usize,
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
        d.moved0.reserve(p.accesses.len() + 1);
        d.moved_rep.reserve(p.accesses.len());
        d.moved0.push(0);
        d.shared = vec![(0, 0); p.objects.len() + 1];
        let shift = if cfg.first_touch_page > 1 {
            cfg.first_touch_page.trailing_zeros()
        } else {
            0
        };
        let line = u64::from(cfg.l2_line);
        let mut addrs: Vec<(u64, u32)> = Vec::with_capacity(32);
        let mut keys: Vec<u64> = Vec::with_capacity(32);
        let tilings = tilings(p, cfg);
        let tl_shift = cfg.tex_line.max(1).trailing_zeros();
        d.sms = sms_of(p);
        d.tex1_0.push(0);
        d.tex2_0.push(0);
        d.cunit0.push(0);
        // (object, page) pairs already listed: an object's accesses all take one target
        // component, so in every target an earlier access of the object has touched the
        // page (off chip) or none touches it (in shared memory), and a touch of a page
        // with a frame changes nothing
        let mut seen: std::collections::HashSet<(u16, u64), PageHash> =
            std::collections::HashSet::default();
        for a in &p.accesses {
            let place = a.place;
            let oi = if a.obj == NO_OBJ || a.obj as usize >= p.objects.len() {
                usize::MAX
            } else {
                a.obj as usize
            };
            addrs.clear();
            addrs.extend(p.lanes_of(a).iter().map(|l| (l.addr, u32::from(l.bytes))));
            if place.off_chip() && shift > 0 {
                let mut last = u64::MAX;
                for &(ad, _) in &addrs {
                    if ad >> shift != last {
                        last = ad >> shift;
                        if seen.insert((a.obj, last)) {
                            d.pages.push(ad);
                        }
                    }
                }
            }
            let rep = match place {
                Place::Global => {
                    let r = global_replays(&addrs, cfg, &mut keys);
                    distinct(&addrs, line, &mut keys);
                    d.units.extend_from_slice(&keys);
                    r as u32
                }
                Place::Tex1D | Place::Tex2D => {
                    let tiling = (place == Place::Tex2D && oi != usize::MAX).then(|| &tilings[oi]);
                    tex_units(&addrs, tiling, tl_shift, &mut keys, &mut d.units);
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
                Place::Shared => {
                    let conflicts = bank_conflicts(&addrs, cfg.banks, cfg.bank_bytes);
                    // S→G: offsets in the array (a named array starts at its `base`)
                    if oi != usize::MAX {
                        let base = p.objects[oi].base;
                        for x in addrs.iter_mut() {
                            x.0 -= base;
                        }
                    }
                    let one_line = addrs
                        .iter()
                        .all(|&(ad, b)| ad / line == (ad + u64::from(b.max(1)) - 1) / line);
                    let mut mrep = 0;
                    if oi != usize::MAX && one_line {
                        mrep = global_replays(&addrs, cfg, &mut keys) as u32;
                        distinct(&addrs, line, &mut keys);
                        d.moved.extend(keys.iter().map(|&k| k as u32));
                    }
                    d.moved_rep.push(mrep);
                    conflicts
                }
            };
            if place != Place::Shared {
                d.moved_rep.push(0);
            }
            d.moved0.push(d.moved.len() as u32);
            let read_only_global =
                place == Place::Global && oi != usize::MAX && !p.objects[oi].written;
            if read_only_global {
                tex_units(&addrs, None, tl_shift, &mut keys, &mut d.tex1);
                tex_units(&addrs, Some(&tilings[oi]), tl_shift, &mut keys, &mut d.tex2);
            }
            d.tex1_0.push(d.tex1.len() as u32);
            d.tex2_0.push(d.tex2.len() as u32);
            // G→C of a read-only array that constant memory can hold
            let to_const = read_only_global && p.objects[oi].bytes <= CONST_DIGEST_MAX;
            if to_const {
                let mut ascending = true;
                keys.clear();
                for &(ad, _) in &addrs {
                    push_distinct(&mut keys, ad, &mut ascending);
                }
                d.const_rep.push((keys.len() as u32).saturating_sub(1));
                distinct(&addrs, u64::from(cfg.const_line), &mut keys);
                d.cunits.extend_from_slice(&keys);
            } else {
                d.const_rep.push(u32::MAX);
            }
            d.cunit0.push(d.cunits.len() as u32);
            // G→S of an array that shared memory can hold: its bank conflicts at the
            // block-relative offsets (the rewrite subtracts the array's base)
            let to_shared = place == Place::Global
                && oi != usize::MAX
                && p.objects[oi].bytes <= SHARED_DIGEST_MAX;
            d.shared_rep.push(if to_shared {
                let base = p.objects[oi].base;
                for x in addrs.iter_mut() {
                    x.0 -= base;
                }
                bank_conflicts(&addrs, cfg.banks, cfg.bank_bytes)
            } else {
                u32::MAX
            });
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
        // a unit's cache line: texture units are lane addresses (in lines of tl_shift
        // bits), the others line indices already
        let l2_shift = line.trailing_zeros();
        let sample_tex: Vec<bool> = p
            .accesses
            .iter()
            .map(|a| matches!(a.place, Place::Tex1D | Place::Tex2D))
            .collect();
        let unit_shift = |i: usize| if sample_tex[i] { tl_shift } else { 0 };
        let l2_of_tex = |i: usize| if sample_tex[i] { l2_shift } else { 64 };
        d.same = [
            same_as_before(p, &d.unit0, &d.units, unit_shift, false),
            same_as_before(p, &d.tex1_0, &d.tex1, |_| tl_shift, false),
            same_as_before(p, &d.tex2_0, &d.tex2, |_| tl_shift, false),
            same_as_before(p, &d.cunit0, &d.cunits, |_| 0, false),
            same_as_before(p, &d.unit0, &d.units, l2_of_tex, true),
            same_as_before(p, &d.tex1_0, &d.tex1, |_| l2_shift, true),
            same_as_before(p, &d.tex2_0, &d.tex2, |_| l2_shift, true),
        ];
        d.named = std::array::from_fn(|k| named_later(&d.same[k]));
        d
    }

    /// Per access, the last earlier access of its object on its SM whose units it
    /// repeats line for line ([`NO_GROUP`] where none), for its sample units, its units
    /// as a 1-D and as a 2-D texture and its constant lines: what lets a prediction find
    /// them again without a search ([`Cache::access_group`]), shown for tests.
    pub fn repeats(&self) -> [&[u32]; 4] {
        [&self.same[0], &self.same[1], &self.same[2], &self.same[3]]
    }
}

/// Which of [`Digest::same`]'s lists.
const SAME_UNITS: usize = 0;
const SAME_TEX1: usize = 1;
const SAME_TEX2: usize = 2;
const SAME_CONST: usize = 3;
const SAME_UNITS_L2: usize = 4;
const SAME_TEX1_L2: usize = 5;
const SAME_TEX2_L2: usize = 6;

/// [`Digest::same`] for one kind of units: per access, the last earlier access of the
/// same object and SM with two or more units of the kind (`list[start[i]..start[i + 1]]`),
/// when its units are the same list of lines (each unit `>> shift(i)`; a shift of 64
/// or more: no list); [`NO_GROUP`] otherwise. With `root`, the first access of the run
/// of such accesses with the same list instead (the access itself when the list
/// differs from the last one's), or [`NO_GROUP`] for a run of one access (nothing
/// repeats it).
fn same_as_before(
    p: &Profile,
    start: &[u32],
    list: &[u64],
    shift: impl Fn(usize) -> u32,
    root: bool,
) -> Vec<u32> {
    // per (object, SM): the last access with a list, and the root of its run
    let mut last: std::collections::HashMap<(u16, u16), (u32, u32)> =
        std::collections::HashMap::new();
    let units = |i: usize| &list[start[i] as usize..start[i + 1] as usize];
    let same = |i: usize, j: usize| {
        let (a, b) = (units(i), units(j));
        let (si, sj) = (shift(i), shift(j));
        a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| x >> si == y >> sj)
    };
    let mut out = Vec::with_capacity(p.accesses.len());
    for i in 0..p.accesses.len() {
        if units(i).len() < 2 || shift(i) >= 64 {
            out.push(NO_GROUP);
            continue;
        }
        let a = &p.accesses[i];
        let e = last.entry((a.obj, a.sm)).or_insert((NO_GROUP, i as u32));
        let (j, r) = *e;
        let repeat = j != NO_GROUP && same(i, j as usize);
        let r = if repeat { r } else { i as u32 };
        *e = (i as u32, r);
        out.push(match (root, repeat) {
            (true, _) => r,
            (false, true) => j,
            (false, false) => NO_GROUP,
        });
    }
    if root {
        let mut runs = vec![0u32; out.len()];
        for &r in &out {
            if r != NO_GROUP {
                runs[r as usize] += 1;
            }
        }
        for r in &mut out {
            if *r != NO_GROUP && runs[*r as usize] < 2 {
                *r = NO_GROUP;
            }
        }
    }
    out
}

/// Per access, whether a later access names it in `same` (one of [`Digest::same`]'s
/// lists of earlier accesses): only such an access's lookups are remembered as a group.
fn named_later(same: &[u32]) -> Vec<bool> {
    let mut named = vec![false; same.len()];
    for &j in same {
        if j != NO_GROUP {
            named[j as usize] = true;
        }
    }
    named
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
    let sms = dig.map_or_else(|| sms_of(p), |d| d.sms);
    state.ensure_sms(sms, cfg);
    let CacheState {
        l2,
        tex,
        cst,
        frames,
    } = state;
    // a group id is an access of this pass's profile
    for c in std::iter::once(&mut *l2)
        .chain(tex.iter_mut())
        .chain(cst.iter_mut())
    {
        c.forget_group();
    }
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
    let spans = if cfg.shared_block_range
        && p.objects
            .iter()
            .zip(placement)
            .any(|(o, &t)| o.place.off_chip() && t == Place::Shared)
    {
        p.block_spans()
    } else {
        Vec::new()
    };
    for (i, (o, &t)) in p.objects.iter().zip(placement).enumerate() {
        if o.place.off_chip() && t == Place::Shared {
            // per block: the whole object, or (block-range) the range the block reads
            let (per_block, all_blocks) = match spans.get(i) {
                Some(&s) => s,
                None => (o.bytes, o.bytes * p.blocks),
            };
            ev.staging_bytes += all_blocks * (1 + u64::from(o.written));
            ev.smem_delta += per_block as i64;
        }
        if o.place == Place::Shared && t.off_chip() {
            ev.smem_delta -= o.bytes as i64;
        }
    }
    let mut addrs: Vec<(u64, u32)> = Vec::with_capacity(32);
    let mut keys: Vec<u64> = Vec::with_capacity(32);
    let line = u64::from(cfg.l2_line);
    let tilings = tilings(p, cfg);
    // texture lines are powers of two (the presets' 32 B): a shift per lane
    let tl_shift = cfg.tex_line.max(1).trailing_zeros();
    let mut units: Vec<u64> = Vec::with_capacity(32);
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
    // the groups' banks: one per object (and one for the accesses of none) in a per-SM
    // cache, one per SM and object in the L2
    let banks = p.objects.len() + 1;
    for j in 0..n_acc {
        let ai = fast.map_or(j, |d| d.cached[j] as usize);
        let a = &p.accesses[ai];
        let bank = (a.obj as usize).min(banks - 1);
        let grp = |d: &Digest, kind: usize, l2_run: u32| Grp {
            id: if d.named[kind][ai] {
                ai as u32
            } else {
                NO_GROUP
            },
            prev: d.same[kind][ai],
            bank,
            l2_run,
            l2_bank: a.sm as usize * banks + bank,
        };
        // an access of an object left in its sample component keeps its own component
        // (an object accessed in several: `ObjInfo::place`); a moved one takes the target
        let (target, elem, sample, oi) = if a.obj == NO_OBJ || a.obj as usize >= placement.len() {
            (a.place, 4, a.place, usize::MAX)
        } else {
            let o = &p.objects[a.obj as usize];
            let t = placement[a.obj as usize];
            (
                if t == o.place { a.place } else { t },
                o.elem_bytes,
                a.place,
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
            let g = grp(d, SAME_UNITS, d.same[SAME_UNITS_L2][ai]);
            match target {
                Place::Global => {
                    ev.replays[0] += u64::from(d.rep[ai]);
                    l2_group(l2, frames, units, g, write, t, line, &mut ev);
                }
                Place::Tex1D | Place::Tex2D => {
                    let sm = a.sm as usize;
                    tex_lookups(
                        &mut tex[sm],
                        l2,
                        frames,
                        units,
                        g,
                        tl_shift,
                        t,
                        line,
                        &mut ev,
                    );
                }
                Place::Const => {
                    ev.replays[2] += u64::from(d.rep[ai]);
                    let (sm, cl) = (a.sm as usize, u64::from(cfg.const_line));
                    const_lookups(&mut cst[sm], l2, frames, units, g, cl, t, line, &mut ev);
                }
                Place::Shared => ev.replays[3] += u64::from(d.rep[ai]),
            }
            continue;
        }
        let write = a.kind != Kind::Load;
        let t = a.dyn_id as f64;
        if let Some(d) = dig.filter(|_| sample == Place::Shared && target == Place::Global) {
            // S→G from the digest: the block's slice at a line- and transaction-aligned
            // base asks for the digested lines shifted by it (the same lines, pages and
            // replays as the rewritten lanes below)
            let moved = &d.moved[d.moved0[ai] as usize..d.moved0[ai + 1] as usize];
            let base = new_base[oi] + u64::from(a.block) * p.objects[oi].bytes;
            let tr = u64::from(cfg.transaction);
            if !moved.is_empty() && base.is_multiple_of(line) && base.is_multiple_of(tr) {
                for &u in moved {
                    frames.touch(base + u64::from(u) * line);
                }
                ev.replays[0] += u64::from(d.moved_rep[ai]);
                for &u in moved {
                    l2_step(
                        l2,
                        frames,
                        base + u64::from(u) * line,
                        write,
                        t,
                        line,
                        &mut ev,
                    );
                }
                continue;
            }
        }
        // (an access reaching here moves, so it has an object)
        if let Some(d) = dig.filter(|_| {
            sample == Place::Global
                && matches!(target, Place::Tex1D | Place::Tex2D)
                && !p.objects[oi].written
        }) {
            // G→T / G→2T from the digest: the same lanes, pages and texture units
            for &ad in &d.pages[d.page0[ai] as usize..d.page0[ai + 1] as usize] {
                frames.touch(ad);
            }
            let (units, g) = if target == Place::Tex1D {
                (
                    &d.tex1[d.tex1_0[ai] as usize..d.tex1_0[ai + 1] as usize],
                    grp(d, SAME_TEX1, d.same[SAME_TEX1_L2][ai]),
                )
            } else {
                (
                    &d.tex2[d.tex2_0[ai] as usize..d.tex2_0[ai + 1] as usize],
                    grp(d, SAME_TEX2, d.same[SAME_TEX2_L2][ai]),
                )
            };
            let sm = a.sm as usize;
            tex_lookups(
                &mut tex[sm],
                l2,
                frames,
                units,
                g,
                tl_shift,
                t,
                line,
                &mut ev,
            );
            continue;
        }
        if let Some(d) = dig.filter(|d| {
            sample == Place::Global && target == Place::Const && d.const_rep[ai] != u32::MAX
        }) {
            // G→C from the digest: the same lanes' pages, replays and constant lines
            for &ad in &d.pages[d.page0[ai] as usize..d.page0[ai + 1] as usize] {
                frames.touch(ad);
            }
            ev.replays[2] += u64::from(d.const_rep[ai]);
            let units = &d.cunits[d.cunit0[ai] as usize..d.cunit0[ai + 1] as usize];
            let (sm, cl) = (a.sm as usize, u64::from(cfg.const_line));
            let g = grp(d, SAME_CONST, NO_GROUP);
            const_lookups(&mut cst[sm], l2, frames, units, g, cl, t, line, &mut ev);
            continue;
        }
        if let Some(d) = dig.filter(|d| {
            sample == Place::Global && target == Place::Shared && d.shared_rep[ai] != u32::MAX
        }) {
            // G→S from the digest: on chip, its bank conflicts only
            ev.replays[3] += u64::from(d.shared_rep[ai]);
            continue;
        }
        // rewritten lane addresses
        addrs.clear();
        for l in p.lanes_of(a) {
            let addr = if sample == Place::Shared && target.off_chip() {
                new_base[oi] + u64::from(a.block) * p.objects[oi].bytes + l.addr
                    - p.objects[oi].base
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
        match target {
            Place::Global => {
                ev.replays[0] += global_replays(&addrs, cfg, &mut keys);
                distinct(&addrs, line, &mut keys);
                l2_group(l2, frames, &keys, NO_GRP, write, t, line, &mut ev);
            }
            Place::Tex1D | Place::Tex2D => {
                let tiling = (target == Place::Tex2D && oi != usize::MAX).then(|| &tilings[oi]);
                units.clear();
                tex_units(&addrs, tiling, tl_shift, &mut keys, &mut units);
                let sm = a.sm as usize;
                tex_lookups(
                    &mut tex[sm],
                    l2,
                    frames,
                    &units,
                    NO_GRP,
                    tl_shift,
                    t,
                    line,
                    &mut ev,
                );
            }
            Place::Const => {
                keys.clear();
                let mut ascending = true;
                for &(ad, _) in &addrs {
                    push_distinct(&mut keys, ad, &mut ascending);
                }
                ev.replays[2] += (keys.len() as u64).saturating_sub(1);
                let cl = u64::from(cfg.const_line);
                distinct(&addrs, cl, &mut keys);
                let sm = a.sm as usize;
                const_lookups(
                    &mut cst[sm],
                    l2,
                    frames,
                    &keys,
                    NO_GRP,
                    cl,
                    t,
                    line,
                    &mut ev,
                );
            }
            Place::Shared => {
                ev.replays[3] += u64::from(bank_conflicts(&addrs, cfg.banks, cfg.bank_bytes));
            }
        }
    }
    ev
}

/// Replays of cause (1) of one global access (§3.2.4): by the bytes of all lanes under
/// the literal rule (no segment list built), by the distinct transaction-size segments
/// (listed in `keys`, a scratch buffer) under [`GlobalReplay::Segments`].
fn global_replays(addrs: &[(u64, u32)], cfg: &MemCfg, keys: &mut Vec<u64>) -> u64 {
    let tr = u64::from(cfg.transaction);
    match cfg.global_replay {
        GlobalReplay::Literal => {
            let bytes: u64 = addrs.iter().map(|x| u64::from(x.1)).sum();
            bytes.div_ceil(tr).saturating_sub(1)
        }
        GlobalReplay::Segments => {
            distinct(addrs, tr, keys);
            (keys.len() as u64).saturating_sub(1)
        }
    }
}

/// How one access's lookups name their groups ([`Cache::access_group`]): its own id,
/// the access whose list it repeats and its bank in the per-SM cache (the object), and
/// for the L2 the run its texture misses' lines belong to ([`Digest::same`]) and its bank
/// there (SM and object).
#[derive(Clone, Copy, Debug)]
struct Grp {
    id: u32,
    prev: u32,
    bank: usize,
    l2_run: u32,
    l2_bank: usize,
}

/// No group: a pass over rewritten lanes.
const NO_GRP: Grp = Grp {
    id: NO_GROUP,
    prev: NO_GROUP,
    bank: 0,
    l2_run: NO_GROUP,
    l2_bank: 0,
};

/// The texture-cache lookups of one access (its units: first-lane addresses, see
/// [`tex_units`]); a miss reads the unit's L2 line. The L2 reads follow the texture
/// lookups (the same L2 lookups in the same order: the two caches are apart); when every
/// unit missed, they are the run `g.l2_run`'s group of lines.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tex_lookups(
    tex: &mut Cache,
    l2: &mut Cache,
    frames: &mut Frames,
    units: &[u64],
    g: Grp,
    tl_shift: u32,
    t: f64,
    line: u64,
    ev: &mut Events,
) {
    ev.tex_access += units.len() as u64;
    if units.len() > GROUP_KEYS {
        tex.access_group(units, tl_shift, false, g.id, g.prev, g.bank, |i, _| {
            ev.tex_miss += 1;
            l2_step(l2, frames, units[i], false, t, line, ev);
        });
        return;
    }
    let mut missed = [0u8; GROUP_KEYS];
    let mut n = 0;
    tex.access_group(units, tl_shift, false, g.id, g.prev, g.bank, |i, _| {
        missed[n] = i as u8;
        n += 1;
    });
    ev.tex_miss += n as u64;
    if n == units.len() && g.l2_run != NO_GROUP {
        ev.l2_access += n as u64;
        let (run, shift) = (g.l2_run, line.trailing_zeros());
        l2.access_group(
            units,
            shift,
            false,
            run,
            run,
            g.l2_bank,
            |i, evicted_dirty| {
                l2_miss(frames, units[i], evicted_dirty, false, t, line, ev);
            },
        );
    } else {
        for &i in &missed[..n] {
            l2_step(l2, frames, units[i as usize], false, t, line, ev);
        }
    }
}

/// The constant-cache lookups of one access (its distinct lines, as indices of
/// `const_line`-byte lines); a miss is a replay of cause (2) and reads the L2.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn const_lookups(
    cst: &mut Cache,
    l2: &mut Cache,
    frames: &mut Frames,
    lines: &[u64],
    g: Grp,
    const_line: u64,
    t: f64,
    line: u64,
    ev: &mut Events,
) {
    // the constant cache's lines are `const_line` bytes: a line index is its key
    debug_assert_eq!(cst.line_bytes(), const_line);
    ev.const_access += lines.len() as u64;
    cst.access_group(lines, 0, false, g.id, g.prev, g.bank, |i, _| {
        ev.const_miss += 1;
        ev.replays[1] += 1;
        l2_step(l2, frames, lines[i] * const_line, false, t, line, ev);
    });
}

/// One L2 access of the pass: a miss of a load reads its line from DRAM, a miss that
/// evicts a dirty line writes it back (write-validate: a store miss reads nothing).
#[inline(always)]
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
        l2_miss(frames, addr, evicted_dirty, write, t, line, ev);
    }
}

/// The L2 lookups of one global access's distinct lines (`keys`: line indices), in
/// order, as group `g.id` of bank `g.l2_bank` repeating `g.prev`
/// ([`Cache::access_group`]): the same events as [`l2_step`] on each.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn l2_group(
    l2: &mut Cache,
    frames: &mut Frames,
    keys: &[u64],
    g: Grp,
    write: bool,
    t: f64,
    line: u64,
    ev: &mut Events,
) {
    ev.l2_access += keys.len() as u64;
    l2.access_group(
        keys,
        0,
        write,
        g.id,
        g.prev,
        g.l2_bank,
        |i, evicted_dirty| {
            l2_miss(frames, keys[i] * line, evicted_dirty, write, t, line, ev);
        },
    );
}

/// What an L2 miss of `addr` sends to DRAM: the dirty victim's write-back, and for a
/// load the line's read (write-validate: a store miss reads nothing).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn l2_miss(
    frames: &mut Frames,
    addr: u64,
    evicted_dirty: Option<u64>,
    write: bool,
    t: f64,
    line: u64,
    ev: &mut Events,
) {
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

/// First-touch frame allocation ([`MemCfg::first_touch_page`]): page -> frame in the order
/// pages are first touched. The pages looked up last are remembered in a small
/// direct-mapped table ([`RECENT`] entries by page number; a warp's lanes mostly share a
/// page, or a few pages its next accesses share again), so the map is consulted about once
/// per new page. A page's frame never changes once given, so the table is only a copy.
#[derive(Clone, Debug)]
struct Frames {
    shift: u32,
    map: std::collections::HashMap<u64, u64, PageHash>,
    recent: [(u64, u64); RECENT],
}

/// Entries of [`Frames::recent`].
const RECENT: usize = 16;

impl Frames {
    fn new(page: u64) -> Frames {
        Frames {
            shift: if page > 1 { page.trailing_zeros() } else { 0 },
            map: std::collections::HashMap::default(),
            recent: [(u64::MAX, 0); RECENT],
        }
    }
    fn touch(&mut self, addr: u64) -> u64 {
        if self.shift == 0 {
            return 0;
        }
        let vpn = addr >> self.shift;
        let r = &mut self.recent[vpn as usize % RECENT];
        if r.0 != vpn {
            let next = self.map.len() as u64;
            *r = (vpn, *self.map.entry(vpn).or_insert(next));
        }
        r.1
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
/// profile's own pages); SipHash cost more than the frame lookup it serves. Kept apart
/// from `dram::BankHash` on purpose: with that one here sort reorderData's prediction took
/// 2.09-2.17 ms against 2.01-2.03 (session 21, 5 interleaved runs each).
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

/// Block-linear layout of one object as a 2-D texture (spec §2.2 "2T uses tiled
/// (block-linear) layout", §7 #20): the array as rows of `row_elems` elements (else the
/// square-ish power-of-two width), cut into tiles of one texture line (`tile_bytes`)
/// each, `w x h` elements with `w` the larger power of two, tiles row-major. A tile is
/// contiguous in memory, so a texture-line miss fetches the L2 line at this address: the
/// data a 2-D neighbourhood shares, not the first lane's linear address. The geometry
/// is computed once per object and pass ([`Tiling::new`]); [`Tiling::addr`] maps a lane.
#[derive(Clone, Copy, Debug)]
struct Tiling {
    base: u64,
    end: u64,
    e: Div,
    width: Div,
    per_tile: u64,
    tw: Div,
    th: Div,
    tiles_per_row: u64,
}

/// The texture units of one access (spec §3.6 step 4: one texture-cache lookup per
/// distinct line): for each distinct texture line of the lanes' first bytes (their
/// block-linear addresses with `tiling`, a 2-D texture), in first-touch order, the
/// address of the first lane in it (appended to `out`; its L2 line is the one a miss
/// reads). `keys` is scratch.
fn tex_units(
    addrs: &[(u64, u32)],
    tiling: Option<&Tiling>,
    tl_shift: u32,
    keys: &mut Vec<u64>,
    out: &mut Vec<u64>,
) {
    keys.clear();
    let mut ascending = true;
    for &(ad, _) in addrs {
        let ad = tiling.map_or(ad, |t| t.addr(ad));
        let n0 = keys.len();
        push_distinct(keys, ad >> tl_shift, &mut ascending);
        if keys.len() > n0 {
            out.push(ad);
        }
    }
}

/// The SMs `p`'s accesses run on: the largest SM index + 1 (1 without accesses).
fn sms_of(p: &Profile) -> usize {
    p.accesses
        .iter()
        .map(|a| a.sm as usize + 1)
        .max()
        .unwrap_or(1)
}

/// The largest array whose G→C move the digest prepares: CUDA's 64 KiB of constant
/// memory (a larger one cannot be placed there on any preset; were it placed, the plain
/// pass would serve it, with the same events).
const CONST_DIGEST_MAX: u64 = 64 << 10;

/// The largest array whose G→S move the digest prepares: the most shared memory a block
/// of the presets has (larger ones are refused; any would take the plain pass).
const SHARED_DIGEST_MAX: u64 = 228 << 10;

/// Every object's 2-D texture layout at `cfg`'s texture line.
fn tilings(p: &Profile, cfg: &MemCfg) -> Vec<Tiling> {
    p.objects
        .iter()
        .map(|o| Tiling::new(o, u64::from(cfg.tex_line)))
        .collect()
}

/// A divisor, by a shift when it is a power of two (the common element sizes, widths and
/// tile sides), else by division.
#[derive(Clone, Copy, Debug)]
struct Div {
    d: u64,
    shift: Option<u32>,
}

impl Div {
    fn new(d: u64) -> Div {
        let d = d.max(1);
        Div {
            d,
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }
    /// `(a / d, a % d)`.
    #[inline]
    fn div_rem(self, a: u64) -> (u64, u64) {
        match self.shift {
            Some(s) => (a >> s, a & (self.d - 1)),
            None => (a / self.d, a % self.d),
        }
    }
}

impl Tiling {
    fn new(o: &crate::profile::ObjInfo, tile_bytes: u64) -> Tiling {
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
        Tiling {
            base: o.base,
            end: o.base + o.bytes,
            e: Div::new(e),
            width: Div::new(width),
            per_tile,
            tw: Div::new(tw),
            th: Div::new(th),
            tiles_per_row: width.div_ceil(tw),
        }
    }

    /// Block-linear address of the element at `addr`.
    #[inline]
    fn addr(&self, addr: u64) -> u64 {
        let (i, _) = self.e.div_rem(addr.saturating_sub(self.base));
        let (y, x) = self.width.div_rem(i);
        let ((ty, ry), (tx, rx)) = (self.th.div_rem(y), self.tw.div_rem(x));
        let tile = ty * self.tiles_per_row + tx;
        let t = self.base + (tile * self.per_tile + ry * self.tw.d + rx) * self.e.d;
        // the last tile row may be padded past the object: keep the linear address there
        if t < self.end {
            t
        } else {
            addr
        }
    }
}

/// Replays of one shared access (cause (4), §3.2.4 precise rule): the most distinct
/// words any bank is asked for, minus one; lanes reading the same word broadcast. At most
/// 128 distinct words are counted (four per lane of 16 bytes). Each bank keeps the first
/// word it is asked for, so a conflict-free or broadcast access is one comparison per
/// word; only a bank's further words are searched for among the other banks' extras.
pub fn bank_conflicts(addrs: &[(u64, u32)], banks: u32, bank_bytes: u32) -> u32 {
    const NONE: u64 = u64::MAX;
    let mut first = [NONE; 64];
    let mut per_bank = [0u32; 64];
    let mut extra = [0u64; 128];
    let (mut n_extra, mut n) = (0usize, 0usize);
    let nb = u64::from(banks.clamp(1, 64));
    let bw = u64::from(bank_bytes.max(1));
    let mut worst = 0;
    for &(a, b) in addrs {
        for w in (a / bw)..=((a + u64::from(b.max(1)) - 1) / bw) {
            if n == 128 {
                break;
            }
            let k = (w % nb) as usize;
            if first[k] == w {
                continue;
            }
            if first[k] == NONE {
                first[k] = w;
            } else if extra[..n_extra].contains(&w) {
                continue;
            } else {
                extra[n_extra] = w;
                n_extra += 1;
            }
            n += 1;
            per_bank[k] += 1;
            worst = worst.max(per_bank[k]);
        }
    }
    worst.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What makes repeated lists cheap, on one object's accesses on one SM (another
    /// object's and another SM's between them): a repeat names the access before it
    /// only when the lists are equal line for line; a run's accesses name its first
    /// access, a run of one names none; an access is named later only if some access
    /// names it. Fails if a change in the list, in the object or in the SM were ignored,
    /// or if runs of one kept a name (each a group recorded for nothing).
    #[test]
    fn repeats_runs_and_names() {
        let a = |obj: u16, sm: u16| crate::profile::Access {
            dyn_id: 0,
            sm,
            block: 0,
            obj,
            kind: Kind::Load,
            place: Place::Global,
            lane0: 0,
            nlanes: 32,
        };
        let p = Profile {
            accesses: vec![
                a(0, 0),
                a(0, 0),
                a(1, 0),
                a(0, 1),
                a(0, 0),
                a(0, 0),
                a(0, 0),
            ],
            ..Profile::default()
        };
        // lists (units >> 4): L, L (= L line for line), L of object 1, L on SM 1, M, M, N
        let lists: [&[u64]; 7] = [
            &[16, 32],
            &[17, 33],
            &[16, 32],
            &[16, 32],
            &[48, 64],
            &[48, 64],
            &[80, 96],
        ];
        let mut start = vec![0u32];
        let mut list = Vec::new();
        for l in lists {
            list.extend_from_slice(l);
            start.push(list.len() as u32);
        }
        let n = NO_GROUP;
        let same = same_as_before(&p, &start, &list, |_| 4, false);
        assert_eq!(same, [n, 0, n, n, n, 4, n]);
        assert_eq!(
            named_later(&same),
            [true, false, false, false, true, false, false]
        );
        let runs = same_as_before(&p, &start, &list, |_| 4, true);
        assert_eq!(runs, [0, 0, n, n, 4, 4, n]);
        // by address (shift 0) the first two differ
        assert_eq!(same_as_before(&p, &start, &list, |_| 0, false)[1], n);
    }

    fn lanes(f: impl Fn(u64) -> u64) -> Vec<(u64, u32)> {
        (0..32).map(|i| (f(i), 4)).collect()
    }

    /// Hand-derived bank conflicts (32 banks x 4 B): unit stride none; stride 2 two-way;
    /// stride 32 words 32-way; all lanes one word broadcast; stride 33 none (odd stride).
    /// Bank conflicts as first written (one list of distinct words, searched for every
    /// word), the reference of [`bank_conflicts`].
    fn bank_conflicts_ref(addrs: &[(u64, u32)], banks: u32, bank_bytes: u32) -> u32 {
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

    /// The per-bank search counts what the one-list search counts on random accesses of
    /// 1 to 32 lanes, 1- to 64-byte lanes (past the 128-word cap), strides that conflict
    /// and broadcasts, for 32, 16 and 7 banks. Fails if a bank's repeated word were
    /// counted twice or a word of another bank's extras were missed.
    #[test]
    fn bank_conflicts_match_the_one_list_search() {
        let mut x = 7u64;
        let mut rnd = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for _ in 0..20_000 {
            let lanes = 1 + rnd() % 32;
            let bytes = [1u32, 2, 4, 8, 16, 64][(rnd() % 6) as usize];
            let stride = [0u64, 4, 8, 64, 128, 132, 3][(rnd() % 7) as usize];
            let span = 1 + rnd() % 512;
            let random = rnd() % 3 == 0;
            let addrs: Vec<(u64, u32)> = (0..lanes)
                .map(|i| {
                    let a = if random { rnd() % span * 4 } else { i * stride };
                    (a, bytes)
                })
                .collect();
            for banks in [32u32, 16, 7] {
                assert_eq!(
                    bank_conflicts(&addrs, banks, 4),
                    bank_conflicts_ref(&addrs, banks, 4),
                    "{addrs:?} {banks}"
                );
            }
        }
    }

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

    /// Frames are given in first-touch order whatever the recent-page table holds: against
    /// a plain map on a random stream of pages that collide in the table (page numbers 16
    /// apart) and repeat, every `touch` and `phys` returns the reference frame. Fails if a
    /// stale table entry answered for another page.
    #[test]
    fn frames_are_first_touch_order() {
        let mut f = Frames::new(4096);
        let mut want: std::collections::HashMap<u64, u64> = Default::default();
        let mut x = 3u64;
        for _ in 0..50_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let vpn = (x >> 40) % 40 * 16 + (x >> 20) % 3;
            let addr = (vpn << 12) | (x & 0xFFF);
            let n = want.len() as u64;
            let frame = *want.entry(vpn).or_insert(n);
            if x & 1 == 0 {
                assert_eq!(f.touch(addr), frame);
            } else {
                assert_eq!(f.phys(addr), (frame << 12) | (addr & 0xFFF));
            }
        }
        assert_eq!(Frames::new(0).phys(12345), 12345);
    }

    /// The block-linear address of `addr` by plain division and remainder on `t`'s
    /// geometry (as the per-lane formula first computed it), the reference of
    /// [`Tiling::addr`]'s shifts.
    fn tiled_ref(t: &Tiling, addr: u64) -> u64 {
        let (e, width, tw, th) = (t.e.d, t.width.d, t.tw.d, t.th.d);
        let i = addr.saturating_sub(t.base) / e;
        let (x, y) = (i % width, i / width);
        let tile = (y / th) * width.div_ceil(tw) + x / tw;
        let a = t.base + (tile * t.per_tile + (y % th) * tw + x % tw) * e;
        if a < t.end {
            a
        } else {
            addr
        }
    }

    /// The per-object tiling (shifts for powers of two) maps every element of objects of
    /// power-of-two and other element sizes, widths and tiles as plain division does.
    /// Fails if a quotient and a remainder were swapped or a shift was off by one.
    #[test]
    fn tiling_matches_plain_division() {
        for (elem, row_elems, bytes) in [
            (4u32, 0u64, 1u64 << 16),
            (8, 0, 40_000),
            (12, 0, 12 * 999),
            (4, 100, 4 * 100 * 37),
            (4, 64, 4 * 64 * 64),
            (2, 333, 2 * 333 * 10),
            (16, 7, 16 * 7 * 50),
        ] {
            let o = crate::profile::ObjInfo {
                name: "x".into(),
                base: 1 << 20,
                bytes,
                elem_bytes: elem,
                written: false,
                place: Place::Tex2D,
                row_elems,
                accesses: 1,
            };
            for tile in [128u64, 96, 32] {
                let t = Tiling::new(&o, tile);
                for a in (o.base - 8..o.base + bytes + 64).step_by(elem as usize) {
                    assert_eq!(
                        t.addr(a),
                        tiled_ref(&t, a),
                        "{elem} {row_elems} {bytes} {tile} {a}"
                    );
                }
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
