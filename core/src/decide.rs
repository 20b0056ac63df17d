//! Step 4 of the flow: given what the entity's store holds, what happens to this event,
//! and exactly which rows that writes.
//!
//! The adapter reads [`Stored`] with point queries, calls [`decide`], and carries out each
//! [`Write`] of the [`Decision`] with one SQL statement, in the same synchronous unit as
//! the reads. A duplicate is an outcome, not an error, and it writes nothing.
//!
//! ## Per-entity order in synchronous mode
//! An entity has at most one [`Claim`]. While it is live, every other event of the entity
//! is [`Decision::InFlight`] (409, `Retry-After`), so the application never receives two
//! forwards of one entity at once, and never an older one after a newer one. Staleness is
//! judged against the newest version applied *or* ever claimed: a call that failed, or
//! whose holder died, may still have reached the application, so an event older than it
//! is never forwarded.
//! An expired claim is taken over, so a crash never strands the entity.

use std::fmt;

use crate::config::{DestinationConfig, FieldSource, ForwardMode, SourceConfig};
use crate::event::{Effect, Event, EventId, EventType, Version};
use crate::packing::{pack, Packed};
use crate::retention::{first_prune, Lifetimes};
use crate::time::{Seconds, UnixSeconds};
use crate::verify::{Headers, Scheme};

/// [`Decision::label`]s that other modules name.
pub(crate) const APPLIED: &str = Said::Applied.as_str();
pub(crate) const STALE: &str = Said::Stale.as_str();

/// What a delivery came to, as its answer (`Hookonce-Outcome`), its log line and its feed
/// note say it: the one vocabulary of outcomes. [`Outcome`] is the part of it a record
/// stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Said {
    /// A new event, applied (and enqueued or forwarded).
    Applied,
    /// A copy of an event seen before: nothing written.
    Duplicate,
    /// Older than the entity's state: recorded, neither applied nor forwarded.
    Stale,
    /// The entity's claim was taken for a synchronous forward still under way.
    Claimed,
    /// Another event of the entity holds its claim: come back later.
    InFlight,
    /// A synchronous forward failed and gave its claim back: the provider retries.
    Released,
}

impl Said {
    /// The reported name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Said::Applied => "applied",
            Said::Duplicate => "duplicate",
            Said::Stale => "stale",
            Said::Claimed => "claimed",
            Said::InFlight => "in_flight",
            Said::Released => "released",
        }
    }
}

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What became of an event that was handled; stored with its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// Its effect was written (and its forwarding enqueued or done).
    Applied,
    /// It was older than the entity's state: recorded, neither applied nor forwarded.
    Stale,
}

impl Outcome {
    /// The stored and reported name.
    pub fn as_str(self) -> &'static str {
        self.said().as_str()
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<Outcome> {
        [Outcome::Applied, Outcome::Stale]
            .into_iter()
            .find(|o| o.as_str() == s)
    }

    /// As an outcome of a delivery.
    #[must_use]
    pub fn said(self) -> Said {
        match self {
            Outcome::Applied => Said::Applied,
            Outcome::Stale => Said::Stale,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The entity's synchronous-forwarding claim, one row per entity once it has been used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claim {
    /// The event being forwarded now, if any: none once its call committed or failed.
    pub holder: Option<Lease>,
    /// The newest version ever claimed. The application may have received it even if its
    /// call failed or its holder died, so events older than it are stale.
    pub newest: Option<Version>,
}

/// One event's hold on its entity's claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The event being forwarded.
    pub event_id: EventId,
    /// When the lease ends; after that the next event may take the claim over.
    pub until: UnixSeconds,
}

/// What the store holds that bears on one event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// The processed-id row for this event's id, if any.
    pub record: Option<Outcome>,
    /// The entity's current snapshot version, if it has one.
    pub version: Option<Version>,
    /// The entity's claim, if a synchronous forward holds one (live or expired).
    pub claim: Option<Claim>,
    /// Whether the ledger already has a row for this event id. The ledger's unique
    /// constraint is the safety net for when processed ids are cleared.
    pub ledger_has_event: bool,
}

/// How the source wants new events handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Exhaustive: the edge reads or chooses differently for each variant; a new one must fail its build.
pub enum Plan {
    /// Apply now; if `forward`, enqueue one outbox row per asynchronous destination that
    /// takes the event, in the same unit.
    Apply {
        /// Whether the source forwards events.
        forward: bool,
    },
    /// Synchronous forwarding: claim the entity with a lease before calling the destination.
    Claim {
        /// How long the claim holds.
        lease: Seconds,
    },
    /// The synchronous call succeeded: apply, and clear the claim if it is still ours.
    /// The synchronous destination has the event already; the asynchronous ones that take
    /// it get one outbox row each.
    Commit,
}

