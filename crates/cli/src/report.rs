//! Human-readable summaries and CSV renderings of a [`Report`].

use locus_sim::Report;

/// `n` followed by `word`, plural unless `n` is 1: "1 kernel", "5 kernels".
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The first line of a run's summary: what ran where, with the overrides in force, e.g.
/// `locus: bfs on coda-4gpu (placement.policy=first-touch, interconnect.link_gbps=32), 5 kernels`.
pub fn header(r: &Report, overrides: &[String]) -> String {
    let o = if overrides.is_empty() {
        String::new()
    } else {
        format!(" ({})", overrides.join(", "))
    };
    format!(
        "locus: {} on {}{o}, {}",
        r.workload,
        r.preset,
        count(r.sim.kernels.len(), "kernel")
    )
}

/// The busiest inter-node link, or the words saying there was no inter-node traffic.
pub fn busiest_link(r: &Report) -> String {
    let busiest = r
        .sim
        .links
        .iter()
        .filter(|l| l.name.contains("hub") || l.name.contains("->node"))
        .max_by(|a, b| a.utilization.total_cmp(&b.utilization));
    match busiest {
        Some(l) if l.bytes_sent > 0 => format!(
            "{} at {:.1}% ({} bytes)",
            l.name,
            100.0 * l.utilization,
            l.bytes_sent
        ),
        Some(_) => "none: no inter-node traffic".to_string(),
        None => "none: no inter-node links".to_string(),
    }
}

/// Print the summary of a run to stdout. `overrides` (config file, `--set`, `--param`)
/// go into the header; `multi` (`--apps`) adds one line per application.
pub fn print_summary(r: &Report, overrides: &[String], multi: bool) {
    let s = &r.sim;
    let t = &s.total;
    let c = &t.counters;
    println!("{}", header(r, overrides));
    println!(
        "  time            {} cycles ({:.3} ms)",
        t.cycles,
        t.ns / 1e6
    );
    println!(
        "  instructions    {} warp, {} thread (IPC {:.2})",
        c.warp_insts, c.thread_insts, t.ipc
    );
    println!(
        "  L1              {} requests, hit rate {:.1}%",
        c.l1_requests,
        100.0 * t.l1_hit_rate
    );
    println!(
        "  L2              hit rate {:.1}%, {} write-backs",
        100.0 * t.l2_hit_rate,
        c.l2_writebacks
    );
    if c.tlb_l1_hits + c.tlb_l1_misses > 0 {
        println!(
            "  TLB             L1 hit rate {:.1}%",
            100.0 * t.tlb_l1_hit_rate
        );
    }
    println!(
        "  memory accesses {} local, {} remote ({:.1}% remote)",
        c.local_accesses,
        c.remote_accesses,
        100.0 * t.remote_fraction
    );
    println!(
        "  DRAM            {:.1} GB/s, row-buffer hit rate {:.1}%",
        s.dram_bandwidth_gbs,
        100.0 * s.dram_row_hit_rate
    );
    println!("  load latency    {:.1} ns mean", t.mean_load_latency_ns);
    println!("  busiest link    {}", busiest_link(r));
    if let Some(h) = &r.host {
        println!(
            "  host            {:.2} s, {:.2} M L1 requests/s, {:.2} M warp insts/s, peak RSS {:.0} MB",
            h.seconds,
            h.l1_requests_per_sec / 1e6,
            h.warp_insts_per_sec / 1e6,
            h.peak_rss_mb
        );
    }
    let placed: Vec<String> = s
        .objects
        .iter()
        .filter_map(|o| o.placement.as_ref().map(|p| format!("{} {p}", o.name)))
        .take(8)
        .collect();
    if !placed.is_empty() {
        println!("  CODA placement  {}", placed.join("; "));
    }
    if multi || s.apps.len() > 1 {
        for a in &s.apps {
            println!(
                "  app {:<12} SMs {}..{} finished at {} cycles ({})",
                a.name,
                a.first_sm,
                a.first_sm + a.sms,
                a.finish_cycles,
                count(a.kernels as usize, "kernel")
            );
        }
    }
    for w in &s.warnings {
        println!("  warning: {w}");
    }
}

/// Per-kernel CSV.
pub fn kernels_csv(r: &Report) -> String {
    let mut out = String::from(
        "kernel,name,blocks,cycles,ns,warp_insts,l1_requests,l1_hit_rate,l2_hit_rate,local_accesses,remote_accesses,remote_fraction\n",
    );
    for k in &r.sim.kernels {
        let c = &k.summary.counters;
        out += &format!(
            "{},{},{},{},{:.1},{},{},{:.4},{:.4},{},{},{:.4}\n",
            k.index,
            k.name.replace(',', ";"),
            c.blocks,
            k.summary.cycles,
            k.summary.ns,
            c.warp_insts,
            c.l1_requests,
            k.summary.l1_hit_rate,
            k.summary.l2_hit_rate,
            c.local_accesses,
            c.remote_accesses,
            k.summary.remote_fraction
        );
    }
    out
}
