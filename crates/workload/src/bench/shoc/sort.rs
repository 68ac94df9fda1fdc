//! SHOC Sort (level 1, `sort_kernel.cu`, `Sort.cu`): LSD radix sort of 32-bit keys with
//! values, 4 bits per pass (8 passes). Each pass of SHOC runs `radixSortBlocks` (each
//! 512-key block sorted locally by the digit), `findRadixOffsets` (per block the digit
//! counts and the start of each digit in the block, `blockOffsets`), a recursive scan of
//! the counts (digit-major) into global `offsets`, and `reorderData`, the kernel HMS
//! evaluates. **Only `reorderData` is modelled**: the host computes its inputs functionally
//! (the block-sorted keys and values, `blockOffsets` and the scanned `offsets`, exactly what
//! the three earlier kernels leave in device memory; their launches are not timed) and
//! launches `reorderData` once per pass.
//!
//! `reorderData` (blocks of `SCAN_BLOCK_SIZE` = 256 threads, 512 keys per block): each
//! thread copies one `uint2` of keys and of values into the shared `sKeys2` / `sValues2`,
//! threads below 16 load `offsets[tid * totalBlocks + blockId]` (a strided gather) and
//! `blockOffsets[blockId * 16 + tid]` into `sOffsets` / `sBlockOffsets`;
//! `__syncthreads()`; then for its keys `tid` and `tid + 256` it computes the digit and
//! scatters key and value to `sOffsets[radix] + j - sBlockOffsets[radix]`.
//!
//! Inputs: HMS Table IV (`reorderData`, `sBlockOffsets(S→G)`) gives no size; SHOC's default
//! size class 1: 1 MiB of keys = 262,144 (classes 1, 8, 48, 96 MiB), keys random below
//! 2^31 (SHOC: `rand()`), values their indices; footprint 4 MiB, under the cap (rule 1 keeps
//! it). The model records each 64-bit shared store as two 32-bit `STS`.
//!
//! Placement: `--param sblockoffsets_space=global` is HMS's `sBlockOffsets(S→G)`: the
//! 16-entry array lives in global memory at `blockId * 16 + r`.

use super::common::{bad, entry, host, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, SharedArray, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-sort",
    suite: "SHOC",
    category: "-",
    about: "SHOC Sort reorderData: radix-sort scatter of 512-key blocks, 8 passes of 4 bits (the other sort kernels' outputs computed by the host)",
    params: &[
        ParamSpec {
            name: "n",
            default: "262144",
            help: "keys (SHOC size class 1 = 1 MiB; multiple of 512)",
        },
        ParamSpec {
            name: "sblockoffsets_space",
            default: "shared",
            help: "space of sBlockOffsets: shared | global (HMS sBlockOffsets(S→G))",
        },
    ],
    build,
};

/// Keys per block (`2 * SCAN_BLOCK_SIZE`).
const KB: u64 = 512;
/// Threads per block.
const BS: u64 = 256;
/// Shared word bases: `sKeys2`, `sValues2`, `sOffsets`, `sBlockOffsets`.
const SH_KEYS: u32 = 0;
const SH_VALS: u32 = 512;
const SH_OFF: u32 = 1024;
const SH_BOFF: u32 = 1040;

struct Reorder {
    startbit: u32,
    out_keys: ObjId,
    out_vals: ObjId,
    keys: ObjId,
    vals: ObjId,
    block_offsets: ObjId,
    offsets: ObjId,
    /// `sBlockOffsets` in global memory (HMS S→G), `None` for shared.
    sbo_g: Option<ObjId>,
    blocks: u64,
}

impl Reorder {
    #[track_caller]
    fn sbo_st(&self, t: &mut Thread<'_>, r: u64, v: u32) {
        match self.sbo_g {
            None => t.sh_st(SH_BOFF + r as u32, v),
            Some(o) => {
                t.alu(1);
                t.st(o, t.block.x as u64 * 16 + r, v)
            }
        }
    }
    #[track_caller]
    fn sbo_ld(&self, t: &mut Thread<'_>, r: u64) -> u32 {
        match self.sbo_g {
            None => t.sh_ld(SH_BOFF + r as u32),
            Some(o) => {
                t.alu(1);
                t.ld(o, t.block.x as u64 * 16 + r)
            }
        }
    }
}

