//! Fair round-robin (CODA §2.5): blocks are dispatched in order; each goes to the next SM
//! with a free slot in GPU-major rotation (G0S0, G1S0, G2S0, G3S0, G0S1, ...), so the
//! initial fill puts block i on GPU i mod N, and as soon as a block retires the next block
//! goes to any available SM. Nodes with fewer SMs drop out of the later rounds of the
//! rotation; a memory-only node (0 SMs) is never in it (issue 7 §4).

use super::Layout;

/// State of the round-robin dispatcher.
#[derive(Clone, Debug)]
pub struct Frr {
    next: u64,
    total: u64,
    ptr: usize,
    /// Global SM id of each rotation position.
    order: Vec<usize>,
}

impl Frr {
    pub fn new(total: u64, layout: &Layout) -> Self {
        let rounds = (0..layout.nodes())
            .map(|g| layout.count(g))
            .max()
            .unwrap_or(0);
        let mut order = Vec::with_capacity(layout.total());
        for s in 0..rounds {
            for g in 0..layout.nodes() {
                if s < layout.count(g) {
                    order.push(layout.sms(g).start + s);
                }
            }
        }
        Frr {
            next: 0,
            total,
            ptr: 0,
            order,
        }
    }

    pub fn dispatch(&mut self, free: &mut [u32], out: &mut Vec<(u64, usize)>) {
        self.dispatch_max(free, out, usize::MAX)
    }

    /// [`Frr::dispatch`], at most `max` blocks.
    pub fn dispatch_max(&mut self, free: &mut [u32], out: &mut Vec<(u64, usize)>, max: usize) {
        let count = self.order.len();
        let start = out.len();
        while self.next < self.total && out.len() - start < max {
            let mut found = None;
            for k in 0..count {
                let i = (self.ptr + k) % count;
                let sm = self.order[i];
                if free[sm] > 0 {
                    found = Some((i, sm));
                    break;
                }
            }
            let Some((i, sm)) = found else { break };
            free[sm] -= 1;
            out.push((self.next, sm));
            self.next += 1;
            self.ptr = (i + 1) % count;
        }
    }

    pub fn remaining(&self) -> u64 {
        self.total - self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn initial_fill_rotates_over_gpus() {
        // 4 GPUs x 4 SMs, 1 slot each: block i -> GPU i mod 4
        let mut f = Frr::new(100, &Layout::uniform(4, 4));
        let mut free = vec![1u32; 16];
        let mut out = Vec::new();
        f.dispatch(&mut free, &mut out);
        assert_eq!(out.len(), 16);
        for (b, sm) in &out {
            assert_eq!((*sm / 4) as u64, b % 4, "block {b} on sm {sm}");
        }
        assert_eq!(f.remaining(), 84);
        // Fig. 2: TB 0 and TB 4 on GPU 0
        assert_eq!(out[0].1 / 4, out[4].1 / 4);
    }

    /// Issue 7 §4: nodes of 2, 0 (memory only) and 1 SMs: the rotation is G0S0, G2S0,
    /// G0S1 (global SMs 0, 2, 1), never the SM-less node; blocks go round it in order.
    #[test]
    fn rotation_skips_sm_less_nodes_and_missing_positions() {
        let l = Layout::new(&[2, 0, 1]);
        let mut f = Frr::new(7, &l);
        let mut free = vec![2u32; 3];
        let mut out = Vec::new();
        f.dispatch(&mut free, &mut out);
        let sms: Vec<usize> = out.iter().map(|o| o.1).collect();
        assert_eq!(sms, [0, 2, 1, 0, 2, 1]);
        assert_eq!(f.remaining(), 1);
    }
}
