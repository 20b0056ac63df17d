//! A destination's event-type filter: which applied events it is sent, from its `types` list.
//!
//! - A **pattern** is segments separated by `.` (Stripe `invoice.payment_failed`) or `/`
//!   (Shopify `orders/create`). Each separator must be the type's separator at that place.
//! - A segment is literal text, matched exactly, or exactly `*`: one or more characters
//!   within a single segment. A `*` that is the **last** segment matches the rest of the type
//!   (one or more characters, separators included). So `invoice.*` admits `invoice.paid` and
//!   `invoice.payment.failed` but not `invoice`; `*.created` admits `customer.created` but not
//!   `customer.subscription.created`; `*` admits every type.
//! - `!pattern` is an **exclusion**: a type that matches any exclusion is never admitted. A
//!   list of exclusions only includes `*` implicitly: `["!invoice.upcoming"]` admits every
//!   type but that one.
//! - A list is refused ([`PatternError`]) when it is empty (a destination that admits nothing
//!   is a mistake), holds more than [`MAX_PATTERNS`], or holds a pattern that is empty, has an
//!   empty segment (`a..b`, `.a`, `a.`), a partial wildcard (`inv*`), a character outside
//!   printable ASCII, a space, a `!` after its start, is longer than [`MAX_PATTERN_LEN`]
//!   bytes, or is `!*`.
//!
//! Matching walks the pattern and the type side by side: it allocates nothing, since it runs
//! once per destination for every applied event.

use std::fmt;

/// The most patterns one `types` list may hold.
pub const MAX_PATTERNS: usize = 64;

/// The longest pattern, in bytes, its `!` included.
pub const MAX_PATTERN_LEN: usize = 200;

/// A destination's event-type filter, parsed from its `types` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Types admitted unless excluded; empty means every type (`*`).
    include: Vec<Box<str>>,
    /// Types never admitted.
    exclude: Vec<Box<str>>,
}

impl Filter {
    /// The filter that admits every type: the default when `types` is absent, and what
    /// `["*"]` parses to.
    #[must_use]
    pub fn all() -> Filter {
        Filter {
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }

    /// Parses a `types` list; see the [module docs](self) for the syntax and what is refused.
    pub fn parse<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Filter, PatternError> {
        let mut filter = Filter::all();
        let mut any_inclusion_is_star = false;
        let mut count = 0;
        for pattern in patterns {
            count += 1;
            if count > MAX_PATTERNS {
                return Err(PatternError::TooMany);
            }
            let (excluded, body) = match pattern.strip_prefix('!') {
                Some(body) => (true, body),
                None => (false, pattern),
            };
            check(pattern, body)?;
            match (excluded, body) {
                (true, "*") => return Err(PatternError::ExcludesEverything),
                (true, _) => filter.exclude.push(body.into()),
                (false, "*") => any_inclusion_is_star = true,
                (false, _) => filter.include.push(body.into()),
            }
        }
        if count == 0 {
            return Err(PatternError::NoPatterns);
        }
        if any_inclusion_is_star {
            filter.include.clear();
        }
        Ok(filter)
    }

    /// Whether an event of `event_type` goes to the destination.
    #[must_use]
    pub fn admits(&self, event_type: &str) -> bool {
        let included =
            self.include.is_empty() || self.include.iter().any(|p| matches(p, event_type));
        included && !self.exclude.iter().any(|p| matches(p, event_type))
    }
}

/// Why a `types` list is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatternError {
    /// The list is empty.
    NoPatterns,
    /// The list holds more than [`MAX_PATTERNS`] patterns.
    TooMany,
    /// A pattern is empty, or `!` alone.
    Empty {
        /// The pattern as written.
        pattern: String,
    },
    /// A pattern is longer than [`MAX_PATTERN_LEN`] bytes.
    TooLong {
        /// The pattern as written.
        pattern: String,
    },
    /// A pattern holds a character outside printable ASCII, a space, or a `!` after its
    /// start.
    Character {
        /// The pattern as written.
        pattern: String,
        /// The first such character.
        character: char,
    },
    /// A segment of a pattern is empty: two separators in a row, or one at either end.
    EmptySegment {
        /// The pattern as written.
        pattern: String,
    },
    /// A `*` shares its segment with other characters (`inv*`).
    PartialWildcard {
        /// The pattern as written.
        pattern: String,
    },
    /// `!*`: an exclusion of every type.
    ExcludesEverything,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPatterns => f.write_str("list at least one pattern, or \"*\""),
            Self::TooMany => write!(f, "more than {MAX_PATTERNS} patterns"),
            Self::Empty { pattern } => write!(f, "pattern {pattern:?} is empty"),
            Self::TooLong { pattern } => {
                // The start names it; the whole of it would flood the message.
                let start: String = pattern.chars().take(40).collect();
                write!(
                    f,
                    "pattern {start:?}… is {} bytes long, over {MAX_PATTERN_LEN}",
                    pattern.len()
                )
            }
            Self::Character {
                pattern,
                character: '!',
            } => write!(
                f,
                "pattern {pattern:?} holds '!' after its start: \"!\" only starts an exclusion"
            ),
            Self::Character { pattern, character } => write!(
                f,
                "pattern {pattern:?} holds {character:?}: use printable ASCII without spaces"
            ),
            Self::EmptySegment { pattern } => write!(
                f,
                "pattern {pattern:?} has an empty segment: a separator at either end or two in a row"
            ),
            Self::PartialWildcard { pattern } => write!(
                f,
                "pattern {pattern:?} has \"*\" inside a segment: \"*\" must be a whole segment, as in \"invoice.*\""
            ),
            Self::ExcludesEverything => f.write_str("pattern \"!*\" excludes every type"),
        }
    }
}

