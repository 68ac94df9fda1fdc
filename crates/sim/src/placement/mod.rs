//! Page placement: which physical frame, and so which node, backs each virtual page.
//!
//! Pages are mapped lazily, at their first access, by the configured policy (one file each):
//! - [`PlacementPolicy::Fgp`]: every page fine-grain striped over all nodes (CODA FGP-Only);
//! - [`PlacementPolicy::Cgp`]: whole pages, node = VPN mod N (CODA CGP-Only, spec A17);
//! - [`PlacementPolicy::FirstTouch`]: whole page on the first toucher's node (CODA's ideal
//!   CGP-Only + FTA, spec A15; also MCM-GPU / NUBA first touch);
//! - [`PlacementPolicy::Coda`]: per data object, FGP or CGP chunks aligned with the affinity
//!   schedule, decided by [`coda`] before the first kernel that uses the object;
//! - [`PlacementPolicy::RoundRobin`]: whole pages round-robin in allocation order
//!   ([`round_robin`], NUBA's RR);
//! - [`PlacementPolicy::Chunked`]: each object in N contiguous chunks ([`chunked`]);
//! - [`PlacementPolicy::MgpusimUnified`]: whole pages round-robin in allocation order as
//!   MGPUSim's unified multi-GPU driver places them ([`mgpusim`], REC's simulator);
//! - [`PlacementPolicy::Random`]: a seeded random node per page ([`random`], NDP);
//! - [`PlacementPolicy::Lab`]: NUBA's Local-And-Balanced placement ([`lab`]): first touch
//!   while the pages are balanced, least-first otherwise (allocation-order dependent).
//!
//! [`griffin`] and [`carrefour`] hold the decisions of NUBA §7.9's alternatives to LAB,
//! Griffin-style page migration (per-interval access counts) and Carrefour-style page
//! replication (read-only pages, while memory is free). Griffin runs beside any policy
//! with `placement.migration = "griffin"` (the system counts accesses at translation and
//! acts on its decisions at timer epochs); Carrefour runs with
//! `placement.migration = "carrefour"`: the page table then keeps, beside each page's
//! home frame, per-partition replica frames ([`Replicas`]: a replica bitmask per page and
//! a frame table, O(1) per lookup) that serve reads from the partitions holding them.
//!
//! Static policies give the same answer whenever the page is first touched, so lazy mapping
//! equals allocation-time placement while keeping the page table as small as the footprint.

pub mod carrefour;
pub mod chunked;
pub mod coda;
pub mod frames;
pub mod griffin;
pub mod lab;
pub mod mgpusim;
pub mod random;
pub mod round_robin;

use crate::config::{Config, PlacementPolicy};
use crate::mapping::Mode;
use frames::Frames;
use locus_workload::{DataObject, ObjId, NO_OBJ};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// A page-table entry: frame number and granularity bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pte {
    pub ppn: u64,
    pub mode: Mode,
}

/// Placement of one data object decided by CODA (spec §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum ObjPlacement {
    /// Fine-grain striped (shared, irregular, small or unknown data).
    Fgp,
    /// Coarse pages: page at offset `o` goes to node `((o + round) / span) mod N`, `o`
    /// measured from the object's end when its blocks walk it downwards (a negative
    /// runtime-constant stride, spec §3.4: NW's anti-diagonal tiles).
    Cgp {
        span: u64,
        round: u64,
        from_end: bool,
    },
}

/// Placement counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlacementStats {
    pub pages_mapped: u64,
    pub pages_fgp: u64,
    pub pages_cgp: u64,
    /// Pages that could not get a frame (simulated memory exhausted).
    pub pages_oom: u64,
    /// CODA: objects fixed fine-grained at their first page's mapping because the kernel
    /// that touched them first did not touch them in a sampled block (spec A11;
    /// [`coda::Reason::NotSampled`]).
    pub coda_unsampled_objects: u64,
    pub frames: frames::FrameStats,
    /// Carrefour's page replicas (`placement.migration = "carrefour"` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<ReplicaStats>,
    /// Frames freed while mapped pages could have lines of them cached (a Carrefour
    /// collapse's replica frames, the old frame of a Griffin move; NUBA §7.9) and whose
    /// lines were then dropped from every L1 and LLC slice (`System::drop_frame_lines`).
    pub freed_frames_flushed: u64,
    /// Cached copies (L1 and LLC lines) those flushes dropped, and the dirty ones among
    /// them (each written back to the old frame first, counted in the L2 write-backs).
    pub freed_lines_dropped: u64,
    pub freed_dirty_dropped: u64,
    /// LAB's pages placed in the requester's partition because NPB was above the
    /// threshold, and those placed least-first (NUBA §4.3; policy `lab` only).
    pub lab_first_touch: u64,
    pub lab_least_first: u64,
}

