//! Requests as raw bytes over TCP, for what an HTTP client library refuses to send: a lying
//! `Content-Length`, non-ASCII or control bytes in headers, repeated headers, a body cut
//! short. And a fingerprint of the on-disk state, to show a request changed nothing.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest as _, Sha256};

use crate::Resp;

/// One request, byte for byte (a `Connection: close` and a `Host` are added).
#[derive(Clone, Debug, Default)]
pub struct RawRequest {
    pub method: String,
    /// The request target as sent (not encoded further).
    pub path: String,
    /// Names and values as bytes, in order; repeats allowed.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
    /// `Some(v)`: send `Content-Length: v` (true or not); `None`: the body's real length,
    /// unless a `transfer-encoding` header is given.
    pub content_length: Option<String>,
    /// Close the sending side after the bytes (a body cut short ends in EOF).
    pub half_close: bool,
}

impl RawRequest {
    /// The bytes on the wire.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = format!(
            "{} {} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n",
            self.method, self.path
        )
        .into_bytes();
        let chunked = self
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("transfer-encoding"));
        match &self.content_length {
            Some(v) => out.extend_from_slice(format!("content-length: {v}\r\n").as_bytes()),
            None if !chunked => {
                out.extend_from_slice(format!("content-length: {}\r\n", self.body.len()).as_bytes())
            }
            None => {}
        }
        for (k, v) in &self.headers {
            out.extend_from_slice(k.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(v);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }

    /// Sends it to `addr` (`127.0.0.1:PORT`); `Err` if no complete response came back.
    pub fn send(&self, addr: &str) -> Result<Resp, String> {
        let mut conn = TcpStream::connect(addr).map_err(|e| e.to_string())?;
        conn.set_read_timeout(Some(Duration::from_secs(15)))
            .map_err(|e| e.to_string())?;
        // The server may answer (413) and close before reading the whole body.
        let _ = conn.write_all(&self.to_bytes());
        if self.half_close {
            let _ = conn.shutdown(Shutdown::Write);
        }
        let mut raw = Vec::new();
        let _ = conn.read_to_end(&mut raw);
        parse_response(&raw)
    }
}

/// `body` in HTTP/1.1 chunked framing, `size` bytes a chunk, then the last (empty) chunk.
pub fn chunked(body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for part in body.chunks(size) {
        out.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        out.extend_from_slice(part);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// An HTTP/1.1 response as it came off the wire (or as `curl -i` prints one): status
/// line, headers, CRLF CRLF, body (de-chunked if it says it is chunked).
pub fn parse_response(raw: &[u8]) -> Result<Resp, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("no complete response: {:?}", String::from_utf8_lossy(raw)))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line: {head}"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    if chunked {
        body = dechunk(&body).ok_or("bad chunked body")?;
    }
    Ok(Resp {
        status,
        headers,
        body,
    })
}

fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let nl = b.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&b[..nl]).ok()?.split(';').next()?;
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        b = &b[nl + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

/// Every SQLite database of the on-disk state, by file name, with a hash of its rows
/// (every table, rows sorted). Logical, not bytes: SQLite checkpoints its WAL into the main
/// file, and deletes the WAL when an idle object closes, without any row changing.
pub fn fingerprint(dir: &Path) -> BTreeMap<String, [u8; 32]> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "sqlite") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
            let rows = rows_hash(&p).unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
            (name, rows)
        })
        .collect()
}

fn rows_hash(path: &Path) -> rusqlite::Result<[u8; 32]> {
    use rusqlite::{Connection, OpenFlags};
    // workerd may hold a write lock for a moment.
    let mut tries = 0;
    loop {
        let attempt = (|| {
            let db = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            db.busy_timeout(Duration::from_secs(2))?;
            let mut tables: Vec<String> = db
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            tables.sort();
            let mut h = Sha256::new();
            for t in tables {
                let mut stmt =
                    db.prepare(&format!("SELECT * FROM \"{}\"", t.replace('"', "\"\"")))?;
                let n = stmt.column_count();
                let mut rows: Vec<String> = stmt
                    .query_map([], |r| {
                        (0..n)
                            .map(|i| {
                                r.get::<_, rusqlite::types::Value>(i)
                                    .map(|v| format!("{v:?}"))
                            })
                            .collect::<Result<Vec<_>, _>>()
                            .map(|cols| cols.join("\u{1f}"))
                    })?
                    .collect::<Result<_, _>>()?;
                rows.sort();
                h.update(t.as_bytes());
                for r in rows {
                    h.update(b"\n");
                    h.update(r.as_bytes());
                }
                h.update(b"\0");
            }
            Ok(h.finalize().into())
        })();
        match attempt {
            Err(e) if tries < 20 => {
                tries += 1;
                let _ = e;
                std::thread::sleep(Duration::from_millis(25));
            }
            other => return other,
        }
    }
}

/// The databases that differ between two fingerprints (added, removed or changed rows).
pub fn changed(
    before: &BTreeMap<String, [u8; 32]>,
    after: &BTreeMap<String, [u8; 32]>,
) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(p, h)| before.get(*p) != Some(h))
        .map(|(p, _)| {
            if before.contains_key(p) {
                format!("rows of {p}")
            } else {
                format!("new {p}")
            }
        })
        .collect();
    out.extend(
        before
            .keys()
            .filter(|p| !after.contains_key(*p))
            .map(|p| format!("removed {p}")),
    );
    out
}

/// An in-memory SQLite database with `schemas` created: an object's storage, natively.
pub fn sqlite_with(schemas: &[&str]) -> rusqlite::Connection {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    c.execute_batch(&schemas.concat()).unwrap();
    c
}

/// The rows `table` holds.
pub fn count(c: &rusqlite::Connection, table: &str) -> i64 {
    c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// The first column of every row `sql` returns, as text: the names a schema query lists.
pub fn first_column(c: &rusqlite::Connection, sql: &str) -> Vec<String> {
    c.prepare(sql)
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// What an object's constructor runs once `schema::open` asked for an upgrade: `schemas`,
/// then the migration's `steps` in one transaction.
pub fn upgrade<'a>(
    c: &mut rusqlite::Connection,
    schemas: &[&str],
    steps: impl IntoIterator<Item = &'a str>,
) {
    c.execute_batch(&schemas.concat()).unwrap();
    let tx = c.transaction().unwrap();
    for step in steps {
        tx.execute_batch(step)
            .unwrap_or_else(|e| panic!("{step}: {e}"));
    }
    tx.commit().unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lying_content_length_is_sent_as_given() {
        let r = RawRequest {
            method: "POST".into(),
            path: "/x".into(),
            body: b"abc".to_vec(),
            content_length: Some("10".into()),
            ..RawRequest::default()
        };
        let text = String::from_utf8(r.to_bytes()).unwrap();
        assert!(text.contains("content-length: 10\r\n"), "{text}");
        assert!(text.ends_with("\r\n\r\nabc"), "{text}");
    }

    #[test]
    fn chunked_responses_are_decoded() {
        let r = parse_response(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(r.body, b"abcde");
    }
}
