//! The energy model on whole runs (issue 7 §5) and the epoch timers with their first
//! consumer, time-series sampling (issue 7 §4).

mod common;
use common::{cfg, run};

use locus_sim::{preset, Config, Report};

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

fn part<'a>(r: &'a Report, name: &str) -> &'a locus_sim::energy::EnergyPart {
    r.sim
        .energy
        .parts
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no energy part {name}"))
}

/// End time of the run in ps.
fn end_ps(r: &Report) -> u64 {
    (r.sim.total.ns * 1000.0).round() as u64
}

/// The energy report agrees with the rest of the statistics: its counts are the counted
/// events, and its parts add up.
fn check_energy(r: &Report, c: &Config) {
    let e = &r.sim.energy;
    let sum: f64 = e.parts.iter().map(|p| p.joules).sum();
    assert!(rel(e.total_j, sum) < 1e-12);
    for kind in ["inter-node", "crossbar", "sm-l2"] {
        let bytes: u64 = r
            .sim
            .links
            .iter()
            .filter(|l| l.kind == kind)
            .map(|l| l.bytes_sent)
            .sum();
        assert_eq!(part(r, &format!("link {kind}")).count, 8 * bytes, "{kind}");
    }
    let dram_bytes: u64 = r.sim.nodes.iter().map(|n| n.dram.bytes).sum();
    let acts: u64 = r.sim.nodes.iter().map(|n| n.dram.activates).sum();
    assert_eq!(
        part(r, "dram read").count + part(r, "dram write").count,
        8 * dram_bytes
    );
    assert_eq!(part(r, "dram activate").count, acts);
    let k = &r.sim.total.counters;
    let insts: u64 = e
        .parts
        .iter()
        .filter(|p| p.name.starts_with("inst "))
        .map(|p| p.count)
        .sum();
    assert_eq!(insts, k.warp_insts);
    assert_eq!(k.warp_insts_by_class.iter().sum::<u64>(), k.warp_insts);
    assert_eq!(part(r, "l1").count, k.l1_requests);
    assert_eq!(part(r, "l2").count, k.l2_accesses);
    // static: units × W × simulated time
    let secs = end_ps(r) as f64 * 1e-12;
    let sms = (c.system.nodes * c.system.sms_per_node) as f64;
    assert!(
        rel(
            part(r, "static sm").joules,
            sms * c.energy.sm_static_w * secs
        ) < 1e-9
    );
    let chans = (c.system.nodes * c.memory.channels_per_node) as f64;
    assert!(
        rel(
            part(r, "static dram").joules,
            chans * c.energy.dram_channel_static_w * secs
        ) < 1e-9
    );
}

#[test]
fn single_gpu_has_dram_and_link_energy_but_no_inter_node_energy() {
    let c = cfg("single-gpu", &[]);
    let r = run(&c, "vectoradd", &[("n", "64k")]);
    check_energy(&r, &c);
    // (the written vector stays in the write-back L2: no DRAM writes)
    for p in ["dram read", "dram activate", "link crossbar", "link sm-l2"] {
        assert!(part(&r, p).joules > 0.0, "{p} is zero");
    }
    assert_eq!(part(&r, "link inter-node").count, 0);
    assert_eq!(part(&r, "link inter-node").joules, 0.0);
    // vectoradd does fp adds and memory instructions
    assert!(part(&r, "inst fp").count > 0 && part(&r, "inst mem").count > 0);
}

#[test]
fn four_gpus_spend_inter_node_energy_and_scale_it_with_the_parameter() {
    let c = cfg("coda-4gpu", &[]);
    let r = run(&c, "vectoradd", &[("n", "64k")]);
    check_energy(&r, &c);
    let p = part(&r, "link inter-node");
    assert!(p.joules > 0.0);
    assert!(rel(p.joules, p.count as f64 * 2.0e-12) < 1e-12);
    // tripling the pJ/bit triples that part and nothing else (same run, same counts)
    let c3 = cfg("coda-4gpu", &["energy.inter_node_pj_per_bit=6.0"]);
    let r3 = run(&c3, "vectoradd", &[("n", "64k")]);
    assert!(rel(part(&r3, "link inter-node").joules, 3.0 * p.joules) < 1e-12);
    assert!(rel(r3.sim.energy.total_j - r.sim.energy.total_j, 2.0 * p.joules) < 1e-9);
}

