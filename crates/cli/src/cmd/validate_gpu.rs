//! `locus validate gpu`: the built-in kernel models against the same kernels measured on a
//! real GPU (issue 7 §1: "every model's instruction counts and times compared with
//! measurements of the same kernels on real GPUs").
//!
//! The measurements come from `validation/gpu/run.sh`, run once on a machine with a GPU and
//! Nsight Compute: it compiles `validation/gpu/kernels.cu` (the CUDA kernels the models
//! describe, at the models' default inputs, one launch each) and writes a folder with
//! `manifest.tsv` (workload, `--param`s, kernel names in launch order), `ncu.csv` (Nsight
//! Compute's `--csv --metrics` output: one row per launch and metric), `time.tsv` (cudaEvent
//! medians) and `device.txt`. This command needs no GPU: it runs every listed workload on
//! a preset (`h200` by default, the machine of the default measurements `validation/gpu/h200`) and compares, kernel by kernel, warp instructions, global and
//! shared loads and stores, elapsed cycles and time.
//!
//! The tolerances are declared here, before any run, and are the issue's bounds for the
//! vectorAdd model against its trace: instructions within 20 %, memory instructions within
//! 5 %, cycles within 20 %. They are reported, not enforced: a model outside them is listed
//! as a disagreement with the measured ratio.

use crate::repro::{self, experiment::md_table, RunResult, RunSpec};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct GpuArgs {
    /// Folder written by `validation/gpu/run.sh` on a GPU machine (manifest.tsv, ncu.csv,
    /// and optionally time.tsv and device.txt).
    #[arg(long, default_value = "validation/gpu/h200")]
    pub measured: PathBuf,
    /// Preset of the simulated machine (the one that models the measured GPU).
    #[arg(long, short = 'p', default_value = "h200")]
    pub preset: String,
    /// Output folder: runs/ (one JSON per finished simulation, reused on a rerun),
    /// gpu-compare.csv and gpu-compare.md.
    #[arg(long, short = 'o', default_value = "out/validate-gpu")]
    pub out: PathBuf,
    /// Only these workloads (comma-separated names from manifest.tsv).
    #[arg(long)]
    pub only: Option<String>,
    /// Simulations run at once.
    #[arg(long, short = 'j', default_value_t = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))]
    pub jobs: usize,
    /// No progress bar, no closing print.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The measurement protocol in the simulation: `run.sh` profiles with Nsight Compute's
/// `--cache-control all`, which flushes every cache before each profiled kernel, outside its
/// measured time; the simulated runs drop every L2 line at each kernel boundary (the L1s are
/// always invalidated there) without timing it. Without it a kernel that re-reads what the
/// previous kernel left in L2 (atax_kernel2 after atax_kernel1: a 31.7 MB matrix in a
/// 60 MB L2) hits in the simulator and misses on the measured GPU.
pub const PROFILER_FLUSH: &str = "l2.kernel_boundary=profiler-flush";

/// Run-key suffix of the simulations without [`PROFILER_FLUSH`] (caches kept across kernel
/// boundaries, the simulator's default).
const WARM: &str = "-warm";

/// Time per workload: the sum over its kernels, measured and simulated, so a workload of
/// many launches (LU: 126, fwt: 22) counts once; within the time tolerance, and the
/// geometric mean of the ratios over workloads.
fn per_workload(rows: &[Row]) -> String {
    let t = METRICS
        .iter()
        .position(|m| m.name == "time (ns)")
        .expect("declared");
    let tol = METRICS[t].tolerance;
    let mut order: Vec<&str> = Vec::new();
    let mut sums: BTreeMap<&str, (usize, f64, f64)> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.cells[t].real.is_finite() && r.cells[t].sim.is_finite())
    {
        let e = sums.entry(r.workload.as_str()).or_insert_with(|| {
            order.push(r.workload.as_str());
            (0, 0.0, 0.0)
        });
        e.0 += 1;
        e.1 += r.cells[t].real;
        e.2 += r.cells[t].sim;
    }
    let head: Vec<String> = [
        "workload",
        "kernels",
        "measured (us)",
        "simulated (us)",
        "simulated / measured",
        "within",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    let (mut within, mut logs) = (0, Vec::new());
    let body: Vec<Vec<String>> = order
        .iter()
        .map(|w| {
            let (n, real, sim) = sums[w];
            let c = Cell { real, sim };
            let ok = c.within(tol);
            within += ok as usize;
            if let Some(x) = c.ratio().filter(|x| *x > 0.0) {
                logs.push(x.ln());
            }
            vec![
                w.to_string(),
                n.to_string(),
                format!("{:.1}", real / 1000.0),
                format!("{:.1}", sim / 1000.0),
                c.ratio()
                    .map(|x| format!("{x:.2}"))
                    .unwrap_or_else(|| "-".into()),
                if ok { "yes".into() } else { "no".into() },
            ]
        })
        .collect();
    let gm = (logs.iter().sum::<f64>() / logs.len().max(1) as f64).exp();
    format!(
        "## Time per workload\n\nEach workload's kernels summed (a workload of many launches counts \
         once), simulated / measured: {within} of {} within {:.0} %, geometric mean ratio {gm:.2}.\n\n{}\n",
        body.len(),
        tol * 100.0,
        md_table(&head, &body)
    )
}

/// What [`PROFILER_FLUSH`] changes: cycles within tolerance and their geometric-mean ratio
/// with and without it, and each kernel whose cycle ratio moves by more than 10 %.
fn flush_effect(flush: &[Row], warm: &[Row]) -> String {
    let c = METRICS
        .iter()
        .position(|m| m.name == "cycles")
        .expect("declared");
    let tol = METRICS[c].tolerance;
    let stats = |rows: &[Row]| {
        let cells: Vec<&Cell> = rows
            .iter()
            .map(|r| &r.cells[c])
            .filter(|x| x.real.is_finite())
            .collect();
        let within = cells.iter().filter(|x| x.within(tol)).count();
        let r: Vec<f64> = cells
            .iter()
            .filter_map(|x| x.ratio())
            .filter(|x| *x > 0.0)
            .collect();
        let gm = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        (within, cells.len(), gm)
    };
    let (fw, fn_, fg) = stats(flush);
    let (ww, wn, wg) = stats(warm);
    let mut s = format!(
        "## The profiler's flush in the simulation

Cycles, simulated / measured, with every L2 \
         emptied at each kernel boundary (`{PROFILER_FLUSH}`, the tables above) and without (the \
         simulator's default: caches kept across kernels): within {:.0} %: {fw} of {fn_} with, \
         {ww} of {wn} without; geometric mean ratio {fg:.2} with, {wg:.2} without.\n",
        tol * 100.0
    );
    let moved: Vec<String> = flush
        .iter()
        .zip(warm)
        .filter_map(|(f, w)| {
            let (a, b) = (f.cells[c].ratio()?, w.cells[c].ratio()?);
            ((a / b - 1.0).abs() > 0.10)
                .then(|| format!("{} `{}` {b:.2} -> {a:.2}", f.workload, f.kernel))
        })
        .collect();
    if moved.is_empty() {
        s.push_str("No kernel's cycle ratio moves by more than 10 %.\n\n");
    } else {
        let _ = writeln!(
            s,
            "Kernels whose cycle ratio moves by more than 10 % (without -> with): {}.\n",
            moved.join("; ")
        );
    }
    s
}

/// One compared quantity: its name, the Nsight Compute metric it is measured by, and the
/// tolerance (relative) declared for it.
pub struct Metric {
    pub name: &'static str,
    pub ncu: &'static str,
    pub tolerance: f64,
}

/// The compared quantities, with the issue's tolerances (declared before any run).
pub const METRICS: &[Metric] = &[
    Metric {
        name: "warp instructions",
        ncu: "smsp__inst_executed.sum",
        tolerance: 0.20,
    },
    Metric {
        name: "global loads",
        ncu: "smsp__inst_executed_op_global_ld.sum",
        tolerance: 0.05,
    },
    Metric {
        name: "global stores",
        ncu: "smsp__inst_executed_op_global_st.sum",
        tolerance: 0.05,
    },
    Metric {
        name: "shared loads",
        ncu: "smsp__inst_executed_op_shared_ld.sum",
        tolerance: 0.05,
    },
    Metric {
        name: "shared stores",
        ncu: "smsp__inst_executed_op_shared_st.sum",
        tolerance: 0.05,
    },
    Metric {
        name: "cycles",
        ncu: "gpc__cycles_elapsed.max",
        tolerance: 0.20,
    },
    Metric {
        name: "time (ns)",
        ncu: "gpu__time_duration.sum",
        tolerance: 0.20,
    },
    // added after the first H200 run (run.sh measured it from the start; it was not
    // compared): the bytes the kernel read from DRAM, simulated as DRAM line reads times
    // the line size; the issue's 20 %
    Metric {
        name: "DRAM bytes read",
        ncu: "dram__bytes_read.sum",
        tolerance: 0.20,
    },
];

/// One workload of the manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestRow {
    pub workload: String,
    pub params: Vec<(String, String)>,
    pub kernels: Vec<String>,
}

/// One profiled launch: its kernel name (as Nsight Compute prints it) and metric values.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    pub name: String,
    pub metrics: BTreeMap<String, f64>,
}

