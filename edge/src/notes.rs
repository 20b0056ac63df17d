//! Telling a source's feed what happened, off the path. Notes wait in a per-isolate queue,
//! and one flush at a time posts them, a batch per source and request: under load a feed
//! object takes one request per batch instead of one per delivery, which cost the worker
//! about 40% of its throughput (measured: 0.42x of the JS peer with a request per note,
//! 0.71x with none), and a flush lets notes gather for [`GATHER`] first. Callers hand
//! [`post`]'s promise, when it gives one, to `waitUntil` after they have their answer, so
//! the provider never waits for the feed, and a feed that fails is logged, never turned
//! into an error of the delivery.

use std::cell::RefCell;
use std::time::Duration;

use hookonce_core::{failure_log, LogLevel, Note, RejectWindow, SmallMap, UnixSeconds};
use worker::{js_sys, Delay, Env, Headers};

use crate::internal::{FeedOp, FEED_BINDING};
use crate::{http, logs, task};

/// The most notes one request to a feed object carries.
const BATCH: usize = 500;
/// How long a flush lets notes gather before each request to a feed object. Under load
/// a request per few notes cost about a fifth of the worker's throughput (hot: 1,344
/// events/s without notes against 1,122 with, bench/quick.sh); gathered for this long,
/// a busy isolate sends a few requests a second. The feed is that much behind.
const GATHER: Duration = Duration::from_millis(200);
/// The most notes an isolate holds for feeds that do not keep up; beyond it, new notes
/// are dropped (and logged), so a stuck feed cannot grow the isolate's memory.
const QUEUE_MAX: usize = 10_000;

#[derive(Default)]
struct Queue {
    notes: SmallMap<String, Vec<Note>>,
    len: usize,
    flushing: bool,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::new(Queue::default());
}

/// Queues `note` for the feed object of `source`. If no flush is running in this
/// isolate, returns the promise of the flush that empties the queue (run on `task`'s
/// executor), for the caller to `waitUntil`;
/// otherwise `None`: the running flush takes the note, and nothing more is handed to the
/// runtime. Failures are logged at `error`.
pub fn post(env: &Env, source: String, note: Note, log: LogLevel) -> Option<js_sys::Promise> {
    let flusher = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        if q.len >= QUEUE_MAX {
            logs::emit(
                log,
                failure_log("feed_note_dropped", &source, "the queue is full"),
            );
        } else {
            q.notes.get_or_insert_with(source, Vec::new).push(note);
            q.len += 1;
        }
        !std::mem::replace(&mut q.flushing, true)
    });
    let env = flusher.then(|| env.clone())?;
    Some(task::detach(async move { flush(&env, log).await }))
}

/// Clears the flushing mark however the flush ends, even if the runtime drops it.
struct Flushing;

impl Drop for Flushing {
    fn drop(&mut self) {
        QUEUE.with(|q| q.borrow_mut().flushing = false);
    }
}

/// Posts batches until the queue is empty, letting notes gather before each one unless
/// the last was full.
async fn flush(env: &Env, log: LogLevel) {
    let _mark = Flushing;
    let mut full = false;
    loop {
        if !full {
            Delay::from(GATHER).await;
        }
        let next = QUEUE.with(|q| {
            let mut q = q.borrow_mut();
            let source = q.notes.keys().next()?.clone();
            let pending = q.notes.get_mut(&source)?;
            let batch: Vec<Note> = pending.drain(..pending.len().min(BATCH)).collect();
            if pending.is_empty() {
                q.notes.remove(&source);
            }
            q.len -= batch.len();
            Some((source, batch))
        });
        let Some((source, batch)) = next else {
            return;
        };
        full = batch.len() == BATCH;
        send(env, &source, &batch, log).await;
    }
}

async fn send(env: &Env, source: &str, batch: &[Note], log: LogLevel) {
    let failed = |e: String| logs::emit(log, failure_log("feed_write_failed", source, &e));
    let Ok(body) = serde_json::to_vec(batch) else {
        return failed("the notes do not serialise".into());
    };
    let headers = Headers::new();
    if headers.set("content-type", "application/json").is_err() {
        return failed("headers".into());
    }
    let url = FeedOp::Notes.url();
    match http::post_to_object(env, FEED_BINDING, source, &url, headers, &body).await {
        Ok(resp) if (200..300).contains(&resp.status_code()) => {}
        Ok(resp) => failed(format!("the feed answered {}", resp.status_code())),
        Err(e) => failed(e.to_string()),
    }
}

thread_local! {
    /// Per source: this isolate's rejected-request window, and how many it did not pass on.
    static REJECTED: RefCell<SmallMap<String, (RejectWindow, u32)>> =
        const { RefCell::new(SmallMap::new()) };
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
        let (window, skipped) = m.get_or_insert_with(source.to_owned(), Default::default);
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
