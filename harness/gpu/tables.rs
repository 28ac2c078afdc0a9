//! The tables files the GPU programs read (formats: `cpp/gpu/common.hpp`), one per check kind.

use std::fmt::Write as _;

use crate::gpu::plan::copy::CopyCase;
use crate::gpu::plan::gmma::GmmaCase;
use crate::gpu::plan::mma_sync::MmaCase;

/// The tables file `mma_check` and `cute_gemm` read (format: `cpp/gpu/common.hpp`, read_tables).
pub fn tables_file(cases: &[MmaCase]) -> String {
    let mut s = String::from(
        "cutecheck-mma-tables 2\n# written by `cargo xtask gpu`; entry thread*n+value = column-major tile index\n",
    );
    for t in cases {
        let _ = writeln!(
            s,
            "atom {} {} {} {} {} {} {} {} {}",
            t.name,
            t.kind,
            t.m,
            t.n,
            t.k,
            t.threads,
            t.n_a(),
            t.n_b(),
            t.n_c()
        );
        let _ = writeln!(s, "instr {} {} {} {} {} {} {}", t.ptx, t.ea, t.eb, t.ec, t.combine, t.groups, t.gstride);
        let _ = writeln!(s, "lanes {}", t.lanes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "));
        let _ = writeln!(s, "source {}", t.source);
        if !t.note.is_empty() {
            let _ = writeln!(s, "note {}", t.note.replace('\n', " "));
        }
        for (key, l) in ["A", "B", "C"].iter().zip(&t.layouts) {
            let _ = writeln!(s, "layout {key} {l}");
        }
        for (key, v) in [("A", &t.a), ("B", &t.b), ("C", &t.c)] {
            let nums: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(s, "{key} {}", nums.join(" "));
        }
        s.push_str("end\n");
    }
    s
}

/// The tables file `gmma_check` reads.
pub fn gmma_tables_file(cases: &[GmmaCase]) -> String {
    let mut s =
        String::from("cutecheck-gmma-tables 1\n# written by `cargo xtask gpu`; offsets in bytes, descriptors as hex\n");
    let join = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let hex = |v: &[u64]| v.iter().map(|x| format!("{x:x}")).collect::<Vec<_>>().join(" ");
    for c in cases {
        let _ = writeln!(
            s,
            "atom {} {} {} {} {} {} {} {} {}",
            c.name,
            c.kind,
            c.n,
            c.k,
            c.ktot,
            u8::from(c.rs),
            c.ea,
            c.eb,
            c.ec
        );
        let _ = writeln!(s, "layout C {}", c.c_layout);
        let _ = writeln!(s, "layout A {}", c.a_layout);
        let _ = writeln!(s, "C {}", join(&c.c));
        if c.rs {
            let _ = writeln!(s, "AR {}", join(&c.a_regs));
        }
        for (key, op) in [("SA", c.a.as_ref()), ("SB", Some(&c.b))] {
            if let Some(op) = op {
                let _ = writeln!(s, "{key}atom {} {}", op.atom, op.atom_value.replace(' ', ""));
                let _ = writeln!(s, "{key} {}", join(&op.offsets));
                let _ = writeln!(s, "{key}desc {}", hex(&op.desc));
                let _ = writeln!(s, "{key}alt {}", hex(&op.desc_alt));
            }
        }
        s.push_str("end\n");
    }
    s
}

/// The tables file `copy_check` reads.
pub fn copy_tables_file(cases: &[CopyCase]) -> String {
    let mut s =
        String::from("cutecheck-copy-tables 1\n# written by `cargo xtask gpu`; entry thread*n+value = logical index\n");
    let join = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    for c in cases {
        let _ = writeln!(
            s,
            "atom {} {} {} {} {} {} {} {}",
            c.op,
            c.val_type,
            c.kind,
            c.count,
            u8::from(c.trans),
            c.threads,
            c.src.len(),
            c.dst.len()
        );
        let _ = writeln!(s, "layout S {}", c.src_layout);
        let _ = writeln!(s, "layout D {}", c.dst_layout);
        let _ = writeln!(s, "S {}", join(&c.src));
        let _ = writeln!(s, "D {}", join(&c.dst));
        s.push_str("end\n");
    }
    s
}
