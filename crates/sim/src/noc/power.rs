//! NoC power from structure and width (NUBA §7.4, nuba.md §7.4 \[S\]): the paper prices its
//! networks with DSENT at 22 nm, which a Rust project cannot run, so Locus uses a
//! structural model calibrated to the ratios the paper's Fig. 10 implies.
//!
//! A network is a set of switches; a switch of `r_in` inputs and `r_out` outputs, `w`
//! bytes wide, costs
//!
//! `P = r_in · r_out · K · w^A_X + (r_in + r_out) · w^A_P`
//!
//! (crosspoint matrix, whose wires grow with the width in both directions, plus port
//! buffers and drivers), in arbitrary units: only ratios are meaningful. The three
//! organisations of the paper (nuba.md §2.1-§2.3):
//! - memory-side UBA: the 64 x 64 crossbar of two stages of eight 8 x 8 switches
//!   (§2.1 \[S\]);
//! - SM-side UBA: two single-stage 32 x 32 crossbars, one per LLC partition (§2.3);
//! - NUBA: its inter-partition NoC with one port per LLC slice (one-to-one port mapping,
//!   §2.1), the same two-stage structure as the memory-side UBA's, at NUBA's width.
//!
//! Request and reply networks double every organisation alike and cancel in ratios.
//! Calibration (`K`, `A_X`, `A_P` below, fitted once by a grid search): the eight
//! derived ratios of nuba.md §7.4 (12.1x, 9.4x, 2.3x, 1.6x, 5.3x, 5.9x, 0.70, 0.78) all
//! come out within 6% (`tests::paper_ratios_within_ten_percent`). The SM-side UBA scales
//! faster with width than the memory-side one because its wide single-stage crossbars
//! are crosspoint-dominated, which is what the paper's 5.9x vs 5.3x implies.
//!
//! Dynamic power (energy per flit times flits per second) is left out: at the paper's
//! fixed work per benchmark the traffic is the same across widths, and the paper's ratios
//! are reproduced by the static structure alone.

use crate::config::{Config, L2Organisation};

/// Crosspoint weight relative to a port (fitted).
pub const K: f64 = 0.031_622_776_601_683_79; // 10^-1.5
/// Width exponent of the crosspoint matrix (fitted).
pub const A_X: f64 = 1.3;
/// Width exponent of a port (fitted).
pub const A_P: f64 = 1.2;

/// The NoC organisations of nuba.md §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Organisation {
    /// 64 x 64 two-stage crossbar of 8 x 8 switches (§2.1, §2.2).
    MemorySideUba,
    /// Two 32 x 32 single-stage crossbars (§2.3).
    SmSideUba,
    /// NUBA's inter-partition NoC: a 64-slice-port two-stage crossbar (§3.2).
    Nuba,
}

/// Power of one `r_in` x `r_out` switch of `w` bytes per cycle (module formula).
pub fn switch(r_in: u32, r_out: u32, w: f64) -> f64 {
    (r_in * r_out) as f64 * K * w.powf(A_X) + (r_in + r_out) as f64 * w.powf(A_P)
}

/// Static NoC power of organisation `o` with links `w` bytes wide (one network; units of
/// [`switch`]).
pub fn power(o: Organisation, w: f64) -> f64 {
    match o {
        Organisation::MemorySideUba | Organisation::Nuba => 16.0 * switch(8, 8, w),
        Organisation::SmSideUba => 2.0 * switch(32, 32, w),
    }
}

/// The organisation and per-port width (bytes per SM cycle) of a configuration's NoC:
/// `nuba`-like machines (home-side L2 over several partitions) by their per-slice share
/// of the partition's NoC port (`interconnect.local_gbps / l2.slices_per_node`), the
/// UBAs by their SM port (`noc.sm_port_gbps`); the SM-side UBA is the requester-side L2
/// over two nodes. `None` for machines that are none of the three.
pub fn of_config(c: &Config) -> Option<(Organisation, f64)> {
    let ghz = c.system.sm_clock_ghz;
    let nodes = c.system.nodes;
    match c.l2.organisation {
        L2Organisation::HomeSide if nodes > 1 => Some((
            Organisation::Nuba,
            c.interconnect.local_gbps / c.l2.slices_per_node as f64 / ghz,
        )),
        L2Organisation::HomeSide if nodes == 1 && c.noc.sm_port_gbps > 0.0 => {
            Some((Organisation::MemorySideUba, c.noc.sm_port_gbps / ghz))
        }
        L2Organisation::RequesterSide if nodes == 2 && c.noc.sm_port_gbps > 0.0 => {
            Some((Organisation::SmSideUba, c.noc.sm_port_gbps / ghz))
        }
        _ => None,
    }
}

