//! Who flushes an isolate's queued feed notes: a lease with a deadline, never a flag.
//!
//! The flush runs in the `waitUntil` of the request that started it. The runtime may
//! cancel that work (Cloudflare does 30 s after the response), and a cancelled future is
//! never polled again nor dropped: a flag it would clear on drop stays set, and the isolate
//! writes no more notes. So the flush holds a lease that it renews each time it makes
//! progress; one that has not reported progress for [`FLUSH_STALL_MS`] has lapsed, and the
//! next note starts a new flush that takes over. A flush also hands over after
//! [`FLUSH_RUN_MS`], well before the runtime would cancel it, so under steady load the
//! work moves from request to request instead of waiting for a lease to lapse.

/// How long a flush may go without reporting progress before another takes over. A
/// batch to a feed object takes milliseconds; this is that times a thousand.
pub const FLUSH_STALL_MS: u64 = 10_000;
/// How long one flush runs before it hands over: less than the 30 s Cloudflare grants a
/// `waitUntil` after its response.
pub const FLUSH_RUN_MS: u64 = 20_000;

/// One flush's hold on the lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushId(u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    id: FlushId,
    started_ms: u64,
    renewed_ms: u64,
}

/// The isolate's flush lease.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlushLease {
    held: Option<Held>,
    next: u64,
}

/// What a flush does after it renewed (or failed to renew) its lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Renewal {
    /// Still the flusher: go on.
    Go,
    /// Ran its time: the lease is released; stop, and the next note starts a new flush.
    HandOver,
    /// Another flush took over after this one went quiet: stop without touching the queue.
    Lost,
}

impl FlushLease {
    /// A note was queued at `now_ms`: a new flush to start, if none holds a live lease.
    pub fn take(&mut self, now_ms: u64) -> Option<FlushId> {
        if let Some(held) = self.held {
            if now_ms.saturating_sub(held.renewed_ms) < FLUSH_STALL_MS {
                return None;
            }
        }
        let id = FlushId(self.next);
        self.next += 1;
        self.held = Some(Held {
            id,
            started_ms: now_ms,
            renewed_ms: now_ms,
        });
        Some(id)
    }

    /// Flush `id` made progress at `now_ms` and is about to take more from the queue.
    pub fn renew(&mut self, id: FlushId, now_ms: u64) -> Renewal {
        match &mut self.held {
            Some(held) if held.id == id => {
                if now_ms.saturating_sub(held.started_ms) >= FLUSH_RUN_MS {
                    self.held = None;
                    return Renewal::HandOver;
                }
                held.renewed_ms = now_ms;
                Renewal::Go
            }
            _ => Renewal::Lost,
        }
    }

    /// Flush `id` ended (the queue is empty, or it was dropped): the lease is free, unless
    /// another flush holds it by now.
    pub fn release(&mut self, id: FlushId) {
        if self.held.is_some_and(|h| h.id == id) {
            self.held = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_flush_at_a_time_while_it_makes_progress() {
        let mut l = FlushLease::default();
        let a = l.take(0).expect("the first note starts a flush");
        assert_eq!(l.take(1), None);
        assert_eq!(l.renew(a, 5_000), Renewal::Go);
        assert_eq!(l.take(FLUSH_STALL_MS + 4_999), None, "renewed at 5 s");
        l.release(a);
        assert!(l.take(FLUSH_STALL_MS + 5_000).is_some(), "released");
    }

    #[test]
    fn a_flush_that_went_quiet_is_taken_over_and_then_stops() {
        let mut l = FlushLease::default();
        let stuck = l.take(1_000).unwrap();
        assert_eq!(l.take(1_000 + FLUSH_STALL_MS - 1), None);
        let next = l.take(1_000 + FLUSH_STALL_MS).expect("the lease lapsed");
        assert_ne!(stuck, next);
        assert_eq!(l.renew(stuck, 99_999), Renewal::Lost);
        l.release(stuck);
        assert_eq!(l.renew(next, 1_000 + FLUSH_STALL_MS + 1), Renewal::Go);
    }

    #[test]
    fn a_flush_hands_over_after_its_run_time() {
        let mut l = FlushLease::default();
        let a = l.take(0).unwrap();
        assert_eq!(l.renew(a, FLUSH_RUN_MS - 1), Renewal::Go);
        assert_eq!(l.renew(a, FLUSH_RUN_MS), Renewal::HandOver);
        assert!(l.take(FLUSH_RUN_MS).is_some(), "free at once");
        assert_eq!(l.renew(a, FLUSH_RUN_MS + 1), Renewal::Lost);
    }

    #[test]
    fn a_clock_that_steps_back_never_frees_a_live_lease() {
        let mut l = FlushLease::default();
        let a = l.take(10_000).unwrap();
        assert_eq!(l.take(0), None);
        assert_eq!(l.renew(a, 0), Renewal::Go);
    }
}
