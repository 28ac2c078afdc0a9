//! C++ for the shared-memory descriptors (see `expr/builtins/desc.rs`):
//!
//! - `make_gmma_desc<GMMA::Major::M>(T, L)` is `GMMA::make_gmma_desc<GMMA::Major::M>(make_tensor(
//!   make_smem_ptr(reinterpret_cast<T*>(std::uintptr_t(1024))), L))`, printed by CuTe's own
//!   `print(GmmaDescriptor)`;
//! - `make_umma_desc<UMMA::Major::M>(T, L)` is `UMMA::make_umma_desc<UMMA::Major::M>` of the same
//!   tensor; CuTe has no `print` for `UMMA::SmemDescriptor`, so the case prints the real union's
//!   fields in the format engine::make_umma_desc documents (then an empty string for `print`).
//!
//! The pointer is a known integer (1024: 16-byte aligned, and 1024-byte aligned for the 128-byte
//! swizzles), never dereferenced. On the host CuTe's `cast_smem_ptr_to_uint` does not read it
//! either: it prints `ERROR: cast_smem_ptr_to_uint not supported but used.` and returns 0
//! (cute/arch/util.hpp), so the start address CuTe computes is 0 and that line is part of what the
//! case prints.

use crate::engine::atom::copy;
use crate::engine::make_gmma_desc::Major;
use crate::engine::make_instr_desc::{Union, INSTR_DESCRIPTOR, INSTR_DESCRIPTOR_BLOCK_SCALED};
use crate::expr::op::Op;
use crate::expr::parse::{Expr, Name, TemplateArg};

use super::{err, CodegenError, Cpp, Gen, Kind};

/// The address the generated shared-memory pointer holds.
pub const SMEM_ADDRESS: u32 = 1024;

/// The `printf` lines of the UMMA descriptor's documented format, over the union `d`.
const UMMA_PRINT: &str = concat!(
    "printf(\"UMMA::SmemDescriptor: 0x%016llx\\n\", static_cast<unsigned long long>(d.desc_)); ",
    "printf(\"  start_addr :  0x%04x\\n\", d.start_address_); ",
    "printf(\"  leading_off:  0x%04x (%d)\\n\", d.leading_byte_offset_, d.leading_byte_offset_); ",
    "printf(\"  stride_off :  0x%04x (%d)\\n\", d.stride_byte_offset_, d.stride_byte_offset_); ",
    "printf(\"  version    :  %d\\n\", d.version_); ",
    "printf(\"  base_offset:  0x%01x\\n\", d.base_offset_); ",
    "printf(\"  lbo_mode   :  %d\\n\", d.lbo_mode_); ",
    "printf(\"  layout_type:  0x%01x (%s)\\n\", d.layout_type_, UMMA::to_string(static_cast<UMMA::LayoutType>(d.layout_type_))); "
);

/// `make_gmma_desc<...>(T, L)` / `make_umma_desc<...>(T, L)`.
pub fn make_desc(op: Op, g: &mut Gen, name: &Name, args: &[Expr], at: &Expr) -> Result<Cpp, CodegenError> {
    let ns = if op == Op::MakeGmmaDesc { "GMMA" } else { "UMMA" };
    let major = match name.targs.as_deref() {
        Some([TemplateArg::Name(m)]) => Major::parse(&m.to_string(), ns),
        _ => None,
    };
    let Some(major) = major else {
        return err(at, format!("{op} takes <{ns}::Major::K> or <{ns}::Major::MN>"));
    };
    let t = match &args[0] {
        Expr::Call { name, called: false, .. } if copy::type_bits(&name.to_string()).is_ok() => name.to_string(),
        other => return err(other, "expected a value type"),
    };
    let smem = g.layout(&args[1])?;
    let tensor =
        format!("make_tensor(make_smem_ptr(reinterpret_cast<{t}*>(std::uintptr_t({SMEM_ADDRESS}))), {})", smem.code);
    let m = major.name();
    let code = if op == Op::MakeGmmaDesc {
        format!("GMMA::make_gmma_desc<GMMA::Major::{m}>({tensor})")
    } else {
        format!(
            "[&] {{ auto d = UMMA::make_umma_desc<UMMA::Major::{m}>({tensor}); {UMMA_PRINT}return static_cast<char const*>(\"\"); }}()"
        )
    };
    Ok(Cpp::new(code, Kind::Other))
}

/// The `printf`s of a descriptor union's documented format, over `d`, from the engine's table
/// ([`Union::lines`]: the format `Display` writes).
fn union_printf(u: &Union) -> String {
    let mut out = format!("printf(\"{}: 0x%08x\\n\", static_cast<unsigned>(d.desc_)); ", u.name);
    for (i, line) in u.lines.iter().enumerate() {
        let fmt: Vec<String> = line.parts.iter().map(|(prefix, _)| format!("{prefix}%d")).collect();
        let newline = if i + 1 < u.lines.len() { "\\n" } else { "" };
        let members: Vec<String> = line.parts.iter().map(|(_, m)| format!(", d.{m}")).collect();
        out += &format!("printf(\"{}{}{newline}\"{}); ", Union::line_head(line), fmt.join(", "), members.concat());
    }
    out
}

/// The `printf` lines of the instruction descriptors' documented formats (engine::make_instr_desc),
/// over `d`, whichever union the atom's traits hold.
fn instr_print() -> String {
    format!(
        "using D = std::decay_t<decltype(d)>; if constexpr (std::is_same_v<D, {}>) {{ {}}} else {{ {}}} ",
        INSTR_DESCRIPTOR_BLOCK_SCALED.name,
        union_printf(&INSTR_DESCRIPTOR_BLOCK_SCALED),
        union_printf(&INSTR_DESCRIPTOR)
    )
}

/// `make_instr_desc(ATOM)`: `MMA_Atom<ATOM>{}.idesc_`, its fields printed in the documented format.
pub fn make_instr_desc(_: &mut Gen, _: &Name, args: &[Expr], _: &Expr) -> Result<Cpp, CodegenError> {
    let atom = match &args[0] {
        Expr::Call { name, called: false, .. }
            if crate::engine::atom::umma::is_umma(
                &crate::engine::atom::name::AtomName::parse(&name.to_string()).map(|n| n.base).unwrap_or_default(),
            ) =>
        {
            name.to_string()
        }
        other => return err(other, "expected an SM100 UMMA atom name"),
    };
    Ok(Cpp::new(
        // A generic lambda, so that only the branch of the union the traits hold is instantiated.
        format!(
            "[&] {{ auto cutecheck_print = [](auto const& d) {{ {}}}; cutecheck_print(MMA_Atom<{atom}>{{}}.idesc_); return static_cast<char const*>(\"\"); }}()",
            instr_print()
        ),
        Kind::Other,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::make_instr_desc::InstrDesc;

    #[test]
    fn the_printfs_write_what_display_writes() {
        // The format strings of the generated printfs, a zero word's values put in, are the
        // engine's Display of that word, for each union.
        for u in [&INSTR_DESCRIPTOR, &INSTR_DESCRIPTOR_BLOCK_SCALED] {
            let code = union_printf(u);
            let text: String = code
                .split("printf(\"")
                .skip(1)
                .map(|p| {
                    p.split('"')
                        .next()
                        .unwrap_or("")
                        .replace("\\n", "\n")
                        .replace("%08x", "00000000")
                        .replace("%d", "0")
                })
                .collect();
            assert_eq!(text, InstrDesc::zero(u).to_string(), "{}", u.name);
        }
    }
}
