//! Per-channel statistics.

use serde::Serialize;

/// Counters of one channel, serialisable into the simulator's statistics tree (DESIGN.md,
/// "Statistics are one serialisable tree").
///
/// Requests are counted when their data transfer is determined (when `Channel::tick`
/// pushes their [`crate::Completion`]). Row outcomes are counted per request, from the first
/// command issued on its behalf: a column command means a *hit*, an ACT a *miss* (bank was
/// closed), a PRE a *conflict* (another row was open).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChannelStats {
    /// Completed read requests.
    pub reads: u64,
    /// Completed write requests.
    pub writes: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Requests served from the already open row.
    pub row_hits: u64,
    /// Requests that found their bank closed (ACT needed).
    pub row_misses: u64,
    /// Requests that found another row open (PRE + ACT needed).
    pub row_conflicts: u64,
    /// ACT commands issued.
    pub activates: u64,
    /// Banks precharged (explicit PRE, auto-precharge, and each open bank closed by the
    /// precharge-all before a refresh).
    pub precharges: u64,
    /// All-bank REF commands issued.
    pub refreshes: u64,
    /// Column commands (bursts) issued.
    pub bursts: u64,
    /// Picoseconds during which the data bus carried data.
    pub bus_busy_ps: u64,
    /// Sum over reads of (completion time − push time), ps.
    pub read_latency_sum_ps: u64,
    /// Number of reads in `read_latency_sum_ps`.
    pub read_latency_count: u64,
    /// Largest read latency seen, ps.
    pub read_latency_max_ps: u64,
}

impl ChannelStats {
    /// Total bytes transferred (read + written).
    pub fn bytes(&self) -> u64 {
        self.bytes_read + self.bytes_written
    }

    /// Mean read latency in ns (push → last data beat), or 0 with no reads.
    pub fn mean_read_latency_ns(&self) -> f64 {
        if self.read_latency_count == 0 {
            0.0
        } else {
            self.read_latency_sum_ps as f64 / self.read_latency_count as f64 / 1000.0
        }
    }

    /// Fraction of requests that hit the open row.
    pub fn row_hit_rate(&self) -> f64 {
        let n = self.row_hits + self.row_misses + self.row_conflicts;
        if n == 0 {
            0.0
        } else {
            self.row_hits as f64 / n as f64
        }
    }
}
