//! `cargo xtask gpu-sm100 --cutlass-dir DIR [--record]`: the Blackwell atom programs of
//! cutecheck::gpu::sm100, generated, built for sm_100a and sm_120a with the provisioned CUDA 13
//! nvcc (fixtures/cutlass-pins.toml), and read back with the provisioned cuobjdump: every kernel
//! must show its instruction family in the SASS (UTC*MMA, LDTM, STTM, UTCCP; the SM120 *MMA), but
//! the listed exceptions. No GPU is needed, and none is used: the programs are built, not run.
//! `--record` writes the sources, the build commands with the tools' versions and each kernel's
//! mnemonics to fixtures/gpu/sm100-built/ (tests/gpu_sm100.rs checks them); the SASS itself, a
//! disassembly of code built from CUTLASS, is not recorded.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use cutecheck::gpu::sm100::{self, Program};
use cutecheck::oracle::provision::{self, resolve_cutlass_dir, Provisioner};

const RECORD: &str = "fixtures/gpu/sm100-built";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The CUTLASS checkout whose CuTe the programs use (4.7: the SM100 operations of every
    /// family the engine models)
    #[arg(long)]
    pub cutlass_dir: PathBuf,
    /// Work folder for the sources, binaries and SASS
    #[arg(long, default_value = "target/gpu-sm100")]
    pub work: PathBuf,
    /// Write the sources, build commands and mnemonics to fixtures/gpu/sm100-built/
    #[arg(long)]
    pub record: bool,
}

fn run(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One build: (arch, file stem, programs).
fn builds() -> Vec<(&'static str, &'static str, Vec<Program>)> {
    vec![("sm_100a", "sm100_atoms", sm100::sm100_programs()), ("sm_120a", "sm120_atoms", sm100::sm120_programs())]
}

pub fn main(a: &Args) -> Result<bool> {
    let root = cutecheck::oracle::repo_root();
    let prov = Provisioner::new()?;
    let nvcc_tree = prov.nvcc13()?;
    let tools = prov.sass_tools()?;
    let include = resolve_cutlass_dir(&a.cutlass_dir)?;
    let nvcc = nvcc_tree.join("bin/nvcc");
    let cuobjdump = tools.join("bin/cuobjdump");
    let work = root.join(&a.work);
    std::fs::create_dir_all(&work)?;
    let version = |p: &Path| -> Result<String> {
        let v = run(Command::new(p).arg("--version"))?;
        Ok(v.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string())
    };
    let vh = std::fs::read_to_string(include.join("cutlass/version.h")).unwrap_or_default();
    let release = cutecheck::engine::release::Release::from_version_h(&vh)
        .map(|r| r.to_string())
        .unwrap_or_else(|| "unknown".into());
    let mut build_txt = format!(
        "# cargo xtask gpu-sm100 --cutlass-dir <CUTLASS {release} checkout> --record\n\
         # nvcc: {} ({})\n# cuobjdump: {} ({})\n# CUTLASS {release}, include/cute sha256 {}\n",
        version(&nvcc)?,
        provision::NVCC13_WHEELS.iter().map(|(n, v)| format!("{n}=={v}")).collect::<Vec<_>>().join(" "),
        version(&cuobjdump)?,
        provision::SASS_TOOL_WHEELS.iter().map(|(n, v)| format!("{n}=={v}")).collect::<Vec<_>>().join(" "),
        provision::hash_tree(&include.join("cute"))?
    );
    let mut table = String::from(
        "# kernel  expected-family  SASS mnemonics of the family (built, not run; cuobjdump --dump-sass)\n",
    );
    let mut ok = true;
    std::fs::write(work.join(sm100::CALL_HEADER), sm100::call_header())?;
    for (arch, stem, programs) in builds() {
        let src = sm100::source(arch, &programs);
        let cu = work.join(format!("{stem}.cu"));
        std::fs::write(&cu, &src)?;
        let bin = work.join(stem);
        let code = arch.trim_start_matches("sm_");
        let args: Vec<String> = vec![
            "-std=c++17".into(),
            "-gencode".into(),
            format!("arch=compute_{code},code=sm_{code}"),
            format!("-I{}", include.display()),
            format!("-L{}", nvcc_tree.join("lib").display()),
            "-o".into(),
            bin.display().to_string(),
            cu.display().to_string(),
        ];
        eprintln!("xtask: building {stem} for {arch} ({} kernels)", programs.len());
        run(Command::new(&nvcc).args(&args))?;
        build_txt.push_str(&format!(
            "nvcc -std=c++17 -gencode arch=compute_{code},code=sm_{code} -I<CUTLASS>/include -L<nvcc tree>/lib -o {stem} {stem}.cu\n"
        ));
        let sass = run(Command::new(&cuobjdump).arg("--dump-sass").arg(&bin))?;
        std::fs::write(work.join(format!("{stem}.sass")), &sass)?;
        let found = sm100::mnemonics(&sass);
        for p in &programs {
            let fam = sm100::expected(p);
            let got: Vec<&String> =
                found.get(&p.name).map(|s| s.iter().filter(|m| sm100::matches(fam, m)).collect()).unwrap_or_default();
            let shown = if got.is_empty() {
                "-".to_string()
            } else {
                got.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",")
            };
            let good = !got.is_empty() || sm100::exception(p).is_some();
            ok &= good;
            table.push_str(&format!("{} {arch} {fam} {shown}\n", p.name));
            if !good {
                eprintln!("xtask: {}: no {fam} instruction in its SASS", p.name);
            }
        }
    }
    build_txt.push_str(&format!(
        "# Run on a B200 (sm_100a) / an RTX 50 (sm_120a), not done here:\n#   {0}/sm100_atoms; {0}/sm120_atoms\n",
        a.work.display()
    ));
    if a.record {
        let dir = root.join(RECORD);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(sm100::CALL_HEADER), sm100::call_header())?;
        for (arch, stem, programs) in builds() {
            std::fs::write(dir.join(format!("{stem}.cu")), sm100::source(arch, &programs))?;
        }
        std::fs::write(dir.join("build.txt"), &build_txt)?;
        std::fs::write(dir.join("mnemonics.txt"), &table)?;
        println!("wrote    {RECORD}/ (sources, build.txt, mnemonics.txt)");
    }
    print!("{table}");
    println!("{} (built, not run)", if ok { "PASS" } else { "FAIL" });
    Ok(ok)
}
