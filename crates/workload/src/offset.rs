//! Several programs in one address space: [`Offset`] moves a workload's virtual addresses
//! and object ids so that applications run together (one per GPU, CODA Fig. 13) never
//! alias each other's data.

use crate::program::{
    BlockProgram, DataObject, KernelInfo, ProfileHint, Workload, WorkloadError, NO_OBJ,
};

/// Address distance between co-running applications (16 TB).
pub const APP_STRIDE: u64 = 1 << 44;

/// A workload seen at `va_offset` with object ids shifted by `obj_offset`.
pub struct Offset {
    inner: Box<dyn Workload>,
    va_offset: u64,
    obj_offset: u16,
    objects: Vec<DataObject>,
}

impl Offset {
    /// Application number `index` of a mix; `obj_offset` is the number of objects of the
    /// applications before it.
    pub fn new(inner: Box<dyn Workload>, index: u32, obj_offset: u16) -> Self {
        let va_offset = APP_STRIDE * index as u64;
        let objects = inner
            .objects()
            .iter()
            .map(|o| DataObject {
                name: format!("{}:{}", inner.name(), o.name),
                base: o.base.wrapping_add(va_offset),
                ..o.clone()
            })
            .collect();
        Offset {
            inner,
            va_offset,
            obj_offset,
            objects,
        }
    }
}

impl Workload for Offset {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn objects(&self) -> &[DataObject] {
        &self.objects
    }
    fn begin_launch(&mut self) -> Result<Option<KernelInfo>, WorkloadError> {
        self.inner.begin_launch()
    }
    fn gen_block(
        &mut self,
        block: u64,
        probe: bool,
        line_bytes: u32,
        out: &mut BlockProgram,
    ) -> Result<(), WorkloadError> {
        self.inner.gen_block(block, probe, line_bytes, out)?;
        for w in &mut out.warps {
            for l in &mut w.lines {
                l.addr = l.addr.wrapping_add(self.va_offset);
                if l.obj != NO_OBJ {
                    l.obj += self.obj_offset;
                }
            }
        }
        Ok(())
    }
    fn launch_hints(&self) -> Vec<ProfileHint> {
        self.inner
            .launch_hints()
            .into_iter()
            .map(|h| ProfileHint {
                obj: h.obj + self.obj_offset,
                ..h
            })
            .collect()
    }
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }
    fn launch_shared_arrays(&self) -> Vec<crate::program::SharedArray> {
        self.inner.launch_shared_arrays()
    }
    fn launch_writes(&mut self, compute: bool) -> Option<Vec<crate::program::ObjId>> {
        let objs = self.inner.launch_writes(compute)?;
        Some(objs.into_iter().map(|o| o + self.obj_offset).collect())
    }
    fn launch_objects(&mut self) -> Option<Vec<(crate::program::ObjId, u64)>> {
        let objs = self.inner.launch_objects()?;
        Some(
            objs.into_iter()
                .map(|(o, s)| (o + self.obj_offset, s))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;
    use std::collections::BTreeMap;

    #[test]
    fn offsets_addresses_and_objects() {
        let mut p = BTreeMap::new();
        p.insert("n".to_string(), "4096".to_string());
        let a = registry::build("vectoradd", &p, 1).unwrap();
        let base0 = a.objects()[0].base;
        let mut o = Offset::new(Box::new(a), 2, 5);
        assert_eq!(o.objects()[0].base, base0 + 2 * APP_STRIDE);
        assert_eq!(o.begin_launch().unwrap().unwrap().grid.x, 16);
        let mut bp = BlockProgram::default();
        o.gen_block(0, false, 128, &mut bp).unwrap();
        let l = bp.warps[0].lines[0];
        assert_eq!(l.obj, 5, "object 0 of app 2 after 5 objects");
        assert!(l.addr >= 2 * APP_STRIDE);
    }
}
