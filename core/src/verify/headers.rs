//! Request headers, looked up by name as HTTP compares names: case-insensitively.

/// Case-insensitive header lookup (RFC 9110 §5.1: field names are case-insensitive).
///
/// One implementation, for any slice of name–value pairs; pass a `Vec` as `&v[..]`. The
/// method is not called `get`, which slices already have (by index).
pub trait Headers {
    /// The value of the first field named `name`, compared ASCII case-insensitively.
    fn header(&self, name: &str) -> Option<&str>;
}

impl<K: AsRef<str>, V: AsRef<str>> Headers for [(K, V)] {
    fn header(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.as_ref().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_ref())
    }
}
