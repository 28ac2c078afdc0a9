//! The C ABI of `cpp/ffi/cutecheck_ffi.h`, as bindgen generated it in build.rs (never written by
//! hand). Present only when the crate was built with CuTe provisioned (`cfg(cutecheck_ffi)`).
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/cutecheck_ffi.rs"));
