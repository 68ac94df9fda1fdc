//! REC and the compared directory organisations at system level (rec.md §2-§3): the
//! coherence checker finds no stale read with any directory, even small ones that evict;
//! invalidations are conserved and classified; the ideal directory never evicts; REC
//! coalesces; runs are deterministic; the `[directory]` keys are checked; the rec-4gpu
//! preset is Table 2.

use locus_sim::{preset, Config, Report, System};
use locus_workload::{Dim3, Host, Kernel, KernelInfo, Memory, ModelWorkload, ObjId, Thread};

fn cfg(base: &str, sets: &[&str]) -> Config {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::load(Some(base), None, &sets).unwrap()
}

fn err(base: &str, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::load(Some(base), None, &sets)
        .unwrap_err()
        .to_string()
}

/// 16 one-warp blocks. Each reads all `LINES` lines of `a` in order (spatial locality),
/// writes its own 8 lines, waits, and reads every line again; launched `launches` times,
/// so the directory state carries over kernel boundaries.
struct Share {
    a: ObjId,
}
const LINES: u64 = 256;
impl Kernel for Share {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "share".into(),
            grid: Dim3::x(16),
            block: Dim3::x(32),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let lane = t.local_id();
        let b = t.block_id();
        for k in 0..LINES {
            let _: u32 = t.ld(self.a, k * 32 + lane);
        }
        for k in 0..8 {
            t.st(self.a, (b * 16 + k) * 32 + lane, b as u32 + 1);
        }
        t.alu(2000);
        for k in 0..LINES {
            let _: u32 = t.ld(self.a, k * 32 + lane);
        }
    }
}

struct Launches {
    a: ObjId,
    left: u32,
}
impl Host for Launches {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(Box::new(Share { a: self.a }))
    }
}

fn share(launches: u32) -> ModelWorkload {
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", LINES * 32, false);
    ModelWorkload::new("share", m, Box::new(Launches { a, left: launches }))
}

fn run(c: &Config) -> (Report, System) {
    let mut s = System::new(c);
    let r = s.run(&mut share(2), &mut |_| {}).unwrap();
    (r, s)
}

const KINDS: [&str; 5] = [
    "directory.kind=ideal",
    "directory.kind=line-fifo",
    "directory.kind=hmg",
    "directory.kind=rec",
    "directory.kind=rec;directory.replacement=fifo",
];

/// Sets of one directory kind (a `;`-joined list) on a small directory that must evict.
fn kind_sets<'a>(kind: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = kind.split(';').collect();
    v.extend_from_slice(extra);
    v.extend_from_slice(&[
        "coherence.check=true",
        "directory.entries=8",
        "directory.ways=2",
    ]);
    v
}

/// Every link conserves bytes; returns the invalidation packets on inter-node links.
fn links_conserved(r: &Report) -> u64 {
    let mut inv = 0;
    for l in &r.sim.links {
        assert_eq!(l.bytes_sent, l.bytes_received, "link {}", l.name);
        if l.kind == "inter-node" {
            inv += l.by_kind.get("invalidation").map_or(0, |m| m.packets);
        }
    }
    inv
}

/// The checker passes with every organisation (sharing writers, evictions, two kernels),
/// on CODA's machine with a directory and on a shrunk rec-4gpu (home-served misses,
/// clean-all release, chunked placement).
#[test]
fn every_directory_is_coherent_with_sharing_writers() {
    let coda = [
        "coherence.protocol=directory",
        "l2.write_policy_remote=write-through",
        "l2.kernel_boundary=keep-clean-remote",
    ];
    let rec = ["system.sms_per_node=4", "placement.policy=fgp"];
    for (base, extra) in [("coda-4gpu", &coda[..]), ("rec-4gpu", &rec[..])] {
        for kind in KINDS {
            let sets = kind_sets(kind, extra);
            let (r, s) = run(&cfg(base, &sets));
            let k = r.sim.coherence.as_ref().unwrap();
            let chk = k.checker.as_ref().unwrap();
            assert!(
                chk.checks >= 2 * 16 * 2 * LINES,
                "{base} {kind}: {}",
                chk.checks
            );
            assert_eq!(chk.violations, 0, "{base} {kind}: {:?}", chk.examples);
            assert_eq!(k.invalidations_sent, k.invalidations_received);
            assert_eq!(s.live_requests(), 0);
            let by = &k.invalidations_by_cause;
            let sum: u64 = by.values().map(|c| c.sent).sum();
            assert_eq!(sum, k.invalidations_sent, "causes add up");
            let hits: u64 = by.values().map(|c| c.hits).sum();
            assert_eq!(hits, k.invalidation_hits);
            assert_eq!(
                k.unnecessary_invalidations,
                by["eviction"].hits + by["false-positive"].hits
            );
            assert!(
                by["write"].sent + by["eviction"].sent > 0,
                "{base} {kind}: sharers were invalidated"
            );
            // one all-to-all link per invalidation (rec-4gpu); hub: egress + ingress
            let hops = if base == "rec-4gpu" { 1 } else { 2 };
            assert_eq!(links_conserved(&r), hops * k.invalidations_sent, "{base}");
            assert_eq!(
                k.inter_node_transactions["invalidation"].packets,
                k.invalidations_sent
            );
            let d = k.directory.as_ref().unwrap();
            assert!(d.entries <= d.capacity || d.capacity == 0);
            if kind == "directory.kind=ideal" {
                assert_eq!(d.evictions, 0);
                assert_eq!(
                    by["eviction"].sent, 0,
                    "ideal: no evict-initiated invalidation"
                );
                assert!(by["write"].sent > 0, "{base}: the writes had sharers");
            } else {
                assert!(
                    d.evictions > 0,
                    "{base} {kind}: an 8-entry directory evicts"
                );
                assert_eq!(d.coalesced_histogram.iter().sum::<u64>(), d.evictions);
            }
            if !kind.contains("hmg") {
                assert_eq!(by["false-positive"].sent, 0, "{kind}: per-line writes");
            }
        }
    }
}

