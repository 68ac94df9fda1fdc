//! Coherence of cached remote data (issue 7 §2): the checker fails without a protocol and
//! passes with the directory; invalidation traffic is conserved; the L2 organisations and
//! write policies do what they say.

use locus_sim::{preset, Config, Report, System};
use locus_workload::{Dim3, Host, Kernel, KernelInfo, Memory, ModelWorkload, ObjId, Thread};
use std::collections::BTreeMap;

fn cfg(sets: &[&str]) -> Config {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::load(Some("coda-4gpu"), None, &sets).unwrap()
}

/// 16 one-warp blocks (one per SM of coda-4gpu under FRR, so four per GPU). Each reads all
/// `LINES` lines of `a`, writes its own 8 lines, waits `delay` ALU instructions, and reads
/// every line again: the second pass re-reads data that blocks on other GPUs wrote within
/// the same kernel, long after those writes completed.
struct ShareRw {
    a: ObjId,
    delay: u32,
}
const LINES: u64 = 128;
impl Kernel for ShareRw {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "share-rw".into(),
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
            t.st(self.a, (b * 8 + k) * 32 + lane, b as u32 + 1);
        }
        t.alu(self.delay);
        for k in 0..LINES {
            let _: u32 = t.ld(self.a, k * 32 + lane);
        }
    }
}

struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

fn share_rw() -> ModelWorkload {
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", LINES * 32, false);
    let k = ShareRw { a, delay: 3000 };
    ModelWorkload::new("share-rw", m, Box::new(Once(Some(Box::new(k)))))
}

/// One thread reads the same word `reads` times, an ALU op between reads.
struct Reread {
    a: ObjId,
    reads: u32,
}
impl Kernel for Reread {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "reread".into(),
            grid: Dim3::x(1),
            block: Dim3::x(1),
            regs_per_thread: 8,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        for _ in 0..self.reads {
            let _: u32 = t.ld(self.a, 0);
            t.alu(1);
        }
    }
}

fn reread(reads: u32) -> ModelWorkload {
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", 1024, true);
    let k = Reread { a, reads };
    ModelWorkload::new("reread", m, Box::new(Once(Some(Box::new(k)))))
}

fn run_sys(c: &Config, w: &mut ModelWorkload) -> (Report, System) {
    let mut s = System::new(c);
    let r = s.run(w, &mut |_| {}).unwrap();
    (r, s)
}

fn checker(r: &Report) -> (u64, u64) {
    let k = r.sim.coherence.as_ref().unwrap().checker.as_ref().unwrap();
    (k.checks, k.violations)
}

/// Every link: bytes sent = bytes received, and the invalidation packets it carried.
fn links_conserved(r: &Report) -> u64 {
    let mut inv = 0;
    for l in &r.sim.links {
        assert_eq!(l.bytes_sent, l.bytes_received, "link {}", l.name);
        let by: u64 = l.by_kind.values().map(|m| m.bytes).sum();
        assert_eq!(by, l.bytes_sent, "link {}: kinds add up", l.name);
        inv += l.by_kind.get("invalidation").map_or(0, |m| m.packets);
    }
    inv
}

#[test]
fn the_checker_catches_stale_reads_without_a_protocol() {
    for policy in ["write-back", "write-through"] {
        let wp = format!("l2.write_policy_remote={policy}");
        let c = cfg(&["coherence.check=true", &wp]);
        let (r, _) = run_sys(&c, &mut share_rw());
        let (checks, violations) = checker(&r);
        assert!(checks >= 16 * 2 * LINES, "every load is checked: {checks}");
        assert!(
            violations > 0,
            "{policy}: other GPUs re-read lines written and completed in the same kernel"
        );
        let ex = &r
            .sim
            .coherence
            .as_ref()
            .unwrap()
            .checker
            .as_ref()
            .unwrap()
            .examples;
        assert!(!ex.is_empty() && ex.iter().all(|v| v.version < v.completed));
        // the checker observes only: timing is that of the run without it
        let plain = locus_sim::simulate(&cfg(&[&wp]), &mut share_rw()).unwrap();
        assert_eq!(plain.sim.total.cycles, r.sim.total.cycles);
        assert!(
            plain.sim.coherence.is_none(),
            "no coherence section by default"
        );
    }
}

