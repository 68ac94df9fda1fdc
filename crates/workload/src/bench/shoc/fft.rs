//! SHOC FFT (level 1, `fftlib.cu` + `codelets.h`, kernel `FFT512_device<float2, float>`):
//! batched 512-point complex forward FFTs, one per block of 64 threads. Each thread loads
//! 8 points `work[tid + 64 i]` (`float2`), runs a radix-8 butterfly (`FFT8`) in registers,
//! multiplies by the twiddles `exp(-2πi rev(j) tid / 512)`, exchanges through the shared
//! array `smem[8 * 8 * 9]` (`transpose`: real parts stored, `__syncthreads()`, loaded,
//! `__syncthreads()`, imaginary parts likewise), a second `FFT8`, twiddles by `hi = tid >>
//! 3` over 64, a second exchange (without its last barrier), a third `FFT8`, and stores
//! `work[tid + 64 i] = a[rev(i)]`. 8 barrier phases, 7 `__syncthreads()`.
//!
//! Inputs: HMS Table IV (`FFT512_device`, `smem(S→G)`) gives no size; SHOC's default size
//! class 1: 1 MiB of `float2` = 256 FFTs (classes 1, 8, 96, 256 MiB), values uniform in
//! [-1, 1); the footprint is under the cap (rule 1 keeps it). The model runs the forward
//! kernel `iterations` times (SHOC: one forward and one inverse launch per pass, 10
//! passes); single precision only. `__sinf`/`__cosf` are computed exactly here.
//!
//! Placement: `--param smem_space=global` is HMS's `smem(S→G)`: the exchange array lives in
//! global memory at `block * 576 + offset` (HMS §7 item 19), each access an address and an
//! `LDG`/`STG`.

use super::common::{bad, entry, host, kinfo, Regs};
use crate::gen::rng::Rng;
use crate::memory::{Elem, Memory};
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, SharedArray, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-fft",
    suite: "SHOC",
    category: "-",
    about: "SHOC FFT FFT512_device<float2>: 512-point FFT per 64-thread block, radix-8 in registers, shared-memory transposes",
    params: &[
        ParamSpec {
            name: "ffts",
            default: "256",
            help: "512-point FFTs (SHOC size class 1 = 1 MiB)",
        },
        ParamSpec {
            name: "iterations",
            default: "1",
            help: "forward launches",
        },
        ParamSpec {
            name: "smem_space",
            default: "shared",
            help: "space of the exchange array smem: shared | global (HMS smem(S→G))",
        },
    ],
    build,
};

/// A `float2`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F2(pub [f32; 2]);

impl Elem for F2 {
    const SIZE: usize = 8;
    fn read(b: &[u8]) -> Self {
        F2([f32::read(b), f32::read(&b[4..])])
    }
    fn write(self, b: &mut [u8]) {
        self.0[0].write(b);
        self.0[1].write(&mut b[4..]);
    }
}

/// Words of `smem[8 * 8 * 9]`.
const SMEM: u64 = 8 * 8 * 9;
/// `rev<8>`.
const REV8: [usize; 8] = [0, 4, 2, 6, 1, 5, 3, 7];

type C = [f32; 2];
fn cadd(a: C, b: C) -> C {
    [a[0] + b[0], a[1] + b[1]]
}
fn csub(a: C, b: C) -> C {
    [a[0] - b[0], a[1] - b[1]]
}
fn cmul(a: C, b: C) -> C {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}
fn cscale(a: C, s: f32) -> C {
    [s * a[0], s * a[1]]
}
fn fft2(a: &mut [C; 8], i: usize, j: usize) {
    let c0 = a[i];
    a[i] = cadd(c0, a[j]);
    a[j] = csub(c0, a[j]);
}
fn fft4(a: &mut [C; 8], k: [usize; 4]) {
    fft2(a, k[0], k[2]);
    fft2(a, k[1], k[3]);
    a[k[3]] = cmul(a[k[3]], [0.0, -1.0]);
    fft2(a, k[0], k[1]);
    fft2(a, k[2], k[3]);
}
/// `FFT8` of codelets.h.
fn fft8(a: &mut [C; 8]) {
    for i in 0..4 {
        fft2(a, i, i + 4);
    }
    let s = std::f32::consts::FRAC_1_SQRT_2;
    a[5] = cscale(cmul(a[5], [1.0, -1.0]), s);
    a[6] = cmul(a[6], [0.0, -1.0]);
    a[7] = cscale(cmul(a[7], [-1.0, -1.0]), s);
    fft4(a, [0, 1, 2, 3]);
    fft4(a, [4, 5, 6, 7]);
}
/// `twiddle<8>(a, i, n)`.
fn twiddle(a: &mut [C; 8], i: u64, n: u64) {
    for j in 1..8 {
        let phi = (-2.0 * std::f64::consts::PI * REV8[j] as f64 / n as f64) as f32 * i as f32;
        a[j] = cmul(a[j], [phi.cos(), phi.sin()]);
    }
}

