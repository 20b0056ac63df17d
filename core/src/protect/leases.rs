//! The slots: leases out now, the per-second count, and the entities waiting their turn.

use std::collections::VecDeque;

use crate::time::{Seconds, UnixSeconds};

/// A grant's handle, returned with the attempt's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LeaseId(pub u64);

/// A waiter that has not asked again this long after the instant it was told to is taken
/// to have gone (its object was evicted, its row finished another way) and loses its
/// turn: alarms fire within a second or two of their time, and a turn held by an entity
/// that is not coming back keeps a free slot idle.
pub const TURN_GRACE: Seconds = Seconds(5);

/// How long after being told to wait a waiter asks again unless woken first: its turn
/// normally comes by a wake ([`Leases::wake`]) when a slot or the probe is free, so this is
/// only the fallback for a wake that was lost. Long, so that a thousand waiting entities
/// cost the gate about 33 asks a second, not a thousand: each waiter asking every second
/// swamped the gate object at that size, and the probe's own result came back too late.
pub const LINE_POLL: Seconds = Seconds(30);

/// Over how many seconds the waiters of an open or probing breaker come back, one second
/// apart per place in line, unless woken first. The line lives in the gate object's memory:
/// an object evicted while the breaker is open has nobody to wake at the probe's time, and
/// then its waiters come back spread out rather than all in the same second.
pub const SHUT_SPREAD: u32 = 10;

/// Waiters kept in line at most; beyond, an entity still waits but holds no turn. Bounds
/// what a flood of entities makes the destination's state hold.
pub const MAX_WAITING: usize = 4_096;

/// A lease out now.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Held<K> {
    id: LeaseId,
    entity: K,
    until: UnixSeconds,
    /// The attempts it covers, all counted against the rate of the second it was granted.
    rows: u32,
    /// That second.
    second: i64,
}

/// An entity told to wait for a slot, in the order they first asked.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Waiter<K> {
    entity: K,
    /// When it was told to ask again.
    due: UnixSeconds,
    /// Whether it was woken for a free slot since it was last told to wait.
    woken: bool,
}

/// The leases of one destination and its line of waiters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Leases<K> {
    held: Vec<Held<K>>,
    waiting: VecDeque<Waiter<K>>,
    /// The second `granted` counts for.
    second: i64,
    granted: u32,
    next: u64,
}

impl<K: Clone + Eq> Leases<K> {
    /// Lease ids start from `now` shifted left, so the ids of a state rebuilt after a
    /// restart do not meet a late report of an earlier one's leases; they stay below 2^53,
    /// exact as a JSON or JavaScript number, until the 23rd century.
    pub(super) fn new(now: UnixSeconds) -> Leases<K> {
        Leases {
            held: Vec::new(),
            waiting: VecDeque::new(),
            second: now.0,
            granted: 0,
            next: u64::try_from(now.0).unwrap_or(0) << 20,
        }
    }

    /// Leases whose `until` has come: their slots free; their ids and expiry for the
    /// breaker.
    pub(super) fn expire(&mut self, now: UnixSeconds, mut lost: impl FnMut(LeaseId, UnixSeconds)) {
        self.held.retain(|h| {
            let live = now < h.until;
            if !live {
                lost(h.id, h.until);
            }
            live
        });
    }

    /// Ends `entity`'s lease, if it holds one: an entity makes one attempt to a
    /// destination at a time, so asking again means its last attempt is over or lost.
    pub(super) fn release_entity(&mut self, entity: &K) -> Option<LeaseId> {
        let i = self.held.iter().position(|h| &h.entity == entity)?;
        Some(self.held.swap_remove(i).id)
    }

    /// Ends `lease` if `entity` holds it, after `used` of its attempts: the rows it did
    /// not use go back to the rate if their second is still the current one. The rows it
    /// covered, or `None` if `entity` holds no such lease.
    pub(super) fn release(&mut self, lease: LeaseId, entity: &K, used: u32) -> Option<u32> {
        let i = self
            .held
            .iter()
            .position(|h| h.id == lease && &h.entity == entity)?;
        let held = self.held.swap_remove(i);
        if held.second == self.second {
            self.granted = self
                .granted
                .saturating_sub(held.rows.saturating_sub(used.max(1)));
        }
        Some(held.rows)
    }

