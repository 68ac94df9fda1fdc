//! `locus trace stat`: a serialisable summary of a trace folder — per kernel its launch
//! shape, GPU generation, instruction mix, memory behaviour (bytes per data object,
//! footprint, how many thread blocks share each page) — so a user can judge a trace before
//! simulating it and pick a GPU configuration of the generation it came from.

use crate::block::TraceBlock;
use crate::error::TraceError;
use crate::kernelslist::{object_index, KernelList, TraceObject};
use crate::opcode::{MemSpace, OpClass};
use crate::reader::KernelReader;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// Bytes per cache line used for the footprint.
pub const LINE_BYTES: u64 = 128;
/// Bytes per page used for the footprint and the page-sharing histogram.
pub const PAGE_BYTES: u64 = 4096;
/// Page-sharing histogram buckets: (label, lowest block count, highest block count).
pub const SHARING_BUCKETS: [(&str, u64, u64); 7] = [
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-4", 3, 4),
    ("5-8", 5, 8),
    ("9-16", 9, 16),
    ("17-64", 17, 64),
    (">64", 65, u64::MAX),
];

/// Bytes accessed in one data object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ObjectBytes {
    /// `obj<i>` or `other`.
    pub name: String,
    /// Sum over lanes of the per-lane access width.
    pub bytes: u64,
}

/// One bucket of the page-sharing histogram.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SharingBucket {
    /// Number of distinct thread blocks touching a page (`1`, `2`, `3-4`, ...).
    pub blocks: &'static str,
    /// Pages in that bucket.
    pub pages: u64,
}

/// Counters shared by the per-kernel and the totals sections.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Thread blocks in the trace.
    pub thread_blocks: u64,
    /// Warps present in the trace.
    pub warps: u64,
    /// Warp instructions.
    pub instructions: u64,
    /// Instructions by class (`int`, `fp`, ..., memory opcodes without addresses are `int`).
    pub by_class: BTreeMap<&'static str, u64>,
    /// Memory instructions by (resolved) space.
    pub by_space: BTreeMap<&'static str, u64>,
    /// Instructions with addresses (mem_width > 0).
    pub mem_instructions: u64,
    /// Sum of active lanes of memory instructions.
    pub thread_addresses: u64,
    /// Bytes accessed per data object (shared memory excluded), `other` last.
    pub bytes_by_object: Vec<ObjectBytes>,
    /// Distinct 128 B lines touched (shared memory excluded).
    pub lines_128b: u64,
    /// Distinct 4 KB pages touched (shared memory excluded).
    pub pages_4k: u64,
}

/// Summary of one kernel launch.
#[derive(Clone, Debug, Serialize)]
pub struct KernelStat {
    /// Kernel trace file name.
    pub file: String,
    /// Kernel (mangled) name.
    pub name: String,
    /// `kernel id`.
    pub id: u64,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Shared memory per block (bytes).
    pub shmem: u32,
    /// Registers per thread.
    pub nregs: u32,
    /// SM architecture, if the header gives it.
    pub binary_version: Option<u32>,
    /// GPU generation name of the binary version.
    pub generation: &'static str,
    /// Accel-Sim tracer version.
    pub tracer_version: u32,
    /// Counters.
    #[serde(flatten)]
    pub counts: Counts,
    /// Pages by number of distinct thread blocks touching them.
    pub page_sharing: Vec<SharingBucket>,
    /// Warnings (unknown opcodes with counts, tolerated problems).
    pub warnings: Vec<String>,
}

/// Summary of a whole trace folder.
#[derive(Clone, Debug, Serialize)]
pub struct TraceStat {
    /// The kernelslist.g read.
    pub path: String,
    /// Data objects (MemcpyHtoD buffers).
    pub objects: Vec<TraceObject>,
    /// Per kernel, in launch order.
    pub kernels: Vec<KernelStat>,
    /// Totals over all kernels (footprint counts distinct lines/pages over the program).
    pub totals: Counts,
    /// All warnings.
    pub warnings: Vec<String>,
}

struct Acc {
    counts: Counts,
    obj_bytes: Vec<u64>,
    lines: HashSet<u64>,
    /// page → (last block that touched it, distinct blocks)
    pages: HashMap<u64, (u64, u64)>,
}

impl Acc {
    fn new(nobj: usize) -> Self {
        Acc {
            counts: Counts::default(),
            obj_bytes: vec![0; nobj + 1],
            lines: HashSet::new(),
            pages: HashMap::new(),
        }
    }

