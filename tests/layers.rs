//! The core's modules form layers: a module uses only modules below it, so data flows one way
//! (inputs → per-metric proposals → combination → normalization → decision) and there is no
//! import cycle. This test reads every `crate::module` path in `src/` (code and unit tests,
//! not comments) and checks it against the order below, which docs/architecture.md
//! ("Layers") explains.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The core's top-level modules, lowest first: each may use only those before it.
const LAYERS: [&str; 21] = [
    // Foundations: no dependency inside the crate.
    "tuning",
    "time",
    "arith",
    "fingerprint",
    // Values: Kubernetes quantities, tolerances read from them, controller settings.
    "quantity",
    "tolerance",
    "settings",
    // Inputs: the spec and one evaluation's observation; the status vocabulary.
    "spec",
    "input",
    "conditions",
    // Configuration: API validation and defaulting into an `Hpa`.
    "validation",
    "defaults",
    // Per-metric proposals and their combination.
    "pods",
    "calculator",
    "metrics",
    // Normalization and its history.
    "history",
    "normalize",
    // The reconcile and what is built on its decisions.
    "autoscaler",
    "digest",
    "snapshot",
    "shared",
];

/// The top-level module each file of `src/` belongs to, with the file's text.
fn sources() -> BTreeMap<String, Vec<(String, String)>> {
    fn walk(dir: &Path, module: Option<&str>, out: &mut BTreeMap<String, Vec<(String, String)>>) {
        for entry in fs::read_dir(dir).expect("read src/") {
            let path = entry.expect("dir entry").path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let owner = module.map_or(name.clone(), str::to_owned);
            if path.is_dir() {
                walk(&path, Some(&owner), out);
            } else if path.extension().is_some_and(|e| e == "rs") && owner != "lib" {
                let text = fs::read_to_string(&path).expect("read source");
                out.entry(owner)
                    .or_default()
                    .push((path.display().to_string(), text));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        None,
        &mut out,
    );
    out
}

/// The modules a source names as `crate::module`, outside comments, with a line of each.
fn uses(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if !name.is_empty() {
                found.push((name, number + 1));
            }
        }
    }
    found
}

// The tests of this file read the source files and run no engine code, so Miri would check
// nothing of the project's here (docs/testing.md#miri).
#[test]
#[cfg_attr(miri, ignore = "reads files and runs no engine code")]
fn every_module_is_in_a_layer() {
    let modules: Vec<String> = sources().into_keys().collect();
    let mut listed: Vec<String> = LAYERS.iter().map(|m| m.to_string()).collect();
    listed.sort();
    assert_eq!(
        modules, listed,
        "src/ has a module LAYERS does not place (or LAYERS names one src/ lacks)"
    );
}

#[test]
#[cfg_attr(miri, ignore = "reads files and runs no engine code")]
fn modules_use_only_lower_layers() {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut violations = Vec::new();
    for (module, files) in sources() {
        let own = rank(&module).expect("placed (see every_module_is_in_a_layer)");
        for (path, text) in files {
            for (used, line) in uses(&text) {
                if used == module {
                    continue;
                }
                match rank(&used) {
                    Some(r) if r < own => {}
                    Some(_) => violations.push(format!(
                        "{path}:{line}: `{module}` uses `{used}`, which is not below it"
                    )),
                    None => violations.push(format!(
                        "{path}:{line}: `crate::{used}` is no module of LAYERS"
                    )),
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}