impl Plan {
    /// The plan a source's configuration asks for an event of type `event_type`: a claim
    /// when its synchronous destination takes that type.
    #[must_use]
    pub fn for_source(source: &SourceConfig, event_type: &str) -> Plan {
        match source.sync_destination() {
            Some(d) if d.filter.admits(event_type) => Plan::Claim {
                lease: d.forward.lease,
            },
            _ => Plan::Apply {
                forward: !source.destinations.is_empty(),
            },
        }
    }
}

/// One row to write: each is one SQL statement in the adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Write<'e> {
    /// The processed-id row.
    Record {
        /// The event id (primary key).
        event_id: &'e EventId,
        /// Its type, for the read API.
        event_type: &'e EventType,
        /// What became of it.
        outcome: Outcome,
        /// The event's own time, unix seconds.
        created_at: Option<i64>,
    },
    /// Replace the entity's snapshot.
    Snapshot {
        /// The object, as JSON text.
        state: &'e str,
        /// The version it carries.
        version: Version,
    },
    /// Add a ledger row (unique per event id).
    Ledger {
        /// The event id.
        event_id: &'e EventId,
        /// Minor units.
        amount: i64,
    },
    /// Keep the raw body, for replay and for the outbox, until the source's
    /// `body_retention` has passed and no pending row needs it. Always written before
    /// the [`Write::Record`] and [`Write::Enqueue`] of its event: they point at it as the
    /// newest body row, so bodies need no index of their own.
    Body {
        /// The event id.
        event_id: &'e EventId,
        /// The headers needed to read the body the same way again, as a JSON object;
        /// `None` when the event id is all it takes (see [`replay_headers`]).
        headers: Option<String>,
        /// The body as stored ([`pack`]).
        body: Packed<'e>,
    },
    /// Enqueue the event for forwarding to one of the source's destinations.
    Enqueue {
        /// The event id.
        event_id: &'e EventId,
        /// The source it came from.
        source: &'e str,
        /// The destination's name.
        destination: &'e str,
    },
    /// Take (or take over) the entity's claim: replace its row.
    Claim(Claim),
    /// End `event_id`'s hold on the claim, if it still has it with this `until`; the
    /// newest claimed version stays.
    Release {
        /// The event that held it.
        event_id: &'e EventId,
        /// The lease it was written with.
        until: UnixSeconds,
    },
}

/// What to do with one delivery.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
// Exhaustive: the edge carries out every variant, one arm each; a new one must fail its build.
pub enum Decision<'e> {
    /// New: write every row, as one unit. `enqueued` says whether the outbox gained a row.
    Apply {
        /// The rows, in order.
        writes: Vec<Write<'e>>,
        /// Whether one of them enqueues a forward (the alarm must be set).
        enqueued: bool,
    },
    /// New, synchronous: write the claim, call the destination, then decide again with
    /// [`Plan::Commit`] (or [`release`] the claim on failure).
    Claim {
        /// The claim to write.
        write: Write<'e>,
        /// When the lease ends.
        until: UnixSeconds,
        /// Whether an expired claim was taken over (the earlier holder died or hung).
        takeover: bool,
    },
    /// Seen before: write nothing and answer 200.
    Duplicate(Outcome),
    /// Older than the entity's newest version: record the id as stale (so its replay is
    /// a duplicate), apply nothing, forward nothing.
    Stale(Write<'e>),
    /// Another event holds the entity's claim: answer 409 and ask the provider to come back.
    InFlight {
        /// Until the lease ends; at least 1 s.
        retry_after: Seconds,
    },
}

