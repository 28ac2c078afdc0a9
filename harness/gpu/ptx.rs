//! Element codes and instruction spelling: the PTX of an atom, read from its name, and the
//! wgmma matrix descriptor.

/// The element code the C++ side uses (`cpp/gpu/common.hpp`, `Elem`) for a CuTe value type.
pub fn elem_of(cute_type: &str) -> Option<&'static str> {
    Some(match cute_type {
        "half_t" => "f16",
        "bfloat16_t" => "bf16",
        "tfloat32_t" => "tf32",
        "float" => "f32",
        "double" => "f64",
        "int8_t" => "s8",
        "uint8_t" => "u8",
        "int4b_t" => "s4",
        "uint4b_t" => "u4",
        "uint1b_t" => "b1",
        "int32_t" => "s32",
        "int16_t" => "s16",
        "float_e4m3_t" => "e4m3",
        "float_e5m2_t" => "e5m2",
        _ => return None,
    })
}

/// Width in bits of an element code.
pub fn elem_bits(code: &str) -> i64 {
    match code {
        "f64" => 64,
        "f32" | "tf32" | "s32" => 32,
        "f16" | "bf16" | "s16" => 16,
        "s8" | "u8" | "e4m3" | "e5m2" => 8,
        "s4" | "u4" => 4,
        _ => 1,
    }
}

/// The type tokens of an MMA atom's name (`F32F16F16F32` -> F32, F16, F16, F32).
pub fn type_tokens(s: &str) -> Option<Vec<&str>> {
    const TOK: [&str; 15] =
        ["BF16", "TF32", "F64", "F32", "F16", "S32", "S16", "S8", "U8", "S4", "U4", "U1", "E4M3", "E5M2", "GC64"];
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let t = TOK.iter().chain(["C64"].iter()).find(|t| rest.starts_with(**t))?;
        out.push(*t);
        rest = &rest[t.len()..];
    }
    Some(out)
}

/// A name token as the PTX type.
pub fn ptx_ty(tok: &str) -> &'static str {
    match tok {
        "BF16" => "bf16",
        "TF32" => "tf32",
        "F64" => "f64",
        "F32" => "f32",
        "F16" => "f16",
        "S32" => "s32",
        "S8" => "s8",
        "U8" => "u8",
        "S4" => "s4",
        "U4" => "u4",
        "U1" => "b1",
        "E4M3" => "e4m3",
        "E5M2" => "e5m2",
        _ => "?",
    }
}

/// The instruction of a warp-level atom, from its name: (PTX, combine), or why it is skipped.
pub fn mma_instruction(op: &str) -> std::result::Result<(String, String), String> {
    if op == "SM61_DP4A" {
        return Ok(("dp4a.s32.s32".into(), "mul".into()));
    }
    if op == "SM61_DP2A" {
        return Err("FINDING: CuTe 4.2's SM61_DP2A issues `dp2a.s32.s32`, which ptxas 13.0 rejects ('.hi/.lo' modifier \
                    required for instruction 'dp2a'; reproducer cpp/gpu/repro_dp2a.cu); PTX dp2a's b operand is 4x8-bit \
                    while the traits declare int16_t B values"
            .into());
    }
    let parts: Vec<&str> = op.split('_').collect();
    let (arch, mnk, types, lay) = match parts.as_slice() {
        [a, m, t, l, ..] => (*a, *m, *t, *l),
        _ => return Err(format!("no instruction known for {op}")),
    };
    let toks = type_tokens(types).ok_or_else(|| format!("cannot read the types of {op}"))?;
    if toks.iter().any(|t| t.ends_with("C64")) {
        return Err(
            "complex f64: CuTe's fma issues 4 (Gauss: 3) real m8n8k4/m16n8kK f64 mma.sync on the real and imaginary \
                    parts with the F64 atom's layouts; the F64 atom of the same shape is checked"
                .into(),
        );
    }
    let [d, a, b, c] = toks.as_slice() else { return Err(format!("expected 4 types in {op}")) };
    let dims: Vec<&str> = mnk.split('x').collect();
    let [m, n, k] = dims.as_slice() else { return Err(format!("no MxNxK in {op}")) };
    let la = if lay.as_bytes()[0] == b'T' { "row" } else { "col" };
    let lb = if lay.as_bytes().get(1) == Some(&b'N') { "col" } else { "row" };
    let sat = if op.ends_with("_SATURATE") { ".satfinite" } else { "" };
    let (popc, combine) = if op.ends_with("_XORPOPC") {
        (".xor.popc", "xor")
    } else if op.ends_with("_ANDPOPC") {
        (".and.popc", "and")
    } else {
        ("", "mul")
    };
    let _ = arch;
    Ok((
        format!(
            "mma.sync.aligned.m{m}n{n}k{k}.{la}.{lb}{sat}.{}.{}.{}.{}{popc}",
            ptx_ty(d),
            ptx_ty(a),
            ptx_ty(b),
            ptx_ty(c)
        ),
        combine.into(),
    ))
}

