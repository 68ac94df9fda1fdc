//! The common form every workload is lowered to before it reaches the simulator: per thread
//! block, per warp, a list of [`WarpInst`] with their coalesced line requests.
//!
//! Both sources of work, built-in kernel models ([`crate::model`]) and Accel-Sim traces
//! ([`crate::trace_source`]), produce this form one thread block at a time, when the scheduler
//! dispatches that block, so memory stays bounded by the blocks in flight.

use serde::Serialize;

/// A CUDA `dim3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }
    pub const fn x(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
    /// Number of elements `x*y*z`.
    pub fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
    /// Row-major linear index of `idx` inside `self` (x fastest), as CUDA linearises blocks.
    pub fn linear(&self, idx: Dim3) -> u64 {
        (idx.z as u64 * self.y as u64 + idx.y as u64) * self.x as u64 + idx.x as u64
    }
    /// Inverse of [`Dim3::linear`].
    pub fn unlinear(&self, i: u64) -> Dim3 {
        let x = (i % self.x as u64) as u32;
        let r = i / self.x as u64;
        let y = (r % self.y as u64) as u32;
        let z = (r / self.y as u64) as u32;
        Dim3 { x, y, z }
    }
}

/// Data-object id: an index into the workload's object table.
pub type ObjId = u16;
/// Marks an access outside every named data object (stack/local memory, unknown buffers).
pub const NO_OBJ: ObjId = u16::MAX;

/// Register id in the per-warp scoreboard. 0 means "no register".
pub type Reg = u16;
/// Source register meaning "wait for every outstanding load of this warp".
pub const REG_ALL: Reg = u16::MAX;
/// Number of distinct scoreboard registers (R0-255, UR0-63, P0-7, UP0-7, spares).
pub const NUM_REGS: usize = 384;

/// Memory space of an access (Accel-Sim trace format §memory space; HMS model spaces).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum Space {
    Global,
    Shared,
    Local,
    Constant,
    Texture,
}

impl Space {
    pub const ALL: [Space; 5] = [
        Space::Global,
        Space::Shared,
        Space::Local,
        Space::Constant,
        Space::Texture,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Constant => "constant",
            Space::Texture => "texture",
        }
    }
}

/// What a warp instruction does, at the grain the timing model needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum InstClass {
    /// Integer / logic / move.
    Int,
    /// Floating point.
    Fp,
    /// Special-function unit (transcendentals, conversions).
    Sfu,
    /// Branch / control.
    Branch,
    /// Memory read.
    Load,
    /// Memory write.
    Store,
    /// Read-modify-write performed at the data's home (atomics, reductions).
    Atomic,
    /// `__syncthreads()`: waits for every warp of the block.
    Barrier,
    /// Warp exit.
    Exit,
}

impl InstClass {
    pub fn is_mem(self) -> bool {
        matches!(self, InstClass::Load | InstClass::Store | InstClass::Atomic)
    }
    pub const ALL: [InstClass; 9] = [
        InstClass::Int,
        InstClass::Fp,
        InstClass::Sfu,
        InstClass::Branch,
        InstClass::Load,
        InstClass::Store,
        InstClass::Atomic,
        InstClass::Barrier,
        InstClass::Exit,
    ];
    pub fn name(self) -> &'static str {
        match self {
            InstClass::Int => "int",
            InstClass::Fp => "fp",
            InstClass::Sfu => "sfu",
            InstClass::Branch => "branch",
            InstClass::Load => "load",
            InstClass::Store => "store",
            InstClass::Atomic => "atomic",
            InstClass::Barrier => "barrier",
            InstClass::Exit => "exit",
        }
    }
}

/// One coalesced request of a memory instruction: a line-aligned virtual address, how many
/// bytes of the line the active lanes touch, which 32-byte chunks of the line they touch
/// and which data object it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineReq {
    pub addr: u64,
    pub bytes: u16,
    pub obj: ObjId,
    /// Bit `k`: the lanes touch bytes `32k .. 32k + 32` of the line (a line of up to
    /// 1,024 bytes). What a sectored cache fetches (`system.sector_bytes`: NVIDIA's L1 and
    /// L2 fill 32-byte sectors of a 128-byte line, not whole lines); unused otherwise.
    pub sectors: u32,
}

