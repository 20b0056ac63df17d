//! The values at a few JSON pointers (RFC 6901), read in one pass over a body.
//!
//! An event needs five or six fields of a body that may be 64 KiB of nested objects.
//! Building the whole tree (`serde_json::Value`) allocates every key and value of it: a
//! quarter of the Worker's time on such bodies, in a V8 profile.
//! Here a small scanner walks the body once: values on no wanted path are skipped, still
//! checked against RFC 8259's grammar, so a body that is not JSON is still refused; the
//! wanted ones are kept as borrowed raw text. A value wanted whole whose inner paths are
//! wanted too (a snapshot's `data.object` and its `id`) is scanned once, where serde_json's
//! `RawValue` would scan it, then its text again. Where a key repeats, the last one counts,
//! as in `Value`.

use std::borrow::Cow;

/// The body is not one JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotJson;

/// The pointers a source reads, as a tree a body is walked along once; built once per
/// source, not per body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pointers {
    list: Vec<String>,
    root: Node,
}

impl Pointers {
    /// `pointers`, each `""` or starting with `/`.
    pub(crate) fn new<'a>(pointers: impl IntoIterator<Item = &'a str>) -> Pointers {
        let mut new = Pointers::default();
        for p in pointers {
            new.root.insert(segments(p), new.list.len());
            new.list.push(p.to_owned());
        }
        new
    }

    /// Where [`extract`] puts the value at `pointer`, if it is one of these.
    pub(crate) fn slot(&self, pointer: &str) -> Option<usize> {
        self.list.iter().position(|p| p == pointer)
    }
}

/// Which pointers pass through a node, and which end there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Node {
    /// Output slots of the pointers that end here.
    ends: Vec<usize>,
    /// Object keys or array indices, unescaped.
    children: Vec<(String, Node)>,
}

impl Node {
    fn insert<'p>(&mut self, mut segments: impl Iterator<Item = Cow<'p, str>>, slot: usize) {
        match segments.next() {
            None => self.ends.push(slot),
            Some(seg) => {
                let at = match self.children.iter().position(|(s, _)| *s == seg) {
                    Some(i) => i,
                    None => {
                        self.children.push((seg.into_owned(), Node::default()));
                        self.children.len() - 1
                    }
                };
                self.children[at].1.insert(segments, slot);
            }
        }
    }

    fn child(&self, key: &str) -> Option<&Node> {
        self.children.iter().find(|(s, _)| s == key).map(|(_, n)| n)
    }

    fn element(&self, i: usize) -> Option<&Node> {
        self.children
            .iter()
            .find(|(s, _)| index(s) == Some(i))
            .map(|(_, n)| n)
    }
}

/// RFC 6901 reference tokens: `/a~1b/~0c` is `a/b`, then `~c`.
fn segments(pointer: &str) -> impl Iterator<Item = Cow<'_, str>> {
    pointer.split('/').skip(1).map(|s| match s.contains('~') {
        true => Cow::Owned(s.replace("~1", "/").replace("~0", "~")),
        false => Cow::Borrowed(s),
    })
}

/// An array index as RFC 6901 spells it: digits, no leading zero.
fn index(seg: &str) -> Option<usize> {
    let digits = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
    match digits && (seg == "0" || !seg.starts_with('0')) {
        true => seg.parse().ok(),
        false => None,
    }
}

/// The raw text of the value at each of `pointers`, by [`Pointers::slot`]; `None` where
/// the body has nothing there.
pub(crate) fn extract<'b>(
    body: &'b [u8],
    pointers: &Pointers,
) -> Result<Vec<Option<&'b str>>, NotJson> {
    // RFC 8259, section 8.1: JSON text is UTF-8. Checked once, so every span is a `str`.
    let text = std::str::from_utf8(body).map_err(|_| NotJson)?;
    let mut out = vec![None; pointers.list.len()];
    let mut scan = Scan { text, at: 0 };
    scan.space();
    scan.value(Some(&pointers.root), &mut out, 0)?;
    scan.space();
    match scan.at == text.len() {
        true => Ok(out),
        false => Err(NotJson),
    }
}

