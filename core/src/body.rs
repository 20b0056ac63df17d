//! How large a delivery's body may be, decided while it is read.
//!
//! The adapter reads a body chunk by chunk and asks [`BodyLimit`] before it keeps each
//! chunk, so it never holds more than the limit: a body with no `Content-Length` (chunked)
//! is refused as soon as it passes the limit, not after it was read whole. A source's
//! limit (`max_body_bytes`) is itself capped at [`MAX_STORABLE_BODY`], what an entity's
//! Durable Object can store, so no body is accepted that could never be recorded.

use std::fmt;

/// The largest `max_body_bytes` a source may set: the largest body an entity's Durable
/// Object can be relied on to store. The body reaches the object inside the hand-off and
/// is kept in one SQLite row (raw when it does not compress, next to the event id and
/// the headers a replay needs); a snapshot's state, up to the body's size, is another.
/// Cloudflare documents 2 MB as the largest string, BLOB or row of a Durable Object's
/// SQLite. Local workerd is more lenient: measured with an incompressible body that is
/// all a snapshot's state, 8,388,607 bytes are stored and 8,388,608 fail with
/// `SQLITE_TOOBIG` (bench/FINDINGS.md). The cap keeps below the deployed limit with
/// 200,000 bytes left for the row's other columns (request headers are at most 128 KiB).
pub const MAX_STORABLE_BODY: usize = 1_800_000;

/// A body over its source's limit, declared or counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The limit, in bytes.
    pub limit: usize,
}

impl TooLarge {
    /// The HTTP status a body over its limit is answered with: 413 Content Too Large.
    pub const STATUS: u16 = 413;
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the body is over the limit of {} bytes", self.limit)
    }
}

impl std::error::Error for TooLarge {}

/// How to read a body within its limit, decided from its declared length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// The declared length, within the limit: the runtime holds the client to it, so the
    /// body is read whole in one call and is never longer.
    Whole(usize),
    /// No declared length (a chunked body): read chunk by chunk through
    /// [`BodyLimit::chunk`].
    Chunks,
}

/// Counts a body against its limit while it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyLimit {
    limit: usize,
    read: usize,
}

impl BodyLimit {
    /// A count of nothing read yet, against `limit` bytes.
    #[must_use]
    pub fn new(limit: usize) -> BodyLimit {
        BodyLimit { limit, read: 0 }
    }

    /// The request's `Content-Length`, before anything is read: refused if it says more
    /// than the limit, otherwise how to read the body. A value that is not a length
    /// (framing the runtime refuses) counts as none.
    pub fn declared(&self, content_length: Option<&str>) -> Result<Read, TooLarge> {
        match content_length.and_then(|v| v.trim().parse::<u64>().ok()) {
            Some(n) if n > self.limit as u64 => Err(TooLarge { limit: self.limit }),
            Some(n) => Ok(usize::try_from(n).map_or(Read::Chunks, Read::Whole)),
            None => Ok(Read::Chunks),
        }
    }

    /// One more chunk of `len` bytes: `Ok` with the total to keep, or `TooLarge` before
    /// the chunk is kept, once the body would pass the limit.
    pub fn chunk(&mut self, len: usize) -> Result<usize, TooLarge> {
        match self.read.checked_add(len) {
            Some(total) if total <= self.limit => {
                self.read = total;
                Ok(total)
            }
            _ => Err(TooLarge { limit: self.limit }),
        }
    }

    /// The room to set aside for a body that must grow to `needed` bytes when it has room
    /// for `capacity`: at least double (few copies), never more than the limit (so what
    /// is held stays within it).
    #[must_use]
    pub fn room(&self, capacity: usize, needed: usize) -> usize {
        if needed <= capacity {
            return capacity;
        }
        capacity
            .saturating_mul(2)
            .max(needed)
            .min(self.limit.max(needed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_length_over_the_limit_is_refused_before_reading() {
        let b = BodyLimit::new(64);
        assert_eq!(b.declared(Some("65")), Err(TooLarge { limit: 64 }));
        assert_eq!(
            b.declared(Some("18446744073709551615")),
            Err(TooLarge { limit: 64 })
        );
        assert_eq!(b.declared(Some("64")), Ok(Read::Whole(64)));
        assert_eq!(b.declared(Some(" 10 ")), Ok(Read::Whole(10)));
        assert_eq!(b.declared(None), Ok(Read::Chunks));
        assert_eq!(b.declared(Some("abc")), Ok(Read::Chunks));
    }

    #[test]
    fn a_body_over_its_limit_is_answered_413() {
        let refused = BodyLimit::new(1).declared(Some("2")).unwrap_err();
        assert_eq!(TooLarge::STATUS, 413);
        assert_eq!(refused, TooLarge { limit: 1 });
    }

    #[test]
    fn chunks_are_counted_and_the_one_that_passes_the_limit_is_refused() {
        let mut b = BodyLimit::new(10);
        assert_eq!(b.chunk(4), Ok(4));
        assert_eq!(b.chunk(6), Ok(10));
        assert_eq!(b.chunk(1), Err(TooLarge { limit: 10 }));
        assert_eq!(b.chunk(0), Ok(10));
        let mut huge = BodyLimit::new(usize::MAX);
        assert_eq!(huge.chunk(usize::MAX), Ok(usize::MAX));
        assert_eq!(huge.chunk(1), Err(TooLarge { limit: usize::MAX }));
    }

    #[test]
    fn room_doubles_but_never_past_the_limit() {
        let b = BodyLimit::new(100);
        assert_eq!(b.room(0, 10), 10);
        assert_eq!(b.room(10, 11), 20);
        assert_eq!(b.room(60, 61), 100);
        assert_eq!(b.room(100, 100), 100);
        assert_eq!(b.room(32, 5), 32);
    }

    #[test]
    fn the_message_names_the_limit() {
        assert_eq!(
            TooLarge { limit: 64 }.to_string(),
            "the body is over the limit of 64 bytes"
        );
    }
}
