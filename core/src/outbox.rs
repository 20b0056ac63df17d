//! Step 7 of the flow, forward: the outbox lifecycle. A row is `Pending` until an attempt
//! delivers it or it is given up on (`Dead`); an operator can requeue a dead row.
//!
//! One entity's rows go out in `seq` order, head of line first, as the object's
//! [`Drain`](crate::drain::Drain) sequences it (a bucket's, whose events have no order among them,
//! each due row in turn: [`Order`]):
//! 1. read the head (the first pending row) and ask [`step`] what is due at `now`;
//! 2. for [`Step::Send`], send the stored body to the [`Target`] (a signed POST to a URL or
//!    through a service binding, or a queue message) and classify what happened;
//! 3. write what [`after_attempt`] returns, **make it durable**, and go back to 1.
//!
//! Because each row's result is durable before the next row is sent, a crash can only
//! ever re-send the head row: an older event is never sent after a newer one's first send.

use std::fmt;

use crate::config::{Destination, SourceConfig, DEFAULT_DESTINATION, DEFAULT_FORWARD_TIMEOUT};
use crate::forward::MAX_QUEUE_MESSAGE;
use crate::retry::{AttemptResult, DeadReason, Next, Schedule};
use crate::time::{Seconds, UnixSeconds};

/// Where a row is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutboxStatus {
    /// Waiting for its next attempt.
    Pending,
    /// The destination took it (2xx).
    Delivered,
    /// Given up on; an operator may requeue it.
    Dead,
    /// Never sent: a newer snapshot of its entity, pending for the same destination, went
    /// in its place (`deliver = "latest"`).
    Superseded,
}

impl OutboxStatus {
    /// The stored and reported name.
    pub fn as_str(self) -> &'static str {
        match self {
            OutboxStatus::Pending => "pending",
            OutboxStatus::Delivered => "delivered",
            OutboxStatus::Dead => "dead",
            OutboxStatus::Superseded => "superseded",
        }
    }
}

