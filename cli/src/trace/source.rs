//! Reading the files the tool is given, before any parsing: `-` for standard input, a size
//! limit, and a nesting limit checked on the text itself, so that a hostile file is refused
//! quickly with a clear message (docs/spec/manifests.md#input-limits). The YAML parser takes
//! time quadratic in the nesting of flow collections (`[[[[...]]]]`), which is why the nesting
//! is measured before it runs.

use std::io::Read;
use std::path::Path;

use super::{Format, TraceError};

/// The largest manifest read, in bytes: a List of objects of etcd's largest size (1.5 MiB) is
/// far smaller.
pub const MAX_MANIFEST_BYTES: u64 = 8 << 20;

/// The largest trace or load file read, in bytes.
pub const MAX_DATA_BYTES: u64 = 256 << 20;

/// The deepest nesting of collections a document may have. Kubernetes objects nest about ten
/// levels deep (`managedFields` a few more); serde's own recursion limit is 128.
pub const MAX_NESTING: usize = 64;

/// A file's text, what it is called in messages, and its format.
#[derive(Clone, Debug)]
pub struct Source {
    /// The path as given, or `standard input` for `-`.
    pub name: String,
    /// The whole text.
    pub text: String,
    /// YAML or JSON: by the file's extension, or for standard input by its first character.
    pub format: Format,
}

/// Whether `path` means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Why a file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The path as given, or `standard input`.
    pub name: String,
    /// The I/O error (`cannot read`), or what is wrong with the content.
    pub problem: String,
    /// Whether reading failed (rather than the content being refused).
    pub io: bool,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.io {
            write!(f, "cannot read {}: {}", self.name, self.problem)
        } else {
            write!(f, "{}: {}", self.name, self.problem)
        }
    }
}

/// Reads the text at `path` (`-`: standard input), at most `limit` bytes.
///
/// # Errors
///
/// The file is unreadable, not UTF-8, or larger than `limit`.
pub fn read_text(path: &Path, limit: u64) -> Result<(String, String), ReadError> {
    let name = if is_stdin(path) {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    let fail = |problem: String, io: bool| ReadError {
        name: name.clone(),
        problem,
        io,
    };
    let reader: Box<dyn Read> = if is_stdin(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| fail(e.to_string(), true))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string(), true))?;
    if u64::try_from(bytes.len()).map_or(true, |n| n > limit) {
        return Err(fail(
            format!(
                "larger than {} MiB, the limit for this kind of file",
                limit >> 20
            ),
            false,
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| fail(format!("not UTF-8 text: {e}"), false))?;
    Ok((name, text))
}

/// Reads a manifest or a trace (see [`read_text`]), its format by its extension or, for
/// standard input, by its first character (`{` or `[`: JSON).
///
/// # Errors
///
/// As [`read_text`], with an empty field path.
pub fn read_source(path: &Path, limit: u64) -> Result<Source, TraceError> {
    let (name, text) = read_text(path, limit).map_err(|e| TraceError::new("", e.to_string()))?;
    let format = if is_stdin(path) {
        match text.trim_start().chars().next() {
            Some('{' | '[') => Format::Json,
            _ => Format::Yaml,
        }
    } else {
        Format::from_path(path)
    };
    Ok(Source { name, text, format })
}

/// Refuses a document nested deeper than [`MAX_NESTING`], measured on the text: brackets and
/// braces outside strings and comments, and for YAML also block sequences opened on one line
/// (`- - - x`). It over-counts rather than under-counts (brackets in a YAML block scalar
/// count), which only matters for text nested that deep.
///
/// # Errors
///
/// The line where the limit is passed.
pub fn check_nesting(text: &str, format: Format) -> Result<(), TraceError> {
    let mut depth = 0usize;
    let mut line = 1usize;
    let mut chars = text.chars().peekable();
    // Whether the previous character lets a YAML token start here.
    let mut token_start = true;
    let mut block_dashes = 0usize;
    let too_deep = |line: usize| {
        TraceError::new(
            "",
            format!(
                "line {line}: nested more than {MAX_NESTING} levels deep, the limit for a \
                 document"
            ),
        )
    };
    while let Some(c) = chars.next() {
        let yaml = format == Format::Yaml;
        let mut opened = false;
        match c {
            '\n' => {
                line = line.saturating_add(1);
                block_dashes = 0;
                token_start = true;
                continue;
            }
            '"' if !yaml || token_start => {
                // A double-quoted string, `\` escaping the next character.
                while let Some(s) = chars.next() {
                    match s {
                        '\\' if chars.next() == Some('\n') => line = line.saturating_add(1),
                        '\\' => {}
                        '"' => break,
                        '\n' => line = line.saturating_add(1),
                        _ => {}
                    }
                }
            }
            '\'' if yaml && token_start => {
                // A single-quoted YAML scalar (`''` is a quote, which this reads as two).
                for s in chars.by_ref() {
                    match s {
                        '\'' => break,
                        '\n' => line = line.saturating_add(1),
                        _ => {}
                    }
                }
            }
            '#' if yaml && token_start => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        line = line.saturating_add(1);
                        break;
                    }
                }
                block_dashes = 0;
            }
            '[' | '{' if !yaml || token_start || depth > 0 => {
                depth = depth.saturating_add(1);
                opened = true;
                if depth.saturating_add(block_dashes) > MAX_NESTING {
                    return Err(too_deep(line));
                }
            }
            ']' | '}' if !yaml || depth > 0 => depth = depth.saturating_sub(1),
            '-' if yaml && token_start && depth == 0 && chars.peek() == Some(&' ') => {
                block_dashes = block_dashes.saturating_add(1);
                if block_dashes > MAX_NESTING {
                    return Err(too_deep(line));
                }
            }
            _ => {}
        }
        // A bracket inside a plain scalar (`x[1]`) opens nothing, so no token starts after it.
        token_start = opened || matches!(c, ' ' | '\t' | ',' | ':' | '-' | '?');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, close: &str, n: usize) -> String {
        format!("a: {}1{}\n", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn nesting_limits() {
        let fine = nested("[", "]", MAX_NESTING);
        assert!(check_nesting(&fine, Format::Yaml).is_ok());
        let deep = nested("[", "]", MAX_NESTING + 1);
        let err = check_nesting(&deep, Format::Yaml).unwrap_err();
        assert_eq!(
            err.message,
            "line 1: nested more than 64 levels deep, the limit for a document"
        );
        assert!(check_nesting(&nested("{a: ", "}", 65), Format::Yaml).is_err());
        assert!(check_nesting(&format!("a:\n  {}x\n", "- ".repeat(65)), Format::Yaml).is_err());
        assert!(check_nesting(&format!("[{}]", "[1],".repeat(1000)), Format::Json).is_ok());
        assert!(check_nesting(&nested("{\"a\": ", "}", 65), Format::Json).is_err());
        // Brackets in strings, comments and plain scalars do not count.
        let quoted = format!(
            "a: \"{0}\"\nb: '{0}'\n# {0}\nc: x{0}\nd: [\"{0}\"]\n",
            "[".repeat(100)
        );
        assert!(check_nesting(&quoted, Format::Yaml).is_ok());
        let json = format!("{{\"a\": \"{}\\\"\"}}", "{".repeat(100));
        assert!(check_nesting(&json, Format::Json).is_ok());
        // 40,000 levels are refused at once.
        let hostile = nested("[", "]", 40_000);
        let started = std::time::Instant::now();
        assert!(check_nesting(&hostile, Format::Yaml).is_err());
        assert!(started.elapsed().as_secs() < 1);
    }
}
