//! Energy model from counted events (issue 7 §5): energy = Σ (events × energy per event) +
//! Σ (units × static power × time). Events are bits per link kind, L1 and L2 accesses, DRAM
//! activations and bits read and written, and warp instructions by class; static power is
//! per SM, per node (uncore) and per DRAM channel. The parameters and their sources are in
//! [`EnergyCfg`]; the papers' own figures come from the NDP spec §5.3 (links, DRAM, on-die
//! wires) and the rest are GPUWattch-style placeholders.
//!
//! [`energy`] is a pure function of an [`EnergyCounts`] and a duration, so the model is
//! testable on its own; `System` fills the counts from its statistics at the end of a run.

use crate::config::EnergyCfg;
use crate::noc::PortKind;
use crate::stats::Counters;
use locus_workload::InstClass;
use serde::Serialize;

/// Everything the model charges for, as plain counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnergyCounts {
    /// Bits sent per link kind, indexed by `PortKind as usize` (inter-node, crossbar,
    /// sm-l2).
    pub link_bits: [u64; 3],
    /// Line requests that probed an L1 (0 when the L1 is disabled).
    pub l1_accesses: u64,
    /// L2 slice accesses (tag + data).
    pub l2_accesses: u64,
    /// DRAM ACT commands (each paired with a precharge).
    pub dram_activates: u64,
    /// DRAM bits read and written.
    pub dram_read_bits: u64,
    pub dram_write_bits: u64,
    /// Warp instructions by energy class, indexed by [`InstEnergyClass`].
    pub insts: [u64; 5],
    /// Units that draw static power: SMs, nodes, DRAM channels.
    pub sms: u64,
    pub nodes: u64,
    pub dram_channels: u64,
    /// NDP (ndp.md §5.3): warp instructions the memory-stack NSUs issued, and the NSUs
    /// drawing static power (0 when nothing was offloaded: power-gated).
    pub nsu_insts: u64,
    pub nsus: u64,
}

/// The instruction classes the model prices separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstEnergyClass {
    Int = 0,
    Fp = 1,
    Sfu = 2,
    /// Loads, stores, atomics.
    Mem = 3,
    /// Branches, barriers, exits.
    Other = 4,
}

impl InstEnergyClass {
    /// The energy class of a warp instruction class.
    pub fn of(c: InstClass) -> InstEnergyClass {
        match c {
            InstClass::Int => InstEnergyClass::Int,
            InstClass::Fp => InstEnergyClass::Fp,
            InstClass::Sfu => InstEnergyClass::Sfu,
            InstClass::Load | InstClass::Store | InstClass::Atomic => InstEnergyClass::Mem,
            InstClass::Branch | InstClass::Barrier | InstClass::Exit => InstEnergyClass::Other,
        }
    }
}

impl EnergyCounts {
    /// Fold per-class warp instruction counts (`Counters::warp_insts_by_class`) into the
    /// model's five classes.
    pub fn insts_from(c: &Counters) -> [u64; 5] {
        let mut out = [0u64; 5];
        for k in InstClass::ALL {
            out[InstEnergyClass::of(k) as usize] += c.warp_insts_by_class[k as usize];
        }
        out
    }
}

/// One part of the energy: `joules = count × unit_j`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EnergyPart {
    /// e.g. "link inter-node", "dram activate", "inst fp", "static sm".
    pub name: &'static str,
    /// What `count` counts: "bit", "access", "activation", "warp inst", or for static
    /// parts "unit" (SMs, nodes or channels, each drawing power for the whole run).
    pub unit: &'static str,
    pub count: u64,
    /// Joules per counted item (for static parts: watts × run time).
    pub unit_j: f64,
    pub joules: f64,
}

/// Energy of a run by part.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EnergyReport {
    pub parts: Vec<EnergyPart>,
    /// Sum of the parts' joules.
    pub total_j: f64,
    /// Dynamic (event) and static shares of the total.
    pub dynamic_j: f64,
    pub static_j: f64,
    /// Mean power over the run, W (0 for a zero-length run).
    pub mean_w: f64,
}

impl EnergyReport {
    /// Joules of the part called `name` (0 if absent).
    pub fn part(&self, name: &str) -> f64 {
        self.parts
            .iter()
            .find(|p| p.name == name)
            .map_or(0.0, |p| p.joules)
    }
}

