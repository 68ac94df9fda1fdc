//! The kernel API: a benchmark is per-thread Rust code over named data objects.
//!
//! A [`Kernel`] runs each thread functionally on the real data in [`Memory`]; every load,
//! store, atomic, ALU operation and barrier it performs is recorded through [`Thread`]. Locus
//! then forms warps of 32 threads (x fastest), issues their operations as a reconverging
//! SIMT execution does ([`Merge::Reconverge`], issue 8: at each step the lanes whose next
//! operation has the smallest program counter, the recording call's source position, issue
//! it together; the others wait, so lanes reconverge after an `if` body or a loop with
//! per-lane trip counts; `--param merge=positional` aligns them position by position
//! instead, the model before issue 8) and coalesces each memory instruction's lane addresses
//! into line requests.
//!
//! Program counters cost nothing in converged code: only when a warp's waiting lanes are at
//! different operations are their sites turned into `(file rank, line, column)` keys; the
//! files are identified and ranked by name (`note_file`, once per distinct file:
//! `site_of` compares the file name's address with the previous call's), so the order
//! never depends on where, or in how many copies, the file names lie in the binary.
//!
//! Kernels compute (issue 7 §1): every instruction a thread records is issued and timed.
//! Dependences follow these rules, documented so kernels can be written faithfully from
//! their compiled code (SASS):
//! - a load's value is usable only when the load completes: the first compute instruction,
//!   store or atomic after a load waits for every outstanding load of the warp (the
//!   scoreboard), so consecutive loads issue back to back like hoisted loads;
//! - compute instructions (`alu`, `fp`, `sfu`, `branch`) write a result register and form
//!   a dependency chain in program order: each waits for the previous compute instruction's
//!   result for its class latency (`sm.int_latency`, `fp_latency`, `sfu_latency`,
//!   `branch_latency` of the preset, the same latencies that time traces);
//! - a load or store waits for the previous compute instruction (its address arithmetic).
//!
//! So write the address arithmetic of an indirect access as `t.alu(1)` between the load of
//! the index and the dependent load, as the real code does, and record per thread the
//! instructions its compiled kernel executes (address arithmetic, loop control, predicates,
//! conversions): docs/workloads.md lists each model's warp instructions per memory
//! instruction.
//!
//! Barriers: a kernel declares `phases()`; phase `p` of every thread of the block runs before
//! phase `p + 1`, and a `__syncthreads()` separates them, so shared-memory tiling works.

use crate::memory::{Elem, Memory};
use crate::program::{
    coalesce, BlockProgram, DataObject, Dim3, InstClass, KernelInfo, LaneAddr, ObjId, ProfileHint,
    Reg, Space, WarpInst, WarpProgram, Workload, WorkloadError, REG_ALL,
};
use std::panic::Location;

/// One recorded operation of one thread.
#[derive(Clone, Copy, Debug)]
struct Op {
    site: u64,
    class: InstClass,
    space: Space,
    obj: ObjId,
    bytes: u16,
    addr: u64,
    /// 0: an instruction; [`MARK_BEGIN`] / [`MARK_END`]: an offload-block marker.
    mark: u8,
    /// How many operations from this one on (this one included, at most 255) are copies of
    /// it: the rest of one `alu(n)`-like call's run, else 1. The merge issues such a run's
    /// instructions in one step ([`Emit::run_len`]) instead of one step per operation.
    run: u8,
}

/// `Op::mark` of `Thread::ofld_begin` (obj = block, bytes = live-ins | NSU insts << 8).
const MARK_BEGIN: u8 = 1;
/// `Op::mark` of `Thread::ofld_end` (bytes = live-outs).
const MARK_END: u8 = 2;

#[inline(always)]
/// A call site as a number: `(file id << 32) | (line << 16) | column`, where the file id is a
/// hash of the file's *name* ([`file_id`]), so sites are equal exactly for equal (file, line,
/// column) whatever address, or how many copies, the file name has in this build (a debug
/// build with several codegen units holds one copy of a name per unit: keyed by address, one
/// barrier reached through two copies was two program counters, and a warp issued it twice).
fn site_of(loc: &'static Location<'static>) -> u64 {
    let name = loc.file();
    // one thread-local read per recorded operation: the last file and the names switch
    let (ptr, len, last, names) = LAST_FILE.with(|f| f.get());
    let id = if ptr == name.as_ptr() as u64 && len == name.len() as u64 {
        last
    } else {
        note_file(name)
    };
    let site =
        ((id as u64) << 32) | ((loc.line() as u64 & 0xFFFF) << 16) | (loc.column() as u64 & 0xFFFF);
    if names {
        SITE_NAMES.with(|m| {
            m.borrow_mut().entry(site).or_insert(loc);
        });
    }
    site
}

/// The id of a source file in a site: FNV-1a (32 bits) of its name, the same in every build
/// and thread.
fn file_id(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// A source file of recorded call sites: its id in a site ([`file_id`]), its name and its
/// rank among the files seen so far, by name.
#[derive(Clone, Copy)]
struct FileEntry {
    key: u32,
    name: &'static str,
    rank: u32,
}

/// Register the file `name` in [`FILES`] (once per distinct name and thread; [`site_of`]
/// calls it only when the name's address differs from the previous call's) and re-rank the
/// files by name, so program-counter order ([`PcKeys`]) never depends on the binary's layout.
/// Returns the file's id.
#[cold]
#[inline(never)]
fn note_file(name: &'static str) -> u32 {
    let id = file_id(name);
    LAST_FILE.with(|f| {
        let names = f.get().3;
        f.set((name.as_ptr() as u64, name.len() as u64, id, names))
    });
    FILES.with(|fs| {
        let mut fs = fs.borrow_mut();
        if let Some(e) = fs.iter().find(|e| e.key == id) {
            assert_eq!(
                e.name, name,
                "two kernel-model source files hash to one id: rename one"
            );
            return;
        }
        fs.push(FileEntry {
            key: id,
            name,
            rank: 0,
        });
        let mut by_name: Vec<usize> = (0..fs.len()).collect();
        by_name.sort_by(|&a, &b| fs[a].name.cmp(fs[b].name));
        for (r, i) in by_name.into_iter().enumerate() {
            fs[i].rank = r as u32;
        }
    });
    id
}

/// The program counters of one warp's sites: the ranked files, copied once per warp phase
/// that needs them (divergent code only), with the last file looked up cached.
struct PcKeys {
    files: Vec<FileEntry>,
    last: FileEntry,
}

impl PcKeys {
    fn new() -> Self {
        let files = FILES.with(|fs| fs.borrow().clone());
        let last = files.first().copied().unwrap_or(FileEntry {
            key: 0,
            name: "",
            rank: 0,
        });
        PcKeys { files, last }
    }
    /// The program counter of `site` as an ordered key: (file rank by name, line, column).
    #[inline]
    fn key(&mut self, site: u64) -> u64 {
        let k = (site >> 32) as u32;
        if self.last.key != k {
            if let Some(e) = self.files.iter().find(|e| e.key == k) {
                self.last = *e;
            }
        }
        ((self.last.rank as u64) << 32) | (site & 0xFFFF_FFFF)
    }
}

thread_local! {
    /// The file of the last call site [`site_of`] saw: its name's address and length, and
    /// its id; and whether [`site_of`] records each site's source location (only while
    /// [`ModelWorkload::gen_block_split`] runs, on its thread; [`set_site_names`]).
    static LAST_FILE: std::cell::Cell<(u64, u64, u32, bool)> =
        const { std::cell::Cell::new((0, 0, 0, false)) };
    /// The files of the call sites recorded on this thread ([`note_file`]).
    static FILES: std::cell::RefCell<Vec<FileEntry>> = const { std::cell::RefCell::new(Vec::new()) };
    static SITE_NAMES: std::cell::RefCell<std::collections::HashMap<u64, &'static Location<'static>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Switch [`site_of`]'s recording of source locations on this thread.
fn set_site_names(on: bool) {
    LAST_FILE.with(|f| {
        let (ptr, len, id, _) = f.get();
        f.set((ptr, len, id, on))
    });
}

/// `file:line:column` of a call site recorded while [`set_site_names`] was on.
fn site_name(site: u64) -> String {
    SITE_NAMES.with(|m| {
        m.borrow().get(&site).map_or_else(
            || "?".to_string(),
            |l| format!("{}:{}:{}", l.file(), l.line(), l.column()),
        )
    })
}

/// The view one thread has while it runs: its indices and the recording memory interface.
pub struct Thread<'a> {
    /// `blockIdx`.
    pub block: Dim3,
    /// `threadIdx`.
    pub tid: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
    /// `gridDim`.
    pub grid_dim: Dim3,
    mem: &'a mut Memory,
    smem: &'a mut Vec<u32>,
    ops: &'a mut Vec<Op>,
    probe: bool,
    /// Record offload markers (`BlockProgram::offload_markers`).
    marks: bool,
    /// Record at most this many operations (`BlockProgram::max_warp_insts`); the thread
    /// still runs to its end. `usize::MAX`: all.
    room: usize,
    /// An operation was not recorded for want of room.
    overflow: bool,
    /// An offload marker was recorded (so the merge need not look for one).
    marked: bool,
    /// Follow mode ([`Follow`]): while this lane records what the warp's lane 0 recorded,
    /// only its addresses are kept.
    follow: Option<Follow<'a>>,
    /// Lane 0 of a warp recorded in follow mode: the call site (`Location` address) of each
    /// operation it records, beside `ops` ([`Follow::locs`]).
    locs: Option<&'a mut Vec<usize>>,
}

/// A lane recording in *follow mode* (host speed only): while each operation it records is
/// a copy of the operation lane 0 of its warp recorded at the same position (every field
/// but the address, [`Op::copy_of`]), the lane writes no operation, only each memory
/// operation's address, into its column of the warp's address table
/// ([`Scratch::follow_addrs`]: a column per lane, a row per memory operation of lane 0, so
/// a lane writes its addresses one after the other). At its first operation that is no
/// copy, and at its end if it recorded fewer operations than lane 0, the lane's list is
/// written out as it would have been recorded ([`materialize`]) and it records normally
/// from there.
///
/// A warp whose lanes all followed to the end is emitted from lane 0's list and the table
/// ([`merge_converged`]); otherwise the reconverging merge reads lane 0's list for the
/// lanes that followed, with their addresses from the table ([`Clones`]), and their own
/// lists for the others. Converged code (GEMM, SpMV-JDS, convolutions) then writes 8 bytes
/// per memory operation and lane instead of a 24-byte operation per operation and lane;
/// a large block's lists exceeded the host caches (gemm: about 120 KB per lane), and
/// writing and reading them was a quarter of a compute-heavy kernel's generation time
/// (BENCHMARKS.md, session 22). The warp's instructions are the same either way (test
/// `follow_mode_programs_equal_recorded_ones`). A warp in which a lane left follow mode
/// records its next [`FOLLOW_BACKOFF`] turns without it.
struct Follow<'a> {
    /// Lane 0's operations.
    lead: &'a [Op],
    /// The address of each of lane 0's operations' call site (`&'static Location`), so a
    /// follower's operation from the same site matches without [`site_of`] (host speed only:
    /// equal addresses are equal sites; unequal ones, possible in a build holding several
    /// copies of a location, fall back to comparing sites).
    locs: &'a [usize],
    /// This lane's column of the address table (a slot per memory operation of `lead`).
    addrs: &'a mut [u64],
    /// Operations matched so far (the next one's position in `lead`).
    pos: usize,
    /// Memory operations matched so far (the next one's row).
    mem: usize,
}

/// A lane's operation list rebuilt from follow mode: the first `upto` operations of lane 0
/// (`lead`) with the lane's own addresses (its column `addrs`, [`Follow`]) on the memory
/// ones.
fn materialize(lead: &[Op], upto: usize, addrs: &[u64], out: &mut Vec<Op>) {
    out.clear();
    out.reserve(upto);
    let mut m = 0;
    for op in &lead[..upto] {
        let mut op = *op;
        if op.class.is_mem() {
            op.addr = addrs[m];
            m += 1;
        }
        out.push(op);
    }
}

