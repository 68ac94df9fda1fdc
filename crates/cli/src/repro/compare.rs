//! `locus repro compare A B`: what changes between two runs of one reproduction, e.g. the
//! same paper with and without `--set l2.set_index=xor`. Reads each folder's verdicts
//! (`verdicts.csv`, CODA's `headline.csv`) and finished runs (`runs/*.json`) and writes a
//! Markdown report whose every number comes from them (audited like the reproductions'
//! reports): each claim's value and verdict on both sides, the verdicts that flip, and the
//! simulated cycles of every run both folders hold (geometric mean of B / A, the runs that
//! moved most).

use super::ledger::Ledger;
use super::RunResult;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A run counts as moved when its cycles change by more than this fraction.
pub const MOVED: f64 = 0.01;
/// How many of the most-moved runs the report lists.
pub const TOP: usize = 12;

/// One row of a verdicts file.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub claim: String,
    pub paper: String,
    pub ours: f64,
    pub held: Option<bool>,
    /// The value as the report shows it (files written before this column: the number).
    pub ours_text: String,
}

/// Split one CSV line into fields (double-quoted fields may hold commas; `""` is a quote).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut it = line.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '"' if quoted && it.peek() == Some(&'"') => {
                cur.push('"');
                it.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The verdict rows of a reproduction folder (`verdicts.csv`, else `headline.csv`).
pub fn read_verdicts(dir: &Path) -> Result<Vec<Row>> {
    let file = ["verdicts.csv", "headline.csv"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .with_context(|| {
            format!(
                "{}: no verdicts.csv or headline.csv (is it a `locus repro` output folder whose run finished?)",
                dir.display()
            )
        })?;
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let mut lines = text.lines();
    let head = csv_fields(lines.next().unwrap_or(""));
    let col = |n: &str| head.iter().position(|h| h == n);
    let (Some(c), Some(p), Some(o), Some(h)) =
        (col("claim"), col("paper"), col("ours"), col("held"))
    else {
        anyhow::bail!(
            "{}: the header must name claim, paper, ours and held (found `{}`)",
            file.display(),
            head.join(",")
        );
    };
    let t = col("ours_text");
    let mut rows = Vec::new();
    for (i, l) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = csv_fields(l);
        let get = |k: usize| f.get(k).cloned().unwrap_or_default();
        let ours: f64 = get(o).parse().with_context(|| {
            format!("{} line {}: `ours` is not a number", file.display(), i + 2)
        })?;
        rows.push(Row {
            claim: get(c),
            paper: get(p),
            ours,
            held: get(h).parse().ok(),
            ours_text: t.map(&get).unwrap_or_else(|| format!("{ours:.4}")),
        });
    }
    Ok(rows)
}

/// The finished runs of a reproduction folder (`runs/*.json`), by key.
pub fn read_runs(dir: &Path) -> Result<BTreeMap<String, RunResult>> {
    let rd = dir.join("runs");
    let mut out = BTreeMap::new();
    let entries =
        std::fs::read_dir(&rd).with_context(|| format!("cannot read {}", rd.display()))?;
    for e in entries {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "json") {
            let t = std::fs::read_to_string(&p)?;
            let r: RunResult = serde_json::from_str(&t)
                .with_context(|| format!("{}: not a run record", p.display()))?;
            out.insert(r.key.clone(), r);
        }
    }
    Ok(out)
}

fn held_word(h: Option<bool>) -> &'static str {
    match h {
        Some(true) => "yes",
        Some(false) => "no",
        None => "no data",
    }
}

