//! The shared library's ELF identity: a SONAME with the ABI version (as cargo-c names it:
//! `libhpa.so.0.MINOR` before 1.0, where a minor release may break the ABI, then
//! `libhpa.so.MAJOR`), and a version script that exports the C API's `hpa_*` functions only,
//! so that `rust_eh_personality` stays inside.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=libhpa.map");
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if !matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd"
    ) {
        return;
    }
    let major = env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let abi = if major == "0" {
        format!("0.{minor}")
    } else {
        major
    };
    let map = format!(
        "{}/libhpa.map",
        env::var("CARGO_MANIFEST_DIR").unwrap_or_default()
    );
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhpa.so.{abi}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={map}");
}