struct Fft512 {
    work: ObjId,
    /// The exchange array in global memory (HMS S→G), `None` for shared memory.
    smem_g: Option<ObjId>,
    ffts: u64,
    /// Each thread's `a[8]` across the barriers (16 floats).
    a: Regs<f32>,
}

impl Fft512 {
    #[track_caller]
    fn sm_st(&self, t: &mut Thread<'_>, idx: u64, v: f32) {
        match self.smem_g {
            None => t.sh_st_f32(idx as u32, v),
            Some(o) => {
                t.alu(1);
                t.st(o, t.block_id() * SMEM + idx, v)
            }
        }
    }
    #[track_caller]
    fn sm_ld(&self, t: &mut Thread<'_>, idx: u64) -> f32 {
        match self.smem_g {
            None => t.sh_ld_f32(idx as u32),
            Some(o) => {
                t.alu(1);
                t.ld(o, t.block_id() * SMEM + idx)
            }
        }
    }
    fn get(&self, local: u64) -> [C; 8] {
        let mut a = [[0f32; 2]; 8];
        for (i, c) in a.iter_mut().enumerate() {
            *c = [self.a.get(local, 2 * i), self.a.get(local, 2 * i + 1)];
        }
        a
    }
    fn put(&self, local: u64, a: &[C; 8]) {
        for (i, c) in a.iter().enumerate() {
            self.a.set(local, 2 * i, c[0]);
            self.a.set(local, 2 * i + 1, c[1]);
        }
    }
    /// `storex`/`storey` (`part` 0/1): `s[i * ds] = a[rev(i)].part`, `s` at `base`.
    fn store_part(&self, t: &mut Thread<'_>, a: &[C; 8], part: usize, base: u64, ds: u64) {
        for i in 0..8 {
            self.sm_st(t, base + i as u64 * ds, a[REV8[i]][part]);
        }
    }
    /// `loadx`/`loady`: `a[i].part = l[i * dl]`, `l` at `base`.
    fn load_part(&self, t: &mut Thread<'_>, a: &mut [C; 8], part: usize, base: u64, dl: u64) {
        for (i, c) in a.iter_mut().enumerate() {
            c[part] = self.sm_ld(t, base + i as u64 * dl);
        }
    }
}

/// Floating-point instructions of one `FFT8`: 4 `FFT2` (4 `FADD` each), the three
/// constant multiplications of `a[5]`, `a[6]`, `a[7]` (6 + 4 + 6), two `FFT4` (4 `FFT2` and
/// one complex multiplication each: 20).
const FFT8_FP: u32 = 16 + 16 + 40;