impl Op {
    /// `self` is `o` at another address: every other field equal (follow mode).
    #[inline(always)]
    fn copy_of(&self, o: &Op) -> bool {
        self.site == o.site
            && self.class == o.class
            && self.space == o.space
            && self.obj == o.obj
            && self.bytes == o.bytes
            && self.mark == o.mark
            && self.run == o.run
    }
}

impl<'a> Thread<'a> {
    /// Linear thread index inside the block (x fastest).
    pub fn local_id(&self) -> u64 {
        self.block_dim.linear(self.tid)
    }
    /// Linear block index inside the grid (row-major, x fastest).
    pub fn block_id(&self) -> u64 {
        self.grid_dim.linear(self.block)
    }
    /// `blockIdx.x * blockDim.x + threadIdx.x`.
    pub fn gx(&self) -> u64 {
        self.block.x as u64 * self.block_dim.x as u64 + self.tid.x as u64
    }
    /// `blockIdx.y * blockDim.y + threadIdx.y`.
    pub fn gy(&self) -> u64 {
        self.block.y as u64 * self.block_dim.y as u64 + self.tid.y as u64
    }
    /// Global linear thread id: `block_id * threads_per_block + local_id`.
    pub fn gid(&self) -> u64 {
        self.block_id() * self.block_dim.count() + self.local_id()
    }
    /// Total threads in the grid.
    pub fn total_threads(&self) -> u64 {
        self.grid_dim.count() * self.block_dim.count()
    }
    /// Number of elements of `T` in object `o`.
    pub fn len<T: Elem>(&self, o: ObjId) -> u64 {
        self.mem.len::<T>(o)
    }
    /// Read element `idx` of `o` without recording (host-visible constant, e.g. a kernel
    /// parameter already in registers). Use sparingly.
    pub fn peek<T: Elem>(&self, o: ObjId, idx: u64) -> T {
        self.mem.get(o, idx)
    }

    /// Operations recorded so far (in follow mode, matched).
    #[inline(always)]
    fn recorded(&self) -> usize {
        match &self.follow {
            Some(f) => f.pos,
            None => self.ops.len(),
        }
    }

    /// Leave follow mode: write out the operations matched so far ([`materialize`]).
    #[cold]
    fn unfollow(&mut self) {
        if let Some(f) = self.follow.take() {
            materialize(f.lead, f.pos, f.addrs, self.ops);
        }
    }

    /// Record a memory operation. A lane in follow mode whose operation is lane 0's at the
    /// same position from the same call site only writes its address (inlined: no site
    /// number, no operation built); anything else takes [`Thread::rec_op`].
    #[inline(always)]
    fn rec(
        &mut self,
        at: &'static Location<'static>,
        class: InstClass,
        space: Space,
        obj: ObjId,
        addr: u64,
        bytes: usize,
    ) {
        if let Some(f) = &mut self.follow {
            // (`pos < lead.len()` implies room: lane 0 recorded at most `room` operations)
            if let (Some(l), Some(&loc)) = (f.lead.get(f.pos), f.locs.get(f.pos)) {
                if loc == at as *const Location as usize
                    && l.class == class
                    && l.space == space
                    && l.obj == obj
                    && l.bytes == bytes as u16
                    && l.mark == 0
                    && l.run == 1
                {
                    f.addrs[f.mem] = addr;
                    f.mem += 1;
                    f.pos += 1;
                    return;
                }
            }
        }
        self.rec_op(at, class, space, obj, addr, bytes);
    }

    /// [`Thread::rec`] in full: the operation built with its site number, matched against
    /// lane 0's in follow mode, else appended.
    #[inline(never)]
    fn rec_op(
        &mut self,
        at: &'static Location<'static>,
        class: InstClass,
        space: Space,
        obj: ObjId,
        addr: u64,
        bytes: usize,
    ) {
        if self.recorded() >= self.room {
            self.overflow = true;
            return;
        }
        let op = Op {
            site: site_of(at),
            class,
            space,
            obj,
            bytes: bytes as u16,
            addr,
            mark: 0,
            run: 1,
        };
        if let Some(f) = &mut self.follow {
            if f.lead.get(f.pos).is_some_and(|l| l.copy_of(&op)) {
                // (`rec` records memory operations only)
                f.addrs[f.mem] = addr;
                f.mem += 1;
                f.pos += 1;
                return;
            }
            self.unfollow();
        }
        self.ops.push(op);
        if let Some(l) = &mut self.locs {
            l.push(at as *const Location as usize);
        }
    }

    /// `n` compute operations of class `class` at `site` (one reservation for all of them).
    /// A lane in follow mode whose lane 0 opened a run of exactly `n` such operations from
    /// the same call site at the same position matches them at once (inlined, as in
    /// [`Thread::rec`]); anything else takes [`Thread::rec_ops`].
    #[inline(always)]
    fn rec_n(&mut self, at: &'static Location<'static>, class: InstClass, n: u32) {
        if let Some(f) = &mut self.follow {
            if let (Some(l), Some(&loc)) = (f.lead.get(f.pos), f.locs.get(f.pos)) {
                // (a run of `n` below the cap: lane 0 recorded its `n` copies, so the room
                // holds them too)
                if n < 255
                    && loc == at as *const Location as usize
                    && l.run as u32 == n
                    && l.class == class
                    && l.space == Space::Global
                    && l.obj == 0
                    && l.bytes == 0
                    && l.mark == 0
                {
                    f.pos += n as usize;
                    return;
                }
            }
        }
        self.rec_ops(at, class, n);
    }

    /// [`Thread::rec_n`] in full.
    #[inline(never)]
    fn rec_ops(&mut self, at: &'static Location<'static>, class: InstClass, n: u32) {
        let free = self.room.saturating_sub(self.recorded());
        let n = if (n as usize) > free {
            self.overflow = true;
            free as u32
        } else {
            n
        };
        if n == 0 {
            return;
        }
        let site = site_of(at);
        let op = |left: u32| Op {
            site,
            class,
            space: Space::Global,
            obj: 0,
            bytes: 0,
            addr: 0,
            mark: 0,
            run: left.min(255) as u8,
        };
        let mut left = n;
        if let Some(f) = &mut self.follow {
            if n < 255 && f.lead.get(f.pos).is_some_and(|l| l.copy_of(&op(n))) {
                // lane 0's operation there opens a run of exactly `n` copies left (its
                // `run`, below the cap, counts them): the `n` copies match at once
                f.pos += n as usize;
                return;
            }
            while left > 0 && f.lead.get(f.pos).is_some_and(|l| l.copy_of(&op(left))) {
                f.pos += 1;
                left -= 1;
            }
            if left == 0 {
                return;
            }
            self.unfollow();
        }
        self.ops.reserve(left as usize);
        for left in (1..=left).rev() {
            self.ops.push(op(left));
        }
        if let Some(l) = &mut self.locs {
            l.extend(std::iter::repeat_n(
                at as *const Location as usize,
                left as usize,
            ));
        }
    }

    /// Whether this block records NDP offload markers (`BlockProgram::offload_markers`: an
    /// NDP machine). A model whose offload block is one iteration of a loop that nvcc
    /// unrolls keeps that loop rolled while markers are recorded: the NDP compiler pass
    /// (spec ndp.md §3.3) delimits its blocks on the loop body, one iteration each, and a
    /// block may not span iterations. Without markers the model issues the unrolled
    /// schedule of the compiled kernel (its loads hoisted ahead of their uses).
    #[inline]
    pub fn offload_markers(&self) -> bool {
        self.marks
    }

    /// `OFLD.BEG` (NDP, spec ndp.md §3.4): the instructions until [`Thread::ofld_end`]
    /// form an instance of offload block `block` of this kernel, with `live_ins` registers
    /// per thread sent to the NSU and `nsu_insts` instructions run there (the block's
    /// loads, stores and `@NSU` compute; address arithmetic stays on the GPU). No effect
    /// unless the block is generated with `BlockProgram::offload_markers`.
    #[track_caller]
    #[inline]
    pub fn ofld_begin(&mut self, block: u8, live_ins: u8, nsu_insts: u8) {
        self.mark_begin(Location::caller(), block, live_ins, nsu_insts, 1);
    }

    /// `OFLD.BEG` of a block that spans a loop: the GPU keeps the loop control and the
    /// address arithmetic, the NSU runs the loop body's `body_insts` static instructions
    /// `iters` times (Rodinia kmeans' feature loop, spec ndp.md Table 1 KMN: 3). Ends at
    /// [`Thread::ofld_end`] like any block.
    #[track_caller]
    #[inline]
    pub fn ofld_begin_loop(&mut self, block: u8, live_ins: u8, body_insts: u8, iters: u16) {
        self.mark_begin(
            Location::caller(),
            block,
            live_ins,
            body_insts,
            iters.max(1),
        );
    }

    /// A lane in follow mode at an offload marker: if lane 0's operation at the same
    /// position is the same marker from the same call site (every field: a marker has no
    /// per-lane address), take it and answer `true`; otherwise `false` (the caller leaves
    /// follow mode and records the marker itself).
    #[inline]
    fn follow_marker(
        &mut self,
        at: &'static Location<'static>,
        mark: u8,
        obj: ObjId,
        bytes: u16,
        addr: u64,
    ) -> bool {
        let Some(f) = &mut self.follow else {
            return false;
        };
        let (Some(l), Some(&loc)) = (f.lead.get(f.pos), f.locs.get(f.pos)) else {
            return false;
        };
        let same = loc == at as *const Location as usize
            && l.mark == mark
            && l.class == InstClass::Branch
            && l.space == Space::Global
            && l.obj == obj
            && l.bytes == bytes
            && l.addr == addr
            && l.run == 1;
        if same {
            f.pos += 1;
            self.marked = true;
        }
        same
    }

    #[inline]
    fn mark_begin(
        &mut self,
        at: &'static Location<'static>,
        block: u8,
        live_ins: u8,
        nsu_insts: u8,
        iters: u16,
    ) {
        if self.marks {
            let bytes = live_ins as u16 | (nsu_insts as u16) << 8;
            if self.follow_marker(at, MARK_BEGIN, block as ObjId, bytes, iters as u64) {
                return;
            }
            self.unfollow();
            self.marked = true;
            self.ops.push(Op {
                site: site_of(at),
                class: InstClass::Branch,
                space: Space::Global,
                obj: block as ObjId,
                bytes,
                addr: iters as u64,
                mark: MARK_BEGIN,
                run: 1,
            });
            if let Some(l) = &mut self.locs {
                l.push(at as *const Location as usize);
            }
        }
    }

    /// `OFLD.END`: the end of the offload block begun last, with `live_outs` registers per
    /// thread returned in the offload ack. No effect unless markers are recorded.
    #[track_caller]
    #[inline]
    pub fn ofld_end(&mut self, live_outs: u8) {
        if self.marks {
            let at = Location::caller();
            if self.follow_marker(at, MARK_END, 0, live_outs as u16, 0) {
                return;
            }
            self.unfollow();
            self.marked = true;
            if let Some(l) = &mut self.locs {
                l.push(at as *const Location as usize);
            }
            self.ops.push(Op {
                site: site_of(at),
                class: InstClass::Branch,
                space: Space::Global,
                obj: 0,
                bytes: live_outs as u16,
                addr: 0,
                mark: MARK_END,
                run: 1,
            });
        }
    }