/// Read `manifest.tsv`: a header line, then `workload<TAB>params<TAB>kernels`.
pub fn parse_manifest(text: &str, file: &Path) -> Result<Vec<ManifestRow>> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 3 {
            bail!(
                "{}:{}: expected 3 tab-separated fields (workload, params, kernels), found {}",
                file.display(),
                i + 1,
                f.len()
            );
        }
        let mut params = Vec::new();
        for kv in f[1].split_whitespace() {
            let (k, v) = kv.split_once('=').with_context(|| {
                format!(
                    "{}:{}: parameter `{kv}` is not NAME=VALUE",
                    file.display(),
                    i + 1
                )
            })?;
            params.push((k.to_string(), v.to_string()));
        }
        let kernels: Vec<String> = f[2].split(',').map(|s| s.trim().to_string()).collect();
        if kernels.iter().any(|k| k.is_empty()) {
            bail!("{}:{}: empty kernel name", file.display(), i + 1);
        }
        rows.push(ManifestRow {
            workload: f[0].to_string(),
            params,
            kernels,
        });
    }
    if rows.is_empty() {
        bail!("{}: no workloads listed", file.display());
    }
    Ok(rows)
}

// Nsight Compute quotes every field (numbers carry thousands separators inside the
// quotes): split its lines with the reproductions' CSV splitter.
use crate::repro::compare::csv_fields;

/// Read Nsight Compute's CSV (`ncu --csv --metrics ...`): the profiler's own messages
/// before the header are skipped; one [`Launch`] per `ID`, in launch order.
pub fn parse_ncu(text: &str, file: &Path) -> Result<Vec<Launch>> {
    let mut lines = text.lines().enumerate();
    let header = loop {
        match lines.next() {
            Some((_, l)) if l.starts_with("\"ID\"") => break csv_fields(l),
            Some(_) => continue,
            None => bail!(
                "{}: no Nsight Compute CSV header (a line starting with \"ID\"); was ncu run with --csv?",
                file.display()
            ),
        }
    };
    let col = |n: &str| -> Result<usize> {
        header
            .iter()
            .position(|h| h == n)
            .with_context(|| format!("{}: no column `{n}` in the header", file.display()))
    };
    let (id, kname, mname, mval) = (
        col("ID")?,
        col("Kernel Name")?,
        col("Metric Name")?,
        col("Metric Value")?,
    );
    let mut launches: Vec<(String, Launch)> = Vec::new();
    for (i, l) in lines {
        if l.trim().is_empty() || l.starts_with("==") {
            continue;
        }
        let f = csv_fields(l);
        if f.len() != header.len() {
            bail!(
                "{}:{}: {} fields where the header has {}",
                file.display(),
                i + 1,
                f.len(),
                header.len()
            );
        }
        let v: f64 = f[mval].replace(',', "").parse().with_context(|| {
            format!(
                "{}:{}: metric `{}` value `{}` is not a number",
                file.display(),
                i + 1,
                f[mname],
                f[mval]
            )
        })?;
        if launches.last().map(|(k, _)| k != &f[id]).unwrap_or(true) {
            launches.push((
                f[id].clone(),
                Launch {
                    name: f[kname].clone(),
                    metrics: BTreeMap::new(),
                },
            ));
        }
        launches
            .last_mut()
            .expect("pushed above")
            .1
            .metrics
            .insert(f[mname].clone(), v);
    }
    if launches.is_empty() {
        bail!("{}: no profiled launches", file.display());
    }
    Ok(launches.into_iter().map(|(_, l)| l).collect())
}

/// The bare kernel name of an Nsight Compute kernel name: `void reduce<float, 256>(const
/// float *, ...)` is `reduce`, `void micro::chain<0>(unsigned int *, ...)` is `chain` (a
/// namespace is dropped: kernels.cu keeps `random` apart from libc's that way).
pub fn bare_name(ncu_name: &str) -> &str {
    let s = ncu_name.strip_prefix("void ").unwrap_or(ncu_name);
    let end = s.find(['<', '(']).unwrap_or(s.len());
    let s = s[..end].trim();
    s.rsplit("::").next().unwrap_or(s)
}

/// Pair the manifest's kernels (in order) with the profiled launches (in order); an error
/// names the first kernel whose name differs.
pub fn pair<'a>(
    manifest: &'a [ManifestRow],
    launches: &'a [Launch],
    file: &Path,
) -> Result<Vec<(&'a ManifestRow, usize, &'a Launch)>> {
    let want: usize = manifest.iter().map(|m| m.kernels.len()).sum();
    if want != launches.len() {
        bail!(
            "{}: {} profiled launches, but manifest.tsv lists {} kernels",
            file.display(),
            launches.len(),
            want
        );
    }
    let mut out = Vec::new();
    let mut it = launches.iter();
    for m in manifest {
        for (i, k) in m.kernels.iter().enumerate() {
            let l = it.next().expect("counted above");
            if bare_name(&l.name) != k {
                bail!(
                    "{}: launch {} is `{}` but manifest.tsv expects `{k}` (workload {})",
                    file.display(),
                    out.len(),
                    l.name,
                    m.workload
                );
            }
            out.push((m, i, l));
        }
    }
    Ok(out)
}

/// Static facts of one compiled kernel, read from `cuobjdump --dump-sass` output: its
/// instructions (without the padding `NOP`s and the closing self-branch) and, of those, the
/// loads from the constant bank (`LDC`, `ULDC`: kernel parameters on sm_90).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SassFacts {
    pub insts: u32,
    pub const_loads: u32,
    /// Predicated global stores (`@P0 STG`): Nsight Compute counts them for every warp that
    /// issues them, lanes active or not; a model records them for active lanes only.
    pub predicated_stores: u32,
    /// Predicated shared loads (`@P0 LDS`), as [`SassFacts::predicated_stores`].
    pub predicated_shared_loads: u32,
    /// Predicated global loads (`@P0 LDG`), as [`SassFacts::predicated_stores`].
    pub predicated_global_loads: u32,
    /// Vector shared loads (`LDS.64`, `LDS.128`): one instruction for 2 or 4 elements.
    pub vector_shared_loads: u32,
    /// The kernel's first global memory instruction stores the zero register
    /// (`STG.E [..], RZ`): the measured kernel zeroes an output before it accumulates into
    /// it, so the GPU's L2 takes those lines from the store, without a DRAM read.
    pub zero_store_first: bool,
    /// Whether a global memory instruction was seen yet (parsing state).
    seen_global: bool,
}

/// The bare name of an Itanium-mangled kernel name (`_Z9vectorAddPKfS0_Pfi` is
/// `vectorAdd`, `_Z6reduceIfLi256EEvPKT_PS0_j` is `reduce`, and in a namespace
/// `_ZN5micro5chainILi0EEEvPjPxijj` is `chain`); `None` if not mangled.
fn demangle_bare(m: &str) -> Option<&str> {
    let r = m.strip_prefix("_Z")?;
    let (mut r, nested) = match r.strip_prefix('N') {
        Some(n) => (n, true),
        None => (r, false),
    };
    let mut last = None;
    loop {
        let digits = r.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            break;
        }
        let n: usize = r[..digits].parse().ok()?;
        last = Some(r.get(digits..digits + n)?);
        r = &r[digits + n..];
        if !nested {
            break;
        }
    }
    last
}

