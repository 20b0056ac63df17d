//! How a kept raw body is laid out on disk: LZ4-compressed when that is smaller.
//!
//! Bodies are most of what an entity stores while they are kept, and SQLite packs whole
//! rows into 4 KiB pages: a 1 KiB JSON body (a row of ~1.1 KB) leaves three to a page,
//! 1.4 KB each. JSON compresses well (keys, punctuation and common values repeat), so a
//! body that shrinks is kept compressed and one that does not is kept as it came. LZ4
//! rather than deflate: a few µs per KiB against tens, for a few percent more on disk
//! (bench/FINDINGS.md, "Storage per event, and what it costs").

use std::borrow::Cow;
use std::fmt;

/// How a stored body's bytes are encoded; the adapter stores [`Codec::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Codec {
    /// The body, byte for byte.
    Raw,
    /// An LZ4 block with the body's length in front (4 bytes, little-endian).
    Lz4,
}

impl Codec {
    /// The column value: 0 and 1 are stored in the row header alone, at no byte cost.
    #[must_use]
    pub fn code(self) -> i64 {
        match self {
            Codec::Raw => 0,
            Codec::Lz4 => 1,
        }
    }

    /// The codec stored as `code`, if it is one.
    #[must_use]
    pub fn from_code(code: i64) -> Option<Codec> {
        match code {
            0 => Some(Codec::Raw),
            1 => Some(Codec::Lz4),
            _ => None,
        }
    }
}

/// A body as it is stored: its codec and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed<'b> {
    /// How `bytes` encode the body.
    pub codec: Codec,
    /// What is stored.
    pub bytes: Cow<'b, [u8]>,
}

/// Bodies shorter than this are stored raw: LZ4 cannot win back its 4-byte length
/// prefix and block framing on a few dozen bytes.
const MIN_PACKED: usize = 64;

/// Lays `body` out for storage: compressed if that saves at least one byte, else as is.
#[must_use]
pub fn pack(body: &[u8]) -> Packed<'_> {
    if body.len() >= MIN_PACKED {
        let packed = lz4_flex::compress_prepend_size(body);
        if packed.len() < body.len() {
            return Packed {
                codec: Codec::Lz4,
                bytes: Cow::Owned(packed),
            };
        }
    }
    Packed {
        codec: Codec::Raw,
        bytes: Cow::Borrowed(body),
    }
}

/// A stored body that does not decode: the store was written by something else, or damaged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnpackError {
    /// The codec column holds a value no version of hookonce wrote.
    UnknownCodec(i64),
    /// The LZ4 block is malformed, or its length prefix is wrong or more than the
    /// block could ever expand to.
    Corrupt,
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnpackError::UnknownCodec(c) => write!(f, "unknown body codec {c}"),
            UnpackError::Corrupt => f.write_str("the stored body does not decode"),
        }
    }
}

impl std::error::Error for UnpackError {}

/// LZ4's best case: one length byte extends a match by 255 bytes. A prefix claiming
/// more than this times the block is damaged, and is refused before anything is allocated.
const MAX_RATIO: usize = 255;

/// The body stored as `bytes` under codec `code`, byte for byte as it arrived.
pub fn unpack(code: i64, bytes: &[u8]) -> Result<Cow<'_, [u8]>, UnpackError> {
    match Codec::from_code(code).ok_or(UnpackError::UnknownCodec(code))? {
        Codec::Raw => Ok(Cow::Borrowed(bytes)),
        Codec::Lz4 => {
            let claimed = bytes
                .get(..4)
                .map(|n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize)
                .ok_or(UnpackError::Corrupt)?;
            if claimed > (bytes.len() - 4).saturating_mul(MAX_RATIO) + 16 {
                return Err(UnpackError::Corrupt);
            }
            match lz4_flex::decompress_size_prepended(bytes) {
                Ok(body) if body.len() == claimed => Ok(Cow::Owned(body)),
                _ => Err(UnpackError::Corrupt),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const JSON: &[u8] = br#"{"id":"evt_1","type":"cardholder.updated","data":{"object":{"id":"ch_1","status":"active","metadata":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6"}}}}"#;

    #[test]
    fn a_json_body_is_kept_compressed_and_reads_back_byte_for_byte() {
        let packed = pack(JSON);
        assert_eq!(packed.codec, Codec::Lz4);
        assert!(packed.bytes.len() < JSON.len());
        assert_eq!(unpack(packed.codec.code(), &packed.bytes).unwrap(), JSON);
    }

    #[test]
    fn a_body_that_would_not_shrink_is_kept_as_it_came() {
        // No repeats for LZ4 to find: 256 distinct bytes.
        let noise: Vec<u8> = (0..=255u8).collect();
        let packed = pack(&noise);
        assert_eq!(packed.codec, Codec::Raw);
        assert_eq!(packed.bytes, noise.as_slice());
        assert_eq!(pack(b"{}").codec, Codec::Raw);
    }

    #[test]
    fn a_damaged_or_foreign_body_is_an_error_not_a_panic() {
        assert_eq!(unpack(7, b"x"), Err(UnpackError::UnknownCodec(7)));
        assert_eq!(unpack(1, b"\x01"), Err(UnpackError::Corrupt));
        assert_eq!(
            unpack(1, b"\xff\xff\xff\x7f\x00"),
            Err(UnpackError::Corrupt)
        );
        let mut packed = pack(JSON).bytes.into_owned();
        packed[0] = packed[0].wrapping_add(1); // the length no longer matches the block
        assert_eq!(unpack(1, &packed), Err(UnpackError::Corrupt));
    }

    proptest! {
        #[test]
        fn every_body_reads_back_exactly(body in proptest::collection::vec(any::<u8>(), 0..4096),
                                         repeat in 1usize..4) {
            let body = body.repeat(repeat);
            let packed = pack(&body);
            prop_assert!(packed.bytes.len() <= body.len());
            prop_assert_eq!(unpack(packed.codec.code(), &packed.bytes).unwrap(), body.as_slice());
        }

        #[test]
        fn arbitrary_stored_bytes_never_panic(code in 0i64..3, bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = unpack(code, &bytes);
        }
    }
}
