//! Reading the examples of the Markdown documentation, for the tests that check they are
//! current (tests/simulate.rs, tests/tune.rs).

/// The fenced block between `<!-- BEGIN name -->` and `<!-- END name -->` in a Markdown text,
/// without its fences.
pub fn marked_block(text: &str, name: &str) -> String {
    let begin = format!("<!-- BEGIN {name} -->\n");
    let end = format!("<!-- END {name} -->");
    let start = text.find(&begin).unwrap_or_else(|| panic!("{begin}")) + begin.len();
    let stop = text[start..].find(&end).unwrap_or_else(|| panic!("{end}")) + start;
    let inner = &text[start..stop];
    let inner = inner
        .trim_end()
        .strip_suffix("```")
        .expect("a fenced block");
    inner.split_once('\n').expect("a fence line").1.to_owned()
}

/// The arguments a documented `cargo run ... -- ARGS` command passes to `hpa`.
pub fn command_words(command: &str) -> Vec<String> {
    command
        .split_whitespace()
        .filter(|w| *w != "\\")
        .skip_while(|w| *w != "--")
        .skip(1)
        .map(str::to_owned)
        .collect()
}