    /// Global load of element `idx` of `o`.
    #[track_caller]
    #[inline(always)]
    pub fn ld<T: Elem>(&mut self, o: ObjId, idx: u64) -> T {
        let a = self.mem.addr(o, idx, T::SIZE);
        self.rec(
            Location::caller(),
            InstClass::Load,
            Space::Global,
            o,
            a,
            T::SIZE,
        );
        self.mem.get(o, idx)
    }
    /// Load through the texture / read-only path (e.g. `tex1Dfetch`, `__ldg`).
    #[track_caller]
    #[inline(always)]
    pub fn ld_tex<T: Elem>(&mut self, o: ObjId, idx: u64) -> T {
        let a = self.mem.addr(o, idx, T::SIZE);
        self.rec(
            Location::caller(),
            InstClass::Load,
            Space::Texture,
            o,
            a,
            T::SIZE,
        );
        self.mem.get(o, idx)
    }
    /// Load from constant memory (`__constant__`).
    #[track_caller]
    #[inline(always)]
    pub fn ld_const<T: Elem>(&mut self, o: ObjId, idx: u64) -> T {
        let a = self.mem.addr(o, idx, T::SIZE);
        self.rec(
            Location::caller(),
            InstClass::Load,
            Space::Constant,
            o,
            a,
            T::SIZE,
        );
        self.mem.get(o, idx)
    }
    /// Global store.
    #[track_caller]
    #[inline(always)]
    pub fn st<T: Elem>(&mut self, o: ObjId, idx: u64, v: T) {
        let a = self.mem.addr(o, idx, T::SIZE);
        self.rec(
            Location::caller(),
            InstClass::Store,
            Space::Global,
            o,
            a,
            T::SIZE,
        );
        if !self.probe {
            self.mem.set(o, idx, v);
        }
    }
    /// Generic atomic read-modify-write: returns the old value, stores `f(old)`.
    #[track_caller]
    #[inline]
    pub fn atomic<T: Elem>(&mut self, o: ObjId, idx: u64, f: impl FnOnce(T) -> T) -> T {
        let a = self.mem.addr(o, idx, T::SIZE);
        self.rec(
            Location::caller(),
            InstClass::Atomic,
            Space::Global,
            o,
            a,
            T::SIZE,
        );
        let old: T = self.mem.get(o, idx);
        if !self.probe {
            self.mem.set(o, idx, f(old));
        }
        old
    }
    /// `atomicAdd` on u32.
    #[track_caller]
    pub fn atomic_add_u32(&mut self, o: ObjId, idx: u64, v: u32) -> u32 {
        self.atomic::<u32>(o, idx, |x| x.wrapping_add(v))
    }
    /// `atomicAdd` on f32.
    #[track_caller]
    pub fn atomic_add_f32(&mut self, o: ObjId, idx: u64, v: f32) -> f32 {
        self.atomic::<f32>(o, idx, |x| x + v)
    }
    /// `atomicMin` on u32.
    #[track_caller]
    pub fn atomic_min_u32(&mut self, o: ObjId, idx: u64, v: u32) -> u32 {
        self.atomic::<u32>(o, idx, |x| x.min(v))
    }
    /// Record one shared-memory access of `bytes` bytes at byte offset `off` from `site`.
    fn rec_shared(
        &mut self,
        at: &'static Location<'static>,
        class: InstClass,
        off: u64,
        bytes: usize,
    ) {
        self.rec(at, class, Space::Shared, crate::program::NO_OBJ, off, bytes);
    }
    /// Shared-memory load of 32-bit word `idx` (per-block scratch, on chip).
    #[track_caller]
    pub fn sh_ld(&mut self, idx: u32) -> u32 {
        self.rec_shared(Location::caller(), InstClass::Load, idx as u64 * 4, 4);
        self.smem.get(idx as usize).copied().unwrap_or(0)
    }
    /// Shared-memory load as f32.
    #[track_caller]
    pub fn sh_ld_f32(&mut self, idx: u32) -> f32 {
        f32::from_bits(self.sh_ld(idx))
    }
    /// Shared-memory load of the four f32 words `idx .. idx + 4` (`idx` a multiple of 4):
    /// one `LDS.128`, as the compiler reads a row of an unrolled shared tile (the CUDA
    /// sample matrixMul's `As[ty][k]`, seen in H100 SASS: validation/gpu/h100/sass.txt).
    #[track_caller]
    pub fn sh_ld_f32x4(&mut self, idx: u32) -> [f32; 4] {
        debug_assert!(idx.is_multiple_of(4), "LDS.128 needs 16-byte alignment");
        self.rec_shared(Location::caller(), InstClass::Load, idx as u64 * 4, 16);
        std::array::from_fn(|i| {
            f32::from_bits(self.smem.get(idx as usize + i).copied().unwrap_or(0))
        })
    }
    /// Shared-memory store of 32-bit word `idx`.
    #[track_caller]
    pub fn sh_st(&mut self, idx: u32, v: u32) {
        self.rec_shared(Location::caller(), InstClass::Store, idx as u64 * 4, 4);
        let i = idx as usize;
        if i >= self.smem.len() {
            self.smem.resize(i + 1, 0);
        }
        self.smem[i] = v;
    }
    /// Shared-memory store of an f32.
    #[track_caller]
    pub fn sh_st_f32(&mut self, idx: u32, v: f32) {
        self.sh_st(idx, v.to_bits())
    }
    /// Shared-memory load of the f64 at 8-byte slot `idx` (words `2 idx`, `2 idx + 1`): one
    /// `LDS.64`, as a `volatile __shared__ double` array compiles (miniFE's `dot_kernel`).
    #[track_caller]
    pub fn sh_ld_f64(&mut self, idx: u32) -> f64 {
        self.rec_shared(Location::caller(), InstClass::Load, idx as u64 * 8, 8);
        let w = |i: usize| self.smem.get(i).copied().unwrap_or(0) as u64;
        let i = 2 * idx as usize;
        f64::from_bits(w(i) | (w(i + 1) << 32))
    }
    /// Shared-memory store of an f64 at 8-byte slot `idx`: one `STS.64`.
    #[track_caller]
    pub fn sh_st_f64(&mut self, idx: u32, v: f64) {
        self.rec_shared(Location::caller(), InstClass::Store, idx as u64 * 8, 8);
        let i = 2 * idx as usize;
        if i + 1 >= self.smem.len() {
            self.smem.resize(i + 2, 0);
        }
        let b = v.to_bits();
        self.smem[i] = b as u32;
        self.smem[i + 1] = (b >> 32) as u32;
    }
    /// `n` integer ALU instructions (address arithmetic, compares, loop control).
    #[track_caller]
    pub fn alu(&mut self, n: u32) {
        let s = Location::caller();
        self.rec_n(s, InstClass::Int, n);
    }
    /// `n` floating-point instructions.
    #[track_caller]
    pub fn fp(&mut self, n: u32) {
        let s = Location::caller();
        self.rec_n(s, InstClass::Fp, n);
    }
    /// `n` special-function instructions (sqrt, exp, division).
    #[track_caller]
    pub fn sfu(&mut self, n: u32) {
        let s = Location::caller();
        self.rec_n(s, InstClass::Sfu, n);
    }
    /// `n` control instructions (branches, predicated exits, loop back-edges, `BRA`/`BSSY`).
    #[track_caller]
    pub fn branch(&mut self, n: u32) {
        let s = Location::caller();
        self.rec_n(s, InstClass::Branch, n);
    }
}

/// A kernel: launch shape plus per-thread code.
pub trait Kernel: Send + Sync {
    fn info(&self) -> KernelInfo;
    /// Number of `__syncthreads()`-separated phases (>= 1).
    fn phases(&self) -> u32 {
        1
    }
    /// Run phase `phase` of one thread.
    fn thread(&self, t: &mut Thread<'_>, phase: u32);
    /// Profiler hints for input-dependent objects (CODA §4.3.2 profiler path).
    fn profile_hints(&self, _mem: &Memory) -> Vec<ProfileHint> {
        Vec::new()
    }
    /// The named arrays of the block's shared memory (byte offsets: word `i` of
    /// [`Thread::sh_ld`] is byte `4 i`); empty (the default) when not declared.
    fn shared_arrays(&self) -> Vec<crate::program::SharedArray> {
        Vec::new()
    }
    /// The data objects this launch may write (global stores and atomics), declared before
    /// it runs: every other object is read-only in it (issue 7 §4's per-kernel read-only
    /// bit). `None` (the default): not declared; a policy that needs the bit then gets it
    /// from a functional dry run ([`crate::Workload::launch_writes`]). A declaration may
    /// name more objects than a launch writes, never fewer: the simulator refuses a run in
    /// which a kernel wrote an object it declared read-only.
    fn writes(&self) -> Option<Vec<ObjId>> {
        None
    }
}

/// The host side of a benchmark: decides the next launch from the results so far.
pub trait Host: Send {
    /// The next kernel to launch, or `None` when the program is done. May update memory the
    /// way host code would between launches (cudaMemcpy of a flag, pointer swaps).
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>>;
}

/// A workload made of kernel models and a host program.
pub struct ModelWorkload {
    name: String,
    mem: Memory,
    host: Box<dyn Host>,
    scratch: Scratch,
    cur: Option<(Box<dyn Kernel>, KernelInfo)>,
    merge: Merge,
}

/// How the lanes' recorded operations form warp instructions (issue 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Merge {
    /// The default, what the hardware does: a SIMT execution that reconverges at a
    /// branch's immediate post-dominator (Fung et al., MICRO 2007, §3), by min-PC
    /// scheduling: at each step the lanes whose next operation has the smallest program
    /// counter (the recording call's source position: file ranked by name, line, column)
    /// issue it together as one warp instruction (lanes at the same program counter with a
    /// different class or space as separate instructions), the others wait. A lane that
    /// skipped an `if` body or left a loop early waits at the code after it.
    #[default]
    Reconverge,
    /// The lanes' operation lists aligned position by position (the model before issue 8):
    /// after per-lane control flow inside shared code the lanes never line up again. Kept
    /// for before/after comparison (`--param merge=positional`).
    Positional,
}

impl Merge {
    /// Parse `reconverge` / `positional` (the `merge` workload parameter).
    pub fn parse(v: &str) -> Option<Merge> {
        match v {
            "reconverge" | "reconverging" => Some(Merge::Reconverge),
            "positional" => Some(Merge::Positional),
            _ => None,
        }
    }
}

#[derive(Default)]
struct Scratch {
    lanes: Vec<Vec<Op>>,
    smem: Vec<u32>,
    lane_addrs: Vec<(u64, u32)>,
    /// With offload markers: each lane's operations without its markers, and its markers
    /// with the position (in that list) of the operation they precede.
    plain: Vec<Vec<Op>>,
    marks: Vec<Vec<(u32, Op)>>,
    /// Follow mode's address table ([`Follow`]), grown, never shrunk.
    follow_addrs: Vec<u64>,
    /// Lane 0's call sites in follow mode ([`Follow::locs`]).
    lead_locs: Vec<usize>,
    /// Per operation of lane 0, its row in `follow_addrs` ([`Clones::row`]).
    follow_row: Vec<u32>,
    /// Per warp of the block: how many more of its turns record without follow mode
    /// (set after a turn in which a lane left it), so divergent kernels (bfs) do not pay
    /// for writing an operation list twice.
    follow_skip: Vec<u8>,
    /// Never record in follow mode (tests: the programs must not change).
    no_follow: bool,
}

impl ModelWorkload {
    pub fn new(name: &str, mem: Memory, host: Box<dyn Host>) -> Self {
        ModelWorkload {
            name: name.to_string(),
            mem,
            host,
            scratch: Scratch::default(),
            cur: None,
            merge: Merge::default(),
        }
    }
    /// Select how warps are formed ([`Merge`]; default: reconverging).
    pub fn set_merge(&mut self, m: Merge) {
        self.merge = m;
    }
    /// How warps are formed.
    /// Record without follow mode ([`Follow`]; host speed only, tests compare both).
    #[cfg(test)]
    pub(crate) fn set_follow(&mut self, on: bool) {
        self.scratch.no_follow = !on;
    }
    pub fn merge(&self) -> Merge {
        self.merge
    }
    pub fn memory(&self) -> &Memory {
        &self.mem
    }
    /// [`Workload::gen_block`] that also measures how the block's lanes' operation streams
    /// align ([`LaneSplit`], issue 8), added to `split`. The block's program, its functional
    /// effects and its instructions are exactly `gen_block`'s.
    pub fn gen_block_split(
        &mut self,
        block: u64,
        line_bytes: u32,
        out: &mut BlockProgram,
        split: &mut LaneSplit,
    ) -> Result<(), WorkloadError> {
        let Some((kernel, info)) = &self.cur else {
            return Err(WorkloadError::Msg(
                "gen_block_split called with no current launch".into(),
            ));
        };
        set_site_names(true);
        run_block(
            &**kernel,
            info,
            &mut self.mem,
            &mut self.scratch,
            block,
            false,
            line_bytes,
            out,
            Some(split),
            self.merge,
        );
        set_site_names(false);
        Ok(())
    }
}

