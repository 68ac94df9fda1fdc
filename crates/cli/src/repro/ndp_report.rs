//! The NDP reproduction's report, CSV files and figures, generated from the finished runs
//! of [`super::ndp`] only: every number goes through the [`Ledger`] with its source and
//! every comparison through [`Ledger::cmp`], so [`super::audit`] refuses a report that
//! prints a number its data did not give. Sections: the declared claims, the disagreements
//! each with the measured diagnostics that bear on it (or "unexplained"), offload coverage
//! (which workloads have no offload block marked, read from the runs), one section per
//! figure with the paper's values beside ours, what was not run, and the run time with
//! the full run's estimate.

use super::experiment::{self, Mean, Verdict};
use super::ledger::Ledger;
use super::ndp::{
    self, abbr, static_key, Ctx, ENERGY, FIG5_KEY, FIG5_N, HELD, ICACHE, INVAL_SHARE, LIVE_INS,
    LIVE_OUTS, NO_ISSUE, NO_ISSUE_READINGS, OCCUPANCY, OFFLOADED, ON_GPU, SUPPRESSED,
};
use crate::plot;
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// What [`write()`] needs besides the runs.
pub struct Meta<'a> {
    pub benches: &'a [String],
    pub study: &'a [String],
    pub cap: Option<u64>,
    /// Runs the cap stopped before their workload's end.
    pub capped: usize,
    pub quick: bool,
    pub runs: usize,
    pub reused: usize,
    pub seconds: f64,
    pub jobs: usize,
    /// Host seconds of all runs together (the simulations' own timers).
    pub host_seconds: f64,
}

use super::experiment::md_table as table;

fn am(v: &[f64]) -> f64 {
    Mean::Arithmetic.of(v)
}

fn gm(v: &[f64]) -> f64 {
    Mean::Geometric.of(v)
}