/// Deepest nesting of arrays and objects read, as serde_json reads: the scanner recurses,
/// and `Value` refuses a deeper body.
const MAX_DEPTH: usize = 127;

/// A position in the body.
struct Scan<'b> {
    text: &'b str,
    at: usize,
}

impl<'b> Scan<'b> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// Steps over `len` bytes if `ok`.
    fn step(&mut self, ok: bool, len: usize) -> Result<(), NotJson> {
        if !ok {
            return Err(NotJson);
        }
        self.at += len;
        Ok(())
    }

    fn eat(&mut self, byte: u8) -> Result<(), NotJson> {
        self.step(self.peek() == Some(byte), 1)
    }

    /// One value, at its first byte, with `node` what is wanted at and below it (`None`:
    /// nothing), `depth` the arrays and objects around it.
    fn value(
        &mut self,
        node: Option<&Node>,
        out: &mut [Option<&'b str>],
        depth: usize,
    ) -> Result<(), NotJson> {
        let start = self.at;
        let inner = node.filter(|n| !n.children.is_empty());
        match self.peek().ok_or(NotJson)? {
            b'{' => self.members(b'}', depth + 1, |scan, _| {
                scan.member(inner, out, depth + 1)
            })?,
            b'[' => self.members(b']', depth + 1, |scan, i| {
                scan.value(inner.and_then(|n| n.element(i)), out, depth + 1)
            })?,
            b'"' => {
                self.string()?;
            }
            b't' => self.literal("true")?,
            b'f' => self.literal("false")?,
            b'n' => self.literal("null")?,
            b'-' | b'0'..=b'9' => self.number()?,
            _ => return Err(NotJson),
        }
        for &slot in node.map_or(&[][..], |n| &n.ends) {
            out[slot] = Some(&self.text[start..self.at]);
        }
        Ok(())
    }

    /// The members of an array or object, at its opening bracket, up to `close`: `member`
    /// reads each, given its index.
    fn members(
        &mut self,
        close: u8,
        depth: usize,
        mut member: impl FnMut(&mut Self, usize) -> Result<(), NotJson>,
    ) -> Result<(), NotJson> {
        if depth > MAX_DEPTH {
            return Err(NotJson);
        }
        self.at += 1;
        self.space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(());
        }
        for i in 0.. {
            member(self, i)?;
            self.space();
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    self.space();
                }
                Some(b) if b == close => break,
                _ => return Err(NotJson),
            }
        }
        self.at += 1;
        Ok(())
    }

    /// One `"key": value` of an object at `node`.
    fn member(
        &mut self,
        node: Option<&Node>,
        out: &mut [Option<&'b str>],
        depth: usize,
    ) -> Result<(), NotJson> {
        if self.peek() != Some(b'"') {
            return Err(NotJson);
        }
        let key = self.string()?;
        self.space();
        self.eat(b':')?;
        self.space();
        let child = match node {
            Some(node) => node.child(&key.text()?),
            None => None,
        };
        if let Some(child) = child {
            clear(child, out);
        }
        self.value(child, out, depth)
    }

    /// A string, at its opening quote.
    fn string(&mut self) -> Result<Quoted<'b>, NotJson> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut escaped = false;
        self.at += 1;
        loop {
            let plain = bytes[self.at..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .ok_or(NotJson)?;
            self.at += plain;
            let byte = bytes[self.at];
            self.at += 1;
            match byte {
                b'"' => {
                    return Ok(Quoted {
                        text: &self.text[start..self.at],
                        escaped,
                    })
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                _ => return Err(NotJson),
            }
        }
    }

    /// What follows a backslash in a string.
    fn escape(&mut self) -> Result<(), NotJson> {
        let len = match self.peek() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 1,
            Some(b'u') => {
                let hex = self.text.as_bytes().get(self.at + 1..self.at + 5);
                match hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    true => 5,
                    false => return Err(NotJson),
                }
            }
            _ => return Err(NotJson),
        };
        self.at += len;
        Ok(())
    }

    fn literal(&mut self, word: &str) -> Result<(), NotJson> {
        self.step(self.text[self.at..].starts_with(word), word.len())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Result<(), NotJson> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(NotJson),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Result<(), NotJson> {
        let start = self.at;
        self.digits();
        match self.at > start {
            true => Ok(()),
            false => Err(NotJson),
        }
    }
}

