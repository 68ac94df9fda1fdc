//! `locus presets` and `locus workloads`.

use anyhow::{Context, Result};
use clap::Args;
use toml::Value;

#[derive(Args)]
pub struct PresetsArgs {
    /// Print the full effective configuration of this preset as TOML: every section and key,
    /// defaults included, ready to edit and pass back with `locus run --config FILE`.
    #[arg(long, value_name = "NAME")]
    pub show: Option<String>,
    /// List every configuration key (`section.key`) with its value in a preset (the one of
    /// `--show`, else coda-4gpu) and, for policies and other choices, every accepted value.
    #[arg(long)]
    pub keys: bool,
}

/// Preset whose keys `--keys` lists when `--show` names none.
const KEYS_PRESET: &str = "coda-4gpu";

pub fn presets(a: PresetsArgs) -> Result<()> {
    if a.keys {
        return keys(a.show.as_deref().unwrap_or(KEYS_PRESET));
    }
    if let Some(name) = a.show {
        print!("{}", effective_toml(&name)?);
        return Ok(());
    }
    println!("{:<18} description", "preset");
    for p in locus_sim::preset::PRESETS {
        println!("{:<18} {}", p.name, p.about);
    }
    println!(
        "\nuse: locus run --preset NAME; the full configuration of one: locus presets --show NAME; \
         every key and the values of each policy: locus presets --keys"
    );
    Ok(())
}

/// The full effective configuration of preset `name` (the preset over the defaults) as a
/// TOML document, commented at the top; `--config` of it gives back the same [`Config`].
///
/// [`Config`]: locus_sim::Config
pub fn effective_toml(name: &str) -> Result<String> {
    let p = locus_sim::preset::find(name)?;
    let cfg = locus_sim::preset::load(Some(name), None, &[])?;
    let body = toml::to_string(&cfg).context("internal: configuration to TOML")?;
    Ok(format!(
        "# preset {name}: {}\n# the full effective configuration (every key, defaults included):\n\
         # save it, edit it, and run `locus run --config FILE`\n\n{body}",
        p.about
    ))
}

/// Every leaf of `v` as (`section.key`, value), in document order.
fn leaves(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                leaves(x, &p, out);
            }
        }
        other => out.push((path.to_string(), other.clone())),
    }
}

/// Values accepted by the text key `key`: the configuration loader is asked with a value no
/// choice can have, and its refusal lists the choices (`None`: any text is accepted).
fn choices(preset: &str, key: &str) -> Option<String> {
    let probe = format!("{key}=__locus_probe__");
    let e = locus_sim::preset::load(Some(preset), None, &[probe]).err()?;
    let m = e.to_string();
    let (_, rest) = m.split_once("expected one of ")?;
    Some(rest.split(", e.g.").next().unwrap_or(rest).to_string())
}

/// `locus presets --keys`: every key, its value in `preset`, the accepted values of choices.
fn keys(preset: &str) -> Result<()> {
    let cfg = locus_sim::preset::load(Some(preset), None, &[])?;
    let v = Value::try_from(&cfg).context("internal: configuration to TOML")?;
    let mut all = Vec::new();
    leaves(&v, "", &mut all);
    let rows: Vec<(String, String)> = all
        .iter()
        .map(|(k, x)| (format!("{k} = {x}"), k))
        .map(|(lhs, k)| {
            let note = match lookup_kind(&v, k) {
                Some(Value::String(_)) => choices(preset, k)
                    .map(|c| format!("one of: {c}"))
                    .unwrap_or_default(),
                Some(Value::Boolean(_)) => "true or false".to_string(),
                _ => String::new(),
            };
            (lhs, note)
        })
        .collect();
    let w = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    println!(
        "# every configuration key with its value in preset {preset}; set one with --set KEY=VALUE"
    );
    for (lhs, note) in rows {
        if note.is_empty() {
            println!("{lhs}");
        } else {
            println!("{lhs:<w$}  # {note}");
        }
    }
    Ok(())
}

fn lookup_kind<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    key.split('.').try_fold(v, |cur, k| cur.get(k))
}

#[derive(Args)]
pub struct WorkloadsArgs {
    /// Show the parameters of every workload.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Print, as Markdown, every workload's default parameters and data footprint and
    /// whether that footprint is at least 4x the largest last-level cache of `single-gpu`
    /// and `coda-4gpu` (issue 8's input rule); docs/defaults.md is this output.
    #[arg(long, conflicts_with = "verbose")]
    pub defaults_table: bool,
}

