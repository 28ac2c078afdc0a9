// build.rs: tells cargo which data files the engine embeds, so editing them rebuilds the crate.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed=fixtures");
    // `cargo xtask test` sets CUTECHECK_CUTE once real CuTe is provisioned; tests that need it
    // run only then (otherwise they are reported as ignored, with the reason).
    println!("cargo::rustc-check-cfg=cfg(cutecheck_cute)");
    println!("cargo:rerun-if-env-changed=CUTECHECK_CUTE");
    if std::env::var_os("CUTECHECK_CUTE").is_some() {
        println!("cargo:rustc-cfg=cutecheck_cute");
    }
    // Likewise CUTECHECK_DSL once the CuTe DSL is provisioned (tests/dsl_oracle.rs).
    println!("cargo::rustc-check-cfg=cfg(cutecheck_dsl)");
    println!("cargo:rerun-if-env-changed=CUTECHECK_DSL");
    if std::env::var_os("CUTECHECK_DSL").is_some() {
        println!("cargo:rustc-cfg=cutecheck_dsl");
    }
}
