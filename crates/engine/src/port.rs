//! A port (one direction of a link, a crossbar output, a cache's data port): bandwidth is
//! modelled by reserving the port's next free time, latency by the arrival time it returns.
//! A saturated port therefore delays everything queued behind it (FIFO), and the bytes it
//! carries can never exceed `bandwidth x time`.

use crate::time::Ps;
use serde::Serialize;

/// A serialising port with fixed latency.
#[derive(Clone, Debug)]
pub struct Port {
    /// Picoseconds per byte, in 1/1024 ps fixed point (exact for the usual GB/s figures).
    ps_per_byte_fx: u64,
    /// Fixed one-way latency added after serialisation.
    pub latency: Ps,
    next_free: Ps,
    stats: PortStats,
}

/// What a port carried.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct PortStats {
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent (serialised onto the port).
    pub bytes_sent: u64,
    /// Bytes received at the far end (counted by the receiver via [`Port::receive`]).
    pub bytes_received: u64,
    /// Picoseconds the port spent serialising.
    pub busy_ps: u64,
    /// Sum of queueing delay (waiting for the port) over packets, in ps.
    pub queue_ps: u64,
}

impl Port {
    /// A port of `gbps` gigabytes per second (1 GB/s = 1 byte/ns) and `latency` ps.
    pub fn new(gbps: f64, latency: Ps) -> Port {
        assert!(gbps > 0.0, "port bandwidth must be positive");
        Port {
            ps_per_byte_fx: ((1000.0 / gbps) * 1024.0).round().max(1.0) as u64,
            latency,
            next_free: 0,
            stats: PortStats::default(),
        }
    }
    /// Serialisation time of `bytes`.
    #[inline]
    pub fn ser(&self, bytes: u32) -> Ps {
        (bytes as u64 * self.ps_per_byte_fx).div_ceil(1024)
    }
    /// Send `bytes` at `now`: returns the arrival time of the last byte at the far end
    /// (queueing + serialisation + latency).
    #[inline]
    pub fn send(&mut self, now: Ps, bytes: u32) -> Ps {
        let start = now.max(self.next_free);
        let ser = self.ser(bytes);
        self.next_free = start + ser;
        self.stats.packets += 1;
        self.stats.bytes_sent += bytes as u64;
        self.stats.busy_ps += ser;
        self.stats.queue_ps += start - now;
        start + ser + self.latency
    }
    /// Count bytes arriving at the far end (for the conservation check sent == received).
    #[inline]
    pub fn receive(&mut self, bytes: u32) {
        self.stats.bytes_received += bytes as u64;
    }
    /// Earliest time a new packet could start serialising.
    pub fn next_free(&self) -> Ps {
        self.next_free
    }
    pub fn stats(&self) -> &PortStats {
        &self.stats
    }
    /// Bandwidth in GB/s.
    pub fn gbps(&self) -> f64 {
        1000.0 * 1024.0 / self.ps_per_byte_fx as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn unloaded_packet_costs_serialisation_plus_latency() {
        let mut p = Port::new(16.0, 50_000);
        // 144 B at 16 GB/s = 9 ns
        assert_eq!(p.send(1000, 144), 1000 + 9000 + 50_000);
    }
    #[test]
    fn back_to_back_packets_serialise() {
        let mut p = Port::new(32.0, 0);
        let a = p.send(0, 128);
        let b = p.send(0, 128);
        assert_eq!(a, 4000);
        assert_eq!(b, 8000, "second packet waits for the first");
        assert_eq!(p.stats().queue_ps, 4000);
    }
    #[test]
    fn saturated_port_never_exceeds_bandwidth() {
        let mut p = Port::new(16.0, 100);
        let mut last = 0;
        for i in 0..10_000u64 {
            last = p.send(i * 10, 128); // offered far above 16 GB/s
        }
        let bytes = 10_000.0 * 128.0;
        let achieved = bytes / (last - 100) as f64 * 1000.0; // GB/s
        assert!(achieved <= 16.0 + 1e-9 && achieved > 15.9, "{achieved}");
    }
}