/// Bytes per bit of [`LineReq::sectors`].
pub const CHUNK_BYTES: u64 = 32;

/// The [`LineReq::sectors`] bits of bytes `off .. end` of a line (`off < end`, both
/// line-relative).
#[inline]
pub fn chunk_bits(off: u64, end: u64) -> u32 {
    let lo = off / CHUNK_BYTES;
    let hi = (end - 1) / CHUNK_BYTES;
    (((2u64 << hi) - 1) & !((1u64 << lo) - 1)) as u32
}

/// One warp instruction (compact: 24 bytes). Memory instructions own `nlines` consecutive
/// entries of their warp's [`WarpProgram::lines`] starting at `first_line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpInst {
    /// Program counter: the trace's PC, or for kernel models a stable id of the call site
    /// that recorded it (line << 16 | column), equal for every warp executing the same
    /// instruction. Policies that learn per instruction (offload selection, replay causes)
    /// key on it.
    pub pc: u32,
    pub class: InstClass,
    pub space: Space,
    /// Number of active lanes (1..=32).
    pub lanes: u8,
    /// Destination register (0 = none); a load's result is pending until it returns.
    pub dst: Reg,
    /// Source registers (0 = none, [`REG_ALL`] = all outstanding loads).
    pub srcs: [Reg; 3],
    pub first_line: u32,
    pub nlines: u16,
}

const _: () = assert!(
    std::mem::size_of::<WarpInst>() <= 24,
    "WarpInst stays compact"
);

impl Default for WarpInst {
    /// A one-lane `EXIT` (what a warp past its last instruction executes).
    fn default() -> Self {
        WarpInst::alu(InstClass::Exit, 1)
    }
}

impl WarpInst {
    /// A non-memory instruction.
    pub fn alu(class: InstClass, lanes: u8) -> Self {
        WarpInst {
            pc: 0,
            class,
            space: Space::Global,
            lanes,
            dst: 0,
            srcs: [0; 3],
            first_line: 0,
            nlines: 0,
        }
    }
}

/// The address one lane of a memory instruction accessed (opt-in, see
/// [`BlockProgram::record_lanes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAddr {
    /// Lane within the warp (0..32).
    pub lane: u8,
    /// Bytes accessed.
    pub bytes: u16,
    /// Virtual address (global, local, constant, texture) or byte offset in the block's
    /// shared memory (shared).
    pub addr: u64,
}

/// One dynamic instance of an offload block in a warp (NDP, spec ndp.md §3.3-§3.4): the
/// kernel model's `Thread::ofld_begin` / `Thread::ofld_end` markers, the `OFLD.BEG` and
/// `OFLD.END` of the paper's ISA. Recorded only when the block was generated with
/// [`BlockProgram::offload_markers`]; markers never become warp instructions, so the
/// instruction stream is the same with and without them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffloadMark {
    /// Static block id inside the kernel (the `OFLD.BEG` PC of the paper).
    pub block: u8,
    /// Index in [`WarpProgram::insts`] of the block's first instruction.
    pub begin: u32,
    /// Index one past its last instruction.
    pub end: u32,
    /// Live-in registers per thread (sent in the offload command).
    pub live_ins: u8,
    /// Live-out registers per thread (returned in the offload ack).
    pub live_outs: u8,
    /// Static instructions of the block's NSU code (loads, stores and `@NSU` ALU work;
    /// Table 1's block size). For a loop block ([`OffloadMark::iters`] > 1) the loop body's.
    pub nsu_insts: u8,
    /// Iterations of the NSU code's loop body in this instance (1: straight-line code). A
    /// block spanning a loop whose control and addresses stay on the GPU (km's feature
    /// loop, spec ndp.md Table 1 KMN) runs `nsu_insts` static instructions `iters` times.
    pub iters: u16,
    /// Threads of the warp that entered the block.
    pub lanes: u8,
}