impl std::error::Error for PatternError {}

fn is_separator(b: u8) -> bool {
    b == b'.' || b == b'/'
}

/// Checks `body`, the pattern without its `!`; errors name the whole `pattern`.
fn check(pattern: &str, body: &str) -> Result<(), PatternError> {
    let named = || pattern.to_owned();
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(PatternError::TooLong { pattern: named() });
    }
    if let Some(character) = body.chars().find(|c| !matches!(c, '"'..='~')) {
        return Err(PatternError::Character {
            pattern: named(),
            character,
        });
    }
    if body.is_empty() {
        return Err(PatternError::Empty { pattern: named() });
    }
    for segment in body.split(['.', '/']) {
        if segment.is_empty() {
            return Err(PatternError::EmptySegment { pattern: named() });
        }
        if segment != "*" && segment.contains('*') {
            return Err(PatternError::PartialWildcard { pattern: named() });
        }
    }
    Ok(())
}

/// Whether `event_type` matches `pattern`, a checked pattern without its `!`. Byte-wise:
/// patterns are ASCII, and no byte of a multi-byte UTF-8 character is a separator.
fn matches(pattern: &str, event_type: &str) -> bool {
    let mut p = pattern.as_bytes();
    let mut t = event_type.as_bytes();
    loop {
        let end = p.iter().position(|&b| is_separator(b));
        let segment = &p[..end.unwrap_or(p.len())];
        let Some(end) = end else {
            // The last segment: `*` takes the rest, a literal must be all of it.
            return if segment == b"*" {
                !t.is_empty()
            } else {
                t == segment
            };
        };
        let separator = p[end];
        let taken = if segment == b"*" {
            match t.iter().position(|&b| is_separator(b)) {
                Some(0) | None => return false,
                Some(n) => n,
            }
        } else if t.starts_with(segment) {
            segment.len()
        } else {
            return false;
        };
        if t.get(taken) != Some(&separator) {
            return false;
        }
        t = &t[taken + 1..];
        p = &p[end + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_alone_parses_to_the_filter_that_admits_everything() {
        assert_eq!(Filter::parse(["*"]), Ok(Filter::all()));
        assert_eq!(Filter::parse(["invoice.*", "*"]), Ok(Filter::all()));
    }

    #[test]
    fn a_literal_segment_must_be_followed_by_the_same_separator() {
        assert!(matches("orders/create", "orders/create"));
        assert!(!matches("orders/create", "orders.create"));
        assert!(!matches("orders.*", "orders/create"));
        assert!(!matches("order.*", "orders.create"));
    }
}
