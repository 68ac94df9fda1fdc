//! Fair round-robin (CODA §2.5): blocks are dispatched in order; each goes to the next SM
//! with a free slot in GPU-major rotation (G0S0, G1S0, G2S0, G3S0, G0S1, ...), so the
//! initial fill puts block i on GPU i mod N, and as soon as a block retires the next block
//! goes to any available SM.

/// State of the round-robin dispatcher.
#[derive(Clone, Debug)]
pub struct Frr {
    next: u64,
    total: u64,
    ptr: usize,
    nodes: u32,
    sms_per_node: u32,
}

impl Frr {
    pub fn new(total: u64, nodes: u32, sms_per_node: u32) -> Self {
        Frr {
            next: 0,
            total,
            ptr: 0,
            nodes,
            sms_per_node,
        }
    }

    /// Global SM id of rotation position `i`.
    fn sm_at(&self, i: usize) -> usize {
        let n = self.nodes as usize;
        let g = i % n;
        let s = i / n;
        g * self.sms_per_node as usize + s
    }

    pub fn dispatch(&mut self, free: &mut [u32], _spn: u32, out: &mut Vec<(u64, usize)>) {
        let count = free.len();
        while self.next < self.total {
            let mut found = None;
            for k in 0..count {
                let i = (self.ptr + k) % count;
                let sm = self.sm_at(i);
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
        let mut f = Frr::new(100, 4, 4);
        let mut free = vec![1u32; 16];
        let mut out = Vec::new();
        f.dispatch(&mut free, 4, &mut out);
        assert_eq!(out.len(), 16);
        for (b, sm) in &out {
            assert_eq!((*sm / 4) as u64, b % 4, "block {b} on sm {sm}");
        }
        assert_eq!(f.remaining(), 84);
        // Fig. 2: TB 0 and TB 4 on GPU 0
        assert_eq!(out[0].1 / 4, out[4].1 / 4);
    }
}
