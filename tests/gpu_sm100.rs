//! The recorded Blackwell build (fixtures/gpu/sm100-built/, `cargo xtask gpu-sm100 --record`): the
//! SM100 and SM120 atom programs were built for sm_100a / sm_120a with the pinned CUDA 13 nvcc and
//! read back with the pinned cuobjdump, not run (no Blackwell GPU is lent). The recorded sources
//! are what the generator writes now, and every kernel of the generator shows its instruction
//! family in the recorded mnemonics (UTC*MMA, LDTM, STTM, UTCCP; the SM120 *MMA) unless the
//! generator names why not.

use std::path::{Path, PathBuf};

use cutecheck::gpu::sm100;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu/sm100-built")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn the_recorded_sources_are_what_the_generator_writes() {
    assert_eq!(sm100::call_header(), read(sm100::CALL_HEADER));
    for stem in ["sm100_atoms.cu", "sm120_atoms.cu"] {
        assert!(read(stem).contains(&format!("#include \"{}\"", sm100::CALL_HEADER)), "{stem}");
    }
    assert_eq!(sm100::source("sm_100a", &sm100::sm100_programs()), read("sm100_atoms.cu"));
    assert_eq!(sm100::source("sm_120a", &sm100::sm120_programs()), read("sm120_atoms.cu"));
    let build = read("build.txt");
    assert!(build.contains("code=sm_100a") && build.contains("code=sm_120a"), "{build}");
    assert!(build.contains("nvidia-cuda-nvcc==13.0.88") && build.contains("nvidia-cuda-cuobjdump==13.2.78"));
}

#[test]
fn every_kernel_shows_its_instruction_family_in_the_recorded_sass() {
    let table = read("mnemonics.txt");
    let rows: std::collections::BTreeMap<&str, (&str, &str, &str)> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w.len(), 4, "{l}");
            (w[0], (w[1], w[2], w[3]))
        })
        .collect();
    let programs: Vec<(sm100::Program, &str)> = sm100::sm100_programs()
        .into_iter()
        .map(|p| (p, "sm_100a"))
        .chain(sm100::sm120_programs().into_iter().map(|p| (p, "sm_120a")))
        .collect();
    assert_eq!(rows.len(), programs.len(), "one row per kernel, none stale");
    let mut families = std::collections::BTreeSet::new();
    for (p, arch) in &programs {
        let (got_arch, fam, got) = rows.get(p.name.as_str()).unwrap_or_else(|| panic!("{} not recorded", p.name));
        assert_eq!((*got_arch, *fam), (*arch, sm100::expected(p)), "{}", p.name);
        let mnemonics: Vec<&str> = if *got == "-" { vec![] } else { got.split(',').collect() };
        assert!(mnemonics.iter().all(|m| sm100::matches(fam, m)), "{}: {got}", p.name);
        match sm100::exception(p) {
            None => assert!(!mnemonics.is_empty(), "{} ({}): no {fam} instruction", p.name, p.op),
            // The exception must still hold: if the instruction appears, the reason is stale.
            Some(why) => assert!(mnemonics.is_empty(), "{}: {why}, yet {got} was emitted", p.name),
        }
        families.extend(mnemonics.iter().map(|m| m.to_string()));
    }
    // The tcgen05.mma kinds (f16/tf32, i8, f8f6f4, mxf4) and the SM120 forms all occur.
    for m in ["UTCHMMA", "UTCIMMA", "UTCQMMA", "UTCOMMA", "LDTM", "STTM", "UTCCP", "QMMA", "OMMA"] {
        assert!(families.contains(m), "{m} never emitted: {families:?}");
    }
}

#[test]
fn mnemonics_are_read_from_cuobjdump_text() {
    let sass = "\t\tFunction : _Z12k_f16bf16_ssPKjPj\n\
        /*0000*/                   LDC R1, c[0x0][0x37c] ;   /* 0x0 */\n\
        /*0010*/               @P0 UTCHMMA.2CTA gdesc[UR4], gdesc[UR6], tmem[UR8], tmem[UR10], idesc[UR11], UPT ;\n\
        \t\tFunction : _Z9k_s8_ssPKjPj\n\
        /*0000*/                   UTCIMMA gdesc[UR4] ;\n";
    let m = sm100::mnemonics(sass);
    assert_eq!(m["f16bf16_ss"].iter().cloned().collect::<Vec<_>>(), ["LDC", "UTCHMMA"]);
    assert_eq!(m["s8_ss"].iter().cloned().collect::<Vec<_>>(), ["UTCIMMA"]);
    assert!(sm100::matches("UTC*MMA", "UTCQMMA") && !sm100::matches("UTC*MMA", "UTCCP"));
    assert!(sm100::matches("*MMA", "OMMA") && !sm100::matches("*MMA", "UTCHMMA"));
}