/// Write `report.md`, `numbers.txt`, `checks.txt`, the figure CSVs and `figures/` into
/// `out`; returns the headline for the terminal. `ctxs[i]` says what `verdicts[i]` is
/// about. Fails when the report fails its audit.
pub fn write(
    out: &Path,
    meta: &Meta,
    runs: &experiment::Runs,
    verdicts: &[Verdict],
    ctxs: &[Ctx],
) -> Result<String> {
    let led = Ledger::default();
    let benches = meta.benches;
    let figs = out.join("figures");
    let val = |k: &str, p: &str| runs.value(k, p);
    let key = |b: &str, c: &str| format!("{b}-{c}");
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    let sp = |b: &str, base: &str, c: &str| {
        ratio(val(&key(b, base), "cycles"), val(&key(b, c), "cycles"))
    };
    let over = |bs: &[String], f: &dyn Fn(&str) -> f64| bs.iter().map(|b| f(b)).collect::<Vec<_>>();
    // offload coverage, from the NaiveNDP run: every marked instance is offloaded or kept
    let instances = |b: &str| {
        let k = key(b, "naive");
        val(&k, OFFLOADED) + val(&k, ON_GPU)
    };
    let unmarked: Vec<String> = benches
        .iter()
        .filter(|b| instances(b) == 0.0)
        .cloned()
        .collect();
    let offload_share = |k: &str| {
        let (o, g) = (val(k, OFFLOADED), val(k, ON_GPU));
        ratio(o, o + g)
    };
    let suppressed_share = |k: &str| ratio(val(k, SUPPRESSED), val(k, OFFLOADED) + val(k, ON_GPU));
    let ratios = ndp::ratios(meta.quick);
    let mut md = String::new();

    // ---- preamble
    writeln!(
        md,
        "# NDP reproduction{}\n",
        if meta.quick {
            " (quick: workload subset, two static ratios; NOT the reproduction)"
        } else {
            ""
        }
    )?;
    if meta.quick {
        writeln!(
            md,
            "This is the quick run (`locus repro ndp --quick`). The full reproduction is `locus repro ndp -o out/repro-ndp` (all of Table 1's workloads, the static ratios of Fig. 9 and the §7.6 studies on every workload); its estimated time is under Run time.\n"
        )?;
    }
    let cfg = locus_sim::preset::load(Some(ndp::BASE), None, &[])?;
    let sm_ghz = cfg.system.sm_clock_ghz;
    let nsus = cfg.ndp.stack_nodes.len() as f64;
    let nsu_ghz = cfg.ndp.nsu_clock_ghz;
    let us = |k: &str| val(k, "cycles") / sm_ghz / 1000.0;
    // the NSUs issue one warp instruction per NSU cycle each (ndp.md §7.12)
    let bound_us = |k: &str| val(k, OFFLOADED) * val(k, ndp::NSU_INSTS) / (nsus * nsu_ghz) / 1000.0;
    writeln!(
        md,
        "Locus `repro ndp`: {} runs ({} reused from an earlier invocation) in {} s on {} worker(s), on {} workload(s); the §7.6 studies on {}. Machine: preset `ndp-8hmc` ({} SMs at {} GHz, {} stacks with one NSU each at {} GHz); Baseline_MoreCore is `ndp-morecore` and the 128-SM study `ndp-128sm`; every NDP configuration is a `--set ndp.offload=...` on them (`main_variants` and `study_variants` in crates/cli/src/repro/ndp.rs). Speedup = Baseline cycles / cycles. The paper does not say which mean it uses (ndp.md §6.1): claims use the arithmetic mean of per-workload values, tables also give the geometric mean.\n",
        led.int(meta.runs as u64, "runs planned"),
        led.int(meta.reused as u64, "runs reused"),
        led.f(meta.seconds, 0, "wall seconds"),
        led.int(meta.jobs as u64, "--jobs"),
        led.int(benches.len() as u64, "workloads"),
        led.int(meta.study.len() as u64, "study workloads"),
        led.int(cfg.system.sms_per_node as u64, "config system.sms_per_node"),
        led.f(cfg.system.sm_clock_ghz, 2, "config system.sm_clock_ghz"),
        led.int(cfg.ndp.stack_nodes.len() as u64, "config ndp.stack_nodes"),
        led.f(cfg.ndp.nsu_clock_ghz, 2, "config ndp.nsu_clock_ghz"),
    )?;
    md += &super::experiment::set_index_sentence(&cfg);
    md += "\n";
    match meta.cap {
        None => writeln!(
            md,
            "Run length: the paper gives no instruction cap, so every run goes to its workload's end on the workload's default input (scaled by the one rule of crates/workload/src/scale.rs). {} of the {} runs were stopped early.\n",
            led.int(meta.capped as u64, "runs stopped by a cap"),
            led.int(meta.runs as u64, "runs planned"),
        )?,
        Some(c) => writeln!(
            md,
            "Run length: every run stops at {} warp instructions (`--warp-insts`, `run.max_warp_insts`); the paper runs to the end. {} of the {} runs were stopped by this cap, so their speedups compare the first part of each workload only (the same instructions in every configuration of a workload).\n",
            led.int(c, "run cap"),
            led.int(meta.capped as u64, "runs stopped by the cap"),
            led.int(meta.runs as u64, "runs planned"),
        )?,
    }
    writeln!(
        md,
        "Regenerate: `locus repro ndp{} -o out/repro-ndp`, then copy `report.md` to `docs/repro-ndp-report.md`, `figures/*` to `docs/figures/`, and `numbers.txt` / `checks.txt` to `docs/figures/ndp-numbers.txt` / `docs/figures/ndp-checks.txt`. Figures mark the paper's value with a black diamond.\n",
        if meta.quick { " --quick" } else { "" }
    )?;

    // ---- headline claims
    let mut head = led.headline(
        "Each rule was declared in code before any run (`claims` in crates/cli/src/repro/ndp.rs); `inputs` counts the values with data.",
        verdicts,
    );
    head += &led.held_line(verdicts);

    // ---- offload coverage
    let mut cov = String::from("\n## Offload coverage (read from the runs)\n\nBlock instances (warp x offload block) under NaiveNDP, NDP(Dyn) and NDP(Dyn)_Cache; a workload with no instance under NaiveNDP has no offload block marked in its Locus model, so its NDP runs equal its Baseline.\n\n");
    let mut rows = Vec::new();
    for b in benches {
        let n = instances(b);
        rows.push(vec![
            abbr(b),
            led.f(n, 0, "naive block instances"),
            if n == 0.0 {
                "no offload block marked".to_string()
            } else {
                led.pct(offload_share(&key(b, "naive")), "naive offloaded share")
            },
            led.pct(offload_share(&key(b, "dyn")), "dyn offloaded share"),
            led.pct(
                offload_share(&key(b, "dyncache")),
                "dyncache offloaded share",
            ),
            led.pct(
                suppressed_share(&key(b, "dyncache")),
                "dyncache suppressed share",
            ),
            led.pct(
                offload_share(&key(b, ndp::DYNCACHE_PER_WARP)),
                "dyncache per-warp offloaded share",
            ),
            led.pct(
                suppressed_share(&key(b, ndp::DYNCACHE_PER_WARP)),
                "dyncache per-warp suppressed share",
            ),
        ]);
    }
    cov += "The cache-locality check's benefit (ndp.md §4.4) as the paper prints it, lines x 128 B x SIMD width (the default, `Dyn_Cache`), and with the spec's unit fix, lines x 128 B per warp (`ndp.paper_literal_benefit = false`, `per-warp`).\n\n";
    cov += &table(
        &[
            "workload",
            "instances",
            "offloaded, NaiveNDP",
            "offloaded, Dyn",
            "offloaded, Dyn_Cache",
            "suppressed by the cache check, Dyn_Cache",
            "offloaded, Dyn_Cache per-warp",
            "suppressed, Dyn_Cache per-warp",
        ]
        .map(String::from),
        &rows,
    );
    if unmarked.is_empty() {
        writeln!(cov, "\nEvery workload run has an offload block marked.")?;
    } else {
        writeln!(
            cov,
            "\nNo offload block marked: {} ({} of {} workloads); the means below include them at their Baseline value, as the paper's means include every workload.",
            unmarked.iter().map(|b| abbr(b)).collect::<Vec<_>>().join(", "),
            led.int(unmarked.len() as u64, "unmarked workloads"),
            led.int(benches.len() as u64, "workloads"),
        )?;
    }

    // ---- offload blocks against Table 1
    let word = led.int(locus_sim::ndp::packets::WORD_BYTES as u64, "ndp word bytes");
    writeln!(
        cov,
        "\n## Offload blocks against Table 1 (read from the kernel models' markers)\n\nA static offload block is what its kernel model's markers declare (the `OFLD.BEG` / `OFLD.END` operands) with the block's global and texture loads and global stores, counted in the instructions between the markers. NSU instructions are Table 1's block size (ndp.md §5.4: address arithmetic stays on the GPU, the NSU markers are not counted); a block that spans a loop runs its body `iters` times per instance. Eq. 1 score = (loads + stores) x {word} B - (live-ins + live-outs) x {word} B per thread (ndp.md §3.3, words and registers of {word} B; a constant read from the NSU's constant cache is no load). \n"
    )?;
    let mut kmn_score: Option<i64> = None;
    let w = locus_sim::ndp::packets::WORD_BYTES as i64;
    // every Table 1 workload, from its model's markers (no simulation)
    let mut rows = Vec::new();
    let mut srows = Vec::new();
    for &(a, wl) in ndp::TABLE1 {
        let paper = ndp::TABLE1_BLOCKS
            .iter()
            .find(|t| t.0 == a)
            .map(|t| {
                t.1.iter()
                    .map(|&v| led.int(v, "paper table1 block size"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let blocks = ndp::model_blocks(wl)?;
        let mut ours = Vec::new();
        for m in &blocks {
            ours.push(led.int(m.nsu_insts as u64, "model marker nsu_insts"));
            let score = w * (m.loads + m.stores) as i64 - w * (m.live_ins + m.live_outs) as i64;
            if a == "KMN" && kmn_score.is_none() {
                kmn_score = Some(score);
            }
            srows.push(vec![
                a.to_string(),
                format!("`{}`", m.kernel),
                led.int(m.block as u64, "model marker block"),
                led.int(m.nsu_insts as u64, "model marker nsu_insts"),
                led.int(m.iters.max(1) as u64, "model marker iters"),
                led.int(m.loads as u64, "model block loads"),
                led.int(m.stores as u64, "model block stores"),
                led.int(m.live_ins as u64, "model marker live_ins"),
                led.int(m.live_outs as u64, "model marker live_outs"),
                led.put(format!("{score:+}"), "Eq. 1 score from the model's markers"),
            ]);
        }
        rows.push(vec![
            a.to_string(),
            paper,
            if ours.is_empty() {
                "none".into()
            } else {
                ours.join(", ")
            },
        ]);
    }
    writeln!(
        cov,
        "Every Table 1 workload's kernel model, generated without simulation (`model_blocks` in crates/cli/src/repro/ndp.rs: the first {} launches, the first {} thread blocks of each, on Table 1's parameters):\n",
        led.int(ndp::MODEL_LAUNCHES as u64, "model_blocks launches"),
        led.int(ndp::MODEL_TBS, "model_blocks thread blocks"),
    )?;
    cov += &table(
        &[
            "workload",
            "Table 1 (NSU instructions per block)",
            "Locus model (NSU instructions per block)",
        ]
        .map(String::from),
        &rows,
    );
    cov += "\n";
    // the columns both block tables share, then each table's last one
    let block_head = |last: &str| -> Vec<String> {
        [
            "workload",
            "kernel",
            "block",
            "NSU instructions",
            "iters",
            "loads",
            "stores",
            "live-ins",
            "live-outs",
            last,
        ]
        .map(String::from)
        .to_vec()
    };
    cov += &table(&block_head("Eq. 1 score, B per thread"), &srows);
    // the blocks the NaiveNDP runs met, with their instance counts
    let mut brows = Vec::new();
    for b in benches {
        let k = key(b, "naive");
        for i in 0.. {
            let bv = |f: &str| val(&k, &ndp::block_path(i, f));
            if !bv("nsu_insts").is_finite() {
                break;
            }
            let u = |f: &str| bv(f).max(0.0) as u64;
            brows.push(vec![
                abbr(b),
                led.int(u("kernel_index"), "sim.ndp.blocks kernel_index"),
                led.int(u("block"), "sim.ndp.blocks block"),
                led.int(u("nsu_insts"), "sim.ndp.blocks nsu_insts"),
                led.int(u("iters"), "sim.ndp.blocks iters"),
                led.int(u("loads"), "sim.ndp.blocks loads"),
                led.int(u("stores"), "sim.ndp.blocks stores"),
                led.int(u("live_ins"), "sim.ndp.blocks live_ins"),
                led.int(u("live_outs"), "sim.ndp.blocks live_outs"),
                led.int(u("instances"), "sim.ndp.blocks instances"),
            ]);
        }
    }
    writeln!(
        cov,
        "\nThe blocks the NaiveNDP runs met (`sim.ndp.blocks`; kernels numbered in order of first launch), with their instances (warp x block):\n"
    )?;
    cov += &table(&block_head("instances"), &brows);
    if let Some(sc) = kmn_score {
        writeln!(
            cov,
            "\nKMN's block is one iteration of Rodinia `kmeansPoint`'s feature loop (`diff = tex1Dfetch(t_features, addr) - c_clusters[cluster_base_index + j]; ans += diff*diff`): no block may span basic blocks (ndp.md §3.3) and the loop body is one, entered once per iteration through the back edge, so the block is its `TEX; FADD; FFMA` with the loop-carried `ans` in and out (crates/workload/src/bench/dense/km.rs). Its Eq. 1 score is {} B per thread: {}",
            led.put(format!("{sc:+}"), "Eq. 1 score of KMN's block"),
            if sc > 0 {
                "positive, so the static selection extracts it."
            } else {
                "not positive, so the literal static selection would not extract it, while Table 1 lists it; the model keeps Table 1's block, and NDP(Dyn)_Cache's cache-locality check, which starts from this score (ndp.md §4.4), then decides per warp from the misses measured (the suppressed share is in the coverage table above)."
            }
        )?;
    }

    // ---- disagreements
    let mut dis = String::from(
        "\n### Where Locus and the paper disagree (the claim's rule failed), and the measured reason\n\n",
    );
    let mut n_dis = 0;
    for (v, c) in verdicts.iter().zip(ctxs) {
        if v.held != Some(false) {
            continue;
        }
        n_dis += 1;
        let side = v
            .paper
            .and_then(|p| {
                led.cmp(v.ours, p, "Locus's value", "the paper's")
                    .map(|c| format!("{c}; "))
            })
            .unwrap_or_default();
        let bs = &c.benches;
        let unm: Vec<String> = bs
            .iter()
            .filter(|b| unmarked.contains(b))
            .map(|b| abbr(b))
            .collect();
        let unm_txt = if unm.is_empty() {
            String::new()
        } else {
            format!(
                "{} of its {} workload(s) have no offload block marked ({}) and so sit at the Baseline; ",
                led.int(unm.len() as u64, "unmarked workloads of the claim"),
                led.int(bs.len() as u64, "workloads of the claim"),
                unm.join(", ")
            )
        };
        let v_key = c.variant.as_str();
        let reason = match v_key {
            "fig5" => "unexplained (a Monte-Carlo of ndp.md §6.2's model, no simulation)".to_string(),
            "morecore" => format!(
                "measured: {}Baseline_MoreCore's L2 hit rate is {} against the Baseline's {} (means over its workloads), so the 8 extra SMs and their L1s change the memory stream this much",
                unm_txt.replace("have no offload block marked", "have no offload block marked (irrelevant here)"),
                led.pct(am(&over(bs, &|b| val(&key(b, "morecore"), "l2_hit_rate"))), "morecore l2 hit rate"),
                led.pct(am(&over(bs, &|b| val(&key(b, "base"), "l2_hit_rate"))), "base l2 hit rate"),
            ),
            "naive" => {
                let bs: Vec<String> = bs.iter().filter(|b| !unmarked.contains(b)).cloned().collect();
                let m = |f: &dyn Fn(&str) -> f64| am(&over(&bs, &|b| f(&key(b, "naive"))));
                format!(
                    "measured: {}on its workloads with offload blocks the NSU issue bound (instances x NSU instructions / NSU issue rate) is {} of the Baseline's time on average and the NSUs issue in {} of their cycles, so the NSUs' issue rate does not hold NaiveNDP far below the Baseline; an instance spends on average {} of its time waiting for its grant (NSU buffers held by the instances ahead) and its warp is blocked at `OFLD.END` for {} of it; NSU instructions per instance average {} (see Where NaiveNDP's time goes)",
                    unm_txt,
                    led.x(m(&|k| ratio(bound_us(k), us(&k.replace("-naive", "-base")))), "claim nsu bound over base"),
                    led.pct(m(&|k| val(k, ndp::NSU_ISSUE_USE)), "claim nsu issue use"),
                    led.pct(m(&|k| ratio(val(k, ndp::PHASES[0].1), val(k, ndp::INST_TOTAL))), "claim to-grant share"),
                    led.pct(m(&|k| ratio(val(k, ndp::INST_BLOCKED), val(k, ndp::INST_TOTAL))), "claim blocked share"),
                    led.f(m(&|k| val(k, ndp::NSU_INSTS)), 1, "claim nsu insts per instance"),
                )
            }
            "static" | "dyn" | "dyncache" | "nsu175" | "dyncache128" => {
                let vk = if v_key == "static" { "naive" } else { v_key };
                // the claim's own Baseline: the 128-SM study's is `base128`
                let (bk, bname) = if v_key == "dyncache128" {
                    ("base128", "the 128-SM Baseline's")
                } else {
                    ("base", "the Baseline's")
                };
                format!(
                    "measured: {}under {} the NSUs' mean warp-slot occupancy is {}, {} of block instances were offloaded ({} suppressed by the cache-locality check), and {bname} L2 hit rate is {} (means over its workloads); the GPU's links carried {} of {bname} bytes, whose busiest GPU link was {} busy (NDP gains by cutting the traffic of GPU links a Baseline saturates, ndp.md §1)",
                    unm_txt,
                    vk,
                    led.pct(am(&over(bs, &|b| val(&key(b, vk), OCCUPANCY))), "claim occupancy"),
                    led.pct(am(&over(bs, &|b| offload_share(&key(b, vk)))), "claim offloaded share"),
                    led.pct(
                        am(&over(bs, &|b| suppressed_share(&key(b, vk)))),
                        "claim suppressed share",
                    ),
                    led.pct(am(&over(bs, &|b| val(&key(b, bk), "l2_hit_rate"))), "base l2 hit rate"),
                    led.x(
                        am(&over(bs, &|b| ratio(
                            gpu_links(runs, &key(b, vk)).0,
                            gpu_links(runs, &key(b, bk)).0
                        ))),
                        "claim gpu link bytes over base"
                    ),
                    led.pct(
                        am(&over(bs, &|b| gpu_links(runs, &key(b, bk)).1)),
                        "base busiest gpu link utilisation"
                    ),
                )
            }
            ndp::INVAL_CTX => {
                let per = |b: &str| {
                    let k = key(b, "dyncache");
                    ratio(val(&k, ndp::INVALS), val(&k, OFFLOADED))
                };
                let top = bs
                    .iter()
                    .filter(|b| val(&key(b, "dyncache"), ndp::INVAL_SHARE).is_finite())
                    .max_by(|a, b| {
                        val(&key(a, "dyncache"), ndp::INVAL_SHARE)
                            .total_cmp(&val(&key(b, "dyncache"), ndp::INVAL_SHARE))
                    });
                match top {
                    Some(t) => {
                        let others: Vec<String> = bs
                            .iter()
                            .filter(|b| *b != t && val(&key(b, "dyncache"), OFFLOADED) > 0.0)
                            .cloned()
                            .collect();
                        format!(
                            "measured: the largest share is {}'s, whose NDP(Dyn)_Cache run sent {} invalidations per offloaded instance (one per line an NSU store writes, ndp.md §3.9: a store whose lanes write scattered addresses writes up to one line per lane), against {} on average over the other workloads with an offloaded instance",
                            abbr(t),
                            led.f(per(t), 2, "inval per instance top"),
                            led.f(am(&over(&others, &|b| per(b))), 2, "inval per instance others"),
                        )
                    }
                    None => "unexplained".to_string(),
                }
            }
            k if k.starts_with('s') => format!(
                "measured: {}at this ratio the NSUs' mean warp-slot occupancy is {} and the Baseline's L2 hit rate {}",
                unm_txt,
                led.pct(am(&over(bs, &|b| val(&key(b, k), OCCUPANCY))), "claim occupancy"),
                led.pct(am(&over(bs, &|b| val(&key(b, "base"), "l2_hit_rate"))), "base l2 hit rate"),
            ),
            _ => "unexplained".to_string(),
        };
        writeln!(
            dis,
            "- {}: paper {}, Locus {}; {side}{reason}.",
            v.name, v.paper_text, v.ours_text
        )?;
    }
    if n_dis == 0 {
        writeln!(dis, "None of the judged claims failed.")?;
    }

    // ---- Fig. 5
    let mut f5 = format!("\n## Fig. 5: target-NSU policy (Monte-Carlo, {} stacks)\n\nRemote accesses of the first-access target over those of the optimal target (the stack holding most of the block's accesses), every access on a uniformly random stack, {} draws per point (`locus_sim::ndp::target::fig5_ratio`; ndp.md §6.2).\n\n",
        led.int(8, "fig5 stacks"), led.int(ndp::FIG5_TRIALS as u64, "fig5 trials"));
    let mut rows = Vec::new();
    let mut csv = String::from("accesses,first_over_optimal\n");
    let mut ys = Vec::new();
    for (i, &n) in FIG5_N.iter().enumerate() {
        let r = val(FIG5_KEY, &format!("sim.fig5.ratio.{i}"));
        ys.push(r);
        let _ = writeln!(csv, "{n},{r}");
        rows.push(vec![
            led.int(n as u64, "fig5 accesses"),
            led.gain(r, "fig5 extra traffic"),
        ]);
    }
    f5 += &table(
        &["accesses in the block".to_string(), "extra traffic".into()],
        &rows,
    );
    writeln!(
        f5,
        "\nThe paper: at most {} more traffic, shrinking as the access count grows.",
        led.gain(1.15, "paper fig5")
    )?;
    std::fs::write(out.join("fig5_target.csv"), csv)?;
    let xs: Vec<f64> = FIG5_N.iter().map(|&n| n as f64).collect();
    plot::lines(
        &figs.join("ndp-fig5-target"),
        "Fig. 5: first-access target over optimal, off-chip accesses",
        "accesses in the block",
        "traffic ratio",
        &xs,
        &[
            ("Locus Monte-Carlo".to_string(), ys),
            ("paper bound".to_string(), vec![1.15; xs.len()]),
        ],
    )?;

    // ---- Fig. 7
    let mut f7 =
        String::from("\n## Fig. 7: Baseline_MoreCore and NaiveNDP (speedup over Baseline)\n\n");
    let mut rows = Vec::new();
    let mut series = vec![
        ("Baseline_MoreCore".to_string(), Vec::new()),
        ("NaiveNDP".to_string(), Vec::new()),
    ];
    let mut marks = Vec::new();
    let mut csv = String::from("bench,morecore,naive\n");
    for (i, b) in benches.iter().enumerate() {
        let (m, n) = (sp(b, "base", "morecore"), sp(b, "base", "naive"));
        let _ = writeln!(csv, "{b},{m},{n}");
        series[0].1.push(m);
        series[1].1.push(n);
        match abbr(b).as_str() {
            "KMN" => marks.push((i, 0, 1.257)),
            "STN" => marks.push((i, 1, 0.14)),
            _ => {}
        }
        rows.push(vec![
            abbr(b),
            led.x(m, "fig7 morecore"),
            led.x(n, "fig7 naive"),
        ]);
    }
    let mut cats: Vec<String> = benches.iter().map(|b| abbr(b)).collect();
    for (name, f) in [("mean", am as fn(&[f64]) -> f64), ("geomean", gm)] {
        let m = f(&over(benches, &|b| sp(b, "base", "morecore")));
        let n = f(&over(benches, &|b| sp(b, "base", "naive")));
        series[0].1.push(m);
        series[1].1.push(n);
        if name == "mean" {
            marks.push((cats.len(), 1, 0.48));
        }
        cats.push(name.to_string());
        rows.push(vec![
            name.to_string(),
            led.x(m, "fig7 mean morecore"),
            led.x(n, "fig7 mean naive"),
        ]);
    }
    f7 += &table(
        &[
            "workload".to_string(),
            "Baseline_MoreCore".into(),
            "NaiveNDP".into(),
        ],
        &rows,
    );
    writeln!(
        f7,
        "\nThe paper: Baseline_MoreCore gains below {} except KMN ({}); NaiveNDP is slower on every workload, {} on STN and {} on average (read as normalized performance, ndp.md §6.3).",
        led.gain(1.03, "paper morecore bound"),
        led.gain(1.257, "paper morecore kmn"),
        led.x(0.14, "paper naive stn"),
        led.x(0.48, "paper naive mean"),
    )?;
    std::fs::write(out.join("fig7_naive.csv"), csv)?;
    plot::grouped_bars_marked(
        &figs.join("ndp-fig7-naive"),
        "Fig. 7: speedup over Baseline",
        "speedup",
        &cats,
        &series,
        Some(1.0),
        &marks,
    )?;

    // ---- Fig. 7: where NaiveNDP's time goes (issue 11)
    let marked: Vec<String> = benches
        .iter()
        .filter(|b| !unmarked.contains(b))
        .cloned()
        .collect();
    writeln!(
        f7,
        "\n### Where NaiveNDP's time goes\n\nNaiveNDP can finish no sooner than its NSUs can issue the NSU code of every instance: the NSU issue bound = offloaded instances x NSU instructions per instance / ({} NSUs x {} GHz), one warp instruction per NSU cycle (ndp.md §7.12). The NSU code is Fig. 3(b)'s: the block's instructions plus NSU `OFLD.BEG` and `OFLD.END` (`ndp.nsu_marker_insts = \"begin-and-end\"`, the literal reading and the default; `end-only` folds `OFLD.BEG` into the spawn, the column `NaiveNDP, end-only`). NSU issue use = NSU instructions over NSU cycles, all NSUs (1 = every NSU issued every cycle). Times in microseconds (SM cycles at {} GHz).\n",
        led.int(nsus as u64, "config ndp.stack_nodes"),
        led.f(nsu_ghz, 2, "config ndp.nsu_clock_ghz"),
        led.f(sm_ghz, 2, "config system.sm_clock_ghz"),
    )?;
    let mut rows = Vec::new();
    let mut csv = String::from(
        "bench,base_us,naive_us,nsu_issue_bound_us,nsu_issue_use,nsu_insts_per_instance",
    );
    for (l, _) in ndp::PHASES {
        let _ = write!(csv, ",{}_ns", l.replace(' ', "_"));
    }
    csv.push_str(",total_ns,blocked_ns\n");
    for b in &marked {
        let (kb, kn) = (key(b, "base"), key(b, "naive"));
        rows.push(vec![
            abbr(b),
            led.f(us(&kb), 0, "base us"),
            led.f(us(&kn), 0, "naive us"),
            led.x(sp(b, "base", ndp::NAIVE_END_ONLY), "naive end-only speedup"),
            led.f(bound_us(&kn), 0, "naive nsu issue bound us"),
            led.x(ratio(bound_us(&kn), us(&kb)), "nsu issue bound over base"),
            led.pct(val(&kn, ndp::NSU_ISSUE_USE), "naive nsu issue use"),
            led.f(val(&kn, ndp::NSU_INSTS), 1, "naive nsu insts per instance"),
        ]);
        let _ = write!(
            csv,
            "{b},{},{},{},{},{}",
            us(&kb),
            us(&kn),
            bound_us(&kn),
            val(&kn, ndp::NSU_ISSUE_USE),
            val(&kn, ndp::NSU_INSTS)
        );
        for (_, p) in ndp::PHASES {
            let _ = write!(csv, ",{}", val(&kn, p));
        }
        let _ = writeln!(
            csv,
            ",{},{}",
            val(&kn, ndp::INST_TOTAL),
            val(&kn, ndp::INST_BLOCKED)
        );
    }
    f7 += &table(
        &[
            "workload",
            "Baseline, us",
            "NaiveNDP, us",
            "NaiveNDP, end-only (speedup)",
            "NSU issue bound, us",
            "bound / Baseline",
            "NSU issue use",
            "NSU instructions per instance",
        ]
        .map(String::from),
        &rows,
    );
    writeln!(
        f7,
        "\nAn offloaded instance's time from `OFLD.BEG` to the warp's release, mean ns per instance under NaiveNDP (`locus_sim::ndp::InstanceTime`): to grant = until the reservation of its NSU buffers is granted (the target is known at the first memory instruction, then the instance may wait for credits, §3.8); command transit = grant to the command at the NSU; NSU command queue = waiting for one of the NSU's warp slots (`ndp.nsu_warps`); data wait = spawned warp to its last RDF response or WTA; NSU issue = then to its last NSU write sent; write acks = then to the offload ack sent; ack transit = to the GPU; invalidations = then to release (§3.9). Consecutive phases, so they add up to the total; `blocked` is the part of the total the warp waited at `OFLD.END` (the rest it spent issuing the block's GPU part).\n"
    )?;
    let mut rows = Vec::new();
    for b in &marked {
        let kn = key(b, "naive");
        let mut r = vec![abbr(b)];
        for (l, p) in ndp::PHASES {
            r.push(led.f(val(&kn, p), 0, &format!("naive phase {l}")));
        }
        r.push(led.f(val(&kn, ndp::INST_TOTAL), 0, "naive instance total"));
        r.push(led.pct(
            ratio(val(&kn, ndp::INST_BLOCKED), val(&kn, ndp::INST_TOTAL)),
            "naive blocked share",
        ));
        rows.push(r);
    }
    let mut cols: Vec<String> = vec!["workload".into()];
    cols.extend(ndp::PHASES.iter().map(|p| p.0.to_string()));
    cols.push("total".into());
    cols.push("blocked at OFLD.END".into());
    f7 += &table(&cols, &rows);
    let below: Vec<String> = marked
        .iter()
        .filter(|b| ratio(bound_us(&key(b, "naive")), us(&key(b, "base"))) < 1.0)
        .map(|b| abbr(b))
        .collect();
    let grant_share = am(&over(&marked, &|b| {
        let k = key(b, "naive");
        ratio(val(&k, ndp::PHASES[0].1), val(&k, ndp::INST_TOTAL))
    }));
    writeln!(
        f7,
        "\nThe NSU issue bound is below the Baseline's time on {} of {} workloads with offload blocks ({}): there the NSUs' issue rate alone would let NaiveNDP finish before the Baseline (the bound is a floor on NaiveNDP's time, not a ceiling); NaiveNDP takes {} of its bound on average (the NSUs issue in {} of their cycles), and its instances wait: on average {} of an instance's time is spent before its grant (its NSU's buffers full of instances ahead of it). How far NaiveNDP falls behind thus follows from NSU instructions per instance against the Baseline's time per instance; Table 1's block sizes (+2 for the markers) are what the Locus kernel models' blocks should match.",
        led.int(below.len() as u64, "workloads with nsu bound below base"),
        led.int(marked.len() as u64, "workloads with offload blocks"),
        if below.is_empty() { "none".to_string() } else { below.join(", ") },
        led.x(
            am(&over(&marked, &|b| {
                let k = key(b, "naive");
                ratio(us(&k), bound_us(&k))
            })),
            "naive over its nsu bound",
        ),
        led.pct(
            am(&over(&marked, &|b| val(&key(b, "naive"), ndp::NSU_ISSUE_USE))),
            "naive nsu issue use mean",
        ),
        led.pct(grant_share, "naive to-grant share of instance time"),
    )?;
    std::fs::write(out.join("fig7_naive_time.csv"), csv)?;

    // ---- Fig. 8
    let mut f8 =
        String::from("\n## Fig. 8: GPU no-issue cycles (normalized to the Baseline's total)\n\n");
    // one reading's class `c` (a `NO_ISSUE` path's last part) of run `k`
    let part = |k: &str, reading: &str, c: &str| {
        let leaf = c.rsplit('.').next().unwrap_or(c);
        val(k, &format!("{reading}.{leaf}"))
    };
    let (lit, alt) = (NO_ISSUE_READINGS[0], NO_ISSUE_READINGS[1]);
    let total = |k: &str| NO_ISSUE.iter().map(|c| part(k, lit.1, c.1)).sum::<f64>();
    let have8 = benches.iter().any(|b| total(&key(b, "split0")).is_finite());
    let mut csv = String::from("bench,config,reading,exec_busy,dependency,idle\n");
    let mut cats8 = Vec::new();
    let mut parts: Vec<(String, Vec<f64>)> = NO_ISSUE
        .iter()
        .map(|c| (c.0.to_string(), Vec::new()))
        .collect();
    let mut parts_alt = parts.clone();
    let (mut rows, mut rows_alt) = (Vec::new(), Vec::new());
    let mut moved_any = 0u64;
    for b in benches {
        let t = total(&key(b, "split0"));
        for c in ["split0", "naive"] {
            let k = key(b, c);
            let share = |reading: &str| -> Vec<f64> {
                NO_ISSUE
                    .iter()
                    .map(|n| ratio(part(&k, reading, n.1), t))
                    .collect()
            };
            let (v, w) = (share(lit.1), share(alt.1));
            for (name, x) in [(lit.0, &v), (alt.0, &w)] {
                let _ = writeln!(csv, "{b},{c},{name},{},{},{}", x[0], x[1], x[2]);
            }
            cats8.push(format!("{} {c}", abbr(b)));
            for (i, (x, y)) in v.iter().zip(&w).enumerate() {
                parts[i].1.push(*x);
                parts_alt[i].1.push(*y);
            }
            let mut r = vec![format!("{} {c}", abbr(b))];
            r.extend(v.iter().map(|&x| led.f(x, 2, "fig8 share")));
            rows.push(r);
            // the other reading and what moved out of ExecUnitBusy (cycles / Baseline total)
            let moved = part(&k, lit.1, NO_ISSUE[0].1) - part(&k, alt.1, NO_ISSUE[0].1);
            moved_any += (moved > 0.0) as u64;
            let held: f64 = HELD.iter().map(|p| val(&k, p)).sum();
            let mut r = vec![format!("{} {c}", abbr(b))];
            r.extend(w.iter().map(|&x| led.f(x, 2, "fig8 share, other reading")));
            r.push(led.f(ratio(moved, t), 2, "fig8 moved share"));
            r.push(if held.is_finite() {
                led.int(held as u64, "fig8 held issue attempts")
            } else {
                "no data".into()
            });
            rows_alt.push(r);
        }
    }
    std::fs::write(out.join("fig8_noissue.csv"), csv)?;
    if have8 {
        writeln!(
            f8,
            "A cycle in which a warp could not issue only because its SM's pending or ready offload packet buffer was full is classed by `ndp.pending_stall_as`. Literal reading (the default, `{}`): the held warp has a valid instruction with ready operands that the memory pipeline does not take, the paper's \"ExecUnitBusy: the execution unit was not available\" (GPGPU-sim's \"pipeline stalled\"); every run records both readings, so both tables below come from the same runs.\n",
            lit.0
        )?;
        let mut h = vec!["run".to_string()];
        h.extend(NO_ISSUE.iter().map(|c| c.0.to_string()));
        f8 += &table(&h, &rows);
        writeln!(
            f8,
            "\nOther reading (`ndp.pending_stall_as = \"{}\"`): the held warp counts as one without a valid instruction (like a warp waiting for its offload ack), so the cycle is a dependency stall if another warp waits on an operand, else warp idle. `moved` is the difference, the literal reading's ExecUnitBusy minus this one's (same normalization), which lands in the other two columns; `held` counts the issue attempts a full pending or ready buffer refused (`sim.ndp.pending_full_stalls` + `sim.ndp.ready_full_stalls`). Figures: `ndp-fig8-noissue` (literal) and `ndp-fig8-noissue-warp-idle`.\n",
            alt.0
        )?;
        let mut h = vec!["run".to_string()];
        h.extend(NO_ISSUE.iter().map(|c| c.0.to_string()));
        h.push("moved".into());
        h.push("held".into());
        f8 += &table(&h, &rows_alt);
        writeln!(
            f8,
            "\nThe two readings differ on {} of {} run(s) shown.",
            led.int(moved_any, "fig8 runs where the readings differ"),
            led.int(rows_alt.len() as u64, "fig8 runs shown"),
        )?;
        plot::stacked_bars(
            &figs.join("ndp-fig8-noissue"),
            "Fig. 8: no-issue cycles, normalized to Baseline",
            "share of Baseline no-issue cycles",
            &cats8,
            &parts,
        )?;
        plot::stacked_bars(
            &figs.join("ndp-fig8-noissue-warp-idle"),
            "Fig. 8, held cycles as warp idle (ndp.pending_stall_as)",
            "share of Baseline no-issue cycles",
            &cats8,
            &parts_alt,
        )?;
    } else {
        f8 += "no data: the runs carry no `sim.ndp.no_issue` statistics (the simulator does not split no-issue cycles in this build).\n";
    }
    if have8 {
        let same = benches
            .iter()
            .filter(|b| val(&key(b, "split0"), "cycles") == val(&key(b, "base"), "cycles"))
            .count();
        writeln!(
            f8,
            "\nThe Baseline's split (`split0`) comes from `ndp.offload = static` at ratio 0 (every block instance kept on the GPU), since the offload station, off under `none`, is what classifies no-issue cycles; its cycles equal the Baseline's on {} of {} workload(s).",
            led.int(same as u64, "fig8 split0 cycles equal base"),
            led.int(benches.len() as u64, "fig8 workloads"),
        )?;
    }
    writeln!(f8, "\nThe paper: dependency stalls dominate the Baselines; under NaiveNDP warp idle rises sharply.")?;

    // ---- Fig. 9
    let mut f9 = String::from("\n## Fig. 9: static offload ratios, NDP(Dyn) and NDP(Dyn)_Cache (speedup over Baseline)\n\n");
    let mut cols: Vec<(String, String)> = ratios
        .iter()
        .map(|&r| {
            (
                led.put(format!("NDP({r})"), "static ratio label"),
                static_key(r),
            )
        })
        .collect();
    cols.push((led.put("NDP(1.0)".into(), "naive label"), "naive".into()));
    cols.push(("NDP(Dyn)".into(), "dyn".into()));
    cols.push(("NDP(Dyn)_Cache".into(), "dyncache".into()));
    let mut series: Vec<(String, Vec<f64>)> =
        cols.iter().map(|c| (c.0.clone(), Vec::new())).collect();
    let mut rows = Vec::new();
    let mut marks = Vec::new();
    let mut csv = format!(
        "bench,{}\n",
        cols.iter()
            .map(|c| c.1.clone())
            .collect::<Vec<_>>()
            .join(",")
    );
    let col_of = |k: &str| cols.iter().position(|c| c.1 == k);
    for (i, b) in benches.iter().enumerate() {
        let v: Vec<f64> = cols.iter().map(|c| sp(b, "base", &c.1)).collect();
        let _ = writeln!(
            csv,
            "{b},{}",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        for (j, x) in v.iter().enumerate() {
            series[j].1.push(*x);
        }
        let paper: &[(&str, f64)] = match abbr(b).as_str() {
            "KMN" => &[("dyn", 1.668), ("dyncache", 1.668)],
            "VADD" => &[("dyn", 1.249)],
            "STN" => &[("dyn", 0.83), ("dyncache", 1.0)],
            "BFS" => &[("s0.4", 1.31)],
            "BICG" => &[("s0.15", 1.115)],
            _ => &[],
        };
        for &(k, p) in paper {
            if let Some(j) = col_of(k) {
                marks.push((i, j, p));
            }
        }
        let mut r = vec![abbr(b)];
        r.extend(v.iter().map(|&x| led.x(x, "fig9 speedup")));
        rows.push(r);
    }
    let mut cats: Vec<String> = benches.iter().map(|b| abbr(b)).collect();
    for (name, f) in [("mean", am as fn(&[f64]) -> f64), ("geomean", gm)] {
        let v: Vec<f64> = cols
            .iter()
            .map(|c| f(&over(benches, &|b| sp(b, "base", &c.1))))
            .collect();
        for (j, x) in v.iter().enumerate() {
            series[j].1.push(*x);
        }
        if name == "mean" {
            for (k, p) in [("dyn", 1.149), ("dyncache", 1.179)] {
                if let Some(j) = col_of(k) {
                    marks.push((cats.len(), j, p));
                }
            }
        }
        cats.push(name.to_string());
        let mut r = vec![name.to_string()];
        r.extend(v.iter().map(|&x| led.x(x, "fig9 mean speedup")));
        rows.push(r);
    }
    let mut h = vec!["workload".to_string()];
    h.extend(cols.iter().map(|c| c.0.clone()));
    f9 += &table(&h, &rows);
    writeln!(
        f9,
        "\nThe paper: best static KMN {}, BFS {} at ratio {}, BICG {} at {}; only degradation for BPROP, BICG, STN and STCL on the 0.2-1.0 grid; NDP(Dyn) {} on average (KMN {}, VADD {}, STN {}); NDP(Dyn)_Cache {} on average.",
        led.gain(1.636, "paper kmn best static"),
        led.gain(1.31, "paper bfs 0.4"),
        led.f(0.4, 1, "paper bfs ratio"),
        led.gain(1.115, "paper bicg 0.15"),
        led.f(0.15, 2, "paper bicg ratio"),
        led.gain(1.149, "paper dyn mean"),
        led.gain(1.668, "paper dyn kmn"),
        led.gain(1.249, "paper dyn vadd"),
        led.gain(0.83, "paper dyn stn"),
        led.gain(1.179, "paper dyncache mean"),
    )?;
    led.put("0.2".into(), "fig9 grid");
    led.put("1.0".into(), "fig9 grid");
    std::fs::write(out.join("fig9_static.csv"), csv)?;
    plot::grouped_bars_marked(
        &figs.join("ndp-fig9-static"),
        "Fig. 9: speedup over Baseline",
        "speedup",
        &cats,
        &series,
        Some(1.0),
        &marks,
    )?;
    // the Dyn controller: its epochs, the ratio it had reached when the first offload-block
    // instruction counted, the ratio at the end, and both readings of its IPC
    let mut dynr = format!(
        "\nNDP(Dyn)'s hill climber (Algorithm 1, ndp.md §4.3): epochs run; epochs at IPC 0 before the first whose IPC is above 0 (no offload-block instance counted in them: a kernel without offload blocks ran, or no instance had retired yet); the ratio in force when the first block instance counted (the initial {} if none came before); the ratio in force at the end. Algorithm 1 moves the ratio every epoch and reverses only when the IPC fell, so an epoch whose IPC equals the last (0 = 0) keeps the direction. Algorithm 1's IPC counts an instance at its `OFLD.END` retirement, block instructions x active threads (`ndp.hill_ipc = \"retire\"`, spec §7 decision 3, the default); the other reading counts each block warp instruction as the GPU issues it (`issue`, Locus before session 16), where an offloaded instance's GPU-side instructions count before its NSU has run it. Speedups over the Baseline under both readings, with `ndp.hill_hold_idle = true` (`hold`, a reading of ours, not the paper's: an epoch at IPC 0 leaves ratio, step and history as they were), with Algorithm 1 as printed, and NDP(Dyn)_Cache with the spec's per-warp benefit.\n\n",
        led.f(cfg.ndp.init_ratio, 2, "config ndp.init_ratio"),
    );
    let mut rows = Vec::new();
    let mut climbed = Vec::new();
    for b in benches {
        let k = key(b, "dyn");
        let ratio_at = |n: usize| val(&k, &format!("sim.ndp.ratio_per_epoch.{n}"));
        let mut n = 0;
        while ratio_at(n).is_finite() {
            n += 1;
        }
        let mut lead = 0;
        while lead < n && val(&k, &format!("sim.ndp.ipc_per_epoch.{lead}")) == 0.0 {
            lead += 1;
        }
        let last = if n > 0 { ratio_at(n - 1) } else { f64::NAN };
        let first = if lead == 0 {
            cfg.ndp.init_ratio
        } else if lead < n {
            ratio_at(lead - 1)
        } else {
            f64::NAN
        };
        if lead > 0 && lead < n && first > cfg.ndp.init_ratio + 1e-9 {
            climbed.push((abbr(b), lead, first, sp(b, "base", "dyn")));
        }
        rows.push(vec![
            abbr(b),
            led.int(n as u64, "dyn epochs"),
            led.int(lead as u64, "dyn epochs before blocks"),
            led.f(first, 2, "dyn ratio at first block"),
            led.f(last, 2, "dyn last ratio"),
            led.x(sp(b, "base", "dyn"), "dyn speedup"),
            led.x(sp(b, "base", ndp::DYN_ISSUE_IPC), "dyn issue-ipc speedup"),
            led.x(sp(b, "base", "dyncache"), "dyncache speedup"),
            led.x(
                sp(b, "base", ndp::DYNCACHE_ISSUE_IPC),
                "dyncache issue-ipc speedup",
            ),
            led.x(sp(b, "base", ndp::DYN_HOLD), "dyn hold speedup"),
            led.x(sp(b, "base", ndp::DYNCACHE_HOLD), "dyncache hold speedup"),
            led.x(
                sp(b, "base", ndp::DYN_PRINTED_ALG1),
                "dyn printed algorithm 1 speedup",
            ),
            led.x(
                sp(b, "base", ndp::DYNCACHE_PER_WARP),
                "dyncache per-warp benefit speedup",
            ),
        ]);
    }
    let means: Vec<f64> = [
        "dyn",
        ndp::DYN_ISSUE_IPC,
        "dyncache",
        ndp::DYNCACHE_ISSUE_IPC,
        ndp::DYN_HOLD,
        ndp::DYNCACHE_HOLD,
        ndp::DYN_PRINTED_ALG1,
        ndp::DYNCACHE_PER_WARP,
    ]
    .iter()
    .map(|c| am(&over(benches, &|b| sp(b, "base", c))))
    .collect();
    let mut r = vec![
        "mean".to_string(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ];
    r.extend(means.iter().map(|&x| led.x(x, "dyn readings mean speedup")));
    rows.push(r);
    dynr += &table(
        &[
            "workload".to_string(),
            "epochs".into(),
            "epochs at IPC 0 first".into(),
            "ratio at the first block".into(),
            "final ratio".into(),
            "NDP(Dyn), retire".into(),
            "NDP(Dyn), issue".into(),
            "NDP(Dyn)_Cache, retire".into(),
            "NDP(Dyn)_Cache, issue".into(),
            "NDP(Dyn), hold".into(),
            "NDP(Dyn)_Cache, hold".into(),
            "NDP(Dyn), Algorithm 1 as printed".into(),
            "NDP(Dyn)_Cache, per-warp benefit".into(),
        ],
        &rows,
    );
    if means.iter().all(|x| x.is_finite()) {
        writeln!(
            dynr,
            "\nMean speedup of NDP(Dyn): {} at retirement (the default), {} at issue, {} holding at IPC 0; NDP(Dyn)_Cache: {}, {} and {}.",
            led.gain(means[0], "dyn mean retire"),
            led.gain(means[1], "dyn mean issue"),
            led.gain(means[4], "dyn mean hold"),
            led.gain(means[2], "dyncache mean retire"),
            led.gain(means[3], "dyncache mean issue"),
            led.gain(means[5], "dyncache mean hold"),
        )?;
        writeln!(
            dynr,
            "\nAlgorithm 1 as printed (`ndp.literal_algorithm1 = true`: the ratio moves by `Step_unit` inside the printed guard, the step grows at its minimum) against the prose's reading (the default): NDP(Dyn) {} against {}, {} points. The §4.4 benefit with the spec's per-warp unit fix (`ndp.paper_literal_benefit = false`) against the printed formula (the default): NDP(Dyn)_Cache {} against {}, {} points.",
            led.gain(means[6], "dyn printed alg1 mean"),
            led.gain(means[0], "dyn mean retire"),
            led.put(format!("{:+.1}", 100.0 * (means[6] - means[0])), "printed alg1 minus prose, points"),
            led.gain(means[7], "dyncache per-warp mean"),
            led.gain(means[2], "dyncache mean retire"),
            led.put(format!("{:+.1}", 100.0 * (means[7] - means[2])), "per-warp minus printed, points"),
        )?;
    }
    if !climbed.is_empty() {
        let list: Vec<String> = climbed
            .iter()
            .map(|(a, lead, r, x)| {
                format!(
                    "{a} ({} epochs at IPC 0, ratio {}, NDP(Dyn) {})",
                    led.int(*lead as u64, "climb epochs"),
                    led.f(*r, 2, "climb ratio"),
                    led.x(*x, "climb speedup")
                )
            })
            .collect();
        writeln!(
            dynr,
            "\nWhere a kernel without offload blocks ran first, the ratio climbed with no signal before any block instance counted: {}.",
            list.join(", ")
        )?;
    }
    f9 += &dynr;

    // ---- Fig. 10
    let mut f10 = String::from("\n## Fig. 10: energy (normalized to Baseline)\n\n");
    let ecfg = [
        ("morecore", "Baseline_MoreCore"),
        ("naive", "NaiveNDP"),
        ("dyn", "NDP(Dyn)"),
        ("dyncache", "NDP(Dyn)_Cache"),
    ];
    let en = |b: &str, c: &str| ratio(val(&key(b, c), ENERGY), val(&key(b, "base"), ENERGY));
    let mut series: Vec<(String, Vec<f64>)> =
        ecfg.iter().map(|c| (c.1.to_string(), Vec::new())).collect();
    let mut rows = Vec::new();
    let mut marks = Vec::new();
    let mut csv = String::from("bench,morecore,naive,dyn,dyncache\n");
    for (i, b) in benches.iter().enumerate() {
        let v: Vec<f64> = ecfg.iter().map(|c| en(b, c.0)).collect();
        let _ = writeln!(csv, "{b},{},{},{},{}", v[0], v[1], v[2], v[3]);
        for (j, x) in v.iter().enumerate() {
            series[j].1.push(*x);
        }
        if abbr(b) == "KMN" {
            marks.push((i, 2, 0.624));
        }
        let mut r = vec![abbr(b)];
        r.extend(v.iter().map(|&x| led.x(x, "fig10 energy")));
        rows.push(r);
    }
    let mut cats: Vec<String> = benches.iter().map(|b| abbr(b)).collect();
    let v: Vec<f64> = ecfg
        .iter()
        .map(|c| am(&over(benches, &|b| en(b, c.0))))
        .collect();
    for (j, x) in v.iter().enumerate() {
        series[j].1.push(*x);
    }
    marks.push((cats.len(), 0, 1.0));
    marks.push((cats.len(), 2, 0.925));
    marks.push((cats.len(), 3, 0.914));
    cats.push("mean".into());
    let mut r = vec!["mean".to_string()];
    r.extend(v.iter().map(|&x| led.x(x, "fig10 mean energy")));
    rows.push(r);
    let mut h = vec!["workload".to_string()];
    h.extend(ecfg.iter().map(|c| c.1.to_string()));
    f10 += &table(&h, &rows);
    writeln!(
        f10,
        "\nThe paper: Baseline_MoreCore about {}, NDP(Dyn) {} on average ({} on KMN), NDP(Dyn)_Cache {} on average. Locus's energy is `sim.energy.total_j` (crates/sim/src/energy.rs), not GPUWattch: compare the ratios only. It prices the NSUs (ndp.md §5.3): their warp instructions at `energy.nsu_inst_pj` (the SM's FP figure) and their static power (`energy.nsu_static_w`) in runs that offload, the `@NSU` ALU instructions the GPU issues as NOPs at the issue-only `energy.other_inst_pj` (`sim.ndp.gpu_alu_nops`).",
        led.x(1.0, "paper morecore energy"),
        led.x(0.925, "paper dyn energy"),
        led.x(0.624, "paper dyn kmn energy"),
        led.x(0.914, "paper dyncache energy"),
    )?;
    std::fs::write(out.join("fig10_energy.csv"), csv)?;
    plot::grouped_bars_marked(
        &figs.join("ndp-fig10-energy"),
        "Fig. 10: energy normalized to Baseline",
        "normalized energy",
        &cats,
        &series,
        Some(1.0),
        &marks,
    )?;

    // ---- Fig. 11 and §6.10
    let mut f11 =
        String::from("\n## Fig. 11 and §6.10: NSU occupancy and NDP traffic (NDP(Dyn)_Cache)\n\n");
    let mut rows = Vec::new();
    let mut occ = Vec::new();
    let mut ic = Vec::new();
    let mut marks = Vec::new();
    let mut csv =
        String::from("bench,nsu_occupancy,icache_use,invalidation_share,live_ins,live_outs\n");
    for (i, b) in benches.iter().enumerate() {
        let k = key(b, "dyncache");
        let (o, c, s, li, lo) = (
            val(&k, OCCUPANCY),
            val(&k, ICACHE),
            val(&k, INVAL_SHARE),
            val(&k, LIVE_INS),
            val(&k, LIVE_OUTS),
        );
        let _ = writeln!(csv, "{b},{o},{c},{s},{li},{lo}");
        occ.push(o);
        ic.push(c);
        if abbr(b) == "SP" {
            marks.push((i, 0, 0.393));
        }
        rows.push(vec![
            abbr(b),
            led.pct(o, "nsu occupancy"),
            led.pct(c, "nsu icache use"),
            led.put(
                if s.is_finite() {
                    format!("{:.2}%", 100.0 * s)
                } else {
                    "no data".into()
                },
                "invalidation share",
            ),
            led.f(li, 2, "live-ins per thread"),
            led.f(lo, 2, "live-outs per thread"),
        ]);
    }
    let mut cats: Vec<String> = benches.iter().map(|b| abbr(b)).collect();
    occ.push(am(&occ));
    ic.push(am(&ic));
    marks.push((cats.len(), 0, 0.221));
    marks.push((cats.len(), 1, 0.237));
    cats.push("mean".into());
    f11 += &table(
        &[
            "workload",
            "NSU warp-slot occupancy",
            "NSU I-cache use (of 4 KB)",
            "invalidations / off-chip bytes",
            "live-in registers per thread",
            "live-out registers per thread",
        ]
        .map(String::from),
        &rows,
    );
    writeln!(
        f11,
        "\nThe paper: occupancy at most {} (SP), {} on average; I-cache use {} of 4 KB; invalidations at most {} of off-chip traffic, {} on average; {} live-in and {} live-out registers per thread.",
        led.pct(0.393, "paper occupancy max"),
        led.pct(0.221, "paper occupancy mean"),
        led.pct(0.237, "paper icache use"),
        led.put("1.42%".into(), "paper invalidation max"),
        led.put("0.38%".into(), "paper invalidation mean"),
        led.f(0.41, 2, "paper live-ins"),
        led.f(0.47, 2, "paper live-outs"),
    )?;
    std::fs::write(out.join("fig11_nsu.csv"), csv)?;
    plot::grouped_bars_marked(
        &figs.join("ndp-fig11-nsu"),
        "Fig. 11: NSU warp-slot occupancy and I-cache use, NDP(Dyn)_Cache",
        "share",
        &cats,
        &[
            ("warp-slot occupancy".to_string(), occ),
            ("I-cache use".to_string(), ic),
        ],
        None,
        &marks,
    )?;
    // GPU-link traffic: NDP's premise (ndp.md §1) is that offload cuts the bytes on GPU
    // links a Baseline saturates
    f11 += "\n### GPU-link traffic against the Baseline\n\nBytes sent over the GPU's links (both directions; `sim.links`, every packet kind) under each NDP configuration over the Baseline's, beside the Baseline's busiest GPU link utilisation and the speedup. Offload pays off where it cuts these bytes on a busy link; above 1.00x, the packets of offloaded instances (commands with live-ins, RDFs, WTAs, acks with live-outs, invalidations) carry more than the lines they replace.\n\n";
    let mut rows = Vec::new();
    let mut csv = String::from(
        "bench,base_busiest_gpu_link,naive_bytes,dyn_bytes,dyncache_bytes,naive_speedup,dyn_speedup,dyncache_speedup\n",
    );
    for b in benches {
        let (b0, u0) = gpu_links(runs, &key(b, "base"));
        let r = |c: &str| ratio(gpu_links(runs, &key(b, c)).0, b0);
        let sp = |c: &str| ratio(val(&key(b, "base"), "cycles"), val(&key(b, c), "cycles"));
        let _ = writeln!(
            csv,
            "{b},{u0},{},{},{},{},{},{}",
            r("naive"),
            r("dyn"),
            r("dyncache"),
            sp("naive"),
            sp("dyn"),
            sp("dyncache")
        );
        rows.push(vec![
            abbr(b),
            led.pct(u0, "base busiest gpu link"),
            led.x(r("naive"), "naive gpu link bytes over base"),
            led.x(sp("naive"), "naive speedup"),
            led.x(r("dyn"), "dyn gpu link bytes over base"),
            led.x(sp("dyn"), "dyn speedup"),
            led.x(r("dyncache"), "dyncache gpu link bytes over base"),
            led.x(sp("dyncache"), "dyncache speedup"),
        ]);
    }
    f11 += &table(
        &[
            "workload",
            "Baseline: busiest GPU link busy",
            "NaiveNDP: GPU-link bytes",
            "NaiveNDP: speedup",
            "NDP(Dyn): GPU-link bytes",
            "NDP(Dyn): speedup",
            "NDP(Dyn)_Cache: GPU-link bytes",
            "NDP(Dyn)_Cache: speedup",
        ]
        .map(String::from),
        &rows,
    );
    std::fs::write(out.join("gpu_link.csv"), csv)?;

    // ---- §7.6 studies
    let mut f76 =
        String::from("\n## §7.6: NSU clock and a larger GPU (speedup of NDP(Dyn)_Cache)\n\n");
    let mut csv = String::from("bench,dyncache,nsu175,sm128\n");
    let mut rows = Vec::new();
    for b in meta.study {
        let (a, h, m) = (
            sp(b, "base", "dyncache"),
            sp(b, "base", "nsu175"),
            sp(b, "base128", "dyncache128"),
        );
        let _ = writeln!(csv, "{b},{a},{h},{m}");
        rows.push(vec![
            abbr(b),
            led.gain(a, "study dyncache"),
            led.gain(h, "study nsu175"),
            led.gain(m, "study 128sm"),
        ]);
    }
    if meta.study.is_empty() {
        f76 += "Not run.\n";
    } else {
        let col = |f: &dyn Fn(&str) -> f64| am(&over(meta.study, f));
        rows.push(vec![
            "mean".into(),
            led.gain(col(&|b| sp(b, "base", "dyncache")), "study mean dyncache"),
            led.gain(col(&|b| sp(b, "base", "nsu175")), "study mean nsu175"),
            led.gain(
                col(&|b| sp(b, "base128", "dyncache128")),
                "study mean 128sm",
            ),
        ]);
        f76 += &table(
            &[
                "workload".to_string(),
                led.put("NSU 350 MHz".into(), "nsu clock label"),
                led.put("NSU 175 MHz".into(), "nsu clock label"),
                led.put("128 SMs (over the 128-SM Baseline)".into(), "128 sm label"),
            ],
            &rows,
        );
        writeln!(
            f76,
            "\nThe paper: {} on average at 175 MHz ({} on KMN) against {} at 350 MHz; {} on average with 128 SMs.",
            led.gain(1.141, "paper nsu175 mean"),
            led.gain(1.677, "paper nsu175 kmn"),
            led.gain(1.179, "paper dyncache mean"),
            led.gain(1.116, "paper 128sm mean"),
        )?;
    }
    std::fs::write(out.join("sensitivity.csv"), csv)?;

    // ---- not run, run time
    let mut tail = String::from("\n## Not run\n\n");
    writeln!(tail, "- GPUWattch's absolute power and the per-component energy split (the paper gives none either), §7.5's storage overhead (a calculation, no run), the energy of memory-network links when idle (no link static power is modelled) and the I-cache's misses (its use is counted, its fetches are not timed).")?;
    if meta.quick {
        writeln!(tail, "- The quick run leaves out Table 1's other workloads, Fig. 9's other ratios and the §7.6 studies beyond its first workload.")?;
    }
    let per_run = ratio(meta.host_seconds, meta.runs as f64);
    let full_runs =
        ndp::TABLE1.len() * (ndp::main_variants(false).len() + ndp::study_variants().len());
    let est = per_run * full_runs as f64 / 2.0 / 60.0;
    writeln!(
        tail,
        "\n## Run time\n\nThe simulations (reused ones included, as their records measured them) took {} host seconds in all ({} per run on average). A full reproduction ({} runs to their ends on {} workers) would take {} minutes if its runs took this mean; in a quick run this is a lower bound only, since the quick workloads are among Table 1's shortest and NaiveNDP and the high static ratios of the long ones (streamcluster, backprop, fwt) take the most time (measure one with `locus run -p ndp-8hmc -w <workload> --set ndp.offload=naive`). `--warp-insts N` caps every run.",
        led.f(meta.host_seconds, 0, "host seconds"),
        led.f(per_run, 1, "host seconds per run"),
        led.int(full_runs as u64, "full runs"),
        led.int(2, "workers of the estimate"),
        led.f(est, 0, "full-run estimate minutes"),
    )?;

    let report = format!("{md}{head}{dis}{cov}{f5}{f7}{f8}{f9}{f10}{f11}{f76}{tail}");
    std::fs::write(out.join("report.md"), &report)?;
    std::fs::write(out.join("numbers.txt"), led.numbers_txt())?;
    std::fs::write(out.join("checks.txt"), led.checks_txt())?;
    let problems = super::audit::audit(&report, &led.numbers_txt(), &led.checks_txt());
    if !problems.is_empty() {
        anyhow::bail!(
            "the NDP report fails its audit:\n  {}",
            problems.join("\n  ")
        );
    }
    Ok(format!("{head}{dis}"))
}

/// Bytes sent over the GPU's links (both directions, node 0: `ndp.gpu_node`'s default, the
/// GPU of every NDP preset) in run `k`, and the busiest such link's utilisation; NaN when
/// the run is absent.
fn gpu_links(runs: &super::experiment::Runs, k: &str) -> (f64, f64) {
    let Some(links) = runs
        .record(k)
        .and_then(|r| r.pointer("/sim/links"))
        .and_then(|l| l.as_array())
    else {
        return (f64::NAN, f64::NAN);
    };
    let (mut bytes, mut busiest) = (0.0, 0.0f64);
    for l in links {
        let name = l.get("name").and_then(|n| n.as_str()).unwrap_or("");
        if l.get("kind").and_then(|k| k.as_str()) != Some("inter-node") {
            continue;
        }
        if name.starts_with("node0->") || name.ends_with("->node0") {
            bytes += l.get("bytes_sent").and_then(|b| b.as_f64()).unwrap_or(0.0);
            busiest = busiest.max(l.get("utilization").and_then(|u| u.as_f64()).unwrap_or(0.0));
        }
    }
    (bytes, busiest)
}
