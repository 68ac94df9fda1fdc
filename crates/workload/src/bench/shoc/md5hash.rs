//! SHOC MD5Hash (level 1, `MD5Hash.cu`, kernel `FindKeyWithDigest_Kernel`): a brute-force
//! search of a key space for the key whose digest matches a given one. Blocks of 384
//! threads; thread `t` takes keys `t * valsPerByte ..` (`IndexToKey`: the index written in
//! base `valsPerByte` into the bytes of an 8-byte key), and for each of its `valsPerByte`
//! keys (while below `keyspace`) computes the digest with SHOC's `md5_2words` (64 rounds of
//! SHOC's `ROUND_USING_TEMP_VARS`, in registers), compares it with the searched digest and,
//! on a match, writes `foundIndex`, the 8 key bytes and the 4 digest words. The kernel is
//! compute only: its only memory accesses are the matching thread's 13 stores.
//!
//! Inputs: HMS Table IV (`FindKeyWithDigest_Kernel`, `foundKey(G→S)`) gives no size; SHOC's
//! default size class 1: byte length 7, 10 values per byte, key space 10^7 (10^6 threads,
//! about 3,000 instructions each: 96 M warp instructions), kept: a `coda-4gpu` run of it
//! takes 16.8 s of host CPU (idle machine, 2026-11-29, engine of commit dc2af3d), under
//! rule 2's minute. (Until then the default was 5,000,000, halved by rule 2 from an
//! estimate of about 84 s made at 1.1 M warp instructions per second on a loaded build
//! machine.) The footprint is 28 bytes whatever the key space. The searched key is drawn at
//! random below the key space as SHOC's host does. `foundKey` placement (HMS `G→S`) has no
//! effect on a model whose only accesses are the final stores and is not a parameter.

use super::common::{bad, entry, host, kinfo, loop_step};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "shoc-md5hash",
    suite: "SHOC",
    category: "-",
    about: "SHOC MD5Hash FindKeyWithDigest_Kernel: brute-force key search, SHOC's md5_2words in registers, 384 threads/block",
    params: &[
        ParamSpec {
            name: "byte_length",
            default: "7",
            help: "key bytes (SHOC size class 1: 7)",
        },
        ParamSpec {
            name: "vals_per_byte",
            default: "10",
            help: "values per key byte (SHOC size class 1: 10)",
        },
        ParamSpec {
            name: "keyspace",
            default: "10000000",
            help: "keys searched (SHOC: vals_per_byte^byte_length = 10^7)",
        },
    ],
    build,
};

/// Threads per block (`nthreads`).
const BS: u64 = 384;

