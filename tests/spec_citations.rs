//! Every citation of the specification in the workspace's sources names a section that
//! exists, and no citation in an older form is left (docs/spec/README.md#citations).
//!
//! A citation is `docs/spec/<file>.md` followed, optionally, by `#<anchor>`; an anchor is an
//! `<a id="<anchor>"></a>` line of that file. The old forms were section numbers of a
//! specification kept outside the repository ("spec 10.1", "spec section 7", "§9") and the
//! trace format's "rule N". The Markdown links between the files of `docs/spec` are checked the
//! same way. Standard library only; the walk reads a few megabytes of source.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The directory of the specification, relative to the repository root.
const SPEC_DIR: &str = "docs/spec";

/// Where citations may appear: sources, tests, examples, the C header.
const SOURCE_ROOTS: &[&str] = &[
    "src",
    "tests",
    "benches",
    "cli/src",
    "cli/tests",
    "ffi/src",
    "ffi/tests",
    "ffi/libhpa/src",
    "examples",
    "fuzz/fuzz_targets",
    "fuzz/src",
    "fuzz/examples",
    "testkit/src",
    "checks/no-panic/src",
    "include",
];

/// The source files read (data files such as traces are not).
const SOURCE_EXTENSIONS: &[&str] = &["rs", "c", "h", "cpp", "hpp"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The anchors of each file of the specification, by file name. Duplicates are problems.
fn anchors(problems: &mut Vec<String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    let dir = root().join(SPEC_DIR);
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let name = file_name(&path);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut ids = BTreeSet::new();
        for (number, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("<a id=\"") {
                rest = &rest[at + "<a id=\"".len()..];
                let Some(end) = rest.find('"') else { break };
                let id = &rest[..end];
                if !rest[end..].starts_with("\"></a>") {
                    problems.push(format!(
                        "{SPEC_DIR}/{name}:{}: an anchor is written `<a id=\"{id}\"></a>`",
                        number + 1
                    ));
                }
                if id.is_empty() || !id.bytes().all(is_anchor_byte) {
                    problems.push(format!(
                        "{SPEC_DIR}/{name}:{}: anchor {id:?} is not lowercase words joined by \
                         hyphens",
                        number + 1
                    ));
                }
                if !ids.insert(id.to_owned()) {
                    problems.push(format!(
                        "{SPEC_DIR}/{name}:{}: anchor #{id} is defined twice",
                        number + 1
                    ));
                }
            }
        }
        files.insert(name, ids);
    }
    files
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .expect("a UTF-8 file name")
        .to_owned()
}

fn is_anchor_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
}

fn is_file_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Every source file below the roots, skipping build output.
fn sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = file_name(&path);
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    walk(&path, out);
                }
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    for dir in SOURCE_ROOTS {
        walk(&root().join(dir), &mut out);
    }
    out.sort();
    out
}

/// A reference to a section: the file and, when given, the anchor.
struct Reference {
    file: String,
    anchor: Option<String>,
}

/// The citations `docs/spec/<file>.md[#<anchor>]` in `line`.
fn citations(line: &str) -> Vec<Result<Reference, String>> {
    let prefix = format!("{SPEC_DIR}/");
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(&prefix) {
        rest = &rest[at + prefix.len()..];
        let stem_len = rest.bytes().take_while(|&b| is_file_byte(b)).count();
        let (stem, after) = rest.split_at(stem_len);
        let Some(after) = after.strip_prefix(".md") else {
            out.push(Err(format!(
                "`{prefix}{}` does not name a .md file",
                &rest[..rest.len().min(stem_len + 8)]
            )));
            continue;
        };
        let anchor = after.strip_prefix('#').map(|a| {
            let len = a.bytes().take_while(|&b| is_anchor_byte(b)).count();
            a[..len].to_owned()
        });
        out.push(Ok(Reference {
            file: format!("{stem}.md"),
            anchor,
        }));
    }
    out
}

