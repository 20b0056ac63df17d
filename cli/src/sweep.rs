//! `requeue` and `backfill` across a whole source: the admin API answers one page of
//! entities per request with its counts and the `next` cursor; this loops over the pages,
//! prints each one's progress on stderr as it comes, and sums the counts.

use anyhow::Result;
use serde_json::Value;

use crate::http::Admin;
use crate::input::escape;

/// Adds `page` into `total`: numbers add up, objects key by key, lists are appended; any
/// other value is the page's.
pub fn add(total: &mut Value, page: &Value) {
    match (total, page) {
        (Value::Number(t), Value::Number(p)) => {
            let sum = t.as_u64().unwrap_or_default() + p.as_u64().unwrap_or_default();
            *t = sum.into();
        }
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(slot) => add(slot, v),
                    None => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Array(t), Value::Array(p)) => t.extend(p.iter().cloned()),
        (t, p) => *t = p.clone(),
    }
}

/// POSTs `path` (which has a query) page after page until the answer has no `next`,
/// calling `progress` with each page's number and answer; returns the answers summed
/// ([`add`]), without `next`.
pub fn pages(
    api: &Admin,
    what: &str,
    path: &str,
    mut progress: impl FnMut(usize, &Value),
) -> Result<Value> {
    let mut total = Value::Null;
    let mut cursor: Option<String> = None;
    for n in 1.. {
        let page_path = match &cursor {
            Some(c) => format!("{path}&cursor={}", escape(c)),
            None => path.to_owned(),
        };
        let page = crate::resend::post(api, what, &page_path)?;
        progress(n, &page);
        cursor = page["next"].as_str().map(str::to_owned);
        match total {
            Value::Null => total = page,
            _ => add(&mut total, &page),
        }
        if cursor.is_none() {
            break;
        }
    }
    if let Some(t) = total.as_object_mut() {
        t.remove("next");
    }
    Ok(total)
}

/// `analytics 1, billing 3` from an object of counts, in name order.
pub fn per_destination(counts: &Value) -> String {
    let mut parts: Vec<String> = (counts.as_object().into_iter().flatten())
        .map(|(name, n)| format!("{name} {}", n.as_u64().unwrap_or_default()))
        .collect();
    parts.sort();
    parts.join(", ")
}

/// The lines naming the entities whose objects failed, with what they answered.
pub fn failures(total: &Value) -> String {
    let mut lines = String::new();
    for f in total["failed"].as_array().into_iter().flatten() {
        lines.push_str(&format!(
            "\n{}: not done (HTTP {}): {}",
            f["entity"].as_str().unwrap_or("?"),
            f["status"],
            f["detail"].as_str().unwrap_or_default()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_add_up_count_by_count_and_list_by_list() {
        let mut total = json!({
            "entities": 2, "matched": 3, "destinations": { "billing": 3 },
            "failed": [], "dry_run": true, "next": "a"
        });
        add(
            &mut total,
            &json!({
                "entities": 1, "matched": 2, "destinations": { "billing": 1, "audit": 1 },
                "failed": [{ "entity": "e" }], "dry_run": true, "next": null
            }),
        );
        assert_eq!(
            total,
            json!({
                "entities": 3, "matched": 5, "destinations": { "billing": 4, "audit": 1 },
                "failed": [{ "entity": "e" }], "dry_run": true, "next": null
            })
        );
        assert_eq!(
            per_destination(&total["destinations"]),
            "audit 1, billing 4"
        );
    }
}
