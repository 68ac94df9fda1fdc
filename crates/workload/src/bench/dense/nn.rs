//! Nearest neighbour (Rodinia `nn`, `euclid`): one thread per record computes the Euclidean
//! distance of its `LatLong {float lat, lng}` (8 B) to a target and writes it (4 B); 256
//! threads per block on a grid of at most 65535 x gridY blocks. The host then selects the k
//! nearest. Pure streaming: 2 (records) and 4 (distances) blocks per page, on one GPU.
//! CODA Table 2: core-exclusive.

use super::common::{bad, kinfo, prologue, seq};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "nn",
    suite: "Rodinia",
    category: "core-exclusive",
    about: "nearest neighbour euclid: 8 B LatLong records, 256 threads/block",
    params: &[
        ParamSpec {
            name: "records",
            default: "4M",
            help: "number of LatLong records",
        },
        ParamSpec {
            name: "lat",
            default: "30",
            help: "target latitude",
        },
        ParamSpec {
            name: "lng",
            default: "90",
            help: "target longitude",
        },
    ],
    build,
};

const THREADS: u64 = 256;

/// `euclid(d_locations, d_distances, numRecords, lat, lng)`; `locations` holds
/// interleaved `lat, lng` floats.
struct Euclid {
    locations: ObjId,
    distances: ObjId,
    records: u64,
    lat: f32,
    lng: f32,
}

impl Kernel for Euclid {
    fn info(&self) -> KernelInfo {
        let blocks = self.records.div_ceil(THREADS);
        let gy = blocks.div_ceil(65535);
        let gx = blocks.div_ceil(gy);
        kinfo(
            "euclid",
            Dim3::new(gx as u32, gy as u32, 1),
            Dim3::x(THREADS as u32),
            10,
            0,
        )
    }
    /// Per thread, the instructions of Rodinia nn `euclid` (sm_70+ SASS, issue 7 §1
    /// counting): entry `MOV; S2R x3`, `IMAD` x2 (block id, `globalId`), `ISETP; EXIT` (8);
    /// the source and destination addresses (`IMAD.WIDE` x2; `lng` at a constant offset),
    /// `LDG` x2, `FADD` x2, `FMUL`, `FFMA`, `sqrtf` (`MUFU.RSQ` + 2 fp), `STG`, `EXIT`:
    /// 21 instructions, 3 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let gid =
            THREADS * (t.grid_dim.x as u64 * t.block.y as u64 + t.block.x as u64) + t.tid.x as u64;
        prologue(t, 3, 2);
        if gid < self.records {
            t.alu(2);
            let la: f32 = t.ld(self.locations, 2 * gid);
            let lo: f32 = t.ld(self.locations, 2 * gid + 1);
            t.fp(4);
            t.sfu(1);
            t.fp(2);
            let d = ((self.lat - la) * (self.lat - la) + (self.lng - lo) * (self.lng - lo)).sqrt();
            t.st(self.distances, gid, d);
        }
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let records = p.u64("records", 4 << 20)?;
    let (lat, lng) = (p.f64("lat", 30.0)? as f32, p.f64("lng", 90.0)? as f32);
    if records == 0 {
        return Err(bad("nn: records must be > 0".into()));
    }
    let mut rng = Rng::new(p.seed);
    let mut locs = Vec::with_capacity(2 * records as usize);
    for _ in 0..records {
        locs.push(rng.f32() * 180.0 - 90.0);
        locs.push(rng.f32() * 360.0 - 180.0);
    }
    let mut m = Memory::new();
    let locations = m.alloc_from("d_locations", &locs, true);
    let distances = m.alloc::<f32>("d_distances", records, false);
    let k = Euclid {
        locations,
        distances,
        records,
        lat,
        lng,
    };
    Ok(ModelWorkload::new("nn", m, seq(vec![Box::new(k)])))
}