impl Workload for ModelWorkload {
    fn name(&self) -> &str {
        &self.name
    }
    fn objects(&self) -> &[DataObject] {
        self.mem.objects()
    }
    fn begin_launch(&mut self) -> Result<Option<KernelInfo>, WorkloadError> {
        self.cur = None;
        let Some(kernel) = self.host.next_kernel(&mut self.mem) else {
            return Ok(None);
        };
        let info = kernel.info();
        if info.grid.count() == 0 || info.block.count() == 0 || info.block.count() > 1024 {
            return Err(WorkloadError::Msg(format!(
                "kernel {}: invalid launch shape grid {:?} block {:?}",
                info.name, info.grid, info.block
            )));
        }
        self.cur = Some((kernel, info.clone()));
        Ok(Some(info))
    }
    fn gen_block(
        &mut self,
        block: u64,
        probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError> {
        let Some((kernel, info)) = &self.cur else {
            return Err(WorkloadError::Msg(
                "gen_block called with no current launch".into(),
            ));
        };
        run_block(
            &**kernel,
            info,
            &mut self.mem,
            &mut self.scratch,
            block,
            probe,
            line_bytes,
            out,
            None,
            self.merge,
        );
        Ok(())
    }
    fn launch_hints(&self) -> Vec<ProfileHint> {
        match &self.cur {
            Some((k, _)) => k.profile_hints(&self.mem),
            None => Vec::new(),
        }
    }
    fn launch_shared_arrays(&self) -> Vec<crate::program::SharedArray> {
        self.cur
            .as_ref()
            .map_or_else(Vec::new, |(k, _)| k.shared_arrays())
    }
    fn launch_writes(&mut self, compute: bool) -> Option<Vec<ObjId>> {
        let (kernel, info) = self.cur.as_ref()?;
        let mut objs = match kernel.writes() {
            Some(w) => w,
            None if compute => dry_run(&**kernel, info, &self.mem, &mut self.scratch).1,
            None => return None,
        };
        objs.sort_unstable();
        objs.dedup();
        Some(objs)
    }
    fn launch_objects(&mut self) -> Option<Vec<(ObjId, u64)>> {
        let (kernel, info) = self.cur.as_ref()?;
        Some(dry_run(&**kernel, info, &self.mem, &mut self.scratch).0)
    }
}

/// The objects a launch accesses (any load, store or atomic outside shared memory), each
/// with the largest byte range one block's accesses to it span, and the objects it
/// writes, found by running every thread of every block functionally,
/// blocks in order and inside a block in the order [`run_block`] runs them, on a scratch
/// copy of `mem`: the same values are read and written as when the simulator generates the
/// blocks in order (fair round-robin), so the answer is exact for that order. Costs one
/// functional execution of the kernel and a copy of the memory.
fn dry_run(
    kernel: &dyn Kernel,
    info: &KernelInfo,
    mem: &Memory,
    sc: &mut Scratch,
) -> (Vec<(ObjId, u64)>, Vec<ObjId>) {
    let mut mem = mem.clone();
    let n = mem.objects().len();
    let mut written = vec![false; n];
    let mut accessed = vec![false; n];
    // the largest span over blocks, and this block's (first byte, one past the last)
    let mut span = vec![0u64; n];
    let mut range = vec![(u64::MAX, 0u64); n];
    let threads = info.threads_per_block() as u64;
    let phases = kernel.phases().max(1);
    let mut ops = Vec::new();
    for block in 0..info.num_blocks() {
        sc.smem.clear();
        range.fill((u64::MAX, 0));
        let bidx = info.grid.unlinear(block);
        for phase in 0..phases {
            for local in 0..threads {
                ops.clear();
                let mut t = Thread {
                    block: bidx,
                    tid: info.block.unlinear(local),
                    block_dim: info.block,
                    grid_dim: info.grid,
                    mem: &mut mem,
                    smem: &mut sc.smem,
                    ops: &mut ops,
                    room: usize::MAX,
                    overflow: false,
                    probe: false,
                    marks: false,
                    marked: false,
                    follow: None,
                    locs: None,
                };
                kernel.thread(&mut t, phase);
                for op in &ops {
                    if op.space == Space::Shared || !op.class.is_mem() {
                        continue;
                    }
                    if let Some(a) = accessed.get_mut(op.obj as usize) {
                        *a = true;
                        let r = &mut range[op.obj as usize];
                        r.0 = r.0.min(op.addr);
                        r.1 = r.1.max(op.addr + u64::from(op.bytes.max(1)));
                    }
                    if matches!(op.class, InstClass::Store | InstClass::Atomic) {
                        if let Some(w) = written.get_mut(op.obj as usize) {
                            *w = true;
                        }
                    }
                }
            }
        }
        for (s, r) in span.iter_mut().zip(&range) {
            if r.1 > r.0 {
                *s = (*s).max(r.1 - r.0);
            }
        }
    }
    let objs = (0..n as ObjId)
        .filter(|&o| accessed[o as usize])
        .map(|o| (o, span[o as usize]))
        .collect();
    let writes = (0..n as ObjId).filter(|&o| written[o as usize]).collect();
    (objs, writes)
}

#[allow(clippy::too_many_arguments)]
fn run_block(
    kernel: &dyn Kernel,
    info: &KernelInfo,
    mem: &mut Memory,
    sc: &mut Scratch,
    block: u64,
    probe: bool,
    line_bytes: u32,
    out: &mut BlockProgram,
    mut split: Option<&mut LaneSplit>,
    merge: Merge,
) {
    let threads = info.threads_per_block() as u64;
    let nwarps = info.warps_per_block() as usize;
    // per warp, its longest run of shifted positions over the phases (with `split`)
    let mut runs = vec![0u64; if split.is_some() { nwarps } else { 0 }];
    out.reset(nwarps);
    let out_lanes = out.record_lanes;
    let out_marks = out.offload_markers;
    if sc.lanes.len() < 32 {
        sc.lanes.resize_with(32, Vec::new);
    }
    sc.smem.clear();
    let bidx = info.grid.unlinear(block);
    let phases = kernel.phases().max(1);
    let mut regs: Vec<Regs> = vec![Regs::default(); nwarps];
    // `BlockProgram::max_warp_insts` (not with lanes, markers or a split measurement)
    let limit = if out_lanes || out_marks || split.is_some() {
        0
    } else {
        out.max_warp_insts as usize
    };
    // follow mode ([`Follow`]): the reconverging merge without lane addresses or a split
    // measurement (those read every lane's own list); offload markers are followed too
    // (`Thread::follow_marker`), and a marked warp is merged with its following lanes as
    // clones of lane 0 (the general merge handles the markers' block instances)
    let can_follow = merge == Merge::Reconverge && !out_lanes && split.is_none() && !sc.no_follow;
    if sc.follow_skip.len() < nwarps {
        sc.follow_skip.resize(nwarps, 0);
    }
    for phase in 0..phases {
        for (w, wp) in out.warps.iter_mut().enumerate() {
            // Each warp instruction takes at most one operation from a lane, so the first
            // `limit` instructions of the merge read at most `limit - before` operations
            // of each lane past those of the earlier phases; one more keeps a lane that
            // has more from looking finished. The prefix is the full program's.
            let room = if limit == 0 {
                usize::MAX
            } else if wp.truncated {
                0
            } else {
                (limit + 1).saturating_sub(wp.insts.len())
            };
            let mut overflow = false;
            let mut marked = false;
            // follow mode ([`Follow`]) for lanes 1.. unless this warp's last turns diverged
            let follow = can_follow && sc.follow_skip[w] == 0;
            // every lane recorded lane 0's operations (lanes 1.. in follow mode throughout)
            let mut converged = follow;
            // the lanes still in follow mode after their thread ran
            let mut following = 0u32;
            // lane 0's memory operations (follow mode's address table has a row per one)
            let mut rows = 0;
            {
                let (l0, rest) = sc.lanes.split_at_mut(1);
                let mut run = |lane: u64,
                               ops: &mut Vec<Op>,
                               follow: Option<Follow>,
                               locs: Option<&mut Vec<usize>>| {
                    let mut t = Thread {
                        block: bidx,
                        tid: info.block.unlinear(w as u64 * 32 + lane),
                        block_dim: info.block,
                        grid_dim: info.grid,
                        mem: &mut *mem,
                        smem: &mut sc.smem,
                        ops,
                        probe,
                        marks: out_marks,
                        room,
                        overflow: false,
                        marked: false,
                        follow,
                        locs,
                    };
                    kernel.thread(&mut t, phase);
                    if t.follow.as_ref().is_some_and(|f| f.pos < f.lead.len()) {
                        t.unfollow(); // fewer operations than lane 0
                    }
                    overflow |= t.overflow;
                    marked |= t.marked;
                    t.follow.is_some()
                };
                // lane 0 (every warp has it)
                l0[0].clear();
                sc.lead_locs.clear();
                run(0, &mut l0[0], None, follow.then_some(&mut sc.lead_locs));
                let lead: &[Op] = &l0[0];
                let locs: &[usize] = &sc.lead_locs;
                debug_assert!(!follow || locs.len() == lead.len());
                if follow {
                    rows = lead.iter().filter(|o| o.class.is_mem()).count();
                }
                if sc.follow_addrs.len() < rows * 32 {
                    sc.follow_addrs.resize(rows * 32, 0);
                }
                let mut columns = sc.follow_addrs[..rows * 32].chunks_mut(rows.max(1));
                columns.next(); // lane 0's (unused: its addresses are in `lead`)
                for lane in 1..32u64 {
                    let l = &mut rest[lane as usize - 1];
                    l.clear();
                    if w as u64 * 32 + lane >= threads {
                        continue;
                    }
                    let column = columns.next().unwrap_or_default();
                    let f = follow.then_some(Follow {
                        lead,
                        locs,
                        addrs: column,
                        pos: 0,
                        mem: 0,
                    });
                    if run(lane, l, f, None) {
                        following |= 1 << lane;
                    } else {
                        converged = false;
                    }
                }
                if following != 0 && (!converged || marked) {
                    // the general merge reads lane 0's list for the lanes still following
                    // (`Clones`): each operation's row in the address table
                    sc.follow_row.clear();
                    let mut r = 0u32;
                    sc.follow_row.extend(lead.iter().map(|o| {
                        r += o.class.is_mem() as u32;
                        r.wrapping_sub(1)
                    }));
                }
            }
            let clones = if converged && !marked {
                Clones::default()
            } else {
                Clones {
                    lanes: following,
                    table: &sc.follow_addrs,
                    rows,
                    row: &sc.follow_row,
                }
            };
            if can_follow {
                let skip = &mut sc.follow_skip[w];
                *skip = match (follow, converged) {
                    (true, true) => 0,
                    (true, false) => FOLLOW_BACKOFF,
                    (false, _) => skip.saturating_sub(1),
                };
            }
            if wp.truncated {
                // past the limit: the threads ran for their effects only
                continue;
            }
            let (mut phase_run, mut phase_at, mut phase_converged) = (0u64, 0u64, 0u64);
            if marked && (merge == Merge::Positional || split.is_some()) {
                // the markers leave the positional alignment: the warp's instructions are
                // those of the unmarked run, the blocks' lanes' ones first (merge_warp;
                // the reconverging merge reads the markers in place)
                sc.plain.resize_with(32, Vec::new);
                sc.marks.resize_with(32, Vec::new);
                for ((l, p), m) in sc.lanes.iter().zip(&mut sc.plain).zip(&mut sc.marks) {
                    p.clear();
                    m.clear();
                    for &o in l {
                        if o.mark != 0 {
                            m.push((p.len() as u32, o));
                        } else {
                            p.push(o);
                        }
                    }
                }
            }
            if let Some(sp) = split.as_deref_mut() {
                let present = (threads - (w as u64 * 32)).min(32) as u32;
                let present = if present == 32 {
                    u32::MAX
                } else {
                    (1 << present) - 1
                };
                let l = if marked { &sc.plain } else { &sc.lanes };
                let c0 = sp.converged;
                (phase_run, phase_at) = lane_split(l, present, sp);
                phase_converged = sp.converged - c0;
            }
            let before = wp.insts.len();
            match merge {
                Merge::Reconverge if converged && !marked => merge_converged(
                    &sc.lanes[0],
                    &sc.follow_addrs,
                    rows,
                    (threads - w as u64 * 32).min(32) as u8,
                    &mut sc.lane_addrs,
                    line_bytes,
                    &mut regs[w],
                    wp,
                ),
                Merge::Reconverge => merge_reconverge(
                    &sc.lanes,
                    clones,
                    marked,
                    &mut sc.lane_addrs,
                    line_bytes,
                    &mut regs[w],
                    wp,
                    out_lanes,
                ),
                Merge::Positional => merge_warp(
                    if marked { &sc.plain } else { &sc.lanes },
                    marked.then_some(&sc.marks[..]),
                    &mut sc.lane_addrs,
                    line_bytes,
                    &mut regs[w],
                    wp,
                    out_lanes,
                ),
            }
            if let Some(sp) = split.as_deref_mut() {
                let issued = (wp.insts.len() - before) as u64;
                sp.issued += issued;
                // reconverging: a shifted run the issue reconverged (it issued no more
                // than the min-PC estimate) is not a defect of the issued stream
                if merge == Merge::Reconverge && issued <= phase_converged {
                    phase_run = 0;
                }
                if phase_run > runs[w] {
                    runs[w] = phase_run;
                    if phase_run > sp.longest_run {
                        sp.longest_at = site_name(phase_at);
                    }
                }
            }
            if overflow {
                // more than `limit` instructions: keep exactly the first `limit`
                wp.truncated = true;
                wp.insts.truncate(limit);
                let end = wp
                    .insts
                    .iter()
                    .rev()
                    .find(|i| i.nlines > 0)
                    .map_or(0, |i| i.first_line as usize + i.nlines as usize);
                wp.lines.truncate(end);
                continue;
            }
            let lanes = (threads - (w as u64 * 32)).min(32) as u8;
            if out_lanes {
                wp.lane_at.push(wp.lane_addrs.len() as u32);
            }
            if phase + 1 < phases {
                wp.insts.push(WarpInst::alu(InstClass::Barrier, lanes));
            } else {
                wp.insts.push(WarpInst::alu(InstClass::Exit, lanes));
                if out_lanes {
                    wp.end_lanes();
                }
            }
        }
    }
    if let Some(sp) = split {
        sp.warps += nwarps as u64;
        sp.shifted_warps += runs.iter().filter(|&&r| r >= SHIFT_RUN).count() as u64;
        sp.longest_run = sp.longest_run.max(runs.iter().copied().max().unwrap_or(0));
    }
}

/// Positions a lane's operation is looked for around the position where another lane runs
/// it ([`LaneSplit::shifted`]).
pub const SHIFT_WINDOW: usize = 32;

/// Consecutive shifted positions that mark a warp as never reconverging
/// ([`LaneSplit::shifted_warps`]).
pub const SHIFT_RUN: u64 = 16;

/// How a kernel's warp instructions split (issue 8). `merge_warp` aligns the 32 lanes'
/// operation lists position by position; a real GPU's SIMT stack reconverges the lanes at
/// the immediate post-dominator of a branch (after an `if (tid == 0)` body, after a loop
/// with per-lane trip counts). A lane whose list has extra or missing operations before
/// code its warp shares is shifted against its neighbours from there on, and every later
/// instruction of the warp is split in two partial-mask instructions that a converged run
/// would issue as one.
///
/// The signature measured: at a position where the running lanes form several
/// instructions, an instruction is *shifted* when a lane outside its mask, running a
/// different operation there, runs the same call site within [`SHIFT_WINDOW`] positions
/// before or after (the same code, issued at different positions by different lanes).
/// Legitimate divergence leaves no such pairs: boundary lanes that do nothing only make
/// masks partial; an `if`/`else` whose two paths have equal length issues different call
/// sites at the same positions and is aligned again after them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LaneSplit {
    /// Warps analysed (each block's warps, every launch).
    pub warps: u64,
    /// Warp instructions formed from the lanes' operations (barriers and exits, which the
    /// model adds per phase, excluded).
    pub insts: u64,
    /// Of them, with a mask smaller than the warp's threads (any divergence).
    pub partial: u64,
    /// Warp instructions the workload's warp formation ([`Merge`]) issued (barriers and
    /// exits excluded): `insts` for [`Merge::Positional`], the reconverging issue's count
    /// (checked against `converged`, computed independently) for [`Merge::Reconverge`].
    pub issued: u64,
    /// Of them, shifted (the signature above).
    pub shifted: u64,
    /// The warp instructions of a reconverging execution of the same lanes' operations, by
    /// min-PC scheduling in source order (an estimate: `reconverged`); `insts -
    /// converged` is what the missing reconvergence adds.
    pub converged: u64,
    /// Warps with a run of at least [`SHIFT_RUN`] consecutive positions holding a shifted
    /// instruction in some phase: the never-reconverging signature.
    /// With [`Merge::Reconverge`], only the warp phases whose issued instructions exceed
    /// the min-PC estimate count (a shifted run the issue reconverged is no defect).
    pub shifted_warps: u64,
    /// The longest such run of any warp.
    pub longest_run: u64,
    /// The source location (`file:line:column` of the recording call) of the first shifted
    /// instruction of that run: where the lanes' streams lose their alignment.
    pub longest_at: String,
}

