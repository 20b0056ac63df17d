//! A strict reader of the Prometheus text exposition format (0.0.4), for what hookonce's
//! `/metrics` writes: `# HELP` and `# TYPE` lines, other comments, blank lines, and samples
//! `name{label="value",…} value`, with an optional timestamp that is ignored. Anything else
//! is an error that names its line, so a proxy's error page is never read as figures.

use std::fmt;

/// One sample line.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The metric name.
    pub name: String,
    /// Its labels, in the order written.
    pub labels: Vec<(String, String)>,
    /// Its value.
    pub value: f64,
}

impl Sample {
    /// The value of label `name`, if the sample has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A whole exposition: each family's help text and every sample, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    /// (metric name, help text), as `# HELP` gave them.
    pub help: Vec<(String, String)>,
    /// Every sample.
    pub samples: Vec<Sample>,
}

impl Exposition {
    /// The help text of family `name`.
    pub fn help(&self, name: &str) -> Option<&str> {
        self.help
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, h)| h.as_str())
    }
}

/// Why a text is not an exposition: the line (from 1) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub what: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
    }
}

impl std::error::Error for ParseError {}

const KINDS: &[&str] = &["counter", "gauge", "histogram", "summary", "untyped"];

/// Reads `text`; the first line that breaks the format is the error.
pub fn parse(text: &str) -> Result<Exposition, ParseError> {
    let mut out = Exposition::default();
    let mut typed: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let err = |what: String| ParseError { line: i + 1, what };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let words: Vec<&str> = comment.trim_start().splitn(3, ' ').collect();
            match words[..] {
                ["HELP", name, ..] => {
                    metric_name(name).map_err(err)?;
                    if out.help(name).is_some() {
                        return Err(err(format!("a second HELP for {name}")));
                    }
                    let text =
                        unescape(words.get(2).copied().unwrap_or_default(), false).map_err(err)?;
                    out.help.push((name.to_owned(), text));
                }
                ["TYPE", name, kind] => {
                    metric_name(name).map_err(err)?;
                    if !KINDS.contains(&kind) {
                        return Err(err(format!("{kind:?} is not a metric type")));
                    }
                    if typed.iter().any(|t| t == name) {
                        return Err(err(format!("a second TYPE for {name}")));
                    }
                    if out.samples.iter().any(|s| s.name == name) {
                        return Err(err(format!("the TYPE of {name} after its samples")));
                    }
                    typed.push(name.to_owned());
                }
                ["TYPE", ..] => return Err(err("a TYPE line without a name and a type".into())),
                _ => {} // any other comment
            }
            continue;
        }
        let sample = sample(line).map_err(err)?;
        if out
            .samples
            .iter()
            .any(|s| s.name == sample.name && s.labels == sample.labels)
        {
            return Err(err(format!("{} appears twice", sample.name)));
        }
        out.samples.push(sample);
    }
    Ok(out)
}

/// `name`, `name{labels}`, then a value and an optional timestamp, each after spaces.
fn sample(line: &str) -> Result<Sample, String> {
    let end = line.find(['{', ' ', '\t']).unwrap_or(line.len());
    let name = &line[..end];
    metric_name(name)?;
    let mut rest = &line[end..];
    let mut labels = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        rest = label_set(inner, &mut labels)?;
    }
    let mut words = rest.split_ascii_whitespace();
    if !rest.starts_with([' ', '\t']) {
        return Err(format!("{name} has no value after a space"));
    }
    let value = words.next().ok_or(format!("{name} has no value"))?;
    let value = value
        .parse::<f64>()
        .map_err(|_| format!("{name}'s value {value:?} is not a number"))?;
    if let Some(ts) = words.next() {
        ts.parse::<i64>()
            .map_err(|_| format!("{name}: {ts:?} after the value is not a timestamp"))?;
    }
    if let Some(extra) = words.next() {
        return Err(format!("{name}: {extra:?} after the value and timestamp"));
    }
    Ok(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// Reads `label="value",…}` into `labels`; what follows the closing brace.
fn label_set<'a>(mut s: &'a str, labels: &mut Vec<(String, String)>) -> Result<&'a str, String> {
    loop {
        if let Some(rest) = s.strip_prefix('}') {
            return Ok(rest);
        }
        let eq = s.find('=').ok_or("a label without =\"value\"")?;
        let name = &s[..eq];
        if !is_name(name, false) {
            return Err(format!("{name:?} is not a label name"));
        }
        if labels.iter().any(|(k, _)| k == name) {
            return Err(format!("label {name} appears twice"));
        }
        let quoted = s[eq + 1..]
            .strip_prefix('"')
            .ok_or(format!("label {name}'s value is not quoted"))?;
        let close = closing_quote(quoted).ok_or(format!("label {name}'s value is not closed"))?;
        labels.push((name.to_owned(), unescape(&quoted[..close], true)?));
        s = &quoted[close + 1..];
        match s.strip_prefix(',') {
            Some(rest) => s = rest,
            None if s.starts_with('}') => {}
            None => return Err(format!("after label {name}: expected , or }}")),
        }
    }
}

/// The byte index of the first `"` in `s` that no backslash escapes.
fn closing_quote(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
    }
    None
}

/// Undoes `\\` and `\n` (and `\"` in a label value); any other escape is an error.
fn unescape(s: &str, quote: bool) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('"') if quote => out.push('"'),
            Some(e) => return Err(format!("\\{e} is not an escape the format has")),
            None => return Err("a backslash at the end".into()),
        }
    }
    Ok(out)
}

