//! Reproductions of the papers' evaluations. A reproduction is a list of runs (workload,
//! parameters, preset, overrides); [`execute`] runs each distinct simulation once, longest
//! first, `jobs` at a time, writing each finished run's summary to `OUT/runs/<key>.json` at
//! once, so a sweep killed half-way loses no finished result and a rerun skips what is done.

pub mod audit;
pub mod coda;
pub mod compare;
pub mod experiment;
pub mod hms;
pub mod ledger;
pub mod ndp;
pub mod ndp_report;
pub mod nuba;
pub mod nuba_report;
pub mod nuba_why;
pub mod rec;
pub mod rec_report;
pub mod replay;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One simulation (or analysis) to run.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Unique, file-name-safe identifier.
    pub key: String,
    pub bench: String,
    pub params: Vec<(String, String)>,
    pub preset: String,
    pub sets: Vec<String>,
    /// Page-sharing analysis instead of a timing simulation.
    pub sharing: bool,
    /// Co-running applications (workload, parameters), the i-th alone on node i; when
    /// non-empty, `bench` and `params` are ignored.
    pub apps: Vec<(String, Vec<(String, String)>)>,
    /// An Accel-Sim trace folder to run instead of `bench` (its `params` are ignored).
    pub trace: Option<String>,
}

/// What a reproduction keeps of a run.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
pub struct RunResult {
    pub key: String,
    pub bench: String,
    pub cycles: u64,
    pub warp_insts: u64,
    pub local: u64,
    pub remote: u64,
    pub remote_fraction: f64,
    pub l1_miss_local: u64,
    pub l1_miss_remote: u64,
    pub l2_hit_rate: f64,
    pub dram_gbs: f64,
    pub migrations: u64,
    pub host_seconds: f64,
    pub l1_requests: u64,
    /// Page sharing (analysis runs).
    pub sharing: Option<locus_workload::sharing::SharingReport>,
    /// Finishing cycle of each co-running application (multiprogrammed runs).
    #[serde(default)]
    pub app_finish: Vec<(String, u64)>,
    /// Utilisation of the busiest inter-node port.
    #[serde(default)]
    pub max_remote_link_util: f64,
    /// Memory warp instructions (for instructions per memory instruction).
    #[serde(default)]
    pub mem_insts: u64,
    /// Every statistic of the run (the `sim` tree of `locus run --stats-json`), so a claim
    /// can read any counter by path (`sim.total.counters.l2_misses`): results are generic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<serde_json::Value>,
}

