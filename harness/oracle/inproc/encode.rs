//! Which cases the in-process oracle takes, and their requests: a case whose operands are
//! all-dynamic layout literals with a nesting profile in the FFI's menu, for an operation the FFI
//! has (cpp/ffi/cutecheck_ffi.h). The menu and the operations are read from the library itself
//! (`cc_ffi_profile`, `cc_ffi_op_name`), so the two sides cannot drift apart.

use std::collections::HashMap;

use crate::expr::parse::Expr;

use super::ffi;

/// The FFI's menu of profiles and operations.
pub struct Menu {
    profiles: HashMap<String, i32>,
    ops: HashMap<&'static str, i32>,
}

/// Why a case does not go in-process (it goes to the compiled driver).
pub type NotInMenu = &'static str;

impl Menu {
    pub fn load() -> Menu {
        let mut profiles = HashMap::new();
        // SAFETY: plain queries of constant tables; the strings are static NUL-terminated literals.
        unsafe {
            for p in 0..ffi::cc_ffi_num_profiles() {
                let s = std::ffi::CStr::from_ptr(ffi::cc_ffi_profile(p));
                profiles.insert(s.to_string_lossy().into_owned(), p);
            }
        }
        let mut ops = HashMap::new();
        for op in 0..ffi::cc_op::CC_OP_COUNT as i32 {
            // complement(L) and complement(L, n) share a name; evaluate is L(i).
            if op == ffi::cc_op::CC_OP_COMPLEMENT_TO as i32 || op == ffi::cc_op::CC_OP_EVALUATE as i32 {
                continue;
            }
            // SAFETY: as above.
            let name = unsafe { std::ffi::CStr::from_ptr(ffi::cc_ffi_op_name(op)) };
            let name: &'static str = Box::leak(name.to_string_lossy().into_owned().into_boxed_str());
            ops.insert(name, op);
        }
        Menu { profiles, ops }
    }

    pub fn profiles(&self) -> usize {
        self.profiles.len()
    }

    /// The request for `e`, or why it is not in the menu.
    pub fn encode(&self, e: &Expr) -> Result<ffi::cc_request, NotInMenu> {
        let mut r = ffi::cc_request::default();
        match e {
            Expr::Apply { target, args, .. } => {
                r.op = ffi::cc_op::CC_OP_EVALUATE as i32;
                r.a = self.layout(target)?;
                let [i] = args.as_slice() else { return Err("evaluation at a tuple coordinate") };
                r.arg = dynamic_int(i)?;
            }
            Expr::Call { name, args, called: true, .. } => {
                let n = name.simple().ok_or("a templated name")?;
                let &op = self.ops.get(n).ok_or("an operation the in-process library does not have")?;
                // SAFETY: a plain query of a constant table.
                let binary = unsafe { ffi::cc_ffi_op_is_binary(op) } != 0;
                match (args.as_slice(), binary) {
                    ([a], false) => {
                        r.op = op;
                        r.a = self.layout(a)?;
                    }
                    ([a, m], false) if op == ffi::cc_op::CC_OP_COMPLEMENT as i32 => {
                        r.op = ffi::cc_op::CC_OP_COMPLEMENT_TO as i32;
                        r.a = self.layout(a)?;
                        r.arg = dynamic_int(m)?;
                    }
                    ([a, b], true) => {
                        r.op = op;
                        r.a = self.layout(a)?;
                        r.b = self.layout(b)?;
                    }
                    _ => return Err("arguments the in-process library does not take"),
                }
            }
            _ => return Err("not an operation"),
        }
        // SAFETY: a plain query of a constant table.
        if unsafe { ffi::cc_ffi_supported(r.op, r.a.profile, r.b.profile) } == 0 {
            return Err("profiles not instantiated (CuTe rejects them at compile time, or not in the menu)");
        }
        Ok(r)
    }

    /// An all-dynamic layout literal whose shape and stride have one profile of the menu.
    fn layout(&self, e: &Expr) -> Result<ffi::cc_layout, NotInMenu> {
        let Expr::Layout { shape, stride, .. } = e else { return Err("an operand that is not a layout literal") };
        let mut l = ffi::cc_layout::default();
        let (mut ps, mut pd) = (String::new(), String::new());
        let (mut ns, mut nd) = (0usize, 0usize);
        leaves(shape, &mut ps, &mut l.shape, &mut ns)?;
        leaves(stride, &mut pd, &mut l.stride, &mut nd)?;
        if ps != pd {
            return Err("shape and stride of different profiles");
        }
        l.profile = *self.profiles.get(&ps).ok_or("a profile not in the menu")?;
        Ok(l)
    }
}

fn dynamic_int(e: &Expr) -> Result<i32, NotInMenu> {
    match e {
        Expr::Int { value, is_static: false, .. } => i32::try_from(*value).map_err(|_| "an int outside 32 bits"),
        Expr::Int { .. } => Err("a static integer"),
        _ => Err("not an integer"),
    }
}

/// The profile text (`x` per leaf) and the values of an int tuple of dynamic ints.
fn leaves(e: &Expr, profile: &mut String, out: &mut [i32], n: &mut usize) -> Result<(), NotInMenu> {
    match e {
        Expr::Int { .. } => {
            let slot = out.get_mut(*n).ok_or("more leaves than the menu has")?;
            *slot = dynamic_int(e)?;
            *n += 1;
            profile.push('x');
        }
        Expr::Tuple { items, .. } => {
            profile.push('(');
            for (k, x) in items.iter().enumerate() {
                if k > 0 {
                    profile.push(',');
                }
                leaves(x, profile, out, n)?;
            }
            profile.push(')');
        }
        _ => return Err("a shape or stride that is not an int tuple"),
    }
    Ok(())
}