/// Carrefour's replica counters (NUBA §7.9).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct ReplicaStats {
    /// Replica frames made, and the most held at once.
    pub made: u64,
    pub peak_frames: u64,
    /// Replica frames held at the end.
    pub frames_now: u64,
    /// Replicas refused: their partition had no coarse frame left.
    pub refused_no_frame: u64,
    /// Pages whose replicas a write collapsed, and the replica frames dropped.
    pub collapses: u64,
    pub dropped: u64,
    /// Reads served by a replica (at the reader's own partition).
    pub replica_reads: u64,
    /// Reads served by a replica of a page already written (stale data): must stay 0.
    pub stale_reads: u64,
    /// Page bytes copied to make replicas (headers excluded).
    pub copied_bytes: u64,
}

/// Per-partition page replicas (Carrefour, NUBA §7.9): for each replicated page a bitmask
/// of the partitions holding a replica and a row of `nodes` frame slots (frame number and
/// the time its copy lands); rows are reused, so a lookup allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Replicas {
    nodes: usize,
    /// vpn -> row.
    rows: FxHashMap<u64, u32>,
    /// Per row: bitmask of partitions with a replica (bit n = partition n).
    mask: Vec<u64>,
    /// Per row and partition: (ppn, copy landing time in ps).
    frames: Vec<(u64, u64)>,
    spare: Vec<u32>,
    pub stats: ReplicaStats,
}

impl Replicas {
    fn new(nodes: u32) -> Replicas {
        Replicas {
            nodes: nodes as usize,
            ..Replicas::default()
        }
    }

    /// The replica of `vpn` on `node`: (ppn, landing time).
    #[inline]
    pub fn get(&self, vpn: u64, node: u32) -> Option<(u64, u64)> {
        let &r = self.rows.get(&vpn)?;
        (self.mask[r as usize] >> node & 1 == 1)
            .then(|| self.frames[r as usize * self.nodes + node as usize])
    }

    /// Partitions holding a replica of `vpn` (bitmask; 0 = none).
    pub fn mask(&self, vpn: u64) -> u64 {
        self.rows.get(&vpn).map_or(0, |&r| self.mask[r as usize])
    }
}

/// The page table plus the policy that fills it.
pub struct Placement {
    pub policy: PlacementPolicy,
    pin: u32,
    seed: u64,
    page_shift: u32,
    nodes: u32,
    /// SMs of each node when they differ (empty on identical nodes): CODA Eq. 3 then
    /// skips SM-less nodes and weights the others by SM count ([`coda::eq3_node_weighted`]).
    node_sms: Vec<u32>,
    /// Nodes the `random` policy draws from (`placement.random_nodes`; empty = all).
    random_nodes: Vec<u32>,
    table: FxHashMap<u64, Pte>,
    frames: Frames,
    objects: Vec<DataObject>,
    decisions: Vec<Option<ObjPlacement>>,
    /// Objects CODA fixed fine-grained at their first page's mapping because the kernel
    /// that touched them first left them undecided (none of its sampled blocks touched
    /// them), in the order they were touched; [`Placement::take_unsampled`] drains it.
    unsampled: Vec<ObjId>,
    /// `placement.defer_unsampled` (or `defer_whole_object`, whose deferred objects are
    /// undecided at their first touch too): leave such objects to a later kernel instead.
    defer_unsampled: bool,
    /// LAB's page counts (policy `lab` only).
    lab: Option<lab::Lab>,
    /// Carrefour's replicas (`placement.migration = "carrefour"` only).
    replicas: Option<Replicas>,
    pub stats: PlacementStats,
}

