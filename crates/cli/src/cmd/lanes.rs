//! `locus analyze lanes`: kernel models whose warps never reconverge (issue 8). Per kernel,
//! the warp instructions with a partial mask and those *shifted* (the same code issued at
//! different positions by different lanes of a warp), and the warps with a long run of them
//! ([`locus_workload::reconverge`]). `--all --markdown` writes the table of
//! docs/reconvergence.md.

use anyhow::{bail, Result};
use clap::Args;
use locus_workload::reconverge::{lane_split, LaneSplit, SplitReport, SHIFT_RUN, SHIFT_WINDOW};
use std::collections::BTreeMap;

/// Line size the blocks are generated with (the split does not depend on it).
const LINE_BYTES: u32 = 128;

#[derive(Args)]
pub struct LanesArgs {
    /// Built-in workload (see `locus workloads`).
    #[arg(long, short = 'w', required_unless_present = "all")]
    pub workload: Option<String>,
    /// Workload parameter, e.g. `--param scale=14`. Repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Seed of the workload's input generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Every built-in workload with its default parameters (ignores -w/--param), except
    /// those of `--small`, run with the parameters given there.
    #[arg(long, conflicts_with = "workload")]
    pub all: bool,
    /// With `--all`: run this workload with these parameters, e.g. `--small
    /// 'leukocyte:frames=1'` (parameters separated by `;`). Repeatable.
    #[arg(long, value_name = "NAME:K=V;K=V")]
    pub small: Vec<String>,
    /// Analyse at most this many kernel launches per workload.
    #[arg(long, default_value_t = 1000)]
    pub max_launches: usize,
    /// Print a Markdown table (one row per kernel) instead of text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// How warps are formed (`--param merge=...` of every workload): `reconverge` (min-PC
    /// reconvergence, the default) or `positional` (lanes aligned position by position, the
    /// model before issue 8; the table of docs/reconvergence.md).
    #[arg(long, default_value = "reconverge", value_parser = ["reconverge", "positional"])]
    pub merge: String,
}

fn params(list: &[String], what: &str) -> Result<BTreeMap<String, String>> {
    let mut m = BTreeMap::new();
    for p in list {
        let Some((k, v)) = p.split_once('=') else {
            bail!("{what} `{p}`: expected NAME=VALUE, e.g. --param scale=14");
        };
        m.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(m)
}

/// `p` with `merge` set (a `--param merge=...` given wins).
fn with_merge(p: &BTreeMap<String, String>, merge: &str) -> BTreeMap<String, String> {
    let mut p = p.clone();
    p.entry("merge".to_string())
        .or_insert_with(|| merge.to_string());
    p
}

pub fn run(a: LanesArgs) -> Result<()> {
    let mut reports = Vec::new();
    if a.all {
        let mut small: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for s in &a.small {
            let Some((name, ps)) = s.split_once(':') else {
                bail!("--small `{s}`: expected NAME:K=V;K=V, e.g. --small 'leukocyte:frames=1'");
            };
            if locus_workload::registry::find(name.trim()).is_none() {
                bail!("--small `{s}`: no built-in workload `{name}` (see `locus workloads`)");
            }
            let list: Vec<String> = ps.split(';').map(str::to_string).collect();
            small.insert(name.trim().to_string(), params(&list, "--small")?);
        }
        for b in locus_workload::registry::all() {
            if b.suite == "Locus micro" {
                continue;
            }
            let p = small.get(b.name).cloned().unwrap_or_default();
            let mut w = locus_workload::registry::build(b.name, &with_merge(&p, &a.merge), a.seed)?;
            let r = lane_split(&mut w, LINE_BYTES, a.max_launches)?;
            eprintln!(
                "{:<18} {:>6.2} % shifted {:>6.2} % excess{}",
                b.name,
                100.0 * r.total.shifted_fraction(),
                100.0 * r.total.excess_fraction(),
                if r.flagged() {
                    "  NEVER RECONVERGES"
                } else {
                    ""
                }
            );
            reports.push((r, p));
        }
    } else {
        let name = a.workload.clone().unwrap_or_default();
        let p = params(&a.params, "--param")?;
        let mut w = locus_workload::registry::build(&name, &with_merge(&p, &a.merge), a.seed)?;
        reports.push((lane_split(&mut w, LINE_BYTES, a.max_launches)?, p));
    }
    if a.json {
        let r: Vec<&SplitReport> = reports.iter().map(|(r, _)| r).collect();
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else if a.markdown {
        print!("{}", markdown(&reports));
    } else {
        for (r, _) in &reports {
            text(r, &a.merge);
        }
    }
    Ok(())
}

fn pct(x: f64) -> String {
    format!("{:.2}", 100.0 * x)
}

/// One row per kernel: warps, warp instructions, partial and shifted percentages, warps
/// that never reconverge and the longest shifted run; non-default parameters named.
pub fn markdown(reports: &[(SplitReport, BTreeMap<String, String>)]) -> String {
    let mut s = String::from(
        "| workload | kernel | launches | warps | warp insts | partial % | shifted % | never-reconverging warps | longest shifted run | where it starts | reconverged warp insts (estimate) | excess % |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n",
    );
    for (r, p) in reports {
        let name = if p.is_empty() {
            r.workload.clone()
        } else {
            let ps: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({})", r.workload, ps.join(", "))
        };
        for k in &r.kernels {
            let x = &k.split;
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                name,
                k.name,
                k.launches,
                x.warps,
                x.insts,
                pct(x.partial_fraction()),
                pct(x.shifted_fraction()),
                x.shifted_warps,
                x.longest_run,
                at(x),
                x.converged,
                pct(x.excess_fraction())
            );
        }
    }
    s
}

/// Where the longest shifted run starts, relative to crates/workload/src (`-`: none).
fn at(x: &LaneSplit) -> String {
    if x.longest_run == 0 {
        return "-".into();
    }
    x.longest_at
        .trim_start_matches("crates/workload/src/")
        .to_string()
}

fn text(r: &SplitReport, merge: &str) {
    println!(
        "lane alignment of {} (warp insts: the lanes aligned position by position; shifted: same call site within {SHIFT_WINDOW} positions in another lane; never reconverging: {SHIFT_RUN}+ shifted positions in a row{}; issued: the warp instructions the merge `{}` issues)",
        r.workload,
        if merge == "positional" { "" } else { " in a warp issuing more than the reconverged estimate" },
        merge
    );
    println!(
        "  {:<28} {:>8} {:>9} {:>12} {:>9} {:>9} {:>12} {:>8} {:>12} {:>8} {:>12}  starts at",
        "kernel",
        "launches",
        "warps",
        "warp insts",
        "partial%",
        "shifted%",
        "never-reconv",
        "run",
        "reconverged",
        "excess%",
        "issued"
    );
    for k in &r.kernels {
        let x = &k.split;
        println!(
            "  {:<28} {:>8} {:>9} {:>12} {:>9} {:>9} {:>12} {:>8} {:>12} {:>8} {:>12}  {}",
            k.name,
            k.launches,
            x.warps,
            x.insts,
            pct(x.partial_fraction()),
            pct(x.shifted_fraction()),
            x.shifted_warps,
            x.longest_run,
            x.converged,
            pct(x.excess_fraction()),
            x.issued,
            at(x)
        );
    }
}
