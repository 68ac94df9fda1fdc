//! Workload setup shared by a reproduction's runs of one workload (issue 10: NUBA's full run
//! on 2 cores). A capped run of a long kernel spends most of its host time generating the
//! first wave of blocks (kernel models run every thread of a block when it is dispatched:
//! `host.functional_seconds` of `locus run --stats-json`), not simulating them, and every
//! one of a benchmark's configurations generates the same blocks again.
//!
//! A workload model is deterministic: what it answers depends only on the calls made on it
//! since it was built (launches begun, blocks generated with their line size and recording
//! flags, write sets and hints asked). So the first run of a workload records every call
//! and answer of one shared workload (the *master*), and a later run of the same workload
//! (same benchmark, parameters and seed) that makes the same calls in the same order gets
//! the recorded answers (a copy of the block program) instead of generating them. A run
//! whose call differs from the record (another line size, a probe the record lacks) builds
//! its own workload, brings it to the same state by replaying the calls before that point,
//! and goes on alone; a run that goes past the record extends it with the master's answers.
//! Either way every answer is the one a fresh workload would give, so no statistic changes
//! (checked by `replay_answers_what_a_fresh_workload_answers` below and by the NUBA quick
//! run's records compared before and after, BENCHMARKS.md). One caveat: kernel models
//! number program counters by the source files the generating *thread* has seen (model.rs
//! `PcKeys`), so a recorded block's absolute PC values may differ from those a fresh run on
//! another thread would give (their order by file name is the same; that the simulator reads
//! only that order is not proven here, only observed: identical records above).
//!
//! Memory: a record holds the blocks it has answered; past [`RECORD_BUDGET`] bytes, or once
//! all live records together hold [`TOTAL_BUDGET`] bytes ([`Pool`]: the full NUBA run's peak
//! RSS was 9.1 GB with several records of up to 1.5 GiB alive at once), it stops growing
//! and the run at its end takes the master as its own; a record gives its bytes back to the
//! pool when its last run drops it. The reproduction's
//! run step ([`super::execute`]) drops its handle on a record once that workload's last run
//! has started, and starts a workload's runs together, so few records are alive at once.