/// SHOC's 64 rounds: (word: 0 none, 1 `W0`, 2 `W1`, 3 `WL`; rotation; constant; function
/// F, G, H, I).
const ROUNDS: [(u8, u32, u32, u8); 64] = [
    (1, 7, 0xd76aa478, 0),
    (2, 12, 0xe8c7b756, 0),
    (0, 17, 0x242070db, 0),
    (0, 22, 0xc1bdceee, 0),
    (0, 7, 0xf57c0faf, 0),
    (0, 12, 0x4787c62a, 0),
    (0, 17, 0xa8304613, 0),
    (0, 22, 0xfd469501, 0),
    (0, 7, 0x698098d8, 0),
    (0, 12, 0x8b44f7af, 0),
    (0, 17, 0xffff5bb1, 0),
    (0, 22, 0x895cd7be, 0),
    (0, 7, 0x6b901122, 0),
    (0, 12, 0xfd987193, 0),
    (3, 17, 0xa679438e, 0),
    (0, 22, 0x49b40821, 0),
    (2, 5, 0xf61e2562, 1),
    (0, 9, 0xc040b340, 1),
    (0, 14, 0x265e5a51, 1),
    (1, 20, 0xe9b6c7aa, 1),
    (0, 5, 0xd62f105d, 1),
    (0, 9, 0x02441453, 1),
    (0, 14, 0xd8a1e681, 1),
    (0, 20, 0xe7d3fbc8, 1),
    (0, 5, 0x21e1cde6, 1),
    (3, 9, 0xc33707d6, 1),
    (0, 14, 0xf4d50d87, 1),
    (0, 20, 0x455a14ed, 1),
    (0, 5, 0xa9e3e905, 1),
    (0, 9, 0xfcefa3f8, 1),
    (0, 14, 0x676f02d9, 1),
    (0, 20, 0x8d2a4c8a, 1),
    (0, 4, 0xfffa3942, 2),
    (0, 11, 0x8771f681, 2),
    (0, 16, 0x6d9d6122, 2),
    (3, 23, 0xfde5380c, 2),
    (2, 4, 0xa4beea44, 2),
    (0, 11, 0x4bdecfa9, 2),
    (0, 16, 0xf6bb4b60, 2),
    (0, 23, 0xbebfbc70, 2),
    (0, 4, 0x289b7ec6, 2),
    (1, 11, 0xeaa127fa, 2),
    (0, 16, 0xd4ef3085, 2),
    (0, 23, 0x04881d05, 2),
    (0, 4, 0xd9d4d039, 2),
    (0, 11, 0xe6db99e5, 2),
    (0, 16, 0x1fa27cf8, 2),
    (0, 23, 0xc4ac5665, 2),
    (1, 6, 0xf4292244, 3),
    (0, 10, 0x432aff97, 3),
    (3, 15, 0xab9423a7, 3),
    (0, 21, 0xfc93a039, 3),
    (0, 6, 0x655b59c3, 3),
    (0, 10, 0x8f0ccc92, 3),
    (0, 15, 0xffeff47d, 3),
    (2, 21, 0x85845dd1, 3),
    (0, 6, 0x6fa87e4f, 3),
    (0, 10, 0xfe2ce6e0, 3),
    (0, 15, 0xa3014314, 3),
    (0, 21, 0x4e0811a1, 3),
    (0, 6, 0xf7537e82, 3),
    (0, 10, 0xbd3af235, 3),
    (0, 15, 0x2ad7d2bb, 3),
    (0, 21, 0xeb86d391, 3),
];

/// SHOC's `md5_2words` over the key bytes (`ROUND_USING_TEMP_VARS`, as `#define ROUND`
/// selects: every round updates `a` from `b, c, d` whatever the macro's arguments).
pub(crate) fn md5_2words(key: &[u8; 8], len: u32) -> [u32; 4] {
    let h = [0x67452301u32, 0xefcdab89, 0x98badcfe, 0x10325476];
    let (mut a, mut b, mut c, mut d) = (h[0], h[1], h[2], h[3]);
    let mut w0 = u32::from_le_bytes([key[0], key[1], key[2], key[3]]);
    let mut w1 = u32::from_le_bytes([key[4], key[5], key[6], key[7]]);
    match len {
        0..=3 => w0 |= 0x80 << (8 * len),
        4..=7 => w1 |= 0x80 << (8 * (len - 4)),
        _ => {}
    }
    let wl = len * 8;
    for &(w, r, k, f) in ROUNDS.iter() {
        let wv = [0, w0, w1, wl][w as usize];
        let fv = match f {
            0 => (b & c) | (!b & d),
            1 => (b & d) | (!d & c),
            2 => b ^ c ^ d,
            _ => c ^ (b | !d),
        };
        a = a.wrapping_add(fv).wrapping_add(k).wrapping_add(wv);
        let temp = d;
        d = c;
        c = b;
        b = b.wrapping_add(a.rotate_left(r));
        a = temp;
    }
    [
        h[0].wrapping_add(a),
        h[1].wrapping_add(b),
        h[2].wrapping_add(c),
        h[3].wrapping_add(d),
    ]
}

/// SHOC's `IndexToKey`: the index in base `vpb`, one digit per key byte.
pub(crate) fn index_to_key(mut index: u64, vpb: u64) -> [u8; 8] {
    let mut k = [0u8; 8];
    for b in k.iter_mut() {
        *b = (index % vpb) as u8;
        index /= vpb;
    }
    k
}

