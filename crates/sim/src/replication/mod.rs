//! The replication station (NUBA §5, nuba.md §3.5, §5.3-§5.4): replicas of lines that are
//! read-only in the current kernel and homed in another partition, cached in the
//! requester's local LLC slice.
//!
//! It plugs into the home-side L2 (`l2.organisation = "home-side"`,
//! `system/memory.rs::l2_access`): a read whose home is remote normally bypasses the local
//! slice (forwarded over the NoC to the home slice); when the object is read-only in the
//! kernel (`System::object_read_only_in_kernel`, the `ld.global.ro` bit of §5.2, worked
//! out before the kernel by the core's dry run) and the policy replicates at that moment,
//! the request looks the local slice up instead: a hit is served locally; a miss takes a
//! local MSHR (concurrent misses merge), is served by the home slice as any remote read,
//! and its reply is installed in the local slice (a clean line, LRU like any other) before
//! it goes to the SM. With the policy off, read-only requests bypass the local slice again
//! and do not hit old replicas (A7). At each kernel boundary the replicas (the only remote
//! lines a home-side slice holds) are dropped (`l2.kernel_boundary = "flush-remote"`),
//! costing `replication.flush_cycles_per_line` per replica of the fullest slice (A8).
//!
//! Policies (`replication.kind`): [`none`], [`full`], [`mdr`] (per-epoch model).

pub mod full;
pub mod mdr;
pub mod none;

use crate::config::{Config, ReplicationKind, Topology};
use locus_engine::Ps;
use serde::Serialize;

/// The configured policy (dispatched by `match`, no `dyn`).
#[derive(Clone, Debug)]
pub enum Policy {
    None(none::NoRep),
    Full(full::FullRep),
    Mdr(Box<mdr::Mdr>),
}

/// Replication counters (`sim.replication` in the statistics, present only when
/// `replication.kind` is not `none`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplicationStats {
    pub kind: String,
    /// Read-only remote reads that looked the local slice up (replication on).
    pub replica_lookups: u64,
    /// ... and hit a replica.
    pub replica_hits: u64,
    /// ... and missed (a new MSHR entry or a merge onto one): with `replica_hits`, each
    /// look-up's outcome once, a look-up that waited for an MSHR counted when it is
    /// answered (`replica_lookups = replica_hits + replica_misses`).
    pub replica_misses: u64,
    /// Replicas installed in a requester's slice.
    pub replica_fills: u64,
    /// Read-only remote reads that bypassed the local slice (replication off).
    pub ro_remote_bypassed: u64,
    /// Replicas dropped at kernel boundaries and the cycles charged for it.
    pub flushed_replicas: u64,
    pub flush_cycles: u64,
    /// MDR: epochs decided and those that chose replication.
    pub epochs: u64,
    pub epochs_replicating: u64,
    /// Replicas installed, by data object name (only objects with any).
    pub replica_fills_by_object: std::collections::BTreeMap<String, u64>,
}

/// The station's state.
#[derive(Clone, Debug)]
pub struct Replication {
    pub policy: Policy,
    pub stats: ReplicationStats,
    /// Replicas installed per data object id.
    pub fills_by_obj: Vec<u64>,
}

impl Replication {
    pub fn new(cfg: &Config) -> Self {
        let r = &cfg.replication;
        let policy = match r.kind {
            ReplicationKind::None => Policy::None(none::NoRep),
            ReplicationKind::Full => Policy::Full(full::FullRep),
            ReplicationKind::Mdr => {
                let spn = cfg.l2.slices_per_node as f64;
                let noc = match cfg.interconnect.topology {
                    Topology::HierXbar | Topology::TwoLevel => cfg.interconnect.local_gbps,
                    _ => cfg.interconnect.link_gbps,
                };
                let bw = mdr::Bw {
                    llc: spn * cfg.l2.slice_gbps,
                    noc,
                    mem: cfg.memory.channels_per_node as f64
                        * locus_dram::peak_bandwidth_gbs(&cfg.dram),
                };
                let line = cfg.system.line_bytes as u64;
                let lines = cfg.l2.bytes_per_node / line / cfg.l2.slices_per_node as u64;
                let ways = cfg.l2.ways as usize;
                let sets = (lines / ways as u64).max(1) as usize;
                let period = (1000.0 / cfg.system.sm_clock_ghz).round() as Ps;
                Policy::Mdr(Box::new(mdr::Mdr::new(
                    bw,
                    sets,
                    ways,
                    r.sample_sets as usize,
                    r.decision_cycles as Ps * period,
                )))
            }
        };
        Replication {
            policy,
            stats: ReplicationStats {
                kind: match r.kind {
                    ReplicationKind::None => "none",
                    ReplicationKind::Full => "full",
                    ReplicationKind::Mdr => "mdr",
                }
                .into(),
                ..Default::default()
            },
            fills_by_obj: Vec::new(),
        }
    }

    /// Any replication at all (otherwise the station costs one branch).
    #[inline]
    pub fn on(&self) -> bool {
        !matches!(self.policy, Policy::None(_))
    }

    /// Replicate read-only remote lines at `now`?
    #[inline]
    pub fn replicating(&self, now: Ps) -> bool {
        match &self.policy {
            Policy::None(p) => p.replicating(),
            Policy::Full(p) => p.replicating(),
            Policy::Mdr(m) => m.replicating(now),
        }
    }

    /// The MDR state, if that is the policy.
    #[inline]
    pub fn mdr(&mut self) -> Option<&mut mdr::Mdr> {
        match &mut self.policy {
            Policy::Mdr(m) => Some(m),
            _ => None,
        }
    }

    /// A kernel starts (MDR: NoRep for the first epoch, fresh ATD).
    pub fn kernel_start(&mut self) {
        if let Some(m) = self.mdr() {
            m.kernel_start();
        }
    }

    /// A replica of object `obj` was installed.
    #[inline]
    pub fn filled(&mut self, obj: usize) {
        self.stats.replica_fills += 1;
        if let Some(c) = self.fills_by_obj.get_mut(obj) {
            *c += 1;
        }
    }

    /// Statistics with the per-object fills named (`names[obj]`).
    pub fn snapshot(&self, names: &[String]) -> ReplicationStats {
        let mut s = self.stats.clone();
        if let Policy::Mdr(m) = &self.policy {
            s.epochs = m.epochs;
            s.epochs_replicating = m.epochs_replicating;
        }
        for (o, &n) in self.fills_by_obj.iter().enumerate() {
            if n > 0 {
                let name = names.get(o).cloned().unwrap_or_else(|| format!("obj{o}"));
                *s.replica_fills_by_object.entry(name).or_default() += n;
            }
        }
        s
    }
}
