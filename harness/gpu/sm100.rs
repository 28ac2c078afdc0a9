//! The Blackwell atom programs (`cargo xtask gpu-sm100`): one kernel per SM100 UMMA operation
//! (every family and form the engine models: dense SS/TS, 2x1SM, `_SCALED`, `_SS_SPARSE`,
//! interleaved complex), TMEM load/store and UTCCP copy, and per SM120 warp MMA (dense,
//! block-scaled, sparse), each calling the operation's own static `fma` / `copy` (cute/arch/
//! mma_sm100_umma.hpp, copy_sm100.hpp, mma_sm120.hpp, mma_sm120_sparse.hpp) with arguments
//! read from the kernel's parameter, so that nvcc must emit the instruction. Built for sm_100a
//! and sm_120a with the provisioned nvcc; the SASS (cuobjdump) shows the tcgen05 instructions
//! (UTC*MMA, LDTM/STTM, UTCCP) and the SM120 OMMA/QMMA forms.
//!
//! No Blackwell GPU is lent here: the programs are built, not run (fixtures/gpu/sm100-built/).
//! Each kernel exercises instruction selection only (zero descriptors and TMEM addresses, no TMEM
//! allocation); a run on a B200 would launch each with the recorded command and show whether the
//! instruction issues, nothing about layouts.

/// One kernel: its name, the operation (C++ type) and its static member function to call.
pub struct Program {
    pub name: String,
    pub op: String,
    pub member: &'static str,
}

const K: &str = "UMMA::Major::K";
const MN: &str = "UMMA::Major::MN";

/// The SM100 programs (sm_100a).
pub fn sm100_programs() -> Vec<Program> {
    let mut v = Vec::new();
    let mut mma = |name: &str, op: String| v.push(Program { name: name.to_string(), op, member: "fma" });
    mma("f16bf16_ss", format!("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,{K},{K}>"));
    mma("f16bf16_ts", format!("SM100_MMA_F16BF16_TS<bfloat16_t,bfloat16_t,float,128,128,{K},{MN}>"));
    mma("f16bf16_2x1sm_ss", format!("SM100_MMA_F16BF16_2x1SM_SS<half_t,half_t,float,256,256,{K},{K}>"));
    mma("tf32_ss", format!("SM100_MMA_TF32_SS<tfloat32_t,tfloat32_t,float,128,64,{K},{K}>"));
    mma("tf32_2x1sm_ts", format!("SM100_MMA_TF32_2x1SM_TS<tfloat32_t,tfloat32_t,float,256,128,{K},{K}>"));
    mma("s8_ss", format!("SM100_MMA_S8_SS<int8_t,int8_t,int32_t,128,64,{K},{K}>"));
    mma("s8_2x1sm_ts", format!("SM100_MMA_S8_2x1SM_TS<uint8_t,int8_t,int32_t,256,64,{K},{K}>"));
    mma("f8f6f4_ss", format!("SM100_MMA_F8F6F4_SS<float_e4m3_t,float_e5m2_t,float,128,64,{K},{K}>"));
    mma("f8f6f4_ts", format!("SM100_MMA_F8F6F4_TS<float_e2m1_t,float_e3m2_t,float,128,64,{K},{K}>"));
    mma("mxf8f6f4_ss", format!("SM100_MMA_MXF8F6F4_SS<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,128,64,{K},{K}>"));
    mma(
        "mxf8f6f4_2x1sm_ss",
        format!("SM100_MMA_MXF8F6F4_2x1SM_SS<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,256,128,{K},{K}>"),
    );
    mma("mxf4_ss_vs32", format!("SM100_MMA_MXF4_SS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,128,64,32,{K},{K}>"));
    mma("mxf4_ss_vs16", format!("SM100_MMA_MXF4_SS<float_e2m1_t,float_e2m1_t,float,float_ue4m3_t,128,64,16,{K},{K}>"));
    mma("f16bf16_ss_scaled", format!("SM100_MMA_F16BF16_SS_SCALED<half_t,half_t,float,128,64,{K},{K},3>"));
    mma("tf32_ts_scaled", format!("SM100_MMA_TF32_TS_SCALED<tfloat32_t,tfloat32_t,float,128,64,{K},{K},3>"));
    mma("f16bf16_ss_sparse", format!("SM100_MMA_F16BF16_SS_SPARSE<half_t,half_t,float,128,64,{K},{K}>"));
    mma("tf32_2x1sm_ss_sparse", format!("SM100_MMA_TF32_2x1SM_SS_SPARSE<tfloat32_t,tfloat32_t,float,256,64,{K},{K}>"));
    mma("s8_ss_sparse", format!("SM100_MMA_S8_SS_SPARSE<int8_t,int8_t,int32_t,128,64,{K},{K}>"));
    mma("f8f6f4_ss_sparse", format!("SM100_MMA_F8F6F4_SS_SPARSE<float_e4m3_t,float_e4m3_t,float,128,64,{K},{K}>"));
    mma(
        "mxf8f6f4_ss_sparse",
        format!("SM100_MMA_MXF8F6F4_SS_SPARSE<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,128,64,{K},{K}>"),
    );
    mma(
        "mxf4nvf4_ss_sparse",
        format!("SM100_MMA_MXF4NVF4_SS_SPARSE<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,128,64,64,{K},{K}>"),
    );
    mma("tf32_ts_interleaved", format!("SM100_MMA_TF32_TS_INTERLEAVED_CF32CTF32CTF32CF32_TN<128,64,{K},{K}>"));
    for op in [
        "SM100_TMEM_LOAD_32dp32b1x",
        "SM100_TMEM_LOAD_32dp32b8x",
        "SM100_TMEM_LOAD_16dp256b1x",
        "SM100_TMEM_LOAD_16dp128b2x_16b",
        "SM100_TMEM_LOAD_16dp64b4x",
        "SM100_TMEM_LOAD_16dp32b2x",
        "SM100_TMEM_STORE_32dp32b4x",
        "SM100_TMEM_STORE_16dp256b1x",
        "SM100_UTCCP_128dp256bit_1cta",
        "SM100_UTCCP_128dp128bit_2cta",
        "SM100_UTCCP_4dp256bit_1cta",
        "SM100_UTCCP_4x32dp128bit_1cta",
        "SM100_UTCCP_2x64dp128bitlw0213_1cta",
        "SM100_UTCCP_2x64dp128bitlw0123_2cta",
    ] {
        let name = op.trim_start_matches("SM100_").to_ascii_lowercase();
        v.push(Program { name, op: op.to_string(), member: "copy" });
    }
    v
}