const PJ: f64 = 1e-12;
const NJ: f64 = 1e-9;

/// The energy of `n` counted events over `seconds` of simulated time under `cfg`.
pub fn energy(cfg: &EnergyCfg, n: &EnergyCounts, seconds: f64) -> EnergyReport {
    let link = |k: PortKind| n.link_bits[k as usize];
    let ins = |k: InstEnergyClass| n.insts[k as usize];
    use InstEnergyClass as I;
    let dynamic: [(&'static str, &'static str, u64, f64); 14] = [
        (
            "link inter-node",
            "bit",
            link(PortKind::InterNode),
            cfg.inter_node_pj_per_bit * PJ,
        ),
        (
            "link crossbar",
            "bit",
            link(PortKind::Crossbar),
            cfg.crossbar_pj_per_bit * PJ,
        ),
        (
            "link sm-l2",
            "bit",
            link(PortKind::SmL2),
            cfg.sm_l2_pj_per_bit * PJ,
        ),
        ("l1", "access", n.l1_accesses, cfg.l1_access_pj * PJ),
        ("l2", "access", n.l2_accesses, cfg.l2_access_pj * PJ),
        (
            "dram activate",
            "activation",
            n.dram_activates,
            cfg.dram_activate_nj * NJ,
        ),
        (
            "dram read",
            "bit",
            n.dram_read_bits,
            cfg.dram_read_pj_per_bit * PJ,
        ),
        (
            "dram write",
            "bit",
            n.dram_write_bits,
            cfg.dram_write_pj_per_bit * PJ,
        ),
        ("inst int", "warp inst", ins(I::Int), cfg.int_inst_pj * PJ),
        ("inst fp", "warp inst", ins(I::Fp), cfg.fp_inst_pj * PJ),
        ("inst sfu", "warp inst", ins(I::Sfu), cfg.sfu_inst_pj * PJ),
        ("inst mem", "warp inst", ins(I::Mem), cfg.mem_inst_pj * PJ),
        (
            "inst other",
            "warp inst",
            ins(I::Other),
            cfg.other_inst_pj * PJ,
        ),
        ("inst nsu", "warp inst", n.nsu_insts, cfg.nsu_inst_pj * PJ),
    ];
    let stat: [(&'static str, u64, f64); 4] = [
        ("static sm", n.sms, cfg.sm_static_w),
        ("static node", n.nodes, cfg.node_static_w),
        ("static dram", n.dram_channels, cfg.dram_channel_static_w),
        ("static nsu", n.nsus, cfg.nsu_static_w),
    ];
    let mut parts = Vec::with_capacity(dynamic.len() + stat.len());
    let mut dynamic_j = 0.0;
    for (name, unit, count, unit_j) in dynamic {
        let joules = count as f64 * unit_j;
        dynamic_j += joules;
        parts.push(EnergyPart {
            name,
            unit,
            count,
            unit_j,
            joules,
        });
    }
    let mut static_j = 0.0;
    for (name, count, watts) in stat {
        let unit_j = watts * seconds;
        let joules = count as f64 * unit_j;
        static_j += joules;
        parts.push(EnergyPart {
            name,
            unit: "unit",
            count,
            unit_j,
            joules,
        });
    }
    let total_j = parts.iter().map(|p| p.joules).sum();
    EnergyReport {
        parts,
        total_j,
        dynamic_j,
        static_j,
        mean_w: if seconds > 0.0 {
            total_j / seconds
        } else {
            0.0
        },
    }
}

/// The NoC part of the energy (NUBA Fig. 13, nuba.md §6.1 and §7.4 \[S\]): a network's
/// power is `P = P_static(ports, width) + E_flit(width) · flits/s`. The structure comes
/// from [`crate::noc::power`] (crosspoints and ports by radix and width, calibrated to the
/// ratios nuba.md §7.4 derives): a network of organisation `o` and width `w` draws
/// `S · power(o, w)` watts at full load, of which the share `static_share` is drawn
/// whatever the traffic (leakage, clocking) and the rest is spent per bit carried, so
/// the dynamic energy per bit is `(1 - static_share) · S · power(o, w) / capacity(w)`
/// with `capacity(w) = NOC_PORTS · w · 8 · f` bits per second. The one absolute scale
/// `S` is fixed by the reference network, the memory-side UBA's 16 B crossbar
/// (nuba.md §2.1), whose dynamic energy per bit is `ref_pj_per_bit`.
///
/// Wider networks therefore cost more both per bit (`power(o, w) / w` grows with `w`,
/// the crosspoint matrix being superlinear in width) and per second (their static part).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NocEnergyModel {
    /// Dynamic energy per bit carried across the reference network (memory-side UBA at
    /// 16 B per port), pJ. Default ([`NocEnergyModel::of`]): the core's on-die wire figure
    /// `energy.sm_l2_pj_per_bit` (NDP spec §5.3: 0.2 pJ/bit/mm over 12 mm), so the NoC
    /// costs per bit what the core's SM-L2 ports cost.
    pub ref_pj_per_bit: f64,
    /// Share of a network's full-load power that does not depend on its traffic, in
    /// `[0, 1)`. *Placeholder* \[Locus\]: the paper prices its NoCs with DSENT at 22 nm
    /// (nuba.md §6.1) and states no split; [`DEFAULT_NOC_STATIC_SHARE`].
    pub static_share: f64,
}