/// The comparison report of folders `a` and `b`, named by `labels` (else their paths), with
/// its ledger.
pub fn report(a: &Path, b: &Path, labels: Option<&[String]>) -> Result<(String, Ledger)> {
    let (va, vb) = (read_verdicts(a)?, read_verdicts(b)?);
    let (ra, rb) = (read_runs(a)?, read_runs(b)?);
    let sets = |d: &Path| {
        let t = std::fs::read_to_string(d.join(super::BASE_SETS_FILE)).unwrap_or_default();
        super::describe_sets(&t, true)
    };
    let led = Ledger::default();
    let mut md = String::new();
    let name = |i: usize, d: &Path| {
        labels
            .and_then(|l| l.get(i))
            .cloned()
            .unwrap_or_else(|| d.display().to_string())
    };
    writeln!(md, "# Reproduction compared: A against B\n")?;
    writeln!(
        md,
        "A: `{}` (overrides: {}). B: `{}` (overrides: {}). Written by `locus repro compare`: every number below is read from the two folders' verdicts and run records.\n",
        led.put(name(0, a), "A name"),
        led.put(sets(a), "A overrides.txt"),
        led.put(name(1, b), "B name"),
        led.put(sets(b), "B overrides.txt"),
    )?;
    // claims, matched by name
    let bmap: BTreeMap<&str, &Row> = vb.iter().map(|r| (r.claim.as_str(), r)).collect();
    let mut flips = Vec::new();
    let mut rows = String::from(
        "| claim | paper | A | held in A | B | held in B |\n|---|---|---|---|---|---|\n",
    );
    let mut matched = 0;
    for r in &va {
        let Some(o) = bmap.get(r.claim.as_str()) else {
            continue;
        };
        matched += 1;
        let flip = r.held != o.held;
        if flip {
            flips.push(r.claim.clone());
        }
        writeln!(
            rows,
            "| {}{} | {} | {} | {} | {} | {} |",
            if flip { "**changed:** " } else { "" },
            led.put(r.claim.clone(), "claim name"),
            led.put(r.paper.clone(), "paper value"),
            led.put(r.ours_text.clone(), "A verdicts"),
            held_word(r.held),
            led.put(o.ours_text.clone(), "B verdicts"),
            held_word(o.held),
        )?;
    }
    let only = va.len() + vb.len() - 2 * matched;
    let count = |v: &[Row]| v.iter().filter(|r| r.held == Some(true)).count() as u64;
    writeln!(md, "## Claims\n")?;
    writeln!(
        md,
        "{} claims in both: {} held in A, {} in B; {} verdict(s) changed{}.{}\n",
        led.int(matched as u64, "claims in both"),
        led.int(
            va.iter()
                .filter(|r| bmap.contains_key(r.claim.as_str()) && r.held == Some(true))
                .count() as u64,
            "held in A"
        ),
        led.int(
            vb.iter()
                .filter(|r| { va.iter().any(|x| x.claim == r.claim) && r.held == Some(true) })
                .count() as u64,
            "held in B"
        ),
        led.int(flips.len() as u64, "verdicts changed"),
        if flips.is_empty() {
            String::new()
        } else {
            format!(": {}", led.put(flips.join("; "), "changed claims"))
        },
        if only > 0 {
            format!(
                " {} claim(s) are in one folder only (different benchmark sets?); A holds {} of its {}, B {} of its {}.",
                led.int(only as u64, "claims in one folder"),
                led.int(count(&va), "A held"),
                led.int(va.len() as u64, "A claims"),
                led.int(count(&vb), "B held"),
                led.int(vb.len() as u64, "B claims"),
            )
        } else {
            String::new()
        }
    )?;
    md += &rows;
    // runs, matched by key
    let mut moves: Vec<(String, f64, &RunResult, &RunResult)> = ra
        .iter()
        .filter_map(|(k, x)| {
            let y = rb.get(k)?;
            (x.cycles > 0 && y.cycles > 0)
                .then(|| (k.clone(), y.cycles as f64 / x.cycles as f64, x, y))
        })
        .collect();
    writeln!(md, "\n## Runs\n")?;
    if moves.is_empty() {
        writeln!(md, "The folders share no finished run.")?;
        return Ok((md, led));
    }
    let geo = (moves.iter().map(|m| m.1.ln()).sum::<f64>() / moves.len() as f64).exp();
    let moved = moves.iter().filter(|m| (m.1 - 1.0).abs() > MOVED).count();
    let faster = moves.iter().filter(|m| m.1 < 1.0 - MOVED).count();
    writeln!(
        md,
        "{} runs in both (A has {}, B {}). Simulated cycles B / A: geometric mean {}; {} runs moved by more than {} ({} faster in B, {} slower).\n",
        led.int(moves.len() as u64, "runs in both"),
        led.int(ra.len() as u64, "A runs"),
        led.int(rb.len() as u64, "B runs"),
        led.x(geo, "geometric mean cycles B/A"),
        led.int(moved as u64, "runs moved"),
        led.pct(MOVED, "MOVED"),
        led.int(faster as u64, "runs faster"),
        led.int((moved - faster) as u64, "runs slower"),
    )?;
    moves.sort_by(|p, q| {
        q.1.ln()
            .abs()
            .total_cmp(&p.1.ln().abs())
            .then(p.0.cmp(&q.0))
    });
    writeln!(
        md,
        "The runs that moved most:\n\n| run | cycles A | cycles B | B / A | L2 hit rate A | L2 hit rate B |\n|---|---|---|---|---|---|"
    )?;
    for (k, r, x, y) in moves.iter().take(TOP) {
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            led.put(k.clone(), "run key"),
            led.int(x.cycles, "A cycles"),
            led.int(y.cycles, "B cycles"),
            led.x(*r, "cycles B/A"),
            led.pct(x.l2_hit_rate, "A l2_hit_rate"),
            led.pct(y.l2_hit_rate, "B l2_hit_rate"),
        )?;
    }
    Ok((md, led))
}