/// Both invalidation scopes: with `"l2"` (the papers' rule) an invalidation reaches only L2
/// copies, so a home-side L2 (no remote copies kept at the requester) leaves it nothing to
/// hit; with `"l2-and-l1"` it also drops L1 copies. Either way no read sees data older
/// than its scope owes (the checker holds software-coherent L1s to the kernel's start).
#[test]
fn the_directory_leaves_no_stale_copy_and_its_traffic_is_conserved() {
    for scope in ["l2", "l2-and-l1"] {
        for org in ["requester-side", "home-side", "both"] {
            for local in ["write-back", "write-through"] {
                let o = format!("l2.organisation={org}");
                let l = format!("l2.write_policy_local={local}");
                let sc = format!("coherence.inval_scope={scope}");
                let c = cfg(&[
                    "coherence.check=true",
                    "coherence.protocol=directory",
                    "l2.write_policy_remote=write-through",
                    &o,
                    &l,
                    &sc,
                ]);
                let (r, s) = run_sys(&c, &mut share_rw());
                let (checks, violations) = checker(&r);
                assert!(checks >= 16 * 2 * LINES);
                let k = r.sim.coherence.as_ref().unwrap();
                let case = format!("{scope} / {org} / local {local}");
                assert_eq!(
                    violations,
                    0,
                    "{case}: {:?}",
                    k.checker.as_ref().unwrap().examples
                );
                assert!(k.invalidations_sent > 0, "{case}: the writes had sharers");
                assert_eq!(k.invalidations_sent, k.invalidations_received);
                if scope == "l2" {
                    assert_eq!(k.l1_invalidation_hits, 0, "{case}");
                    if org == "home-side" {
                        assert_eq!(k.invalidation_hits, 0, "{case}: no remote L2 copy");
                    } else {
                        assert!(k.invalidation_hits > 0, "{case}");
                    }
                } else {
                    assert!(k.l1_invalidation_hits > 0, "{case}");
                }
                assert_eq!(s.live_requests(), 0);
                let inv_packets = links_conserved(&r);
                // one packet per invalidation on each inter-node hop (two through the hub)
                assert_eq!(inv_packets, 2 * k.invalidations_sent, "{case}");
            }
        }
    }
}

#[test]
fn invalidation_packets_have_their_configured_size() {
    let base = [
        "coherence.protocol=directory",
        "l2.write_policy_remote=write-through",
    ];
    let bytes = |sz: u32| {
        let s = format!("coherence.inv_bytes={sz}");
        let mut sets = base.to_vec();
        sets.push(&s);
        let r = locus_sim::simulate(&cfg(&sets), &mut share_rw()).unwrap();
        links_conserved(&r);
        let inv: u64 = r
            .sim
            .links
            .iter()
            .filter_map(|l| l.by_kind.get("invalidation"))
            .map(|m| m.bytes)
            .sum();
        let n = r.sim.coherence.unwrap().invalidations_sent;
        (inv, n)
    };
    let (b16, n16) = bytes(16);
    assert_eq!(b16, 2 * 16 * n16);
    let (b64, n64) = bytes(64);
    assert_eq!(b64, 2 * 64 * n64);
}

#[test]
fn a_sharing_benchmark_is_coherent_with_the_directory() {
    let p: BTreeMap<String, String> = [("scale".to_string(), "11".to_string())].into();
    let run = |sets: &[&str]| {
        let mut w = locus_workload::registry::build("bfs", &p, 7).unwrap();
        locus_sim::simulate(&cfg(sets), &mut w).unwrap()
    };
    let wt = "l2.write_policy_remote=write-through";
    let none = run(&["coherence.check=true", wt]);
    assert!(
        checker(&none).1 > 0,
        "bfs shares written data within kernels"
    );
    for org in ["requester-side", "home-side", "both"] {
        let o = format!("l2.organisation={org}");
        let dir = run(&[
            "coherence.check=true",
            "coherence.protocol=directory",
            wt,
            &o,
        ]);
        let (checks, violations) = checker(&dir);
        assert!(checks > 10_000);
        assert_eq!(violations, 0, "bfs, {org}");
        links_conserved(&dir);
    }
}