impl Placement {
    pub fn new(cfg: &Config) -> Self {
        let groups = cfg.memory.bytes_per_node / cfg.system.page_bytes;
        Placement {
            policy: cfg.placement.policy,
            pin: cfg.placement.node,
            seed: cfg.placement.seed,
            page_shift: cfg.system.page_bytes.trailing_zeros(),
            nodes: cfg.system.nodes,
            node_sms: {
                let sms = cfg.sms_of_nodes();
                // identical nodes: Eq. 3 as printed (the fast path); otherwise weighted
                if sms.windows(2).all(|w| w[0] == w[1]) {
                    Vec::new()
                } else {
                    sms
                }
            },
            random_nodes: cfg.placement.random_nodes.clone(),
            table: FxHashMap::default(),
            frames: Frames::new(cfg.system.nodes, groups),
            objects: Vec::new(),
            decisions: Vec::new(),
            unsampled: Vec::new(),
            // an object `defer_whole_object` left undecided must wait for a later kernel
            // too, not be fixed at the first touch of the kernel that deferred it
            defer_unsampled: cfg.placement.defer_unsampled || cfg.placement.defer_whole_object,
            lab: (cfg.placement.policy == PlacementPolicy::Lab)
                .then(|| lab::Lab::new(cfg.system.nodes, groups, cfg.placement.lab_threshold)),
            replicas: (cfg.placement.migration == crate::config::MigrationKind::Carrefour)
                .then(|| Replicas::new(cfg.system.nodes)),
            stats: PlacementStats::default(),
        }
    }

    /// Tell the placement which data objects exist (sorted by base address).
    pub fn set_objects(&mut self, objs: &[DataObject]) {
        self.objects = objs.to_vec();
        self.decisions = vec![None; objs.len()];
    }

    /// CODA decision for object `o`, if any.
    pub fn decision(&self, o: ObjId) -> Option<ObjPlacement> {
        self.decisions.get(o as usize).copied().flatten()
    }

    /// Record a CODA decision (only before the object's first page is mapped matters).
    pub fn decide(&mut self, o: ObjId, d: ObjPlacement) {
        if let Some(slot) = self.decisions.get_mut(o as usize) {
            if slot.is_none() {
                *slot = Some(d);
            }
        }
    }

    /// The objects CODA fixed fine-grained at their first page's mapping (in
    /// [`Placement::translate`]) since the last call, for the report's decision list.
    pub fn take_unsampled(&mut self) -> Vec<ObjId> {
        std::mem::take(&mut self.unsampled)
    }

    /// The objects fixed fine-grained at first touch and not yet taken.
    pub fn unsampled(&self) -> &[ObjId] {
        &self.unsampled
    }

    /// Page size in bytes.
    pub fn page_bytes(&self) -> u64 {
        1 << self.page_shift
    }

    /// Translate `va` (in object `obj`, first touched by a warp on `toucher`): the physical
    /// address and the page's granularity bit. Maps the page on first touch.
    #[inline]
    pub fn translate(&mut self, va: u64, obj: ObjId, toucher: u32) -> (u64, Mode) {
        let vpn = va >> self.page_shift;
        let off = va & ((1 << self.page_shift) - 1);
        let pte = match self.table.get(&vpn) {
            Some(p) => *p,
            None => self.map_page(vpn, obj, toucher),
        };
        ((pte.ppn << self.page_shift) | off, pte.mode)
    }

    /// The PTE of `vpn` if mapped.
    pub fn lookup(&self, vpn: u64) -> Option<Pte> {
        self.table.get(&vpn).copied()
    }

    /// Node of page `vpn` under the `random` policy: uniform over `random_nodes` (or all).
    fn random_node(&self, vpn: u64) -> u32 {
        if self.random_nodes.is_empty() {
            random::node(vpn, self.seed, self.nodes)
        } else {
            let k = random::node(vpn, self.seed, self.random_nodes.len() as u32);
            self.random_nodes[k as usize]
        }
    }

