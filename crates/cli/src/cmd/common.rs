//! Options shared by the commands that simulate: machine selection and workload selection.

use anyhow::{bail, Context, Result};
use clap::Args;
use locus_sim::Config;
use locus_workload::Workload;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which machine to simulate.
#[derive(Args, Clone, Debug)]
pub struct MachineArgs {
    /// Built-in preset (see `locus presets`).
    #[arg(long, short = 'p', default_value = "coda-4gpu")]
    pub preset: String,
    /// A TOML file whose keys override the preset (same layout as presets/*.toml).
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Override one configuration key, e.g. `--set interconnect.link_gbps=32`
    /// or `--set placement.policy=coda`. Repeatable. `locus presets --keys` lists every
    /// key with its value and, for each policy (placement.policy, scheduling.policy,
    /// interconnect.topology, ...), the values it accepts.
    #[arg(long = "set", short = 's', value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Place every access to a data object in a memory space (HMS placement model, preset
    /// k80): `--place weights=const`; spaces global, tex1d, tex2d (tex2d:N, N the row width),
    /// const, shared. The object is named as the workload names it, or by a part of that
    /// name matching one object. Texture and constant are read-only in a kernel: a kernel
    /// that may write the object keeps it global (named in a warning and in the kernel's
    /// `place_not_applied`). A kernel that uses an object placed in shared memory copies it
    /// in at each block's start (and back at its end when it writes it), and the copy's
    /// bytes count against the block's shared memory: the whole object by default, or only
    /// the range each block reads with `--set spaces.shared_stage=block-range`.
    /// Repeatable; same as `--set place.<obj>=<space>`.
    #[arg(long = "place", value_name = "OBJ=SPACE")]
    pub place: Vec<String>,
}

impl MachineArgs {
    /// The overrides in force, as the run header echoes them: the `--config` file, then
    /// each `--set` as `key=value`.
    pub fn overrides(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .config
            .iter()
            .map(|p| format!("config {}", p.display()))
            .collect();
        out.extend(self.sets.iter().map(|s| match s.split_once('=') {
            Some((k, v)) => format!("{}={}", k.trim(), v.trim()),
            None => s.trim().to_string(),
        }));
        out.extend(self.place.iter().map(|p| format!("place {}", p.trim())));
        out
    }

    /// The resolved configuration.
    pub fn config(&self) -> Result<Config> {
        let text;
        let file = match &self.config {
            Some(p) => {
                text = std::fs::read_to_string(p)
                    .with_context(|| format!("cannot read config file {}", p.display()))?;
                Some((p.to_str().unwrap_or("config"), text.as_str()))
            }
            None => None,
        };
        let mut sets = self.sets.clone();
        for p in &self.place {
            let Some((obj, space)) = p.split_once('=') else {
                anyhow::bail!("--place `{p}`: expected OBJ=SPACE, e.g. --place weights=const");
            };
            let obj = obj.trim();
            if obj.is_empty() || obj.contains('.') {
                anyhow::bail!("--place `{p}`: name the object before `=` (no dots), e.g. --place weights=const");
            }
            sets.push(format!("place.{obj}=\"{}\"", space.trim()));
        }
        Ok(locus_sim::preset::load(Some(&self.preset), file, &sets)?)
    }
}

/// Which workload to run.
#[derive(Args, Clone, Debug)]
pub struct WorkloadArgs {
    /// Built-in workload (see `locus workloads`); default: bfs.
    #[arg(long, short = 'w', conflicts_with = "trace")]
    pub workload: Option<String>,
    /// Workload parameter, e.g. `--param scale=14`. Repeatable. `--param merge=positional`
    /// forms warps by aligning the lanes' operations position by position (before issue 8)
    /// instead of the default `merge=reconverge` (min-PC reconvergence, docs/reconvergence.md).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// An Accel-Sim trace: its folder or its kernelslist.g.
    #[arg(long, short = 't')]
    pub trace: Option<PathBuf>,
    /// Several built-in workloads run at once, the i-th alone on node i (multiprogrammed,
    /// CODA Fig. 13), e.g. `--apps bfs,km,nn,hs3d`; each with its default parameters. From
    /// one application (alone on node 0, the other nodes idle) to one per node.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["workload", "trace", "params"])]
    pub apps: Vec<String>,
    /// Seed of the workload's input generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Refuse an output file whose folder does not exist or that is a folder, before any
/// simulation runs (so a typo costs nothing). `flag` names the option in the message.
pub fn check_output_file(p: &Path, flag: &str) -> Result<()> {
    if p.is_dir() {
        bail!("{flag} {}: is a folder; give a file name", p.display());
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "{flag} {}: folder {} does not exist; create it first or choose another path",
            p.display(),
            dir.display()
        );
    }
    if std::fs::metadata(dir).is_ok_and(|m| m.permissions().readonly()) {
        bail!(
            "{flag} {}: folder {} is read-only",
            p.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Default workload of `locus run`.
pub const DEFAULT_WORKLOAD: &str = "bfs";

impl WorkloadArgs {
    /// Parse `--param` pairs.
    pub fn param_map(&self) -> Result<BTreeMap<String, String>> {
        let mut m = BTreeMap::new();
        for p in &self.params {
            let Some((k, v)) = p.split_once('=') else {
                bail!("--param `{p}`: expected NAME=VALUE, e.g. --param scale=14");
            };
            m.insert(k.trim().to_string(), v.trim().to_string());
        }
        Ok(m)
    }

    /// Build the co-running applications of `--apps` (empty when not given).
    pub fn build_apps(&self) -> Result<Vec<Box<dyn Workload>>> {
        let mut out: Vec<Box<dyn Workload>> = Vec::new();
        let mut objs = 0usize;
        for (i, name) in self.apps.iter().enumerate() {
            let w = locus_workload::registry::build(
                name.trim(),
                &BTreeMap::new(),
                self.seed + i as u64,
            )?;
            let n = locus_workload::Workload::objects(&w).len();
            out.push(Box::new(locus_workload::offset::Offset::new(
                Box::new(w),
                i as u32,
                objs as u16,
            )));
            objs += n;
        }
        Ok(out)
    }

    /// Build the workload.
    pub fn build(&self) -> Result<Box<dyn Workload>> {
        if let Some(t) = &self.trace {
            if !self.params.is_empty() {
                bail!("--param applies to built-in workloads, not to traces");
            }
            return Ok(Box::new(locus_workload::trace_source::TraceWorkload::open(
                t,
            )?));
        }
        let name = self.workload.clone().unwrap_or_else(|| {
            if locus_workload::registry::find(DEFAULT_WORKLOAD).is_some() {
                DEFAULT_WORKLOAD.to_string()
            } else {
                "vectoradd".to_string()
            }
        });
        Ok(Box::new(locus_workload::registry::build(
            &name,
            &self.param_map()?,
            self.seed,
        )?))
    }
}