/// Default [`NocEnergyModel::static_share`]: half of a network's full-load power is
/// static (\[Locus\] placeholder; the NUBA report shows the other readings beside it).
pub const DEFAULT_NOC_STATIC_SHARE: f64 = 0.5;

/// Injection ports of every priced NoC organisation (nuba.md §2): the 64 SM ports of the
/// memory-side UBA's crossbar and of the SM-side UBA's two 32-port crossbars, the 64
/// slice ports of NUBA's inter-partition NoC (one per LLC slice, §2.1). This is the
/// structure [`crate::noc::power::power`] prices.
pub const NOC_PORTS: f64 = 64.0;

/// Port width of the reference network, bytes per cycle (nuba.md §2.1: 16 B links).
pub const NOC_REF_WIDTH_BYTES: f64 = 16.0;

impl NocEnergyModel {
    /// The default model for a machine whose energy parameters are `cfg`.
    pub fn of(cfg: &EnergyCfg) -> NocEnergyModel {
        NocEnergyModel {
            ref_pj_per_bit: cfg.sm_l2_pj_per_bit,
            static_share: DEFAULT_NOC_STATIC_SHARE,
        }
    }
}

/// The NoC energy of one run ([`noc_energy`]).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct NocEnergy {
    /// Port width, bytes per cycle.
    pub width_bytes: f64,
    /// Bits that entered the network (each packet counted once per traversal).
    pub bits: u64,
    /// Full-load power of the network, W (static plus dynamic at every port busy).
    pub full_load_w: f64,
    /// Static power, W.
    pub static_w: f64,
    /// Dynamic energy per bit carried, pJ.
    pub pj_per_bit: f64,
    pub static_j: f64,
    pub dynamic_j: f64,
    pub total_j: f64,
    /// Mean NoC power over the run, W (0 for a zero-length run).
    pub mean_w: f64,
}

/// The NoC energy of a network of organisation `o`, `width_bytes` per port per cycle at
/// `clock_ghz`, that carried `bits` over `seconds` (model: [`NocEnergyModel`]).
pub fn noc_energy(
    o: crate::noc::power::Organisation,
    width_bytes: f64,
    clock_ghz: f64,
    bits: u64,
    seconds: f64,
    m: &NocEnergyModel,
) -> NocEnergy {
    use crate::noc::power::{power, Organisation};
    let capacity = |w: f64| NOC_PORTS * w * 8.0 * clock_ghz * 1e9;
    let s = m.static_share.clamp(0.0, 1.0 - 1e-9);
    // watts per unit of `power`: the reference network's dynamic energy per bit
    let scale = m.ref_pj_per_bit * PJ * capacity(NOC_REF_WIDTH_BYTES)
        / ((1.0 - s) * power(Organisation::MemorySideUba, NOC_REF_WIDTH_BYTES));
    let full_load_w = scale * power(o, width_bytes);
    let static_w = s * full_load_w;
    let j_per_bit = if width_bytes > 0.0 {
        (1.0 - s) * full_load_w / capacity(width_bytes)
    } else {
        0.0
    };
    let static_j = static_w * seconds;
    let dynamic_j = bits as f64 * j_per_bit;
    let total_j = static_j + dynamic_j;
    NocEnergy {
        width_bytes,
        bits,
        full_load_w,
        static_w,
        pj_per_bit: j_per_bit / PJ,
        static_j,
        dynamic_j,
        total_j,
        mean_w: if seconds > 0.0 {
            total_j / seconds
        } else {
            0.0
        },
    }
}