    fn want(&self, vpn: u64, obj: ObjId, toucher: u32) -> (Mode, u32) {
        let n = self.nodes as u64;
        match self.policy {
            PlacementPolicy::Fgp => (Mode::Fgp, 0),
            PlacementPolicy::Cgp => (Mode::Cgp, (vpn % n) as u32),
            PlacementPolicy::FirstTouch => (Mode::Cgp, toucher),
            // migration-based first touch (spec A16): the page starts fine-grained, where
            // the baseline puts it; the first GPU touch then moves it ([`Placement::migrate`])
            PlacementPolicy::Migrate => (Mode::Fgp, 0),
            PlacementPolicy::Node => (Mode::Cgp, self.pin),
            PlacementPolicy::RoundRobin => (
                Mode::Cgp,
                round_robin::node(self.stats.pages_mapped, self.nodes),
            ),
            PlacementPolicy::Random => (Mode::Cgp, self.random_node(vpn)),
            PlacementPolicy::MgpusimUnified => {
                // allocation index: pages counted from the first object's first page
                let first = self
                    .objects
                    .first()
                    .map_or(0, |o| o.base >> self.page_shift);
                (
                    Mode::Cgp,
                    mgpusim::node(vpn.wrapping_sub(first), self.nodes),
                )
            }
            // decided in `map_page` (LAB keeps state)
            PlacementPolicy::Lab => (Mode::Cgp, toucher),
            PlacementPolicy::Chunked => {
                let page = 1u64 << self.page_shift;
                match (obj != NO_OBJ)
                    .then(|| self.objects.get(obj as usize))
                    .flatten()
                {
                    Some(o) => {
                        let rel = (vpn << self.page_shift).max(o.base) - o.base;
                        (Mode::Cgp, chunked::node(rel, o.bytes, page, self.nodes))
                    }
                    None => (Mode::Cgp, (vpn % n) as u32),
                }
            }
            PlacementPolicy::Coda => {
                let Some(o) = (obj != NO_OBJ)
                    .then(|| self.objects.get(obj as usize))
                    .flatten()
                else {
                    return (Mode::Fgp, 0);
                };
                match self.decisions[obj as usize] {
                    Some(ObjPlacement::Cgp {
                        span,
                        round,
                        from_end,
                    }) => {
                        let rel = if from_end {
                            let end = o.base + o.bytes;
                            end.saturating_sub(((vpn + 1) << self.page_shift).min(end))
                        } else {
                            (vpn << self.page_shift).max(o.base) - o.base
                        };
                        let node = if self.node_sms.is_empty() {
                            coda::eq3_node(rel + round, span, self.nodes)
                        } else {
                            coda::eq3_node_weighted(rel + round, span, &self.node_sms)
                        };
                        (Mode::Cgp, node)
                    }
                    _ => (Mode::Fgp, 0),
                }
            }
        }
    }

    /// Map page `vpn` of `obj` on its first touch by node `toucher`. Under CODA an object
    /// still undecided here is touched by a kernel whose analysis did not see it (no
    /// sampled block touched it, or the grid was too small to sample): the first kernel
    /// that accesses an object decides it and it is never re-placed (coda.md A11), so it
    /// is fixed fine-grained now, as an object with no stride seen is, rather than left to
    /// a later kernel's analysis, which would place its remaining pages differently
    /// (option `placement.defer_unsampled`, not the paper's rule).
    fn map_page(&mut self, vpn: u64, obj: ObjId, toucher: u32) -> Pte {
        if self.policy == PlacementPolicy::Coda && !self.defer_unsampled {
            if let Some(slot @ None) = self.decisions.get_mut(obj as usize) {
                *slot = Some(ObjPlacement::Fgp);
                self.unsampled.push(obj);
                self.stats.coda_unsampled_objects += 1;
            }
        }
        let (mode, mut node) = self.want(vpn, obj, toucher);
        if let Some(l) = &mut self.lab {
            node = l.place(toucher);
        }
        let pte = match self.frames.alloc(mode, node) {
            Some((ppn, m)) => Pte { ppn, mode: m },
            None => {
                self.stats.pages_oom += 1;
                Pte {
                    ppn: vpn,
                    mode: Mode::Fgp,
                }
            }
        };
        self.stats.pages_mapped += 1;
        match pte.mode {
            Mode::Fgp => self.stats.pages_fgp += 1,
            Mode::Cgp => self.stats.pages_cgp += 1,
        }
        self.table.insert(vpn, pte);
        pte
    }

    /// Move page `vpn` to a CGP frame on `node` (migration); returns the old PTE.
    pub fn migrate(&mut self, vpn: u64, node: u32) -> Option<Pte> {
        let old = *self.table.get(&vpn)?;
        let (ppn, mode) = self.frames.alloc(crate::mapping::Mode::Cgp, node)?;
        self.frames.free(old.ppn);
        self.table.insert(vpn, Pte { ppn, mode });
        if old.mode == Mode::Fgp && mode == Mode::Cgp {
            self.stats.pages_fgp -= 1;
            self.stats.pages_cgp += 1;
        }
        Some(old)
    }

