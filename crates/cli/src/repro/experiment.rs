//! Reproductions as data (issue 7 §6): a paper's evaluation is a list of runs
//! ([`super::RunSpec`]: preset, overrides, workload) plus the claims it checks, and each
//! claim — the quantity computed from the runs, the mean, the paper's value and the verdict
//! rule — is declared in code *before* any run, so no rule can be chosen after seeing an
//! outcome. [`Claim::evaluate`] reads the finished runs generically: any field of a run's
//! record, including every statistic of the simulator under `sim` (`sim.total.cycles`,
//! `sim.total.counters.l2_misses`, `sim.links.3.utilization`, ...), by a dotted path.
//!
//! A quantity over several benchmarks skips those whose value is not a finite number (a
//! missing run, a division by zero) and reports how many it used, so a partial sweep never
//! silently averages a NaN.

use super::RunResult;
use std::collections::BTreeMap;

/// How values over benchmarks are averaged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mean {
    Arithmetic,
    Geometric,
    /// NUBA (spec nuba.md §6.1) averages IPC speedups harmonically.
    Harmonic,
}

impl Mean {
    /// The mean of the finite values of `v` (NaN when there is none, or for the geometric
    /// and harmonic means when a value is not positive).
    pub fn of(self, v: &[f64]) -> f64 {
        let f: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        if f.is_empty() {
            return f64::NAN;
        }
        let n = f.len() as f64;
        match self {
            Mean::Arithmetic => f.iter().sum::<f64>() / n,
            Mean::Geometric if f.iter().all(|&x| x > 0.0) => {
                (f.iter().map(|x| x.ln()).sum::<f64>() / n).exp()
            }
            Mean::Harmonic if f.iter().all(|&x| x > 0.0) => {
                n / f.iter().map(|x| 1.0 / x).sum::<f64>()
            }
            _ => f64::NAN,
        }
    }
}

/// A number computed from finished runs.
#[derive(Clone, Debug)]
pub enum Quantity {
    /// The field at a dotted `path` of run `key`'s record (NaN when absent).
    Run { key: String, path: String },
    /// `a / b` (NaN when `b` is 0).
    Ratio(Box<Quantity>, Box<Quantity>),
    /// `1 - a / b`: how much `a` reduces `b` (NaN when `b` is 0).
    Reduction(Box<Quantity>, Box<Quantity>),
    /// A mean over several quantities (non-finite ones skipped).
    Mean(Mean, Vec<Quantity>),
    /// The smallest of several quantities (non-finite ones skipped).
    Min(Vec<Quantity>),
    /// The largest of several quantities (non-finite ones skipped): NUBA's "MDR is about
    /// the better of No-Rep and Full-Rep".
    Max(Vec<Quantity>),
    /// The sum of several quantities (non-finite ones skipped; NaN when none is finite):
    /// an aggregate over benchmarks, e.g. all remote accesses of all runs together.
    Sum(Vec<Quantity>),
}

impl Quantity {
    /// Field `path` of run `key`.
    pub fn run(key: impl Into<String>, path: &str) -> Quantity {
        Quantity::Run {
            key: key.into(),
            path: path.to_string(),
        }
    }
    /// `base cycles / variant cycles` of two runs: the variant's speedup.
    pub fn speedup(base: impl Into<String>, variant: impl Into<String>) -> Quantity {
        Quantity::Ratio(
            Box::new(Quantity::run(base, "cycles")),
            Box::new(Quantity::run(variant, "cycles")),
        )
    }