/// `line` without its citations (an anchor such as `#rule-7` is no old form).
fn without_citations(line: &str) -> String {
    let prefix = format!("{SPEC_DIR}/");
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(&prefix) {
        out.push_str(&rest[..at]);
        rest = &rest[at + prefix.len()..];
        let len = rest
            .bytes()
            .take_while(|&b| is_file_byte(b) || is_anchor_byte(b) || b == b'.' || b == b'#')
            .count();
        rest = &rest[len..];
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// A citation in a form that is no longer used, if `line` holds one.
fn old_form(line: &str) -> Option<&'static str> {
    let line = &without_citations(line);
    let lower = line.to_ascii_lowercase();
    if line.contains('\u{a7}') {
        return Some("a section sign");
    }
    for (needle, what) in [
        ("algorithm spec", "\"algorithm spec\""),
        ("shared/spec", "the shared specification's path"),
        ("hpa-algorithm", "the shared specification's file name"),
        ("trace format rule", "\"trace format rule\""),
        ("trace rule", "\"trace rule\""),
    ] {
        if lower.contains(needle) {
            return Some(what);
        }
    }
    // A word followed by a number: "spec 14", "spec, section 16", "section 4", "rule 7".
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        let number = pair[1].starts_with(|c: char| c.is_ascii_digit());
        match pair[0].trim_end_matches('.') {
            "spec" if number => return Some("\"spec\" and a section number"),
            "section" | "sections" if number => return Some("\"section\" and a number"),
            "rule" | "rules" if number => return Some("\"rule\" and a number"),
            _ => {}
        }
    }
    None
}

// Reads the project's files and runs no engine code, so Miri would check nothing of the
// project's here, for minutes (docs/testing.md#miri).
#[test]
#[cfg_attr(miri, ignore = "reads files and runs no engine code")]
fn every_cited_section_exists_and_no_old_citation_is_left() {
    let mut problems = Vec::new();
    let spec = anchors(&mut problems);
    let this_file = root().join("tests/spec_citations.rs");
    let mut checked = 0_usize;
    for path in sources() {
        if path == this_file {
            continue;
        }
        let shown = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        // Not UTF-8 (a binary fixture): nothing to check.
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            let at = format!("{shown}:{}", number + 1);
            if let Some(what) = old_form(line) {
                problems.push(format!(
                    "{at}: old-style citation ({what}); cite `{SPEC_DIR}/<file>.md#<anchor>`: \
                     {}",
                    line.trim()
                ));
            }
            for citation in citations(line) {
                checked += 1;
                match citation {
                    Err(e) => problems.push(format!("{at}: {e}")),
                    Ok(r) => check(&spec, &r, &at, &mut problems),
                }
            }
        }
    }
    check_spec_links(&spec, &mut problems);
    assert!(
        problems.is_empty(),
        "{} problem(s) with citations of {SPEC_DIR} ({checked} citations read):\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The walk found the sources: the code cites the specification in many places.
    assert!(
        checked >= 80,
        "only {checked} citations found: is the walk broken?"
    );
}

/// `r` names an existing file and anchor.
fn check(
    spec: &BTreeMap<String, BTreeSet<String>>,
    r: &Reference,
    at: &str,
    problems: &mut Vec<String>,
) {
    let Some(ids) = spec.get(&r.file) else {
        problems.push(format!("{at}: {SPEC_DIR}/{} does not exist", r.file));
        return;
    };
    match r.anchor.as_deref() {
        Some("") => problems.push(format!(
            "{at}: {SPEC_DIR}/{}#: an empty or malformed anchor",
            r.file
        )),
        Some(id) if !ids.contains(id) => problems.push(format!(
            "{at}: {SPEC_DIR}/{} has no anchor #{id} (it has: {})",
            r.file,
            ids.iter().cloned().collect::<Vec<_>>().join(", ")
        )),
        _ => {}
    }
}

/// The relative Markdown links between the files of the specification (`](file.md#id)`,
/// `](#id)`) resolve, and the index links every file.
fn check_spec_links(spec: &BTreeMap<String, BTreeSet<String>>, problems: &mut Vec<String>) {
    let mut indexed = BTreeSet::new();
    for name in spec.keys() {
        let path = root().join(SPEC_DIR).join(name);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (number, line) in text.lines().enumerate() {
            let at = format!("{SPEC_DIR}/{name}:{}", number + 1);
            let mut rest = line;
            while let Some(start) = rest.find("](") {
                rest = &rest[start + 2..];
                let Some(end) = rest.find(')') else { break };
                let target = &rest[..end];
                rest = &rest[end..];
                // Only links to the specification's files (regular expressions in the text
                // contain `](` too).
                if !(target.starts_with('#') || target.contains(".md")) || target.contains("://") {
                    continue;
                }
                let (file, anchor) = match target.split_once('#') {
                    Some((file, anchor)) => (file, Some(anchor.to_owned())),
                    None => (target, None),
                };
                let file = if file.is_empty() { name.as_str() } else { file };
                if name == "README.md" {
                    indexed.insert(file.to_owned());
                }
                let reference = Reference {
                    file: file.to_owned(),
                    anchor,
                };
                check(spec, &reference, &at, problems);
            }
        }
    }
    for name in spec.keys() {
        if name != "README.md" && !indexed.contains(name) {
            problems.push(format!(
                "{SPEC_DIR}/README.md does not link {name} from its index"
            ));
        }
    }
}