    /// Fraction of partition `node`'s memory frames free now ([`Frames::free_fraction`]).
    pub fn free_fraction(&self, node: u32) -> f64 {
        self.frames.free_fraction(node)
    }

    /// Carrefour's replicas, when on.
    #[inline]
    pub fn replicas(&self) -> Option<&Replicas> {
        self.replicas.as_ref()
    }

    /// The frame that serves a read of `vpn` from partition `node` at time `now` (ps): its
    /// replica there once the replica's copy has landed, else `None` (the home frame).
    /// `written`: the page has been written (a replica serving it is stale, counted).
    #[inline]
    pub fn replica_for_read(
        &mut self,
        vpn: u64,
        node: u32,
        now: u64,
        written: bool,
    ) -> Option<u64> {
        let r = self.replicas.as_mut()?;
        match r.get(vpn, node) {
            Some((ppn, ready)) if ready <= now => {
                r.stats.replica_reads += 1;
                r.stats.stale_reads += written as u64;
                Some(ppn)
            }
            _ => None,
        }
    }

    /// Make a replica of mapped page `vpn` on partition `node` whose copy lands at `ready`
    /// (ps): a coarse frame on `node` is taken (it counts against the partition's memory).
    /// Returns its frame, or `None` when replication is off, the page is unmapped, the
    /// replica exists, or `node` has no coarse frame left (counted as refused).
    pub fn add_replica(&mut self, vpn: u64, node: u32, ready: u64) -> Option<u64> {
        self.table.get(&vpn)?;
        let r = self.replicas.as_mut()?;
        if r.get(vpn, node).is_some() || node as usize >= r.nodes.min(64) {
            return None;
        }
        let ppn = match self.frames.alloc(Mode::Cgp, node) {
            Some((ppn, Mode::Cgp)) => ppn,
            Some((ppn, Mode::Fgp)) => {
                // a fine-grained frame is striped over every node: not a local copy
                self.frames.free(ppn);
                r.stats.refused_no_frame += 1;
                return None;
            }
            None => {
                r.stats.refused_no_frame += 1;
                return None;
            }
        };
        let n = r.nodes;
        let row = match r.rows.get(&vpn) {
            Some(&row) => row,
            None => {
                let row = match r.spare.pop() {
                    Some(row) => row,
                    None => {
                        r.mask.push(0);
                        r.frames.extend(std::iter::repeat_n((0, 0), n));
                        (r.mask.len() - 1) as u32
                    }
                };
                r.rows.insert(vpn, row);
                row
            }
        };
        r.mask[row as usize] |= 1 << node;
        r.frames[row as usize * n + node as usize] = (ppn, ready);
        r.stats.made += 1;
        r.stats.frames_now += 1;
        r.stats.peak_frames = r.stats.peak_frames.max(r.stats.frames_now);
        r.stats.copied_bytes += 1 << self.page_shift;
        Some(ppn)
    }

    /// Collapse page `vpn`'s replicas (a write to it, Carrefour): every replica frame is
    /// freed (appended to `freed`, so the caller can drop their cached lines) and reads go
    /// to the home frame again. Returns the partitions that held one (bitmask; 0 = the
    /// page had none).
    pub fn collapse(&mut self, vpn: u64, freed: &mut Vec<u64>) -> u64 {
        let Some(r) = self.replicas.as_mut() else {
            return 0;
        };
        let Some(row) = r.rows.remove(&vpn) else {
            return 0;
        };
        let m = std::mem::take(&mut r.mask[row as usize]);
        for node in 0..r.nodes {
            if m >> node & 1 == 1 {
                let ppn = r.frames[row as usize * r.nodes + node].0;
                self.frames.free(ppn);
                freed.push(ppn);
                r.stats.frames_now -= 1;
                r.stats.dropped += 1;
            }
        }
        r.spare.push(row);
        if m != 0 {
            r.stats.collapses += 1;
        }
        m
    }

    /// LAB's pages per partition, if the policy is `lab`.
    pub fn lab_pages(&self) -> Option<&[u64]> {
        self.lab.as_ref().map(|l| l.pages())
    }

