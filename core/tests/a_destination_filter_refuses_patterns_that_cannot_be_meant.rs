//! A `types` list that is empty or too long is refused, and so is one with a pattern that is
//! empty, too long, has an empty segment or a partial wildcard, holds a character outside
//! printable ASCII, a space or a `!` after its start, or excludes everything; the message
//! names the offending pattern.

use hookonce_core::filter::{Filter, PatternError, MAX_PATTERNS, MAX_PATTERN_LEN};

/// The message `patterns` is refused with.
fn refusal(patterns: &[&str]) -> String {
    match Filter::parse(patterns.iter().copied()) {
        Ok(f) => panic!("{patterns:?} must be refused, parsed as {f:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_empty_list_is_refused_with_a_hint_to_use_star() {
    assert_eq!(Filter::parse([]), Err(PatternError::NoPatterns));
    assert_eq!(refusal(&[]), "list at least one pattern, or \"*\"");
}

#[test]
fn an_empty_pattern_or_a_bare_bang_is_refused() {
    assert_eq!(refusal(&["invoice.*", ""]), "pattern \"\" is empty");
    assert_eq!(refusal(&["!"]), "pattern \"!\" is empty");
}

/// Asserts that each of `patterns`, alone, is refused with `error` of it, named in quotes.
fn each_refused(patterns: &[&str], error: impl Fn(String) -> PatternError) {
    for p in patterns {
        assert_eq!(Filter::parse([*p]), Err(error((*p).into())), "{p}");
        assert!(refusal(&[p]).contains(&format!("{p:?}")), "names {p}");
    }
}

#[test]
fn an_empty_segment_is_refused() {
    each_refused(
        &[
            "invoice..paid",
            ".invoice",
            "invoice.",
            "orders//create",
            "orders/",
            "!a.",
        ],
        |pattern| PatternError::EmptySegment { pattern },
    );
}

#[test]
fn a_star_that_is_not_a_whole_segment_is_refused() {
    each_refused(
        &[
            "inv*",
            "invoice.pay*",
            "*voice.paid",
            "customer.**",
            "!invoice.up*",
        ],
        |pattern| PatternError::PartialWildcard { pattern },
    );
    assert_eq!(
        refusal(&["inv*"]),
        "pattern \"inv*\" has \"*\" inside a segment: \"*\" must be a whole segment, as in \"invoice.*\""
    );
}

#[test]
fn spaces_controls_and_non_ascii_are_refused_by_name() {
    for (p, c) in [
        ("invoice. paid", ' '),
        ("invoice.paid ", ' '),
        ("invoice\t.paid", '\t'),
        ("commande/créée", 'é'),
        ("a\u{0}b", '\u{0}'),
    ] {
        assert_eq!(
            Filter::parse([p]),
            Err(PatternError::Character {
                pattern: p.into(),
                character: c
            }),
            "{p:?}"
        );
    }
    assert_eq!(
        refusal(&["invoice. paid"]),
        "pattern \"invoice. paid\" holds ' ': use printable ASCII without spaces"
    );
    for p in ["!!invoice.paid", "invoice.paid!", "a!b"] {
        assert!(
            matches!(
                Filter::parse([p]),
                Err(PatternError::Character { character: '!', .. })
            ),
            "{p}"
        );
    }
    assert_eq!(
        refusal(&["!!a"]),
        "pattern \"!!a\" holds '!' after its start: \"!\" only starts an exclusion"
    );
    // A control character is escaped, never written raw into a message or a log.
    assert_eq!(
        refusal(&["a\nb"]),
        "pattern \"a\\nb\" holds '\\n': use printable ASCII without spaces"
    );
}

#[test]
fn a_pattern_over_the_length_limit_is_refused_and_named_by_its_start() {
    let longest = format!("a.{}", "b".repeat(MAX_PATTERN_LEN - 2));
    assert!(Filter::parse([longest.as_str()]).is_ok());
    let over = format!("!{longest}");
    assert_eq!(
        Filter::parse([over.as_str()]),
        Err(PatternError::TooLong {
            pattern: over.clone()
        })
    );
    let message = refusal(&[&over]);
    assert!(
        message.starts_with(&format!("pattern \"!a.{}\"…", "b".repeat(37))),
        "{message}"
    );
    assert!(
        message.ends_with("is 201 bytes long, over 200"),
        "{message}"
    );
}

#[test]
fn more_than_the_most_patterns_is_refused() {
    let names: Vec<String> = (0..=MAX_PATTERNS).map(|i| format!("type.{i}")).collect();
    let most = names[..MAX_PATTERNS].iter().map(String::as_str);
    assert!(Filter::parse(most).is_ok());
    let over = names.iter().map(String::as_str);
    assert_eq!(Filter::parse(over), Err(PatternError::TooMany));
    assert_eq!(
        PatternError::TooMany.to_string(),
        format!("more than {MAX_PATTERNS} patterns")
    );
}

#[test]
fn excluding_everything_is_refused() {
    assert_eq!(
        Filter::parse(["invoice.*", "!*"]),
        Err(PatternError::ExcludesEverything)
    );
    assert_eq!(refusal(&["!*"]), "pattern \"!*\" excludes every type");
    // A wildcard exclusion of a part is fine.
    assert!(Filter::parse(["!*.deleted"]).is_ok());
}

#[test]
fn the_first_bad_pattern_is_the_one_named() {
    assert_eq!(
        Filter::parse(["invoice.*", "inv*", "a..b"]),
        Err(PatternError::PartialWildcard {
            pattern: "inv*".into()
        })
    );
}