/// Parses a GMMA atom name: (N, K, code, RS, A K-major, B K-major, saturate).
pub fn gmma_parts(name: &str) -> Option<(i64, i64, String, bool, bool, bool, bool)> {
    let rest = name.strip_prefix("SM90_64x")?;
    let (head, targs) = match rest.split_once('<') {
        Some((h, t)) => (h, t.trim_end_matches('>')),
        None => (rest, ""),
    };
    let parts: Vec<&str> = head.split('_').collect();
    let (nk, code, src) = (parts.first()?, parts.get(1)?, parts.get(2)?);
    let (n, k) = nk.split_once('x')?;
    let majors: Vec<bool> = targs.split(',').filter(|a| a.contains("Major")).map(|a| a.ends_with("::K")).collect();
    let (amk, bmk) = (majors.first().copied().unwrap_or(true), majors.get(1).copied().unwrap_or(true));
    Some((n.parse().ok()?, k.parse().ok()?, code.to_string(), *src == "RS", amk, bmk, head.ends_with("_SATURATE")))
}

/// A wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading and
/// stride byte offsets (in bytes, encoded >> 4) and the swizzle mode of smem layout kind `kind`.
pub fn desc(start: i64, lbo: i64, sbo: i64, kind: usize) -> u64 {
    let mode: u64 = match kind {
        0 => 0,
        1 => 3,
        2 => 2,
        _ => 1,
    };
    ((start as u64 >> 4) & 0x3fff)
        | (((lbo as u64 >> 4) & 0x3fff) << 16)
        | (((sbo as u64 >> 4) & 0x3fff) << 32)
        | (mode << 62)
}

/// The wgmma instruction of a GMMA atom, operands excluded: shape, the D, A and B type tokens of
/// its name and whether it saturates.
pub fn wgmma_instruction(n: i64, k: i64, [d, a, b]: [&str; 3], sat: bool) -> String {
    format!(
        "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{}.{}.{}{}",
        ptx_ty(d),
        ptx_ty(a),
        ptx_ty(b),
        if sat { ".satfinite" } else { "" }
    )
}

/// The trailing immediates of a wgmma (scale-d and the A/B scales and transposes where the type
/// has them), from A's element code, the source (RS) and the operands' majors.
pub fn wgmma_imms(ea: &str, rs: bool, amk: bool, bmk: bool) -> String {
    let sixteen = elem_bits(ea) == 16;
    match (ea, sixteen, rs) {
        ("s8" | "u8", _, _) => String::new(),
        (_, true, false) => format!(", 1, 1, {}, {}", u8::from(!amk), u8::from(!bmk)),
        (_, true, true) => format!(", 1, 1, {}", u8::from(!bmk)),
        _ => ", 1, 1".to_string(),
    }
}