/// Per kernel (bare name), the [`SassFacts`] of `cuobjdump --dump-sass` text.
pub fn parse_sass(text: &str) -> BTreeMap<String, SassFacts> {
    let mut out = BTreeMap::new();
    let mut cur: Option<String> = None;
    // the full (mangled) names behind each bare name: a template instantiated more than
    // once (kernels.cu's `chain<0>`, `chain<1>`, ...) has no single static count
    let mut full: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for line in text.lines() {
        if let Some(f) = line.trim().strip_prefix("Function : ") {
            let bare = demangle_bare(f.trim()).unwrap_or(f.trim()).to_string();
            full.entry(bare.clone())
                .or_default()
                .insert(f.trim().to_string());
            cur = Some(bare);
            continue;
        }
        let Some(k) = &cur else { continue };
        // `/*0070*/  @P0 EXIT ;`
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, inst)) = rest.split_once("*/") else {
            continue;
        };
        if addr.len() != 4 && addr.len() != 5 || !addr.chars().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        // the instruction ends at `;`; its encoding follows as a comment
        let inst = inst.split(';').next().unwrap_or("").trim();
        let predicated = inst.starts_with('@');
        let body = inst
            .strip_prefix('@')
            .map_or(inst, |r| r.split_once(' ').map_or("", |(_, b)| b.trim()));
        let op = body.split_whitespace().next().unwrap_or("");
        let own = u64::from_str_radix(addr, 16).ok();
        let self_branch = op == "BRA"
            && body
                .split_whitespace()
                .nth(1)
                .and_then(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok())
                == own;
        if op.is_empty() || op == "NOP" || self_branch {
            continue;
        }
        let e = out.entry(k.clone()).or_insert_with(SassFacts::default);
        e.insts += 1;
        if op == "LDC" || op.starts_with("LDC.") || op == "ULDC" || op.starts_with("ULDC.") {
            e.const_loads += 1;
        }
        let is = |o: &str| op == o || op.starts_with(&format!("{o}."));
        if predicated && is("STG") {
            e.predicated_stores += 1;
        }
        if predicated && is("LDS") {
            e.predicated_shared_loads += 1;
        }
        if predicated && is("LDG") {
            e.predicated_global_loads += 1;
        }
        if op.starts_with("LDS.64") || op.starts_with("LDS.128") || op.starts_with("LDS.U.128") {
            e.vector_shared_loads += 1;
        }
        if !e.seen_global && ["LDG", "STG", "ATOMG", "RED"].iter().any(|o| is(o)) {
            e.seen_global = true;
            e.zero_store_first = is("STG") && body.trim_end().ends_with(", RZ");
        }
    }
    out.retain(|k, _| full.get(k).is_none_or(|f| f.len() == 1));
    out
}

/// The simulated value of metric `m` for kernel `k` of a run's `sim.kernels` array.
fn sim_value(kernel: &serde_json::Value, m: &Metric, line_bytes: f64) -> Option<f64> {
    let sp = |space: &str, kind: &str| {
        Some(
            kernel["mem_insts_by_space"][space][kind]
                .as_f64()
                .unwrap_or(0.0),
        )
    };
    match m.name {
        "warp instructions" => kernel["counters"]["warp_insts"].as_f64(),
        "global loads" => sp("global", "load"),
        "global stores" => sp("global", "store"),
        "shared loads" => sp("shared", "load"),
        "shared stores" => sp("shared", "store"),
        "cycles" => kernel["cycles"].as_f64(),
        "time (ns)" => kernel["ns"].as_f64(),
        // the bytes the channels moved (sectored caches: the fetched sectors), or a line per
        // read in records written before that counter
        "DRAM bytes read" => kernel["counters"]["dram_read_bytes"].as_f64().or_else(|| {
            kernel["counters"]["dram_reads"]
                .as_f64()
                .map(|r| r * line_bytes)
        }),
        _ => None,
    }
}

/// One compared cell: measured, simulated, and their ratio (simulated / measured).
struct Cell {
    real: f64,
    sim: f64,
}

impl Cell {
    fn ratio(&self) -> Option<f64> {
        (self.real > 0.0).then(|| self.sim / self.real)
    }
    /// Within `tol` (relative), or both zero.
    fn within(&self, tol: f64) -> bool {
        match self.ratio() {
            Some(r) => (r - 1.0).abs() <= tol,
            None => self.sim == 0.0,
        }
    }
}

fn read(p: &Path) -> Result<String> {
    std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))
}

pub fn run(a: GpuArgs) -> Result<()> {
    let mf = a.measured.join("manifest.tsv");
    let nf = a.measured.join("ncu.csv");
    let manifest = parse_manifest(&read(&mf)?, &mf)?;
    let launches = parse_ncu(&read(&nf)?, &nf)?;
    let pairs = pair(&manifest, &launches, &nf)?;
    if let Some(only) = &a.only {
        let want: Vec<&str> = only.split(',').map(str::trim).collect();
        for w in &want {
            if !manifest.iter().any(|m| m.workload == *w) {
                bail!("--only: `{w}` is not in {}", mf.display());
            }
        }
    }
    let manifest: Vec<ManifestRow> = manifest
        .iter()
        .filter(|m| {
            a.only
                .as_ref()
                .map(|o| o.split(',').any(|w| w.trim() == m.workload))
                .unwrap_or(true)
        })
        .cloned()
        .collect();
    let cfg = locus_sim::preset::load(Some(&a.preset), None, &[])
        .with_context(|| format!("--preset {}", a.preset))?;
    let lat_file = a.measured.join("latency.tsv");
    let lat = match std::fs::read_to_string(&lat_file) {
        Ok(t) if a.only.is_none() => {
            latency_checks(&parse_latency(&t, &lat_file)?, &a.preset, &cfg)
        }
        _ => Vec::new(),
    };
    let mut specs: Vec<RunSpec> = manifest
        .iter()
        .map(|m| RunSpec {
            key: run_key(&a.preset, m),
            bench: m.workload.clone(),
            params: m.params.clone(),
            preset: a.preset.clone(),
            sets: vec![PROFILER_FLUSH.into()],
            sharing: false,
            apps: vec![],
            trace: None,
        })
        .collect();
    // the same runs without the flush, for the section that shows what it changes
    let warm: Vec<RunSpec> = specs
        .iter()
        .map(|sp| RunSpec {
            key: format!("{}{WARM}", sp.key),
            sets: vec![],
            ..sp.clone()
        })
        .collect();
    specs.extend(warm);
    for l in &lat {
        for sp in [&l.hi, &l.lo] {
            if !specs.iter().any(|x| x.key == sp.key) {
                specs.push(sp.clone());
            }
        }
    }
    let runs = repro::execute(&specs, &a.out, a.jobs, a.quiet)?;
    let device = std::fs::read_to_string(a.measured.join("device.txt")).unwrap_or_default();
    let sass = std::fs::read_to_string(a.measured.join("sass.txt"))
        .map(|t| parse_sass(&t))
        .unwrap_or_default();
    let line = cfg.system.line_bytes as f64;
    let lsu = Lsu {
        sms: cfg.system.sms_per_node as u64,
        lines_per_cycle: cfg.sm.lsu_lines_per_cycle as f64,
        channels: cfg.memory.channels_per_node as f64 * cfg.system.nodes as f64,
        tfaw_ns: cfg.dram.tfaw_ns,
    };
    let table = compare(&manifest, &pairs, &runs, &a.preset, "", line, lsu)?;
    let warm_table = compare(&manifest, &pairs, &runs, &a.preset, WARM, line, lsu)?;
    let mut md = report(&table, &device, &sass, &a, cfg.system.sector_bytes);
    // the per-workload summary first: a reader meets it before the per-kernel rows
    let first = "## Simulated / measured, per kernel";
    let at = md.find(first).unwrap_or(md.len());
    md.insert_str(at, &per_workload(&table));
    md.push_str(&flush_effect(&table, &warm_table));
    md.push_str(&floor_and_latency(&table, &lat, &runs));
    std::fs::write(a.out.join("gpu-compare.csv"), csv(&table))?;
    std::fs::write(a.out.join("gpu-compare.md"), &md)?;
    if !a.quiet {
        print!("{md}");
        println!(
            "written: {}, {}",
            a.out.join("gpu-compare.md").display(),
            a.out.join("gpu-compare.csv").display()
        );
    }
    Ok(())
}

/// The run key of one manifest row: preset, workload and its parameters (the manifest may
/// list one workload several times with different parameters, e.g. `chain`).
fn run_key(preset: &str, m: &ManifestRow) -> String {
    let mut k = format!("{preset}-{}", m.workload);
    for (n, v) in &m.params {
        let _ = write!(k, "-{n}-{v}");
    }
    k
}

/// One line of `latency.tsv` (`validation/gpu/kernels.cu`'s `latency` mode: in-kernel
/// `clock64` measurements outside the profiler).
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyRow {
    pub what: String,
    pub footprint: u64,
    pub stride: u64,
    pub count: u64,
    pub cycles: f64,
}

/// Read `latency.tsv`: a header line, then `what, footprint_B, stride_B, count, cycles,
/// cycles_per` separated by tabs.
pub fn parse_latency(text: &str, file: &Path) -> Result<Vec<LatencyRow>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let num = |j: usize| -> Result<f64> {
            f.get(j)
                .and_then(|x| x.trim().parse::<f64>().ok())
                .with_context(|| {
                    format!(
                        "{}:{}: field {} is not a number",
                        file.display(),
                        i + 1,
                        j + 1
                    )
                })
        };
        if f.len() < 5 {
            bail!(
                "{}:{}: expected 6 tab-separated fields, found {}",
                file.display(),
                i + 1,
                f.len()
            );
        }
        out.push(LatencyRow {
            what: f[0].to_string(),
            footprint: num(1)? as u64,
            stride: num(2)? as u64,
            count: num(3)? as u64,
            cycles: num(4)?,
        });
    }
    Ok(out)
}