/// Run `s`; `shared`, when given, is its workload (a [`replay::Replayed`] view of the
/// workload's shared record) instead of a fresh build.
fn run_one(s: &RunSpec, shared: Option<Box<dyn locus_workload::Workload>>) -> Result<RunResult> {
    let params: BTreeMap<String, String> = s.params.iter().cloned().collect();
    let mut cfg = locus_sim::preset::load(Some(&s.preset), None, &s.sets)?;
    if cfg.run.gen_limit == 0 && s.apps.is_empty() {
        // capped runs generate only what they can issue (no statistic changes; the run
        // key is the spec's, without it)
        cfg.run.gen_limit = locus_sim::suggested_gen_limit(&cfg);
    }
    let bench = if s.apps.is_empty() {
        s.bench.as_str()
    } else {
        "single-load"
    };
    // the run's own workload (also the fresh one a run past `run.gen_limit` starts again on)
    let own = || -> Result<Box<dyn locus_workload::Workload>> {
        Ok(match &s.trace {
            Some(t) => Box::new(locus_workload::trace_source::TraceWorkload::open(
                std::path::Path::new(t),
            )?),
            None => Box::new(locus_workload::registry::build(
                bench,
                &if s.apps.is_empty() {
                    params.clone()
                } else {
                    BTreeMap::new()
                },
                1,
            )?),
        })
    };
    let mut w: Box<dyn locus_workload::Workload> = match shared {
        Some(w) => w,
        None => own()?,
    };
    if s.sharing {
        let sys = locus_sim::System::new(&cfg);
        let spn = cfg.system.sms_per_node as u64;
        let r = locus_workload::sharing::page_sharing(
            &mut *w,
            cfg.system.nodes,
            cfg.system.page_bytes,
            cfg.system.line_bytes,
            |k| spn * sys.blocks_per_sm(k).max(1) as u64,
            100_000,
        )?;
        return Ok(RunResult {
            key: s.key.clone(),
            bench: s.bench.clone(),
            sharing: Some(r),
            ..Default::default()
        });
    }
    let r = if s.apps.is_empty() {
        locus_sim::simulate_exact(&cfg, &mut *w, &mut || {
            own().map_err(|e| locus_sim::SimError::Config(format!("{e:#}")))
        })?
    } else {
        let mut boxes: Vec<Box<dyn locus_workload::Workload>> = Vec::new();
        let mut objs = 0u16;
        for (i, (name, p)) in s.apps.iter().enumerate() {
            let p: BTreeMap<String, String> = p.iter().cloned().collect();
            let a = locus_workload::registry::build(name, &p, 1 + i as u64)?;
            let n = locus_workload::Workload::objects(&a).len() as u16;
            boxes.push(Box::new(locus_workload::offset::Offset::new(
                Box::new(a),
                i as u32,
                objs,
            )));
            objs += n;
        }
        let mut refs: Vec<&mut dyn locus_workload::Workload> = boxes
            .iter_mut()
            .map(|b| &mut **b as &mut dyn locus_workload::Workload)
            .collect();
        locus_sim::System::new(&cfg).run_multi(&mut refs, &mut |_| {})?
    };
    let t = &r.sim.total;
    let c = &t.counters;
    Ok(RunResult {
        key: s.key.clone(),
        bench: s.bench.clone(),
        cycles: t.cycles,
        warp_insts: c.warp_insts,
        local: c.local_accesses,
        remote: c.remote_accesses,
        remote_fraction: t.remote_fraction,
        l1_miss_local: c.l1_miss_local,
        l1_miss_remote: c.l1_miss_remote,
        l2_hit_rate: t.l2_hit_rate,
        dram_gbs: r.sim.dram_bandwidth_gbs,
        migrations: c.migrations,
        host_seconds: r.host.as_ref().map(|h| h.seconds).unwrap_or(0.0),
        l1_requests: c.l1_requests,
        sharing: None,
        app_finish: r
            .sim
            .apps
            .iter()
            .map(|a| (a.name.clone(), a.finish_cycles))
            .collect(),
        max_remote_link_util: r
            .sim
            .links
            .iter()
            .filter(|l| l.kind == "inter-node")
            .map(|l| l.utilization)
            .fold(0.0, f64::max),
        mem_insts: c.mem_insts,
        sim: Some(serde_json::to_value(&r.sim)?),
    })
}

/// A planned run that repeats another's simulation: (its key, the key of the run it copies).
pub type Alias = (String, String);

/// [`distinct`]'s answer: the specs to run, and the aliases.
pub type Distinct = (Vec<RunSpec>, Vec<Alias>);

/// What makes two specs the same simulation: benchmark, parameters, mode, co-runners and
/// trace, and the configuration their preset and `--set`s load to (overrides in another
/// order, or one restating the preset's value, make the same run).
fn identity(s: &RunSpec, cfg: &locus_sim::config::Config) -> Result<String> {
    Ok(serde_json::to_string(&(
        &s.bench,
        &s.params,
        s.sharing,
        &s.apps,
        &s.trace,
        serde_json::to_value(cfg)?,
    ))?)
}

/// The distinct simulations of `specs` (the simulator is deterministic, so specs with the
/// same [`identity`] give the same result): the first spec of each, in plan order, and for
/// every other spec (its key, the key of the first). [`execute`] runs only the first.
pub fn distinct(specs: &[RunSpec]) -> Result<Distinct> {
    let mut seen: std::collections::HashMap<String, String> = Default::default();
    let (mut run, mut alias) = (Vec::new(), Vec::new());
    for s in specs {
        let cfg = locus_sim::preset::load(Some(&s.preset), None, &s.sets)?;
        match seen.get(&identity(s, &cfg)?) {
            Some(k) => alias.push((s.key.clone(), k.clone())),
            None => {
                seen.insert(identity(s, &cfg)?, s.key.clone());
                run.push(s.clone());
            }
        }
    }
    Ok((run, alias))
}