impl Kernel for Fft512 {
    fn info(&self) -> KernelInfo {
        let smem = if self.smem_g.is_none() { SMEM * 4 } else { 0 };
        kinfo(
            "FFT512_device",
            Dim3::new(self.ffts as u32, 1, 1),
            Dim3::x(64),
            40,
            smem as u32,
        )
    }
    fn phases(&self) -> u32 {
        8
    }
    /// `__shared__ float smem[8 * 8 * 9]` (none with `smem_space=global`).
    fn shared_arrays(&self) -> Vec<SharedArray> {
        self.smem_g
            .is_none()
            .then(|| SharedArray {
                name: "smem".into(),
                offset: 0,
                bytes: SMEM as u32 * 4,
                elem_bytes: 4,
            })
            .into_iter()
            .collect()
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): entry `MOV; S2R x3`, `hi`, `lo`, the
    /// block offset and the work address (4 int), `LDG.64` x8 at constant offsets; `FFT8`
    /// (72 fp); the twiddles: `I2F` of the index (1 sfu), per factor the angle `FMUL`, the
    /// range reductions of `__sinf`/`__cosf` (2 `FMUL`), `MUFU.SIN`/`MUFU.COS` (2 sfu) and
    /// the complex product (4 fp); each exchange: the two shared bases (2 int) and 8 `STS`
    /// or `LDS` at constant offsets per half; after the third `FFT8`, `STG.64` x8.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tid = t.tid.x as u64;
        let (hi, lo) = (tid >> 3, tid & 7);
        let base = t.block_id() * 512 + tid;
        let mut a = if phase == 0 {
            [[0f32; 2]; 8]
        } else {
            self.get(tid)
        };
        match phase {
            0 => {
                entry(t, 3, 4, false);
                for (i, c) in a.iter_mut().enumerate() {
                    let v: F2 = t.ld(self.work, base + 64 * i as u64);
                    *c = v.0;
                }
                t.fp(FFT8_FP);
                fft8(&mut a);
                t.sfu(1);
                for _ in 1..8 {
                    t.fp(3);
                    t.sfu(2);
                    t.fp(4);
                }
                twiddle(&mut a, tid, 512);
                t.alu(2);
                self.store_part(t, &a, 0, hi * 8 + lo, 66);
            }
            1 => self.load_part(t, &mut a, 0, lo * 66 + hi, 8),
            2 => self.store_part(t, &a, 1, hi * 8 + lo, 66),
            3 => self.load_part(t, &mut a, 1, lo * 66 + hi, 8),
            4 => {
                t.fp(FFT8_FP);
                fft8(&mut a);
                t.sfu(1);
                for _ in 1..8 {
                    t.fp(3);
                    t.sfu(2);
                    t.fp(4);
                }
                twiddle(&mut a, hi, 64);
                t.alu(2);
                self.store_part(t, &a, 0, hi * 8 + lo, 72);
            }
            5 => self.load_part(t, &mut a, 0, hi * 72 + lo, 8),
            6 => self.store_part(t, &a, 1, hi * 8 + lo, 72),
            _ => {
                self.load_part(t, &mut a, 1, hi * 72 + lo, 8);
                t.fp(FFT8_FP);
                fft8(&mut a);
                for i in 0..8 {
                    t.st(self.work, base + 64 * i as u64, F2(a[REV8[i]]));
                }
            }
        }
        self.put(tid, &a);
    }
}

/// Host reference: the 512-point DFT of `x` (f64).
#[cfg(test)]
pub(crate) fn dft512(x: &[F2]) -> Vec<[f64; 2]> {
    (0..512)
        .map(|k| {
            let mut s = [0f64; 2];
            for (n, v) in x.iter().enumerate() {
                let phi = -2.0 * std::f64::consts::PI * ((k * n) % 512) as f64 / 512.0;
                let (c, si) = (phi.cos(), phi.sin());
                s[0] += v.0[0] as f64 * c - v.0[1] as f64 * si;
                s[1] += v.0[0] as f64 * si + v.0[1] as f64 * c;
            }
            s
        })
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let ffts = p.u64("ffts", 256)?;
    let iterations = p.u64("iterations", 1)?;
    let sm = p.str("smem_space", "shared");
    let global = match sm.as_str() {
        "shared" => false,
        "global" => true,
        _ => {
            return Err(bad(format!(
                "parameter `smem_space` = `{sm}`: expected `shared` or `global`"
            )))
        }
    };
    if ffts == 0 || ffts > 65535 || iterations == 0 {
        return Err(bad(
            "shoc-fft: need 1 <= ffts <= 65535 and iterations >= 1".into()
        ));
    }
    let mut rng = Rng::new(p.seed);
    let src: Vec<F2> = (0..ffts * 512)
        .map(|_| F2([rng.f32() * 2.0 - 1.0, rng.f32() * 2.0 - 1.0]))
        .collect();
    let mut m = Memory::new();
    let work = m.alloc_from("work", &src, false);
    let smem_g = global.then(|| m.alloc::<f32>("smem", ffts * SMEM, false));
    let mut it = 0u64;
    let h = host(move |_m: &mut Memory| {
        if it >= iterations {
            return None;
        }
        it += 1;
        Some(Box::new(Fft512 {
            work,
            smem_g,
            ffts,
            a: Regs::new(64, 16),
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("shoc-fft", m, h))
}
