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
}

pub fn workloads(a: WorkloadsArgs) -> Result<()> {
    print!("{}", workloads_table(a.verbose));
    Ok(())
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
    let _ = writeln!(
        out,
        "\nuse: locus run --workload NAME [--param NAME=VALUE]; -v lists parameters"
    );
    out
}
