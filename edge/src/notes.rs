//! Telling a source's feed what happened, off the path. Notes wait in a per-isolate queue,
//! and one flush at a time posts them, a batch per source and request: under load a feed
//! object takes one request per batch instead of one per delivery, which cost the worker
//! about 40% of its throughput (measured: 0.42x of the JS peer with a request per note,
//! 0.71x with none), and a flush lets notes gather for [`GATHER`] first. The flush runs in
//! the `waitUntil` of the request whose note found no flush running, and holds core's
//! [`FlushLease`] while it makes progress: if the runtime cancels it, the lease lapses and
//! a later note starts another (a batch taken when it was cancelled is lost). A flush also
//! hands over after a while, before the runtime would cancel it; the notes it leaves go
//! with the next note's flush. Callers hand
//! [`post`]'s promise, when it gives one, to `waitUntil` after they have their answer, so
//! the provider never waits for the feed, and a feed that fails is logged, never turned
//! into an error of the delivery.

use std::cell::RefCell;
use std::time::Duration;

use hookonce_core::feed::{Note, RejectWindow};
use hookonce_core::flush::{FlushId, FlushLease, Renewal};
use hookonce_core::log::{self, LogLevel};
use hookonce_core::small_map::SmallMap;
use hookonce_core::time::UnixSeconds;
use worker::{js_sys, Delay, Env, Headers};

use crate::internal::{FeedOp, FEED_BINDING};
use crate::{clock, http, logs, task};

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

/// Test builds only (`make test`'s probe build sets `HOOKONCE_STALL_PROBE`): a batch
/// holding the note of an event whose id ends with it never finishes sending, as a flush
/// whose request the runtime cancelled: never polled again, never dropped.
const STALL_PROBE: Option<&str> = option_env!("HOOKONCE_STALL_PROBE");

#[derive(Default)]
struct Queue {
    notes: SmallMap<String, Vec<Note>>,
    len: usize,
    /// Which flush empties the queue (core's lease: it lapses when its flush goes quiet).
    lease: FlushLease,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::new(Queue::default());
}

/// Queues `note` for the feed object of `source`. If no flush holds the lease (none runs,
/// or the one that ran has gone quiet: its request was cancelled), returns the promise of
/// a new flush that empties the queue (run on `task`'s executor), for the caller to
/// `waitUntil`; otherwise `None`: the running flush takes the note. Failures are logged at
/// `error`.
pub fn post(env: &Env, source: String, note: Note, log: LogLevel) -> Option<js_sys::Promise> {
    let flush_id = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        if q.len >= QUEUE_MAX {
            logs::emit(
                log,
                log::failure("feed_note_dropped", &source, "the queue is full"),
            );
        } else {
            q.notes.get_or_insert_with(source, Vec::new).push(note);
            q.len += 1;
        }
        q.lease.take(clock::millis())
    })?;
    let env = env.clone();
    Some(task::detach(
        async move { flush(&env, flush_id, log).await },
    ))
}

/// Gives the lease back when a flush ends or is dropped. A flush the runtime cancels is
/// neither: its lease lapses instead (core's `FLUSH_STALL_MS`).
struct Holding(FlushId);

impl Drop for Holding {
    fn drop(&mut self) {
        QUEUE.with(|q| q.borrow_mut().lease.release(self.0));
    }
}

/// Posts batches until the queue is empty, letting notes gather before each one unless
/// the last was full; renews its lease before each batch, and stops once it has handed
/// over or been taken over.
async fn flush(env: &Env, id: FlushId, log: LogLevel) {
    let _hold = Holding(id);
    let mut full = false;
    loop {
        if !full {
            Delay::from(GATHER).await;
        }
        let next = QUEUE.with(|q| {
            let mut q = q.borrow_mut();
            if q.lease.renew(id, clock::millis()) != Renewal::Go {
                return None;
            }
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
        if stalls(&batch) {
            let never = js_sys::Promise::new(&mut |_, _| {});
            let _ = task::wait(never).await;
        }
        send(env, &source, &batch, log).await;
    }
}

/// Whether this is the probe build and `batch` holds the probe's note.
fn stalls(batch: &[Note]) -> bool {
    STALL_PROBE.is_some_and(|marker| {
        batch
            .iter()
            .any(|n| matches!(n, Note::Delivery { event_id, .. } if event_id.ends_with(marker)))
    })
}

async fn send(env: &Env, source: &str, batch: &[Note], log: LogLevel) {
    let failed = |e: String| logs::emit(log, log::failure("feed_write_failed", source, &e));
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