    fn block(&mut self, b: &TraceBlock, objs: &[TraceObject]) {
        let c = &mut self.counts;
        c.thread_blocks += 1;
        for w in b.warps.iter().filter(|w| w.present) {
            c.warps += 1;
            c.instructions += w.insts.len() as u64;
            for i in &w.insts {
                *c.by_class.entry(i.class.name()).or_default() += 1;
                let Some(space) = i.space else { continue };
                c.mem_instructions += 1;
                c.thread_addresses += i.naddrs as u64;
                *c.by_space.entry(space.name()).or_default() += 1;
                if space == MemSpace::Shared {
                    continue;
                }
                for &a in w.addrs_of(i) {
                    let k = object_index(objs, a).unwrap_or(objs.len());
                    if let Some(x) = self.obj_bytes.get_mut(k) {
                        *x += i.width as u64;
                    }
                    let last = a.saturating_add(i.width.max(1) as u64 - 1);
                    for line in (a / LINE_BYTES)..=(last / LINE_BYTES) {
                        self.lines.insert(line);
                    }
                    for page in (a / PAGE_BYTES)..=(last / PAGE_BYTES) {
                        let e = self.pages.entry(page).or_insert((u64::MAX, 0));
                        if e.0 != b.linear {
                            e.0 = b.linear;
                            e.1 += 1;
                        }
                    }
                }
            }
        }
    }

    fn finish(
        mut self,
        objs: &[TraceObject],
    ) -> (Counts, Vec<SharingBucket>, HashSet<u64>, HashSet<u64>) {
        let mut sharing: Vec<SharingBucket> = SHARING_BUCKETS
            .iter()
            .map(|&(l, _, _)| SharingBucket {
                blocks: l,
                pages: 0,
            })
            .collect();
        for &(_, n) in self.pages.values() {
            if let Some(i) = SHARING_BUCKETS
                .iter()
                .position(|&(_, lo, hi)| n >= lo && n <= hi)
            {
                if let Some(s) = sharing.get_mut(i) {
                    s.pages += 1;
                }
            }
        }
        self.counts.bytes_by_object = objects_bytes(objs, &self.obj_bytes);
        self.counts.lines_128b = self.lines.len() as u64;
        self.counts.pages_4k = self.pages.len() as u64;
        let pages: HashSet<u64> = self.pages.into_keys().collect();
        (self.counts, sharing, self.lines, pages)
    }
}

fn objects_bytes(objs: &[TraceObject], bytes: &[u64]) -> Vec<ObjectBytes> {
    objs.iter()
        .map(|o| o.name.clone())
        .chain(std::iter::once("other".to_string()))
        .zip(bytes.iter().copied())
        .map(|(name, bytes)| ObjectBytes { name, bytes })
        .collect()
}

fn add_counts(t: &mut Counts, k: &Counts) {
    t.thread_blocks += k.thread_blocks;
    t.warps += k.warps;
    t.instructions += k.instructions;
    for (n, c) in &k.by_class {
        *t.by_class.entry(n).or_default() += c;
    }
    for (n, c) in &k.by_space {
        *t.by_space.entry(n).or_default() += c;
    }
    t.mem_instructions += k.mem_instructions;
    t.thread_addresses += k.thread_addresses;
    for (tb, kb) in t.bytes_by_object.iter_mut().zip(&k.bytes_by_object) {
        tb.bytes += kb.bytes;
    }
}

/// Summarise the trace at `path` (folder or kernelslist.g), reading every kernel file once,
/// sequentially.
pub fn stat(path: &Path) -> Result<TraceStat, TraceError> {
    let list = KernelList::open(path)?;
    let objs = list.objects();
    let mut totals = Counts {
        bytes_by_object: objects_bytes(&objs, &vec![0; objs.len() + 1]),
        ..Counts::default()
    };
    for c in OpClass::ALL {
        totals.by_class.insert(c.name(), 0);
    }
    let mut all_lines: HashSet<u64> = HashSet::new();
    let mut all_pages: HashSet<u64> = HashSet::new();
    let mut kernels = Vec::new();
    let mut warnings = Vec::new();
    let mut block = TraceBlock::default();
    for kpath in list.kernels() {
        let mut r = KernelReader::open(kpath)?;
        let mut acc = Acc::new(objs.len());
        for c in OpClass::ALL {
            acc.counts.by_class.insert(c.name(), 0);
        }
        while r.next_block(&mut block)? {
            acc.block(&block, &objs);
        }
        let (counts, page_sharing, lines, pages) = acc.finish(&objs);
        add_counts(&mut totals, &counts);
        all_lines.extend(lines);
        all_pages.extend(pages);
        let h = r.header();
        let kw = r.warnings();
        warnings.extend(kw.iter().cloned());
        kernels.push(KernelStat {
            file: kpath
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            name: h.name.clone(),
            id: h.id,
            grid: h.grid,
            block: h.block,
            shmem: h.shmem,
            nregs: h.nregs,
            binary_version: h.binary_version,
            generation: h.generation(),
            tracer_version: h.tracer_version,
            counts,
            page_sharing,
            warnings: kw,
        });
    }
    totals.lines_128b = all_lines.len() as u64;
    totals.pages_4k = all_pages.len() as u64;
    Ok(TraceStat {
        path: list.path.display().to_string(),
        objects: objs,
        kernels,
        totals,
        warnings,
    })
}