    /// Snapshot of the counters.
    pub fn snapshot(&self) -> PlacementStats {
        let mut s = self.stats.clone();
        s.frames = self.frames.stats;
        s.replicas = self.replicas.as_ref().map(|r| r.stats);
        if let Some(l) = &self.lab {
            (s.lab_first_touch, s.lab_least_first) = (l.first_touch, l.least_first);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::AddressMap;

    fn cfg(policy: PlacementPolicy) -> Config {
        let mut c = Config::default();
        c.placement.policy = policy;
        c
    }

    #[test]
    fn fgp_stripes_every_page() {
        let c = cfg(PlacementPolicy::Fgp);
        let mut p = Placement::new(&c);
        let m = AddressMap::new(&c);
        let mut nodes = [0u32; 4];
        for line in 0..64u64 {
            let (pa, mode) = p.translate(0x10_0000_0000 + line * 128, NO_OBJ, 0);
            assert_eq!(mode, Mode::Fgp);
            nodes[m.locate(pa, mode).node as usize] += 1;
        }
        assert_eq!(nodes, [16; 4], "128 B lines rotate over the 4 nodes");
    }

    #[test]
    fn cgp_round_robins_pages_and_first_touch_follows_toucher() {
        let c = cfg(PlacementPolicy::Cgp);
        let mut p = Placement::new(&c);
        let m = AddressMap::new(&c);
        for page in 0..8u64 {
            let (pa, mode) = p.translate(page * 4096 + 5, NO_OBJ, 3);
            assert_eq!(m.locate(pa, mode).node as u64, page % 4);
        }
        let c = cfg(PlacementPolicy::FirstTouch);
        let mut p = Placement::new(&c);
        for page in 0..8u64 {
            let (pa, mode) = p.translate(page * 4096, NO_OBJ, 2);
            assert_eq!(m.locate(pa, mode).node, 2);
            // a later toucher does not move it
            let (pa2, _) = p.translate(page * 4096 + 64, NO_OBJ, 1);
            assert_eq!(pa2, pa + 64);
        }
    }

    /// MGPUSim's unified allocation: pages of back-to-back objects rotate over the GPUs in
    /// allocation order from the last GPU, whatever order they are touched in, and neither
    /// the toucher nor the object boundary changes that.
    #[test]
    fn mgpusim_unified_interleaves_pages_in_allocation_order() {
        let c = cfg(PlacementPolicy::MgpusimUnified);
        let mut p = Placement::new(&c);
        let m = AddressMap::new(&c);
        let obj = |name: &str, base: u64, pages: u64| DataObject {
            name: name.into(),
            base,
            bytes: pages * 4096,
            elem_bytes: 4,
            read_only: false,
        };
        // a: 3 pages (allocation indices 0..3), b: 5 pages (3..8)
        p.set_objects(&[obj("a", 0x100_1000, 3), obj("b", 0x100_4000, 5)]);
        for (o, page) in [(1u16, 7u64), (0, 0), (1, 3), (0, 2), (1, 5)] {
            let (pa, mode) = p.translate(0x100_1000 + page * 4096 + 8, o, (page % 4) as u32);
            assert_eq!(mode, Mode::Cgp);
            assert_eq!(
                m.locate(pa, mode).node as u64,
                (page + 3) % 4,
                "page {page}"
            );
        }
    }

    #[test]
    fn round_robin_follows_allocation_order_and_chunked_cuts_objects() {
        let c = cfg(PlacementPolicy::RoundRobin);
        let mut p = Placement::new(&c);
        let m = AddressMap::new(&c);
        // pages touched out of VPN order still get nodes 0, 1, 2, 3, 0 in touch order
        for (k, page) in [7u64, 2, 9, 4, 1].iter().enumerate() {
            let (pa, mode) = p.translate(page * 4096, NO_OBJ, 3);
            assert_eq!(m.locate(pa, mode).node as usize, k % 4, "page {page}");
        }
        let c = cfg(PlacementPolicy::Chunked);
        let mut p = Placement::new(&c);
        p.set_objects(&[DataObject {
            name: "a".into(),
            base: 0x100_0000,
            bytes: 8 * 4096,
            elem_bytes: 4,
            read_only: true,
        }]);
        let nodes: Vec<u32> = (0..8u64)
            .map(|pg| {
                let (pa, mode) = p.translate(0x100_0000 + pg * 4096, 0, 3);
                m.locate(pa, mode).node
            })
            .collect();
        assert_eq!(nodes, [0, 0, 1, 1, 2, 2, 3, 3]);
    }
}