/// The SM120 programs (sm_120a).
pub fn sm120_programs() -> Vec<Program> {
    let p = |name: &str, op: &str| Program { name: name.to_string(), op: op.to_string(), member: "fma" };
    vec![
        p("sm120_f8f6f4_e4m3", "SM120_16x8x32_TN<float_e4m3_t,float_e4m3_t,float>"),
        p("sm120_f8f6f4_e2m1_e5m2_f16", "SM120_16x8x32_TN<float_e2m1_t,float_e5m2_t,half_t>"),
        p(
            "sm120_mxf8f6f4_vs",
            "SM120::BLOCKSCALED::SM120_16x8x32_TN_VS<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,32>",
        ),
        p(
            "sm120_mxf4_vs32",
            "SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,32>",
        ),
        p(
            "sm120_nvf4_vs16",
            "SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<float_e2m1_t,float_e2m1_t,float,float_ue4m3_t,16>",
        ),
        p("sm120_sparse_f8f6f4", "SM120::SPARSE::SM120_SPARSE_16x8x64_TN<float_e4m3_t,float_e4m3_t,float>"),
        p(
            "sm120_sparse_mxf8f6f4_vs",
            "SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x64_TN_VS<float_e4m3_t,float_e4m3_t,float,float_ue8m0_t,64>",
        ),
        p(
            "sm120_sparse_mxf4_vs",
            "SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x128_TN_VS<float_e2m1_t,float_e2m1_t,float,float_ue8m0_t,64>",
        ),
    ]
}

/// The header every generated program includes ([`CALL_HEADER`], written beside the sources):
/// the includes, and `call_all`, which calls a static member with every argument read from `in`
/// (a distinct word each, so none is a compile-time constant) and stores them to `out` afterwards.
pub const CALL_HEADER: &str = "sm100_call.cuh";

/// The text of [`CALL_HEADER`]: the one preamble of the sm_100a and sm_120a programs.
pub fn call_header() -> String {
    "// Generated by harness/gpu/sm100.rs (cargo xtask gpu-sm100); do not edit.\n\
#pragma once\n\
#include <cstdio>\n\
#include <cstring>\n\
#include <cute/tensor.hpp>\n\
#include <cute/atom/mma_atom.hpp>\n\
#include <cute/atom/copy_atom.hpp>\n\
using namespace cute;\n\
\n\
// Every argument of F, loaded from in[] (a distinct word each) and stored to out[] afterwards.\n\
template <class T> using Arg = cute::remove_cvref_t<T>;\n\
template <class... A, int... I>\n\
__device__ __forceinline__ void call_with(void (*f)(A...), uint32_t const* in, uint32_t* out,\n\
                                          cute::integer_sequence<int, I...>) {\n\
  cute::tuple<Arg<A>...> args{};\n\
  ((void)memcpy(&cute::get<I>(args), in + 16 * I, sizeof(Arg<A>)), ...);\n\
  f(cute::get<I>(args)...);\n\
  ((void)memcpy(out + 16 * I, &cute::get<I>(args), sizeof(Arg<A>)), ...);\n\
}\n\
template <class... A>\n\
__device__ __forceinline__ void call_all(void (*f)(A...), uint32_t const* in, uint32_t* out) {\n\
  call_with(f, in, out, cute::make_integer_sequence<int, sizeof...(A)>{});\n\
}\n"
    .to_string()
}

