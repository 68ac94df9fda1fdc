//! Configuration of one HBM2 channel.
//!
//! Defaults are the values of the coda spec §2.3 ("HBM"): one legacy-mode HBM2 channel of
//! 128 bits at 1 GHz DDR (2 Gb/s per pin, 32 GB/s), 16 banks in 4 bank groups, 2 KB rows,
//! BL4 (64 B per burst), 64-entry queue, open-page FR-FCFS, and the JEDEC HBM2 (JESD235)
//! style timings listed there. Timings the spec does not give (tRRD_L, tWTR, tRTP, WL,
//! bus turnaround) take the values of DRAMsim3's `HBM2_4Gb_x128.ini`, so the DRAMsim3
//! cross-check ([`crate::validate`], feature `dramsim3`) compares like with like.
//!
//! # Address mapping inside the channel
//!
//! The simulator hands the channel a *channel-local* byte address (node and channel bits
//! already removed, coda spec §3.1). It is split, from the least significant bit up, as
//!
//! ```text
//! | row | bank (in group) | bank group | column (burst index in row) | burst offset |
//!                 2 bits        2 bits          5 bits                   6 bits      (defaults)
//! ```
//!
//! so one row (2 KB) holds consecutive addresses: a sequential stream hits the open row for
//! 16 consecutive 128 B lines, and consecutive rows of the stream fall in different bank
//! groups (which lets bursts of two rows interleave at tCCD_S). This is DRAMsim3's
//! `address_mapping = chrarobabgco`. Row indices beyond the channel capacity wrap.

use serde::{Deserialize, Serialize};

/// Command scheduling policy of the channel's memory controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    /// First-ready, first-come-first-served (Rixner et al., ISCA 2000), the policy of coda
    /// spec §2.3: among commands that can issue now, column commands (row hits) go first,
    /// oldest first; otherwise the oldest request whose ACT/PRE can issue now. A row is not
    /// precharged while queued requests still hit it (up to `row_hit_cap` hits).
    #[default]
    FrFcfs,
    /// Strict first-come-first-served: only the oldest request in the queue may issue
    /// commands. A baseline for ablations.
    Fcfs,
}

/// Row-buffer (page) management policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PagePolicy {
    /// Open page (coda spec §2.3): a row stays open until a conflicting request or a
    /// refresh closes it.
    #[default]
    Open,
    /// Closed page: after a request's last burst the bank auto-precharges (RDA/WRA), unless
    /// another queued request hits the same row.
    Closed,
}

/// Parameters of one HBM2 channel (coda spec §2.3; JEDEC JESD235 HBM2, legacy mode).
///
/// Times ending in `_ns` are nanoseconds and are rounded *up* to whole clock cycles, as a
/// memory controller does when it programs a JEDEC timing; `_ck` values are clock cycles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DramConfig {
    /// Clock period in picoseconds. 1000 ps = 1 GHz, i.e. 2 Gb/s per pin (DDR).
    pub tck_ps: u64,
    /// Data bus width in bytes (16 = 128-bit legacy HBM2 channel).
    pub bus_bytes: u32,
    /// Burst length in beats (BL4: 4 beats of 16 B = 64 B per column command).
    pub burst_length: u32,
    /// Banks per channel (16).
    pub banks: u32,
    /// Bank groups per channel (4); `banks` are split evenly among them.
    pub bank_groups: u32,
    /// Row (page) size in bytes (2 KB).
    pub row_bytes: u32,
    /// Channel capacity in bytes (1 GiB); fixes the number of rows per bank.
    pub capacity_bytes: u64,
    /// Request queue entries (64); `Channel::can_accept` is false when full.
    pub queue_depth: u32,
    /// Read latency tCL (RL), column command to first data beat.
    pub tcl_ns: f64,
    /// Write latency (WL / CWL), write command to first data beat.
    pub tcwl_ns: f64,
    /// ACT to column command, tRCD.
    pub trcd_ns: f64,
    /// PRE to ACT in the same bank, tRP.
    pub trp_ns: f64,
    /// ACT to PRE in the same bank, tRAS.
    pub tras_ns: f64,
    /// ACT to ACT in the same bank, tRC.
    pub trc_ns: f64,
    /// Write recovery: end of write data to PRE, tWR.
    pub twr_ns: f64,
    /// Read to PRE, tRTP.
    pub trtp_ns: f64,
    /// ACT to ACT in different bank groups, tRRD_S.
    pub trrd_s_ns: f64,
    /// ACT to ACT in the same bank group, tRRD_L.
    pub trrd_l_ns: f64,
    /// Four-activate window, tFAW: at most 4 ACTs in any tFAW.
    pub tfaw_ns: f64,
    /// Column to column command, different bank groups, tCCD_S (cycles).
    pub tccd_s_ck: u32,
    /// Column to column command, same bank group, tCCD_L (cycles).
    pub tccd_l_ck: u32,
    /// End of write data to a read command, different bank group, tWTR_S.
    pub twtr_s_ns: f64,
    /// End of write data to a read command, same bank group, tWTR_L.
    pub twtr_l_ns: f64,
    /// Read-to-write data-bus turnaround bubble, tRTRS (cycles).
    pub trtrs_ck: u32,
    /// Refresh cycle time, tRFC: all banks blocked after a REF.
    pub trfc_ns: f64,
    /// Average refresh interval, tREFI: one all-bank REF per tREFI.
    pub trefi_ns: f64,
    /// Model refresh at all (switch off for idealised studies).
    pub refresh: bool,
    /// Command scheduling policy.
    pub scheduler: Scheduler,
    /// Row-buffer policy.
    pub page_policy: PagePolicy,
    /// FR-FCFS starvation guard: once a row has served this many column commands since its
    /// ACT, a waiting conflicting request may precharge it even if queued hits remain.
    /// 0 = unlimited.
    pub row_hit_cap: u32,
}