/// A run's relative host cost, for ordering the runs only (never for a result): uncapped
/// runs first (they run their workload to the end), then the warp-instruction cap times the
/// simulated components every cycle touches (SMs plus LLC slices over all nodes) times the
/// NoC's slowness against the preset's own (a narrower NoC stretches the same instructions
/// over more cycles). Measured in REC's full run (cap, then SMs: 256 SMs per GPU and 16
/// GPUs are its slowest sweep points) and NUBA's (SMs and slices, NoC bandwidth).
pub fn cost_estimate(s: &RunSpec, c: &locus_sim::config::Config) -> f64 {
    let n = c.system.nodes as f64;
    let parts = n * (c.system.sms_per_node as f64 + c.l2.slices_per_node as f64);
    let bw = |c: &locus_sim::config::Config| {
        c.noc
            .sm_port_gbps
            .min(c.interconnect.local_gbps.max(1.0))
            .max(1e-9)
    };
    let base = locus_sim::preset::load(Some(&s.preset), None, &[])
        .map(|b| bw(&b))
        .unwrap_or(1.0);
    let machine = parts * (base / bw(c)).max(1.0);
    match c.run.max_warp_insts {
        0 => 1e30 * machine.max(1.0),
        cap => cap as f64 * machine,
    }
}

/// The shared workload record of a single-workload timing run (benchmark and parameters:
/// every run builds its workload with seed 1), `None` for traces, co-running applications
/// and sharing analyses, which build their own.
fn workload_key(s: &RunSpec) -> Option<String> {
    (s.trace.is_none() && s.apps.is_empty() && !s.sharing)
        .then(|| serde_json::to_string(&(&s.bench, &s.params)).unwrap_or_default())
}

/// The order in which [`execute`] starts `runs` (given with their costs): longest first,
/// except that the runs of one workload start together (workloads ordered by their
/// longest run), so that they share one workload record ([`replay`]) and few records are
/// alive at once. Ties keep plan order.
fn start_order(runs: &[(f64, &RunSpec)]) -> Vec<usize> {
    let mut top: std::collections::HashMap<Option<String>, (f64, usize)> = Default::default();
    for (i, (c, s)) in runs.iter().enumerate() {
        let e = top.entry(workload_key(s)).or_insert((*c, i));
        if *c > e.0 {
            e.0 = *c;
        }
    }
    let mut idx: Vec<usize> = (0..runs.len()).collect();
    idx.sort_by(|&a, &b| {
        let (ka, kb) = (workload_key(runs[a].1), workload_key(runs[b].1));
        let (ta, tb) = (top[&ka], top[&kb]);
        // runs without a shared workload are their own group
        let ga = if ka.is_some() { ta } else { (runs[a].0, a) };
        let gb = if kb.is_some() { tb } else { (runs[b].0, b) };
        gb.0.total_cmp(&ga.0)
            .then(ga.1.cmp(&gb.1))
            .then(runs[b].0.total_cmp(&runs[a].0))
            .then(a.cmp(&b))
    });
    idx
}

/// Run every spec (reusing finished results under `out/runs`), `jobs` at a time, each
/// distinct simulation once, longest first by [`cost_estimate`]; see [`execute_by`].
pub fn execute(
    specs: &[RunSpec],
    out: &Path,
    jobs: usize,
    quiet: bool,
) -> Result<BTreeMap<String, RunResult>> {
    execute_by(specs, out, jobs, quiet, &cost_estimate)
}

