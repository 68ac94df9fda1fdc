//! Functional device memory of a kernel-model workload: the named data objects (cudaMalloc)
//! with their real contents, so irregular kernels produce their true address streams.

use crate::program::{DataObject, ObjId};

/// First virtual address handed out by [`Memory::alloc`].
pub const VA_BASE: u64 = 0x10_0000_0000;
/// Objects are page-aligned (CODA spec A24: page-aligned cudaMalloc).
pub const VA_ALIGN: u64 = 4096;

/// A plain element type a data object can hold.
pub trait Elem: Copy + Default + Send + Sync + 'static {
    const SIZE: usize;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b[..Self::SIZE].try_into().unwrap())
            }
            #[inline]
            fn write(self, b: &mut [u8]) {
                b[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
elem!(u8, u16, u32, u64, i32, i64, f32, f64);

/// The device memory: object table plus contents.
#[derive(Default, Clone)]
pub struct Memory {
    objs: Vec<DataObject>,
    data: Vec<Vec<u8>>,
    next_va: u64,
}

impl Memory {
    pub fn new() -> Self {
        Memory {
            objs: Vec::new(),
            data: Vec::new(),
            next_va: VA_BASE,
        }
    }

    /// Allocate `n` zeroed elements of `T` (cudaMalloc + cudaMemset 0).
    pub fn alloc<T: Elem>(&mut self, name: &str, n: u64, read_only: bool) -> ObjId {
        let bytes = n * T::SIZE as u64;
        self.push(name, vec![0u8; bytes as usize], T::SIZE as u32, read_only)
    }

    /// Allocate an object initialised from `vals` (cudaMalloc + cudaMemcpy HtoD).
    pub fn alloc_from<T: Elem>(&mut self, name: &str, vals: &[T], read_only: bool) -> ObjId {
        let mut buf = vec![0u8; vals.len() * T::SIZE];
        for (i, v) in vals.iter().enumerate() {
            v.write(&mut buf[i * T::SIZE..]);
        }
        self.push(name, buf, T::SIZE as u32, read_only)
    }

    fn push(&mut self, name: &str, buf: Vec<u8>, elem: u32, read_only: bool) -> ObjId {
        if self.next_va == 0 {
            self.next_va = VA_BASE;
        }
        let bytes = buf.len() as u64;
        let id = self.objs.len() as ObjId;
        self.objs.push(DataObject {
            name: name.to_string(),
            base: self.next_va,
            bytes,
            elem_bytes: elem,
            read_only,
        });
        self.next_va += bytes.max(1).div_ceil(VA_ALIGN) * VA_ALIGN;
        self.data.push(buf);
        id
    }

    pub fn objects(&self) -> &[DataObject] {
        &self.objs
    }

    pub fn object(&self, o: ObjId) -> &DataObject {
        &self.objs[o as usize]
    }

    /// Number of `T` elements in object `o`.
    pub fn len<T: Elem>(&self, o: ObjId) -> u64 {
        self.data[o as usize].len() as u64 / T::SIZE as u64
    }

    /// Virtual address of element `idx` of `o` with elements of `size` bytes.
    #[inline]
    pub fn addr(&self, o: ObjId, idx: u64, size: usize) -> u64 {
        self.objs[o as usize].base + idx * size as u64
    }

    #[inline]
    pub fn get<T: Elem>(&self, o: ObjId, idx: u64) -> T {
        let d = &self.data[o as usize];
        let off = idx as usize * T::SIZE;
        match d.get(off..off + T::SIZE) {
            Some(b) => T::read(b),
            None => T::default(),
        }
    }

    #[inline]
    pub fn set<T: Elem>(&mut self, o: ObjId, idx: u64, v: T) {
        let d = &mut self.data[o as usize];
        let off = idx as usize * T::SIZE;
        if let Some(b) = d.get_mut(off..off + T::SIZE) {
            v.write(b);
        }
    }

    /// Fill the whole object with `v` (host-side cudaMemcpy between kernels).
    pub fn fill<T: Elem>(&mut self, o: ObjId, v: T) {
        let n = self.len::<T>(o);
        for i in 0..n {
            self.set(o, i, v);
        }
    }

    /// Copy all elements of `o` to a host vector.
    pub fn to_vec<T: Elem>(&self, o: ObjId) -> Vec<T> {
        (0..self.len::<T>(o)).map(|i| self.get(o, i)).collect()
    }

    /// Swap the contents of two equally sized objects (host-side pointer swap of ping-pong
    /// buffers is modelled by swapping data, keeping addresses fixed per name).
    pub fn swap_contents(&mut self, a: ObjId, b: ObjId) {
        self.data.swap(a as usize, b as usize);
    }

    /// Total bytes of all objects.
    pub fn footprint(&self) -> u64 {
        self.objs.iter().map(|o| o.bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_is_page_aligned_and_disjoint() {
        let mut m = Memory::new();
        let a = m.alloc::<u32>("a", 1000, false);
        let b = m.alloc::<f64>("b", 10, true);
        assert_eq!(m.object(a).base % VA_ALIGN, 0);
        assert_eq!(m.object(b).base % VA_ALIGN, 0);
        assert!(m.object(b).base >= m.object(a).base + 4000);
        m.set::<u32>(a, 999, 7);
        assert_eq!(m.get::<u32>(a, 999), 7);
        assert_eq!(
            m.get::<u32>(a, 1000),
            0,
            "out of range reads zero, never panics"
        );
    }
}
