//! The first modelled CUTLASS release that declares each atom newer than the oldest modelled
//! release (read from each release's cute/arch headers by `cargo xtask atom-releases`; do not
//! edit by hand). An atom not listed is in every modelled release.

use crate::release::Release;

/// (atom base name, first release that declares it), sorted by name.
pub const SINCE: &[(&str, Release)] = &[
    ("SM75_U32x1_MOVM_T", Release::new(4, 2, 0, 0)),
    ("SM80_16x8x128_S32U1U1S32_TN_ANDPOPC", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x128_S32U1U1S32_TN_XORPOPC", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x256_S32U1U1S32_TN_ANDPOPC", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32S4S4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32S4S4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32S4U4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32S4U4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32U4S4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32U4S4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32U4U4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x32_S32U4U4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32S4S4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32S4S4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32S4U4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32S4U4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32U4S4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32U4S4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32U4U4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_16x8x64_S32U4U4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x128_S32U1U1S32_TN_ANDPOPC", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x128_S32U1U1S32_TN_XORPOPC", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32S4S4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32S4S4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32S4U4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32S4U4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32U4S4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32U4S4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32U4U4S32_TN", Release::new(3, 6, 0, 0)),
    ("SM80_8x8x32_S32U4U4S32_TN_SATURATE", Release::new(3, 6, 0, 0)),
    ("SM89_16x8x32_F16E4M3E4M3F16_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F16E4M3E5M2F16_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F16E5M2E4M3F16_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F16E5M2E5M2F16_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F32E4M3E4M3F32_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F32E4M3E5M2F32_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F32E5M2E4M3F32_TN", Release::new(4, 2, 0, 0)),
    ("SM89_16x8x32_F32E5M2E5M2F32_TN", Release::new(4, 2, 0, 0)),
];