/// Static NoC power of configuration `c` (units of [`switch`]), if its NoC is one of the
/// three organisations.
pub fn of(c: &Config) -> Option<f64> {
    of_config(c).map(|(o, w)| power(o, w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset;

    fn load(p: &str, sets: &[&str]) -> Config {
        let s: Vec<String> = sets.iter().map(|x| x.to_string()).collect();
        preset::load(Some(p), None, &s).unwrap()
    }

    /// nuba.md §7.4: NUBA at 0.7 TB/s has 12.1x / 9.4x less NoC power than the memory- /
    /// SM-side UBA at 5.6 TB/s, 2.3x / 1.6x less than them at 1.4 TB/s; derived: 5.3x and
    /// 5.9x from 1.4 to 5.6 TB/s, SM-side / memory-side 0.70 and 0.78. Computed from the
    /// presets with the repro's bandwidth points (16 B and 64 B UBA ports; NUBA's 0.7 TB/s
    /// = 22.4 GB/s partition ports, 8 B per slice). Either term alone fails: crosspoints
    /// alone make the SM-side UBA 2.0x the memory-side one, ports alone 0.5x (paper 0.70).
    #[test]
    fn paper_ratios_within_ten_percent() {
        let mem16 = of(&load("nuba-mem-uba", &[])).unwrap();
        let mem64 = of(&load("nuba-mem-uba", &["noc.sm_port_gbps=89.6"])).unwrap();
        let sm16 = of(&load("nuba-sm-uba", &["noc.sm_port_gbps=22.4"])).unwrap();
        let sm64 = of(&load("nuba-sm-uba", &["noc.sm_port_gbps=89.6"])).unwrap();
        let nuba7 = of(&load(
            "nuba",
            &[
                "interconnect.local_gbps=22.4",
                "interconnect.link_gbps=11.2",
            ],
        ))
        .unwrap();
        let near = |got: f64, want: f64| (got / want - 1.0).abs() < 0.10;
        for (name, got, want) in [
            ("mem 5.6 / NUBA 0.7", mem64 / nuba7, 12.1),
            ("SM 5.6 / NUBA 0.7", sm64 / nuba7, 9.4),
            ("mem 1.4 / NUBA 0.7", mem16 / nuba7, 2.3),
            ("SM 1.4 / NUBA 0.7", sm16 / nuba7, 1.6),
            ("mem 5.6 / 1.4", mem64 / mem16, 5.3),
            ("SM 5.6 / 1.4", sm64 / sm16, 5.9),
            ("SM / mem at 1.4", sm16 / mem16, 0.70),
            ("SM / mem at 5.6", sm64 / mem64, 0.78),
        ] {
            assert!(near(got, want), "{name}: {got:.3} vs the paper's {want}");
        }
    }

    /// The organisations and widths read from the presets: 16 B ports at 1.4 TB/s.
    #[test]
    fn presets_map_to_their_organisation() {
        let (o, w) = of_config(&load("nuba-mem-uba", &[])).unwrap();
        assert_eq!(o, Organisation::MemorySideUba);
        assert!((w - 16.0).abs() < 1e-9, "{w}");
        let (o, w) = of_config(&load("nuba", &[])).unwrap();
        assert_eq!(o, Organisation::Nuba);
        assert!((w - 16.0).abs() < 1e-9, "{w}");
        assert_eq!(
            of_config(&load("nuba-sm-uba", &["noc.sm_port_gbps=22.4"]))
                .unwrap()
                .0,
            Organisation::SmSideUba
        );
        assert!(of_config(&load("coda-4gpu", &[])).is_none());
        // wider is always more power
        assert!(power(Organisation::Nuba, 8.0) < power(Organisation::Nuba, 16.0));
    }
}
