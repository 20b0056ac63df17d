//! The outbound guard: which destinations hookonce may send to, whether an operator
//! configured them or a publish client named them.
//!
//! A destination is refused unless it is an `https://` URL to a public host. Loopback,
//! private, link-local, shared (CGNAT), unspecified, multicast and reserved addresses, the
//! cloud metadata names and `localhost` names are refused, as is plain `http://`, unless the
//! operator sets [`Policy::allow_private`] (`HOOKONCE_ALLOW_PRIVATE_DESTINATIONS = "true"`,
//! for local development and tests). A publish token may also carry a [`HostList`]: then
//! only the hosts on it are accepted.
//!
//! Hosts are classified as a WHATWG URL parser (the runtime's `fetch`) reads them, so
//! `http://2130706433/`, `http://0x7f.1/` and `http://127.1/` are all loopback. A name
//! that resolves to a private address (DNS rebinding) is not seen here: core does no IO.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::urls::is_http_url;

/// What the operator allows beyond the defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Plain `http://`, and private, loopback and local destinations
    /// (`HOOKONCE_ALLOW_PRIVATE_DESTINATIONS = "true"`).
    pub allow_private: bool,
}

/// The variable that sets [`Policy::allow_private`].
pub const ALLOW_PRIVATE_VAR: &str = "HOOKONCE_ALLOW_PRIVATE_DESTINATIONS";

impl Policy {
    /// The policy from [`ALLOW_PRIVATE_VAR`]'s value: unset, `"false"` or `"true"`.
    pub fn from_var(value: Option<&str>) -> Result<Policy, &'static str> {
        match value.map(str::trim) {
            None | Some("" | "false") => Ok(Policy::default()),
            Some("true") => Ok(Policy {
                allow_private: true,
            }),
            Some(_) => Err("HOOKONCE_ALLOW_PRIVATE_DESTINATIONS: expected \"true\" or \"false\""),
        }
    }
}

/// Why a destination is refused. Each names the rule in [`Refusal::rule`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not an absolute http(s) URL with a host and no credentials.
    NotAUrl,
    /// `http://` without [`Policy::allow_private`].
    PlainHttp,
    /// An address literal of this kind.
    Address(AddressKind),
    /// A name that means this machine or its cloud's metadata service.
    LocalName,
    /// A host that looks like an IPv4 address but is not a valid one.
    MalformedAddress,
    /// The host is not on the token's allow-list.
    NotAllowed,
}

/// The kinds of address no destination may be.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressKind {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// 10/8, 172.16/12, 192.168/16, fc00::/7.
    Private,
    /// 169.254/16 (the metadata service's 169.254.169.254 among them), fe80::/10.
    LinkLocal,
    /// 100.64/10, carrier-grade NAT.
    Shared,
    /// 0.0.0.0/8, ::.
    Unspecified,
    /// 224/4, ff00::/8.
    Multicast,
    /// 240/4 and 255.255.255.255; IETF protocol, documentation and benchmarking ranges.
    Reserved,
}

impl Refusal {
    /// The rule's name, as problem documents and configuration errors show it.
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::NotAUrl => "url-syntax",
            Refusal::PlainHttp => "https-only",
            Refusal::Address(_) | Refusal::LocalName | Refusal::MalformedAddress => {
                "no-private-destinations"
            }
            Refusal::NotAllowed => "token-allow-list",
        }
    }
}

impl fmt::Display for AddressKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AddressKind::Loopback => "a loopback address",
            AddressKind::Private => "a private address",
            AddressKind::LinkLocal => "a link-local address (cloud metadata lives there)",
            AddressKind::Shared => "a shared (CGNAT) address",
            AddressKind::Unspecified => "an unspecified address",
            AddressKind::Multicast => "a multicast address",
            AddressKind::Reserved => "a reserved address",
        })
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let allow = "unless HOOKONCE_ALLOW_PRIVATE_DESTINATIONS is \"true\"";
        match self {
            Refusal::NotAUrl => f.write_str(
                "expected an https:// URL with a host (ASCII; punycode for other names) and no credentials",
            ),
            Refusal::PlainHttp => write!(f, "plain http:// is refused {allow}: use https://"),
            Refusal::Address(kind) => write!(f, "the host is {kind}, refused {allow}"),
            Refusal::LocalName => write!(
                f,
                "the host names this machine or a metadata service, refused {allow}"
            ),
            Refusal::MalformedAddress => f.write_str("the host is not a valid IPv4 address"),
            Refusal::NotAllowed => {
                f.write_str("the host is not on this publish token's list of allowed hosts")
            }
        }?;
        write!(f, " (rule {})", self.rule())
    }
}