impl fmt::Display for OutboxStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which pending row an object sends next ([`crate::names::order_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge reads or chooses differently for each variant; a new one must fail its build.
pub enum Order {
    /// The first pending row in `seq` order; the rows after it wait while it waits, so
    /// they go out in order.
    HeadOfLine,
    /// Each due row in `seq` order, once per pass; a row that waits for its retry holds
    /// back none of the others.
    EachDue,
}

/// The first pending row of an entity's outbox, as the store holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// Its position; rows go out in this order.
    pub seq: i64,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the first attempt was made, if one was.
    pub first_attempt_at: Option<UnixSeconds>,
    /// When the next attempt is due.
    pub next_attempt_at: UnixSeconds,
}

/// Which keys sign a row. A published message and a forwarded provider event never share
/// a key, so neither verifies as the other at the receiver; each destination has its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge reads or chooses differently for each variant; a new one must fail its build.
pub enum SigningKey<'a> {
    /// The secrets of the source's destination of this name (its `secrets` bindings,
    /// newest first): events forwarded from a source.
    Destination(&'a str),
    /// `HOOKONCE_PUBLISH_SECRET`: messages from the publish API.
    Publish,
}

/// Where and how a row is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target<'a> {
    /// Which keys sign it.
    pub key: SigningKey<'a>,
    /// The destination: a URL, a service binding or a queue binding.
    pub destination: Destination<&'a str>,
    /// What follows a failed attempt.
    pub schedule: &'a Schedule,
    /// How long one attempt may take.
    pub timeout: Seconds,
}

/// The default schedule, for rows that carry their own destination (published messages).
static DEFAULT_SCHEDULE: std::sync::OnceLock<Schedule> = std::sync::OnceLock::new();

/// Where a row goes: its own URL (a published message, default policy), or its source's
/// destination `named` ([`DEFAULT_DESTINATION`] for a row that names none). Why it can
/// never be sent when neither exists: [`DeadReason::DestinationRemoved`] for a destination
/// its source no longer has, [`DeadReason::Unsendable`] for a source that is gone.
pub fn target<'a>(
    own_url: Option<&'a str>,
    source: Option<&'a SourceConfig>,
    named: Option<&str>,
) -> Result<Target<'a>, DeadReason> {
    if let Some(url) = own_url {
        return Ok(Target {
            key: SigningKey::Publish,
            destination: Destination::Url(url),
            schedule: DEFAULT_SCHEDULE.get_or_init(Schedule::default),
            timeout: DEFAULT_FORWARD_TIMEOUT,
        });
    }
    let source = source.ok_or(DeadReason::Unsendable)?;
    let d = source
        .destination(named.unwrap_or(DEFAULT_DESTINATION))
        .ok_or(DeadReason::DestinationRemoved)?;
    Ok(Target {
        key: SigningKey::Destination(&d.name),
        destination: d.forward.destination.as_deref(),
        schedule: &d.forward.schedule,
        timeout: d.forward.timeout,
    })
}

/// What is due for the head row at `now`; `T` is what sending it takes.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step<T> {
    /// Nothing before this instant: set the alarm for it.
    WaitUntil(UnixSeconds),
    /// Send it now, as attempt number `attempt` (1 for the first).
    Send {
        /// The attempt's number, for the `hookonce-attempt` header.
        attempt: u32,
        /// What to send it with.
        via: T,
    },
    /// It can never be sent (its destination was removed, or its body is gone): write this.
    Dead(Transition),
}

/// A row's change of state: one SQL `UPDATE` in the adapter.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Transition {
    /// The row is done: delivered or dead.
    Finish {
        /// The row.
        seq: i64,
        /// `Delivered` or `Dead`.
        status: OutboxStatus,
        /// Attempts made, this one included.
        attempts: u32,
        /// When the first attempt was made.
        first_attempt_at: UnixSeconds,
        /// What happened, for the read API.
        result: String,
        /// When it finished.
        at: UnixSeconds,
    },
    /// The row stays pending, to be tried again at `next_attempt_at`.
    Retry {
        /// The row.
        seq: i64,
        /// Attempts made, this one included.
        attempts: u32,
        /// When the first attempt was made.
        first_attempt_at: UnixSeconds,
        /// When to try again.
        next_attempt_at: UnixSeconds,
        /// What happened, for the read API.
        result: String,
    },
    /// The row is done without being sent again: a newer snapshot goes in its place.
    Supersede {
        /// The row.
        seq: i64,
        /// The id of the event whose row goes in its place, for the read API.
        by: String,
        /// When it was superseded.
        at: UnixSeconds,
    },
}

impl Transition {
    /// The status the row ends up in.
    pub fn status(&self) -> OutboxStatus {
        match self {
            Transition::Finish { status, .. } => *status,
            Transition::Retry { .. } => OutboxStatus::Pending,
            Transition::Supersede { .. } => OutboxStatus::Superseded,
        }
    }
}

/// What is due for `head` at `now`; `sendable` is what sending takes (a target, a body),
/// or why it can never be sent when some of it is gone.
pub fn step<T>(head: &Head, sendable: Result<T, DeadReason>, now: UnixSeconds) -> Step<T> {
    if head.next_attempt_at > now {
        return Step::WaitUntil(head.next_attempt_at);
    }
    let via = match sendable {
        Ok(via) => via,
        Err(reason) => {
            return Step::Dead(Transition::Finish {
                seq: head.seq,
                status: OutboxStatus::Dead,
                attempts: head.attempts,
                first_attempt_at: head.first_attempt_at.unwrap_or(now),
                result: match reason {
                    DeadReason::DestinationRemoved => reason.to_string(),
                    _ => "cannot be sent: no destination or body".into(),
                },
                at: now,
            })
        }
    };
    Step::Send {
        attempt: head.attempts.saturating_add(1),
        via,
    }
}

/// What follows an attempt on `head` that came to `result`. `now` should be rounded up, so
/// a wait computed from it never ends early; `jitter` is uniform in `0..=1000`.
pub fn after_attempt(
    head: &Head,
    schedule: &Schedule,
    result: &AttemptResult,
    now: UnixSeconds,
    jitter: u16,
) -> Transition {
    after_attempt_within(
        head,
        schedule,
        result,
        head.first_attempt_at.unwrap_or(now),
        now,
        jitter,
    )
}

/// [`after_attempt`], with the retry window counted from `window_start` rather than the
/// row's first attempt: a gated row's window starts when its destination was last healthy
/// (`gate::window_start`), so an outage spends none of it.
/// The row keeps its first attempt's time.
pub fn after_attempt_within(
    head: &Head,
    schedule: &Schedule,
    result: &AttemptResult,
    window_start: UnixSeconds,
    now: UnixSeconds,
    jitter: u16,
) -> Transition {
    let attempts = head.attempts.saturating_add(1);
    let first_attempt_at = head.first_attempt_at.unwrap_or(now);
    let finish = |status, result: String| Transition::Finish {
        seq: head.seq,
        status,
        attempts,
        first_attempt_at,
        result,
        at: now,
    };
    match schedule.next(attempts, result, window_start, now, jitter) {
        Next::Delivered => finish(OutboxStatus::Delivered, result.to_string()),
        Next::DeadLetter(reason) => finish(OutboxStatus::Dead, dead_reason(result, reason)),
        Next::RetryAt(at) => Transition::Retry {
            seq: head.seq,
            attempts,
            first_attempt_at,
            next_attempt_at: at,
            result: result.to_string(),
        },
    }
}

fn dead_reason(result: &AttemptResult, reason: DeadReason) -> String {
    format!("{result}: {reason}")
}

impl fmt::Display for AttemptResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptResult::Status { code, .. } => write!(f, "http {code}"),
            AttemptResult::Timeout => f.write_str("timeout"),
            AttemptResult::NetworkError => f.write_str("network error"),
            AttemptResult::Enqueued => f.write_str("enqueued"),
            AttemptResult::QueueError => f.write_str("queue send failed"),
            AttemptResult::Redirect { code, location } => write!(
                f,
                "http {code} redirect to {}, not followed",
                location.as_deref().unwrap_or("(no location)")
            ),
            AttemptResult::TooLarge { bytes } => write!(
                f,
                "queue message of {bytes} bytes (at most {MAX_QUEUE_MESSAGE})"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(attempts: u32, next: i64) -> Head {
        Head {
            seq: 7,
            attempts,
            first_attempt_at: (attempts > 0).then_some(UnixSeconds(100)),
            next_attempt_at: UnixSeconds(next),
        }
    }

    #[test]
    fn a_row_not_yet_due_waits_for_its_time() {
        assert_eq!(
            step(&head(1, 200), Ok(()), UnixSeconds(150)),
            Step::WaitUntil(UnixSeconds(200))
        );
    }

    #[test]
    fn a_due_row_is_sent_as_the_next_attempt() {
        assert_eq!(
            step(&head(2, 100), Ok(()), UnixSeconds(150)),
            Step::Send {
                attempt: 3,
                via: ()
            }
        );
    }

    #[test]
    fn a_row_that_cannot_be_sent_is_dead_with_the_reason() {
        let Step::Dead(t) =
            step::<()>(&head(0, 100), Err(DeadReason::Unsendable), UnixSeconds(150))
        else {
            panic!("expected dead");
        };
        assert_eq!(t.status(), OutboxStatus::Dead);
    }

    #[test]
    fn a_2xx_delivers_a_410_kills_and_anything_else_retries() {
        let s = Schedule::default();
        let now = UnixSeconds(150);
        let status = |code| AttemptResult::Status {
            code,
            retry_after: None,
        };
        let h = head(0, 100);
        assert_eq!(
            after_attempt(&h, &s, &status(204), now, 500).status(),
            OutboxStatus::Delivered
        );
        assert_eq!(
            after_attempt(&h, &s, &status(410), now, 500).status(),
            OutboxStatus::Dead
        );
        let Transition::Retry {
            attempts,
            first_attempt_at,
            next_attempt_at,
            ..
        } = after_attempt(&h, &s, &AttemptResult::Timeout, now, 500)
        else {
            panic!("expected a retry");
        };
        assert_eq!(
            (attempts, first_attempt_at, next_attempt_at),
            (1, now, UnixSeconds(155))
        );
    }

    #[test]
    fn a_published_message_uses_its_own_destination_and_the_default_policy() {
        let t = target(Some("https://app.example/hook"), None, None).unwrap();
        assert_eq!(t.destination, Destination::Url("https://app.example/hook"));
        assert_eq!(t.key, SigningKey::Publish);
        assert_eq!(t.schedule, &Schedule::default());
        assert_eq!(target(None, None, None), Err(DeadReason::Unsendable));
    }
}