/// One latency of `latency.tsv` with the two simulations whose difference gives its
/// simulated value: a chain's cycles per instruction is the slope between its two longest
/// chains (the launch and the clock reads cancel); a chase's cycles per hop is the kernel's
/// cycles with the counted hops minus those without, over the hops.
pub struct LatencyCheck {
    pub label: String,
    pub measured: f64,
    /// The longer and the shorter simulation (`chain` or `chase` workload) and the count
    /// their cycle difference is divided by.
    pub hi: RunSpec,
    pub lo: RunSpec,
    pub per: f64,
    /// The preset's configured value it is set by, and its key.
    pub preset: Option<(f64, &'static str)>,
}

/// The latency checks of `latency.tsv` (see [`LatencyCheck`]): chains per class (`int`,
/// `fp`, `sfu`), and pointer chases, warmed by one traversal unless they are the cold DRAM
/// chases (`chase-dram-*`, as `kernels.cu` runs them).
pub fn latency_checks(
    lat: &[LatencyRow],
    preset: &str,
    cfg: &locus_sim::Config,
) -> Vec<LatencyCheck> {
    let spec = |bench: &str, params: Vec<(String, String)>| {
        let mut key = format!("{preset}-lat-{bench}");
        for (n, v) in &params {
            let _ = write!(key, "-{n}-{v}");
        }
        RunSpec {
            key,
            bench: bench.into(),
            params,
            preset: preset.into(),
            sets: vec![],
            sharing: false,
            apps: vec![],
            trace: None,
        }
    };
    let kv = |k: &str, v: String| (k.to_string(), v);
    let mut out = Vec::new();
    for (class, label, lat_cfg, key) in [
        (
            "int",
            "dependent int (IMAD)",
            cfg.sm.int_latency,
            "sm.int_latency",
        ),
        (
            "fp",
            "dependent fp (FFMA)",
            cfg.sm.fp_latency,
            "sm.fp_latency",
        ),
        (
            "sfu",
            "dependent sfu (MUFU.EX2)",
            cfg.sm.sfu_latency,
            "sm.sfu_latency",
        ),
    ] {
        let mut v: Vec<&LatencyRow> = lat
            .iter()
            .filter(|r| r.what == format!("chain-{class}"))
            .collect();
        v.sort_by_key(|r| r.count);
        let n = v.len();
        if n < 2 || v[n - 1].count <= v[n - 2].count {
            continue;
        }
        let (a, b) = (v[n - 2], v[n - 1]);
        let ch = |ops: u64| {
            spec(
                "chain",
                vec![kv("ops", ops.to_string()), kv("class", class.into())],
            )
        };
        out.push(LatencyCheck {
            label: label.into(),
            measured: (b.cycles - a.cycles) / (b.count - a.count) as f64,
            hi: ch(b.count),
            lo: ch(a.count),
            per: (b.count - a.count) as f64,
            preset: Some((lat_cfg as f64, key)),
        });
    }
    for r in lat
        .iter()
        .filter(|r| r.what.starts_with("chase-") && r.count > 0 && r.stride > 0)
    {
        let warm = if r.what.starts_with("chase-dram") {
            0
        } else {
            r.footprint / r.stride
        };
        let ch = |hops: u64| {
            spec(
                "chase",
                vec![
                    kv("footprint_kb", (r.footprint >> 10).to_string()),
                    kv("stride", r.stride.to_string()),
                    kv("warm", warm.to_string()),
                    kv("hops", hops.to_string()),
                ],
            )
        };
        let preset = match r.what.as_str() {
            "chase-l1" => Some((cfg.l1.hit_latency as f64, "l1.hit_latency")),
            _ => None,
        };
        out.push(LatencyCheck {
            label: format!("{} ({} B, stride {} B)", r.what, r.footprint, r.stride),
            measured: r.cycles / r.count as f64,
            hi: ch(r.count),
            lo: ch(0),
            per: r.count as f64,
            preset,
        });
    }
    out
}

/// Tolerance declared (before any run) for the derived quantities of
/// [`floor_and_latency`]: the issue's 20 % for cycles and time.
pub const DERIVED_TOLERANCE: f64 = 0.20;

/// The launch floor and the latencies: (1) the measured `single-load` kernel (one thread,
/// one load) is the fixed cost of a launch that the simulator does not pay beyond the load
/// itself, so each kernel's time above that floor is compared, measured against simulated
/// (simulated minus the simulated `single-load`); (2) dependent-issue latencies per class
/// and load-to-use latencies per level measured in-kernel (`latency.tsv`) against the same
/// walks simulated ([`LatencyCheck`]). Both declared here, with [`DERIVED_TOLERANCE`],
/// before any run.
fn floor_and_latency(
    rows: &[Row],
    lat: &[LatencyCheck],
    runs: &BTreeMap<String, RunResult>,
) -> String {
    let mut s = String::new();
    let t = METRICS
        .iter()
        .position(|m| m.name == "time (ns)")
        .expect("declared");
    if let Some(f) = rows.iter().find(|r| r.workload == "single-load") {
        let (fr, fs) = (f.cells[t].real, f.cells[t].sim);
        let _ = writeln!(
            s,
            "## Time above the launch floor\n\nThe measured `single-load` kernel (one thread, \
             one load) takes {fr:.0} ns, the simulated one {fs:.0} ns: the measured floor is the \
             launch's fixed cost plus one unloaded load. Each kernel's time above its floor \
             (measured minus {fr:.0} ns, simulated minus {fs:.0} ns), simulated / measured, \
             tolerance {:.0} %:\n",
            DERIVED_TOLERANCE * 100.0
        );
        let head: Vec<String> = [
            "workload",
            "kernel",
            "measured above floor (ns)",
            "simulated above floor (ns)",
            "ratio",
            "within",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect();
        let mut body = Vec::new();
        let mut within = 0;
        let mut ratios = Vec::new();
        for r in rows.iter().filter(|r| r.workload != "single-load") {
            let c = Cell {
                real: r.cells[t].real - fr,
                sim: r.cells[t].sim - fs,
            };
            if !c.real.is_finite() || !c.sim.is_finite() {
                continue;
            }
            let ok = c.real > 0.0 && c.within(DERIVED_TOLERANCE);
            within += ok as usize;
            if let Some(x) = c.ratio().filter(|x| *x > 0.0) {
                ratios.push(x);
            }
            body.push(vec![
                r.workload.clone(),
                r.kernel.clone(),
                format!("{:.0}", c.real),
                format!("{:.0}", c.sim),
                c.ratio()
                    .map(|x| format!("{x:.2}"))
                    .unwrap_or_else(|| "-".into()),
                if ok { "yes".into() } else { "no".into() },
            ]);
        }
        let _ = writeln!(s, "{}", md_table(&head, &body));
        let gm = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
        let _ = writeln!(
            s,
            "{within} of {} kernels within {:.0} % above the floor; geometric mean ratio {gm:.2} over the {} with a positive ratio.\n",
            body.len(),
            DERIVED_TOLERANCE * 100.0,
            ratios.len()
        );
    }
    if lat.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "## Latencies measured in-kernel\n\nFrom `latency.tsv` (`clock64` inside the kernel, \
         outside the profiler), beside the same walks simulated (workloads `chain` and \
         `chase`). Chains: one warp, dependent instructions of one class; cycles per \
         instruction as the slope between the two longest chains. Pointer chases: one thread, \
         each load's address computed from the previous load's value, so a hop is the \
         load-to-use latency plus one dependent integer instruction; the L1 and L2 chases \
         first walk their footprint once, the DRAM chases start cold. The preset's value that \
         sets a latency is named where one does. Tolerance {:.0} %.\n",
        DERIVED_TOLERANCE * 100.0
    );
    let head: Vec<String> = [
        "latency",
        "measured cycles",
        "simulated cycles",
        "simulated / measured",
        "within",
        "preset value",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    let mut body = Vec::new();
    for l in lat {
        let sim = match (runs.get(&l.hi.key), runs.get(&l.lo.key)) {
            (Some(h), Some(o)) => Some((h.cycles as f64 - o.cycles as f64) / l.per),
            _ => None,
        };
        let c = Cell {
            real: l.measured,
            sim: sim.unwrap_or(f64::NAN),
        };
        body.push(vec![
            l.label.clone(),
            format!("{:.1}", l.measured),
            sim.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into()),
            c.ratio()
                .map(|x| format!("{x:.2}"))
                .unwrap_or_else(|| "-".into()),
            if sim.is_some() && c.within(DERIVED_TOLERANCE) {
                "yes".into()
            } else {
                "no".into()
            },
            l.preset
                .map(|(v, k)| format!("`{k}` = {v:.0}"))
                .unwrap_or_default(),
        ]);
    }
    let _ = writeln!(s, "{}", md_table(&head, &body));
    s
}

/// One kernel's comparison row.
struct Row {
    workload: String,
    kernel: String,
    /// Warps of the launch (from the simulated kernel's grid and block).
    warps: u64,
    /// Cycles the simulated load/store units need at least: the kernel's L1 line
    /// requests per SM it occupies, at `sm.lsu_lines_per_cycle` ([`Lsu`]).
    lsu_cycles: f64,
    /// The simulated DRAM row activations (a workload of one launch: run-wide counts are
    /// the kernel's; `NaN` otherwise) and the least time they need at the channels'
    /// four-activate window ([`Lsu`]), ns.
    activates: f64,
    activate_ns: f64,
    cells: Vec<Cell>,
}

/// The simulated machine's load/store-unit rate: SMs and line requests per SM cycle
/// (`system.sms_per_node`, `sm.lsu_lines_per_cycle`; one-node presets).
#[derive(Clone, Copy)]
struct Lsu {
    sms: u64,
    lines_per_cycle: f64,
    /// Memory channels, and each one's four-activate window (`dram.tfaw_ns`): at most
    /// four row activations per window per channel.
    channels: f64,
    tfaw_ns: f64,
}

fn compare(
    manifest: &[ManifestRow],
    pairs: &[(&ManifestRow, usize, &Launch)],
    runs: &BTreeMap<String, RunResult>,
    preset: &str,
    key_suffix: &str,
    line_bytes: f64,
    lsu: Lsu,
) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for m in manifest {
        let key = format!("{}{key_suffix}", run_key(preset, m));
        let r = runs
            .get(&key)
            .with_context(|| format!("no simulation result for {key}"))?;
        let ks = r
            .sim
            .as_ref()
            .and_then(|s| s["kernels"].as_array())
            .with_context(|| format!("run {key} kept no per-kernel statistics"))?;
        for (pm, i, l) in pairs.iter().filter(|(pm, _, _)| *pm == m) {
            let k = ks.get(*i).with_context(|| {
                format!(
                    "{}: the model ran {} kernels, the manifest lists {}",
                    pm.workload,
                    ks.len(),
                    pm.kernels.len()
                )
            })?;
            let cells = METRICS
                .iter()
                .map(|mt| Cell {
                    real: l.metrics.get(mt.ncu).copied().unwrap_or(f64::NAN),
                    sim: sim_value(k, mt, line_bytes).unwrap_or(f64::NAN),
                })
                .collect();
            let dims = |v: &serde_json::Value| -> u64 {
                v.as_array()
                    .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(1)).product())
                    .unwrap_or(0)
            };
            let block = dims(&k["block"]);
            let warps = dims(&k["grid"]) * block.div_ceil(32);
            let sms = dims(&k["grid"]).clamp(1, lsu.sms.max(1)) as f64;
            let lsu_cycles = k["counters"]["l1_requests"].as_f64().unwrap_or(0.0)
                / sms
                / lsu.lines_per_cycle.max(1.0);
            let activates = match (ks.len(), r.sim.as_ref()) {
                (1, Some(sim)) => sim["nodes"]
                    .as_array()
                    .map(|ns| {
                        ns.iter()
                            .map(|n| n["dram"]["activates"].as_f64().unwrap_or(0.0))
                            .sum()
                    })
                    .unwrap_or(f64::NAN),
                _ => f64::NAN,
            };
            let activate_ns = activates / (4.0 * lsu.channels.max(1.0)) * lsu.tfaw_ns;
            // a workload listed more than once (with different parameters) is labelled
            // with them
            let label = if manifest.iter().filter(|x| x.workload == m.workload).count() > 1 {
                let ps: Vec<String> = m.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{} {}", m.workload, ps.join(" "))
            } else {
                pm.workload.clone()
            };
            rows.push(Row {
                workload: label,
                kernel: pm.kernels[*i].clone(),
                warps,
                lsu_cycles,
                activates,
                activate_ns,
                cells,
            });
        }
    }
    Ok(rows)
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from("workload,kernel");
    for m in METRICS {
        let n = m.name.replace([' ', '(', ')'], "_");
        let _ = write!(s, ",{n}_measured,{n}_simulated,{n}_ratio");
    }
    s.push('\n');
    for r in rows {
        let _ = write!(s, "{},{}", r.workload, r.kernel);
        for c in &r.cells {
            let _ = write!(
                s,
                ",{},{},{}",
                c.real,
                c.sim,
                c.ratio().map(|x| format!("{x:.4}")).unwrap_or_default()
            );
        }
        s.push('\n');
    }
    s
}