    /// Evaluate over the runs: the value and the number of finite inputs it used.
    pub fn eval(&self, runs: &Runs) -> (f64, usize) {
        match self {
            Quantity::Run { key, path } => {
                let v = runs.value(key, path);
                (v, v.is_finite() as usize)
            }
            Quantity::Ratio(a, b) | Quantity::Reduction(a, b) => {
                let ((x, nx), (y, ny)) = (a.eval(runs), b.eval(runs));
                let r = if y == 0.0 { f64::NAN } else { x / y };
                let v = match self {
                    Quantity::Ratio(..) => r,
                    _ => 1.0 - r,
                };
                // inputs: those of the sparser side (a sum over benchmarks counts them)
                (v, if v.is_finite() { nx.min(ny).max(1) } else { 0 })
            }
            Quantity::Mean(m, qs) => {
                let v: Vec<f64> = qs.iter().map(|q| q.eval(runs).0).collect();
                (m.of(&v), v.iter().filter(|x| x.is_finite()).count())
            }
            Quantity::Sum(qs) => {
                let v: Vec<f64> = qs
                    .iter()
                    .map(|q| q.eval(runs).0)
                    .filter(|x| x.is_finite())
                    .collect();
                let n = v.len();
                (if n == 0 { f64::NAN } else { v.iter().sum() }, n)
            }
            Quantity::Min(qs) | Quantity::Max(qs) => {
                let v: Vec<f64> = qs
                    .iter()
                    .map(|q| q.eval(runs).0)
                    .filter(|x| x.is_finite())
                    .collect();
                let n = v.len();
                let pick = if matches!(self, Quantity::Min(_)) {
                    f64::min
                } else {
                    f64::max
                };
                (v.into_iter().fold(f64::NAN, pick), n)
            }
        }
    }
}

/// The reason for a mean claim that one benchmark carries away from the paper
/// ([`Claim::carried_by`]; a rule written in session 37, after the runs had
/// been seen): that benchmark's own value and the mean without it, and, for a speedup
/// whose two runs' L2 hit rates differ by more than 10 points, both hit rates.
pub fn carried_reason(
    o: &LeftOut,
    c: &Claim,
    runs: &Runs,
    led: &super::ledger::Ledger,
    names: &[String],
) -> String {
    let src = |what: &str| format!("{} without {}: {what}", c.name, o.keys.join(" / "));
    let first = o.keys.first().map(String::as_str).unwrap_or_default();
    let bench = names
        .iter()
        .filter(|b| first.starts_with(&format!("{b}-")))
        .max_by_key(|b| b.len())
        .map(String::as_str)
        .unwrap_or(first);
    let mut why = format!(
        "measured: {bench} alone carries the mean away: {} on its own, {} for the others without it ({})",
        led.put(c.unit.show(o.value), &src("its value")),
        led.put(c.unit.show(o.rest), &src("mean of the rest")),
        c.rule.text(c.unit)
    );
    if let [base, var] = &o.keys[..] {
        let (hb, hv) = (
            runs.value(base, "l2_hit_rate"),
            runs.value(var, "l2_hit_rate"),
        );
        if (hv - hb).abs() > 0.10 {
            why += &format!(
                "; its L2 hit rate is {} in `{var}` against {} in `{base}`",
                led.pct(hv, &format!("{var} l2_hit_rate")),
                led.pct(hb, &format!("{base} l2_hit_rate"))
            );
        }
    }
    why + " (a rule written after the runs were seen)"
}

/// How a value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A ratio shown as a gain: 1.31 -> `+31.0%`.
    Gain,
    /// A ratio shown as a factor: 1.31 -> `1.31x`.
    Times,
    /// A fraction shown as a percentage: 0.75 -> `75.0%`.
    Percent,
    /// A reduction shown as a fall: 0.38 -> `-38.0%`.
    Fall,
    /// A plain count or mean count: 12.93 -> `12.9`.
    Count,
}

impl Unit {
    pub fn show(self, v: f64) -> String {
        if !v.is_finite() {
            return "no data".into();
        }
        match self {
            Unit::Gain => format!("{:+.1}%", 100.0 * (v - 1.0)),
            Unit::Times => format!("{v:.2}x"),
            Unit::Percent => format!("{:.1}%", 100.0 * v),
            Unit::Fall => format!("{:+.1}%", -100.0 * v),
            Unit::Count => format!("{v:.1}"),
        }
    }
}

/// When a claim holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// `|ours - paper| <= tol` (absolute: 0.10 = 10 percentage points of a ratio).
    WithinAbs(f64),
    /// `ours < x` (e.g. "slower": a speedup below 1).
    Below(f64),
    /// `ours > x` (e.g. "faster in every mix": the smallest speedup above 1).
    Above(f64),
}

impl Rule {
    pub fn text(self, unit: Unit) -> String {
        match self {
            Rule::WithinAbs(t) => match unit {
                Unit::Times => format!("within {t:.2}x of the paper"),
                Unit::Count => format!("within {t:.2} of the paper"),
                _ => format!("within {:.0} pp of the paper", 100.0 * t),
            },
            Rule::Below(x) => format!("below {}", unit.show(x)),
            Rule::Above(x) => format!("above {}", unit.show(x)),
        }
    }
}

