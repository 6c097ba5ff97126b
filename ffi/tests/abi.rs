//! The C ABI against its committed list, `ffi/abi/symbols.txt`: every function the header
//! declares (with its signature) and every enumerator (with its number). Within one ABI
//! version (the SONAME's: `0.MINOR` before 1.0, then `MAJOR`) nothing may disappear or change;
//! a new item must be added to the list (and to CHANGELOG). `libhpa.so` must export exactly
//! the listed functions.
//!
//! Regenerate the list after a deliberate change:
//! `HPA_ABI_BLESS=1 cargo test -p hpa-ffi --profile quick --test abi`.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::process::Command;

const LIST: &str = "ffi/abi/symbols.txt";

/// The ABI version of this build: what a breaking change must bump.
fn abi_version() -> String {
    let major = env!("CARGO_PKG_VERSION_MAJOR");
    if major == "0" {
        format!("0.{}", env!("CARGO_PKG_VERSION_MINOR"))
    } else {
        major.to_string()
    }
}

/// The header without comments and preprocessor lines.
fn declarations(header: &str) -> String {
    let mut code = String::new();
    let mut rest = header;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unterminated comment") + start + 2;
        rest = &rest[end..];
    }
    code.push_str(rest);
    let mut out = String::new();
    let mut continued = false;
    for line in code.lines() {
        let directive = continued || line.trim_start().starts_with('#');
        continued = directive && line.trim_end().ends_with('\\');
        if !directive {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `fn NAME` → its declaration, `enum NAME` → its number, from the header.
fn header_items(header: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    let code = declarations(header);
    for line in code.lines() {
        let t = line.trim().trim_end_matches(',');
        if let Some((name, value)) = t.split_once(" = ") {
            if name.starts_with("HPA_") && value.parse::<i64>().is_ok() {
                items.insert(format!("enum {name}"), value.to_string());
            }
        }
    }
    for statement in code.split(';') {
        let s = statement.split_whitespace().collect::<Vec<_>>().join(" ");
        let s = s.rsplit(['{', '}']).next().unwrap_or("").trim();
        let s = s.strip_prefix("HPA_MUST_USE ").unwrap_or(s);
        let Some(open) = s.find('(') else { continue };
        let Some(name_start) = s[..open].rfind([' ', '*']) else {
            continue;
        };
        let name = &s[name_start + 1..open];
        if name.starts_with("hpa_") && !s.starts_with("typedef") {
            items.insert(format!("fn {name}"), s.to_string());
        }
    }
    items
}

fn render(abi: &str, items: &BTreeMap<String, String>) -> String {
    let mut out = format!(
        "# The C ABI of libhpa, from include/hpa.h (ffi/tests/abi.rs checks it; regenerate with\n\
         # HPA_ABI_BLESS=1 cargo test -p hpa-ffi --profile quick --test abi). Within one ABI\n\
         # version no line may disappear or change.\nabi {abi}\n"
    );
    for (key, value) in items {
        out.push_str(&format!("{key} = {value}\n"));
    }
    out
}

fn parse(list: &str) -> (String, BTreeMap<String, String>) {
    let mut abi = String::new();
    let mut items = BTreeMap::new();
    for line in list.lines().filter(|l| !l.starts_with('#')) {
        if let Some(v) = line.strip_prefix("abi ") {
            abi = v.to_string();
        } else if let Some((key, value)) = line.split_once(" = ") {
            items.insert(key.to_string(), value.to_string());
        }
    }
    (abi, items)
}

#[test]
fn c_abi_keeps_its_committed_items_within_an_abi_version() {
    let header = fs::read_to_string(support::root().join("include/hpa.h")).expect("hpa.h");
    let current = header_items(&header);
    assert!(current.keys().filter(|k| k.starts_with("fn ")).count() > 20);
    assert!(current.keys().filter(|k| k.starts_with("enum ")).count() > 100);
    let abi = abi_version();
    let path = support::root().join(LIST);
    if std::env::var_os("HPA_ABI_BLESS").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, render(&abi, &current)).unwrap();
        return;
    }
    let regenerate = "HPA_ABI_BLESS=1 cargo test -p hpa-ffi --profile quick --test abi";
    let (listed_abi, listed) = parse(&fs::read_to_string(&path).expect(LIST));
    assert_eq!(
        listed_abi, abi,
        "{LIST} is for ABI {listed_abi}, this build is ABI {abi}: regenerate it ({regenerate})"
    );
    let broken: Vec<String> = listed
        .iter()
        .filter(|(key, value)| current.get(*key) != Some(value))
        .map(|(key, value)| match current.get(key) {
            None => format!("  removed: {key} = {value}"),
            Some(now) => format!("  changed: {key} = {value}\n       now: {now}"),
        })
        .collect();
    assert!(
        broken.is_empty(),
        "C ABI items disappeared or changed without an ABI version bump (ABI {abi}; bump the \
         major version, or the minor one before 1.0, then regenerate {LIST}):\n{}",
        broken.join("\n")
    );
    let added: Vec<&String> = current
        .keys()
        .filter(|k| !listed.contains_key(*k))
        .collect();
    assert!(
        added.is_empty(),
        "new C ABI items are not in {LIST}: record them in CHANGELOG and regenerate the list \
         ({regenerate}): {added:?}"
    );
}

#[test]
fn shared_library_exports_exactly_the_listed_functions() {
    let so = support::libhpa().with_file_name("libhpa.so");
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .expect("run nm");
    assert!(out.status.success(), "nm -D {}", so.display());
    let exported: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let header = fs::read_to_string(support::root().join("include/hpa.h")).expect("hpa.h");
    let declared: Vec<String> = header_items(&header)
        .keys()
        .filter_map(|k| k.strip_prefix("fn ").map(str::to_string))
        .collect();
    let mut exported_sorted = exported.clone();
    exported_sorted.sort();
    assert_eq!(
        exported_sorted, declared,
        "libhpa.so's exports differ from hpa.h's functions"
    );
}
