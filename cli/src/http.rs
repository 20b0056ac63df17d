//! The HTTP client: one blocking request at a time per agent; 4xx and 5xx are answers,
//! only "no answer at all" is an error.

use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use serde_json::Value;

/// An agent that reports every status as a response, with timeouts so that nothing hangs.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// An HTTP answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The first header of this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// An RFC 9457 problem's slug (the end of its `type`) and detail.
    pub fn problem(&self) -> Option<(String, String)> {
        let doc = self.json()?;
        let slug = doc["type"].as_str()?.rsplit('/').next()?.to_owned();
        let detail = doc["detail"].as_str().unwrap_or_default().to_owned();
        Some((slug, detail))
    }

    /// One line saying what went wrong, e.g. `HTTP 401 invalid-signature: no signature matches`.
    pub fn describe(&self) -> String {
        match self.problem() {
            Some((slug, detail)) => format!("HTTP {} {slug}: {detail}", self.status),
            None => {
                let text = String::from_utf8_lossy(&self.body);
                let text = text.trim();
                if text.is_empty() {
                    format!("HTTP {}", self.status)
                } else {
                    format!("HTTP {}: {}", self.status, truncate(text, 200))
                }
            }
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// One request. `Err` only when no answer came (refused, timed out, bad address).
pub fn request(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    headers: &[(impl AsRef<str>, impl AsRef<str>)],
    body: Option<&[u8]>,
) -> Result<Reply> {
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(k.as_ref(), v.as_ref());
    }
    let req = req
        .body(body.unwrap_or_default().to_vec())
        .with_context(|| format!("cannot build a request to {url}"))?;
    let mut resp = agent
        .run(req)
        .with_context(|| format!("cannot reach {url}"))?;
    let status = resp.status().as_u16();
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = resp
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_to_vec()
        .with_context(|| format!("the answer from {url} was cut off"))?;
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// The read and admin APIs of one hookonce.
pub struct Admin {
    base: String,
    token: String,
    agent: ureq::Agent,
}

impl Admin {
    /// Fails early, with the fix, when there is no token.
    pub fn new(base: &str, token: Option<&str>) -> Result<Admin> {
        let Some(token) = token.filter(|t| !t.is_empty()) else {
            bail!("the admin API needs its token: pass --token or set HOOKONCE_ADMIN_TOKEN");
        };
        Ok(Admin {
            base: crate::input::base_url(base)?,
            token: token.to_owned(),
            agent: agent(),
        })
    }

    /// GET or POST `path`; a 401 becomes an error that says which token to send.
    pub fn call(&self, method: &str, path: &str) -> Result<Reply> {
        let url = format!("{}{path}", self.base);
        let auth = format!("Bearer {}", self.token);
        let body: Option<&[u8]> = (method == "POST").then_some(b"");
        let reply = request(
            &self.agent,
            method,
            &url,
            &[("authorization", auth.as_str())],
            body,
        )?;
        if reply.status == 401 {
            bail!(
                "{method} {url}: {} (check --token / HOOKONCE_ADMIN_TOKEN)",
                reply.describe()
            );
        }
        Ok(reply)
    }

    /// `call`, then a JSON 200 or an error naming the answer.
    pub fn json(&self, method: &str, path: &str) -> Result<Value> {
        let reply = self.call(method, path)?;
        match (reply.status, reply.json()) {
            (200, Some(v)) => Ok(v),
            _ => bail!("{method} {}{path}: {}", self.base, reply.describe()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![],
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_problem_is_described_by_its_slug_and_detail() {
        let r = reply(
            401,
            r#"{"type":"https://hookonce.dev/problems/invalid-signature","detail":"no signature matches"}"#,
        );
        assert_eq!(
            r.describe(),
            "HTTP 401 invalid-signature: no signature matches"
        );
        assert_eq!(reply(502, "").describe(), "HTTP 502");
        assert_eq!(reply(500, "oops\n").describe(), "HTTP 500: oops");
    }

    #[test]
    fn no_token_is_an_error_before_any_request() {
        let e = Admin::new("http://127.0.0.1:1", None).err().unwrap();
        assert!(e.to_string().contains("HOOKONCE_ADMIN_TOKEN"), "{e}");
    }
}