pub fn workloads(a: WorkloadsArgs) -> Result<()> {
    if a.defaults_table {
        print!("{}", defaults_table(None)?);
        return Ok(());
    }
    print!("{}", workloads_table(a.verbose));
    Ok(())
}

/// Presets whose last-level caches set the footprint threshold of `--defaults-table`
/// (issue 8, "Inputs" and "Done means": every model runs on both).
pub const LLC_PRESETS: [&str; 2] = ["single-gpu", "coda-4gpu"];

/// Issue 8, "Inputs": a default footprint stays at least this many times the largest
/// last-level cache it is run against.
pub const LLC_FACTOR: u64 = 4;

/// A preset's last-level cache: (preset, L2 bytes per node, nodes).
pub type PresetLlc = (&'static str, u64, u64);

/// The threshold of `--defaults-table`: [`LLC_FACTOR`] times the largest last-level cache
/// of the [`LLC_PRESETS`], counting both one node's L2 and a system's whole L2 (per node
/// times nodes) and taking the larger. Returns (preset, bytes per node, nodes) per preset
/// and the threshold in bytes.
pub fn llc_threshold() -> Result<(Vec<PresetLlc>, u64)> {
    let mut llc = Vec::new();
    for p in LLC_PRESETS {
        let cfg = locus_sim::preset::load(Some(p), None, &[])?;
        llc.push((p, cfg.l2.bytes_per_node, cfg.system.nodes as u64));
    }
    let largest = llc.iter().map(|&(_, b, n)| b.max(b * n)).max().unwrap_or(0);
    Ok((llc, LLC_FACTOR * largest))
}

/// One row of `--defaults-table` for the workload `b`: it builds the default input (seed
/// 1, as `workloads -v`) to measure its footprint.
/// Returns the row and the footprint in bytes.
fn defaults_row(b: &locus_workload::registry::BenchSpec, threshold: u64) -> Result<(String, u64)> {
    let ov = std::collections::BTreeMap::new();
    let w = locus_workload::registry::build(b.name, &ov, 1)
        .with_context(|| format!("workload `{}`: building its default input", b.name))?;
    let bytes = w.memory().footprint();
    let params: Vec<String> = b
        .params
        .iter()
        .map(|p| format!("`{}={}`", p.name, p.default))
        .collect();
    // the parameters whose help names a scale rule (the model's module documentation
    // gives the paper input and the rules applied in full)
    let notes: Vec<String> = b
        .params
        .iter()
        .filter(|p| {
            let h = p.help.to_lowercase();
            h.contains("rule") || h.contains("scaled") || h.contains("halved")
        })
        .map(|p| format!("{}: {}", p.name, p.help.replace('|', "/")))
        .collect();
    let yn = |ok: bool| if ok { "yes" } else { "**no**" };
    let origin = locus_workload::scale::input_origin(b.name).with_context(|| {
        format!(
            "workload `{}` has no input origin: add its row to \
             `locus_workload::scale::input_origin`",
            b.name
        )
    })?;
    let row = format!(
        "| {} | {} | {} | {} | {:.2} | {} | {} | {} | {} |",
        b.name,
        b.suite,
        if params.is_empty() {
            "-".to_string()
        } else {
            params.join(" ")
        },
        bytes,
        bytes as f64 / (1u64 << 20) as f64,
        yn(bytes <= locus_workload::scale::FOOTPRINT_CAP_BYTES),
        yn(bytes >= threshold),
        origin.describe(),
        if notes.is_empty() {
            "-".to_string()
        } else {
            notes.join("; ")
        },
    );
    Ok((row, bytes))
}

/// The `locus workloads --defaults-table` document (docs/defaults.md): the input rule,
/// the threshold computed from the presets, and one row per workload (of `only`, when
/// given, else of the whole registry) with its default parameters and measured footprint.
/// Issue 8, "Inputs"; the scale rules are those of `locus_workload::scale`.
pub fn defaults_table(only: Option<&[&str]>) -> Result<String> {
    use std::fmt::Write as _;
    let (llc, threshold) = llc_threshold()?;
    let cap = locus_workload::scale::FOOTPRINT_CAP_BYTES;
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let mut out = String::new();
    let _ = writeln!(out, "# Default inputs of the built-in workloads\n");
    let _ = writeln!(
        out,
        "Generated by `locus workloads --defaults-table > docs/defaults.md`; do not edit by \
         hand. Each footprint is measured by building the workload's default input (seed 1) \
         and summing its device objects, as `locus workloads -v` does. Nothing here is timed.\n"
    );
    let _ = writeln!(
        out,
        "Scale rule (issue 8 \"Inputs\", `crates/workload/src/scale.rs`): a model's default \
         input is the size the paper that uses it ran, or the suite's default. Rule 1: if \
         that input's footprint exceeds the cap of {cap} bytes ({:.0} MiB), every dimension \
         that grows the footprint shrinks by one common factor until it fits (aspect ratio, \
         loops and block shape kept, dimensions rounded down to the kernel's tile). Rule 2: \
         if a default run on `coda-4gpu` would still take more than a minute of host time, \
         first the dimensions that add work without growing the footprint (time steps, \
         iterations) halve until it does not, keeping the footprint; a kernel without such \
         a dimension halves the dimensions of rule 1 instead (its footprint then falls below \
         the cap). No size is chosen from a result; the paper input stays reachable with \
         `--param`. Which rule a model applied is in its module documentation; the last \
         column quotes the parameter help texts that name one.\n",
        mib(cap)
    );
    let _ = writeln!(
        out,
        "Threshold: issue 8 asks that a default footprint be at least {LLC_FACTOR}x the \
         largest last-level cache it is run against. Last-level caches (`l2.bytes_per_node` \
         x `system.nodes` of each preset):\n"
    );
    for (p, b, n) in &llc {
        let _ = writeln!(
            out,
            "- `{p}`: {b} bytes ({:.2} MiB) per node x {n} node(s) = {} bytes ({:.2} MiB)",
            mib(*b),
            b * n,
            mib(b * n)
        );
    }
    let _ = writeln!(
        out,
        "\nThe largest of these (one node's L2 or a system's whole L2) times {LLC_FACTOR}: \
         **{threshold} bytes ({:.2} MiB)**.\n",
        mib(threshold)
    );
    let _ = writeln!(
        out,
        "| workload | suite | default parameters | footprint (bytes) | footprint (MiB) | \
         within rule 1 cap | >= {LLC_FACTOR}x largest LLC | input origin | scale note \
         (parameter help) |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---|---|---|---|");
    let mut below = Vec::new();
    let mut n = 0;
    for b in locus_workload::registry::all() {
        if only.is_some_and(|o| !o.contains(&b.name)) {
            continue;
        }
        let (row, bytes) = defaults_row(b, threshold)?;
        if bytes < threshold {
            below.push((b.name, locus_workload::scale::input_origin(b.name)));
        }
        n += 1;
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(
        out,
        "\n{} of {n} workloads have a default footprint of at least {LLC_FACTOR}x the \
         largest LLC; {} are below it.",
        n - below.len(),
        below.len()
    );
    // the workloads below the floor, grouped by why (the origin column)
    use locus_workload::scale::InputOrigin as O;
    let why = |o: O| match o {
        O::Kept => {
            "the paper's or suite's own input is smaller than the floor; the rules \
                    never grow an input"
        }
        O::Rule1 => "rule 1 shrank the input below the floor (a defect of the rule's rounding)",
        O::Rule2Steps => {
            "rule 2 halved only the work-only dimensions (time steps, iterations), keeping \
                     rule 1's footprint (a defect: it should stay above the floor)"
        }
        O::Rule2 => {
            "rule 2 halved the input so one run stays under a minute, as issue 8 \
                     also asks; these kernels have no work-only dimension to halve first, so \
                     the two conditions conflict for them at today's engine speed"
        }
        O::Rule2Small => {
            "the paper's or suite's own input is already smaller than the floor \
                     (`scale::PAPER_BELOW_FLOOR`, checked by a test); rule 2 then halved its \
                     work for a one-minute run"
        }
        O::CodaA28 => {
            "CODA's inputs (issue 3), sized by coda.md A28 for the CODA \
                       reproduction, not by this rule (bfs-grid: the mesh of coda.md's \
                       Fig. 12 substitute graphs, as pr's grid input)"
        }
        O::Early => {
            "defaults from Locus's first sessions, not yet re-derived from a paper \
                     or suite input: open"
        }
        O::Micro => "micro-benchmarks: no paper input",
    };
    for o in [
        O::Rule1,
        O::Rule2Steps,
        O::Rule2,
        O::Rule2Small,
        O::Kept,
        O::CodaA28,
        O::Early,
        O::Micro,
    ] {
        let names: Vec<&str> = below
            .iter()
            .filter(|(_, x)| *x == Some(o))
            .map(|(b, _)| *b)
            .collect();
        if !names.is_empty() {
            let _ = writeln!(out, "- {} ({}): {}.", o.describe(), names.len(), why(o));
            let _ = writeln!(out, "  {}", names.join(", "));
        }
    }
    Ok(out)
}

/// The `locus workloads` listing; with `verbose`, one line per parameter, whose help texts
/// all start in the same column, and the data footprint of the default input.
pub fn workloads_table(verbose: bool) -> String {
    use std::fmt::Write as _;
    let all = locus_workload::registry::all();
    let pw = all
        .iter()
        .flat_map(|b| b.params)
        .map(|p| format!("--param {}={}", p.name, p.default).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<18} {:<14} {:<16} about",
        "workload", "suite", "CODA category"
    );
    for b in all {
        let _ = writeln!(
            out,
            "{:<18} {:<14} {:<16} {}",
            b.name, b.suite, b.category, b.about
        );
        if verbose {
            for p in b.params {
                let flag = format!("--param {}={}", p.name, p.default);
                let _ = writeln!(out, "{:<4}{flag:<pw$}  {}", "", p.help);
            }
            // the default input's data footprint (builds it with seed 1)
            let ov = std::collections::BTreeMap::new();
            if let Ok(w) = locus_workload::registry::build(b.name, &ov, 1) {
                let bytes = w.memory().footprint();
                let _ = writeln!(
                    out,
                    "{:<4}footprint {:.1} MB ({bytes} bytes, default input)",
                    "",
                    bytes as f64 / 1e6
                );
            }
        }
    }
    let aliases: Vec<String> = locus_workload::registry::ALIASES
        .iter()
        .map(|(a, w, _)| format!("{a} = {w}"))
        .collect();
    let _ = writeln!(
        out,
        "\npaper abbreviations accepted as names: {}\n\
         use: locus run --workload NAME [--param NAME=VALUE]; -v lists parameters",
        aliases.join(", ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHEAP: [&str; 3] = ["vectoradd", "nn", "spmv-csr"];

    fn doc() -> String {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/defaults.md");
        std::fs::read_to_string(p).expect("docs/defaults.md exists")
    }

    /// The table's rows: (workload, footprint in bytes, the `>= 4x` column).
    fn rows(text: &str) -> Vec<(String, u64, String)> {
        text.lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| workload"))
            .map(|l| {
                let c: Vec<&str> = l.split(" | ").collect();
                (
                    c[0].trim_start_matches("| ").to_string(),
                    c[3].parse().unwrap(),
                    c[6].to_string(),
                )
            })
            .collect()
    }

    /// docs/defaults.md is the output of `workloads --defaults-table`: the text above the
    /// table (rule, caches, threshold) and the rows of a few cheap workloads are recomputed,
    /// and the table lists exactly the registry's workloads in its order. Fails when a
    /// default, a preset's L2 or a model's footprint changes without regenerating the doc.
    #[test]
    fn docs_defaults_is_current() {
        let doc = doc();
        let part = defaults_table(Some(&CHEAP)).unwrap();
        let stale = "docs/defaults.md is stale: regenerate with \
                     `locus workloads --defaults-table > docs/defaults.md`";
        for l in part.lines().take_while(|l| !l.starts_with("| workload")) {
            assert!(doc.lines().any(|d| d == l), "{stale}; missing line:\n{l}");
        }
        for w in CHEAP {
            let row = part
                .lines()
                .find(|l| l.starts_with(&format!("| {w} |")))
                .unwrap();
            assert!(
                doc.lines().any(|d| d == row),
                "{stale}; expected row:\n{row}"
            );
        }
        let names: Vec<String> = rows(&doc).into_iter().map(|r| r.0).collect();
        let want: Vec<String> = locus_workload::registry::all()
            .iter()
            .map(|b| b.name.to_string())
            .collect();
        assert_eq!(names, want, "{stale}");
    }

    /// The threshold is 4x the largest L2 among the presets' per-node and whole-system
    /// sizes, read from their configurations, and each row's verdict follows it.
    #[test]
    fn threshold_is_four_times_the_largest_llc_and_rows_follow_it() {
        let (llc, t) = llc_threshold().unwrap();
        let mut largest = 0;
        for (p, b, n) in &llc {
            let cfg = locus_sim::preset::load(Some(p), None, &[]).unwrap();
            assert_eq!((*b, *n), (cfg.l2.bytes_per_node, cfg.system.nodes as u64));
            largest = largest.max(b * n);
        }
        assert_eq!(t, LLC_FACTOR * largest);
        assert!(t > 0);
        for (w, bytes, verdict) in rows(&defaults_table(Some(&CHEAP)).unwrap()) {
            let want = if bytes >= t { "yes" } else { "**no**" };
            assert_eq!(verdict, want, "{w}: {bytes} bytes against {t}");
        }
    }

    /// Every registered workload declares where its default input comes from, so the
    /// defaults table can say why a footprint is below the floor; a new model without a
    /// row fails here rather than in the generated document.
    #[test]
    fn every_workload_declares_its_input_origin() {
        let missing: Vec<&str> = locus_workload::registry::all()
            .iter()
            .map(|b| b.name)
            .filter(|n| locus_workload::scale::input_origin(n).is_none())
            .collect();
        assert!(missing.is_empty(), "no input origin for {missing:?}");
    }

    /// Every `Rule2Small` model's paper input (`scale::PAPER_BELOW_FLOOR`) is below the
    /// 4x-LLC floor and within the cap, so its floor gap is the paper's and not rule 2's;
    /// and the origin table and that list name the same models. Fails if a paper input
    /// listed there is in fact above the floor (the model then belongs under `Rule2`).
    #[test]
    fn paper_inputs_below_the_floor_are_below_it() {
        use locus_workload::scale::{input_origin, InputOrigin, PAPER_BELOW_FLOOR};
        let (_, floor) = llc_threshold().unwrap();
        let small: Vec<&str> = locus_workload::registry::all()
            .iter()
            .map(|b| b.name)
            .filter(|n| input_origin(n) == Some(InputOrigin::Rule2Small))
            .collect();
        let listed: Vec<&str> = PAPER_BELOW_FLOOR.iter().map(|(n, _)| *n).collect();
        assert_eq!(small, listed);
        for (name, params) in PAPER_BELOW_FLOOR {
            let ov = params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let w = locus_workload::registry::build(name, &ov, 1).unwrap();
            let paper = w.memory().footprint();
            let default = locus_workload::registry::build(name, &Default::default(), 1)
                .unwrap()
                .memory()
                .footprint();
            assert!(
                paper < floor,
                "{name}: paper input {paper} bytes, floor {floor}"
            );
            assert!(default <= paper, "{name}: rule 2 grew the footprint");
        }
    }

    /// The declared origins agree with the measured footprints of docs/defaults.md (kept
    /// current by `docs_defaults_is_current`): an input rule 1 kept or shrank fits the cap,
    /// and one that rule 1 shrank lands between the floor and the cap (the cap is at least
    /// twice the floor, so a shrink that rounds below the floor is a defect). Fails when a
    /// model's origin row is wrong, e.g. a paper input over the cap declared as kept.
    #[test]
    fn declared_origins_match_the_measured_footprints() {
        use locus_workload::scale::{input_origin, InputOrigin, FOOTPRINT_CAP_BYTES};
        let (_, floor) = llc_threshold().unwrap();
        assert!(FOOTPRINT_CAP_BYTES >= 2 * floor);
        let doc = doc();
        let table = rows(&doc);
        assert!(table.len() >= 80);
        for (w, bytes, _) in table {
            match input_origin(&w).unwrap() {
                InputOrigin::Kept => {
                    assert!(bytes <= FOOTPRINT_CAP_BYTES, "{w}: kept but {bytes} bytes")
                }
                InputOrigin::Rule1 | InputOrigin::Rule2Steps => assert!(
                    (floor..=FOOTPRINT_CAP_BYTES).contains(&bytes),
                    "{w}: shrunk by rule 1 to {bytes} bytes, outside [{floor}, cap]"
                ),
                InputOrigin::Rule2 | InputOrigin::Rule2Small => assert!(
                    bytes <= FOOTPRINT_CAP_BYTES,
                    "{w}: halved by rule 2 but {bytes} bytes"
                ),
                _ => {}
            }
        }
    }
}