/// The reproductions' one run step. Specs with the same simulation ([`distinct`]) run once
/// and the others get a copy of its result under their own key, also written to
/// `out/runs/<key>.json` (a finished record of any of them is reused for all). The runs left start in
/// [`start_order`] by `cost` (a reproduction may pass its own estimate), each of `jobs`
/// workers taking the next when it is free; the runs of one benchmark share its workload's
/// setup through a [`replay::Record`] (no statistic changes). Each finished run is written
/// to `out/runs/<key>.json` at once.
pub fn execute_by(
    specs: &[RunSpec],
    out: &Path,
    jobs: usize,
    quiet: bool,
    cost: &(dyn Fn(&RunSpec, &locus_sim::config::Config) -> f64 + Sync),
) -> Result<BTreeMap<String, RunResult>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    let dir = out.join("runs");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = |k: &str| -> PathBuf { dir.join(format!("{k}.json")) };
    // group the specs by simulation; a group is done when any member's record exists
    let mut groups: Vec<(f64, &RunSpec, Vec<&RunSpec>)> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = Default::default();
    for s in specs {
        let cfg = locus_sim::preset::load(Some(&s.preset), None, &s.sets)?;
        let id = identity(s, &cfg)?;
        match at.get(&id) {
            Some(&g) => groups[g].2.push(s),
            None => {
                at.insert(id, groups.len());
                groups.push((cost(s, &cfg), s, vec![s]));
            }
        }
    }
    let done = |g: &(f64, &RunSpec, Vec<&RunSpec>)| g.2.iter().any(|s| path(&s.key).exists());
    let todo: Vec<(f64, &RunSpec)> = groups
        .iter()
        .filter(|g| !done(g))
        .map(|g| (g.0, g.1))
        .collect();
    let order = start_order(&todo);
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(groups.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] [{bar:30}] {pos}/{len} runs {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_position((groups.len() - todo.len()) as u64);
        b
    };
    // each workload's record, with the number of its runs not started yet
    type Shared = (Arc<Mutex<replay::Record>>, usize);
    let mut left: std::collections::HashMap<String, usize> = Default::default();
    for (_, s) in &todo {
        if let Some(k) = workload_key(s) {
            *left.entry(k).or_insert(0) += 1;
        }
    }
    let records: Mutex<std::collections::HashMap<String, Shared>> = Mutex::new(Default::default());
    let workload = |s: &RunSpec| -> Result<Option<Box<dyn locus_workload::Workload>>> {
        let Some(k) = workload_key(s) else {
            return Ok(None);
        };
        let lock = || records.lock().unwrap_or_else(|p| p.into_inner());
        if !lock().contains_key(&k) {
            let (bench, params) = (s.bench.clone(), s.params.clone());
            let build: replay::Builder = Arc::new(move || {
                let p: BTreeMap<String, String> = params.iter().cloned().collect();
                Ok(Box::new(locus_workload::registry::build(&bench, &p, 1)?)
                    as Box<dyn locus_workload::Workload>)
            });
            let rec = replay::Record::new(build)?;
            lock().entry(k.clone()).or_insert((rec, left[&k]));
        }
        let mut m = lock();
        let e = m.get_mut(&k).expect("inserted above");
        let rec = e.0.clone();
        e.1 -= 1;
        if e.1 == 0 {
            // the workload's last run has started: the record lives as long as its runs
            m.remove(&k);
        }
        Ok(Some(Box::new(replay::Replayed::new(rec))))
    };
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1) {
            sc.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let s = todo[i].1;
                    bar.set_message(s.key.clone());
                    let res = workload(s).and_then(|w| run_one(s, w)).and_then(|r| {
                        let p = path(&s.key);
                        let tmp = p.with_extension("json.tmp");
                        std::fs::write(&tmp, serde_json::to_string_pretty(&r)?)?;
                        std::fs::rename(&tmp, &p)?;
                        Ok(())
                    });
                    if let Err(e) = res {
                        errors
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(format!("{}: {e:#}", s.key));
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if !errors.is_empty() {
        anyhow::bail!(
            "{} run(s) failed (finished ones are kept in {}):\n  {}",
            errors.len(),
            dir.display(),
            errors.join("\n  ")
        );
    }
    let mut all = BTreeMap::new();
    for g in &groups {
        let p =
            g.2.iter()
                .map(|s| path(&s.key))
                .find(|p| p.exists())
                .unwrap_or_else(|| path(&g.1.key));
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        let r: RunResult = serde_json::from_str(&text)
            .with_context(|| format!("{} is corrupt; delete it to rerun", p.display()))?;
        for s in &g.2 {
            let r = RunResult {
                key: s.key.clone(),
                ..r.clone()
            };
            // a copy's record too, so `out/runs` holds every planned key
            let q = path(&s.key);
            if !q.exists() {
                let tmp = q.with_extension("json.tmp");
                std::fs::write(&tmp, serde_json::to_string_pretty(&r)?)?;
                std::fs::rename(&tmp, &q)?;
            }
            all.insert(s.key.clone(), r);
        }
    }
    Ok(all)
}

/// The file in a reproduction's output folder that names the overrides every run took
/// (`--set`), one per line; absent when none.
pub const BASE_SETS_FILE: &str = "overrides.txt";

/// The overrides of an `overrides.txt` text (one per line) as `--set` options: "none" when
/// there are none; `markdown` puts each in backticks and separates them with commas.
pub fn describe_sets(text: &str, markdown: bool) -> String {
    if text.trim().is_empty() {
        return "none".to_string();
    }
    let each = text.lines().map(|l| {
        if markdown {
            format!("`--set {l}`")
        } else {
            format!("--set {l}")
        }
    });
    each.collect::<Vec<_>>()
        .join(if markdown { ", " } else { " " })
}

/// Put `base` (`--set KEY=VALUE` of `locus repro`, in order) in front of every spec's own
/// overrides, so a whole reproduction runs on a changed machine (`l2.set_index=xor`) while
/// a run that sets the same key itself keeps its own value (the later override wins). Each
/// override is checked on every preset the plan uses before any run, and the list is kept
/// in `out/overrides.txt`: a folder whose finished runs took other overrides is refused,
/// since its records would be reused as if they were this reproduction's.
pub fn apply_base_sets(specs: &mut [RunSpec], base: &[String], out: &Path) -> Result<()> {
    let file = out.join(BASE_SETS_FILE);
    let want: String = base.iter().map(|s| format!("{s}\n")).collect();
    let had = std::fs::read_to_string(&file).unwrap_or_default();
    let has_runs = std::fs::read_dir(out.join("runs"))
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if had != want && has_runs {
        let show = |t: &str| describe_sets(t, false);
        anyhow::bail!(
            "-o {}: its finished runs were made with overrides {} (from {}), this invocation \
             gives {}; use another output folder, or delete its runs/ to start again",
            out.display(),
            show(&had),
            file.display(),
            show(&want)
        );
    }
    let mut presets: Vec<&str> = specs.iter().map(|s| s.preset.as_str()).collect();
    presets.sort_unstable();
    presets.dedup();
    for p in presets {
        locus_sim::preset::load(Some(p), None, base)
            .with_context(|| format!("--set on preset `{p}`"))?;
    }
    if base.is_empty() {
        if file.exists() {
            std::fs::remove_file(&file)?;
        }
        return Ok(());
    }
    std::fs::write(&file, want).with_context(|| format!("cannot write {}", file.display()))?;
    for s in specs.iter_mut() {
        s.sets.splice(0..0, base.iter().cloned());
    }
    Ok(())
}

/// Mark a finished reproduction's `report.md` as run with `base` (`--set`): one line after
/// its title, and each override entered in `numbers.txt` (the report's ledger), so the
/// report still passes its audit. Nothing when `base` is empty.
pub fn mark_report(out: &Path, base: &[String]) -> Result<()> {
    if base.is_empty() {
        return Ok(());
    }
    let p = out.join("report.md");
    let Ok(r) = std::fs::read_to_string(&p) else {
        return Ok(());
    };
    let sets: Vec<String> = base.iter().map(|s| format!("`{s}`")).collect();
    let line = format!(
        "Every run of this reproduction took the override(s) {} (`locus repro --set`, in front \
         of each run's own overrides; a run that sets the same key keeps its own value). \
         Machine parameters quoted below are the presets' own. Compare with a reproduction \
         without them: `locus repro compare`.\n\n",
        sets.join(", ")
    );
    let (title, rest) = r.split_once("\n\n").unwrap_or((r.as_str(), ""));
    std::fs::write(&p, format!("{title}\n\n{line}{rest}"))?;
    let n = out.join("numbers.txt");
    if let Ok(mut t) = std::fs::read_to_string(&n) {
        for s in base {
            t += &format!("{s}\t--set\n");
        }
        std::fs::write(&n, t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(key: &str, bench: &str, preset: &str, sets: &[&str]) -> RunSpec {
        RunSpec {
            key: key.into(),
            bench: bench.into(),
            params: Vec::new(),
            preset: preset.into(),
            sets: sets.iter().map(|s| s.to_string()).collect(),
            sharing: false,
            apps: Vec::new(),
            trace: None,
        }
    }

    /// Specs that load to the same machine for the same workload and input are one
    /// simulation (an override restating the preset's value, or overrides in another
    /// order, is no new run); any real difference in machine, workload or input is kept.
    #[test]
    fn distinct_runs_each_simulation_once() {
        let p = "nuba";
        let nodes = locus_sim::preset::load(Some(p), None, &[])
            .unwrap()
            .system
            .nodes;
        let same = format!("system.nodes={nodes}");
        let specs = vec![
            spec(
                "a",
                "atax",
                p,
                &["replication.kind=none", "run.max_warp_insts=1000"],
            ),
            spec(
                "b",
                "atax",
                p,
                &["run.max_warp_insts=1000", "replication.kind=none"],
            ),
            spec(
                "c",
                "atax",
                p,
                &[&same, "replication.kind=none", "run.max_warp_insts=1000"],
            ),
            spec(
                "d",
                "atax",
                p,
                &["replication.kind=full", "run.max_warp_insts=1000"],
            ),
            spec(
                "e",
                "2mm",
                p,
                &["replication.kind=none", "run.max_warp_insts=1000"],
            ),
            spec(
                "f",
                "atax",
                p,
                &["replication.kind=none", "run.max_warp_insts=2000"],
            ),
        ];
        let (run, alias) = distinct(&specs).unwrap();
        let keys: Vec<&str> = run.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["a", "d", "e", "f"]);
        assert_eq!(
            alias,
            vec![("b".to_string(), "a".to_string()), ("c".into(), "a".into())]
        );
        let mut with_param = specs[0].clone();
        with_param.params = vec![("nx".into(), "512".into())];
        assert_eq!(
            distinct(&[specs[0].clone(), with_param]).unwrap().0.len(),
            2
        );
    }

    /// Uncapped runs start first, then the larger cap, the larger machine and the narrower
    /// NoC; a workload's runs start together, workloads by their longest run.
    #[test]
    fn runs_start_longest_first_by_workload() {
        let p = "nuba";
        let specs = [
            spec("small", "atax", p, &["run.max_warp_insts=1000"]),
            spec("lu", "lu", p, &["run.max_warp_insts=3000"]),
            spec("big", "atax", p, &["run.max_warp_insts=2000"]),
            spec("uncapped", "2mm", p, &[]),
            spec("lu-small", "lu", p, &["run.max_warp_insts=10"]),
        ];
        let runs: Vec<(f64, &RunSpec)> = specs
            .iter()
            .map(|s| {
                let c = locus_sim::preset::load(Some(&s.preset), None, &s.sets).unwrap();
                (cost_estimate(s, &c), s)
            })
            .collect();
        let c = |k: &str| runs.iter().find(|r| r.1.key == k).unwrap().0;
        assert!(c("uncapped") > c("lu") && c("lu") > c("big") && c("big") > c("small"));
        let slow = spec(
            "slow-noc",
            "atax",
            p,
            &["run.max_warp_insts=1000", "noc.sm_port_gbps=1"],
        );
        let cs = locus_sim::preset::load(Some(p), None, &slow.sets).unwrap();
        assert!(cost_estimate(&slow, &cs) > c("small"));
        let order: Vec<&str> = start_order(&runs)
            .into_iter()
            .map(|i| runs[i].1.key.as_str())
            .collect();
        assert_eq!(order, ["uncapped", "lu", "lu-small", "big", "small"]);
    }
}
