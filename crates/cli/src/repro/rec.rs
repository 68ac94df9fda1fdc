//! `locus repro rec`: the runs of REC's main results (Ko et al., JSA 2025; rec.md §5.1-§5.2,
//! Figs. 1, 4, 5, 11-16) on the `rec-4gpu` preset (Table 2): for every benchmark, the
//! baseline line directory (8K entries, FIFO), the baseline with 2x entries, HMG, REC
//! (1 KB ranges, LRU) and the ideal directory. The paper's claims are declared in
//! [`claims`] before any run; `run` evaluates them on the finished runs and writes the
//! verdicts (`verdicts.csv`) and one CSV row per run (`runs.csv`). No report or figure is
//! generated yet.

use super::experiment::{self, Claim, Mean, Quantity, Rule, Unit};
use super::{execute, RunSpec};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// REC's 12 benchmarks (Table 3) by their registry names.
pub const WORKLOADS: &[&str] = &[
    "atax",
    "2dconv",
    "fir",
    "gemm",
    "gemver",
    "jacobi2d",
    "lu",
    "2mm",
    "3mm",
    "hm-pagerank",
    "simpleconv",
    "shoc-stencil2d",
];

/// Benchmarks of `--quick` (irregular and regular ones, rec.md §5.1).
pub const QUICK: &[&str] = &["atax", "gemm", "hm-pagerank"];

/// Warp instructions a `--quick` run simulates (`run.max_warp_insts`): every configuration
/// of a benchmark stops at the same instruction, so their times compare.
pub const QUICK_WARP_INSTS: u64 = 2_000_000;

/// The compared configurations of Fig. 11: key and `--set` overrides on `rec-4gpu`.
pub const CONFIGS: &[(&str, &[&str])] = &[
    ("base", &["directory.kind=line-fifo"]),
    (
        "base2x",
        &["directory.kind=line-fifo", "directory.entries=16384"],
    ),
    ("hmg", &["directory.kind=hmg"]),
    ("rec", &["directory.kind=rec", "directory.replacement=lru"]),
    ("ideal", &["directory.kind=ideal"]),
];

/// Machine preset of every run.
pub const PRESET: &str = "rec-4gpu";

/// The runs: every (benchmark, configuration).
pub fn plan(benches: &[String], quick: bool) -> Vec<RunSpec> {
    let limit = format!("run.max_warp_insts={QUICK_WARP_INSTS}");
    let mut v = Vec::new();
    for b in benches {
        for (c, sets) in CONFIGS {
            let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            if quick {
                sets.push(limit.clone());
            }
            v.push(RunSpec {
                key: format!("{b}-{c}"),
                bench: b.clone(),
                params: Vec::new(),
                preset: PRESET.to_string(),
                sets,
                sharing: false,
                apps: Vec::new(),
                trace: None,
            });
        }
    }
    v
}

/// A statistic of run `{b}-{c}` by path.
fn stat(b: &str, c: &str, path: &str) -> Quantity {
    Quantity::run(format!("{b}-{c}"), path)
}

/// Per-benchmark quantities averaged with `mean`.
fn mean_over(benches: &[String], mean: Mean, f: impl Fn(&str) -> Quantity) -> Quantity {
    Quantity::Mean(mean, benches.iter().map(|b| f(b)).collect())
}

fn speedup_over(benches: &[String], c: &str) -> Quantity {
    mean_over(benches, Mean::Geometric, |b| {
        Quantity::speedup(format!("{b}-base"), format!("{b}-{c}"))
    })
}

/// `1 - variant / base` of one statistic, averaged arithmetically over the benchmarks.
fn reduction(benches: &[String], c: &str, path: &str) -> Quantity {
    mean_over(benches, Mean::Arithmetic, |b| {
        Quantity::Reduction(Box::new(stat(b, c, path)), Box::new(stat(b, "base", path)))
    })
}