fn fmt_ratio(c: &Cell) -> String {
    match c.ratio() {
        Some(r) => format!("{r:.2}"),
        None if c.sim == 0.0 => "0 = 0".into(),
        None => format!("{} vs 0", c.sim),
    }
}

/// A measured reason for a disagreement, from the compiled code, where one applies: the
/// direction of the difference must be the one the fact produces.
/// A measured reason for a simulated kernel slower than measured: it read at least 1.5x
/// the DRAM bytes the GPU read (`dram__bytes_read.sum`) while the simulated caches fill
/// whole lines (`system.sector_bytes` = 0); the GPU's L2 fetches sectors, so scattered
/// loads move fewer bytes there. With sectored caches simulated this is no reason.
fn dram_reason(m: &Metric, c: &Cell, row: &Row, sector_bytes: u32) -> Option<String> {
    if sector_bytes != 0
        || !matches!(m.name, "cycles" | "time (ns)" | "DRAM bytes read")
        || c.ratio()? <= 1.0
    {
        return None;
    }
    let d = METRICS.iter().position(|x| x.name == "DRAM bytes read")?;
    let x = row.cells[d].ratio()?;
    (x >= 1.5).then(|| {
        format!(
            "the simulated kernel read {x:.2}x the DRAM bytes the GPU read: it fills whole lines, the GPU's L2 32-byte sectors"
        )
    })
}

/// A measured reason for a simulated kernel slower than measured: its DRAM row
/// activations, at four per `dram.tfaw_ns` on each channel, need more time than the whole
/// measured kernel took; the GPU then opens rows faster than the preset's channels can.
fn activate_reason(m: &Metric, c: &Cell, row: &Row) -> Option<String> {
    let measured = beyond_measured(m, c, row, "time (ns)", row.activate_ns)?;
    Some(format!(
        "its {:.0} DRAM row activations need at least {:.0} ns at four per four-activate window on each channel (dram.tfaw_ns), more than the {:.0} ns measured: the GPU opens rows faster",
        row.activates, row.activate_ns, measured
    ))
}

/// For a kernel simulated slower than measured (cycles or time): the measured value of
/// `quantity` when the simulated lower bound `least` (in its unit) exceeds it, the shape
/// of the reasons that a simulated limit alone takes longer than the real kernel did.
fn beyond_measured(m: &Metric, c: &Cell, row: &Row, quantity: &str, least: f64) -> Option<f64> {
    if !matches!(m.name, "cycles" | "time (ns)") || c.ratio()? <= 1.0 {
        return None;
    }
    let i = METRICS.iter().position(|x| x.name == quantity)?;
    let measured = row.cells[i].real;
    (measured.is_finite() && least > measured).then_some(measured)
}

/// The DRAM bytes the measured GPU reads in a launch whose simulation reads none (the
/// profiler's and driver's own traffic): the smallest and largest measured over those
/// launches, and how many there are. `None` without such launches.
fn dram_floor(rows: &[Row]) -> Option<(f64, f64, usize)> {
    let d = METRICS.iter().position(|x| x.name == "DRAM bytes read")?;
    let v: Vec<f64> = rows
        .iter()
        .map(|r| &r.cells[d])
        .filter(|c| c.sim == 0.0 && c.real > 0.0)
        .map(|c| c.real)
        .collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    (!v.is_empty()).then_some((lo, hi, v.len()))
}

/// A measured reason for a kernel that reads fewer DRAM bytes simulated than measured:
/// taking off the smallest measured floor ([`dram_floor`]), the two agree within the
/// tolerance.
fn floor_reason(m: &Metric, c: &Cell, floor: Option<(f64, f64, usize)>) -> Option<String> {
    let (lo, hi, n) = floor?;
    if m.name != "DRAM bytes read" || c.ratio()? >= 1.0 || c.sim == 0.0 || c.real <= lo {
        return None;
    }
    let net = Cell {
        real: c.real - lo,
        sim: c.sim,
    };
    net.within(m.tolerance).then(|| {
        format!(
            "the GPU reads {lo:.0} to {hi:.0} bytes of DRAM in each of the {n} launches whose simulation reads none; less {lo:.0} bytes, simulated / measured is {:.2}",
            net.ratio().unwrap_or(f64::NAN)
        )
    })
}

