//! Which URLs hookonce sends to. A leaf: it imports nothing local.

/// Whether `url` is an absolute `http://` or `https://` URL that a fetch can be made to:
/// visible ASCII only, no credentials, a host (a name, an IPv4 address or a bracketed IPv6
/// address) and at most a port from 1 to 65535. A name outside ASCII must be sent in its
/// punycode form.
pub fn is_http_url(url: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return false;
    };
    if !url.bytes().all(|b| b.is_ascii_graphic()) {
        return false;
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if authority.contains('@') {
        return false;
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((h, after)) if !h.is_empty() => {
                if !h
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
                {
                    return false;
                }
                match after {
                    "" => (h, None),
                    _ => match after.strip_prefix(':') {
                        Some(p) => (h, Some(p)),
                        None => return false,
                    },
                }
            }
            _ => return false,
        },
        None => match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        },
    };
    let host_ok = !host.is_empty()
        && (authority.starts_with('[')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')));
    let port_ok = port.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|n| (1..=65_535).contains(&n))
    });
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_fetchable_http_urls_are_destinations() {
        for good in [
            "https://app.example/hooks",
            "http://127.0.0.1:8787/in?x=1#f",
            "http://[::1]:9000/",
            "https://xn--bcher-kva.example",
            "http://localhost",
        ] {
            assert!(is_http_url(good), "{good}");
        }
        for bad in [
            "ftp://app.example/",
            "https://",
            "https:///path",
            "http://[",
            "http://[::1",
            "http://[zz]/",
            "http://[::1]x/",
            "https://user:pw@app.example/",
            "https://app.example:0/",
            "https://app.example:65536/",
            "https://app.example:/",
            "https://app example/",
            "https://bücher.example/",
            "https://app.example/\u{7f}",
            "https://a:b:c/",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }
}
