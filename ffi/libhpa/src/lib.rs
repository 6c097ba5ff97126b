//! `libhpa.a` / `libhpa.so`: the C library of the hpa engine.
//!
//! Every exported function lives in the `hpa-ffi` crate (`ffi/src`); this crate only links it
//! into C artifacts and, for the release (`panic = "abort"`) build that C programs link,
//! supplies the `#[panic_handler]` a `no_std` library must have. No panic is reachable: the C
//! tests link `libhpa.a` with `-Wl,--gc-sections` and check that no panic symbol is left
//! (`ffi/tests/c_api.rs`). Should one ever be reached, the handler calls C's `abort()`.
#![cfg_attr(panic = "abort", no_std)]

pub use hpa_ffi::*;

#[cfg(panic = "abort")]
extern "C" {
    fn abort() -> !;
}

/// The unwinding personality routine. The host's precompiled `core` and `compiler_builtins`
/// are built for unwinding and their unwind tables name this symbol, which only `std`
/// defines; a C program linking this `no_std` library would fail with "undefined reference to
/// `rust_eh_personality`". Nothing here ever unwinds (`panic = "abort"`, and no panic is
/// reachable), so the routine is never called. It is written in assembly to be weak (a Rust
/// library built with `std` in the same C program brings its own, which wins instead of
/// clashing) and hidden (`libhpa.so` exports the C API only: rustc would export a
/// `#[no_mangle]` function whatever the version script says).
#[cfg(panic = "abort")]
macro_rules! personality {
    ($ret:literal) => {
        core::arch::global_asm!(
            ".pushsection .text.rust_eh_personality,\"ax\",%progbits",
            ".weak rust_eh_personality",
            ".hidden rust_eh_personality",
            ".type rust_eh_personality,%function",
            "rust_eh_personality:",
            $ret,
            ".size rust_eh_personality, . - rust_eh_personality",
            ".popsection",
        );
    };
}
#[cfg(all(panic = "abort", target_arch = "arm"))]
personality!("bx lr");
#[cfg(all(panic = "abort", not(target_arch = "arm")))]
personality!("ret");

#[cfg(panic = "abort")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `abort` is the C library's; it takes no argument and never returns.
    unsafe { abort() }
}
