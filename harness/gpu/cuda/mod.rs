//! The generated CUDA/C++ sources of the work folder, one generator per kind of program part:
//! [`mma_sync`] (the mma.sync instructions), [`cute_mma`] (CuTe's own tiled-MMA path and the
//! corrected traits), [`gmma`] (the wgmma instructions), [`cute_gmma`] (CuTe's GMMA path). The copy
//! check (`copy_check.cu`) has no generated part: it reads `copy_tables.txt`.

pub mod cute_gmma;
pub mod cute_mma;
pub mod gmma;
pub mod mma_sync;

/// The C++ spelling of a CuTe value type in generated code.
pub fn cpp_type(cute_type: &str) -> String {
    match cute_type {
        "float" | "double" | "int8_t" | "uint8_t" | "int16_t" | "int32_t" => cute_type.to_string(),
        t => format!("cute::{t}"),
    }
}

/// A C++ string literal.
pub fn cpp_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Number of translation units CuTe's path and the GMMA kernels are split into (parallel builds).
pub const CUTE_PARTS: usize = 12;
pub const GMMA_PARTS: usize = 8;
pub const CUTE_GMMA_PARTS: usize = 32;