impl LaneSplit {
    /// Add another count (launches, blocks).
    pub fn merge(&mut self, o: &LaneSplit) {
        self.warps += o.warps;
        self.insts += o.insts;
        self.partial += o.partial;
        self.issued += o.issued;
        self.shifted += o.shifted;
        self.converged += o.converged;
        self.shifted_warps += o.shifted_warps;
        if o.longest_run > self.longest_run {
            self.longest_run = o.longest_run;
            self.longest_at.clone_from(&o.longest_at);
        }
    }
    /// Partial-mask instructions per instruction.
    pub fn partial_fraction(&self) -> f64 {
        self.partial as f64 / (self.insts.max(1)) as f64
    }
    /// Shifted instructions per instruction.
    pub fn shifted_fraction(&self) -> f64 {
        self.shifted as f64 / (self.insts.max(1)) as f64
    }
    /// Warp instructions over those of a reconverging execution, minus one: what the
    /// positional alignment adds.
    pub fn excess_fraction(&self) -> f64 {
        self.insts as f64 / (self.converged.max(1)) as f64 - 1.0
    }
}

/// Count one warp phase's instructions as [`merge_warp`] forms them (markers left out) into
/// `s`; `present`: the mask of the warp's threads. Returns the longest run of consecutive
/// positions holding a shifted instruction ([`LaneSplit`]) and the site of the run's first
/// shifted instruction.
fn lane_split(lanes: &[Vec<Op>], present: u32, s: &mut LaneSplit) -> (u64, u64) {
    let maxlen = lanes.iter().map(|l| l.len()).max().unwrap_or(0);
    let (mut run, mut longest) = (0u64, 0u64);
    let (mut run_at, mut longest_at) = (0u64, 0u64);
    let (mut lane_insts, mut diverged) = (0u64, false);
    let mut groups: Vec<(u32, Op)> = Vec::with_capacity(32);
    for pos in 0..maxlen {
        let running = lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| l.len() > pos)
            .fold(0u32, |m, (li, _)| m | (1 << li));
        let mut todo = running;
        groups.clear();
        while todo != 0 {
            let lead = lanes[todo.trailing_zeros() as usize][pos];
            let mut mask = 0u32;
            let mut rest = todo;
            while rest != 0 {
                let li = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let op = lanes[li][pos];
                if op.site == lead.site && op.class == lead.class && op.space == lead.space {
                    mask |= 1 << li;
                }
            }
            todo &= !mask;
            groups.push((mask, lead));
        }
        s.insts += groups.len() as u64;
        lane_insts += groups.len() as u64;
        diverged |= groups.len() > 1;
        s.partial += groups.iter().filter(|g| g.0 != present).count() as u64;
        let mut here = None;
        if groups.len() > 1 {
            for &(mask, op) in &groups {
                let mut others = running & !mask;
                let mut hit = false;
                while others != 0 && !hit {
                    let l = &lanes[others.trailing_zeros() as usize];
                    others &= others - 1;
                    let lo = pos.saturating_sub(SHIFT_WINDOW);
                    let hi = (pos + SHIFT_WINDOW + 1).min(l.len());
                    hit = (lo..hi).any(|q| {
                        q != pos
                            && l[q].site == op.site
                            && l[q].class == op.class
                            && l[q].space == op.space
                    });
                }
                if hit {
                    s.shifted += 1;
                    here.get_or_insert(op.site);
                }
            }
        }
        match here {
            Some(site) => {
                if run == 0 {
                    run_at = site;
                }
                run += 1;
            }
            None => run = 0,
        }
        if run > longest {
            (longest, longest_at) = (run, run_at);
        }
    }
    s.converged += if diverged {
        reconverged(lanes)
    } else {
        lane_insts
    };
    (longest, longest_at)
}

