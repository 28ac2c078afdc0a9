//! The work folder's generated files: everything `cargo xtask gpu` writes besides the fixed GPU
//! sources it copies from `cpp/gpu`.

use anyhow::Result;

use crate::gpu::cuda::cute_gmma::gen_cute_gmma;
use crate::gpu::cuda::cute_mma::{gen_cute, gen_cute_parts_header};
use crate::gpu::cuda::gmma::gen_gmma_parts;
use crate::gpu::cuda::mma_sync::gen_mma_ops;
use crate::gpu::cuda::{CUTE_GMMA_PARTS, CUTE_PARTS, GMMA_PARTS};
use crate::gpu::plan::mma_sync::{corrupt, MmaCase};
use crate::gpu::plan::{copy_of, gmma_of, mma_of, plan_json, Plan};
use crate::gpu::tables::{copy_tables_file, gmma_tables_file, tables_file};

/// Every generated file of a plan, as (path relative to the work folder, text): the tables the
/// programs read (`tables.txt`, `tables_corrupt.txt`, `gmma_tables.txt`, `copy_tables.txt`), the
/// generated CUDA/C++ under `src/` and `plan.json`.
pub fn work_files(plan: &[Plan]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mma = mma_of(plan);
    let mut bad: Vec<MmaCase> = mma.iter().filter(|c| !c.finding).cloned().collect();
    bad.iter_mut().for_each(corrupt);
    out.push(("tables.txt".to_string(), tables_file(&mma)));
    out.push(("tables_corrupt.txt".to_string(), tables_file(&bad)));
    out.push(("src/gen_mma_ops.cuh".to_string(), gen_mma_ops(&mma)));
    let (fixed, parts) = gen_cute(&mma, CUTE_PARTS)?;
    out.push(("src/gen_fixed_traits.hpp".to_string(), fixed));
    out.push(("src/gen_cute_parts.hpp".to_string(), gen_cute_parts_header(CUTE_PARTS)));
    for (i, p) in parts.into_iter().enumerate() {
        out.push((format!("src/cute_part{i}.cu"), p));
    }
    let gmma = gmma_of(plan);
    out.push(("gmma_tables.txt".to_string(), gmma_tables_file(&gmma)));
    // GMMA kernels in parts: each part has its own ops header.
    let (decl, units) = gen_gmma_parts(&gmma, GMMA_PARTS);
    for (i, u) in units.into_iter().enumerate() {
        out.push((format!("src/gmma_part{i}.cu"), u));
    }
    out.push(("src/gen_gmma_parts.hpp".to_string(), decl));
    let (h, units) = gen_cute_gmma(&gmma, CUTE_GMMA_PARTS);
    out.push(("src/gen_cute_gmma_parts.hpp".to_string(), h));
    for (i, u) in units.into_iter().enumerate() {
        out.push((format!("src/cute_gmma_part{i}.cu"), u));
    }
    out.push(("copy_tables.txt".to_string(), copy_tables_file(&copy_of(plan))));
    out.push(("plan.json".to_string(), plan_json(plan)?));
    Ok(out)
}