impl Kernel for Reorder {
    fn info(&self) -> KernelInfo {
        kinfo(
            "reorderData",
            Dim3::x(self.blocks as u32),
            Dim3::x(BS as u32),
            16,
            // sBlockOffsets moved to global no longer takes shared memory
            if self.sbo_g.is_none() {
                (SH_BOFF + 16) * 4
            } else {
                SH_BOFF * 4
            },
        )
    }
    fn phases(&self) -> u32 {
        2
    }
    /// `__shared__ uint sKeys2[512], sValues2[512], sOffsets[16], sBlockOffsets[16]` (the
    /// last in global memory with `sblockoffsets_space=global`).
    fn shared_arrays(&self) -> Vec<SharedArray> {
        let arr = |name: &str, w0: u32, w1: u32| SharedArray {
            name: name.into(),
            offset: w0 * 4,
            bytes: (w1 - w0) * 4,
            elem_bytes: 4,
        };
        let mut v = vec![
            arr("sKeys2", SH_KEYS, SH_VALS),
            arr("sValues2", SH_VALS, SH_OFF),
            arr("sOffsets", SH_OFF, SH_BOFF),
        ];
        if self.sbo_g.is_none() {
            v.push(arr("sBlockOffsets", SH_BOFF, SH_BOFF + 16));
        }
        v
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting). Phase 0: `MOV; S2R x2; IMAD` (i),
    /// the two source addresses (2), `LDG.64` x2, `STS.64` x2 (recorded as 4 `STS`), the
    /// `tid < 16` test (`ISETP; BRA`) and for those threads the two addresses (`IMAD` x2,
    /// `IMAD.WIDE` x2), `LDG` x2, `STS` x2. Phase 1, per key (2): `LDS`, the digit (`SHF;
    /// LOP3`), `LDS` x2 (offsets by digit, address 1 int), the global offset (`IADD3` x2),
    /// the key address (`IMAD.WIDE`), `STG`, `LDS` of the value, its address, `STG`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        let b = t.block.x as u64;
        if phase == 0 {
            let i = b * BS + tid;
            entry(t, 2, 1, false);
            t.alu(2);
            let k0: u32 = t.ld(self.keys, 2 * i);
            let k1: u32 = t.peek(self.keys, 2 * i + 1);
            let v0: u32 = t.ld(self.vals, 2 * i);
            let v1: u32 = t.peek(self.vals, 2 * i + 1);
            t.sh_st(SH_KEYS + 2 * tid as u32, k0);
            t.sh_st(SH_KEYS + 2 * tid as u32 + 1, k1);
            t.sh_st(SH_VALS + 2 * tid as u32, v0);
            t.sh_st(SH_VALS + 2 * tid as u32 + 1, v1);
            t.alu(1);
            t.branch(1);
            if tid < 16 {
                t.alu(4);
                let o: u32 = t.ld(self.offsets, tid * self.blocks + b);
                let bo: u32 = t.ld(self.block_offsets, b * 16 + tid);
                t.sh_st(SH_OFF + tid as u32, o);
                self.sbo_st(t, tid, bo);
            }
        } else {
            for j in [tid, tid + BS] {
                let key = t.sh_ld(SH_KEYS + j as u32);
                t.alu(2);
                let r = ((key >> self.startbit) & 0xF) as u64;
                t.alu(1);
                let off = t.sh_ld(SH_OFF + r as u32);
                let boff = self.sbo_ld(t, r);
                t.alu(2);
                let g = (off as u64 + j) - boff as u64;
                t.alu(1);
                t.st(self.out_keys, g, key);
                let v = t.sh_ld(SH_VALS + j as u32);
                t.alu(1);
                t.st(self.out_vals, g, v);
            }
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 262_144)?;
    let sb = p.str("sblockoffsets_space", "shared");
    let global = match sb.as_str() {
        "shared" => false,
        "global" => true,
        _ => {
            return Err(bad(format!(
                "parameter `sblockoffsets_space` = `{sb}`: expected `shared` or `global`"
            )))
        }
    };
    if n == 0 || n % KB != 0 {
        return Err(bad("shoc-sort: n must be a positive multiple of 512".into()));
    }
    let blocks = n / KB;
    let mut rng = Rng::new(p.seed);
    let keys_v: Vec<u32> = (0..n).map(|_| rng.below(1 << 31) as u32).collect();
    let vals_v: Vec<u32> = (0..n as u32).collect();
    let mut m = Memory::new();
    let keys = m.alloc_from("d_keys", &keys_v, false);
    let vals = m.alloc_from("d_vals", &vals_v, false);
    let temp_keys = m.alloc::<u32>("d_tempKeys", n, false);
    let temp_vals = m.alloc::<u32>("d_tempVals", n, false);
    let block_offsets = m.alloc::<u32>("d_blockOffsets", 16 * blocks, false);
    let offsets = m.alloc::<u32>("d_counterSums", 16 * blocks, false);
    let sbo_g = global.then(|| m.alloc::<u32>("sBlockOffsets", 16 * blocks, false));
    let mut pass = 0u32;
    let h = host(move |mem: &mut Memory| {
        if pass >= 8 {
            return None;
        }
        let startbit = 4 * pass;
        pass += 1;
        // what radixSortBlocks, findRadixOffsets and the scan leave in device memory
        let k: Vec<u32> = mem.to_vec(keys);
        let v: Vec<u32> = mem.to_vec(vals);
        let digit = |x: u32| ((x >> startbit) & 0xF) as usize;
        let mut counts = vec![0u32; 16 * blocks as usize];
        for b in 0..blocks as usize {
            let r = b * KB as usize..(b + 1) * KB as usize;
            let mut idx: Vec<usize> = r.clone().collect();
            idx.sort_by_key(|&i| digit(k[i]));
            for (j, &i) in idx.iter().enumerate() {
                mem.set(temp_keys, (r.start + j) as u64, k[i]);
                mem.set(temp_vals, (r.start + j) as u64, v[i]);
            }
            let c = &mut counts[b * 16..b * 16 + 16];
            for &i in &idx {
                c[digit(k[i])] += 1;
            }
            let mut start = 0u32;
            for (d, cnt) in c.iter().enumerate() {
                mem.set(block_offsets, (b * 16 + d) as u64, start);
                start += cnt;
            }
        }
        // exclusive scan of the counts in digit-major order: offsets[d * blocks + b]
        let mut acc = 0u32;
        for d in 0..16 {
            for b in 0..blocks as usize {
                mem.set(offsets, (d * blocks as usize + b) as u64, acc);
                acc += counts[b * 16 + d];
            }
        }
        Some(Box::new(Reorder {
            startbit,
            out_keys: keys,
            out_vals: vals,
            keys: temp_keys,
            vals: temp_vals,
            block_offsets,
            offsets,
            sbo_g,
            blocks,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-sort", m, h))
}
