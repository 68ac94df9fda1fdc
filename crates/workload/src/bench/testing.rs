//! Helpers shared by the suites' tests: run a workload functionally, find its objects.

use crate::model::ModelWorkload;
use crate::program::{BlockProgram, ObjId, Workload};

/// Run every launch of `w` to completion, calling `f` with the kernel name and each block's
/// program; returns the kernel names in launch order.
pub(crate) fn each_block(
    w: &mut ModelWorkload,
    mut f: impl FnMut(&str, &BlockProgram),
) -> Vec<String> {
    let mut bp = BlockProgram::default();
    let mut names = Vec::new();
    while let Some(mut l) = w.next_launch().unwrap() {
        let name = l.info().name.clone();
        for b in 0..l.info().num_blocks() {
            l.block(b, false, 128, &mut bp).unwrap();
            f(&name, &bp);
        }
        names.push(name);
    }
    names
}

/// Run every launch of `w` to completion; the kernel names in launch order.
pub(crate) fn launches(w: &mut ModelWorkload) -> Vec<String> {
    each_block(w, |_, _| {})
}

/// The id of the object called `name`.
pub(crate) fn obj(w: &ModelWorkload, name: &str) -> ObjId {
    w.objects()
        .iter()
        .position(|o| o.name == name)
        .unwrap_or_else(|| panic!("no {name}")) as ObjId
}
