//! Base64 (RFC 4648 §4 and §5): the one implementation, for signatures, secrets, queued
//! bodies and feed cursors.
//!
//! Decoding is as strict as the `base64` crate's engines it replaced, which the tests below
//! use as the oracle: no byte outside the alphabet, no `=` but at the end, no leftover bits
//! set. Own code because those generic engines cost 3 KB of the gzipped wasm.

/// How a decoder treats the `=` that pads the last group to four symbols.
#[derive(Clone, Copy)]
enum Padding {
    /// Exactly as many as the group needs (RFC 4648 §3.2).
    Canonical,
    /// Any number up to what the group needs, none included.
    Optional,
    /// None at all (RFC 4648 §3.2's "unless the specification referring to this document
    /// explicitly states otherwise": URL-safe cursors).
    Forbidden,
}

/// An alphabet and its padding rules.
pub(crate) struct Base64 {
    alphabet: &'static [u8; 64],
    /// Each byte's value in `alphabet`, or [`NOT_A_SYMBOL`].
    sextets: &'static [u8; 256],
    /// Whether encoding pads.
    pad: bool,
    padding: Padding,
}

const STANDARD_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const NOT_A_SYMBOL: u8 = 0xff;

const fn sextets(alphabet: &[u8; 64]) -> [u8; 256] {
    let mut table = [NOT_A_SYMBOL; 256];
    let mut i = 0;
    while i < 64 {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
}

static STANDARD_SEXTETS: [u8; 256] = sextets(STANDARD_ALPHABET);
static URL_SEXTETS: [u8; 256] = sextets(URL_ALPHABET);

/// RFC 4648 §4, padded: signatures and queued bodies.
pub(crate) static STANDARD: Base64 = Base64 {
    alphabet: STANDARD_ALPHABET,
    sextets: &STANDARD_SEXTETS,
    pad: true,
    padding: Padding::Canonical,
};

/// RFC 4648 §4, padding optional when decoding: several of the official Standard Webhooks
/// libraries print secrets without the trailing `=`.
pub(crate) static SECRET: Base64 = Base64 {
    alphabet: STANDARD_ALPHABET,
    sextets: &STANDARD_SEXTETS,
    pad: true,
    padding: Padding::Optional,
};

/// RFC 4648 §5 without padding: opaque cursors in URLs.
pub(crate) static URL_NO_PAD: Base64 = Base64 {
    alphabet: URL_ALPHABET,
    sextets: &URL_SEXTETS,
    pad: false,
    padding: Padding::Forbidden,
};

impl Base64 {
    /// `bytes` as base64 text.
    pub(crate) fn encode(&self, bytes: impl AsRef<[u8]>) -> String {
        let bytes = bytes.as_ref();
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for group in bytes.chunks(3) {
            let n = group
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
            // A group of k bytes gives k + 1 symbols.
            for i in 0..=group.len() {
                let sextet = (n >> (18 - 6 * i)) & 0x3f;
                out.push(char::from(self.alphabet[sextet as usize]));
            }
            if self.pad {
                out.extend(std::iter::repeat_n('=', 3 - group.len()));
            }
        }
        out
    }

    /// The bytes `text` encodes, or `None` if it is not this encoding's canonical form.
    pub(crate) fn decode(&self, text: &str) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
        self.each_group(text, |bytes| out.extend_from_slice(bytes))?;
        Some(out)
    }

    /// Fills `out` from `text`, without allocating (a signature, on every delivery); false
    /// unless `text` is canonical and encodes exactly `out.len()` bytes.
    pub(crate) fn decode_into(&self, text: &str, out: &mut [u8]) -> bool {
        let mut filled = 0;
        let canonical = self
            .each_group(text, |bytes| {
                if let Some(to) = out.get_mut(filled..filled + bytes.len()) {
                    to.copy_from_slice(bytes);
                }
                filled += bytes.len();
            })
            .is_some();
        canonical && filled == out.len()
    }

    /// Checks `text` and hands each group's bytes to `emit`, in order; `None` (after
    /// emitting the groups before it) at the first thing that is not canonical.
    fn each_group(&self, text: &str, mut emit: impl FnMut(&[u8])) -> Option<()> {
        let text = text.as_bytes();
        let symbols = text.iter().rposition(|&c| c != b'=').map_or(0, |i| i + 1);
        let pads = text.len() - symbols;
        // The last group holds 2 or 3 symbols (1 or 2 bytes), or is whole.
        let needs = match symbols % 4 {
            0 => 0,
            1 => return None,
            r => 4 - r,
        };
        let padded = match self.padding {
            Padding::Canonical => pads == needs,
            Padding::Optional => pads <= needs,
            Padding::Forbidden => pads == 0,
        };
        if !padded {
            return None;
        }
        for group in text[..symbols].chunks(4) {
            let mut n = 0u32;
            for (i, &c) in group.iter().enumerate() {
                let sextet = self.sextets[usize::from(c)];
                if sextet == NOT_A_SYMBOL {
                    return None;
                }
                n |= u32::from(sextet) << (18 - 6 * i);
            }
            // k symbols carry k - 1 whole bytes; the bits after them must be zero.
            let bytes = group.len() - 1;
            if n & (0x00ff_ffff >> (8 * bytes)) != 0 {
                return None;
            }
            emit(&n.to_be_bytes()[1..=bytes]);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Base64, SECRET, STANDARD, URL_NO_PAD};
    use ::base64::engine::general_purpose::{GeneralPurpose, URL_SAFE_NO_PAD};
    use ::base64::Engine as _;
    use proptest::prelude::*;

    /// RFC 4648 §10's test vectors.
    #[test]
    fn rfc_4648_vectors_encode_and_decode() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(STANDARD.encode(plain), encoded);
            assert_eq!(STANDARD.decode(encoded).as_deref(), Some(plain.as_bytes()));
            let bare = encoded.trim_end_matches('=');
            assert_eq!(URL_NO_PAD.encode(plain), bare);
            assert_eq!(URL_NO_PAD.decode(bare).as_deref(), Some(plain.as_bytes()));
            assert_eq!(SECRET.decode(bare).as_deref(), Some(plain.as_bytes()));
        }
    }

    #[test]
    fn non_canonical_forms_are_refused() {
        for bad in [
            "Zg=", "Zg", "Zh==", "Z===", "Zm9v=", "Zm=9v", "Zm9v\n", "Zg==Zg==", "====",
        ] {
            assert_eq!(STANDARD.decode(bad), None, "{bad:?}");
        }
        assert_eq!(URL_NO_PAD.decode("Zg=="), None);
        assert_eq!(URL_NO_PAD.decode("+/"), None);
        assert_eq!(URL_NO_PAD.decode("-_8"), Some(vec![0xfb, 0xff]));
    }

    /// The `base64` crate's engines, an implementation independent of this one, as the oracle.
    fn oracles() -> [(&'static Base64, GeneralPurpose, &'static str); 3] {
        let secret = GeneralPurpose::new(
            &::base64::alphabet::STANDARD,
            ::base64::engine::GeneralPurposeConfig::new()
                .with_decode_padding_mode(::base64::engine::DecodePaddingMode::Indifferent),
        );
        [
            (
                &STANDARD,
                ::base64::engine::general_purpose::STANDARD,
                "standard",
            ),
            (&SECRET, secret, "secret"),
            (&URL_NO_PAD, URL_SAFE_NO_PAD, "url"),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Any text, mostly near-valid: both accept the same texts and decode them alike.
        #[test]
        fn decodes_exactly_what_the_base64_crate_decodes(text in "[A-Za-z0-9+/_=-]{0,14}[=.\\n]?") {
            for (ours, theirs, name) in oracles() {
                prop_assert_eq!(ours.decode(&text), theirs.decode(&text).ok(), "{} {:?}", name, text);
            }
        }

        /// Valid text with one symbol changed and cut anywhere: near misses of every kind.
        #[test]
        fn refuses_what_the_base64_crate_refuses_near_valid_text(
            bytes in prop::collection::vec(any::<u8>(), 0..12),
            at in any::<prop::sample::Index>(),
            to in prop::sample::select(b"AQgw+/-_=.".to_vec()),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut text = STANDARD.encode(&bytes).into_bytes();
            if !text.is_empty() {
                let i = at.index(text.len());
                text[i] = to;
                text.truncate(cut.index(text.len() + 1));
            }
            let text = String::from_utf8(text).unwrap();
            for (ours, theirs, name) in oracles() {
                prop_assert_eq!(ours.decode(&text), theirs.decode(&text).ok(), "{} {:?}", name, text);
            }
        }

        /// Into a buffer: the same bytes as `decode`, and only into one of exactly their length.
        #[test]
        fn decode_into_fills_exactly_what_decode_returns(
            text in "[A-Za-z0-9+/=]{0,14}",
            len in 0usize..12,
        ) {
            let mut out = vec![0u8; len];
            let filled = STANDARD.decode_into(&text, &mut out);
            let whole = STANDARD.decode(&text);
            prop_assert_eq!(filled, whole.as_ref().is_some_and(|b| b.len() == len));
            if filled {
                prop_assert_eq!(Some(out), whole);
            }
        }

        #[test]
        fn encodes_as_the_base64_crate_and_round_trips(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
            for (ours, theirs, name) in oracles() {
                let text = ours.encode(&bytes);
                prop_assert_eq!(&text, &theirs.encode(&bytes), "{}", name);
                prop_assert_eq!(ours.decode(&text), Some(bytes.clone()), "{}", name);
            }
        }
    }
}
