//! ARCHITECTURE.md's module map against the source tree: every module of `core/src` and
//! `edge/src` has its row and every row its module, and each row's imports are the set of
//! `crate::` modules the file names, in an order where a module comes after every module
//! it imports ("leaves first"), so neither crate has an import cycle; one found is named.
//! Native: it reads files, it runs no worker.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the repository")
        .to_path_buf()
}

/// The modules of a crate's `src`: each `NAME.rs` but `lib.rs`, and each directory (a module
/// with submodules), by name.
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            if path.is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs")
                    .filter(|stem| *stem != "lib")
                    .map(str::to_owned)
            }
        })
        .collect()
}

/// The rows of the first table after `heading`: each row's cells, trimmed, header and
/// separator left out.
fn table(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let at = doc
        .lines()
        .position(|l| l.trim() == heading)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no heading {heading:?}"));
    doc.lines()
        .skip(at + 1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The names in backticks in a cell: "`a`, `b`" → {a, b}; "—" → {}.
fn names(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The module a row names (its first cell, in backticks).
fn module(row: &[String]) -> String {
    let named = names(&row[0]);
    assert_eq!(named.len(), 1, "a module map row names one module: {row:?}");
    named.into_iter().next().unwrap()
}

/// A Rust source without its comments, so a path in a doc comment is not an import: each
/// line cut at its first `//`, and `/* … */` left out. A `//` inside a string cuts its line
/// short too, which can only hide an import written after a URL on the same line.
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(open) = rest.find("/*") {
        out += &rest[..open];
        rest = rest[open..].split_once("*/").map_or("", |(_, after)| after);
    }
    out += rest;
    out.lines()
        .map(|line| line.split_once("//").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first path segment of each item of a `use` tree: "a::b, c, d::{e, f}" → {a, c, d}.
fn first_segments(tree: &str) -> BTreeSet<String> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&tree[start..]);
    items
        .into_iter()
        .map(|item| item.trim().chars().take_while(|c| is_ident(*c)).collect())
        .filter(|name: &String| !name.is_empty() && name != "self")
        .collect()
}

/// The modules of its crate a source file names as `crate::NAME`, in a `use` (grouped
/// `use crate::{a, b::c}` included) or inline; `$crate::` (a macro naming its own crate
/// wherever it expands) is not an import.
fn local_imports(source: &str) -> BTreeSet<String> {
    let code = without_comments(source);
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| is_ident(c) || c == '$') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map(|(i, _)| i)
                .expect("a `use crate::{` group is closed");
            found.extend(first_segments(&group[..end]));
        } else {
            found.insert(rest.chars().take_while(|c| is_ident(*c)).collect());
        }
    }
    found
}

/// A source file without its unit tests: everything from its `#[cfg(test)]` on, which
/// closes a core file by convention. A unit test may use any module (`verify`'s tests sign
/// with `sign`, the inverse of `verify`); the code it tests may not.
fn without_tests(source: &str) -> &str {
    source
        .find("#[cfg(test)]")
        .map_or(source, |at| &source[..at])
}

/// The source of module `name` in `src`: `NAME.rs`, or `NAME/mod.rs` with every file under
/// `NAME/`, each read through `read`.
fn source_of(src: &Path, name: &str, read: fn(&str) -> &str) -> String {
    let file = src.join(format!("{name}.rs"));
    let mut text = read(&std::fs::read_to_string(&file).unwrap_or_default()).to_owned();
    let dir = src.join(name);
    if dir.is_dir() {
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    text += read(&std::fs::read_to_string(&path).unwrap());
                }
            }
        }
    }
    text
}

/// What differs between a table's modules and the files': each line names the modules.
fn coverage(table: &str, rows: &[String], files: &BTreeSet<String>) -> Vec<String> {
    let listed: BTreeSet<String> = rows.iter().cloned().collect();
    let mut problems = Vec::new();
    let missing: Vec<_> = files.difference(&listed).collect();
    if !missing.is_empty() {
        problems.push(format!("{table}: modules with no row: {missing:?}"));
    }
    // `lib` is the crate root: its row may be there, though its file is no module of its own.
    let extra: Vec<_> = listed
        .iter()
        .filter(|m| !files.contains(*m) && *m != "lib")
        .collect();
    if !extra.is_empty() {
        problems.push(format!("{table}: rows naming no module: {extra:?}"));
    }
    let mut seen = BTreeSet::new();
    for m in rows {
        if !seen.insert(m) {
            problems.push(format!("{table}: `{m}` has two rows"));
        }
    }
    problems
}