/// Integer instructions of one `md5_2words` on sm_70+: the two words from the key bytes
/// (`PRMT` x2), the length switch (3 int + 1 branch, counted apart), per round the function
/// (`LOP3`), the sum (`IADD3`, a second add when the round's word is not 0), the rotation
/// (`SHF.L.W`) and `b +` (`IADD3`), and the four final adds.
fn md5_ints() -> u32 {
    2 + 3 + ROUNDS.iter().map(|r| 4 + (r.0 != 0) as u32).sum::<u32>() + 4
}

struct FindKey {
    digest: [u32; 4],
    keyspace: u64,
    len: u32,
    vpb: u64,
    found_index: ObjId,
    found_key: ObjId,
    found_digest: ObjId,
}

impl Kernel for FindKey {
    fn info(&self) -> KernelInfo {
        kinfo(
            "FindKeyWithDigest_Kernel",
            Dim3::x(self.keyspace.div_ceil(self.vpb).div_ceil(BS) as u32),
            Dim3::x(BS as u32),
            32,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, issue 7 §1 counting): `MOV; S2R x2; IMAD` (threadid),
    /// `startindex` (1), `IndexToKey` (8 remainders and quotients by the parameter
    /// `valsPerByte`, about 20 int each, and the byte inserts, 8); per key the loop test
    /// (`ISETP` x2 + `BRA`, 1 extra int), `md5_2words` ([`md5_ints`] int, the length
    /// switch's `BRA`), the digest compare (`ISETP` x4, `BRA`), `++key[0]` (2 int), loop
    /// control; on the match the addresses and 13 stores.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gid();
        let start = tid * self.vpb;
        entry(t, 2, 2, false);
        t.alu(8 * 20 + 8);
        let mut key = index_to_key(start, self.vpb);
        let mut j = 0;
        while j < self.vpb && start + j < self.keyspace {
            t.alu(1);
            t.alu(md5_ints());
            t.branch(1);
            let d = md5_2words(&key, self.len);
            t.alu(4);
            t.branch(1);
            if d == self.digest {
                t.alu(3);
                t.st(self.found_index, 0, (start + j) as i32);
                for (i, b) in key.iter().enumerate() {
                    t.st(self.found_key, i as u64, *b);
                }
                for (i, w) in d.iter().enumerate() {
                    t.st(self.found_digest, i as u64, *w);
                }
            }
            t.alu(2);
            key[0] = key[0].wrapping_add(1);
            loop_step(t);
            j += 1;
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let len = p.u64("byte_length", 7)?;
    let vpb = p.u64("vals_per_byte", 10)?;
    if !(1..=7).contains(&len) || !(2..=255).contains(&vpb) {
        return Err(bad(
            "shoc-md5hash: need 1 <= byte_length <= 7 and 2 <= vals_per_byte <= 255".into(),
        ));
    }
    let full = vpb.checked_pow(len as u32).unwrap_or(u64::MAX);
    if full >= 0x7fff_ffff {
        return Err(bad(
            "shoc-md5hash: vals_per_byte^byte_length must stay below 2^31 (SHOC's limit)".into(),
        ));
    }
    let keyspace = p.u64("keyspace", full)?;
    if keyspace == 0 || keyspace > full {
        return Err(bad(format!(
            "parameter `keyspace` = {keyspace}: must be in 1..={full} (vals_per_byte^byte_length)"
        )));
    }
    let mut rng = Rng::new(p.seed);
    let target = rng.below(keyspace);
    let digest = md5_2words(&index_to_key(target, vpb), len as u32);
    let mut m = Memory::new();
    let found_index = m.alloc_from("d_foundIndex", &[-1i32], false);
    let found_key = m.alloc::<u8>("d_foundKey", 8, false);
    let found_digest = m.alloc::<u32>("d_foundDigest", 4, false);
    let mut once = Some(FindKey {
        digest,
        keyspace,
        len: len as u32,
        vpb,
        found_index,
        found_key,
        found_digest,
    });
    let h = host(move |_m: &mut Memory| once.take().map(|k| Box::new(k) as Box<dyn Kernel>));
    Ok(ModelWorkload::new("shoc-md5hash", m, h))
}