/// The warp instructions of one warp phase under a reconverging SIMT execution, estimated
/// by min-PC scheduling (Collange's thread-frontier reconvergence; Fung et al., MICRO 2007,
/// §3 for the immediate-post-dominator stack it matches on structured code): at each step
/// the lanes whose next operation has the smallest program counter issue it together. The
/// program counter is the recording call's source position (file, then line, then column):
/// kernel models are written in the source order of the CUDA code, so a lane that skipped an
/// `if` body or left a loop waits at the code after it for the lanes still inside. A helper
/// that records from its own lines (no `#[track_caller]`) is placed at those lines: an
/// estimate, exact for the synthetic cases of the tests.
fn reconverged(lanes: &[Vec<Op>]) -> u64 {
    // the files of the warp's sites, ranked by name, so the order does not depend on where
    // the file names lie in the binary
    let mut files: Vec<(u64, String)> = Vec::new();
    for l in lanes {
        for o in l {
            let f = o.site >> 32;
            if !files.iter().any(|x| x.0 == f) {
                let name = site_name(o.site);
                files.push((f, name.split(':').next().unwrap_or("").to_string()));
            }
        }
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    // site = file id << 32 | line << 16 | column
    let key = |o: &Op| {
        let rank = files.iter().position(|x| x.0 == o.site >> 32).unwrap_or(0) as u64;
        (rank << 32) | (o.site & 0xFFFF_FFFF)
    };
    let mut cur = [0usize; 32];
    let mut insts = 0u64;
    loop {
        let mut best: Option<(u64, Op)> = None;
        for (li, l) in lanes.iter().enumerate() {
            if let Some(o) = l.get(cur[li]) {
                let k = key(o);
                if best.is_none_or(|(bk, _)| k < bk) {
                    best = Some((k, *o));
                }
            }
        }
        let Some((_, b)) = best else { break };
        for (li, l) in lanes.iter().enumerate() {
            if let Some(o) = l.get(cur[li]) {
                if o.site == b.site && o.class == b.class && o.space == b.space {
                    cur[li] += 1;
                }
            }
        }
        insts += 1;
    }
    insts
}

/// Register allocation of one warp while its instructions are formed: loads and compute
/// results rotate through disjoint register ranges so the scoreboard can tell them apart.
#[derive(Clone, Copy, Debug)]
struct Regs {
    /// Next load destination (1..=LOAD_REGS).
    next_load: Reg,
    /// Next compute destination (COMPUTE_BASE..COMPUTE_BASE + COMPUTE_REGS).
    next_compute: Reg,
    /// Result register of the last compute instruction (0 = none yet).
    last_compute: Reg,
}

/// Load destinations: registers 1..=250.
const LOAD_REGS: Reg = 250;
/// Compute destinations: 8 registers from 251, enough for the SM's 4-entry result ring.
const COMPUTE_BASE: Reg = 251;
const COMPUTE_REGS: Reg = 8;

impl Default for Regs {
    fn default() -> Self {
        Regs {
            next_load: 1,
            next_compute: COMPUTE_BASE,
            last_compute: 0,
        }
    }
}

impl Regs {
    fn load(&mut self) -> Reg {
        let r = self.next_load;
        self.next_load = if r >= LOAD_REGS { 1 } else { r + 1 };
        r
    }
    fn compute(&mut self) -> Reg {
        let r = self.next_compute;
        self.next_compute = COMPUTE_BASE + (r - COMPUTE_BASE + 1) % COMPUTE_REGS;
        self.last_compute = r;
        r
    }
}

/// [`Merge::Positional`]: align the lanes' operation lists position by position into warp instructions, with the
/// dependences of the module documentation. With `record_lanes`, each instruction's lane
/// addresses go to the warp's side buffer ([`WarpProgram::lanes_of`]).
///
/// `marks` (offload markers, NDP; `lanes` then hold no marker): per lane, its markers and
/// the position of the operation each precedes. The lanes that reach an `OFLD.BEG` at the
/// same position and call site form one block instance of those lanes only (a marker in
/// an `if` taken by some lanes: SIMT runs the taken path under its mask): their
/// instructions up to their `OFLD.END` are emitted first and contiguously, the other lanes'
/// instructions of those positions after them. Every position's instructions are the
/// unmarked run's, so markers never change which instructions a warp runs, only, in
/// divergent code, their order.
// `pos` indexes the inner lists of many lanes at once (`lanes[li][pos]`)
#[allow(clippy::needless_range_loop)]
fn merge_warp(
    lanes: &[Vec<Op>],
    marks: Option<&[Vec<(u32, Op)>]>,
    addrs: &mut Vec<(u64, u32)>,
    line_bytes: u32,
    regs: &mut Regs,
    wp: &mut WarpProgram,
    record_lanes: bool,
) {
    debug_assert!(lanes.len() <= 32);
    // the lanes' op lists as plain slices, read below without going through each `Vec`
    let ops: [&[Op]; 32] = std::array::from_fn(|li| lanes.get(li).map_or(&[][..], |l| &l[..]));
    let maxlen = lanes.iter().map(|l| l.len()).max().unwrap_or(0);
    // lanes by length, so each position starts from the mask of lanes still running
    // without looking at the lanes that ended (a hub thread of a graph kernel runs for
    // thousands of positions after its 31 neighbours finished)
    let mut by_len = [(0usize, 0u32); 32];
    for (li, l) in lanes.iter().enumerate() {
        by_len[li] = (l.len(), li as u32);
    }
    let by_len = &mut by_len[..lanes.len()];
    by_len.sort_unstable();
    let mut running: u32 = by_len.iter().fold(0, |m, &(_, li)| m | (1 << li));
    let mut ended = 0;
    // marked runs: each lane's next marker, and the position its open block ends at
    let mut next_mark = [0usize; 32];
    let mut busy_until = [0usize; 32];
    let mut busy: u32 = 0;
    let mut e = Emit {
        ops: &ops,
        clones: Clones::default(),
        addrs,
        line_bytes,
        regs,
        wp,
        record_lanes,
    };
    for pos in 0..maxlen {
        while ended < by_len.len() && by_len[ended].0 <= pos {
            running &= !(1 << by_len[ended].1);
            ended += 1;
        }
        let mut todo = running;
        if let Some(mk) = marks {
            // lanes whose block instance was emitted ahead sit out its positions
            let mut b = busy;
            while b != 0 {
                let li = b.trailing_zeros() as usize;
                b &= b - 1;
                if busy_until[li] <= pos {
                    busy &= !(1 << li);
                }
            }
            todo &= !busy;
            // lanes at an `OFLD.BEG` here (stale and stray markers are passed over)
            let mut at = 0u32;
            let mut t = todo;
            while t != 0 {
                let li = t.trailing_zeros() as usize;
                t &= t - 1;
                let m = &mk[li];
                while next_mark[li] < m.len()
                    && ((m[next_mark[li]].0 as usize) < pos
                        || m[next_mark[li]].1.mark != MARK_BEGIN)
                    && (m[next_mark[li]].0 as usize) <= pos
                {
                    next_mark[li] += 1;
                }
                if let Some(&(p, o)) = m.get(next_mark[li]) {
                    if p as usize == pos && o.mark == MARK_BEGIN {
                        at |= 1 << li;
                    }
                }
            }
            while at != 0 {
                let lead = at.trailing_zeros() as usize;
                let begin = mk[lead][next_mark[lead]].1;
                // the instance: the lanes at the same `OFLD.BEG`, each up to its `OFLD.END`
                // (a begin not closed by the next marker opens no block)
                let (mut group, mut last, mut end_op) = (0u32, pos, None);
                let mut rest = at;
                while rest != 0 {
                    let li = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let k = next_mark[li];
                    if mk[li][k].1.site != begin.site {
                        continue;
                    }
                    at &= !(1 << li);
                    next_mark[li] = k + 1;
                    if let Some(&(p, o)) = mk[li].get(k + 1) {
                        if o.mark == MARK_END {
                            next_mark[li] = k + 2;
                            group |= 1 << li;
                            busy_until[li] = p as usize;
                            last = last.max(p as usize);
                            end_op.get_or_insert(o);
                        }
                    }
                }
                let Some(end_op) = end_op else { continue };
                let first = e.wp.insts.len() as u32;
                for q in pos..last {
                    let mut g = 0u32;
                    let mut r = group;
                    while r != 0 {
                        let li = r.trailing_zeros() as usize;
                        r &= r - 1;
                        if q < busy_until[li] {
                            g |= 1 << li;
                        }
                    }
                    e.position(q, g);
                }
                e.wp.offload.push(crate::program::OffloadMark {
                    block: begin.obj as u8,
                    begin: first,
                    end: e.wp.insts.len() as u32,
                    live_ins: begin.bytes as u8,
                    live_outs: end_op.bytes as u8,
                    nsu_insts: (begin.bytes >> 8) as u8,
                    iters: (begin.addr as u16).max(1),
                    lanes: group.count_ones() as u8,
                });
                busy |= group;
                todo &= !group;
            }
        }
        e.position(pos, todo);
    }
}

/// [`Merge::Reconverge`]: issue the lanes' operation lists (offload markers included when
/// `marks`) by min-PC scheduling ([`Emit::min_pc`]), with the dependences and register
/// allocation of [`merge_warp`].
#[allow(clippy::too_many_arguments)]
fn merge_reconverge(
    lanes: &[Vec<Op>],
    clones: Clones,
    marks: bool,
    addrs: &mut Vec<(u64, u32)>,
    line_bytes: u32,
    regs: &mut Regs,
    wp: &mut WarpProgram,
    record_lanes: bool,
) {
    debug_assert!(lanes.len() <= 32);
    let ops: [&[Op]; 32] = std::array::from_fn(|li| {
        let li = if clones.lanes & (1 << li) != 0 { 0 } else { li };
        lanes.get(li).map_or(&[][..], |l| &l[..])
    });
    let lim: [usize; 32] = std::array::from_fn(|li| ops[li].len());
    let mut cur = [0usize; 32];
    let mut e = Emit {
        ops: &ops,
        clones,
        addrs,
        line_bytes,
        regs,
        wp,
        record_lanes,
    };
    e.min_pc(&mut None, &mut cur, &lim, u32::MAX, marks);
}

/// Turns a warp records without follow mode after one in which a lane left it.
const FOLLOW_BACKOFF: u8 = 4;

/// [`merge_reconverge`] of a warp whose lanes all recorded lane 0's operations (follow
/// mode, [`Follow`]): `lanes` lanes (0 ..), lane 0's list `lead` with its `rows` memory
/// operations, the others' addresses in `table` (lane `l`'s from `l x rows` on). Every step of the reconverging merge is then converged (one instruction per
/// operation for all the lanes, a run of compute copies at once); this emits the same
/// instructions, with the same lane addresses in lane order, without 32 lists.
#[allow(clippy::too_many_arguments)]
fn merge_converged(
    lead: &[Op],
    table: &[u64],
    rows: usize,
    lanes: u8,
    addrs: &mut Vec<(u64, u32)>,
    line_bytes: u32,
    regs: &mut Regs,
    wp: &mut WarpProgram,
) {
    let none: [&[Op]; 32] = [&[]; 32];
    let mut e = Emit {
        ops: &none,
        clones: Clones::default(),
        addrs,
        line_bytes,
        regs,
        wp,
        record_lanes: false,
    };
    let (mut j, mut row) = (0, 0);
    while j < lead.len() {
        let op = lead[j];
        if op.class.is_mem() {
            let b = op.bytes as u32;
            e.addrs.clear();
            e.addrs.push((op.addr, b));
            e.addrs
                .extend((1..lanes as usize).map(|l| (table[l * rows + row], b)));
            e.push_inst(op, lanes, op.obj);
            row += 1;
            j += 1;
        } else {
            let k = (op.run as usize).min(lead.len() - j).max(1);
            for _ in 0..k {
                e.push_inst(op, lanes, op.obj);
            }
            j += k;
        }
    }
}

/// The lanes of a warp that recorded lane 0's operations throughout (follow mode,
/// [`Follow`]) while others did not: the merge reads lane 0's list for them (`Emit::ops`)
/// and their addresses from the address table, so they are not written out.
#[derive(Clone, Copy, Default)]
struct Clones<'a> {
    /// A bit per such lane.
    lanes: u32,
    /// The address table (lane `l`'s column from `l x rows` on).
    table: &'a [u64],
    /// Lane 0's memory operations.
    rows: usize,
    /// Per operation of lane 0, its row (memory operations only).
    row: &'a [u32],
}

impl Clones<'_> {
    /// Lane `li`'s address of its operation `op` at position `pos` of its list.
    #[inline(always)]
    fn addr(&self, li: usize, pos: usize, op: &Op) -> u64 {
        if self.lanes & (1 << li) != 0 {
            self.table[li * self.rows + self.row[pos] as usize]
        } else {
            op.addr
        }
    }
}

/// The instruction emitter of [`merge_warp`] and [`merge_reconverge`].
struct Emit<'a, 'o> {
    ops: &'a [&'o [Op]; 32],
    /// The lanes whose list is lane 0's (follow mode), with their own addresses.
    clones: Clones<'a>,
    addrs: &'a mut Vec<(u64, u32)>,
    line_bytes: u32,
    regs: &'a mut Regs,
    wp: &'a mut WarpProgram,
    record_lanes: bool,
}

impl Emit<'_, '_> {
    /// The warp instructions of position `pos` for the lanes of `todo`: one per call site
    /// (class, space), in the order of their lowest lane.
    fn position(&mut self, pos: usize, mut todo: u32) {
        let ops = self.ops;
        while todo != 0 {
            let wp = &mut *self.wp;
            let first = todo.trailing_zeros() as usize;
            let lead = ops[first][pos];
            let mut n = 0u8;
            self.addrs.clear();
            let mut obj = lead.obj;
            if self.record_lanes {
                wp.lane_at.push(wp.lane_addrs.len() as u32);
            }
            let mut rest = todo;
            while rest != 0 {
                let li = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let op = ops[li][pos];
                if op.site == lead.site && op.class == lead.class && op.space == lead.space {
                    todo &= !(1 << li);
                    n += 1;
                    if op.class.is_mem() {
                        self.addrs.push((op.addr, op.bytes as u32));
                        if self.record_lanes {
                            wp.lane_addrs.push(LaneAddr {
                                lane: li as u8,
                                bytes: op.bytes,
                                addr: op.addr,
                            });
                        }
                        if op.obj != obj {
                            obj = op.obj;
                        }
                    }
                }
            }
            self.push_inst(lead, n, obj);
        }
    }