impl Decision<'_> {
    /// The outcome as reported to the provider (`Hookonce-Outcome`).
    pub fn label(&self) -> &'static str {
        self.said().as_str()
    }

    /// What this decision says of its delivery.
    #[must_use]
    pub fn said(&self) -> Said {
        match self {
            Decision::Apply { .. } => Said::Applied,
            Decision::Claim { .. } => Said::Claimed,
            Decision::Duplicate(_) => Said::Duplicate,
            Decision::Stale(_) => Said::Stale,
            Decision::InFlight { .. } => Said::InFlight,
        }
    }

    /// The rows this decision writes.
    pub fn writes(&self) -> &[Write<'_>] {
        match self {
            Decision::Apply { writes, .. } => writes,
            Decision::Claim { write, .. } | Decision::Stale(write) => std::slice::from_ref(write),
            Decision::Duplicate(_) | Decision::InFlight { .. } => &[],
        }
    }

    /// The snapshot version these writes leave, if they replace the snapshot: what an
    /// object keeps for [`decide_unread`].
    pub fn snapshot(&self) -> Option<&Version> {
        self.writes().iter().find_map(|w| match w {
            Write::Snapshot { version, .. } => Some(version),
            _ => None,
        })
    }

    /// When the alarm must prune at the latest because of these writes, made at `now`
    /// under `lifetimes`: the body's or the id's lifetime.
    #[must_use]
    pub fn prune_by(&self, lifetimes: Lifetimes, now: UnixSeconds) -> Option<UnixSeconds> {
        let writes = self.writes();
        let kept_body = writes.iter().any(|w| matches!(w, Write::Body { .. }));
        let recorded = writes.iter().any(|w| matches!(w, Write::Record { .. }));
        first_prune(lifetimes, kept_body, recorded, now)
    }

    /// When the object's alarm must fire at the latest because of this decision, made at
    /// `now`: at once for an enqueued forward, otherwise when what it kept may be pruned
    /// ([`Decision::prune_by`]).
    #[must_use]
    pub fn alarm_by(&self, lifetimes: Lifetimes, now: UnixSeconds) -> Option<UnixSeconds> {
        let queued = matches!(self, Decision::Apply { enqueued: true, .. }).then_some(now);
        queued
            .into_iter()
            .chain(self.prune_by(lifetimes, now))
            .min()
    }
}

/// The `Retry-After` for another event of an entity whose claim is held: a forward
/// usually takes milliseconds, so a second is a better hint than the whole lease.
pub const OTHER_EVENT_RETRY: Seconds = Seconds(1);

/// One verified, parsed delivery, with what it arrived with.
#[derive(Clone, Copy)]
pub struct Delivery<'e> {
    /// Its source.
    pub source: &'e SourceConfig,
    /// The parsed event.
    pub event: &'e Event,
    /// The request headers the source reads.
    pub headers: &'e [(String, String)],
    /// The raw body.
    pub body: &'e [u8],
}

/// Decides what to do with a delivery, given the store's view of it and `now`.
pub fn decide<'e>(d: Delivery<'e>, stored: &Stored, plan: Plan, now: UnixSeconds) -> Decision<'e> {
    let event = d.event;
    if let Some(outcome) = stored.record {
        return Decision::Duplicate(outcome);
    }
    let claim = stored.claim.as_ref();
    let holder = claim.and_then(|c| c.holder.as_ref());
    let mut takeover = false;
    if let Some(lease) = holder {
        match plan {
            Plan::Commit => {}
            _ if lease.until > now => {
                // A copy of the held event learns the outcome when the lease ends at the
                // latest; another event can usually go once the call returns, well before.
                let remaining = now.until(lease.until).max(Seconds(1));
                let retry_after = match &lease.event_id == event.id() {
                    true => remaining,
                    false => remaining.min(OTHER_EVENT_RETRY),
                };
                return Decision::InFlight { retry_after };
            }
            _ => takeover = true,
        }
    }

    // The processed id may have been pruned or cleared; the state itself still knows.
    let version = event.version();
    if let Some(new) = &version {
        if stored.version.as_ref() == Some(new) {
            return Decision::Duplicate(Outcome::Applied);
        }
        // Equal to the newest claimed is this event's own earlier claim: not stale.
        let newest = stored
            .version
            .as_ref()
            .max(claim.and_then(|c| c.newest.as_ref()));
        if newest.is_some_and(|current| new < current) {
            return Decision::Stale(record(event, Outcome::Stale));
        }
    }
    if stored.ledger_has_event {
        return Decision::Duplicate(Outcome::Applied);
    }

    match plan {
        Plan::Claim { lease } => {
            let until = now.plus(lease);
            let newest = version.max(claim.and_then(|c| c.newest.clone()));
            Decision::Claim {
                write: Write::Claim(Claim {
                    holder: Some(Lease {
                        event_id: event.id().clone(),
                        until,
                    }),
                    newest,
                }),
                until,
                takeover,
            }
        }
        Plan::Apply { forward } => apply(d, version, forward, None),
        Plan::Commit => {
            let release = holder
                .filter(|l| &l.event_id == event.id())
                .map(|l| Write::Release {
                    event_id: event.id(),
                    until: l.until,
                });
            apply(d, version, true, release)
        }
    }
}