/// [`noc_energy`] of configuration `c`'s NoC (organisation and width from
/// [`crate::noc::power::of_config`]); `None` for machines that are none of the three
/// organisations of nuba.md §2.
pub fn noc_energy_of(
    c: &crate::config::Config,
    bits: u64,
    seconds: f64,
    m: &NocEnergyModel,
) -> Option<NocEnergy> {
    let (o, w) = crate::noc::power::of_config(c)?;
    Some(noc_energy(o, w, c.system.sm_clock_ghz, bits, seconds, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> EnergyCounts {
        EnergyCounts {
            link_bits: [1_000, 20_000, 300_000],
            l1_accesses: 4_000,
            l2_accesses: 500,
            dram_activates: 60,
            dram_read_bits: 70_000,
            dram_write_bits: 8_000,
            insts: [900, 1_000, 110, 1_200, 130],
            sms: 16,
            nodes: 4,
            dram_channels: 32,
            nsu_insts: 140,
            nsus: 8,
        }
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
    }

    #[test]
    fn total_is_the_sum_of_the_parts() {
        let r = energy(&EnergyCfg::default(), &counts(), 1e-3);
        let sum: f64 = r.parts.iter().map(|p| p.joules).sum();
        assert!(rel(r.total_j, sum) < 1e-12);
        assert!(rel(r.total_j, r.dynamic_j + r.static_j) < 1e-12);
        assert_eq!(r.parts.len(), 18);
        for p in &r.parts {
            assert!(p.joules > 0.0, "{} is zero", p.name);
            assert!(rel(p.joules, p.count as f64 * p.unit_j) < 1e-15);
        }
        assert!(rel(r.mean_w, r.total_j / 1e-3) < 1e-12);
    }

    /// Every field of `EnergyCounts` that counts events, with a setter doubling it.
    type Doubler = fn(&mut EnergyCounts);
    const DOUBLERS: [(&str, Doubler); 14] = [
        ("link inter-node", |c| c.link_bits[0] *= 2),
        ("link crossbar", |c| c.link_bits[1] *= 2),
        ("link sm-l2", |c| c.link_bits[2] *= 2),
        ("l1", |c| c.l1_accesses *= 2),
        ("l2", |c| c.l2_accesses *= 2),
        ("dram activate", |c| c.dram_activates *= 2),
        ("dram read", |c| c.dram_read_bits *= 2),
        ("dram write", |c| c.dram_write_bits *= 2),
        ("inst int", |c| c.insts[0] *= 2),
        ("inst fp", |c| c.insts[1] *= 2),
        ("inst sfu", |c| c.insts[2] *= 2),
        ("inst mem", |c| c.insts[3] *= 2),
        ("inst other", |c| c.insts[4] *= 2),
        ("inst nsu", |c| c.nsu_insts *= 2),
    ];

    #[test]
    fn each_part_scales_linearly_with_its_count_alone() {
        let cfg = EnergyCfg::default();
        let base = energy(&cfg, &counts(), 1e-3);
        let mut stat_doublers: Vec<(&str, Doubler)> = DOUBLERS.to_vec();
        stat_doublers.push(("static sm", |c| c.sms *= 2));
        stat_doublers.push(("static node", |c| c.nodes *= 2));
        stat_doublers.push(("static dram", |c| c.dram_channels *= 2));
        stat_doublers.push(("static nsu", |c| c.nsus *= 2));
        for (name, double) in stat_doublers {
            let mut c = counts();
            double(&mut c);
            let r = energy(&cfg, &c, 1e-3);
            for (p, q) in base.parts.iter().zip(&r.parts) {
                if p.name == name {
                    assert!(
                        rel(q.joules, 2.0 * p.joules) < 1e-12,
                        "{name} did not double"
                    );
                } else {
                    assert_eq!(q.joules, p.joules, "{} changed with {name}", p.name);
                }
            }
            assert!(rel(r.total_j - base.total_j, base.part(name)) < 1e-9);
        }
    }

    #[test]
    fn static_energy_is_power_times_time() {
        let cfg = EnergyCfg {
            sm_static_w: 1.5,
            node_static_w: 7.0,
            dram_channel_static_w: 0.25,
            ..EnergyCfg::default()
        };
        let c = EnergyCounts {
            sms: 8,
            nodes: 2,
            dram_channels: 16,
            ..EnergyCounts::default()
        };
        // 2 ms: (8 × 1.5 + 2 × 7 + 16 × 0.25) W = 30 W → 60 mJ; no events, no dynamic part
        let r = energy(&cfg, &c, 2e-3);
        assert_eq!(r.dynamic_j, 0.0);
        assert!(rel(r.total_j, 0.060) < 1e-12, "{}", r.total_j);
        assert!(rel(r.part("static node"), 2.0 * 7.0 * 2e-3) < 1e-12);
        assert!(rel(r.mean_w, 30.0) < 1e-12);
        // static energy scales with time, dynamic does not
        let mut c2 = counts();
        c2.sms = 0;
        c2.nodes = 0;
        c2.dram_channels = 0;
        c2.nsus = 0;
        let a = energy(&cfg, &c2, 1e-3);
        let b = energy(&cfg, &c2, 5e-3);
        assert_eq!(a.total_j, b.total_j);
        assert_eq!(a.static_j, 0.0);
    }

    #[test]
    fn closed_form_of_one_dram_read_line() {
        // one 128 B line read after one activation: 5.9 nJ + 1024 bit × 4 pJ = 9.996 nJ
        let c = EnergyCounts {
            dram_activates: 1,
            dram_read_bits: 1024,
            ..EnergyCounts::default()
        };
        let r = energy(&EnergyCfg::default(), &c, 0.0);
        assert!(rel(r.total_j, 9.996e-9) < 1e-12, "{}", r.total_j);
        assert_eq!(r.mean_w, 0.0);
    }

    #[test]
    fn instruction_classes_fold_into_energy_classes() {
        let mut c = Counters::default();
        for (i, k) in InstClass::ALL.iter().enumerate() {
            c.warp_insts_by_class[*k as usize] = 1 << i;
        }
        // int 1, fp 2, sfu 4, branch 8, load 16, store 32, atomic 64, barrier 128, exit 256
        assert_eq!(
            EnergyCounts::insts_from(&c),
            [1, 2, 4, 16 + 32 + 64, 8 + 128 + 256]
        );
    }

    fn preset(p: &str, sets: &[&str]) -> crate::config::Config {
        let s: Vec<String> = sets.iter().map(|x| x.to_string()).collect();
        crate::preset::load(Some(p), None, &s).unwrap()
    }

    /// Closed form at the reference network (memory-side UBA, 16 B ports, 1.4 GHz):
    /// `ref_pj_per_bit` per bit, and a static power of `s / (1 - s)` times the dynamic
    /// power at full load, 64 ports x 16 B x 8 bit x 1.4 GHz x 2.4 pJ = 27.5251 W.
    #[test]
    fn noc_energy_closed_form_at_the_reference_network() {
        let m = NocEnergyModel {
            ref_pj_per_bit: 2.4,
            static_share: 0.25,
        };
        let c = preset("nuba-mem-uba", &[]);
        let e = noc_energy_of(&c, 1_000_000, 2e-6, &m).unwrap();
        assert!(rel(e.width_bytes, 16.0) < 1e-12);
        assert!(rel(e.pj_per_bit, 2.4) < 1e-12, "{}", e.pj_per_bit);
        let full_dyn = 64.0 * 16.0 * 8.0 * 1.4e9 * 2.4e-12;
        assert!(rel(full_dyn, 27.525_12) < 1e-6);
        assert!(rel(e.static_w, full_dyn / 3.0) < 1e-12, "{}", e.static_w);
        assert!(rel(e.full_load_w, full_dyn * 4.0 / 3.0) < 1e-12);
        assert!(rel(e.dynamic_j, 1e6 * 2.4e-12) < 1e-12);
        assert!(rel(e.static_j, e.static_w * 2e-6) < 1e-12);
        assert!(rel(e.total_j, e.static_j + e.dynamic_j) < 1e-15);
        assert!(rel(e.mean_w, e.total_j / 2e-6) < 1e-12);
        // the default model reads the core's per-bit figure
        assert_eq!(
            NocEnergyModel::of(&c.energy).ref_pj_per_bit,
            c.energy.sm_l2_pj_per_bit
        );
    }

    /// NoC energy scales with traffic: the dynamic part is linear in the bits carried,
    /// the static part does not move with them and is linear in time.
    #[test]
    fn noc_energy_scales_with_traffic() {
        let m = NocEnergyModel::of(&EnergyCfg::default());
        for p in ["nuba-mem-uba", "nuba"] {
            let c = preset(p, &[]);
            let a = noc_energy_of(&c, 1_000_000, 1e-5, &m).unwrap();
            let b = noc_energy_of(&c, 3_000_000, 1e-5, &m).unwrap();
            assert!(rel(b.dynamic_j, 3.0 * a.dynamic_j) < 1e-12, "{p}");
            assert_eq!(a.static_j, b.static_j, "{p}");
            assert!(b.total_j > a.total_j);
            let idle = noc_energy_of(&c, 0, 1e-5, &m).unwrap();
            assert_eq!(idle.dynamic_j, 0.0);
            assert!(rel(idle.total_j, a.static_j) < 1e-15);
            let long = noc_energy_of(&c, 1_000_000, 2e-5, &m).unwrap();
            assert!(rel(long.static_j, 2.0 * a.static_j) < 1e-12);
            assert_eq!(long.dynamic_j, a.dynamic_j);
        }
        // all static: traffic costs nothing; all dynamic: idle costs nothing
        let c = preset("nuba", &[]);
        let dynamic_only = NocEnergyModel {
            static_share: 0.0,
            ..m
        };
        assert_eq!(
            noc_energy_of(&c, 0, 1e-5, &dynamic_only).unwrap().total_j,
            0.0
        );
    }

    /// NoC energy scales with the configured width (the NoC bandwidth of the presets,
    /// nuba.md §7.4's 0.7 / 1.4 / 5.6 TB/s points): at the same traffic and time a wider
    /// network costs more per bit and more static power; the full-load power ratios are
    /// the structural model's, so the paper's 12.1x (memory-side UBA at 5.6 TB/s over
    /// NUBA at 0.7 TB/s) and 9.4x (SM-side UBA) hold within 10%.
    #[test]
    fn noc_energy_scales_with_the_configured_width() {
        let m = NocEnergyModel::of(&EnergyCfg::default());
        let e =
            |p: &str, sets: &[&str]| noc_energy_of(&preset(p, sets), 1_000_000, 1e-5, &m).unwrap();
        let uba = [
            e("nuba-mem-uba", &["noc.sm_port_gbps=11.2"]),
            e("nuba-mem-uba", &[]),
            e("nuba-mem-uba", &["noc.sm_port_gbps=44.8"]),
            e("nuba-mem-uba", &["noc.sm_port_gbps=89.6"]),
        ];
        let nuba = [
            e("nuba", &["interconnect.local_gbps=22.4"]),
            e("nuba", &[]),
            e("nuba", &["interconnect.local_gbps=89.6"]),
            e("nuba", &["interconnect.local_gbps=179.2"]),
        ];
        for set in [&uba, &nuba] {
            for (i, w) in [8.0, 16.0, 32.0, 64.0].iter().enumerate() {
                assert!(rel(set[i].width_bytes, *w) < 1e-9, "{}", set[i].width_bytes);
            }
            for p in set.windows(2) {
                assert!(p[1].pj_per_bit > p[0].pj_per_bit);
                assert!(p[1].static_w > p[0].static_w);
                assert!(p[1].total_j > p[0].total_j);
            }
        }
        let sm64 = e("nuba-sm-uba", &["noc.sm_port_gbps=89.6"]);
        let near = |got: f64, want: f64| (got / want - 1.0).abs() < 0.10;
        let r_mem = uba[3].full_load_w / nuba[0].full_load_w;
        let r_sm = sm64.full_load_w / nuba[0].full_load_w;
        assert!(near(r_mem, 12.1), "{r_mem}");
        assert!(near(r_sm, 9.4), "{r_sm}");
        // the static power alone keeps the structural ratio whatever the split
        assert!(rel(uba[3].static_w / nuba[0].static_w, r_mem) < 1e-12);
        assert!(noc_energy_of(&preset("coda-4gpu", &[]), 1, 1.0, &m).is_none());
    }
}
