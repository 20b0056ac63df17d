//! Property: a `types` list admits exactly the types that a regular expression written from
//! its patterns says, and accepts exactly the patterns a regular expression of the syntax
//! describes (a leading `!`, then segments of printable ASCII but space, `!`, `.`, `/` and
//! `*`, or `*` alone). The oracle is the `regex` crate, with no code shared with the filter:
//! a literal segment is itself, escaped; `*` is `[^./]+`, or `.+` when it is last; a list
//! admits what matches an inclusion (any type when it has none) and no exclusion.

use hookonce_core::filter::{Filter, MAX_PATTERN_LEN};
use proptest::prelude::*;
use regex::Regex;

/// The regular expression a pattern (without its `!`) stands for.
fn oracle(pattern: &str) -> Regex {
    let mut re = String::from("^(?s:");
    let mut rest = pattern;
    loop {
        let end = rest.find(['.', '/']);
        let segment = &rest[..end.unwrap_or(rest.len())];
        match (segment, end) {
            ("*", None) => re.push_str(".+"),
            ("*", Some(_)) => re.push_str("[^./]+"),
            (literal, _) => re.push_str(&regex::escape(literal)),
        }
        match end {
            Some(at) => {
                re.push_str(&regex::escape(&rest[at..=at]));
                rest = &rest[at + 1..];
            }
            None => break,
        }
    }
    re.push_str(")$");
    Regex::new(&re).expect("a valid regex")
}

fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("."), Just("/")]
}

/// A few letters, so that random types often share segments with random patterns.
fn literal() -> impl Strategy<Value = String> {
    "[ab_]{1,2}"
}

/// A valid pattern: 1 to 4 segments, each a literal or `*`, with either separator.
fn pattern() -> impl Strategy<Value = String> {
    let segment = prop_oneof![2 => literal(), 1 => Just("*".to_owned())];
    (
        segment.clone(),
        prop::collection::vec((separator(), segment), 0..4),
    )
        .prop_map(|(first, more)| {
            let mut p = first;
            for (sep, seg) in more {
                p.push_str(sep);
                p.push_str(&seg);
            }
            p
        })
}

/// An event type: 1 to 5 segments, sometimes empty or non-ASCII, with either separator.
fn event_type() -> impl Strategy<Value = String> {
    let segment = prop_oneof![6 => literal(), 1 => Just(String::new()), 1 => Just("é".to_owned())];
    prop::collection::vec((separator(), segment), 1..6)
        .prop_map(|parts| {
            let mut t: String = parts
                .iter()
                .map(|(sep, seg)| format!("{sep}{seg}"))
                .collect();
            t.remove(0);
            t
        })
        .prop_filter("a type is never empty", |t| !t.is_empty())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_list_admits_what_its_regexes_match(
        list in prop::collection::vec((any::<bool>(), pattern()), 1..4),
        types in prop::collection::vec(event_type(), 1..8),
    ) {
        prop_assume!(!list.iter().any(|(excluded, p)| *excluded && p == "*"));
        let written: Vec<String> = list
            .iter()
            .map(|(excluded, p)| if *excluded { format!("!{p}") } else { p.clone() })
            .collect();
        let filter = Filter::parse(written.iter().map(String::as_str)).unwrap();
        let inclusions: Vec<Regex> =
            list.iter().filter(|(e, _)| !e).map(|(_, p)| oracle(p)).collect();
        let exclusions: Vec<Regex> =
            list.iter().filter(|(e, _)| *e).map(|(_, p)| oracle(p)).collect();
        for t in &types {
            let expected = (inclusions.is_empty() || inclusions.iter().any(|r| r.is_match(t)))
                && !exclusions.iter().any(|r| r.is_match(t));
            prop_assert_eq!(filter.admits(t), expected, "{:?} on {:?}", written, t);
        }
    }

    #[test]
    fn a_pattern_is_accepted_exactly_when_it_fits_the_syntax(
        written in "[ab!*./ é]{0,8}",
        padding in 0usize..3,
    ) {
        // Padding brings some patterns just over the length limit.
        let written = format!("{written}{}", "a".repeat(padding * (MAX_PATTERN_LEN - 4)));
        let syntax = Regex::new(r#"^!?(\*|["-~&&[^./*]]+)([./](\*|["-~&&[^./*]]+))*$"#).unwrap();
        let expected =
            syntax.is_match(&written) && written.len() <= MAX_PATTERN_LEN && written != "!*";
        prop_assert_eq!(Filter::parse([written.as_str()]).is_ok(), expected, "{:?}", written);
    }
}
