//! Telling a source's feed what happened, off the path. Callers hand [`post`]'s future to
//! `wait_until` after they have their answer, so the provider never waits for the feed,
//! and a feed that fails is logged, never turned into an error of the delivery.

use std::cell::RefCell;
use std::collections::BTreeMap;

use hookonce_core::{failure_log, LogLevel, Note, RejectWindow, UnixSeconds};
use worker::{Env, Headers};

use crate::internal::{FeedOp, FEED_BINDING};
use crate::{http, logs};

/// Posts `note` to the feed object of `source`; failures are logged at `error`.
pub async fn post(env: Env, source: String, note: Note, log: LogLevel) {
    let failed = |e: String| logs::emit(log, failure_log("feed_write_failed", &source, &e));
    let Ok(body) = serde_json::to_vec(&note) else {
        return failed("the note does not serialise".into());
    };
    let headers = Headers::new();
    if headers.set("content-type", "application/json").is_err() {
        return failed("headers".into());
    }
    let url = FeedOp::Note.url();
    match http::post_to_object(&env, FEED_BINDING, &source, &url, headers, &body).await {
        Ok(resp) if (200..300).contains(&resp.status_code()) => {}
        Ok(resp) => failed(format!("the feed answered {}", resp.status_code())),
        Err(e) => failed(e.to_string()),
    }
}

thread_local! {
    /// Per source: this isolate's rejected-request window, and how many it did not pass on.
    static REJECTED: RefCell<BTreeMap<String, (RejectWindow, u32)>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// The note for a rejected delivery, if this isolate's sample lets it through; otherwise
/// it is counted and the count rides on the next note that goes (`skipped`). So a flood
/// costs the feed at most `per_minute` requests per isolate and minute.
pub fn rejected(
    source: &str,
    status: u16,
    reason: &str,
    now: UnixSeconds,
    per_minute: u32,
) -> Option<Note> {
    REJECTED.with(|m| {
        let mut m = m.borrow_mut();
        let (window, skipped) = m.entry(source.to_owned()).or_default();
        let (admitted, next) = window.admit(now, per_minute, 0);
        *window = next;
        if !admitted {
            *skipped += 1;
            return None;
        }
        Some(Note::Rejected {
            status,
            reason: reason.to_owned(),
            received_at: now.0,
            skipped: std::mem::take(skipped),
        })
    })
}