/// The paper's claims (rec.md §5.1-§5.2), declared before the runs. Speedups are
/// geometric means of baseline cycles / configuration cycles (rec.md §6.22); reductions
/// are arithmetic means of per-benchmark reductions.
pub fn claims(benches: &[String]) -> Vec<Claim> {
    let gain = |name: &str, text: &str, paper: f64, c: &str, tol: f64| Claim {
        name: name.into(),
        paper_text: text.into(),
        paper: Some(paper),
        quantity: speedup_over(benches, c),
        unit: Unit::Gain,
        rule: Rule::WithinAbs(tol),
    };
    let fall = |name: &str, text: &str, paper: f64, path: &str, tol: f64| Claim {
        name: name.into(),
        paper_text: text.into(),
        paper: Some(paper),
        quantity: reduction(benches, "rec", path),
        unit: Unit::Fall,
        rule: Rule::WithinAbs(tol),
    };
    vec![
        gain(
            "Fig. 11: REC over the 8K baseline (mean speedup)",
            "+32.7%",
            1.327,
            "rec",
            0.10,
        ),
        gain(
            "Fig. 11: HMG over the baseline",
            "+16.7%",
            1.167,
            "hmg",
            0.10,
        ),
        gain(
            "Fig. 11: 2x-entry baseline over the baseline",
            "+7.3%",
            1.073,
            "base2x",
            0.10,
        ),
        gain(
            "Fig. 1: ideal directory over the baseline",
            "+36.9%",
            1.369,
            "ideal",
            0.15,
        ),
        Claim {
            name: "Fig. 11: REC beats HMG (ratio of mean speedups)".into(),
            paper_text: "1.137x (1.327 / 1.167)".into(),
            paper: None,
            quantity: Quantity::Ratio(
                Box::new(speedup_over(benches, "rec")),
                Box::new(speedup_over(benches, "hmg")),
            ),
            unit: Unit::Times,
            rule: Rule::Above(1.0),
        },
        fall(
            "Fig. 13: L2 misses of REC, cold misses excluded",
            "-53.5%",
            0.535,
            "sim.coherence.l2_misses_non_cold",
            0.15,
        ),
        fall(
            "Fig. 14: unnecessary invalidations of REC",
            "-84.4%",
            0.844,
            "sim.coherence.unnecessary_invalidations",
            0.15,
        ),
        fall(
            "Fig. 14: inter-GPU transactions of REC",
            "-34.9%",
            0.349,
            "sim.coherence.inter_node_transactions_total",
            0.15,
        ),
        fall(
            "Fig. 16: L2 lookup latency of REC",
            "-14.8%",
            0.148,
            "sim.coherence.l2_lookup_latency_ns",
            0.10,
        ),
        Claim {
            name: "Fig. 5: evict-initiated share of the invalidations that hit (baseline)".into(),
            paper_text: "79.5%".into(),
            paper: Some(0.795),
            quantity: mean_over(benches, Mean::Arithmetic, |b| {
                Quantity::Ratio(
                    Box::new(stat(
                        b,
                        "base",
                        "sim.coherence.invalidations_by_cause.eviction.hits",
                    )),
                    Box::new(stat(b, "base", "sim.coherence.invalidation_hits")),
                )
            }),
            unit: Unit::Percent,
            rule: Rule::WithinAbs(0.15),
        },
        Claim {
            name: "Fig. 12: lines coalesced per REC entry at eviction (1 KB)".into(),
            paper_text: "12.9".into(),
            paper: Some(12.9),
            quantity: mean_over(benches, Mean::Arithmetic, |b| {
                stat(b, "rec", "sim.coherence.directory.coalesced_mean")
            }),
            unit: Unit::Times,
            rule: Rule::WithinAbs(3.0),
        },
    ]
}

/// The benchmarks to run: `--workloads` or REC's list (the quick subset with `--quick`);
/// names the registry does not know are an error naming them.
pub fn benches(list: Option<&str>, quick: bool) -> Result<Vec<String>> {
    let names: Vec<String> = match list {
        Some(l) => l
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        None if quick => QUICK.iter().map(|s| s.to_string()).collect(),
        None => WORKLOADS.iter().map(|s| s.to_string()).collect(),
    };
    if names.is_empty() {
        anyhow::bail!("--workloads: give at least one workload, e.g. --workloads mm,spmv");
    }
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| locus_workload::registry::find(n).is_none())
        .map(|s| s.as_str())
        .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "workload(s) not in this build: {} (see `locus workloads`); choose others with --workloads a,b,c",
            missing.join(", ")
        );
    }
    Ok(names)
}