impl std::error::Error for Refusal {}

/// Hosts a publish token may send to: exact names, or `*.example.com` for any name below
/// `example.com` (not `example.com` itself). Case-insensitive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostList(Vec<String>);

impl HostList {
    /// The list from its patterns; `None` if one is not a host name or a `*.` pattern.
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Option<HostList> {
        let mut out = Vec::new();
        for p in patterns {
            let name = p.strip_prefix("*.").unwrap_or(p);
            let valid = !name.is_empty()
                && name.len() <= 253
                && name.split('.').all(|l| {
                    !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                });
            if !valid {
                return None;
            }
            out.push(p.to_ascii_lowercase());
        }
        Some(HostList(out))
    }

    /// Whether `host` (lower-case, no trailing dot) is on the list.
    fn admits(&self, host: &str) -> bool {
        self.0.iter().any(|p| match p.strip_prefix("*.") {
            Some(base) => host
                .strip_suffix(base)
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            None => p == host,
        })
    }
}

/// Checks `url` against the guard: the policy, and the token's allow-list if it has one.
pub fn check(url: &str, policy: Policy, allowed: Option<&HostList>) -> Result<(), Refusal> {
    if !is_http_url(url) {
        return Err(Refusal::NotAUrl);
    }
    let (plain, rest) = match url.strip_prefix("https://") {
        Some(rest) => (false, rest),
        None => (true, &url["http://".len()..]),
    };
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host = match authority.strip_prefix('[') {
        Some(v6) => &v6[..v6.find(']').unwrap_or(v6.len())],
        None => authority.split(':').next().unwrap_or(authority),
    };
    let host = host.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host);
    if let Some(list) = allowed {
        if !list.admits(host) {
            return Err(Refusal::NotAllowed);
        }
    }
    if policy.allow_private {
        return Ok(());
    }
    if plain {
        return Err(Refusal::PlainHttp);
    }
    if authority.starts_with('[') {
        let ip: Ipv6Addr = host.parse().map_err(|_| Refusal::NotAUrl)?;
        return v6_kind(ip).map_or(Ok(()), |k| Err(Refusal::Address(k)));
    }
    match whatwg_ipv4(host) {
        Ipv4Host::Name => {}
        Ipv4Host::Invalid => return Err(Refusal::MalformedAddress),
        Ipv4Host::Address(ip) => {
            return v4_kind(ip).map_or(Ok(()), |k| Err(Refusal::Address(k)));
        }
    }
    if is_local_name(host) {
        return Err(Refusal::LocalName);
    }
    Ok(())
}

/// `localhost` and its subdomains (RFC 6761), and the metadata services' names.
fn is_local_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "metadata"
        || host == "instance-data"
        || host.starts_with("metadata.") && host.ends_with(".internal")
}

enum Ipv4Host {
    /// Not an IPv4 address: a name.
    Name,
    /// Looks like one (its last label is numeric) but is not valid.
    Invalid,
    Address(Ipv4Addr),
}

