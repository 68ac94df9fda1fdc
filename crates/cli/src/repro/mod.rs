//! Reproductions of the papers' evaluations. A reproduction is a list of runs (workload,
//! parameters, preset, overrides); [`execute`] runs them in parallel across cores with
//! rayon, writing each finished run's summary to `OUT/runs/<key>.json` at once, so a sweep
//! killed half-way loses no finished result and a rerun skips what is done.

pub mod audit;
pub mod coda;
pub mod experiment;
pub mod hms;
pub mod ledger;
pub mod ndp;
pub mod ndp_report;
pub mod nuba;
pub mod nuba_report;
pub mod rec;
pub mod rec_report;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
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

fn run_one(s: &RunSpec) -> Result<RunResult> {
    let params: BTreeMap<String, String> = s.params.iter().cloned().collect();
    let cfg = locus_sim::preset::load(Some(&s.preset), None, &s.sets)?;
    let bench = if s.apps.is_empty() {
        s.bench.as_str()
    } else {
        "single-load"
    };
    let mut w: Box<dyn locus_workload::Workload> = match &s.trace {
        Some(t) => Box::new(locus_workload::trace_source::TraceWorkload::open(
            std::path::Path::new(t),
        )?),
        None => Box::new(locus_workload::registry::build(
            bench,
            &if s.apps.is_empty() {
                params
            } else {
                BTreeMap::new()
            },
            1,
        )?),
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
        locus_sim::simulate(&cfg, &mut *w)?
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

/// Run every spec (reusing finished results under `out/runs`), `jobs` at a time.
pub fn execute(
    specs: &[RunSpec],
    out: &Path,
    jobs: usize,
    quiet: bool,
) -> Result<BTreeMap<String, RunResult>> {
    let dir = out.join("runs");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = |k: &str| -> PathBuf { dir.join(format!("{k}.json")) };
    let todo: Vec<&RunSpec> = specs.iter().filter(|s| !path(&s.key).exists()).collect();
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(specs.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] [{bar:30}] {pos}/{len} runs {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_position((specs.len() - todo.len()) as u64);
        b
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    let errors: Vec<String> = pool.install(|| {
        todo.par_iter()
            .filter_map(|s| {
                bar.set_message(s.key.clone());
                let res = run_one(s).and_then(|r| {
                    let p = path(&s.key);
                    let tmp = p.with_extension("json.tmp");
                    std::fs::write(&tmp, serde_json::to_string_pretty(&r)?)?;
                    std::fs::rename(&tmp, &p)?;
                    Ok(())
                });
                bar.inc(1);
                res.err().map(|e| format!("{}: {e:#}", s.key))
            })
            .collect()
    });
    bar.finish_and_clear();
    if !errors.is_empty() {
        anyhow::bail!(
            "{} run(s) failed (finished ones are kept in {}):\n  {}",
            errors.len(),
            dir.display(),
            errors.join("\n  ")
        );
    }
    let mut all = BTreeMap::new();
    for s in specs {
        let p = path(&s.key);
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        let r: RunResult = serde_json::from_str(&text)
            .with_context(|| format!("{} is corrupt; delete it to rerun", p.display()))?;
        all.insert(s.key.clone(), r);
    }
    Ok(all)
}