/// A claim of the paper with its verdict rule, declared before the runs.
#[derive(Clone, Debug)]
pub struct Claim {
    /// What is claimed, in words.
    pub name: String,
    /// The paper's value as the paper states it.
    pub paper_text: String,
    /// The paper's value as a number, when the rule compares with it.
    pub paper: Option<f64>,
    pub quantity: Quantity,
    pub unit: Unit,
    pub rule: Rule,
}

/// A claim evaluated on finished runs.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub name: String,
    pub paper_text: String,
    /// The paper's value as a number (from the claim), when it has one.
    pub paper: Option<f64>,
    pub ours: f64,
    /// Finite inputs the quantity used.
    pub n: usize,
    pub ours_text: String,
    pub rule_text: String,
    /// `None` when there is no data to judge.
    pub held: Option<bool>,
}

/// A mean claim's value without one of its inputs ([`Claim::carried_by`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LeftOut {
    /// The run keys the left-out input reads, in order (a speedup: the base run's, then
    /// the variant's).
    pub keys: Vec<String>,
    /// The left-out input's own value.
    pub value: f64,
    /// The mean of the other inputs.
    pub rest: f64,
}

impl Quantity {
    /// The keys of the runs this quantity reads, in order.
    pub fn keys(&self) -> Vec<String> {
        match self {
            Quantity::Run { key, .. } => vec![key.clone()],
            Quantity::Ratio(a, b) | Quantity::Reduction(a, b) => {
                let mut k = a.keys();
                k.extend(b.keys());
                k
            }
            Quantity::Mean(_, qs) | Quantity::Min(qs) | Quantity::Max(qs) | Quantity::Sum(qs) => {
                qs.iter().flat_map(|q| q.keys()).collect()
            }
        }
    }
}

impl Claim {
    /// Whether value `v` satisfies the claim's rule.
    fn holds(&self, v: f64) -> bool {
        match self.rule {
            Rule::WithinAbs(t) => self.paper.is_some_and(|p| (v - p).abs() <= t),
            Rule::Below(x) => v < x,
            Rule::Above(x) => v > x,
        }
    }

    /// For a claim that is a mean over three or more inputs and does not hold: the one
    /// input without which the mean of the others would hold, the farthest from that mean
    /// when several would (one benchmark carries the mean away from the paper). `None` when
    /// the claim holds, is not such a mean, or no single input is to blame. A measured
    /// decomposition for a report's reason, not a verdict: the verdict stays the claim's.
    pub fn carried_by(&self, runs: &Runs) -> Option<LeftOut> {
        let Quantity::Mean(m, qs) = &self.quantity else {
            return None;
        };
        let vals: Vec<f64> = qs.iter().map(|q| q.eval(runs).0).collect();
        let all = m.of(&vals);
        if vals.iter().filter(|v| v.is_finite()).count() < 3 || !all.is_finite() || self.holds(all)
        {
            return None;
        }
        let mut best: Option<LeftOut> = None;
        for (i, q) in qs.iter().enumerate() {
            if !vals[i].is_finite() {
                continue;
            }
            let rest: Vec<f64> = vals
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &v)| v)
                .collect();
            let r = m.of(&rest);
            let far = |o: &LeftOut| (o.value - o.rest).abs();
            let cand = LeftOut {
                keys: q.keys(),
                value: vals[i],
                rest: r,
            };
            if r.is_finite() && self.holds(r) && best.as_ref().is_none_or(|b| far(&cand) > far(b)) {
                best = Some(cand);
            }
        }
        best
    }

    pub fn evaluate(&self, runs: &Runs) -> Verdict {
        let (ours, n) = self.quantity.eval(runs);
        let held = ours.is_finite().then(|| self.holds(ours));
        Verdict {
            name: self.name.clone(),
            paper_text: self.paper_text.clone(),
            paper: self.paper,
            ours,
            n,
            ours_text: self.unit.show(ours),
            rule_text: self.rule.text(self.unit),
            held,
        }
    }
}