/// A host as the WHATWG URL standard's IPv4 parser reads it: one to four dot-separated
/// numbers, each decimal, octal (leading `0`) or hex (`0x`), the last filling the bytes
/// the others leave. A host whose last label is not numeric is a name.
fn whatwg_ipv4(host: &str) -> Ipv4Host {
    let labels: Vec<&str> = host.split('.').collect();
    let last = labels.last().copied().unwrap_or("");
    let numeric = |l: &str| {
        !l.is_empty()
            && (l.bytes().all(|b| b.is_ascii_digit())
                || l.strip_prefix("0x")
                    .or_else(|| l.strip_prefix("0X"))
                    .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())))
    };
    if !numeric(last) {
        return Ipv4Host::Name;
    }
    if labels.len() > 4 {
        return Ipv4Host::Invalid;
    }
    let mut parts = Vec::with_capacity(labels.len());
    for l in &labels {
        let n = if let Some(h) = l.strip_prefix("0x").or_else(|| l.strip_prefix("0X")) {
            if h.is_empty() {
                Some(0)
            } else {
                u64::from_str_radix(h, 16).ok()
            }
        } else if l.len() > 1 && l.starts_with('0') {
            u64::from_str_radix(&l[1..], 8).ok()
        } else {
            l.parse::<u64>().ok()
        };
        match n {
            Some(n) => parts.push(n),
            None => return Ipv4Host::Invalid,
        }
    }
    let (last, head) = parts.split_last().expect("at least one label");
    if head.iter().any(|&p| p > 255) || *last >= 1u64 << (8 * (5 - parts.len())) {
        return Ipv4Host::Invalid;
    }
    let mut value = *last;
    for (i, p) in head.iter().enumerate() {
        value += p << (8 * (3 - i));
    }
    match u32::try_from(value) {
        Ok(v) => Ipv4Host::Address(Ipv4Addr::from(v)),
        Err(_) => Ipv4Host::Invalid,
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<AddressKind> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, ..) => AddressKind::Unspecified,
        (127, ..) => AddressKind::Loopback,
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => AddressKind::Private,
        (169, 254, _) => AddressKind::LinkLocal,
        (100, 64..=127, _) => AddressKind::Shared,
        (224..=239, ..) => AddressKind::Multicast,
        (240..=255, ..) | (192, 0, 0 | 2) | (198, 18..=19, _) | (198, 51, 100) | (203, 0, 113) => {
            AddressKind::Reserved
        }
        _ => return None,
    })
}

