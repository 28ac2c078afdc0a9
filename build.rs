// build.rs: tells cargo which data files the engine embeds, so editing them rebuilds the crate.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed=fixtures");
}