/// The instructions of one warp.
#[derive(Clone, Debug, Default)]
pub struct WarpProgram {
    pub insts: Vec<WarpInst>,
    pub lines: Vec<LineReq>,
    /// Lane addresses, filled only when the block was generated with
    /// [`BlockProgram::record_lanes`] (empty otherwise): instruction `i` owns
    /// `lane_addrs[lane_at[i] as usize..lane_at[i + 1] as usize]` (`lane_at` has one entry
    /// per instruction plus the end), one entry per active lane of a memory instruction,
    /// none for other instructions.
    pub lane_at: Vec<u32>,
    pub lane_addrs: Vec<LaneAddr>,
    /// Offload-block instances in program order (only with
    /// [`BlockProgram::offload_markers`]; empty otherwise).
    pub offload: Vec<OffloadMark>,
    /// The warp has more instructions than `insts` holds: the block was generated with
    /// [`BlockProgram::max_warp_insts`] and this warp reached it. `insts` is then exactly
    /// the first `max_warp_insts` instructions of the full program, and a simulator that
    /// needs the next one must generate the block again without the limit.
    pub truncated: bool,
}

impl WarpProgram {
    pub fn clear(&mut self) {
        self.insts.clear();
        self.lines.clear();
        self.lane_at.clear();
        self.lane_addrs.clear();
        self.offload.clear();
        self.truncated = false;
    }
    /// The line requests of instruction `i`.
    pub fn lines_of(&self, inst: &WarpInst) -> &[LineReq] {
        let s = inst.first_line as usize;
        &self.lines[s..s + inst.nlines as usize]
    }
    /// The lane addresses of the instruction at index `i` of `insts` (its position, the
    /// warp's program counter in the simulator), or `None` when the block was generated
    /// without [`BlockProgram::record_lanes`] or by a workload that does not record them.
    /// Coalescing them ([`coalesce`]) gives exactly the instruction's line
    /// requests.
    pub fn lanes_of(&self, i: usize) -> Option<&[LaneAddr]> {
        let (&s, &e) = (self.lane_at.get(i)?, self.lane_at.get(i + 1)?);
        Some(&self.lane_addrs[s as usize..e as usize])
    }
    /// Close the lane-address table after the last instruction (generators call this once
    /// per warp when recording lanes).
    pub fn end_lanes(&mut self) {
        self.lane_at.push(self.lane_addrs.len() as u32);
    }
}

/// The warps of one thread block, reused between blocks to avoid allocation.
#[derive(Clone, Debug, Default)]
pub struct BlockProgram {
    pub warps: Vec<WarpProgram>,
    /// Opt-in: record every memory instruction's per-lane addresses
    /// ([`WarpProgram::lanes_of`]) for policies that need them (e.g. per-lane offload or
    /// replication decisions). Off by default; when off nothing is recorded and nothing
    /// is paid but one test per instruction. Kernel models and traces honour it (a
    /// workload that does not leaves the side buffer empty: `lanes_of` is `None`).
    pub record_lanes: bool,
    /// Opt-in: record the kernel models' offload-block markers
    /// ([`WarpProgram::offload`], NDP). Off by default: the markers then record nothing.
    pub offload_markers: bool,
    /// Opt-in: generate at most this many instructions per warp (0: all). A capped run
    /// issues a small part of its first wave's programs; past the limit a kernel model
    /// still runs every thread to its end (the workload's memory is exactly as without the
    /// limit) but records and merges nothing more, and marks the warp
    /// [`WarpProgram::truncated`]. Kernel models honour it unless lanes or offload
    /// markers are recorded; other workloads may ignore it (their warps are never
    /// truncated).
    pub max_warp_insts: u32,
}

impl BlockProgram {
    /// Make room for `n` empty warps, reusing buffers.
    pub fn reset(&mut self, n: usize) {
        if self.warps.len() < n {
            self.warps.resize_with(n, WarpProgram::default);
        }
        self.warps.truncate(n);
        for w in &mut self.warps {
            w.clear();
        }
    }
    pub fn num_insts(&self) -> usize {
        self.warps.iter().map(|w| w.insts.len()).sum()
    }
}

/// Launch description of one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelInfo {
    pub name: String,
    pub grid: Dim3,
    pub block: Dim3,
    /// Registers per thread (occupancy).
    pub regs_per_thread: u32,
    /// Static + dynamic shared memory per block in bytes (occupancy).
    pub smem_per_block: u32,
}

impl KernelInfo {
    pub fn threads_per_block(&self) -> u32 {
        self.block.count() as u32
    }
    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block().div_ceil(32)
    }
    pub fn num_blocks(&self) -> u64 {
        self.grid.count()
    }
}