    pub(super) fn in_flight(&self) -> u32 {
        u32::try_from(self.held.len()).unwrap_or(u32::MAX)
    }

    /// Grants left this second under `per_second`.
    pub(super) fn rate_left(&self, per_second: Option<u32>, now: UnixSeconds) -> u32 {
        match per_second {
            None => u32::MAX,
            Some(_) if now.0 != self.second => per_second.unwrap_or(u32::MAX),
            Some(n) => n.saturating_sub(self.granted),
        }
    }

    /// Whether `entity` may take one of `free` slots now: it may if fewer than `free`
    /// waiters that are still coming back stand before it (it then leaves the line).
    /// Otherwise the caller keeps or gives it its place ([`Leases::queue`]).
    pub(super) fn take_turn(&mut self, entity: &K, free: u32, now: UnixSeconds) -> bool {
        self.waiting.retain(|w| now <= w.due.plus(TURN_GRACE));
        let place = self.waiting.iter().position(|w| &w.entity == entity);
        let ahead = place.unwrap_or(self.waiting.len());
        if ahead < usize::try_from(free).unwrap_or(usize::MAX) {
            if let Some(i) = place {
                self.waiting.remove(i);
            }
            return true;
        }
        false
    }

    /// Where `entity` stands or would stand in line, from 0.
    pub(super) fn place(&self, entity: &K) -> usize {
        self.waiting
            .iter()
            .position(|w| &w.entity == entity)
            .unwrap_or(self.waiting.len())
    }

    /// `entity` keeps or takes its place in line, due back at `due` unless woken first.
    pub(super) fn queue(&mut self, entity: &K, due: UnixSeconds) {
        match self.waiting.iter().position(|w| &w.entity == entity) {
            Some(i) => {
                self.waiting[i].due = due;
                self.waiting[i].woken = false;
            }
            None if self.waiting.len() < MAX_WAITING => self.waiting.push_back(Waiter {
                entity: entity.clone(),
                due,
                woken: false,
            }),
            None => {}
        }
    }

    /// The first waiter, among the first `free`, not woken yet: it is woken now, and due
    /// now, so that one that does not come loses its turn [`TURN_GRACE`] later.
    pub(super) fn wake(&mut self, free: u32, now: UnixSeconds) -> Option<K> {
        let free = usize::try_from(free).unwrap_or(usize::MAX);
        // A waiter gone past its grace holds no turn, nor a place among the first `free`.
        self.waiting.retain(|w| now <= w.due.plus(TURN_GRACE));
        let w = self
            .waiting
            .iter_mut()
            .take(free)
            .find(|w| !w.woken && now <= w.due.plus(TURN_GRACE))?;
        w.woken = true;
        w.due = now;
        Some(w.entity.clone())
    }

    /// Nobody waits for a turn: an operator paused.
    pub(super) fn clear_line(&mut self) {
        self.waiting.clear();
    }

    pub(super) fn waiting(&self) -> u32 {
        u32::try_from(self.waiting.len()).unwrap_or(u32::MAX)
    }

    /// A new lease for `entity` covering `rows` attempts, each counted against this
    /// second's rate; it leaves the line.
    pub(super) fn grant(
        &mut self,
        entity: &K,
        until: UnixSeconds,
        rows: u32,
        now: UnixSeconds,
    ) -> LeaseId {
        if let Some(i) = self.waiting.iter().position(|w| &w.entity == entity) {
            self.waiting.remove(i);
        }
        self.next = self.next.wrapping_add(1);
        let id = LeaseId(self.next);
        if now.0 != self.second {
            self.second = now.0;
            self.granted = 0;
        }
        self.held.push(Held {
            id,
            entity: entity.clone(),
            until,
            rows,
            second: self.second,
        });
        self.granted = self.granted.saturating_add(rows);
        id
    }

    /// When the earliest lease expires.
    pub(super) fn earliest_expiry(&self) -> Option<UnixSeconds> {
        self.held.iter().map(|h| h.until).min()
    }
}