#[test]
fn bad_energy_parameters_are_rejected_with_their_key() {
    for set in [
        "energy.l1_access_pj=-1.0",
        "energy.dram_activate_nj=inf",
        "energy.sm_static_w=nan",
    ] {
        let e = preset::load(Some("coda-4gpu"), None, &[set.to_string()]).unwrap_err();
        let key = set.split('=').next().unwrap();
        assert!(e.to_string().contains(key), "{set}: {e}");
    }
}

/// bfs (several kernels) with a sample every `period` cycles; also the epochs the sampling
/// timer fired by its own count.
fn samples_run_counted(period: u64) -> (Report, u64) {
    let s = format!("run.sample_cycles={period}");
    let c = cfg("coda-4gpu", &[s.as_str()]);
    let p: std::collections::BTreeMap<String, String> = [("scale", "10"), ("edge_factor", "8")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut w = locus_workload::registry::build("bfs", &p, 7).unwrap();
    let mut sys = locus_sim::System::new(&c);
    let r = sys.run(&mut w, &mut |_| {}).unwrap();
    let fired = sys.epochs_fired();
    assert_eq!(fired.len(), 1, "one timer: the sampler");
    (r, fired[0])
}

fn samples_run(period: u64) -> Report {
    samples_run_counted(period).0
}

#[test]
fn epochs_fire_at_every_period_multiple_before_the_end() {
    let period = 2000u64;
    let (r, fired) = samples_run_counted(period);
    assert_eq!(fired, r.sim.timeline.len() as u64);
    let cycle_ps = 500; // 2 GHz
    let end = end_ps(&r);
    let t = &r.sim.timeline;
    // the rule (system::Timer): epoch k fires iff k·P is before the last event (or at it)
    let expect = end / (period * cycle_ps);
    assert!(
        t.len() as u64 == expect
            || (end.is_multiple_of(period * cycle_ps) && t.len() as u64 == expect - 1),
        "{} epochs for end {end} ps, period {period} cycles",
        t.len()
    );
    assert!(t.len() > 10, "too short a run to test: {} epochs", t.len());
    assert!(
        r.sim.kernels.len() > 1,
        "the timer must cross kernel boundaries"
    );
    assert_eq!(r.sim.events_by_kind["epoch"], t.len() as u64);
    for (i, s) in t.iter().enumerate() {
        assert_eq!(s.cycle, (i as u64 + 1) * period);
    }
    // cumulative counters never decrease, and end at most at the totals
    for w in t.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(b.warp_insts >= a.warp_insts);
        assert!(b.l1_misses >= a.l1_misses);
        assert!(b.l2_misses >= a.l2_misses);
        assert!(b.dram_reads >= a.dram_reads);
        assert!(b.dram_writes >= a.dram_writes);
        assert!(b.inter_node_bytes >= a.inter_node_bytes);
    }
    let k = &r.sim.total.counters;
    let last = t.last().unwrap();
    assert!(last.warp_insts <= k.warp_insts && last.dram_reads <= k.dram_reads);
    assert!(t.iter().any(|s| s.inter_node_bytes > 0 && s.warp_insts > 0));
}

/// Sampling observes and never perturbs: the run is the same with and without it, apart
/// from the epoch events themselves and the timeline.
#[test]
fn sampling_does_not_change_the_simulation() {
    let plain = cfg("coda-4gpu", &[]);
    let off = run(&plain, "bfs", &[("scale", "10"), ("edge_factor", "8")]);
    let on = samples_run(1000);
    let off_json = serde_json::to_value(&off.sim).unwrap();
    assert!(
        off_json.get("timeline").is_none(),
        "timeline shown when off"
    );
    assert!(off_json["events_by_kind"].get("epoch").is_none());
    let mut on_json = serde_json::to_value(&on.sim).unwrap();
    assert!(!on.sim.timeline.is_empty());
    let epochs = on.sim.timeline.len() as u64;
    let o = on_json.as_object_mut().unwrap();
    o.remove("timeline");
    o["events_by_kind"].as_object_mut().unwrap().remove("epoch");
    o["events"] = (on.sim.events - epochs).into();
    assert_eq!(serde_json::Value::Object(o.clone()), off_json);
}

#[test]
fn a_period_longer_than_the_run_fires_nothing_and_ends_on_time() {
    let plain = cfg("coda-4gpu", &[]);
    let off = run(&plain, "vectoradd", &[("n", "16k")]);
    let on = run(
        &cfg("coda-4gpu", &["run.sample_cycles=1000000000"]),
        "vectoradd",
        &[("n", "16k")],
    );
    assert!(on.sim.timeline.is_empty());
    assert_eq!(on.sim.total.ns, off.sim.total.ns);
    assert_eq!(on.sim.events, off.sim.events);
}