    /// Push `lead`'s warp instruction issued by `n` lanes, its lane addresses (collected in
    /// `addrs`, object `obj`) coalesced into line requests, with the dependences of the
    /// module documentation.
    #[inline]
    fn push_inst(&mut self, lead: Op, n: u8, obj: ObjId) {
        let (regs, wp) = (&mut *self.regs, &mut *self.wp);
        let mut inst = WarpInst::alu(lead.class, n);
        inst.space = lead.space;
        inst.pc = lead.site as u32;
        // the address (loads, stores) or the operand chain (compute) comes from the
        // previous compute instruction
        inst.srcs[0] = regs.last_compute;
        if lead.class.is_mem() {
            if lead.space != Space::Shared {
                inst.first_line = wp.lines.len() as u32;
                inst.nlines = coalesce(self.addrs, self.line_bytes, obj, &mut wp.lines);
            }
            if lead.class == InstClass::Load {
                inst.dst = regs.load();
            } else {
                // the stored value may be a loaded one
                inst.srcs[1] = REG_ALL;
            }
        } else {
            // a loaded value is used by the first compute instruction after the load
            inst.srcs[1] = REG_ALL;
            inst.dst = regs.compute();
        }
        wp.insts.push(inst);
    }

    /// One warp instruction: `lead`'s, issued by the lanes of `mask`, lane `li` running its
    /// operation `at(li)` (the same call site, class and space as `lead`).
    #[inline]
    fn emit(&mut self, lead: Op, mask: u32, at: impl Fn(usize) -> usize) {
        let ops = self.ops;
        let wp = &mut *self.wp;
        let mut n = 0u8;
        self.addrs.clear();
        let mut obj = lead.obj;
        if self.record_lanes {
            wp.lane_at.push(wp.lane_addrs.len() as u32);
        }
        let mut rest = mask;
        while rest != 0 {
            let li = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let op = ops[li][at(li)];
            n += 1;
            if op.class.is_mem() {
                let addr = self.clones.addr(li, at(li), &op);
                self.addrs.push((addr, op.bytes as u32));
                if self.record_lanes {
                    wp.lane_addrs.push(LaneAddr {
                        lane: li as u8,
                        bytes: op.bytes,
                        addr,
                    });
                }
                if op.obj != obj {
                    obj = op.obj;
                }
            }
        }
        self.push_inst(lead, n, obj);
    }

    /// [`Self::min_pc`]'s step when it is converged code: if every lane of `active` is at the
    /// same instruction as `lead` (an instruction, not a marker; lanes not recorded), emit it
    /// for all of them, advance them and drop the lanes that reached `lim`, all in one pass
    /// over the lanes, and answer `true`. Otherwise change nothing (but the scratch `addrs`)
    /// and answer `false`: the general step then runs as before.
    ///
    /// Exact: the instruction is the one [`Self::emit`] pushes for `lead` and the mask
    /// `active` (same lanes in the same order, the same addresses, lane count and object: the
    /// last memory lane's, else `lead`'s), and the lanes move as the general step moves them.
    /// It only fuses the general step's three passes (compare, emit, advance), which were a
    /// fifth of spmv's host instructions.
    #[inline]
    fn converged_step(
        &mut self,
        cur: &mut [usize; 32],
        lim: &[usize; 32],
        active: &mut u32,
        lead: Op,
    ) -> bool {
        let ops = self.ops;
        self.addrs.clear();
        let mem = lead.class.is_mem();
        if *active == u32::MAX {
            return self.converged_full(cur, lim, active, lead, mem);
        }
        let mut obj = lead.obj;
        let mut n = 0u8;
        // the copies left of every lane's operation (`run_len`'s answer when they are compute)
        let mut k = usize::MAX;
        let mut rest = *active;
        while rest != 0 {
            let li = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let op = ops[li][cur[li]];
            if !same(&op, &lead) {
                return false;
            }
            n += 1;
            k = k.min((op.run as usize).min(lim[li] - cur[li]));
            if mem {
                let addr = self.clones.addr(li, cur[li], &op);
                self.addrs.push((addr, op.bytes as u32));
                obj = op.obj;
            }
        }
        let k = if mem { 1 } else { k.max(1) };
        for _ in 0..k {
            self.push_inst(lead, n, obj);
        }
        let mut rest = *active;
        let mut done = 0u32;
        while rest != 0 {
            let li = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            cur[li] += k;
            done |= ((cur[li] >= lim[li]) as u32) << li;
        }
        *active &= !done;
        true
    }

    /// [`Self::converged_step`] for a full warp (all 32 lanes waiting): the same answer and
    /// effects, in counted loops over the lanes (no bit scan per lane).
    ///
    /// Each lane's operations were recorded in its own list, one lane after the other, so a
    /// large block's lists exceed the host caches (gemm on `rec-4gpu`: about 130 KB per
    /// lane, 4 MB per warp) and each step's read of a lane's next operation missed them;
    /// the step hints the host to fetch each lane's operation [`PREFETCH_OPS`] ahead.
    #[inline]
    #[allow(clippy::needless_range_loop)] // `li` indexes `ops`, `cur` and `lim` at once
    fn converged_full(
        &mut self,
        cur: &mut [usize; 32],
        lim: &[usize; 32],
        active: &mut u32,
        lead: Op,
        mem: bool,
    ) -> bool {
        let ops = self.ops;
        let mut all = true;
        // the copies left of every lane's operation (`run_len`'s answer when they are compute)
        let mut k = usize::MAX;
        for li in 0..32 {
            let lane = ops[li];
            let op = &lane[cur[li]];
            all &= same(op, &lead);
            k = k.min((op.run as usize).min(lim[li] - cur[li]));
            prefetch(lane, cur[li] + PREFETCH_OPS);
        }
        if !all {
            return false;
        }
        let mut obj = lead.obj;
        if mem {
            let c = &self.clones;
            self.addrs.extend((0..32).map(|li| {
                let op = &ops[li][cur[li]];
                (c.addr(li, cur[li], op), op.bytes as u32)
            }));
            obj = ops[31][cur[31]].obj;
            k = 1;
        }
        let k = k.max(1);
        for _ in 0..k {
            self.push_inst(lead, 32, obj);
        }
        let mut done = 0u32;
        for li in 0..32 {
            cur[li] += k;
            done |= ((cur[li] >= lim[li]) as u32) << li;
        }
        *active &= !done;
        true
    }

    /// How many copies of their current compute operation every lane of `mask` has left
    /// ([`Op::run`], cut at `lim`): the merge issues them as that many warp instructions
    /// at once. Exact: while the lanes of `mask` stay inside those runs, each step of the
    /// one-operation merge would pick the same lead, the same lanes and push the same
    /// instruction (their call site, so their program counter, does not change), and no
    /// other lane moves.
    #[inline]
    fn run_len(&self, cur: &[usize; 32], lim: &[usize; 32], mask: u32) -> usize {
        let ops = self.ops;
        let mut k = usize::MAX;
        let mut rest = mask;
        while rest != 0 {
            let li = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            k = k.min((ops[li][cur[li]].run as usize).min(lim[li] - cur[li]));
        }
        k.max(1)
    }

    /// Reconverging issue (min-PC) of the lanes of `active`, lane `li` from its operation
    /// `cur[li]` up to (not including) `lim[li]`: at each step the lanes whose next
    /// operation has the smallest program counter ([`PcKeys::key`]) issue it together, the
    /// others wait. When every waiting lane is at the same operation (converged code) no
    /// program counter is computed. Offload markers (`marks`): the lanes at one `OFLD.BEG`
    /// whose next marker is an `OFLD.END` form one block instance, issued at once and
    /// contiguously (min-PC among its lanes) and recorded in [`WarpProgram::offload`];
    /// stray markers are passed over.
    fn min_pc(
        &mut self,
        keys: &mut Option<PcKeys>,
        cur: &mut [usize; 32],
        lim: &[usize; 32],
        mut active: u32,
        marks: bool,
    ) {
        let ops = self.ops;
        active &= (0..32).fold(0u32, |m, li| m | (((cur[li] < lim[li]) as u32) << li));
        // each lane's next program counter, valid for the lanes of `known`
        let mut head = [0u64; 32];
        let mut known = 0u32;
        while active != 0 {
            let mut lead =
                ops[active.trailing_zeros() as usize][cur[active.trailing_zeros() as usize]];
            let before = active;
            if lead.mark == 0
                && !self.record_lanes
                && self.converged_step(cur, lim, &mut active, lead)
            {
                // every waiting lane was at `lead`'s instruction: issued and advanced
                known &= !before;
                continue;
            }
            let mut mask = 0u32;
            let mut rest = active;
            while rest != 0 {
                let li = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if same(&ops[li][cur[li]], &lead) {
                    mask |= 1 << li;
                }
            }
            if mask != active {
                // diverged: the smallest program counter goes first (ties: lowest lane)
                // (a waiting lane's program counter is kept until it moves: a loop with
                // per-lane trip counts recomputes only its running lanes')
                let k = keys.get_or_insert_with(PcKeys::new);
                let mut best = u64::MAX;
                let mut rest = active;
                while rest != 0 {
                    let li = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if known & (1 << li) == 0 {
                        head[li] = k.key(ops[li][cur[li]].site);
                        known |= 1 << li;
                    }
                    if head[li] < best {
                        (best, lead) = (head[li], ops[li][cur[li]]);
                    }
                }
                mask = 0;
                let mut rest = active;
                while rest != 0 {
                    let li = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if same(&ops[li][cur[li]], &lead) {
                        mask |= 1 << li;
                    }
                }
            }
            // operations each lane of `mask` advances by: a run of compute copies at once
            let mut step = 1;
            if marks && lead.mark == MARK_BEGIN {
                self.block(keys, cur, lim, mask, lead);
            } else if lead.mark != 0 {
                // a stray `OFLD.END`: no instruction
            } else {
                if !lead.class.is_mem() {
                    step = self.run_len(cur, lim, mask);
                }
                let c = &*cur;
                for _ in 0..step {
                    self.emit(lead, mask, |li| c[li]);
                }
            }
            known &= !mask;
            let mut rest = mask;
            while rest != 0 {
                let li = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if !(marks && lead.mark == MARK_BEGIN) {
                    cur[li] += step;
                }
                if cur[li] >= lim[li] {
                    active &= !(1 << li);
                }
            }
        }
    }

    /// The block instance begun by the lanes of `at` at the `OFLD.BEG` `begin` ([`Self::min_pc`]):
    /// each lane whose next marker is an `OFLD.END` issues up to it; every lane of `at` ends
    /// past its `OFLD.BEG` and, in the instance, past its `OFLD.END`.
    fn block(
        &mut self,
        keys: &mut Option<PcKeys>,
        cur: &mut [usize; 32],
        lim: &[usize; 32],
        at: u32,
        begin: Op,
    ) {
        let ops = self.ops;
        let mut end = [0usize; 32];
        let (mut group, mut end_op) = (0u32, None);
        let mut rest = at;
        while rest != 0 {
            let li = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            cur[li] += 1;
            let next = (cur[li]..lim[li]).find(|&q| ops[li][q].mark != 0);
            if let Some(q) = next.filter(|&q| ops[li][q].mark == MARK_END) {
                group |= 1 << li;
                end[li] = q;
                end_op.get_or_insert(ops[li][q]);
            }
        }
        let Some(end_op) = end_op else { return };
        let first = self.wp.insts.len() as u32;
        self.min_pc(keys, cur, &end, group, false);
        self.wp.offload.push(crate::program::OffloadMark {
            block: begin.obj as u8,
            begin: first,
            end: self.wp.insts.len() as u32,
            live_ins: begin.bytes as u8,
            live_outs: end_op.bytes as u8,
            nsu_insts: (begin.bytes >> 8) as u8,
            iters: (begin.addr as u16).max(1),
            lanes: group.count_ones() as u8,
        });
        // past the `OFLD.END` (the caller's advance does not move the lanes of a block)
        let mut rest = group;
        while rest != 0 {
            let li = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            cur[li] = end[li] + 1;
        }
    }
}