fn metric_name(name: &str) -> Result<(), String> {
    if is_name(name, true) {
        Ok(())
    } else {
        Err(format!("{name:?} is not a metric name"))
    }
}

/// `[a-zA-Z_:][a-zA-Z0-9_:]*`, without the colons for a label name.
fn is_name(s: &str, colons: bool) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || (colons && c == ':');
    s.chars()
        .next()
        .is_some_and(|c| ok(c) && !c.is_ascii_digit())
        && s.chars().all(ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookonce_core::metrics::{exposition, Count, Figures, SourceFigures};
    use hookonce_core::time::UnixSeconds;

    /// What the worker's `/metrics` answers, written by core's own code.
    fn real_text() -> String {
        let counters = [
            ("deliveries", "applied", 5),
            ("deliveries", "duplicate", 2),
            ("rejected", "unsampled", 4),
            ("attempts", "5xx", 3),
        ]
        .map(|(family, label, by)| Count {
            family: family.into(),
            label: label.into(),
            by,
        });
        let f = Figures {
            configuration_invalid: false,
            unavailable: vec!["down".into()],
            sources: vec![SourceFigures {
                source: "we\"ird\\name".into(),
                counters: counters.to_vec(),
                pending: 2,
                oldest_pending_at: Some(940),
                dead: 1,
                destinations: Vec::new(),
            }],
            guards: Vec::new(),
        };
        exposition(&f, UnixSeconds(1_000))
    }

    fn value(e: &Exposition, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        e.samples
            .iter()
            .find(|s| {
                s.name == name
                    && s.labels.len() == labels.len()
                    && labels.iter().all(|(k, v)| s.label(k) == Some(v))
            })
            .map(|s| s.value)
    }

    #[test]
    fn the_workers_own_exposition_reads_back_sample_by_sample() {
        let e = parse(&real_text()).unwrap();
        let src = ("source", "we\"ird\\name");
        assert_eq!(value(&e, "hookonce_configuration_errors", &[]), Some(0.0));
        assert_eq!(value(&e, "hookonce_source_up", &[src]), Some(1.0));
        assert_eq!(
            value(&e, "hookonce_source_up", &[("source", "down")]),
            Some(0.0)
        );
        let d = "hookonce_deliveries_total";
        assert_eq!(value(&e, d, &[src, ("outcome", "applied")]), Some(5.0));
        assert_eq!(value(&e, d, &[src, ("outcome", "stale")]), Some(0.0));
        let r = "hookonce_rejected_deliveries_total";
        assert_eq!(value(&e, r, &[src, ("reason", "unsampled")]), Some(4.0));
        let a = "hookonce_forward_attempts_total";
        assert_eq!(value(&e, a, &[src, ("result", "5xx")]), Some(3.0));
        let age = "hookonce_outbox_oldest_pending_age_seconds";
        assert_eq!(value(&e, age, &[src]), Some(60.0));
        assert_eq!(value(&e, "hookonce_dead_letters", &[src]), Some(1.0));
        assert!(e.help(d).unwrap().contains("best-effort"));
        assert!(e.help("hookonce_dead_letters").unwrap().contains("exact"));
    }

    #[test]
    fn the_parts_of_the_format_hookonce_does_not_write_are_read_too() {
        let text = "# a comment\n\n# HELP x_total Line one\\nand a \\\\.\nx_total{a=\"1\",} 2.5 1700000000000\ny +Inf\n";
        let e = parse(text).unwrap();
        assert_eq!(e.help("x_total"), Some("Line one\nand a \\."));
        assert_eq!(value(&e, "x_total", &[("a", "1")]), Some(2.5));
        assert_eq!(value(&e, "y", &[]), Some(f64::INFINITY));
    }

    #[test]
    fn malformed_text_is_an_error_naming_its_line() {
        let cases = [
            ("<html>oops</html>", 1, "is not a metric name"),
            ("ok 1\nbroken", 2, "broken has no value"),
            ("x{a=\"1\" 1", 1, "expected , or }"),
            ("x{a=1} 1", 1, "label a's value is not quoted"),
            ("x{a=\"1} 1", 1, "label a's value is not closed"),
            ("x{a=\"\\t\"} 1", 1, "\\t is not an escape"),
            ("x{a=\"1\",a=\"2\"} 1", 1, "label a appears twice"),
            ("x{1a=\"1\"} 1", 1, "\"1a\" is not a label name"),
            ("x{a=\"1\"}1", 1, "x has no value after a space"),
            ("x one", 1, "x's value \"one\" is not a number"),
            ("x 1 soon", 1, "\"soon\" after the value is not a timestamp"),
            ("x 1 2 3", 1, "\"3\" after the value and timestamp"),
            ("x 1\nx 2", 2, "x appears twice"),
            ("# TYPE x gauge\n# TYPE x gauge", 2, "a second TYPE for x"),
            ("# TYPE x meter", 1, "\"meter\" is not a metric type"),
            ("# TYPE x", 1, "a TYPE line without a name and a type"),
            ("x 1\n# TYPE x gauge", 2, "the TYPE of x after its samples"),
            ("# HELP x a\\", 1, "a backslash at the end"),
            ("x{a=\"\\", 1, "label a's value is not closed"),
            ("{a=\"1\"} 1", 1, "\"\" is not a metric name"),
        ];
        for (text, line, what) in cases {
            match parse(text) {
                Err(e) => {
                    assert_eq!(e.line, line, "{text:?}: {e}");
                    assert!(e.to_string().contains(what), "{text:?}: {e}");
                }
                Ok(e) => panic!("{text:?} parsed: {e:?}"),
            }
        }
    }
}