/// A measured reason for a simulated kernel slower than measured: its L1 line requests per
/// SM, at the simulated load/store unit's rate, need more cycles than the whole measured
/// kernel took (`gpc__cycles_elapsed.max`). The GPU's L1 then handles more distinct lines
/// per cycle than `sm.lsu_lines_per_cycle` (scattered warps: one line per lane).
fn lsu_reason(m: &Metric, c: &Cell, row: &Row) -> Option<String> {
    let measured = beyond_measured(m, c, row, "cycles", row.lsu_cycles)?;
    Some(format!(
        "its L1 line requests alone take {:.0} simulated cycles per SM (sm.lsu_lines_per_cycle), more than the {:.0} measured: the GPU's L1 handles more distinct lines per cycle",
        row.lsu_cycles, measured
    ))
}

/// Fewer simulated warp instructions than measured, where the compiled kernel reads
/// constant-bank words with instructions of their own (`LDC`, `ULDC`: sm_90 loads kernel
/// parameters, the grid's shape and the stack pointer so; older code reads most of them
/// as operands). Each executed at least once per warp (a prologue), they are part of the
/// shortfall; the reason says how much of it, the rest stays unexplained.
fn const_load_reason(m: &Metric, c: &Cell, row: &Row, f: Option<&SassFacts>) -> Option<String> {
    let f = f?;
    if m.name != "warp instructions" || c.ratio()? >= 1.0 || f.const_loads == 0 || row.warps == 0 {
        return None;
    }
    let short = (c.real - c.sim) / row.warps as f64;
    let n = f64::from(f.const_loads);
    let rest = if n >= short {
        String::new()
    } else {
        format!("; the other {:.1} per warp unexplained", short - n)
    };
    Some(format!(
        "the compiled kernel has {} constant-bank loads (LDC/ULDC: kernel parameters on sm_90); once per warp they are {:.1} of the {:.1} warp instructions per warp the model issues fewer{rest}",
        f.const_loads,
        n.min(short),
        short
    ))
}

fn reason(m: &Metric, c: &Cell, f: Option<&SassFacts>) -> Option<String> {
    let f = f?;
    let r = c.ratio()?;
    match m.name {
        "global stores" if r < 1.0 && f.predicated_stores > 0 => Some(format!(
            "the compiled kernel has {} predicated STG, issued (and counted) by warps whose lanes are all off",
            f.predicated_stores
        )),
        "global loads" if r < 1.0 && f.predicated_global_loads > 0 => Some(format!(
            "the compiled kernel has {} predicated LDG, issued (and counted) by warps whose lanes are all off",
            f.predicated_global_loads
        )),
        "shared loads" if r < 1.0 && f.predicated_shared_loads > 0 => Some(format!(
            "the compiled kernel has {} predicated LDS, issued (and counted) by warps whose lanes are all off",
            f.predicated_shared_loads
        )),
        "DRAM bytes read" if r > 1.0 && f.zero_store_first => Some(
            "the compiled kernel's first global access stores zero (`STG ..., RZ`): the measured \
             source zeroes its output before accumulating, so the GPU's L2 takes those lines \
             from the store, where the model reads the output's initial values as the suite does"
                .to_string(),
        ),
        "shared loads" if r > 1.0 && f.vector_shared_loads > 0 => Some(format!(
            "the compiled kernel reads shared memory with {} vector loads (LDS.64/LDS.128), the model one element per load",
            f.vector_shared_loads
        )),
        _ => None,
    }
}