/// A string as it appears in the body, quotes included.
struct Quoted<'b> {
    text: &'b str,
    escaped: bool,
}

impl<'b> Quoted<'b> {
    /// What it says: borrowed unless it has escapes, which serde_json decodes.
    fn text(&self) -> Result<Cow<'b, str>, NotJson> {
        match self.escaped {
            false => Ok(Cow::Borrowed(&self.text[1..self.text.len() - 1])),
            true => serde_json::from_str(self.text)
                .map(Cow::Owned)
                .map_err(|_| NotJson),
        }
    }
}

/// Forgets what an earlier copy of a repeated key left under `node`: the last one counts.
fn clear(node: &Node, out: &mut [Option<&str>]) {
    for &slot in &node.ends {
        out[slot] = None;
    }
    for (_, child) in &node.children {
        clear(child, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// The oracle: serde_json's own tree and `Value::pointer`.
    fn oracle(body: &str, pointers: &[&str]) -> Vec<Option<Value>> {
        let v: Value = serde_json::from_str(body).unwrap();
        pointers.iter().map(|p| v.pointer(p).cloned()).collect()
    }

    fn ours(body: &str, pointers: &[&str]) -> Vec<Option<Value>> {
        extract(body.as_bytes(), &Pointers::new(pointers.iter().copied()))
            .unwrap()
            .into_iter()
            .map(|r| r.map(|r| serde_json::from_str(r).unwrap()))
            .collect()
    }

    #[test]
    fn the_fields_of_an_event_are_read_as_serde_json_reads_them() {
        let body = r#"{"id":"evt_1","type":"t","created_at":1,"data":{"object":{"id":"ch_1",
            "n":[1,{"a~b/c":2}]},"x":null},"amount":-5}"#;
        let pointers = [
            "/id",
            "/type",
            "/data/object",
            "/data/object/id",
            "/data/object/n/1/a~0b~1c",
            "/data/x",
            "/data/missing",
            "/id/deeper",
            "/data/object/n/01",
            "",
            "/amount",
        ];
        assert_eq!(ours(body, &pointers), oracle(body, &pointers));
        // Raw text is kept as sent.
        let found = read(body.as_bytes(), &["/data/object/n"]).unwrap();
        assert_eq!(found[0].unwrap(), r#"[1,{"a~b/c":2}]"#);
    }

    #[test]
    fn a_repeated_key_counts_once_the_last_time_as_in_serde_json() {
        let body = r#"{"data":{"object":{"id":"a"}},"id":"x","data":{"other":1},"id":"y"}"#;
        let pointers = ["/data/object/id", "/data/object", "/id", "/data"];
        assert_eq!(ours(body, &pointers), oracle(body, &pointers));
    }

    #[test]
    fn a_body_that_is_not_json_is_refused_even_where_nothing_is_read() {
        for bad in [
            &b"{"[..],
            b"{\"id\":1,\"x\":[1,}",
            b"{\"id\":1} trailing",
            b"",
            b"\xff",
        ] {
            assert_eq!(
                read(bad, &["/id"]).err(),
                Some(NotJson),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    fn read<'b>(body: &'b [u8], pointers: &[&str]) -> Result<Vec<Option<&'b str>>, NotJson> {
        extract(body, &Pointers::new(pointers.iter().copied()))
    }

    /// The oracle for what is JSON: UTF-8 (RFC 8259, section 8.1) that serde_json reads
    /// as a value it skips, which checks the grammar and nothing else.
    fn is_json(bytes: &[u8]) -> bool {
        std::str::from_utf8(bytes).is_ok()
            && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
    }

    /// Bytes that make JSON, and some that break it.
    const NEAR_JSON: &[u8] = b"{}[]\",:0123456789.eE+-truefalsn \t\n\\/bu\x01\xc3\xa9\xff";

    #[test]
    fn nesting_as_deep_as_serde_json_reads_is_read_and_deeper_is_refused() {
        for depth in [1, 126, 127, 128, 100_000] {
            let body = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let theirs = serde_json::from_str::<Value>(&body).is_ok();
            assert_eq!(
                read(body.as_bytes(), &["/0"]).is_ok(),
                theirs,
                "depth {depth}"
            );
            assert_eq!(theirs, depth <= MAX_DEPTH, "depth {depth}");
        }
    }

    #[test]
    fn keys_with_escapes_are_matched_by_what_they_say() {
        let body = r#"{"d\u0061ta":{"a\/b":[0,"x"]},"data":{"a/b":[1,"y"]},"\u00e9":2}"#;
        let pointers = ["/data/a~1b/1", "/data", "/\u{e9}"];
        assert_eq!(ours(body, &pointers), oracle(body, &pointers));
        assert_eq!(ours(body, &pointers)[0], Some(json!("y")));
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "[a-z~/\"\\\\]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-c~/]{0,2}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Every path in `v`, as RFC 6901 pointers, plus some that lead nowhere.
    fn paths(v: &Value, prefix: String, out: &mut Vec<String>) {
        out.push(prefix.clone());
        out.push(format!("{prefix}/zz"));
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    let token = k.replace('~', "~0").replace('/', "~1");
                    paths(c, format!("{prefix}/{token}"), out);
                }
            }
            Value::Array(a) => {
                out.push(format!("{prefix}/0{}", a.len()));
                for (i, c) in a.iter().enumerate() {
                    paths(c, format!("{prefix}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    proptest! {
        #[test]
        fn every_pointer_reads_what_serde_json_reads(v in json_value(), pick in proptest::collection::vec(any::<prop::sample::Index>(), 1..6)) {
            let body = serde_json::to_string_pretty(&v).unwrap();
            let mut all = Vec::new();
            paths(&v, String::new(), &mut all);
            let pointers: Vec<&str> = pick.iter().map(|i| all[i.index(all.len())].as_str()).collect();
            prop_assert_eq!(ours(&body, &pointers), oracle(&body, &pointers));
        }

        #[test]
        fn arbitrary_bytes_are_json_exactly_when_serde_json_says_so(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(read(&bytes, &["/a", "/0"]).is_ok(), is_json(&bytes));
        }

        #[test]
        fn near_json_is_json_exactly_when_serde_json_says_so(bytes in proptest::collection::vec(proptest::sample::select(NEAR_JSON.to_vec()), 0..48)) {
            prop_assert_eq!(read(&bytes, &["/a", "/0", "/a/0"]).is_ok(), is_json(&bytes));
        }

        #[test]
        fn a_damaged_body_is_json_exactly_when_serde_json_says_so(v in json_value(), at in any::<prop::sample::Index>(), byte in proptest::sample::select(NEAR_JSON.to_vec()), cut in any::<bool>()) {
            let mut bytes = serde_json::to_vec(&v).unwrap();
            let at = at.index(bytes.len());
            match cut {
                true => bytes.truncate(at),
                false => bytes[at] = byte,
            }
            prop_assert_eq!(read(&bytes, &["/a", "/0", ""]).is_ok(), is_json(&bytes));
        }
    }
}