/// Step 4 without reading the event's own processed-id row: for a snapshot or notify event
/// under [`Plan::Apply`] (no ledger row or claim bears on it), when the object knows its
/// snapshot version without a read. `known` is that knowledge: `Some(version)` (the
/// version it last read or wrote, `None` for no snapshot) or `None` if it has none.
///
/// The decision holds if the id is not recorded, and its [`Write::Record`] tests that as
/// it is written: the adapter runs it as a guarded statement that writes nothing if the id
/// is recorded, the test its insert makes anyway. If it writes nothing, undo the unit, then
/// read [`Stored`] and [`decide`] (a duplicate). So an applied event costs one statement
/// fewer and a stale one half as many, and a duplicate reaching the object one more (the
/// Worker's `SeenIds` answers most copies before they do).
///
/// `None` when the decision needs [`Stored`] read in full: another plan, a ledger effect,
/// or a versioned event while the version is not known.
#[must_use]
pub fn decide_unread<'e>(
    d: Delivery<'e>,
    known: Option<Option<&Version>>,
    plan: Plan,
    now: UnixSeconds,
) -> Option<Decision<'e>> {
    if !matches!(plan, Plan::Apply { .. }) || matches!(d.event.effect(), Effect::Ledger { .. }) {
        return None;
    }
    let version = match (d.event.version(), known) {
        (None, _) => None,
        (Some(_), None) => return None,
        (Some(_), Some(v)) => v.cloned(),
    };
    let stored = Stored {
        version,
        ..Stored::default()
    };
    Some(decide(d, &stored, plan, now))
}

fn record(event: &Event, outcome: Outcome) -> Write<'_> {
    Write::Record {
        event_id: event.id(),
        event_type: event.kind(),
        outcome,
        created_at: event.created_at().map(|c| c.secs()),
    }
}

fn apply<'e>(
    d: Delivery<'e>,
    version: Option<Version>,
    forward: bool,
    release: Option<Write<'e>>,
) -> Decision<'e> {
    let event = d.event;
    let queued = |to: &&'e DestinationConfig| {
        forward && to.forward.mode == ForwardMode::Async && to.filter.admits(event.kind().as_str())
    };
    let enqueued = d.source.destinations.iter().any(|to| queued(&to));
    let mut writes = Vec::with_capacity(4);
    // The outbox sends the stored body, so a forwarded event keeps it whatever the setting.
    if d.source.keeps_bodies() || enqueued {
        writes.push(Write::Body {
            event_id: event.id(),
            headers: replay_headers(d.source, event.id(), d.headers),
            body: pack(d.body),
        });
    }
    writes.push(record(event, Outcome::Applied));
    match event.effect() {
        Effect::Snapshot { state } => {
            if let Some(version) = version {
                writes.push(Write::Snapshot { state, version });
            }
        }
        Effect::Ledger { amount } => writes.push(Write::Ledger {
            event_id: event.id(),
            amount: *amount,
        }),
        Effect::Notify => {}
    }
    writes.extend(
        d.source
            .destinations
            .iter()
            .filter(queued)
            .map(|to| Write::Enqueue {
                event_id: event.id(),
                source: &d.source.name,
                destination: &to.name,
            }),
    );
    writes.extend(release);
    Decision::Apply { writes, enqueued }
}

/// The write that ends a failed synchronous call's hold on the claim: only while it is
/// still the one it wrote, never one a later event took over.
#[must_use]
pub fn release<'e>(
    claim: Option<&Claim>,
    event: &'e Event,
    ours: UnixSeconds,
) -> Option<Write<'e>> {
    claim
        .and_then(|c| c.holder.as_ref())
        .filter(|l| &l.event_id == event.id() && l.until == ours)
        .map(|l| Write::Release {
            event_id: event.id(),
            until: l.until,
        })
}

/// The headers a stored body needs to be read the same way again, as a JSON object:
/// Standard Webhooks' `webhook-id` (it is signed) unless it is the event id, which a
/// replay falls back to, and any field the source reads from a header. Names are
/// lower-case. `None` when nothing is needed: every byte kept per event counts.
#[must_use]
pub fn replay_headers(
    source: &SourceConfig,
    event_id: &EventId,
    headers: &[(String, String)],
) -> Option<String> {
    let shape = &source.shape;
    let mut map = serde_json::Map::new();
    let fields = [&shape.id, &shape.kind, &shape.created_at, &shape.entity];
    let wanted = std::iter::once("webhook-id").chain(fields.into_iter().filter_map(|f| match f {
        FieldSource::Header(name) => Some(name.as_str()),
        _ => None,
    }));
    for name in wanted {
        if let Some(value) = headers.header(name) {
            map.insert(name.to_ascii_lowercase(), value.into());
        }
    }
    // A Standard Webhooks replay is signed afresh with the event id as its webhook-id.
    let resigned = matches!(source.scheme, Scheme::StandardWebhooks);
    if resigned && map.get("webhook-id").and_then(|v| v.as_str()) == Some(event_id.as_str()) {
        map.remove("webhook-id");
    }
    (!map.is_empty()).then(|| serde_json::Value::Object(map).to_string())
}