impl Default for DramConfig {
    fn default() -> Self {
        DramConfig {
            tck_ps: 1000,
            bus_bytes: 16,
            burst_length: 4,
            banks: 16,
            bank_groups: 4,
            row_bytes: 2048,
            capacity_bytes: 1 << 30,
            queue_depth: 64,
            tcl_ns: 14.0,
            tcwl_ns: 4.0,
            trcd_ns: 14.0,
            trp_ns: 14.0,
            tras_ns: 34.0,
            trc_ns: 48.0,
            twr_ns: 16.0,
            trtp_ns: 4.0,
            trrd_s_ns: 4.0,
            trrd_l_ns: 6.0,
            tfaw_ns: 16.0,
            tccd_s_ck: 2,
            tccd_l_ck: 4,
            twtr_s_ns: 6.0,
            twtr_l_ns: 8.0,
            trtrs_ck: 1,
            trfc_ns: 260.0,
            trefi_ns: 3900.0,
            refresh: true,
            scheduler: Scheduler::FrFcfs,
            page_policy: PagePolicy::Open,
            row_hit_cap: 16,
        }
    }
}

impl DramConfig {
    /// Bytes moved by one column command (bus width × burst length; 64 B by default).
    pub fn burst_bytes(&self) -> u32 {
        self.bus_bytes * self.burst_length
    }

    /// Data-bus time of one burst in ps: BL/2 clock cycles (double data rate).
    pub fn burst_ps(&self) -> u64 {
        u64::from(self.burst_length) / 2 * self.tck_ps
    }

    /// Rows per bank implied by the capacity.
    pub fn rows_per_bank(&self) -> u64 {
        self.capacity_bytes / (u64::from(self.banks) * u64::from(self.row_bytes))
    }

    /// Converts a time in ns to ps, rounded up to a whole number of clock cycles.
    pub fn ns_to_ps_ck(&self, ns: f64) -> u64 {
        self.ns_to_ck(ns) * self.tck_ps
    }

    /// Converts a time in ns to clock cycles, rounded up (with a 1e-6 cycle tolerance so
    /// that 14 ns at 1 ns is 14, not 15).
    pub fn ns_to_ck(&self, ns: f64) -> u64 {
        let ck = ns * 1000.0 / self.tck_ps as f64;
        (ck - 1e-6).ceil().max(0.0) as u64
    }