/// A named device buffer (cudaMalloc): virtual base, size and element size.
#[derive(Clone, Debug, Serialize)]
pub struct DataObject {
    pub name: String,
    pub base: u64,
    pub bytes: u64,
    pub elem_bytes: u32,
    pub read_only: bool,
}

impl DataObject {
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.base && addr < self.base + self.bytes
    }
}

/// Placement hints a workload can give for an object when its accesses are input-dependent:
/// the profiler path of CODA §4.3.2 / spec §3.7 (mean bytes per thread block and the
/// coefficient of variation of that amount across blocks).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ProfileHint {
    pub obj: ObjId,
    pub bytes_per_block: f64,
    pub cv: f64,
}

/// A named array in a block's shared memory (`__shared__ T name[n]` of the CUDA source):
/// `bytes` bytes from byte `offset` of the block's shared memory. Declared by a kernel so
/// that a consumer can tell its shared arrays apart (the HMS model moves one of several:
/// SHOC sort's `sBlockOffsets(S→G)`); the simulator itself does not need it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SharedArray {
    pub name: String,
    pub offset: u32,
    pub bytes: u32,
    pub elem_bytes: u32,
}

/// Errors of workload generation (trace read errors, bad parameters).
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error("{0}")]
    Msg(String),
    #[error(transparent)]
    Trace(#[from] locus_trace::TraceError),
}