fn v6_kind(ip: Ipv6Addr) -> Option<AddressKind> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_kind(v4);
    }
    let s = ip.segments();
    Some(match s[0] {
        _ if ip.is_unspecified() => AddressKind::Unspecified,
        _ if ip.is_loopback() => AddressKind::Loopback,
        0xfc00..=0xfdff => AddressKind::Private,
        0xfe80..=0xfebf => AddressKind::LinkLocal,
        0xff00..=0xffff => AddressKind::Multicast,
        // 64:ff9b::/96 (NAT64) embeds an IPv4 address: judge that one.
        0x0064 if s[1] == 0xff9b && s[2..6] == [0; 4] => {
            return v4_kind(Ipv4Addr::new(
                (s[6] >> 8) as u8,
                s[6] as u8,
                (s[7] >> 8) as u8,
                s[7] as u8,
            ))
        }
        // ::/96 (IPv4-compatible, deprecated) and 2001:db8::/32 (documentation).
        0 if s[1..6] == [0; 5] => AddressKind::Reserved,
        0x2001 if s[1] == 0x0db8 => AddressKind::Reserved,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: Policy = Policy {
        allow_private: false,
    };

    fn refusal(url: &str) -> Option<&'static str> {
        check(url, STRICT, None).err().map(|r| r.rule())
    }

    #[test]
    fn public_https_hosts_pass() {
        for url in [
            "https://app.example.com/hooks",
            "https://app.example.com:8443/hooks?x=1",
            "https://93.184.216.34/",
            "https://[2606:4700::1111]/",
            "https://localhost.example.com/",
            "https://internal.example/",
            "https://1.example/",
        ] {
            assert_eq!(refusal(url), None, "{url}");
        }
    }

    #[test]
    fn plain_http_and_every_private_form_are_refused_by_default() {
        for (url, rule) in [
            ("http://app.example.com/", "https-only"),
            ("https://127.0.0.1/", "no-private-destinations"),
            ("https://127.255.0.9:8443/", "no-private-destinations"),
            ("https://10.1.2.3/", "no-private-destinations"),
            ("https://172.16.0.1/", "no-private-destinations"),
            ("https://172.31.255.255/", "no-private-destinations"),
            ("https://192.168.1.1/", "no-private-destinations"),
            (
                "https://169.254.169.254/latest/meta-data",
                "no-private-destinations",
            ),
            ("https://100.64.0.1/", "no-private-destinations"),
            ("https://0.0.0.0/", "no-private-destinations"),
            ("https://224.0.0.1/", "no-private-destinations"),
            ("https://255.255.255.255/", "no-private-destinations"),
            ("https://2130706433/", "no-private-destinations"),
            ("https://0x7f.1/", "no-private-destinations"),
            ("https://0177.0.0.1/", "no-private-destinations"),
            ("https://127.1/", "no-private-destinations"),
            ("https://0x7f000001/", "no-private-destinations"),
            ("https://127.0.0.1./", "no-private-destinations"),
            ("https://256.0.0.1/", "no-private-destinations"),
            ("https://1.2.3.4.5/", "no-private-destinations"),
            ("https://[::1]/", "no-private-destinations"),
            ("https://[::]/", "no-private-destinations"),
            ("https://[::ffff:127.0.0.1]/", "no-private-destinations"),
            ("https://[::ffff:a9fe:a9fe]/", "no-private-destinations"),
            ("https://[64:ff9b::a00:1]/", "no-private-destinations"),
            ("https://[fd00:ec2::254]/", "no-private-destinations"),
            ("https://[fe80::1]/", "no-private-destinations"),
            ("https://[ff02::1]/", "no-private-destinations"),
            ("https://localhost/", "no-private-destinations"),
            ("https://LOCALHOST./", "no-private-destinations"),
            ("https://app.localhost/", "no-private-destinations"),
            (
                "https://metadata.google.internal/",
                "no-private-destinations",
            ),
            ("https://user@app.example.com/", "url-syntax"),
            ("ftp://app.example.com/", "url-syntax"),
        ] {
            assert_eq!(refusal(url), Some(rule), "{url}");
        }
    }

    #[test]
    fn the_operator_may_allow_private_and_plain_http_destinations() {
        let open = Policy {
            allow_private: true,
        };
        for url in [
            "http://127.0.0.1:8787/in",
            "http://localhost/",
            "https://[::1]/",
        ] {
            assert_eq!(check(url, open, None), Ok(()), "{url}");
        }
        assert_eq!(
            check("ftp://x/", open, None),
            Err(Refusal::NotAUrl),
            "syntax is never waived"
        );
    }

    #[test]
    fn a_token_allow_list_admits_only_its_hosts() {
        let list = HostList::new(["hooks.example.com", "*.app.example"]).unwrap();
        let ok = |u: &str| check(u, STRICT, Some(&list)).map_err(|r| r.rule());
        assert_eq!(ok("https://hooks.example.com/x"), Ok(()));
        assert_eq!(ok("https://HOOKS.example.com./x"), Ok(()));
        assert_eq!(ok("https://a.app.example/"), Ok(()));
        assert_eq!(ok("https://b.a.app.example/"), Ok(()));
        assert_eq!(ok("https://app.example/"), Err("token-allow-list"));
        assert_eq!(ok("https://evilapp.example/"), Err("token-allow-list"));
        assert_eq!(
            ok("https://hooks.example.com.evil/"),
            Err("token-allow-list")
        );
        assert_eq!(ok("https://other.example/"), Err("token-allow-list"));
        // The list narrows; it never opens what the policy refuses.
        let local = HostList::new(["localhost"]).unwrap();
        assert_eq!(
            check("https://localhost/", STRICT, Some(&local)).map_err(|r| r.rule()),
            Err("no-private-destinations")
        );
    }

    #[test]
    fn a_pattern_that_is_not_a_host_is_refused() {
        for bad in ["", "*.", "a..b", "exa mple.com", "*.*.a", "https://a"] {
            assert_eq!(HostList::new([bad]), None, "{bad:?}");
        }
    }

    #[test]
    fn each_refusal_says_its_rule_and_how_to_allow_it() {
        let r = check("http://app.example/", STRICT, None).unwrap_err();
        let text = r.to_string();
        assert!(text.contains("https-only"), "{text}");
        assert!(
            text.contains("HOOKONCE_ALLOW_PRIVATE_DESTINATIONS"),
            "{text}"
        );
    }
}