/// Write the comparison of `a` and `b` to `out` (with `numbers.txt` / `checks.txt` beside
/// it, named after it) or print it; the report is audited first.
pub fn run(a: &Path, b: &Path, out: Option<&Path>, labels: Option<&[String]>) -> Result<()> {
    let (md, led) = report(a, b, labels)?;
    let problems = super::audit::audit(&md, &led.numbers_txt(), &led.checks_txt());
    if !problems.is_empty() {
        anyhow::bail!(
            "internal: the comparison fails its audit:\n{}",
            problems.join("\n")
        );
    }
    match out {
        Some(p) => {
            std::fs::write(p, &md).with_context(|| format!("cannot write {}", p.display()))?;
            std::fs::write(p.with_extension("numbers.txt"), led.numbers_txt())?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{md}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_keep_quoted_commas_and_quotes() {
        assert_eq!(
            csv_fields(r#""a, b",1.5,"say ""x""",,true"#),
            vec!["a, b", "1.5", r#"say "x""#, "", "true"]
        );
    }

    fn folder(name: &str, held: &str, cycles: &[(&str, u64)]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("locus-compare-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("runs")).unwrap();
        std::fs::write(
            d.join("verdicts.csv"),
            format!(
                "claim,paper,ours,inputs,rule,held,ours_text\n\"Fig. 7: X, mean\",\"+10%\",1.1,3,\"within\",{held},\"+10.0%\"\n\"Fig. 8\",\"2x\",2,3,\"above\",true,\"2.00x\"\n"
            ),
        )
        .unwrap();
        for (k, c) in cycles {
            let r = RunResult {
                key: k.to_string(),
                cycles: *c,
                l2_hit_rate: 0.5,
                ..Default::default()
            };
            std::fs::write(
                d.join("runs").join(format!("{k}.json")),
                serde_json::to_string(&r).unwrap(),
            )
            .unwrap();
        }
        d
    }

    #[test]
    fn a_flipped_verdict_and_moved_runs_are_reported_and_audited() {
        let a = folder("a", "true", &[("x-base", 1000), ("y-base", 2000), ("z", 5)]);
        let b = folder("b", "false", &[("x-base", 500), ("y-base", 2000)]);
        let (md, led) = report(&a, &b, None).unwrap();
        let (named, _) = report(&a, &b, Some(&["lin".into(), "part".into()])).unwrap();
        assert!(
            named.contains("A: `lin`") && named.contains("B: `part`"),
            "{named}"
        );
        assert!(md.contains("1 verdict(s) changed: Fig. 7: X, mean"), "{md}");
        assert!(md.contains("**changed:** Fig. 7: X, mean"));
        assert!(!md.contains("**changed:** Fig. 8"));
        // two runs in both: ratios 0.5 and 1.0, geometric mean sqrt(0.5)
        assert!(md.contains("2 runs in both (A has 3, B 2)"), "{md}");
        assert!(md.contains("geometric mean 0.71x"), "{md}");
        assert!(md.contains("1 runs moved by more than 1.0% (1 faster in B, 0 slower)"));
        // the most-moved run comes first
        let first = md.lines().find(|l| l.starts_with("| x-base")).unwrap();
        assert!(first.contains("| 1000 | 500 | 0.50x |"), "{first}");
        assert!(super::super::audit::audit(&md, &led.numbers_txt(), &led.checks_txt()).is_empty());
        let _ = std::fs::remove_dir_all(&a);
        let _ = std::fs::remove_dir_all(&b);
    }

    #[test]
    fn a_folder_without_verdicts_is_named_in_the_error() {
        let d = std::env::temp_dir().join(format!("locus-compare-{}-empty", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let e = read_verdicts(&d).unwrap_err().to_string();
        assert!(
            e.contains("no verdicts.csv") && e.contains(&d.display().to_string()),
            "{e}"
        );
    }
}