fn report(
    rows: &[Row],
    device: &str,
    sass: &BTreeMap<String, SassFacts>,
    a: &GpuArgs,
    sector_bytes: u32,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Built-in kernel models against a real GPU\n\nGenerated by `locus validate gpu --measured {} -p {}`. Measured: Nsight Compute \
         on the GPU named below, one launch per kernel, caches flushed before each (ncu's default), \
         clocks left alone; simulated: the same workloads and parameters on preset `{}`, every L2 \
         emptied at each kernel boundary outside the timed run (`{PROFILER_FLUSH}`: the profiler's \
         flush). Each cell is simulated / measured; tolerances declared in `crates/cli/src/cmd/validate_gpu.rs` \
         before any run: instructions and cycles and time within 20 %, memory instructions \
         within 5 %.\n",
        a.measured.display(),
        a.preset,
        a.preset
    );
    let dev: Vec<&str> = device
        .lines()
        .filter(|l| !l.starts_with("metric") && !l.starts_with("ncu rc"))
        .take(4)
        .collect();
    if !dev.is_empty() {
        let _ = writeln!(s, "Measured device:\n\n```\n{}\n```\n", dev.join("\n"));
    }
    let mut head = vec!["workload".to_string(), "kernel".to_string()];
    head.extend(METRICS.iter().map(|m| m.name.to_string()));
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut v = vec![r.workload.clone(), r.kernel.clone()];
            v.extend(r.cells.iter().map(fmt_ratio));
            v
        })
        .collect();
    let _ = writeln!(
        s,
        "## Simulated / measured, per kernel\n\n{}",
        md_table(&head, &body)
    );
    let _ = writeln!(s, "## Summary per quantity\n");
    let mut sh = vec![
        "quantity".to_string(),
        "tolerance".into(),
        "kernels within".into(),
        "geometric mean ratio (non-zero ratios)".into(),
        "min ratio".into(),
        "max ratio".into(),
    ];
    sh.truncate(6);
    let mut sb = Vec::new();
    for (j, m) in METRICS.iter().enumerate() {
        let cells: Vec<&Cell> = rows
            .iter()
            .map(|r| &r.cells[j])
            .filter(|c| c.real.is_finite())
            .collect();
        let within = cells.iter().filter(|c| c.within(m.tolerance)).count();
        let ratios: Vec<f64> = cells.iter().filter_map(|c| c.ratio()).collect();
        let nonzero: Vec<f64> = ratios.iter().copied().filter(|r| *r > 0.0).collect();
        let gm = if nonzero.is_empty() {
            f64::NAN
        } else {
            (nonzero.iter().map(|r| r.ln()).sum::<f64>() / nonzero.len() as f64).exp()
        };
        let mn = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let mx = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        sb.push(vec![
            m.name.to_string(),
            format!("{:.0} %", m.tolerance * 100.0),
            format!("{within} of {}", cells.len()),
            if gm.is_finite() {
                format!("{gm:.2}")
            } else {
                "-".into()
            },
            if mn.is_finite() {
                format!("{mn:.2}")
            } else {
                "-".into()
            },
            if mx.is_finite() {
                format!("{mx:.2}")
            } else {
                "-".into()
            },
        ]);
    }
    let _ = writeln!(s, "{}", md_table(&sh, &sb));
    if !sass.is_empty() {
        let _ = writeln!(
            s,
            "## The compiled kernels\n\nFrom `sass.txt` (`cuobjdump --dump-sass` of the measured \
             binary): each kernel's static instructions (padding `NOP`s and the closing \
             self-branch left out) and, of those, constant-bank loads (`LDC`, `ULDC`), beside the \
             measured and simulated warp instructions per warp of the launch (`-`: a template \
             compiled more than once, so no single static count).\n"
        );
        let head: Vec<String> = [
            "workload",
            "kernel",
            "static SASS instructions",
            "of them LDC/ULDC",
            "measured warp insts per warp",
            "simulated warp insts per warp",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect();
        let body: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                let f = sass.get(&r.kernel).copied();
                let per = |v: f64| {
                    if r.warps > 0 {
                        format!("{:.1}", v / r.warps as f64)
                    } else {
                        "-".into()
                    }
                };
                vec![
                    r.workload.clone(),
                    r.kernel.clone(),
                    f.map_or("-".into(), |f| f.insts.to_string()),
                    f.map_or("-".into(), |f| f.const_loads.to_string()),
                    per(r.cells[0].real),
                    per(r.cells[0].sim),
                ]
            })
            .collect();
        let _ = writeln!(s, "{}", md_table(&head, &body));
    }
    let _ = writeln!(
        s,
        "## Disagreements\n\nEvery kernel and quantity outside its tolerance, with the measured \
         ratio; the reason is `unexplained` unless a fact of the compiled code (sass.txt), of \
         the measured DRAM traffic or of the measured cycles against the simulated L1 line \
         requests that produces a difference in that direction is found.\n"
    );
    let floor = dram_floor(rows);
    let mut any = false;
    for r in rows {
        let out: Vec<String> = METRICS
            .iter()
            .zip(&r.cells)
            .filter(|(m, c)| c.real.is_finite() && !c.within(m.tolerance))
            .map(|(m, c)| {
                let why = reason(m, c, sass.get(&r.kernel))
                    .or_else(|| const_load_reason(m, c, r, sass.get(&r.kernel)))
                    .or_else(|| dram_reason(m, c, r, sector_bytes))
                    .or_else(|| floor_reason(m, c, floor))
                    .or_else(|| lsu_reason(m, c, r))
                    .or_else(|| activate_reason(m, c, r))
                    .unwrap_or_else(|| "unexplained".to_string());
                format!("{} {} ({why})", m.name, fmt_ratio(c))
            })
            .collect();
        if !out.is_empty() {
            any = true;
            let _ = writeln!(s, "- {} `{}`: {}", r.workload, r.kernel, out.join("; "));
        }
    }
    if !any {
        s.push_str("None.\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const NCU: &str = "==PROF== Connected to process 1\n\
\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
\"0\",\"vectorAdd(const float *, int)\",\"smsp__inst_executed.sum\",\"inst\",\"2,752,512\"\n\
\"0\",\"vectorAdd(const float *, int)\",\"gpu__time_duration.sum\",\"ns\",\"17,760\"\n\
\"1\",\"void reduce<float, 256>(const float *, float *, unsigned int)\",\"smsp__inst_executed.sum\",\"inst\",\"70,976\"\n";

    #[test]
    fn ncu_csv_skips_the_prelude_and_reads_thousands_separators() {
        let l = parse_ncu(NCU, Path::new("ncu.csv")).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].metrics["smsp__inst_executed.sum"], 2_752_512.0);
        assert_eq!(l[0].metrics["gpu__time_duration.sum"], 17_760.0);
        assert_eq!(bare_name(&l[1].name), "reduce");
        assert_eq!(bare_name(&l[0].name), "vectorAdd");
    }

    #[test]
    fn a_bad_value_names_the_file_line_and_metric() {
        let bad = NCU.replace("\"17,760\"", "\"n/a\"");
        let e = parse_ncu(&bad, Path::new("m/ncu.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m/ncu.csv:4") && e.contains("gpu__time_duration.sum"),
            "{e}"
        );
        let e = parse_ncu("no header\n", Path::new("x.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.csv") && e.contains("--csv"), "{e}");
    }

    #[test]
    fn pairing_checks_count_and_names() {
        let l = parse_ncu(NCU, Path::new("ncu.csv")).unwrap();
        let m = parse_manifest(
            "workload\tparams\tkernels\nvectoradd\t\tvectorAdd\nshoc-reduction\titerations=1\treduce\n",
            Path::new("manifest.tsv"),
        )
        .unwrap();
        assert_eq!(m[1].params, vec![("iterations".into(), "1".into())]);
        let p = pair(&m, &l, Path::new("ncu.csv")).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].0.workload, "shoc-reduction");
        let wrong = parse_manifest(
            "h\nvectoradd\t\tvectorAdd\nshoc-reduction\t\tscan\n",
            Path::new("manifest.tsv"),
        )
        .unwrap();
        let e = pair(&wrong, &l, Path::new("ncu.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("expects `scan`"), "{e}");
        let short = parse_manifest("h\nvectoradd\t\tvectorAdd\n", Path::new("m.tsv")).unwrap();
        assert!(pair(&short, &l, Path::new("ncu.csv")).is_err());
        let e = parse_manifest("h\nvectoradd\tn4\tvectorAdd\n", Path::new("m.tsv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.tsv:2") && e.contains("NAME=VALUE"), "{e}");
    }

    #[test]
    fn sass_facts_skip_padding_and_the_self_branch() {
        let t = "\t\tFunction : _Z9vectorAddPKfS0_Pfi\n\
        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */\n\
        /* 0x000fe40000000800 */\n\
        /*0010*/                   S2R R9, SR_CTAID.X ;\n\
        /*0020*/                   ULDC UR4, c[0x0][0x0] ;\n\
        /*0070*/               @P0 EXIT ;\n\
        /*0080*/                   LDC.64 R2, c[0x0][0x210] ;\n\
        /*0090*/              @!P0 STG.E desc[UR4][R6.64], R9 ;\n\
        /*00a0*/                   LDS.128 R4, [R2] ;\n\
        /*00b0*/               @P1 LDG.E R7, desc[UR4][R2.64] ;\n\
        /*0140*/                   EXIT ;\n\
        /*0150*/                   BRA 0x150;\n\
        /*0160*/                   NOP;              /* 0x0000000000007918 */\n\
\t\tFunction : _Z6reduceIfLi256EEvPKT_PS0_j\n\
        /*0000*/                   BRA 0x40 ;\n";
        let f = parse_sass(t);
        let v = f["vectorAdd"];
        assert_eq!((v.insts, v.const_loads), (9, 3));
        assert_eq!((v.predicated_stores, v.vector_shared_loads), (1, 1));
        assert_eq!(v.predicated_global_loads, 1);
        let st = &METRICS[2];
        let under = Cell {
            real: 8.0,
            sim: 1.0,
        };
        assert!(reason(st, &under, Some(&v))
            .unwrap()
            .contains("1 predicated STG"));
        // a difference in the other direction is not explained by predication
        let over = Cell {
            real: 1.0,
            sim: 8.0,
        };
        assert!(reason(st, &over, Some(&v)).is_none());
        assert!(reason(&METRICS[3], &over, Some(&v))
            .unwrap()
            .contains("vector loads"));
        assert_eq!(f["reduce"].insts, 1, "a branch elsewhere is an instruction");
        // a kernel whose first global access stores zero explains extra simulated DRAM
        // reads (the measured source zeroes its output; the suite's, modelled, reads it);
        // vectorAdd's first global access stores a computed value
        let z = "\t\tFunction : _Z11mm2_kernel1PfS_S_i\n        /*0000*/  S2R R0, SR_TID.X ;\n\
                 /*0010*/  STG.E desc[UR6][R2.64], RZ ;\n\
                 /*0020*/  LDG.E R4, desc[UR6][R6.64] ;\n        /*0030*/  EXIT ;\n";
        let zf = parse_sass(z)["mm2_kernel1"];
        assert!(zf.zero_store_first && !v.zero_store_first);
        let dram = METRICS
            .iter()
            .find(|m| m.name == "DRAM bytes read")
            .unwrap();
        assert!(reason(dram, &over, Some(&zf))
            .unwrap()
            .contains("stores zero"));
        assert!(reason(dram, &under, Some(&zf)).is_none());
        assert!(reason(dram, &over, Some(&v)).is_none());
        // two instantiations of one template: no single static count
        let two = "\t\tFunction : _ZN5micro5chainILi0EEEvPjPxijj\n        /*0000*/  EXIT ;\n\
                   \t\tFunction : _ZN5micro5chainILi1EEEvPjPxijj\n        /*0000*/  EXIT ;\n";
        assert!(!parse_sass(two).contains_key("chain"));
        assert_eq!(
            demangle_bare("_Z13matrixMulCUDAILi16EEvPfS0_S0_ii"),
            Some("matrixMulCUDA")
        );
        assert_eq!(demangle_bare("main"), None);
        // in a namespace (kernels.cu's `micro::`), templated or not
        assert_eq!(
            demangle_bare("_ZN5micro5chainILi0EEEvPjPxijj"),
            Some("chain")
        );
        assert_eq!(demangle_bare("_ZN5micro6randomEPVKjjjj"), Some("random"));
        assert_eq!(bare_name("void micro::chain<0>(unsigned int *, long long *, int, unsigned int, unsigned int)"), "chain");
        assert_eq!(
            bare_name("micro::random(const volatile unsigned int *, unsigned int)"),
            "random"
        );
    }

    /// The L1-rate reason: a simulated kernel slower than measured whose line requests per
    /// SM, at the simulated rate, exceed the measured cycles is explained; the same kernel
    /// with fewer line requests, or one faster than measured, is not.
    /// The DRAM floor: the measured bytes of launches that simulate none; a kernel whose
    /// simulated bytes match the measured ones less that floor is explained, one below
    /// even then (or above the measurement) is not.
    #[test]
    fn floor_reason_takes_off_what_empty_launches_read() {
        let d = METRICS
            .iter()
            .position(|m| m.name == "DRAM bytes read")
            .unwrap();
        let row = |real: f64, sim: f64| Row {
            workload: "w".into(),
            kernel: "k".into(),
            warps: 32,
            lsu_cycles: 0.0,
            activates: f64::NAN,
            activate_ns: f64::NAN,
            cells: METRICS
                .iter()
                .enumerate()
                .map(|(i, _)| {
                    if i == d {
                        Cell { real, sim }
                    } else {
                        Cell {
                            real: 1.0,
                            sim: 1.0,
                        }
                    }
                })
                .collect(),
        };
        let rows = [row(3072.0, 0.0), row(2816.0, 0.0), row(9472.0, 6144.0)];
        let f = dram_floor(&rows);
        assert_eq!(f, Some((2816.0, 3072.0, 2)));
        let m = &METRICS[d];
        let r = floor_reason(m, &rows[2].cells[d], f).unwrap();
        assert!(r.contains("2816") && r.contains("0.92"), "{r}");
        let short = Cell {
            real: 9472.0,
            sim: 3000.0,
        };
        assert!(floor_reason(m, &short, f).is_none(), "still far below");
        let over = Cell {
            real: 9472.0,
            sim: 12000.0,
        };
        assert!(floor_reason(m, &over, f).is_none(), "above the measurement");
        assert!(
            floor_reason(m, &rows[2].cells[d], None).is_none(),
            "no floor measured"
        );
        assert!(
            floor_reason(&METRICS[0], &rows[2].cells[d], f).is_none(),
            "DRAM bytes only"
        );
    }

    /// Row activations that need more time, at the four-activate window, than the whole
    /// measured kernel explain a slow kernel; fewer do not, nor a fast kernel.
    #[test]
    fn activate_reason_needs_more_activation_time_than_measured() {
        let t = METRICS.iter().position(|m| m.name == "time (ns)").unwrap();
        let row = |activate_ns: f64| Row {
            workload: "w".into(),
            kernel: "k".into(),
            warps: 32,
            lsu_cycles: 0.0,
            activates: 1000.0,
            activate_ns,
            cells: METRICS
                .iter()
                .map(|m| Cell {
                    real: if m.name == "time (ns)" { 8000.0 } else { 1.0 },
                    sim: if m.name == "time (ns)" { 17000.0 } else { 1.0 },
                })
                .collect(),
        };
        let slow = Cell {
            real: 8000.0,
            sim: 17000.0,
        };
        let r = activate_reason(&METRICS[t], &slow, &row(12600.0)).unwrap();
        assert!(r.contains("12600") && r.contains("8000"), "{r}");
        assert!(activate_reason(&METRICS[t], &slow, &row(7000.0)).is_none());
        assert!(activate_reason(&METRICS[t], &slow, &row(f64::NAN)).is_none());
        let fast = Cell {
            real: 8000.0,
            sim: 5000.0,
        };
        assert!(activate_reason(&METRICS[t], &fast, &row(12600.0)).is_none());
        assert!(activate_reason(&METRICS[0], &slow, &row(12600.0)).is_none());
    }

    #[test]
    fn lsu_reason_needs_more_line_cycles_than_measured() {
        let row = |lsu_cycles: f64| Row {
            workload: "w".into(),
            kernel: "k".into(),
            warps: 32,
            lsu_cycles,
            activates: f64::NAN,
            activate_ns: f64::NAN,
            cells: METRICS
                .iter()
                .map(|m| Cell {
                    real: if m.name == "cycles" { 1000.0 } else { 1.0 },
                    sim: if m.name == "cycles" { 1500.0 } else { 1.0 },
                })
                .collect(),
        };
        let cy = METRICS.iter().position(|m| m.name == "cycles").unwrap();
        let slow = Cell {
            real: 1000.0,
            sim: 1500.0,
        };
        let r = lsu_reason(&METRICS[cy], &slow, &row(1200.0)).unwrap();
        assert!(r.contains("1200") && r.contains("1000"), "{r}");
        assert!(lsu_reason(&METRICS[cy], &slow, &row(900.0)).is_none());
        let fast = Cell {
            real: 1000.0,
            sim: 700.0,
        };
        assert!(lsu_reason(&METRICS[cy], &fast, &row(1200.0)).is_none());
        // not a reason for an instruction count
        assert!(lsu_reason(&METRICS[0], &slow, &row(1200.0)).is_none());
    }

    /// The constant-load reason: triad's case (18 measured and 12 simulated warp
    /// instructions per warp, 7 LDC/ULDC) is explained whole; a shortfall beyond the
    /// constant loads keeps the rest unexplained; more simulated than measured, another
    /// metric, or a kernel without constant loads gets no reason.
    #[test]
    fn const_load_reason_counts_once_per_warp() {
        let row = Row {
            workload: "w".into(),
            kernel: "k".into(),
            warps: 100,
            lsu_cycles: 0.0,
            activates: f64::NAN,
            activate_ns: f64::NAN,
            cells: Vec::new(),
        };
        let f = SassFacts {
            const_loads: 7,
            ..SassFacts::default()
        };
        let wi = &METRICS[0];
        assert_eq!(wi.name, "warp instructions");
        let cell = |real: f64, sim: f64| Cell { real, sim };
        let r = const_load_reason(wi, &cell(1800.0, 1200.0), &row, Some(&f)).unwrap();
        assert!(
            r.contains("7 constant-bank loads") && r.contains("6.0 of the 6.0"),
            "{r}"
        );
        assert!(!r.contains("unexplained"), "{r}");
        let r = const_load_reason(wi, &cell(2200.0, 1200.0), &row, Some(&f)).unwrap();
        assert!(
            r.contains("7.0 of the 10.0") && r.contains("other 3.0 per warp unexplained"),
            "{r}"
        );
        assert!(const_load_reason(wi, &cell(1200.0, 1800.0), &row, Some(&f)).is_none());
        assert!(const_load_reason(&METRICS[1], &cell(1800.0, 1200.0), &row, Some(&f)).is_none());
        let none = SassFacts::default();
        assert!(const_load_reason(wi, &cell(1800.0, 1200.0), &row, Some(&none)).is_none());
        assert!(const_load_reason(wi, &cell(1800.0, 1200.0), &row, None).is_none());
    }

    #[test]
    fn tolerance_and_ratio() {
        let c = Cell {
            real: 100.0,
            sim: 119.0,
        };
        assert!(c.within(0.20) && !c.within(0.05));
        assert!(Cell {
            real: 0.0,
            sim: 0.0
        }
        .within(0.05));
        assert!(!Cell {
            real: 0.0,
            sim: 3.0
        }
        .within(0.05));
    }

    /// `latency.tsv` rows are read field by field; a bad number names the file and line;
    /// a chain's latency is the slope between its two longest chains, a chase's the cycles
    /// per hop, and the simulations behind them are the same walks (the cold DRAM chase
    /// not warmed, the L1 chase warmed by one traversal).
    #[test]
    fn latency_rows_become_checks_with_their_simulations() {
        let t = "what\tfootprint_B\tstride_B\tcount\tcycles\tcycles_per\n\
                 chain-int\t0\t0\t1024\t5000\t4.9\n\
                 chain-int\t0\t0\t8192\t33800\t4.1\n\
                 chain-int\t0\t0\t65536\t269400\t4.1\n\
                 chase-l1\t16384\t128\t4096\t163840\t40.0\n\
                 chase-dram-seq\t536870912\t128\t4096\t2835385\t692.2\n";
        let rows = parse_latency(t, Path::new("latency.tsv")).unwrap();
        assert_eq!(rows.len(), 5);
        let cfg = locus_sim::preset::load(Some("h100"), None, &[]).unwrap();
        let c = latency_checks(&rows, "h100", &cfg);
        assert_eq!(c.len(), 3, "one chain class, two chases");
        assert!((c[0].measured - (269400.0 - 33800.0) / (65536.0 - 8192.0)).abs() < 1e-9);
        assert_eq!(c[0].per, 65536.0 - 8192.0);
        assert!(c[0].hi.params.contains(&("ops".into(), "65536".into())));
        assert!(c[0].lo.params.contains(&("ops".into(), "8192".into())));
        assert_eq!(c[1].measured, 40.0);
        assert!(c[1].hi.params.contains(&("warm".into(), "128".into())));
        assert!(c[1].lo.params.contains(&("hops".into(), "0".into())));
        assert!(c[2].hi.params.contains(&("warm".into(), "0".into())));
        assert!(c[2]
            .hi
            .params
            .contains(&("footprint_kb".into(), "524288".into())));
        assert_ne!(c[1].hi.key, c[1].lo.key);
        let e = parse_latency("h\nchase-l1\t16384\tx\t1\t2\t3\n", Path::new("lat.tsv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("lat.tsv:2") && e.contains("field 3"), "{e}");
    }

    /// The checked-in measurements pair one to one with their manifest (so the folder a
    /// user points at is consistent), and every compared metric was measured.
    #[test]
    fn the_checked_in_measurements_are_consistent() {
        for gpu in ["h100", "h200"] {
            checked_in_consistent(gpu);
        }
    }

    fn checked_in_consistent(gpu: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../validation/gpu")
            .join(gpu);
        let m = parse_manifest(
            &std::fs::read_to_string(dir.join("manifest.tsv")).unwrap(),
            &dir,
        )
        .unwrap();
        let l = parse_ncu(&std::fs::read_to_string(dir.join("ncu.csv")).unwrap(), &dir).unwrap();
        let p = pair(&m, &l, &dir).unwrap();
        assert!(p.len() >= m.len());
        for (_, _, launch) in &p {
            for mt in METRICS {
                assert!(
                    launch.metrics.contains_key(mt.ncu),
                    "{} lacks {}",
                    launch.name,
                    mt.ncu
                );
            }
        }
    }
}
