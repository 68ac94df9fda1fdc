//! Unit tests of the channel model: exact unloaded latencies, bandwidth bounds, scheduling
//! order, refresh, and a replay of the command log against every JEDEC timing rule.

use crate::{
    peak_bandwidth_gbs, Channel, CommandKind, CommandRecord, Completion, DramConfig, PagePolicy,
    Scheduler,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NS: u64 = 1000;

/// Runs one request alone in the channel starting at `t0` and returns its completion.
fn single(ch: &mut Channel, t0: u64, addr: u64, bytes: u32, is_write: bool) -> Completion {
    let mut done = Vec::new();
    ch.push(t0, 7, addr, bytes, is_write);
    let mut next = ch.tick(t0, &mut done);
    while let Some(t) = next {
        next = ch.tick(t, &mut done);
    }
    assert_eq!(done.len(), 1);
    done[0]
}

/// Result of a closed-loop run.
struct Run {
    completions: Vec<Completion>,
    /// Push time of each tag.
    push_time: Vec<u64>,
    end_ps: u64,
}

/// Closed-loop injector: `outstanding` requesters; each issues its next request when its
/// previous one completes (and the queue has room). `reqs[i] = (addr, is_write)`.
fn closed_loop(ch: &mut Channel, reqs: &[(u64, bool)], bytes: u32, outstanding: usize) -> Run {
    let mut credits: BinaryHeap<Reverse<u64>> = (0..outstanding).map(|_| Reverse(0)).collect();
    let mut next_tick: Option<u64> = None;
    let mut done = Vec::new();
    let mut out = Run {
        completions: Vec::new(),
        push_time: vec![0; reqs.len()],
        end_ps: 0,
    };
    let mut k = 0;
    loop {
        let credit = if k < reqs.len() && ch.can_accept() {
            credits.peek().map(|r| r.0)
        } else {
            None
        };
        let now = match (next_tick, credit) {
            (None, None) => break,
            (Some(a), None) | (None, Some(a)) => a,
            (Some(a), Some(b)) => a.min(b),
        };
        while k < reqs.len() && ch.can_accept() && credits.peek().is_some_and(|r| r.0 <= now) {
            credits.pop();
            ch.push(now, k as u32, reqs[k].0, bytes, reqs[k].1);
            out.push_time[k] = now;
            k += 1;
        }
        next_tick = ch.tick(now, &mut done);
        for c in done.drain(..) {
            credits.push(Reverse(c.time_ps.max(now)));
            out.end_ps = out.end_ps.max(c.time_ps);
            out.completions.push(c);
        }
    }
    out
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

fn gbs(bytes: u64, ps: u64) -> f64 {
    bytes as f64 / (ps as f64 / 1000.0)
}

/// Replays a command log and asserts every timing rule of the model.
fn check_timing(cfg: &DramConfig, log: &[CommandRecord]) {
    let c = |ns: f64| cfg.ns_to_ps_ck(ns);
    let tck = cfg.tck_ps;
    let burst = cfg.burst_ps();
    let (rcd, rp, ras, rc, rtp, wr) = (
        c(cfg.trcd_ns),
        c(cfg.trp_ns),
        c(cfg.tras_ns),
        c(cfg.trc_ns),
        c(cfg.trtp_ns),
        c(cfg.twr_ns),
    );
    let (cl, cwl) = (c(cfg.tcl_ns), c(cfg.tcwl_ns));
    let ccd_s = (u64::from(cfg.tccd_s_ck) * tck).max(burst);
    let ccd_l = (u64::from(cfg.tccd_l_ck) * tck).max(burst);
    let bpg = cfg.banks / cfg.bank_groups;
    let bg = |b: u16| u32::from(b) / bpg;
    let mut log: Vec<CommandRecord> = log.to_vec();
    log.sort_by_key(|r| r.time_ps); // stable: same-time commands keep issue order
    let nb = cfg.banks as usize;
    let mut open: Vec<Option<u32>> = vec![None; nb];
    let mut last_act = vec![None::<u64>; nb];
    let mut last_pre = vec![None::<u64>; nb];
    let mut last_rd = vec![None::<u64>; nb];
    let mut last_wr_end = vec![None::<u64>; nb];
    let mut acts: Vec<(u64, u32)> = Vec::new();
    let mut cols: Vec<(u64, u32)> = Vec::new();
    let mut data_end = 0u64;
    let mut wr_ends: Vec<(u64, u32)> = Vec::new();
    let mut last_ref: Option<u64> = None;
    for r in &log {
        let t = r.time_ps;
        assert_eq!(t % tck, 0, "off-clock command {r:?}");
        let b = r.bank as usize;
        match r.kind {
            CommandKind::Activate => {
                assert!(open[b].is_none(), "ACT to open bank {r:?}");
                if let Some(p) = last_pre[b] {
                    assert!(t >= p + rp, "tRP violated {r:?}");
                }
                if let Some(a) = last_act[b] {
                    assert!(t >= a + rc, "tRC violated {r:?}");
                }
                if let Some(f) = last_ref {
                    assert!(t >= f + c(cfg.trfc_ns), "tRFC violated {r:?}");
                }
                if let Some(&(a, g)) = acts.last() {
                    let need = if g == bg(r.bank) {
                        c(cfg.trrd_l_ns)
                    } else {
                        c(cfg.trrd_s_ns)
                    };
                    assert!(t >= a + need, "tRRD violated {r:?}");
                }
                for &(a, g) in acts.iter().rev().take(4) {
                    if g == bg(r.bank) {
                        assert!(t >= a + c(cfg.trrd_l_ns), "tRRD_L violated {r:?}");
                    }
                }
                if acts.len() >= 4 {
                    let a4 = acts[acts.len() - 4].0;
                    assert!(t >= a4 + c(cfg.tfaw_ns), "tFAW violated {r:?}");
                }
                acts.push((t, bg(r.bank)));
                open[b] = Some(r.row);
                last_act[b] = Some(t);
            }
            CommandKind::Precharge | CommandKind::PrechargeAll => {
                let i = b;
                assert!(open[i].is_some(), "PRE of closed bank {r:?}");
                assert!(t >= last_act[i].unwrap() + ras, "tRAS violated {r:?}");
                if let Some(x) = last_rd[i] {
                    assert!(t >= x + rtp, "tRTP violated {r:?}");
                }
                if let Some(x) = last_wr_end[i] {
                    assert!(t >= x + wr, "tWR violated {r:?}");
                }
                open[i] = None;
                last_pre[i] = Some(t);
            }
            CommandKind::Read | CommandKind::Write => {
                assert_eq!(open[b], Some(r.row), "column command to wrong row {r:?}");
                assert!(t >= last_act[b].unwrap() + rcd, "tRCD violated {r:?}");
                let g = bg(r.bank);
                if let Some(&(p, pg)) = cols.last() {
                    assert!(t >= p + ccd_s, "tCCD_S violated {r:?}");
                    let _ = pg;
                }
                if let Some(&(p, _)) = cols.iter().rev().find(|x| x.1 == g) {
                    assert!(t >= p + ccd_l, "tCCD_L violated {r:?}");
                }
                let start = t + if r.kind == CommandKind::Read { cl } else { cwl };
                assert!(start >= data_end, "data bus overlap {r:?}");
                if r.kind == CommandKind::Read {
                    for &(we, wg) in wr_ends.iter().rev().take(8) {
                        let wtr = if wg == g {
                            c(cfg.twtr_l_ns)
                        } else {
                            c(cfg.twtr_s_ns)
                        };
                        assert!(t >= we + wtr, "tWTR violated {r:?}");
                    }
                    last_rd[b] = Some(t);
                } else {
                    wr_ends.push((start + burst, g));
                    last_wr_end[b] = Some(start + burst);
                }
                data_end = start + burst;
                cols.push((t, g));
            }
            CommandKind::Refresh => {
                assert!(open.iter().all(|o| o.is_none()), "REF with open bank");
                for p in last_pre.iter().flatten() {
                    assert!(t >= p + rp, "REF before tRP");
                }
                last_ref = Some(t);
            }
        }
    }
}

#[test]
fn exact_unloaded_latencies() {
    let cfg = DramConfig {
        refresh: false,
        ..DramConfig::default()
    };
    let mut ch = Channel::new(&cfg);
    // Closed bank (64 B = one burst): tRCD + tCL + burst = 14 + 14 + 2 ns.
    let c = single(&mut ch, 0, 0, 64, false);
    assert_eq!(c.time_ps, 30 * NS);
    // Row hit: tCL + burst.
    let c = single(&mut ch, 100 * NS, 64, 64, false);
    assert_eq!(c.time_ps - 100 * NS, 16 * NS);
    // Row conflict (same bank 0, next row = +32 KB): tRP + tRCD + tCL + burst.
    let row_stride = 2048 * 16;
    assert_eq!(ch.decode(row_stride).bank, 0);
    assert_eq!(ch.decode(row_stride).row, 1);
    let c = single(&mut ch, 200 * NS, row_stride, 64, false);
    assert_eq!(c.time_ps - 200 * NS, 44 * NS);
    let s = ch.stats();
    assert_eq!((s.row_hits, s.row_misses, s.row_conflicts), (1, 1, 1));
    assert_eq!((s.activates, s.precharges), (2, 1));
    assert_eq!(s.read_latency_sum_ps, (30 + 16 + 44) * NS);

    // A 128 B line is two BL4 bursts to the same bank group: its second RD issues tCCD_L
    // (4 tCK) after the first, so miss = tRCD + tCCD_L + tCL + burst = 34 ns.
    let mut ch = Channel::new(&cfg);
    let c = single(&mut ch, 0, 0, 128, false);
    assert_eq!(c.time_ps, 34 * NS);
    let c = single(&mut ch, 100 * NS, 128, 128, false);
    assert_eq!(c.time_ps - 100 * NS, 20 * NS);
    // Write to an open row: WL + burst after the WR command.
    let c = single(&mut ch, 200 * NS, 256, 64, true);
    assert!(c.is_write);
    assert_eq!(c.time_ps - 200 * NS, 6 * NS);
}

/// tRCD = 0 (an ideal-DRAM setting a user may choose): a read to a closed bank takes its
/// ACT and its RD in the same clock (separate row and column command buses), so it costs
/// tCL + burst like a row hit. Before session 21 the RD waited one clock more and a debug
/// build stopped on "next decision <= now".
#[test]
fn zero_trcd_reads_in_the_activating_clock() {
    let cfg = DramConfig {
        refresh: false,
        trcd_ns: 0.0,
        ..DramConfig::default()
    };
    let mut ch = Channel::new(&cfg);
    ch.enable_command_log();
    let c = single(&mut ch, 0, 0, 64, false);
    assert_eq!(c.time_ps, 16 * NS, "tCL + burst");
    let log = ch.command_log().to_vec();
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(
        (log[0].kind, log[1].kind),
        (CommandKind::Activate, CommandKind::Read)
    );
    assert_eq!(log[0].time_ps, log[1].time_ps);
    check_timing(&cfg, &log);
}

#[test]
fn unaligned_push_time_waits_for_clock_edge() {
    let cfg = DramConfig {
        refresh: false,
        ..DramConfig::default()
    };
    let mut ch = Channel::new(&cfg);
    let c = single(&mut ch, 500, 0, 64, false);
    assert_eq!(c.time_ps, 1000 + 30 * NS);
}

#[test]
fn sequential_stream_near_peak() {
    let cfg = DramConfig::default();
    let peak = peak_bandwidth_gbs(&cfg);
    for bytes in [64u32, 128] {
        let mut ch = Channel::new(&cfg);
        ch.enable_command_log();
        let n = 40_000;
        let reqs: Vec<(u64, bool)> = (0..n).map(|i| (i * u64::from(bytes), false)).collect();
        let run = closed_loop(&mut ch, &reqs, bytes, 64);
        assert_eq!(run.completions.len(), n as usize);
        let bw = gbs(n * u64::from(bytes), run.end_ps);
        eprintln!("stream {bytes} B: {bw:.2} GB/s");
        assert!(
            bw >= 0.9 * peak,
            "{bytes} B stream: {bw:.2} GB/s < 90% of {peak}"
        );
        assert!(bw <= peak, "{bytes} B stream: {bw:.2} GB/s above peak");
        let s = ch.stats();
        assert!(s.bus_busy_ps <= run.end_ps);
        assert!(s.row_hit_rate() > 0.9, "hit rate {}", s.row_hit_rate());
        assert!(s.refreshes >= run.end_ps / (3900 * NS) - 1);
        check_timing(&cfg, ch.command_log());
    }
}

#[test]
fn random_reads_are_slower_and_respect_act_limits() {
    let cfg = DramConfig::default();
    let peak = peak_bandwidth_gbs(&cfg);
    let mut ch = Channel::new(&cfg);
    ch.enable_command_log();
    let mut seed = 42;
    let n = 20_000;
    // 64 B reads: each needs its own ACT, and ACTs are limited to one per tRRD_S/tFAW/4
    // (4 ns) = 16 GB/s. (128 B random lines move 128 B per ACT and can nearly saturate the
    // bus with the spec's permissive tFAW = 4 x tRRD_S; see the report of cross_check.)
    let reqs: Vec<(u64, bool)> = (0..n)
        .map(|_| ((lcg(&mut seed) % (1 << 24)) * 64, false))
        .collect();
    let run = closed_loop(&mut ch, &reqs, 64, 64);
    assert_eq!(run.completions.len(), n);
    let bw = gbs(n as u64 * 64, run.end_ps);
    eprintln!("random 64 B: {bw:.2} GB/s");
    assert!(bw < 0.6 * peak, "random {bw:.2} GB/s not much below peak");
    assert!(bw > 0.2 * peak, "random {bw:.2} GB/s implausibly low");
    let s = ch.stats();
    assert!(s.row_hit_rate() < 0.1);
    // Activates per tFAW window: never more than 4 (also checked by the replay).
    let acts: Vec<u64> = ch
        .command_log()
        .iter()
        .filter(|r| r.kind == CommandKind::Activate)
        .map(|r| r.time_ps)
        .collect();
    assert_eq!(acts.len() as u64, s.activates);
    let faw = cfg.ns_to_ps_ck(cfg.tfaw_ns);
    for w in acts.windows(5) {
        assert!(w[4] - w[0] >= faw, "5 ACTs within tFAW: {w:?}");
    }
    for w in acts.windows(2) {
        assert!(w[1] - w[0] >= cfg.ns_to_ps_ck(cfg.trrd_s_ns));
    }
    check_timing(&cfg, ch.command_log());
}

#[test]
fn mixed_traffic_timing_and_exactly_once() {
    for (sched, page) in [
        (Scheduler::FrFcfs, PagePolicy::Open),
        (Scheduler::Fcfs, PagePolicy::Open),
        (Scheduler::FrFcfs, PagePolicy::Closed),
    ] {
        let cfg = DramConfig {
            scheduler: sched,
            page_policy: page,
            ..DramConfig::default()
        };
        let mut ch = Channel::new(&cfg);
        ch.enable_command_log();
        let mut seed = 7;
        let n = 10_000;
        // Half streaming, half random, 30% writes, over a small footprint to get hits,
        // misses and conflicts.
        let reqs: Vec<(u64, bool)> = (0..n)
            .map(|i| {
                let a = if lcg(&mut seed) & 1 == 0 {
                    (i as u64 * 128) % (1 << 22)
                } else {
                    (lcg(&mut seed) % (1 << 15)) * 128
                };
                (a, lcg(&mut seed) % 10 < 3)
            })
            .collect();
        let run = closed_loop(&mut ch, &reqs, 128, 48);
        let mut seen = vec![0u32; n];
        for c in &run.completions {
            seen[c.tag as usize] += 1;
            assert_eq!(c.is_write, reqs[c.tag as usize].1);
            assert!(c.time_ps > run.push_time[c.tag as usize]);
        }
        assert!(seen.iter().all(|&k| k == 1), "{sched:?}/{page:?}");
        let s = ch.stats();
        assert_eq!(s.reads + s.writes, n as u64);
        assert_eq!(s.row_hits + s.row_misses + s.row_conflicts, n as u64);
        assert_eq!(s.bursts, 2 * n as u64);
        assert!(s.row_hits > 0 && s.row_misses > 0);
        if page == PagePolicy::Open {
            assert!(s.row_conflicts > 0);
        }
        assert!(ch.queued() == 0);
        check_timing(&cfg, ch.command_log());
    }
}

/// Bank 0 has row 0 open; an older request to row 1 (conflict) and a younger one to row 0
/// (hit) arrive together.
fn hit_vs_conflict_order(sched: Scheduler) -> (u64, u64) {
    let cfg = DramConfig {
        scheduler: sched,
        refresh: false,
        ..DramConfig::default()
    };
    let mut ch = Channel::new(&cfg);
    single(&mut ch, 0, 0, 128, false);
    let t0 = 100 * NS;
    let mut done = Vec::new();
    ch.push(t0, 1, 2048 * 16, 128, false); // bank 0, row 1: conflict (older)
    ch.push(t0, 2, 128, 128, false); // bank 0, row 0: hit (younger)
    let mut next = ch.tick(t0, &mut done);
    while let Some(t) = next {
        next = ch.tick(t, &mut done);
    }
    let time = |tag| done.iter().find(|c| c.tag == tag).unwrap().time_ps;
    (time(1), time(2))
}

#[test]
fn fr_fcfs_serves_younger_hit_first_fcfs_does_not() {
    let (conflict, hit) = hit_vs_conflict_order(Scheduler::FrFcfs);
    assert!(hit < conflict, "FR-FCFS: hit {hit} conflict {conflict}");
    assert_eq!(hit, 100 * NS + 20 * NS);
    let (conflict, hit) = hit_vs_conflict_order(Scheduler::Fcfs);
    assert!(conflict < hit, "FCFS: hit {hit} conflict {conflict}");
}

#[test]
fn refresh_every_trefi() {
    let cfg = DramConfig::default();
    let mut ch = Channel::new(&cfg);
    ch.enable_command_log();
    let reqs: Vec<(u64, bool)> = (0..12_000u64)
        .map(|i| (i * 4096 % (1 << 26), false))
        .collect();
    let run = closed_loop(&mut ch, &reqs, 128, 64);
    let refi = cfg.ns_to_ps_ck(cfg.trefi_ns);
    let refs: Vec<u64> = ch
        .command_log()
        .iter()
        .filter(|r| r.kind == CommandKind::Refresh)
        .map(|r| r.time_ps)
        .collect();
    assert!(refs.len() >= 5, "only {} refreshes", refs.len());
    assert_eq!(refs.len() as u64, run.end_ps / refi);
    for (k, &t) in refs.iter().enumerate() {
        let due = (k as u64 + 1) * refi;
        // REF waits at most for the slowest bank to close (tRAS + tRP or tWR + tRP).
        assert!(t >= due && t <= due + 100 * NS, "REF {k} at {t}, due {due}");
    }
    assert_eq!(ch.stats().refreshes, refs.len() as u64);
    check_timing(&cfg, ch.command_log());

    // Idle channel: refreshes are accounted lazily at the next tick.
    let mut ch = Channel::new(&cfg);
    let mut done = Vec::new();
    assert_eq!(ch.tick(10 * refi + 5, &mut done), None);
    assert_eq!(ch.stats().refreshes, 10);
    // A request right after a refresh waits for tRFC.
    let c = single(&mut ch, 10 * refi + 1000, 0, 64, false);
    assert_eq!(c.time_ps, 10 * refi + 260 * NS + 30 * NS);
}

#[test]
fn closed_page_precharges_after_each_request() {
    let cfg = DramConfig {
        page_policy: PagePolicy::Closed,
        refresh: false,
        ..DramConfig::default()
    };
    let mut ch = Channel::new(&cfg);
    single(&mut ch, 0, 0, 64, false);
    // Same row later: the bank was auto-precharged, so this is a miss (30 ns), not a hit.
    let c = single(&mut ch, 100 * NS, 64, 64, false);
    assert_eq!(c.time_ps - 100 * NS, 30 * NS);
    assert_eq!(ch.stats().row_hits, 0);
    assert_eq!(ch.stats().precharges, 2);
}

#[test]
fn deterministic() {
    let cfg = DramConfig::default();
    let mut seed = 99;
    let reqs: Vec<(u64, bool)> = (0..5000)
        .map(|_| ((lcg(&mut seed) % (1 << 20)) * 128, lcg(&mut seed) & 3 == 0))
        .collect();
    let mut a = Channel::new(&cfg);
    let mut b = Channel::new(&cfg);
    let ra = closed_loop(&mut a, &reqs, 128, 64);
    let rb = closed_loop(&mut b, &reqs, 128, 64);
    assert_eq!(ra.completions, rb.completions);
    assert_eq!(a.stats(), b.stats());
}

#[test]
fn queue_depth_is_enforced() {
    let cfg = DramConfig::default();
    let mut ch = Channel::new(&cfg);
    for i in 0..64 {
        assert!(ch.can_accept());
        ch.push(0, i, u64::from(i) * 4096, 128, false);
    }
    assert!(!ch.can_accept());
}

#[test]
fn config_toml_roundtrip_and_unknown_keys() {
    let cfg: DramConfig = toml::from_str("tcl_ns = 15.0\nscheduler = \"fcfs\"").unwrap();
    assert_eq!(cfg.tcl_ns, 15.0);
    assert_eq!(cfg.scheduler, Scheduler::Fcfs);
    assert_eq!(cfg.trcd_ns, 14.0);
    let err = toml::from_str::<DramConfig>("tcl = 15.0")
        .unwrap_err()
        .to_string();
    assert!(err.contains("tcl"), "{err}");
    let s = toml::to_string(&DramConfig::default()).unwrap();
    assert_eq!(
        toml::from_str::<DramConfig>(&s).unwrap(),
        DramConfig::default()
    );
}

/// tFAW is enforced on its own (issue 13): the default tFAW equals 4 x tRRD_S, so tRRD alone
/// already spaces five ACTs by tFAW and a channel that ignored tFAW would pass the default
/// tests. With tFAW = 40 ns (10 x tRRD_S) every five consecutive ACTs must still span it.
#[test]
fn tfaw_longer_than_four_trrd_is_enforced() {
    let cfg = DramConfig {
        tfaw_ns: 40.0,
        ..DramConfig::default()
    };
    assert!(cfg.tfaw_ns > 4.0 * cfg.trrd_s_ns);
    let mut ch = Channel::new(&cfg);
    ch.enable_command_log();
    let mut seed = 7;
    let reqs: Vec<(u64, bool)> = (0..4000)
        .map(|_| ((lcg(&mut seed) % (1 << 24)) * 64, false))
        .collect();
    let run = closed_loop(&mut ch, &reqs, 64, 64);
    assert_eq!(run.completions.len(), reqs.len());
    let acts: Vec<u64> = ch
        .command_log()
        .iter()
        .filter(|r| r.kind == CommandKind::Activate)
        .map(|r| r.time_ps)
        .collect();
    assert!(acts.len() > 1000);
    let faw = cfg.ns_to_ps_ck(cfg.tfaw_ns);
    for w in acts.windows(5) {
        assert!(w[4] - w[0] >= faw, "5 ACTs within tFAW: {w:?}");
    }
}