/// The Markdown table of verdicts: claim, paper, ours (inputs used), rule, held.
pub fn verdict_table(vs: &[Verdict]) -> String {
    let mut s = String::from(
        "| result | paper | Locus | inputs | rule (declared before the runs) | held |\n|---|---|---|---|---|---|\n",
    );
    for v in vs {
        s += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            v.name,
            v.paper_text,
            v.ours_text,
            v.n,
            v.rule_text,
            match v.held {
                Some(true) => "yes",
                Some(false) => "no",
                None => "no data",
            }
        );
    }
    s
}

/// The verdicts as CSV: claim, paper, ours (the raw number), inputs, rule, held, and ours
/// as the report shows it (`locus repro compare` reads this file).
pub fn verdict_csv(vs: &[Verdict]) -> String {
    let mut s = String::from("claim,paper,ours,inputs,rule,held,ours_text\n");
    for v in vs {
        s += &format!(
            "\"{}\",\"{}\",{},{},\"{}\",{},\"{}\"\n",
            v.name,
            v.paper_text,
            v.ours,
            v.n,
            v.rule_text,
            v.held.map(|h| h.to_string()).unwrap_or_default(),
            v.ours_text
        );
    }
    s
}

/// Finished runs, each as its JSON record, for generic lookups.
pub struct Runs {
    json: BTreeMap<String, serde_json::Value>,
}

impl Runs {
    pub fn new(runs: &BTreeMap<String, RunResult>) -> Runs {
        Runs {
            json: runs
                .iter()
                .map(|(k, r)| (k.clone(), serde_json::to_value(r).unwrap_or_default()))
                .collect(),
        }
    }
    /// The whole record of run `key` as JSON (for statistics a dotted path cannot name,
    /// such as a sum over a list).
    pub fn record(&self, key: &str) -> Option<&serde_json::Value> {
        self.json.get(key)
    }
    /// The number at dotted `path` of run `key` (array elements by index), NaN if absent.
    pub fn value(&self, key: &str, path: &str) -> f64 {
        let Some(mut v) = self.json.get(key) else {
            return f64::NAN;
        };
        for part in path.split('.') {
            let next = match v {
                serde_json::Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
                serde_json::Value::Object(o) => o.get(part),
                _ => None,
            };
            match next {
                Some(n) => v = n,
                None => return f64::NAN,
            }
        }
        v.as_f64().unwrap_or(f64::NAN)
    }
}

/// A reproduction's benchmark list: `--workloads a,b,c` when given, else `defaults`, each
/// as its workload's own name (a paper abbreviation such as `kmn` becomes `km`); an
/// empty list or a name the workload registry does not know is an error that names it
/// (`example` shows a valid `--workloads` value).
pub fn workload_list(
    given: Option<&str>,
    defaults: Vec<String>,
    example: &str,
) -> anyhow::Result<Vec<String>> {
    let names: Vec<String> = match given {
        Some(l) => l
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        None => defaults,
    };
    if names.is_empty() {
        anyhow::bail!("--workloads: give at least one workload, e.g. --workloads {example}");
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
    // each as its workload's own name (`kmn` and `KM` run as `km`), so run keys and the
    // claims about a workload agree however it was spelled; a workload named twice runs once
    let mut out: Vec<String> = Vec::new();
    for b in names
        .iter()
        .filter_map(|n| locus_workload::registry::find(n))
    {
        if !out.iter().any(|o| o == b.name) {
            out.push(b.name.to_string());
        }
    }
    Ok(out)
}

/// The report sentence naming the L2 set index of `cfg` (`l2.set_index`), so a reader
/// knows which index the runs took (it moves results: docs/l2-index-study.md).
pub fn set_index_sentence(cfg: &locus_sim::config::Config) -> String {
    let name = serde_json::to_value(cfg.l2.set_index)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let what = match cfg.l2.set_index {
        locus_sim::config::SetIndex::Linear => "the low bits of the physical line number",
        locus_sim::config::SetIndex::Partition => {
            "linear on the slice's own line number, the node and slice-select bits deleted, as the paper's simulator indexes an L2 bank"
        }
        locus_sim::config::SetIndex::Xor => "hashed",
    };
    format!(
        "L2 set index: `{name}` ({what}; `l2.set_index`, docs/l2-index-study.md compares the indices).\n"
    )
}

/// Write `runs.csv` into `out`: one row per run (key, workload, preset, overrides) with
/// the value of each statistic path in `cols`, as every reproduction keeps its runs.
pub fn write_runs_csv(
    out: &std::path::Path,
    specs: &[super::RunSpec],
    runs: &Runs,
    cols: &[&str],
) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let mut csv = format!("run,bench,preset,sets,{}\n", cols.join(","));
    for s in specs {
        let vals: Vec<String> = cols
            .iter()
            .map(|p| runs.value(&s.key, p).to_string())
            .collect();
        let _ = writeln!(
            csv,
            "{},{},{},{},{}",
            s.key,
            s.bench,
            s.preset,
            s.sets.join(" "),
            vals.join(",")
        );
    }
    std::fs::write(out.join("runs.csv"), csv)
}