/// One kernel launch that can produce its thread blocks on demand (a view of a
/// [`Workload`]'s current launch; see [`Workload::next_launch`]).
pub trait Launch {
    fn info(&self) -> &KernelInfo;
    /// Generate block `block` (row-major linear id) into `out`, line size `line_bytes`.
    /// With `probe`, the block is generated without side effects on the workload's data
    /// (used by placement analyses that sample blocks before the launch).
    fn block(
        &mut self,
        block: u64,
        probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError>;
    /// Profiler hints for input-dependent objects (graphs); empty by default.
    fn profile_hints(&self) -> Vec<ProfileHint> {
        Vec::new()
    }
}

/// A program: data objects plus a sequence of kernel launches produced one at a time, so
/// host-side control flow (e.g. "repeat BFS until the frontier is empty") can read results.
///
/// The workload owns the state of its current launch, so several workloads can run at once
/// (one application per GPU) without borrowing each other.
pub trait Workload: Send {
    fn name(&self) -> &str;
    fn objects(&self) -> &[DataObject];
    /// Make the next launch current and return its shape, or `None` when the program is
    /// done.
    fn begin_launch(&mut self) -> Result<Option<KernelInfo>, WorkloadError>;
    /// Generate block `block` (row-major linear id) of the current launch into `out`.
    /// With `probe`, without side effects on the workload's data.
    fn gen_block(
        &mut self,
        block: u64,
        probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError>;
    /// Profiler hints of the current launch (CODA §4.3.2 profiler path).
    fn launch_hints(&self) -> Vec<ProfileHint> {
        Vec::new()
    }
    /// Warnings collected while reading (unknown opcodes ...).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// The named shared arrays of the current launch ([`SharedArray`]); empty when the
    /// kernel declares none (its shared memory is then one undivided scratch area).
    fn launch_shared_arrays(&self) -> Vec<SharedArray> {
        Vec::new()
    }
    /// The data objects the current launch may write (store or atomic), known before its
    /// first block runs: every other object is read-only in it (the per-kernel read-only
    /// bit, issue 7 §4; NUBA's `ld.global.ro`). Sorted, without duplicates. `None` means
    /// unknown, and a caller must then assume every object may be written.
    ///
    /// A launch that declares its writes answers for free. Otherwise, with `compute`, a
    /// workload may work the answer out at a cost: kernel models run every thread of the
    /// launch functionally on a scratch copy of memory (exact for the blocks' dispatch in
    /// order, as fair round-robin dispatches them). Traces answer `None` (conservative:
    /// finding a trace kernel's stores means reading the whole kernel once more).
    fn launch_writes(&mut self, compute: bool) -> Option<Vec<ObjId>> {
        let _ = compute;
        None
    }
    /// The data objects the current launch accesses at all (any load, store or atomic
    /// outside shared memory), known before its first block runs, at the cost of working
    /// it out: kernel models run every thread of the launch functionally on a scratch copy
    /// of memory (the dry run of [`Workload::launch_writes`]). Each with the largest range
    /// of it one block's accesses span (bytes, first byte to last). Sorted by object,
    /// without duplicates; `None`: unknown (traces). Asked only when an object is placed
    /// in shared memory: a launch copies such an object into each block's shared memory
    /// only when it uses it, whole or the range a block reads (the simulator's staging).
    fn launch_objects(&mut self) -> Option<Vec<(ObjId, u64)>> {
        None
    }
    /// The next launch as a [`Launch`] view, or `None` when the program is done.
    fn next_launch(&mut self) -> Result<Option<Box<dyn Launch + '_>>, WorkloadError>
    where
        Self: Sized,
    {
        Ok(self
            .begin_launch()?
            .map(|info| Box::new(Cursor { w: self, info }) as Box<dyn Launch + '_>))
    }
}

/// The current launch of a workload seen as a [`Launch`].
pub struct Cursor<'a, W: Workload + ?Sized> {
    w: &'a mut W,
    info: KernelInfo,
}

impl<'a, W: Workload + ?Sized> Cursor<'a, W> {
    /// Begin the next launch of `w`.
    pub fn next(w: &'a mut W) -> Result<Option<Self>, WorkloadError> {
        Ok(w.begin_launch()?.map(|info| Cursor { w, info }))
    }
}

impl<W: Workload + ?Sized> Launch for Cursor<'_, W> {
    fn info(&self) -> &KernelInfo {
        &self.info
    }
    fn block(
        &mut self,
        block: u64,
        probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError> {
        self.w.gen_block(block, probe, line_bytes, out)
    }
    fn profile_hints(&self) -> Vec<ProfileHint> {
        self.w.launch_hints()
    }
}

/// Find the object containing `addr` in `objs` sorted by base; `NO_OBJ` if none.
pub fn object_of(objs: &[DataObject], addr: u64) -> ObjId {
    let i = objs.partition_point(|o| o.base <= addr);
    if i == 0 {
        return NO_OBJ;
    }
    if objs[i - 1].contains(addr) {
        (i - 1) as ObjId
    } else {
        NO_OBJ
    }
}

/// Coalesce lane addresses `(addr, bytes)` into line requests (GPU coalescer: one request per
/// distinct `line_bytes`-aligned line, in first-touch lane order), appending to `out`.
/// Returns the number of lines appended.
///
/// The lines already appended are found through a small hash index (a scattered warp access
/// touches up to 32 lines, and a search of the list for each lane made this quadratic: a
/// twelfth of spmv's host instructions), the previous lane's line first; past
/// `COALESCE_INDEXED` lines it falls back to the plain search. The result is the plain
/// search's: the same lines, order and byte counts (`coalesce_matches_the_plain_search`).
/// While the lines appended so far ascend (a warp reading consecutive elements), a line
/// past the last one is new without a look-up; the index is built, from the lines appended
/// so far, only when a line comes below the last one.
pub fn coalesce(lanes: &[(u64, u32)], line_bytes: u32, obj: ObjId, out: &mut Vec<LineReq>) -> u16 {
    debug_assert!(line_bytes.is_power_of_two());
    let start = out.len();
    let mask = !(line_bytes as u64 - 1);
    if let Some(&(a0, _)) = lanes.first() {
        // one line for every lane (a broadcast, 32 consecutive words): its bytes are the
        // sum of the lanes' capped at the line, what the per-lane updates below add up to
        // (a chain of read-modify-writes of one `LineReq`, a third of gemm's coalescing)
        let line = a0 & mask;
        let lim = line + line_bytes as u64;
        let mut sum = 0u64;
        let mut sectors = 0u32;
        let mut one = true;
        for &(a, b) in lanes {
            let end = a + b.max(1) as u64;
            if a & mask != line || end > lim {
                one = false;
                break;
            }
            sum += end - a;
            sectors |= chunk_bits(a - line, end - line);
        }
        if one {
            out.push(LineReq {
                addr: line,
                bytes: sum.min(line_bytes as u64) as u16,
                obj,
                sectors,
            });
            return 1;
        }
    }
    let shift = line_bytes.trailing_zeros();
    // slot -> index in `out[start..]` + 1 (0: empty), open addressing over 128 slots; it
    // holds `out[start..start + indexed]` (made on first use)
    let mut index: Option<[u16; 128]> = None;
    let mut indexed = 0usize;
    // every line in `out[start..]` is above the one before it
    let mut ascending = true;
    let slot = |line: u64| ((line >> shift).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as usize;
    for &(a, b) in lanes {
        let mut addr = a;
        let end = a + b.max(1) as u64;
        while addr < end {
            let line = addr & mask;
            let line_end = (line + line_bytes as u64).min(end);
            let used = (line_end - addr) as u16;
            let bits = chunk_bits(addr - line, line_end - line);
            let n = out.len() - start;
            let last = out.last().map_or(0, |l| l.addr);
            let found = if n > 0 && last == line {
                Some(out.len() - 1)
            } else if n == 0 || (ascending && line > last) {
                // above every line so far: new
                None
            } else if n < COALESCE_INDEXED {
                ascending = false;
                // every line appended so far goes into the index
                let index = index.get_or_insert([0u16; 128]);
                while indexed < n {
                    let mut h = slot(out[start + indexed].addr);
                    while index[h] != 0 {
                        h = (h + 1) & 127;
                    }
                    index[h] = indexed as u16 + 1;
                    indexed += 1;
                }
                let mut h = slot(line);
                loop {
                    match index[h] {
                        0 => break None,
                        v if out[start + v as usize - 1].addr == line => {
                            break Some(start + v as usize - 1)
                        }
                        _ => h = (h + 1) & 127,
                    }
                }
            } else {
                ascending = false;
                out[start..]
                    .iter()
                    .position(|l| l.addr == line)
                    .map(|i| start + i)
            };
            match found {
                Some(i) => {
                    let l = &mut out[i];
                    l.bytes = (l.bytes + used).min(line_bytes as u16);
                    l.sectors |= bits;
                }
                None => out.push(LineReq {
                    addr: line,
                    bytes: used,
                    obj,
                    sectors: bits,
                }),
            }
            addr = line_end;
        }
    }
    (out.len() - start) as u16
}

/// Lines of one [`coalesce`] call held in its hash index (at most 3/4 of its 128 slots).
const COALESCE_INDEXED: usize = 96;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim3_linear_roundtrip() {
        let d = Dim3::new(7, 5, 3);
        for i in 0..d.count() {
            assert_eq!(d.linear(d.unlinear(i)), i);
        }
    }

    /// The touched 32-byte chunks of each line, by hand.
    #[test]
    fn coalesce_marks_the_chunks_the_lanes_touch() {
        let mut out = Vec::new();
        let warp: Vec<(u64, u32)> = (0..32).map(|i| (4096 + 4 * i, 4)).collect();
        coalesce(&warp, 128, 0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].sectors, 0b1111,
            "32 consecutive words: the whole line"
        );
        out.clear();
        let strided: Vec<(u64, u32)> = (0..4).map(|i| (128 * i + 36, 4)).collect();
        coalesce(&strided, 128, 0, &mut out);
        assert!(out.iter().all(|l| l.sectors == 0b0010), "{out:?}");
        out.clear();
        coalesce(&[(60, 8), (200, 4), (130, 2)], 128, 0, &mut out);
        assert_eq!(
            out[0].sectors, 0b0110,
            "bytes 60..68 straddle chunks 1 and 2"
        );
        assert_eq!(out[1].sectors, 0b0101, "bytes 130 and 200: chunks 0 and 2");
        out.clear();
        coalesce(&[(1020, 8)], 1024, 0, &mut out);
        assert_eq!(out[0].sectors, 1 << 31, "the last chunk of a 1 KB line");
        assert_eq!(out[1].sectors, 1, "and the first of the next");
        assert_eq!(chunk_bits(0, 1024), u32::MAX);
    }

    /// The coalescer before its hash index: a search of the lines appended for each lane.
    fn coalesce_plain(lanes: &[(u64, u32)], line_bytes: u32, obj: ObjId) -> Vec<LineReq> {
        let mut out: Vec<LineReq> = Vec::new();
        let mask = !(line_bytes as u64 - 1);
        for &(a, b) in lanes {
            let mut addr = a;
            let end = a + b.max(1) as u64;
            while addr < end {
                let line = addr & mask;
                let line_end = (line + line_bytes as u64).min(end);
                let used = (line_end - addr) as u16;
                let bits = chunk_bits(addr - line, line_end - line);
                if let Some(l) = out.iter_mut().find(|l| l.addr == line) {
                    l.bytes = (l.bytes + used).min(line_bytes as u16);
                    l.sectors |= bits;
                } else {
                    out.push(LineReq {
                        addr: line,
                        bytes: used,
                        obj,
                        sectors: bits,
                    });
                }
                addr = line_end;
            }
        }
        out
    }

    #[test]
    fn coalesce_matches_the_plain_search() {
        // pseudo-random warps: contiguous, strided, scattered over few and many lines,
        // repeated lines, accesses straddling lines, wide accesses (past the hash index's
        // 96 lines), appended after earlier requests: same lines, order and bytes
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked_wide = false;
        for case in 0..3000 {
            let line = [32u32, 64, 128][(rnd() % 3) as usize];
            let n = 1 + (rnd() % 32) as usize;
            let kind = rnd() % 6;
            let span = [4u64, 64, 4096, 1 << 20, 1 << 30][(rnd() % 5) as usize];
            let base = rnd() % (1 << 40);
            let lanes: Vec<(u64, u32)> = (0..n)
                .map(|i| {
                    let a = match kind {
                        0 => base + 4 * i as u64,
                        1 => base + (rnd() % 8) * 8,
                        2 => base + span * i as u64,
                        5 => base, // a broadcast
                        _ => base + rnd() % span,
                    };
                    let b = match rnd() % 8 {
                        0 => 0,
                        1 => 16,
                        2 => 300 + (rnd() % 1000) as u32,
                        _ => 4,
                    };
                    (a, b)
                })
                .collect();
            let want = coalesce_plain(&lanes, line, 7);
            checked_wide |= want.len() > COALESCE_INDEXED;
            let mut out = vec![LineReq {
                addr: 1,
                bytes: 2,
                obj: 3,
                sectors: 1,
            }];
            let n = coalesce(&lanes, line, 7, &mut out);
            assert_eq!(n as usize, want.len(), "case {case}");
            assert_eq!(out[0].addr, 1, "case {case}: earlier requests untouched");
            for (g, w) in out[1..].iter().zip(&want) {
                assert_eq!(
                    (g.addr, g.bytes, g.obj, g.sectors),
                    (w.addr, w.bytes, w.obj, w.sectors),
                    "case {case}"
                );
            }
        }
        assert!(checked_wide, "some warp went past the hash index");
    }

    #[test]
    fn coalesce_contiguous_warp_is_one_line() {
        let lanes: Vec<(u64, u32)> = (0..32).map(|i| (0x1000 + 4 * i, 4)).collect();
        let mut out = Vec::new();
        assert_eq!(coalesce(&lanes, 128, 0, &mut out), 1);
        assert_eq!(out[0].bytes, 128);
    }

    #[test]
    fn coalesce_strided_warp_is_32_lines() {
        let lanes: Vec<(u64, u32)> = (0..32).map(|i| (0x1000 + 256 * i, 4)).collect();
        let mut out = Vec::new();
        assert_eq!(coalesce(&lanes, 128, 0, &mut out), 32);
    }

    #[test]
    fn coalesce_straddling_access_touches_two_lines() {
        let mut out = Vec::new();
        assert_eq!(coalesce(&[(120, 16)], 128, 0, &mut out), 2);
        assert_eq!(out[0].bytes + out[1].bytes, 16);
    }

    #[test]
    fn object_lookup() {
        let o = |b, n| DataObject {
            name: String::new(),
            base: b,
            bytes: n,
            elem_bytes: 4,
            read_only: false,
        };
        let objs = vec![o(0x1000, 0x100), o(0x3000, 0x1000)];
        assert_eq!(object_of(&objs, 0x1050), 0);
        assert_eq!(object_of(&objs, 0x1100), NO_OBJ);
        assert_eq!(object_of(&objs, 0x3fff), 1);
        assert_eq!(object_of(&objs, 0x10), NO_OBJ);
    }
}