use locus_workload::{BlockProgram, DataObject, KernelInfo, ObjId, ProfileHint, Workload};
use locus_workload::{LaneAddr, LineReq, OffloadMark, WarpInst, WorkloadError};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A record stops growing past this many bytes of block programs (then the run at its end
/// continues on the master alone).
pub const RECORD_BUDGET: usize = 1536 << 20;

/// All live records together stop growing past this many bytes of block programs (each may
/// overshoot by the one block that crossed it). Four full records: the run step keeps about
/// two workloads' records alive at once, so the measured full NUBA run (peak RSS 9.1 GB,
/// BENCHMARKS.md) is not slowed; a smaller pool makes more runs generate their own blocks.
pub const TOTAL_BUDGET: usize = 6144 << 20;

/// The bytes held by the live records that share a budget.
pub struct Pool {
    limit: usize,
    used: AtomicUsize,
}

impl Pool {
    /// A pool of `limit` bytes.
    pub const fn new(limit: usize) -> Self {
        Pool {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    /// Bytes held now by the records of this pool.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    fn full(&self) -> bool {
        self.used() > self.limit
    }
}

/// The pool of every record a reproduction makes ([`Record::new`]).
pub static POOL: Pool = Pool::new(TOTAL_BUDGET);

/// Builds a fresh copy of the workload (for a run that leaves the record).
pub type Builder = Arc<dyn Fn() -> anyhow::Result<Box<dyn Workload>> + Send + Sync>;

/// One call on a workload, with every argument its answer depends on.
#[derive(Clone, Debug, PartialEq)]
enum Call {
    Begin,
    Block {
        block: u64,
        probe: bool,
        line: u32,
        lanes: bool,
        markers: bool,
        limit: u32,
    },
    Writes(bool),
    Hints,
    Warnings,
}

/// A call's answer.
enum Answer {
    Begin(Option<KernelInfo>),
    Block(BlockProgram),
    Writes(Option<Vec<ObjId>>),
    Hints(Vec<ProfileHint>),
    Warnings(Vec<String>),
}

fn program_bytes(p: &BlockProgram) -> usize {
    use std::mem::size_of;
    p.warps
        .iter()
        .map(|w| {
            w.insts.len() * size_of::<WarpInst>()
                + w.lines.len() * size_of::<LineReq>()
                + w.lane_at.len() * 4
                + w.lane_addrs.len() * size_of::<LaneAddr>()
                + w.offload.len() * size_of::<OffloadMark>()
        })
        .sum::<usize>()
        + 64
}

/// The shared record of one workload's calls and answers.
pub struct Record {
    name: String,
    objects: Vec<DataObject>,
    log: Vec<(Call, Answer)>,
    bytes: usize,
    /// The workload that gave the answers, standing just after the last one; `None` once
    /// a run took it (budget reached) or a call on it failed.
    master: Option<Box<dyn Workload>>,
    build: Builder,
    pool: &'static Pool,
}

impl Drop for Record {
    fn drop(&mut self) {
        self.pool.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

impl Record {
    /// A record over a freshly built workload, in the shared [`POOL`].
    pub fn new(build: Builder) -> anyhow::Result<Arc<Mutex<Record>>> {
        Self::in_pool(build, &POOL)
    }

    /// A record over a freshly built workload, its bytes counted in `pool`.
    pub fn in_pool(build: Builder, pool: &'static Pool) -> anyhow::Result<Arc<Mutex<Record>>> {
        let w = build()?;
        Ok(Arc::new(Mutex::new(Record {
            name: w.name().to_string(),
            objects: w.objects().to_vec(),
            log: Vec::new(),
            bytes: 0,
            master: Some(w),
            build,
            pool,
        })))
    }

    /// Calls answered so far (tests).
    #[cfg(test)]
    pub fn calls(&self) -> usize {
        self.log.len()
    }
}

fn apply(w: &mut dyn Workload, c: &Call) -> Result<Answer, WorkloadError> {
    Ok(match c {
        Call::Begin => Answer::Begin(w.begin_launch()?),
        Call::Block {
            block,
            probe,
            line,
            lanes,
            markers,
            limit,
        } => {
            let mut p = BlockProgram {
                record_lanes: *lanes,
                offload_markers: *markers,
                max_warp_insts: *limit,
                ..Default::default()
            };
            w.gen_block(*block, *probe, *line, &mut p)?;
            Answer::Block(p)
        }
        Call::Writes(c) => Answer::Writes(w.launch_writes(*c)),
        Call::Hints => Answer::Hints(w.launch_hints()),
        Call::Warnings => Answer::Warnings(w.warnings()),
    })
}

/// One run's view of a [`Record`]: a [`Workload`] that answers from the record while the
/// run's calls match it.
pub struct Replayed {
    rec: Arc<Mutex<Record>>,
    name: String,
    objects: Vec<DataObject>,
    pos: Cell<usize>,
    /// The run's own workload once it left the record.
    own: RefCell<Option<Box<dyn Workload>>>,
}

impl Replayed {
    pub fn new(rec: Arc<Mutex<Record>>) -> Self {
        let (name, objects) = {
            let r = rec.lock().unwrap_or_else(|p| p.into_inner());
            (r.name.clone(), r.objects.clone())
        };
        Replayed {
            rec,
            name,
            objects,
            pos: Cell::new(0),
            own: RefCell::new(None),
        }
    }

    /// True once the run has left the record (tests).
    #[cfg(test)]
    pub fn alone(&self) -> bool {
        self.own.borrow().is_some()
    }

    /// Answer `call`, handing its answer to `take`: from the record, from the master
    /// (recording it), or from the run's own workload.
    fn step<R>(&self, call: Call, take: impl FnOnce(&Answer) -> R) -> Result<R, WorkloadError> {
        if let Some(w) = self.own.borrow_mut().as_mut() {
            return apply(&mut **w, &call).map(|a| take(&a));
        }
        let pos = self.pos.get();
        let mut r = self.rec.lock().unwrap_or_else(|p| p.into_inner());
        if pos < r.log.len() && r.log[pos].0 == call {
            self.pos.set(pos + 1);
            return Ok(take(&r.log[pos].1));
        }
        if pos == r.log.len() && r.master.is_some() {
            if r.bytes <= RECORD_BUDGET && !r.pool.full() {
                let m = r.master.as_mut().expect("checked");
                match apply(&mut **m, &call) {
                    Ok(a) => {
                        if let Answer::Block(p) = &a {
                            let n = program_bytes(p);
                            r.bytes += n;
                            r.pool.used.fetch_add(n, Ordering::Relaxed);
                        }
                        let out = take(&a);
                        r.log.push((call, a));
                        self.pos.set(pos + 1);
                        return Ok(out);
                    }
                    Err(e) => {
                        // the master's state after a failed call is unknown: no one uses it
                        r.master = None;
                        return Err(e);
                    }
                }
            }
            // the record is full: this run goes on with the master alone
            let mut m = r.master.take().expect("checked");
            drop(r);
            let a = apply(&mut *m, &call);
            *self.own.borrow_mut() = Some(m);
            return a.map(|a| take(&a));
        }
        // the run leaves the record: its own workload, brought to this point
        let before: Vec<Call> = r.log[..pos].iter().map(|e| e.0.clone()).collect();
        let build = r.build.clone();
        drop(r);
        let mut w = build().map_err(|e| WorkloadError::Msg(format!("{e:#}")))?;
        for c in &before {
            apply(&mut *w, c)?;
        }
        let a = apply(&mut *w, &call);
        *self.own.borrow_mut() = Some(w);
        a.map(|a| take(&a))
    }
}

impl Workload for Replayed {
    fn name(&self) -> &str {
        &self.name
    }
    fn objects(&self) -> &[DataObject] {
        &self.objects
    }
    fn begin_launch(&mut self) -> Result<Option<KernelInfo>, WorkloadError> {
        self.step(Call::Begin, |a| match a {
            Answer::Begin(i) => i.clone(),
            _ => unreachable!("a Begin call is answered by a launch"),
        })
    }
    fn gen_block(
        &mut self,
        block: u64,
        probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError> {
        if let Some(w) = self.own.get_mut().as_mut() {
            return w.gen_block(block, probe, line_bytes, out);
        }
        let call = Call::Block {
            block,
            probe,
            line: line_bytes,
            lanes: out.record_lanes,
            markers: out.offload_markers,
            limit: out.max_warp_insts,
        };
        self.step(call, |a| match a {
            Answer::Block(p) => out.clone_from(p),
            _ => unreachable!("a Block call is answered by a block"),
        })
    }
    fn launch_hints(&self) -> Vec<ProfileHint> {
        self.step(Call::Hints, |a| match a {
            Answer::Hints(h) => h.clone(),
            _ => unreachable!("a Hints call is answered by hints"),
        })
        .unwrap_or_default()
    }
    fn warnings(&self) -> Vec<String> {
        self.step(Call::Warnings, |a| match a {
            Answer::Warnings(h) => h.clone(),
            _ => unreachable!("a Warnings call is answered by warnings"),
        })
        .unwrap_or_default()
    }
    fn launch_writes(&mut self, compute: bool) -> Option<Vec<ObjId>> {
        self.step(Call::Writes(compute), |a| match a {
            Answer::Writes(w) => w.clone(),
            _ => unreachable!("a Writes call is answered by writes"),
        })
        .unwrap_or(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(bench: &'static str) -> Builder {
        Arc::new(move || {
            let p = [("n".to_string(), "64".to_string())].into_iter().collect();
            Ok(Box::new(locus_workload::registry::build(bench, &p, 1)?) as Box<dyn Workload>)
        })
    }

    /// Every block of every launch, generated with `line` byte lines.
    fn drain(w: &mut dyn Workload, line: u32) -> Vec<(String, Vec<Vec<WarpInst>>)> {
        let mut v = Vec::new();
        let mut p = BlockProgram::default();
        while let Some(k) = w.begin_launch().unwrap() {
            let _ = w.launch_writes(true);
            let n = k.grid.x as u64 * k.grid.y as u64 * k.grid.z as u64;
            for b in 0..n {
                w.gen_block(b, false, line, &mut p).unwrap();
                v.push((
                    format!("{}#{b}", k.name),
                    p.warps.iter().map(|w| w.insts.clone()).collect(),
                ));
            }
        }
        v
    }

    /// A replayed run gives the fresh workload's blocks: the first run records, a second
    /// identical run answers from the record alone, and a run with another line size leaves
    /// the record at its first block and still gets the fresh workload's blocks.
    #[test]
    fn replay_answers_what_a_fresh_workload_answers() {
        let build = builder("2mm");
        // kernel models number program counters by the source files this thread has seen
        // (model.rs `PcKeys`): a first drain makes every file known, so the drains below
        // compare blocks numbered alike
        drain(&mut *build().unwrap(), 64);
        let fresh = drain(&mut *build().unwrap(), 128);
        let rec = Record::new(build.clone()).unwrap();
        let mut a = Replayed::new(rec.clone());
        assert_eq!(drain(&mut a, 128), fresh);
        assert!(!a.alone());
        let calls = rec.lock().unwrap().calls();
        assert!(calls > 2);
        let mut b = Replayed::new(rec.clone());
        assert_eq!(drain(&mut b, 128), fresh);
        assert!(!b.alone());
        assert_eq!(
            rec.lock().unwrap().calls(),
            calls,
            "the second run only read"
        );
        let fresh64 = drain(&mut *build().unwrap(), 64);
        assert_ne!(fresh64, fresh);
        let mut c = Replayed::new(rec);
        assert_eq!(drain(&mut c, 64), fresh64);
        assert!(c.alone());
    }

    /// Records sharing a pool stop growing once the pool is full, still answer what a
    /// fresh workload answers, and give their bytes back when dropped.
    #[test]
    fn a_full_pool_stops_every_record_and_changes_no_answer() {
        let build = builder("2mm");
        drain(&mut *build().unwrap(), 64);
        let fresh = drain(&mut *build().unwrap(), 128);
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(0)));
        let a_rec = Record::in_pool(build.clone(), pool).unwrap();
        let mut a = Replayed::new(a_rec.clone());
        assert_eq!(drain(&mut a, 128), fresh);
        // the first block filled the pool: the run went on alone with the master
        assert!(a.alone());
        let held = pool.used();
        assert!(held > 0);
        let b_rec = Record::in_pool(build.clone(), pool).unwrap();
        let mut b = Replayed::new(b_rec.clone());
        assert_eq!(drain(&mut b, 128), fresh);
        assert!(b.alone());
        assert_eq!(pool.used(), held, "the second record could not grow at all");
        // a later run of the first workload replays what was recorded, then goes alone
        let mut c = Replayed::new(a_rec.clone());
        assert_eq!(drain(&mut c, 128), fresh);
        drop((a, b, c, a_rec, b_rec));
        assert_eq!(pool.used(), 0);
    }
}