#[test]
fn home_side_serves_remote_reads_at_the_home_slice() {
    // the only block runs on node 0; its data lives on node 2; the L1 does not keep remote
    // data, so each of the three reads reaches an L2
    let base = [
        "placement.policy=node",
        "placement.node=2",
        "l1.cache_remote=false",
        "l2.kernel_boundary=none",
    ];
    let with = |org: &str| {
        let o = format!("l2.organisation={org}");
        let mut sets = base.to_vec();
        sets.push(&o);
        run_sys(&cfg(&sets), &mut reread(3))
    };
    let hm = |r: &Report, n: usize| (r.sim.nodes[n].l2_hits, r.sim.nodes[n].l2_misses);

    let (r, s) = with("home-side");
    assert_eq!(hm(&r, 0), (0, 0), "the requester's L2 is never looked up");
    assert_eq!(hm(&r, 2), (2, 1), "one miss then two hits, at the home");
    assert_eq!(s.l2_remote_lines(), (0, 0), "no L2 holds a remote line");
    assert_eq!(r.sim.total.counters.l1_hits, 0);
    assert_eq!(r.sim.total.counters.remote_accesses, 3);

    let (r, s) = with("requester-side");
    assert_eq!(hm(&r, 0), (2, 1), "requester-side: hits at the requester");
    assert_eq!(hm(&r, 2), (0, 0), "the home's L2 is bypassed");
    assert_eq!(s.l2_remote_lines(), (1, 0));

    let (r, s) = with("both");
    assert_eq!(hm(&r, 0), (2, 1), "the requester's L2 keeps the line");
    assert_eq!(
        hm(&r, 2),
        (0, 1),
        "its one miss was served through the home slice"
    );
    assert_eq!(s.l2_remote_lines(), (1, 0));

    // and with the L1 caching remote data, the later reads hit there
    let (r, _) = run_sys(
        &cfg(&["placement.policy=node", "placement.node=2"]),
        &mut reread(3),
    );
    assert_eq!(r.sim.total.counters.l1_hits, 2);
}

#[test]
fn write_through_remote_leaves_no_dirty_remote_line() {
    let end_state = |policy: &str| {
        let p = format!("l2.write_policy_remote={policy}");
        let (_, s) = run_sys(&cfg(&["l2.kernel_boundary=none", &p]), &mut share_rw());
        s.l2_remote_lines()
    };
    let (remote, dirty) = end_state("write-through");
    assert!(remote > 0, "remote lines are cached");
    assert_eq!(dirty, 0, "write-through: never dirty");
    let (_, dirty) = end_state("write-back");
    assert!(dirty > 0, "write-back absorbs remote writes (the contrast)");
}

#[test]
fn kernel_boundary_actions() {
    let end_state = |kb: &str| {
        let k = format!("l2.kernel_boundary={kb}");
        let (r, s) = run_sys(&cfg(&[&k]), &mut share_rw());
        (s.l2_remote_lines(), r.sim.total.counters.l2_writebacks)
    };
    let ((remote, _), wb_flush) = end_state("flush-remote");
    assert_eq!(remote, 0, "flush-remote drops every remote line");
    let ((remote, dirty), wb_keep) = end_state("keep-clean-remote");
    assert!(remote > 0 && dirty == 0, "kept, clean");
    assert_eq!(wb_keep, wb_flush, "both write back the same dirty lines");
    let ((remote, dirty), wb_none) = end_state("none");
    assert!(remote > 0 && dirty > 0);
    assert!(wb_none < wb_flush);
}

#[test]
fn config_errors_name_the_key() {
    let err = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        preset::load(Some("coda-4gpu"), None, &sets)
            .unwrap_err()
            .to_string()
    };
    let e = err(&["l2.flush_remote_at_kernel_end=false"]);
    assert!(e.contains("l2.kernel_boundary"), "{e}");
    let e = err(&["coherence.inv_bytes=0"]);
    assert!(e.contains("coherence.inv_bytes"), "{e}");
    let e = err(&["coherence.protocol=directory"]);
    assert!(e.contains("l2.write_policy_remote"), "{e}");
    let e = err(&["l2.organisation=sideways"]);
    assert!(e.contains("organisation") || e.contains("variant"), "{e}");
}