    /// Checks the configuration; the error message names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        fn pow2(name: &str, v: u64) -> Result<(), String> {
            if v == 0 || !v.is_power_of_two() {
                return Err(format!("{name} must be a nonzero power of two (got {v})"));
            }
            Ok(())
        }
        // 10 ps (100 GHz) ..= 100 000 ps (10 MHz): outside, the channel ticks absurdly often
        // per SM cycle or a run's simulated time explodes
        if !(10..=100_000).contains(&self.tck_ps) {
            return Err(format!(
                "tck_ps must be in 10..=100000 ps, i.e. 0.01 to 100 GHz (got {}; HBM2: 1000)",
                self.tck_ps
            ));
        }
        pow2("bus_bytes", self.bus_bytes.into())?;
        if self.burst_length < 2 || !self.burst_length.is_power_of_two() {
            return Err(format!(
                "burst_length must be a power of two >= 2 (got {})",
                self.burst_length
            ));
        }
        pow2("banks", self.banks.into())?;
        pow2("bank_groups", self.bank_groups.into())?;
        if self.bank_groups > self.banks {
            return Err(format!(
                "bank_groups ({}) must not exceed banks ({})",
                self.bank_groups, self.banks
            ));
        }
        if self.banks > 1024 {
            return Err(format!("banks must be <= 1024 (got {})", self.banks));
        }
        pow2("row_bytes", self.row_bytes.into())?;
        if self.row_bytes < self.burst_bytes() {
            return Err(format!(
                "row_bytes ({}) must hold at least one burst ({} B)",
                self.row_bytes,
                self.burst_bytes()
            ));
        }
        pow2("capacity_bytes", self.capacity_bytes)?;
        if self.capacity_bytes < u64::from(self.banks) * u64::from(self.row_bytes) {
            return Err("capacity_bytes must hold at least one row per bank".into());
        }
        if self.queue_depth == 0 || self.queue_depth > 65_536 {
            return Err(format!(
                "queue_depth must be in 1..=65536 (got {})",
                self.queue_depth
            ));
        }
        let times = [
            ("tcl_ns", self.tcl_ns),
            ("tcwl_ns", self.tcwl_ns),
            ("trcd_ns", self.trcd_ns),
            ("trp_ns", self.trp_ns),
            ("tras_ns", self.tras_ns),
            ("trc_ns", self.trc_ns),
            ("twr_ns", self.twr_ns),
            ("trtp_ns", self.trtp_ns),
            ("trrd_s_ns", self.trrd_s_ns),
            ("trrd_l_ns", self.trrd_l_ns),
            ("tfaw_ns", self.tfaw_ns),
            ("twtr_s_ns", self.twtr_s_ns),
            ("twtr_l_ns", self.twtr_l_ns),
            ("trfc_ns", self.trfc_ns),
            ("trefi_ns", self.trefi_ns),
        ];
        for (name, v) in times {
            // 1 ms is a thousand times any JEDEC timing (tREFI is 3.9 us)
            if !v.is_finite() || !(0.0..=1e6).contains(&v) {
                return Err(format!(
                    "{name} must be a finite time in [0, 1e6] ns (got {v})"
                ));
            }
        }
        if self.tras_ns > self.trc_ns {
            return Err(format!(
                "tras_ns ({}) must not exceed trc_ns ({})",
                self.tras_ns, self.trc_ns
            ));
        }
        for (name, v) in [
            ("tccd_s_ck", self.tccd_s_ck),
            ("tccd_l_ck", self.tccd_l_ck),
            ("trtrs_ck", self.trtrs_ck),
        ] {
            if v > 10_000 {
                return Err(format!("{name} must be at most 10000 cycles (got {v})"));
            }
        }
        if self.tccd_s_ck == 0 {
            return Err("tccd_s_ck must be >= 1".into());
        }
        if self.tccd_l_ck < self.tccd_s_ck {
            return Err(format!(
                "tccd_l_ck ({}) must be >= tccd_s_ck ({})",
                self.tccd_l_ck, self.tccd_s_ck
            ));
        }
        if self.trrd_l_ns < self.trrd_s_ns {
            return Err(format!(
                "trrd_l_ns ({}) must be >= trrd_s_ns ({})",
                self.trrd_l_ns, self.trrd_s_ns
            ));
        }
        if self.refresh {
            // a refresh every few ns would be nearly all the events of a run
            if self.trefi_ns < 100.0 {
                return Err(format!(
                    "trefi_ns must be at least 100 ns when refresh is on (got {}; HBM2: 3900)",
                    self.trefi_ns
                ));
            }
            if self.trfc_ns >= self.trefi_ns {
                return Err(format!(
                    "trfc_ns ({}) must be < trefi_ns ({})",
                    self.trfc_ns, self.trefi_ns
                ));
            }
        }
        Ok(())
    }
}

/// Peak data bandwidth of one channel in GB/s (10^9 B/s): `bus_bytes` × 2 transfers per
/// clock (DDR) / tCK. 16 B × 2 / 1 ns = 32 GB/s for the coda spec §2.3 channel.
pub fn peak_bandwidth_gbs(cfg: &DramConfig) -> f64 {
    f64::from(cfg.bus_bytes) * 2.0 * 1000.0 / cfg.tck_ps as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_spec_2_3() {
        let c = DramConfig::default();
        c.validate().unwrap();
        assert_eq!(c.burst_bytes(), 64);
        assert_eq!(c.burst_ps(), 2000);
        assert_eq!(peak_bandwidth_gbs(&c), 32.0);
        assert_eq!(c.rows_per_bank(), 32768);
        assert_eq!(c.ns_to_ck(14.0), 14);
        assert_eq!(c.ns_to_ck(14.2), 15);
    }

    #[test]
    fn validate_names_field() {
        let d = DramConfig::default;
        let err = |c: DramConfig| c.validate().unwrap_err();
        assert!(err(DramConfig {
            bank_groups: 3,
            ..d()
        })
        .contains("bank_groups"));
        assert!(err(DramConfig {
            tras_ns: 60.0,
            ..d()
        })
        .contains("tras_ns"));
        assert!(err(DramConfig {
            trfc_ns: 5000.0,
            ..d()
        })
        .contains("trfc_ns"));
        // absurd clocks and refresh intervals (hours of host time) are refused
        assert!(err(DramConfig { tck_ps: 1, ..d() }).contains("tck_ps"));
        assert!(err(DramConfig {
            tck_ps: 1_000_000,
            ..d()
        })
        .contains("tck_ps"));
        assert!(err(DramConfig {
            trefi_ns: 1.0,
            trfc_ns: 0.0,
            ..d()
        })
        .contains("trefi_ns"));
        assert!(err(DramConfig {
            trcd_ns: 1e7,
            ..d()
        })
        .contains("trcd_ns"));
        let c = DramConfig {
            tcl_ns: f64::NAN,
            ..d()
        };
        assert!(c.validate().unwrap_err().contains("tcl_ns"));
    }
}