/// How many operations ahead of a lane's next one [`Emit::converged_full`] asks the host to
/// fetch (16 operations of 24 bytes: six host cache lines).
const PREFETCH_OPS: usize = 16;

/// A host cache hint for `lane[i]` (nothing is read; an index past the end is fine).
#[inline(always)]
fn prefetch(lane: &[Op], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = lane.as_ptr().wrapping_add(i);
        // SAFETY: `_mm_prefetch` is a hint that reads nothing and cannot fault, whatever the
        // address (`wrapping_add`: it may lie past the list's end)
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (lane, i);
}

/// Two operations are one warp instruction when they come from the same call site with the
/// same class and memory space (and are both instructions, or the same kind of marker).
#[inline]
fn same(a: &Op, b: &Op) -> bool {
    a.site == b.site && a.class == b.class && a.space == b.space && a.mark == b.mark
}

#[cfg(test)]
mod tests {
    use super::*;

    struct VecAdd {
        a: ObjId,
        b: ObjId,
        c: ObjId,
        n: u64,
    }
    impl Kernel for VecAdd {
        fn info(&self) -> KernelInfo {
            KernelInfo {
                name: "vecadd".into(),
                grid: Dim3::x(self.n.div_ceil(64) as u32),
                block: Dim3::x(64),
                regs_per_thread: 16,
                smem_per_block: 0,
            }
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            let i = t.gid();
            if i < self.n {
                let x: f32 = t.ld(self.a, i);
                let y: f32 = t.ld(self.b, i);
                t.fp(1);
                t.st(self.c, i, x + y);
            }
        }
    }
    struct Once(Option<Box<dyn Kernel>>);
    impl Host for Once {
        fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
            self.0.take()
        }
    }

    /// Lane `li`'s operations for [`runs_merge_as_single_operations`]: a loop of
    /// per-lane trip count whose body is a compute run of per-lane length at one site, a
    /// load, and a fixed run; then a tail run. `one`: every operation's run set to 1 (the
    /// merge then takes one operation per step, the reference).
    fn run_lane(li: u64, one: bool) -> Vec<Op> {
        let mut v = Vec::new();
        let mut push = |site: u64, class: InstClass, n: u32, addr: u64| {
            for left in (1..=n).rev() {
                v.push(Op {
                    site,
                    class,
                    space: Space::Global,
                    obj: 0,
                    bytes: if class.is_mem() { 4 } else { 0 },
                    addr,
                    mark: 0,
                    run: if one { 1 } else { left.min(255) as u8 },
                });
            }
        };
        push(10 << 16, InstClass::Int, 4, 0);
        for it in 0..(li % 5) {
            push(20 << 16, InstClass::Int, 1 + ((li + it) % 4) as u32, 0);
            push(30 << 16, InstClass::Load, 1, 4096 * it + 4 * li);
            push(40 << 16, InstClass::Fp, 300, 0);
        }
        push(50 << 16, InstClass::Fp, 2 + (li % 3) as u32, 0);
        v
    }

    /// The merge issues a run of compute copies in one step (`Op::run`); the warp
    /// program must equal the one-operation-per-step merge's, instruction for
    /// instruction (converged and diverged code, runs longer than 255, lanes that leave
    /// a run at different points), with and without lane addresses.
    #[test]
    fn runs_merge_as_single_operations() {
        for active in [32u64, 29] {
            for record in [false, true] {
                let merged = |one: bool| {
                    let lanes: Vec<Vec<Op>> = (0..active).map(|li| run_lane(li, one)).collect();
                    let mut wp = WarpProgram::default();
                    merge_reconverge(
                        &lanes,
                        Clones::default(),
                        false,
                        &mut Vec::new(),
                        128,
                        &mut Regs::default(),
                        &mut wp,
                        record,
                    );
                    wp
                };
                let (a, b) = (merged(false), merged(true));
                assert!(a.insts.len() > 1000, "{}", a.insts.len());
                assert_eq!(a.insts, b.insts, "active {active} record {record}");
                assert_eq!(a.lines, b.lines);
                assert_eq!((a.lane_at, a.lane_addrs), (b.lane_at, b.lane_addrs));
            }
        }
    }

    /// A launch of one 64-thread block (two warps) for the test kernels below.
    fn one_block_of_64(name: &str) -> KernelInfo {
        KernelInfo {
            name: name.into(),
            grid: Dim3::x(1),
            block: Dim3::x(64),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }

    /// Lanes that diverge into two call sites recording the same kind of operation (same
    /// class, space, object and size; compute runs of the same length), so only the site
    /// tells them apart.
    struct TwoSites {
        a: ObjId,
    }
    impl Kernel for TwoSites {
        fn info(&self) -> KernelInfo {
            one_block_of_64("two-sites")
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            let i = t.gid();
            let _: f32 = t.ld(self.a, i);
            // (the same call at two sites: the point of the test)
            #[allow(clippy::if_same_then_else)]
            if i % 3 == 1 {
                t.alu(3);
            } else {
                t.alu(3);
            }
            if i % 3 == 2 {
                let _: f32 = t.ld(self.a, i + 1);
            } else {
                let _: f32 = t.ld(self.a, i + 2);
            }
            t.alu(2);
        }
    }

    /// Follow mode's inlined matches (`Thread::rec`, `Thread::rec_n`) compare lane 0's
    /// call site with the follower's: a lane at another site with an otherwise equal
    /// operation leaves follow mode, and the warp issues both sites as the recorded
    /// programs do (fails with the site compare left out of either match).
    #[test]
    fn follow_mode_tells_call_sites_apart() {
        let gen = |follow: bool| {
            let mut m = Memory::new();
            let a = m.alloc_from::<f32>("a", &[1.0; 80], true);
            let mut w = ModelWorkload::new("t", m, Box::new(Once(Some(Box::new(TwoSites { a })))));
            w.set_follow(follow);
            let mut bp = BlockProgram::default();
            let mut l = w.next_launch().unwrap().unwrap();
            l.block(0, false, 128, &mut bp).unwrap();
            bp
        };
        let (on, off) = (gen(true), gen(false));
        assert_eq!(format!("{on:?}"), format!("{off:?}"));
        // each diverged site is its own instructions: ld, alu x3 twice, ld twice, alu x2, exit
        assert_eq!(off.warps[0].insts.len(), 1 + 2 * 3 + 2 + 2 + 1);
    }

    #[test]
    fn vecadd_block_shape_and_function() {
        let mut m = Memory::new();
        let n = 100;
        let a = m.alloc_from::<f32>("a", &vec![1.0; n], true);
        let b = m.alloc_from::<f32>("b", &vec![2.0; n], true);
        let c = m.alloc::<f32>("c", n as u64, false);
        let k = VecAdd {
            a,
            b,
            c,
            n: n as u64,
        };
        let mut w = ModelWorkload::new("t", m, Box::new(Once(Some(Box::new(k)))));
        let mut bp = BlockProgram::default();
        {
            let mut l = w.next_launch().unwrap().unwrap();
            assert_eq!(l.info().grid.x, 2);
            l.block(0, false, 128, &mut bp).unwrap();
            assert_eq!(bp.warps.len(), 2);
            // ld, ld, fp, st, exit
            let w0 = &bp.warps[0];
            assert_eq!(w0.insts.len(), 5);
            assert_eq!(w0.insts[0].class, InstClass::Load);
            assert_eq!(
                w0.insts[0].nlines, 1,
                "32 x 4 B contiguous = one 128 B line"
            );
            assert_eq!(w0.insts[3].class, InstClass::Store);
            assert_eq!(w0.insts[4].class, InstClass::Exit);
            // one PC per recording call site, the same in every warp
            let pcs: Vec<u32> = w0.insts[..4].iter().map(|i| i.pc).collect();
            assert!(pcs.iter().all(|&p| p != 0));
            assert_ne!(pcs[0], pcs[1], "the two loads are different instructions");
            let w1: Vec<u32> = bp.warps[1].insts[..4].iter().map(|i| i.pc).collect();
            assert_eq!(pcs, w1);
            l.block(1, false, 128, &mut bp).unwrap();
            // block 1 has threads 64..128 but n = 100: warp 1 (96..128) has 4 active lanes
            assert_eq!(bp.warps[1].insts[0].lanes, 4);
        }
        assert_eq!(w.memory().get::<f32>(c, 99), 3.0);
        assert_eq!(w.memory().get::<f32>(c, 0), 3.0);
        assert!(w.next_launch().unwrap().is_none());
    }

    #[test]
    fn probe_does_not_write() {
        let mut m = Memory::new();
        let a = m.alloc_from::<f32>("a", &[1.0; 64], true);
        let b = m.alloc_from::<f32>("b", &[2.0; 64], true);
        let c = m.alloc::<f32>("c", 64, false);
        let k = VecAdd { a, b, c, n: 64 };
        let mut w = ModelWorkload::new("t", m, Box::new(Once(Some(Box::new(k)))));
        let mut bp = BlockProgram::default();
        {
            let mut l = w.next_launch().unwrap().unwrap();
            l.block(0, true, 128, &mut bp).unwrap();
        }
        assert_eq!(w.memory().get::<f32>(c, 0), 0.0);
    }

    /// `if (i odd) { OFLD.BEG; x = b[a[i]]; OFLD.END }` then `y = a[i]; c[i] = x + y`.
    struct Divergent {
        a: ObjId,
        b: ObjId,
        c: ObjId,
    }
    impl Kernel for Divergent {
        fn info(&self) -> KernelInfo {
            one_block_of_64("divergent")
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            let i = t.gid();
            t.alu(1);
            let mut x = 0.0f32;
            if i % 2 == 1 {
                t.ofld_begin(3, 1, 1);
                let j: u32 = t.peek(self.a, i);
                x = t.ld(self.b, j as u64);
                t.ofld_end(1);
            }
            let y: u32 = t.ld(self.a, i);
            t.fp(1);
            t.st(self.c, i, x + y as f32);
        }
    }

    /// A marker inside an `if` that the odd lanes take: the block instance is the odd
    /// lanes' indirect load alone (16 lanes, one instruction, contiguous), and the warp runs
    /// the same instructions as without markers (the even lanes' load of `a` is not pulled
    /// into the block, as it was when markers took a position in the lanes' alignment).
    #[test]
    fn divergent_marker_covers_the_taken_lanes_only() {
        let gen = |marks: bool| {
            let mut m = Memory::new();
            let a = m.alloc_from::<u32>("a", &(0..64).rev().collect::<Vec<u32>>(), true);
            let b = m.alloc_from::<f32>("b", &[2.0; 64], true);
            let c = m.alloc::<f32>("c", 64, false);
            let k = Divergent { a, b, c };
            let mut w = ModelWorkload::new("t", m, Box::new(Once(Some(Box::new(k)))));
            let mut bp = BlockProgram {
                offload_markers: marks,
                ..Default::default()
            };
            let mut l = w.next_launch().unwrap().unwrap();
            l.block(0, false, 128, &mut bp).unwrap();
            (bp, b)
        };
        let (on, b) = gen(true);
        let (off, _) = gen(false);
        let key = |i: &WarpInst| (i.pc, i.class as u8, i.space as u8, i.lanes, i.nlines);
        for (wa, wb) in on.warps.iter().zip(&off.warps) {
            assert!(wb.offload.is_empty());
            let mut x: Vec<_> = wa.insts.iter().map(key).collect();
            let mut y: Vec<_> = wb.insts.iter().map(key).collect();
            x.sort();
            y.sort();
            assert_eq!(x, y, "markers change no instruction of the warp");
            assert_eq!(wa.offload.len(), 1);
            let m = wa.offload[0];
            assert_eq!((m.block, m.live_ins, m.live_outs, m.lanes), (3, 1, 1, 16));
            assert_eq!(m.end, m.begin + 1, "the single indirect load");
            let ld = wa.insts[m.begin as usize];
            assert_eq!((ld.class, ld.lanes), (InstClass::Load, 16));
            assert!(wa.lines_of(&ld).iter().all(|l| l.obj == b));
        }
    }
}
