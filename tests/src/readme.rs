//! The README as a reader sees it: its sections and its fenced examples, for the tests that
//! hold the page to what the worker does.

use std::fs;

use crate::repo_root;

/// README.md's text.
pub fn text() -> String {
    fs::read_to_string(repo_root().join("README.md")).expect("README.md")
}

/// The section under the `## {heading}` heading, up to the next `## `.
pub fn section<'a>(readme: &'a str, heading: &str) -> &'a str {
    let start = readme
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("README.md has a section `## {heading}`"));
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The fenced blocks of `text` whose info string is `lang`, in order.
pub fn fenced<'a>(text: &'a str, lang: &str) -> Vec<&'a str> {
    let open = format!("```{lang}\n");
    text.match_indices(&open)
        .map(|(i, _)| {
            let body = &text[i + open.len()..];
            &body[..body.find("```").expect("a fenced block is closed")]
        })
        .collect()
}