/// The CUDA source of `programs` for `arch` (`sm_100a` or `sm_120a`): each kernel calls its
/// operation's static member with every argument read from the kernel's `in` array (so none is a
/// compile-time constant) and writes every reference argument back to `out`, and `main` launches
/// each kernel once and prints its CUDA status (the command a B200 / RTX 50 would run).
pub fn source(arch: &str, programs: &[Program]) -> String {
    let mut s = format!(
        "// Generated by harness/gpu/sm100.rs (cargo xtask gpu-sm100) for {arch}; do not edit.\n\
// Built, not run: no Blackwell GPU is lent here (fixtures/gpu/sm100-built/README.md).\n\
#include \"{CALL_HEADER}\"\n\n"
    );
    for p in programs {
        s.push_str(&format!(
            "using Op_{n} = {op};\n__global__ void k_{n}(uint32_t const* in, uint32_t* out) {{ call_all(&Op_{n}::{m}, in, out); }}\n\n",
            n = p.name,
            op = p.op,
            m = p.member
        ));
    }
    s.push_str(
        "int main() {\n  uint32_t *in, *out;\n  cudaMalloc(&in, 1 << 16);\n  cudaMalloc(&out, 1 << 16);\n  cudaMemset(in, 0, 1 << 16);\n",
    );
    for p in programs {
        s.push_str(&format!(
            "  k_{n}<<<1, 128>>>(in, out);\n  printf(\"{n} %s\\n\", cudaGetErrorString(cudaDeviceSynchronize()));\n",
            n = p.name
        ));
    }
    s.push_str("  return 0;\n}\n");
    s
}

/// The SASS instruction families a kernel must show: `UTC` + `MMA` for a UMMA operation (the
/// tcgen05.mma forms: UTCHMMA, UTCQMMA, UTCOMMA, UTCIMMA, with their 2CTA and sparse variants),
/// `LDTM` / `STTM` for a TMEM load / store, `UTCCP` for a UTCCP copy, `MMA` for an SM120 warp MMA
/// (HMMA/QMMA/OMMA forms).
pub fn expected(p: &Program) -> &'static str {
    if p.op.starts_with("SM100_MMA_") {
        "UTC*MMA"
    } else if p.op.starts_with("SM100_TMEM_LOAD") {
        "LDTM"
    } else if p.op.starts_with("SM100_TMEM_STORE") {
        "STTM"
    } else if p.op.starts_with("SM100_UTCCP") {
        "UTCCP"
    } else {
        "*MMA"
    }
}

/// Why a kernel shows no instruction of its family, where CuTe makes it so: the TF32 `_SCALED`
/// operations' `tcgen05.mma` is under `CUTE_ARCH_TCGEN05_UTFMMA_SCALED_ENABLED`, which no header of
/// CUTLASS 4.7 defines (cute/arch/config.hpp defines the F16BF16 one only), so their `fma` is
/// `CUTE_INVALID_CONTROL_PATH` on every architecture.
pub fn exception(p: &Program) -> Option<&'static str> {
    (p.op.starts_with("SM100_MMA_TF32_") && p.op.contains("_SCALED<")).then_some(
        "CUTE_ARCH_TCGEN05_UTFMMA_SCALED_ENABLED is never defined (CUTLASS 4.7): fma is CUTE_INVALID_CONTROL_PATH",
    )
}

/// Whether a SASS mnemonic is of the family [`expected`] names.
pub fn matches(family: &str, mnemonic: &str) -> bool {
    match family {
        "UTC*MMA" => mnemonic.starts_with("UTC") && mnemonic.contains("MMA"),
        "*MMA" => mnemonic.contains("MMA") && !mnemonic.starts_with("UTC"),
        f => mnemonic.starts_with(f),
    }
}

/// The mnemonics of each `k_<name>` function in cuobjdump's `--dump-sass` text (the first word of
/// every instruction, predicates and modifiers dropped: `UTCHMMA.2CTA` is `UTCHMMA`), sorted.
pub fn mnemonics(sass: &str) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut out: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    let mut cur: Option<String> = None;
    for line in sass.lines() {
        let t = line.trim();
        if let Some(f) = t.strip_prefix("Function : ") {
            // Mangled: _Z..k_<name>PKjPj
            cur = f.split_once("k_").map(|(_, r)| r.trim_end_matches("PKjPj").to_string());
            continue;
        }
        let Some(name) = &cur else { continue };
        // "/*0040*/                   UTCHMMA.2CTA gdesc[UR4], ... ;"
        let Some(rest) = t.strip_prefix("/*").and_then(|r| r.split_once("*/")).map(|(_, r)| r.trim()) else {
            continue;
        };
        let rest = if rest.starts_with('@') { rest.split_once(' ').map(|(_, r)| r.trim()).unwrap_or("") } else { rest };
        let word = rest.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("");
        let m = word.split('.').next().unwrap_or("");
        if !m.is_empty() && m.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
            out.entry(name.clone()).or_default().insert(m.to_string());
        }
    }
    out
}
