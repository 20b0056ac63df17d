//! The publish API's description (`edge/assets/openapi.json`) gives in a `pattern` which
//! destinations it takes, and core's `is_http_url` decides. Each is the other's oracle:
//! every string the pattern admits, core accepts, but for its port (the range, 1 to 65535,
//! is in the description's text, not in the pattern); and every URL-like string core
//! accepts, the pattern admits.

use hookonce_core::urls::is_http_url;
use hookonce_e2e::repo_root;
use proptest::prelude::*;
use proptest::string::string_regex;
use regex::Regex;

/// The destination's `pattern`, as the description holds it.
fn pattern() -> String {
    let spec: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo_root().join("edge/assets/openapi.json")).expect("openapi.json"),
    )
    .expect("openapi.json is JSON");
    spec["components"]["schemas"]["PublishRequest"]["properties"]["destination"]["pattern"]
        .as_str()
        .expect("the destination has a pattern")
        .to_owned()
}

/// Whether `url`'s port, if it has one, is from 1 to 65535.
fn port_in_range(url: &str) -> bool {
    let rest = url.split_once("://").map_or("", |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let port = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once("]:").map(|(_, port)| port),
        None => authority.split_once(':').map(|(_, port)| port),
    };
    port.is_none_or(|p| p.parse::<u32>().is_ok_and(|n| (1..=65_535).contains(&n)))
}

proptest! {
    #[test]
    fn every_destination_the_pattern_admits_is_accepted_but_for_its_port(
        url in {
            let anchored = pattern();
            let body = anchored.trim_start_matches('^').trim_end_matches('$').to_owned();
            string_regex(&body).expect("the pattern is a regex proptest can generate from")
        }
    ) {
        prop_assert!(Regex::new(&pattern()).unwrap().is_match(&url));
        prop_assert_eq!(is_http_url(&url), port_in_range(&url), "{}", url);
    }

    #[test]
    fn every_url_like_string_hookonce_accepts_the_pattern_admits(
        url in "https?://(\\[[0-9a-f:.]{0,6}\\]|[ -~]{0,12})(:[0-9]{0,6})?([/?#][ -~]{0,8})?"
    ) {
        let admitted = Regex::new(&pattern()).unwrap().is_match(&url);
        if is_http_url(&url) {
            prop_assert!(admitted, "core accepts {:?}, the description's pattern does not", url);
        }
        if admitted && port_in_range(&url) {
            prop_assert!(is_http_url(&url), "the pattern admits {:?}, core refuses it", url);
        }
    }
}
