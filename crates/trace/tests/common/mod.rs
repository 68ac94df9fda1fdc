//! Helpers shared by the integration tests: temp folders and independent text counts.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub const VECTORADD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/traces/vectoradd"
);
pub const BACKPROP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/traces/backprop-h100"
);

/// Whether the example traces of `../shared/traces` (beside the repository) are present.
/// When absent (a clone without `shared/`), prints why the calling test is skipped and
/// returns `false`; the test then returns without checking anything. CI always has them.
pub fn have_traces(test: &str) -> bool {
    let ok = Path::new(VECTORADD).is_dir() && Path::new(BACKPROP).is_dir();
    if !ok {
        eprintln!(
            "skipped {test}: the example traces ../shared/traces/{{vectoradd,backprop-h100}} \
             are missing (the repository is used with shared/ beside it)"
        );
    }
    ok
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh, unique, empty directory under the system temp dir (removed on drop).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!(
            "locus-trace-test-{tag}-{}-{n}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn write(&self, name: &str, data: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Counts of one kernel file obtained by plain text scanning (no use of the parser).
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
pub struct TextCounts {
    pub blocks: u64,
    pub warps: u64,
    pub insts_declared: u64,
    pub inst_lines: u64,
    pub mem_insts: u64,
    pub thread_addrs: u64,
}

pub fn text_counts(path: &Path) -> TextCounts {
    let text = std::fs::read_to_string(path).unwrap();
    let mut c = TextCounts::default();
    let mut in_tb = false;
    for l in text.lines() {
        let t = l.trim();
        if t == "#BEGIN_TB" {
            c.blocks += 1;
            in_tb = true;
        } else if t == "#END_TB" {
            in_tb = false;
        } else if t.starts_with("warp = ") {
            c.warps += 1;
        } else if let Some(n) = t.strip_prefix("insts = ") {
            c.insts_declared += n.parse::<u64>().unwrap();
        } else if in_tb && !t.is_empty() && !t.starts_with("thread block") {
            c.inst_lines += 1;
            let f: Vec<&str> = t.split_whitespace().collect();
            let nd: usize = f[2].parse().unwrap();
            let ns: usize = f[4 + nd].parse().unwrap();
            let width: u64 = f[5 + nd + ns].parse().unwrap();
            if width > 0 {
                c.mem_insts += 1;
                c.thread_addrs += u32::from_str_radix(f[1], 16).unwrap().count_ones() as u64;
            }
        }
    }
    c
}

/// Kernel file paths named in a kernelslist.g, by text scanning.
pub fn listed_kernels(dir: &str) -> Vec<PathBuf> {
    std::fs::read_to_string(Path::new(dir).join("kernelslist.g"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(".traceg") || l.ends_with(".traceg.xz"))
        .map(|l| Path::new(dir).join(l))
        .collect()
}