/// Run the reproduction into `out` and print the verdicts.
pub fn run(out: &Path, benches: &[String], quick: bool, jobs: usize, quiet: bool) -> Result<()> {
    // the claims exist before the first run
    let claims = claims(benches);
    let specs = plan(benches, quick);
    let res = execute(&specs, out, jobs, quiet)?;
    let runs = experiment::Runs::new(&res);
    let verdicts: Vec<_> = claims.iter().map(|c| c.evaluate(&runs)).collect();
    std::fs::write(out.join("verdicts.csv"), experiment::verdict_csv(&verdicts))?;
    let cols = [
        "cycles",
        "sim.coherence.l2_misses_non_cold",
        "sim.coherence.invalidations_sent",
        "sim.coherence.invalidation_hits",
        "sim.coherence.unnecessary_invalidations",
        "sim.coherence.invalidation_gbps",
        "sim.coherence.inter_node_transactions_total",
        "sim.coherence.l2_lookup_latency_ns",
        "sim.coherence.directory.evictions",
        "sim.coherence.directory.coalesced_mean",
    ];
    let mut csv = format!("bench,config,{}\n", cols.join(","));
    for b in benches {
        for (c, _) in CONFIGS {
            let k = format!("{b}-{c}");
            let vals: Vec<String> = cols.iter().map(|p| runs.value(&k, p).to_string()).collect();
            let _ = writeln!(csv, "{b},{c},{}", vals.join(","));
        }
    }
    std::fs::write(out.join("runs.csv"), csv)?;
    if !quiet {
        println!(
            "REC main results, {} runs on {PRESET}{}:\n",
            specs.len(),
            if quick {
                format!(" (quick: first {QUICK_WARP_INSTS} warp instructions)")
            } else {
                String::new()
            }
        );
        print!("{}", experiment::verdict_table(&verdicts));
        println!(
            "\nper-run figures: {}; verdicts: {}",
            out.join("runs.csv").display(),
            out.join("verdicts.csv").display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_every_benchmark_and_configuration() {
        let b = vec!["mm".to_string(), "spmv".to_string()];
        let p = plan(&b, true);
        assert_eq!(p.len(), 2 * CONFIGS.len());
        assert!(p
            .iter()
            .all(|s| s.preset == PRESET
                && s.sets.iter().any(|x| x.starts_with("run.max_warp_insts"))));
        assert!(p
            .iter()
            .any(|s| s.key == "spmv-rec" && s.sets.contains(&"directory.kind=rec".to_string())));
        // every configuration loads
        for (_, sets) in CONFIGS {
            let s: Vec<String> = sets.iter().map(|x| x.to_string()).collect();
            locus_sim::preset::load(Some(PRESET), None, &s).unwrap();
        }
        assert_eq!(WORKLOADS.len(), 12);
        assert!(QUICK.iter().all(|q| WORKLOADS.contains(q)));
    }

    #[test]
    fn claims_are_declared_before_runs_and_unknown_workloads_are_named() {
        let b = vec!["mm".to_string()];
        let c = claims(&b);
        assert!(c.iter().any(|c| c.paper_text == "+32.7%"));
        // no run yet: every verdict says so instead of guessing
        let none = experiment::Runs::new(&Default::default());
        assert!(c.iter().all(|c| c.evaluate(&none).held.is_none()));
        let e = benches(Some("mm,nosuch"), false).unwrap_err().to_string();
        assert!(e.contains("nosuch") && !e.contains("mm,"), "{e}");
        assert_eq!(
            benches(Some("mm, spmv"), false).unwrap(),
            vec!["mm", "spmv"]
        );
    }
}
