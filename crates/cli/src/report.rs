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
        .filter(|l| l.kind == "inter-node")
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
    print!("{}", energy_lines(r));
    print!("{}", ndp_lines(r));
    print!("{}", spaces_lines(r));
    if !s.timeline.is_empty() {
        println!(
            "  timeline        {} samples every {} cycles (stats JSON `timeline`)",
            s.timeline.len(),
            r.config.run.sample_cycles
        );
    }
    if let Some(h) = &r.host {
        println!(
            "  host            {:.2} s, {:.2} M L1 requests/s, {:.2} M warp insts/s, peak RSS {:.0} MB",
            h.seconds,
            h.l1_requests_per_sec / 1e6,
            h.warp_insts_per_sec / 1e6,
            h.peak_rss_mb
        );
        println!(
            "  host split      input generation {:.2} s, functional {:.2} s, timing {:.2} s",
            h.input_seconds, h.functional_seconds, h.timing_seconds
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

/// The memory-space lines of the summary (presets with `spaces.enabled`, HMS §2): replays
/// by cause, texture and constant hits, shared instructions with bank conflicts, summed
/// over the kernels; and what `[place]` did: warp instructions moved to another space,
/// bytes staged into shared memory and the instructions the copies took
/// (`system/staging.rs`).
pub fn spaces_lines(r: &Report) -> String {
    let mut t = locus_sim::spaces::SpaceCounters::default();
    let mut any = false;
    for k in &r.sim.kernels {
        let Some(c) = &k.spaces else { continue };
        any = true;
        t.replays_global_divergence += c.replays_global_divergence;
        t.replays_const_miss += c.replays_const_miss;
        t.replays_const_divergence += c.replays_const_divergence;
        t.replays_shared_bank_conflict += c.replays_shared_bank_conflict;
        t.tex_requests += c.tex_requests;
        t.tex_hits += c.tex_hits;
        t.const_requests += c.const_requests;
        t.const_hits += c.const_hits;
        t.shared_insts += c.shared_insts;
        t.shared_conflicted_insts += c.shared_conflicted_insts;
        t.placed_insts += c.placed_insts;
        t.staged_insts += c.staged_insts;
        t.staged_bytes += c.staged_bytes;
    }
    if !any {
        return String::new();
    }
    let mut out = format!(
        "  spaces          {} replays (global divergence {}, constant miss {}, constant divergence {}, bank conflict {}); texture {} of {} lines hit, constant {} of {}; {} shared instructions ({} with bank conflicts)\n",
        t.replays(),
        t.replays_global_divergence,
        t.replays_const_miss,
        t.replays_const_divergence,
        t.replays_shared_bank_conflict,
        t.tex_hits,
        t.tex_requests,
        t.const_hits,
        t.const_requests,
        t.shared_insts,
        t.shared_conflicted_insts,
    );
    if t.placed_insts + t.staged_insts > 0 {
        out.push_str(&format!(
            "  place           {} memory instructions moved to their object's space; {} B copied between global and shared memory by {} staging instructions\n",
            t.placed_insts, t.staged_bytes, t.staged_insts
        ));
    }
    out
}

/// The NDP lines of the summary (runs with `ndp.offload` other than `none`, ndp.md): the
/// block instances offloaded against all, the suppressed and the not offloadable ones,
/// the NSUs' mean warp-slot occupancy and I-cache use (Fig. 11) and their energy.
pub fn ndp_lines(r: &Report) -> String {
    let Some(n) = r.sim.ndp.as_ref() else {
        return String::new();
    };
    let all = n.instances_offloaded + n.instances_on_gpu;
    let nsu_j: f64 = r
        .sim
        .energy
        .parts
        .iter()
        .filter(|p| p.name.ends_with(" nsu"))
        .map(|p| p.joules)
        .sum();
    format!(
        "  NDP             {}: {} of {} block instances offloaded ({} suppressed by the cache check, {} not offloadable)\n  NSUs            warp-slot occupancy {:.1}%, I-cache use {:.1}%, energy {:.3} mJ, {} GPU ALU instructions as NOPs\n",
        n.offload,
        n.instances_offloaded,
        all,
        n.suppressed_by_cache_check,
        n.not_offloadable,
        100.0 * n.nsu_occupancy,
        100.0 * n.nsu_icache_use,
        nsu_j * 1e3,
        n.gpu_alu_nops.iter().sum::<u64>(),
    )
}

/// The energy lines of the summary: total, mean power, and the parts grouped as links,
/// caches, DRAM, instructions and static power (issue 7 §5).
pub fn energy_lines(r: &Report) -> String {
    let e = &r.sim.energy;
    let group = |prefix: &[&str]| -> f64 {
        e.parts
            .iter()
            .filter(|p| prefix.iter().any(|x| p.name.starts_with(x)))
            .map(|p| p.joules)
            .sum()
    };
    let mj = |j: f64| j * 1e3;
    let mut out = format!(
        "  energy          {:.3} mJ ({:.1} W mean): links {:.3}, caches {:.3}, DRAM {:.3}, instructions {:.3}, static {:.3} mJ\n",
        mj(e.total_j),
        e.mean_w,
        mj(group(&["link "])),
        mj(group(&["l1", "l2"])),
        mj(group(&["dram "])),
        mj(group(&["inst "])),
        mj(e.static_j),
    );
    let by_kind: Vec<String> = e
        .parts
        .iter()
        .filter(|p| p.name.starts_with("link ") && p.joules > 0.0)
        .map(|p| format!("{} {:.3}", &p.name[5..], mj(p.joules)))
        .collect();
    if !by_kind.is_empty() {
        out += &format!("  link energy     {} mJ\n", by_kind.join(", "));
    }
    out
}
