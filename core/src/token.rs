//! Bearer tokens (the admin and publish APIs), compared so that the time taken says
//! nothing about the token: neither its length nor where a guess first differs.

use sha2::{Digest, Sha256};

/// Whether `presented` is `expected`. Both are hashed to SHA-256 and the two 32-byte
/// digests compared in full, so a presented token of another length takes the same
/// comparison as one of the right length.
#[must_use]
pub fn token_matches(expected: &str, presented: &str) -> bool {
    let (a, b) = (Sha256::digest(expected), Sha256::digest(presented));
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_token_matches() {
        assert!(token_matches("dev-admin-token", "dev-admin-token"));
        for other in [
            "",
            "dev-admin-toke",
            "dev-admin-tokenX",
            "DEV-ADMIN-TOKEN",
            "x",
        ] {
            assert!(!token_matches("dev-admin-token", other), "{other:?}");
        }
        assert!(token_matches("", ""));
        let long = "t".repeat(10_000);
        assert!(!token_matches("dev-admin-token", &long));
        assert!(token_matches(&long, &long));
    }
}