/// REC coalesces the lines of a range into one entry: with the same entries it
/// evicts far less than the line directory and sends fewer evict-initiated
/// invalidations, and each evicted entry tracked several lines (rec.md §3.1, Fig. 12).
#[test]
fn rec_coalesces_and_evicts_less_than_the_line_directory() {
    let base = [
        "coherence.protocol=directory",
        "l2.write_policy_remote=write-through",
        "l2.kernel_boundary=keep-clean-remote",
        "placement.policy=cgp",
        "directory.entries=4",
        "directory.ways=2",
    ];
    let with = |kind: &str| {
        let mut s = base.to_vec();
        s.push(kind);
        let (r, _) = run(&cfg("coda-4gpu", &s));
        r.sim.coherence.unwrap()
    };
    let line = with("directory.kind=line-fifo");
    let rec = with("directory.kind=rec");
    let (dl, dr) = (line.directory.unwrap(), rec.directory.unwrap());
    assert!(dl.evictions > 0);
    assert!(
        dr.evictions * 4 < dl.evictions,
        "rec {} vs line {} evictions",
        dr.evictions,
        dl.evictions
    );
    assert!(
        rec.invalidations_by_cause["eviction"].sent < line.invalidations_by_cause["eviction"].sent
    );
    assert_eq!(dl.coalesced_mean, 1.0, "a line entry tracks one line");
    assert!(dr.coalesced_mean > 2.0, "rec mean {}", dr.coalesced_mean);
}

/// Every block reads the first `SPAN_LINES` lines of `a` once, one line per thread and
/// instruction (a home's worth of pages under `chunked` placement on 4 nodes).
struct Span {
    a: ObjId,
}
const SPAN_LINES: u64 = 1024;
impl Kernel for Span {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "span".into(),
            grid: Dim3::x(4),
            block: Dim3::x(32),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let lane = t.local_id();
        for k in 0..SPAN_LINES / 32 {
            // 16 u32 per 64 B line
            let _: u32 = t.ld(self.a, (k * 32 + lane) * 16);
        }
    }
}

/// A home's directory indexes its sets with the home's local addresses (rec.md §2.1: the
/// physical address space is partitioned among the GPUs; §6.5: set = address mod sets).
/// Locus interleaves physical pages over the nodes, so the global line bits just above the
/// page offset name the home; a directory indexed with them uses 1/N of its sets. Here
/// three GPUs read 1024 lines (16 pages, all homed at GPU 0) into directories of exactly
/// that reach (1024 line entries, 256 HMG entries, 64 REC entries; 8-way): indexed
/// locally every entry fills and nothing is evicted, indexed globally half the sets take
/// all the entries and hundreds are evicted.
#[test]
fn the_directory_indexes_with_home_local_addresses() {
    for (kind, entries) in [("line-fifo", 1024), ("hmg", 256), ("rec", 64)] {
        let k = format!("directory.kind={kind}");
        let e = format!("directory.entries={entries}");
        let c = cfg(
            "rec-4gpu",
            &["system.sms_per_node=4", "placement.policy=chunked", &k, &e],
        );
        let mut m = Memory::new();
        // 4 chunks of 64 KB: chunk 0 (the lines read) on GPU 0
        let a = m.alloc::<u32>("a", 4 * SPAN_LINES * 16, false);
        let mut w = ModelWorkload::new("span", m, Box::new(Once(Some(Box::new(Span { a })))));
        let r = System::new(&c).run(&mut w, &mut |_| {}).unwrap();
        let d = r.sim.coherence.unwrap().directory.unwrap();
        assert_eq!(d.evictions, 0, "{kind}: the lines fit the directory");
        assert_eq!(
            d.entries, entries,
            "{kind}: every set of GPU 0's directory in use"
        );
    }
}

struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

/// Equal configuration and workload give byte-identical statistics with every directory.
#[test]
fn directory_runs_are_deterministic() {
    for kind in ["directory.kind=rec", "directory.kind=hmg"] {
        let c = cfg(
            "coda-4gpu",
            &[
                "coherence.protocol=directory",
                "l2.write_policy_remote=write-through",
                kind,
                "directory.entries=8",
                "directory.ways=2",
            ],
        );
        let a = serde_json::to_string(&run(&c).0.sim).unwrap();
        let b = serde_json::to_string(&run(&c).0.sim).unwrap();
        assert_eq!(a, b, "{kind}");
    }
}

/// The `none` configuration of rec.md §2.8 (remote data cached in L1 only): no
/// directory, `l2.cache_remote = false`; no L2 ever holds a remote line.
#[test]
fn none_keeps_remote_data_out_of_the_l2() {
    let c = cfg(
        "rec-4gpu",
        &[
            "system.sms_per_node=4",
            "placement.policy=fgp",
            "coherence.protocol=none",
            "l2.cache_remote=false",
        ],
    );
    let (r, s) = run(&c);
    assert_eq!(s.l2_remote_lines(), (0, 0));
    assert!(r.sim.coherence.is_none());
    assert!(r.sim.total.counters.remote_accesses > 0);
}

#[test]
fn directory_keys_are_checked() {
    let e = err("coda-4gpu", &["coherence.directory=full-map"]);
    assert!(
        e.contains("[directory]") && e.contains("directory.kind"),
        "{e}"
    );
    let e = err("rec-4gpu", &["directory.entries=1000", "directory.ways=7"]);
    assert!(
        e.contains("directory.entries") && e.contains("directory.ways"),
        "{e}"
    );
    let e = err("rec-4gpu", &["directory.range_bytes=1000"]);
    assert!(e.contains("directory.range_bytes"), "{e}");
    let e = err("rec-4gpu", &["directory.range_bytes=64"]);
    assert!(
        e.contains("directory.range_bytes"),
        "one line is no range: {e}"
    );
    let e = err("rec-4gpu", &["directory.ways=0"]);
    assert!(e.contains("directory.ways"), "{e}");
    let e = err("rec-4gpu", &["directory.kind=big"]);
    assert!(
        e.contains("directory.kind") && e.contains("line-fifo"),
        "{e}"
    );
    let e = err("rec-4gpu", &["directory.replacement=random"]);
    assert!(e.contains("directory.replacement"), "{e}");
    // the old name of the ideal directory is still accepted
    let c = cfg("rec-4gpu", &["directory.kind=full-map"]);
    assert_eq!(c.directory.kind, locus_sim::config::DirectoryKind::Ideal);
    for r in ["128", "256", "1024", "4096"] {
        let s = format!("directory.range_bytes={r}");
        assert_eq!(cfg("rec-4gpu", &[&s]).directory.range_bytes.to_string(), r);
    }
}

/// rec-4gpu is REC Table 2 (rec.md §4.2), with the paper's baseline directory.
#[test]
fn rec_preset_is_table_2() {
    use locus_sim::config::{DirectoryKind, KernelBoundary, L2Organisation, Protocol, WritePolicy};
    let c = cfg("rec-4gpu", &[]);
    assert_eq!((c.system.nodes, c.system.sms_per_node), (4, 64));
    assert_eq!((c.l1.bytes, c.l1.ways), (16 << 10, 4));
    assert_eq!(
        (c.l2.bytes_per_node, c.l2.ways, c.l2.slices_per_node),
        (2 << 20, 16, 16)
    );
    assert_eq!(c.l2.write_policy_local, WritePolicy::WriteBack);
    assert_eq!(c.l2.write_policy_remote, WritePolicy::WriteThrough);
    assert_eq!(c.l2.organisation, L2Organisation::Both);
    assert_eq!(c.l2.kernel_boundary, KernelBoundary::CleanAll);
    assert!(c.l1.cache_remote && c.l2.cache_remote);
    assert_eq!(c.system.line_bytes, 64);
    let hbm = c.memory.channels_per_node as f64 * locus_dram::peak_bandwidth_gbs(&c.dram);
    assert!((hbm - 1024.0).abs() < 1.0, "1 TB/s HBM: {hbm}");
    // 300 GB/s bidirectional per GPU: 3 links x 50 GB/s x 2 directions
    assert_eq!(c.interconnect.link_gbps * 3.0 * 2.0, 300.0);
    assert_eq!(c.coherence.protocol, Protocol::Directory);
    assert_eq!(c.directory.kind, DirectoryKind::LineFifo);
    assert_eq!((c.directory.entries, c.directory.ways), (8192, 8));
    assert_eq!(
        cfg("rec-4gpu", &["directory.kind=rec"]).directory.kind,
        DirectoryKind::Rec
    );
}