/// A cycle in `graph` (module → the modules it imports), as the path that closes it
/// (`a → b → a`); `None` when the modules form a DAG.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first, each module once; a module met again while still on the path closes a
    // cycle.
    fn visit(
        m: &String,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut found = path[at..].to_vec();
            found.push(m.clone());
            return Some(found);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.clone());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(m.clone());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// One crate's table against its files: a row per module and a module per row, each row's
/// imports (its third cell) those its files name, none from a row further down, and no
/// import cycle.
fn check_crate(
    doc: &str,
    heading: &str,
    src: &Path,
    read: fn(&str) -> &str,
    problems: &mut Vec<String>,
) {
    let name = src
        .strip_prefix(repo())
        .unwrap_or(src)
        .display()
        .to_string();
    let rows = table(doc, heading);
    let files = modules(src);
    let listed_modules: Vec<String> = rows.iter().map(|r| module(r)).collect();
    problems.extend(coverage(&name, &listed_modules, &files));

    let graph: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .map(|m| {
            let mut imports = local_imports(&source_of(src, m, read));
            imports.remove(m);
            imports.retain(|d| files.contains(d));
            (m.clone(), imports)
        })
        .collect();
    if let Some(found) = cycle(&graph) {
        problems.push(format!("{name}: an import cycle: {}", found.join(" → ")));
    }

    let position: BTreeMap<&String, usize> = listed_modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m, i))
        .collect();
    for (i, (row, m)) in rows.iter().zip(&listed_modules).enumerate() {
        let Some(actual) = graph.get(m) else {
            continue;
        };
        assert_eq!(row.len(), 3, "{name}'s rows have three cells: {row:?}");
        let listed = names(&row[2]);
        if &listed != actual {
            let missing: Vec<_> = actual.difference(&listed).collect();
            let extra: Vec<_> = listed.difference(actual).collect();
            problems.push(format!(
                "{name}: `{m}` imports {actual:?}; its row lists {listed:?} \
                 (not listed: {missing:?}; listed but not imported: {extra:?})"
            ));
        }
        let later: Vec<_> = actual
            .iter()
            .filter(|d| position.get(d).is_some_and(|at| *at > i))
            .collect();
        if !later.is_empty() {
            problems.push(format!(
                "{name}: `{m}` imports {later:?}, whose rows come after its own (leaves first)"
            ));
        }
    }
}

#[test]
fn the_architecture_module_map_matches_the_modules_and_their_imports() {
    let root = repo();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut problems = Vec::new();
    check_crate(
        &doc,
        "### `core/src`, leaves first",
        &root.join("core/src"),
        without_tests,
        &mut problems,
    );
    check_crate(
        &doc,
        "### `edge/src`, leaves first",
        &root.join("edge/src"),
        |source| source,
        &mut problems,
    );
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's module map disagrees with the code:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn a_cycle_is_found_and_named_and_a_dag_has_none() {
    let graph = |edges: &[(&str, &[&str])]| -> BTreeMap<String, BTreeSet<String>> {
        edges
            .iter()
            .map(|(m, to)| (m.to_string(), to.iter().map(|t| t.to_string()).collect()))
            .collect()
    };
    let dag = graph(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])]);
    assert_eq!(cycle(&dag), None);
    let cyclic = graph(&[("a", &["b"]), ("b", &["c"]), ("c", &["b"])]);
    assert_eq!(
        cycle(&cyclic),
        Some(vec!["b".to_owned(), "c".to_owned(), "b".to_owned()])
    );
    // What unit tests import is not the module's.
    let source = "use crate::a;\nfn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
    let expected: BTreeSet<String> = ["a".to_owned()].into();
    assert_eq!(local_imports(without_tests(source)), expected);
}

#[test]
fn imports_are_read_from_grouped_uses_and_inline_paths_but_not_comments_or_macros() {
    let source = r#"
        use crate::problem::{self, json_response};
        use crate::{clock, http::{call, Call}, logs as log_lines, self};
        pub use crate::schema::{
            A,
            B,
        };
        // use crate::commented;
        /* crate::blocked */
        /// [`crate::documented`]
        fn f() { crate::sql::run(); $crate::task::respond(); my_crate::other(); }
        fn g() { crate::rows::read(); } // crate::trailing
    "#;
    let expected: BTreeSet<String> = ["problem", "clock", "http", "logs", "schema", "sql", "rows"]
        .map(str::to_owned)
        .into();
    assert_eq!(local_imports(source), expected);
}
