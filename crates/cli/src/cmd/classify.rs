//! `locus analyze classify --paper nuba|rec`: each paper's own characterisation of its
//! benchmarks, measured on ours and shown beside the paper's (issue 8).
//!
//! - NUBA (spec §6.3 Table 2, §6.4 Fig. 3): the sharing degree, the share of 4 KB pages
//!   that one SM alone touches, measured in a timing run of the default input on the
//!   paper's 64-SM baseline (`run.page_sharing`, so blocks land on SMs as the scheduler
//!   puts them); "low" when more than 80% of pages have one SM. Footprint and read-only
//!   footprint beside Table 2's.
//! - REC (spec §4.3 Table 3): footprints, the only characterisation the paper gives.
//!
//! The paper's columns are data typed from the spec's tables; ours are measured. A
//! benchmark we do not model yet is listed as missing. Differences are shown, never tuned.

use super::common::MachineArgs;
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use locus_workload::Workload;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// The papers with a benchmark characterisation.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Paper {
    /// NUBA Table 2 / Fig. 3: low or high sharing, footprints.
    Nuba,
    /// REC Table 3: footprints.
    Rec,
}

#[derive(Args)]
pub struct ClassifyArgs {
    /// Which paper's benchmarks and characterisation.
    #[arg(long, value_enum)]
    pub paper: Paper,
    /// Machine for the NUBA sharing runs (`-p`; NUBA measures on its 64-SM baseline, the
    /// preset `nuba-mem-uba`). Ignored for REC.
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Stop each sharing run after this many warp instructions (0 = the whole run;
    /// NUBA simulates the first 1B instructions).
    #[arg(long, default_value_t = 0)]
    pub max_warp_insts: u64,
    /// Only these benchmarks (our workload names), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Parallel runs.
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    /// Print JSON instead of a Markdown table.
    #[arg(long)]
    pub json: bool,
}

/// NUBA Table 2 (spec §6.3): (abbreviation, our workload, paper class, footprint MB,
/// read-only shared MB).
const NUBA: &[(&str, &str, &str, f64, f64)] = &[
    ("LAVAMD", "lavamd", "low", 7.0, 0.9),
    ("LBM", "lbm", "low", 389.0, 33.0),
    ("DWT2D", "dwt", "low", 302.0, 0.01),
    ("KMEANS", "km", "low", 136.0, 0.1),
    ("PVC", "mars-pageviewcount", "low", 1081.0, 0.6),
    ("BH", "blackscholes", "low", 48.0, 5.3),
    ("WC", "mars-wordcount", "low", 542.0, 0.9),
    ("SM", "mars-stringmatch", "low", 146.0, 1.2),
    ("2DCONV", "2dconv", "low", 1074.0, 17.0),
    ("MVT", "mvt", "low", 6443.0, 0.1),
    ("FWT", "fwt", "low", 269.0, 0.01),
    ("BP", "backprop", "low", 75.0, 0.4),
    ("FTD2D", "fdtd2d", "low", 51.0, 0.07),
    ("CONVS", "convsep", "low", 151.0, 20.0),
    ("ATAX", "atax", "low", 1342.0, 0.08),
    ("GESUMM", "gesummv", "low", 1073.0, 0.1),
    ("SC", "streamcluster", "high", 302.0, 8.0),
    ("2MM", "2mm", "high", 84.0, 6.0),
    ("LEU", "leukocyte", "high", 2.0, 1.0),
    ("BT", "btree", "high", 39.0, 36.0),
    ("SGEMM", "mm", "high", 9.0, 8.0),
    ("MM", "matmul", "high", 8.0, 7.0),
    ("3DCONV", "3dconv", "high", 1074.0, 68.0),
    ("AN", "alexnet", "high", 1.0, 0.4),
    ("SN", "tango-squeezenet", "high", 1.0, 0.9),
    ("RN", "resnet", "high", 4.0, 0.7),
    ("GRU", "tango-gru", "high", 2.0, 0.4),
    ("NW", "nw", "high", 16.0, 10.0),
    ("BICG", "bicg", "high", 2013.0, 472.0),
];

/// REC Table 3 (spec §4.3): (abbreviation, our workload, footprint MB).
const REC: &[(&str, &str, f64)] = &[
    ("ATAX", "atax", 128.0),
    ("C2D", "2dconv", 512.0),
    ("FIR", "fir", 128.0),
    ("GEMM", "gemm", 128.0),
    ("GEMV", "gemver", 256.0),
    ("J2D", "jacobi2d", 128.0),
    ("LU", "lu", 128.0),
    ("MM2", "2mm", 128.0),
    ("MM3", "3mm", 64.0),
    ("PR", "hm-pagerank", 256.0),
    ("SC", "simpleconv", 512.0),
    ("ST", "shoc-stencil2d", 128.0),
];

/// One benchmark's row.
#[derive(Serialize)]
struct Row {
    paper_name: &'static str,
    workload: &'static str,
    /// False when Locus has no model of it yet.
    modelled: bool,
    paper_footprint_mb: f64,
    footprint_mb: Option<f64>,
    /// NUBA only.
    paper_class: Option<&'static str>,
    paper_read_only_shared_mb: Option<f64>,
    class: Option<&'static str>,
    single_sm_fraction: Option<f64>,
    pages_by_sharers: Option<[u64; 5]>,
    /// Bytes of objects the kernels never write (NUBA only; declared or measured by the
    /// simulator's read-only bits, summed over objects read-only in every kernel).
    read_only_mb: Option<f64>,
}

const MB: f64 = 1024.0 * 1024.0;

fn footprint(w: &dyn Workload) -> f64 {
    w.objects().iter().map(|o| o.bytes).sum::<u64>() as f64 / MB
}

pub fn run(a: ClassifyArgs) -> Result<()> {
    let want = |name: &str| a.only.is_empty() || a.only.iter().any(|o| o == name);
    for o in &a.only {
        let known = NUBA.iter().any(|r| r.1 == o) || REC.iter().any(|r| r.1 == o);
        if !known {
            bail!("--only {o}: not one of the paper's benchmarks (names are Locus workload names, e.g. atax, 2mm)");
        }
    }
    let exists = |name: &str| locus_workload::registry::find(name).is_some();
    let rows: Vec<Row> = match a.paper {
        Paper::Rec => REC
            .iter()
            .filter(|r| want(r.1))
            .map(|&(abbr, name, mb)| -> Result<Row> {
                let fp = if exists(name) {
                    Some(footprint(&locus_workload::registry::build(
                        name,
                        &BTreeMap::new(),
                        1,
                    )?))
                } else {
                    None
                };
                Ok(Row {
                    paper_name: abbr,
                    workload: name,
                    modelled: fp.is_some(),
                    paper_footprint_mb: mb,
                    footprint_mb: fp,
                    paper_class: None,
                    paper_read_only_shared_mb: None,
                    class: None,
                    single_sm_fraction: None,
                    pages_by_sharers: None,
                    read_only_mb: None,
                })
            })
            .collect::<Result<_>>()?,
        Paper::Nuba => {
            let mut cfg = a.machine.config()?;
            cfg.run.page_sharing = true;
            cfg.run.max_warp_insts = a.max_warp_insts;
            cfg.validate().map_err(anyhow::Error::msg)?;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(a.jobs.max(1))
                .build()?;
            let todo: Vec<_> = NUBA.iter().filter(|r| want(r.1)).collect();
            pool.install(|| {
                todo.par_iter()
                    .map(|&&(abbr, name, class, mb, ro)| -> Result<Row> {
                        let mut row = Row {
                            paper_name: abbr,
                            workload: name,
                            modelled: exists(name),
                            paper_footprint_mb: mb,
                            footprint_mb: None,
                            paper_class: Some(class),
                            paper_read_only_shared_mb: Some(ro),
                            class: None,
                            single_sm_fraction: None,
                            pages_by_sharers: None,
                            read_only_mb: None,
                        };
                        if !row.modelled {
                            return Ok(row);
                        }
                        let mut w = locus_workload::registry::build(name, &BTreeMap::new(), 1)?;
                        row.footprint_mb = Some(footprint(&w));
                        let r = locus_sim::simulate(&cfg, &mut w)?;
                        eprintln!("{name}: done");
                        if let Some(s) = r.sim.page_sharing {
                            row.class = Some(s.class);
                            row.single_sm_fraction = Some(s.single_sm_fraction);
                            row.pages_by_sharers = Some(s.pages_by_sharers);
                        }
                        let objs = w.objects();
                        let ro: u64 =
                            objs.iter()
                                .enumerate()
                                .filter(|(i, _)| {
                                    r.sim.kernels.iter().all(|k| {
                                        !k.written_objects.iter().any(|n| n == &objs[*i].name)
                                    })
                                })
                                .map(|(_, o)| o.bytes)
                                .sum();
                        row.read_only_mb = Some(ro as f64 / MB);
                        Ok(row)
                    })
                    .collect::<Result<Vec<_>>>()
            })?
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        if let Paper::Nuba = a.paper {
            let c = a.machine.config()?;
            println!(
                "Sharing measured on preset `{}` ({} SMs, {} B pages){}; NUBA measures on its 64-SM baseline with 4 KB pages.\n",
                a.machine.preset,
                c.sms_of_nodes().iter().sum::<u32>(),
                c.system.page_bytes,
                if a.max_warp_insts > 0 {
                    format!(", each run stopped at {} warp instructions", a.max_warp_insts)
                } else {
                    String::new()
                }
            );
        }
        print!("{}", markdown(a.paper, &rows));
    }
    Ok(())
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

fn markdown(p: Paper, rows: &[Row]) -> String {
    let mut s = String::new();
    match p {
        Paper::Rec => {
            s += "| benchmark | workload | paper footprint (MB) | ours (MB) | ours / paper |\n|---|---|---:|---:|---:|\n";
            for r in rows {
                s += &format!(
                    "| {} | {} | {:.0} | {} | {} |\n",
                    r.paper_name,
                    if r.modelled {
                        r.workload
                    } else {
                        "(not modelled)"
                    },
                    r.paper_footprint_mb,
                    opt(r.footprint_mb, 1),
                    opt(r.footprint_mb.map(|f| f / r.paper_footprint_mb), 3),
                );
            }
        }
        Paper::Nuba => {
            s += "| benchmark | workload | paper class | ours | pages with one SM | pages by SMs 1 / 2-10 / 11-25 / 26-64 / 65+ | paper footprint (MB) | ours (MB) | paper RO shared (MB) | ours never written (MB) |\n|---|---|---|---|---:|---|---:|---:|---:|---:|\n";
            for r in rows {
                let agree = match (r.paper_class, r.class) {
                    (Some(a), Some(b)) if a != b => " (differs)",
                    _ => "",
                };
                s += &format!(
                    "| {} | {} | {} | {}{} | {} | {} | {:.2} | {} | {:.2} | {} |\n",
                    r.paper_name,
                    if r.modelled {
                        r.workload
                    } else {
                        "(not modelled)"
                    },
                    r.paper_class.unwrap_or("-"),
                    r.class.unwrap_or("-"),
                    agree,
                    r.single_sm_fraction
                        .map_or("-".into(), |f| format!("{:.1}%", 100.0 * f)),
                    r.pages_by_sharers
                        .map(|b| b
                            .iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(" / "))
                        .unwrap_or("-".into()),
                    r.paper_footprint_mb,
                    opt(r.footprint_mb, 1),
                    r.paper_read_only_shared_mb.unwrap_or(0.0),
                    opt(r.read_only_mb, 2),
                );
            }
            let measured: Vec<&Row> = rows.iter().filter(|r| r.class.is_some()).collect();
            let agree = measured.iter().filter(|r| r.class == r.paper_class).count();
            s += &format!(
                "\nMeasured {} of {} benchmarks; the class agrees with the paper's on {}.\n",
                measured.len(),
                rows.len(),
                agree
            );
        }
    }
    s
}