/// A Markdown table of `head` and `rows`, as every reproduction's report prints them.
pub fn md_table(head: &[String], rows: &[Vec<String>]) -> String {
    use std::fmt::Write as _;
    let mut s = format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", r.join(" | "));
    }
    s
}

/// The closing lines of a reproduction: its headline and where its report, per-run table
/// and verdicts are (nothing when `quiet`).
pub fn print_closing(out: &std::path::Path, head: &str, quiet: bool) {
    if !quiet {
        println!("{head}");
        println!(
            "report: {}; per-run figures: {}; verdicts: {}",
            out.join("report.md").display(),
            out.join("runs.csv").display(),
            out.join("verdicts.csv").display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs() -> Runs {
        let mut m = BTreeMap::new();
        for (k, c, r) in [
            ("a-fgp", 200, 80),
            ("a-coda", 100, 20),
            ("b-fgp", 300, 0),
            ("b-coda", 300, 0),
        ] {
            m.insert(
                k.to_string(),
                RunResult {
                    key: k.into(),
                    cycles: c,
                    remote: r,
                    app_finish: vec![("x".into(), 7)],
                    ..Default::default()
                },
            );
        }
        Runs::new(&m)
    }

    #[test]
    fn means_closed_forms_and_nan_skipping() {
        let v = [1.0, 2.0, 4.0, f64::NAN];
        assert_eq!(Mean::Arithmetic.of(&v), 7.0 / 3.0);
        assert!((Mean::Geometric.of(&v) - 2.0).abs() < 1e-12);
        assert!((Mean::Harmonic.of(&v) - 3.0 / 1.75).abs() < 1e-12);
        assert!(Mean::Geometric.of(&[1.0, -1.0]).is_nan());
        assert!(Mean::Arithmetic.of(&[]).is_nan());
    }

    #[test]
    fn quantities_read_runs_by_path() {
        let r = runs();
        assert_eq!(r.value("a-fgp", "cycles"), 200.0);
        assert_eq!(r.value("a-fgp", "app_finish.0.1"), 7.0);
        assert!(r.value("a-fgp", "nope").is_nan());
        assert!(r.value("zzz", "cycles").is_nan());
        assert_eq!(Quantity::speedup("a-fgp", "a-coda").eval(&r), (2.0, 1));
        let red = |b: &str| {
            Quantity::Reduction(
                Box::new(Quantity::run(format!("{b}-coda"), "remote")),
                Box::new(Quantity::run(format!("{b}-fgp"), "remote")),
            )
        };
        assert_eq!(red("a").eval(&r), (0.75, 1));
        // b has no remote access: its reduction is undefined and skipped by the mean
        let m = Quantity::Mean(Mean::Arithmetic, vec![red("a"), red("b")]);
        assert_eq!(m.eval(&r), (0.75, 1));
        let min = Quantity::Min(vec![
            Quantity::speedup("a-fgp", "a-coda"),
            Quantity::speedup("b-fgp", "b-coda"),
        ]);
        assert_eq!(min.eval(&r), (1.0, 2));
        let max = Quantity::Max(vec![
            Quantity::speedup("a-fgp", "a-coda"),
            Quantity::speedup("b-fgp", "b-coda"),
            Quantity::speedup("zzz", "b-coda"),
        ]);
        assert_eq!(max.eval(&r), (2.0, 2));
        // all remote accesses together: 1 - (20 + 0) / (80 + 0)
        let agg = Quantity::Reduction(
            Box::new(Quantity::Sum(vec![
                Quantity::run("a-coda", "remote"),
                Quantity::run("b-coda", "remote"),
            ])),
            Box::new(Quantity::Sum(vec![
                Quantity::run("a-fgp", "remote"),
                Quantity::run("b-fgp", "remote"),
                Quantity::run("zzz", "remote"),
            ])),
        );
        assert_eq!(agg.eval(&r).0, 0.75);
    }

    #[test]
    fn verdicts_follow_their_rules() {
        let r = runs();
        let claim = |paper: f64, rule: Rule| Claim {
            name: "c".into(),
            paper_text: "p".into(),
            paper: Some(paper),
            quantity: Quantity::speedup("a-fgp", "a-coda"),
            unit: Unit::Gain,
            rule,
        };
        assert_eq!(
            claim(1.95, Rule::WithinAbs(0.1)).evaluate(&r).held,
            Some(true)
        );
        assert_eq!(
            claim(1.85, Rule::WithinAbs(0.1)).evaluate(&r).held,
            Some(false)
        );
        assert_eq!(claim(0.0, Rule::Below(1.0)).evaluate(&r).held, Some(false));
        assert_eq!(claim(0.0, Rule::Above(1.0)).evaluate(&r).held, Some(true));
        let v = claim(2.0, Rule::WithinAbs(0.1)).evaluate(&r);
        assert_eq!(v.ours_text, "+100.0%");
        let mut missing = claim(2.0, Rule::WithinAbs(0.1));
        missing.quantity = Quantity::speedup("a-fgp", "nope");
        let v = missing.evaluate(&r);
        assert_eq!((v.held, v.ours_text.as_str()), (None, "no data"));
        let t = verdict_table(&[v]);
        assert!(t.contains("| no data |") && t.contains("within 10 pp"));
    }

    /// Speedups `fgp / coda` of benchmarks b0.. with the given cycles pairs.
    fn speedup_runs(pairs: &[(u64, u64)]) -> (Runs, Vec<Quantity>) {
        let mut m = BTreeMap::new();
        let mut qs = Vec::new();
        for (i, &(f, c)) in pairs.iter().enumerate() {
            for (cfg, cyc) in [("fgp", f), ("coda", c)] {
                let k = format!("b{i}-{cfg}");
                let r = RunResult {
                    key: k.clone(),
                    cycles: cyc,
                    ..Default::default()
                };
                m.insert(k, r);
            }
            qs.push(Quantity::speedup(format!("b{i}-fgp"), format!("b{i}-coda")));
        }
        (Runs::new(&m), qs)
    }

    fn mean_claim(qs: Vec<Quantity>) -> Claim {
        Claim {
            name: "mean".into(),
            paper_text: "1.0x".into(),
            paper: Some(1.0),
            quantity: Quantity::Mean(Mean::Arithmetic, qs),
            unit: Unit::Times,
            rule: Rule::WithinAbs(0.10),
        }
    }

    /// One outlier carries a failing mean: left out, the others' mean holds, and it is
    /// named with its runs. Two outliers, or a mean that holds, name nobody.
    #[test]
    fn carried_by_names_the_one_input_a_failing_mean_hangs_on() {
        let (runs, qs) = speedup_runs(&[(100, 100), (100, 95), (105, 100), (500, 100)]);
        let c = mean_claim(qs);
        assert_eq!(c.evaluate(&runs).held, Some(false));
        let o = c.carried_by(&runs).unwrap();
        assert_eq!(o.keys, vec!["b3-fgp".to_string(), "b3-coda".to_string()]);
        assert!((o.value - 5.0).abs() < 1e-12);
        assert!((o.rest - (1.0 + 100.0 / 95.0 + 1.05) / 3.0).abs() < 1e-12);
        let (runs, qs) = speedup_runs(&[(100, 100), (100, 100), (500, 100), (500, 100)]);
        assert_eq!(mean_claim(qs).carried_by(&runs), None, "two outliers");
        let (runs, qs) = speedup_runs(&[(100, 100), (100, 100), (104, 100)]);
        let c = mean_claim(qs);
        assert_eq!(c.evaluate(&runs).held, Some(true));
        assert_eq!(c.carried_by(&runs), None, "a mean that holds");
    }
}
