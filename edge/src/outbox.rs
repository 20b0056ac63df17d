//! Carrying out the outbox: the alarm delivers an object's pending rows in order, head of
//! line first, as core's `Drain` sequences it (one run at a time per object; each row
//! read just before it is sent; its result written only while it is still pending as read).
//! What an entity's alarm does after that (notes, pruning, its report to the feed) is core's
//! `entity::upkeep`, carried out by the entity object.
//!
//! A row bound for a source's destination asks that destination's gate object first, and
//! reports the results after (`gate::call`, one call per arm; a grant may cover a batch of
//! the destination's rows, which core's `Drain` sends with no call); a failed call is a
//! wait of a second.
//!
//! Each row's result is made durable (`storage.sync()`) before the next row is sent, so
//! after a crash only the head row can go out again, never an older one after a newer one:
//! always with the same `Idempotency-Key` (the event id) and the same `webhook-id`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use hookonce_core::config::{Deliver, DEFAULT_DESTINATION, DEFAULT_FORWARD_TIMEOUT};
use hookonce_core::drain::{
    unconfigured, Command as DrainCommand, Drain, Gated, Input as DrainInput, Read,
    Run as DrainRun, Weighed,
};
use hookonce_core::forward::Outgoing;
use hookonce_core::gate::{Answer as GateAnswer, Request as GateRequest};
use hookonce_core::log::attempt as attempt_log;
use hookonce_core::metrics::{self, Count};
use hookonce_core::names::{order_of, source_of};
use hookonce_core::outbox::{target as outbox_target, Order, Target, Transition};
use hookonce_core::retry::DeadReason;
use hookonce_core::time::UnixSeconds;
use hookonce_core::verify::Secret;
use wasm_bindgen::JsValue;
use worker::{js_sys, Env, ScheduledTime, State, Storage};

use crate::send;
use crate::sources::{self, Loaded};
use crate::store::{outbox as store, sqlite};
use crate::{clock, gate, logs, task};

/// What an object knows of its own alarm, until the alarm fires. An applied event makes
/// sure the alarm is set for its body's expiry; with this, that costs a storage round trip
/// (`getAlarm`, as dear as `setAlarm` on workerd) once per alarm, not once per event, and
/// none for a new object, which has no alarm to ask about.
#[derive(Clone, Default)]
pub struct Armed(Rc<Cell<Known>>);

#[derive(Clone, Copy, Default)]
enum Known {
    /// Ask the storage.
    #[default]
    Unknown,
    /// No alarm is set.
    Unset,
    /// Set to fire at this time, in ms.
    At(i64),
}

impl Armed {
    /// The alarm is firing (an object's `alarm()` starts): the runtime deletes it unless
    /// it is set again, or retries the handler, so nothing is known.
    pub fn fired(&self) {
        self.0.set(Known::Unknown);
    }
}

/// Makes sure the alarm fires no later than `at`.
pub async fn ensure_alarm(state: &State, armed: &Armed, at: UnixSeconds) -> worker::Result<()> {
    let want = at.0 * 1000;
    let set = match armed.0.get() {
        Known::At(known) if known <= want => return Ok(()),
        Known::Unset => set(&state.storage(), want).await?,
        Known::At(_) | Known::Unknown => arm(&state.storage(), want).await?,
    };
    armed.0.set(Known::At(set));
    Ok(())
}

/// For an object's constructor: if pending rows exist, make sure the alarm is set. The row
/// and the alarm are written in two steps, so a crash between them would otherwise strand
/// the row until the object's next request; construction follows every restart.
///
/// With `held` (an entity object's [`store::HOLDS_ROWS`]), an object that holds no rows at
/// all is known to have no alarm: every alarm of an entity object is set for rows it holds
/// (pending or delivered outbox rows, kept bodies, ids to forget), and only an alarm run
/// deletes them. Were one left over, it would have nothing to do, so a later `setAlarm`
/// that moves it loses nothing. A `fresh` object (its schema created just now,
/// [`sqlite::create`]) is known to have none without a read: alarms are only set once tables
/// exist. Without a queue ([`sqlite::Opened::queue`]) no row can be pending, and the outbox
/// is not read.
pub fn rearm_on_start(
    state: &State,
    armed: &Armed,
    held: Option<&'static str>,
    opened: &sqlite::Opened,
) {
    if opened.fresh {
        armed.0.set(Known::Unset);
        return;
    }
    let storage = state.storage();
    let sql = storage.sql();
    let due = match store::start(&sql, held, opened.queue) {
        Ok(start) => {
            if !start.holds_rows {
                armed.0.set(Known::Unset);
            }
            start.due
        }
        Err(e) => {
            worker::console_error!("hookonce: reading the outbox at start failed: {e}");
            None
        }
    };
    let Some(at) = due else {
        return;
    };
    let armed = armed.clone();
    task::hold_requests_until(state, async move {
        armed.0.set(Known::At(arm(&storage, at.0 * 1000).await?));
        Ok(())
    });
}

/// Sets the alarm for `want` (ms) unless it is set earlier; returns when it fires.
async fn arm(storage: &Storage, want: i64) -> worker::Result<i64> {
    match storage.get_alarm().await? {
        Some(existing) if existing <= want => Ok(existing),
        _ => set(storage, want).await,
    }
}

/// Sets the alarm for `want` (ms).
async fn set(storage: &Storage, want: i64) -> worker::Result<i64> {
    // A date, not the bare number: workers-rs reads an `i64` as an offset from now.
    let date = js_sys::Date::new(&JsValue::from_f64(want as f64));
    storage.set_alarm(ScheduledTime::new(date)).await?;
    Ok(want)
}

/// A random per-mille for retry jitter; randomness is the adapter's, not the core's.
fn jitter() -> u16 {
    (js_sys::Math::random() * 1001.0) as u16
}

/// The configuration as loaded once per isolate.
pub type Config = Rc<Result<Loaded, String>>;

/// An object's delivery loop (core's `Drain`), shared by its alarm invocations, so that
/// one run at a time delivers its rows.
#[derive(Default)]
pub struct Runs(RefCell<Drain>);

/// An object's alarm: delivers what is due and returns the configuration for the rest of
/// the object's alarm work; `None` when the configuration is broken, after re-arming for a
/// minute later (a configuration fix must not lose queued rows).
pub async fn on_alarm(
    state: &State,
    armed: &Armed,
    runs: &Runs,
    env: &Env,
    attempts: &mut Vec<Count>,
) -> worker::Result<Option<Config>> {
    armed.fired();
    let config = sources::load(env);
    let Ok(loaded) = &*config else {
        ensure_alarm(state, armed, unconfigured(clock::now())).await?;
        return Ok(None);
    };
    let order = state
        .id()
        .name()
        .map_or(Order::HeadOfLine, |n| order_of(&n));
    let (run, first) = runs.0.borrow_mut().alarm(clock::now(), order);
    let delivered = deliver_due(state, armed, runs, run, first, env, loaded, attempts).await;
    if delivered.is_err() {
        // The runtime retries the alarm; that invocation must not find this run under way.
        runs.0.borrow_mut().abandon(run);
    }
    delivered?;
    Ok(Some(config))
}

/// Carries out `run`'s commands, from `command` on, until core's `Drain` says it is done:
/// due rows in order, head of line first, each made durable before the next; each
/// attempt's result is added to `attempts`.
#[allow(clippy::too_many_arguments)]
async fn deliver_due(
    state: &State,
    armed: &Armed,
    runs: &Runs,
    run: DrainRun,
    mut command: DrainCommand<Via<'_>>,
    env: &Env,
    loaded: &Loaded,
    attempts: &mut Vec<Count>,
) -> worker::Result<()> {
    let storage = state.storage();
    let sql = storage.sql();
    // The key the gates count this object by: its name (an entity's, or a bucket's).
    let entity = state.id().name().unwrap_or_default();
    // A report's source: the object's own (the row read last may be none, after the run's
    // last row is read).
    let own_source = source_of(&entity).unwrap_or_default().to_owned();
    let mut gate_trouble_logged = false;
    let mut due: Option<store::Due> = None;
    loop {
        let input = match command {
            DrainCommand::ReadHead(read) => {
                due = match read {
                    Read::HeadAfter(after) => {
                        store::head(&sql, Order::HeadOfLine, after, clock::now())?
                    }
                    Read::DueAfter(after) => {
                        store::head(&sql, Order::EachDue, after, clock::now())?
                    }
                };
                let row = due.as_ref().map(|d| (d.head.clone(), Via::of(d, loaded)));
                DrainInput::Head {
                    row,
                    gated: due.as_ref().and_then(|d| gated(d, &entity, loaded)),
                    now: clock::now(),
                }
            }
            DrainCommand::ReadSuccessor { seq, via } => {
                let (head, next) = store::successor(&sql, seq)?;
                let effects = loaded
                    .source(&via.due.source)
                    .map(|s| &s.config.shape.effects);
                let weigh = |w: Option<store::Weigh>| {
                    let (w, effects) = (w?, effects?);
                    Some(Weighed {
                        effect: effects.for_type(&w.event_type),
                        event_id: w.event_id,
                        created_at: w.created_at.map(UnixSeconds),
                    })
                };
                DrainInput::Successor {
                    head: weigh(head),
                    next: weigh(next),
                    via,
                    now: clock::now(),
                }
            }
            // A failed call counts as a wait of a second: nothing is spent.
            DrainCommand::Ask {
                destination,
                entity,
                via,
                renew,
                rows,
            } => {
                // What this isolate was last told of a held destination, with no call.
                let (source, reporting) = (&via.due.source, renew.is_some());
                let kept = gate::held(source, &destination, &entity, reporting, clock::now());
                let asked = match renew {
                    Some(owed) => GateRequest::Renew {
                        entity,
                        lease: owed.lease,
                        earlier: owed.earlier,
                        result: owed.result,
                        rows,
                    },
                    None => GateRequest::Ask { entity, rows },
                };
                let answered = match kept {
                    Some(ask) => Ok(GateAnswer::Ask {
                        ask,
                        healthy_since: None,
                    }),
                    None => call_gate(env, loaded, &via.due.source, &destination, asked).await,
                };
                let (answer, healthy_since) = match answered {
                    Ok(GateAnswer::Ask { ask, healthy_since }) => (Some(ask), healthy_since),
                    other => {
                        log_gate_trouble(&mut gate_trouble_logged, &other);
                        (None, None)
                    }
                };
                DrainInput::Asked {
                    answer,
                    healthy_since,
                    via,
                    now: clock::now(),
                }
            }
            // A lost report holds its slot at the gate only until the lease ends.
            DrainCommand::Report {
                destination,
                entity,
                lease,
                earlier,
                result,
            } => {
                let request = GateRequest::Report {
                    entity,
                    lease,
                    earlier,
                    result,
                };
                if let Err(e) = call_gate(env, loaded, &own_source, &destination, request).await {
                    log_gate_trouble(&mut gate_trouble_logged, &Err::<GateAnswer, _>(e));
                }
                DrainInput::Reported
            }
            DrainCommand::Send { attempt, via } => DrainInput::Sent {
                result: {
                    let r = send::attempt(env, via.to, via.secrets, via.outgoing(attempt)).await;
                    metrics::add(attempts, metrics::ATTEMPTS, metrics::attempt_result(&r), 1);
                    r
                },
                schedule: via.to.schedule,
                // Rounded up: a wait of n seconds from a truncated now could end up to 1 s
                // early, before a Retry-After has run out.
                now: clock::now_ceil(),
                jitter: jitter(),
            },
            DrainCommand::Write {
                transition,
                if_attempts,
            } => {
                let applied = store::transition(&sql, &transition, if_attempts)?;
                if let (true, Some(d)) = (applied, &due) {
                    logs::emit(loaded.log, attempt_log(&d.source, &d.event_id, &transition));
                    if let Transition::Supersede { .. } = transition {
                        let to = d.dest_name.as_deref().unwrap_or(DEFAULT_DESTINATION);
                        metrics::add(attempts, metrics::SUPERSEDED, to, 1);
                    }
                }
                DrainInput::Written { applied }
            }
            DrainCommand::ReadEarliest { order, held } => {
                DrainInput::Earliest(store::earliest(&sql, order, &held)?)
            }
            // Durable before the next row goes out: a crash now re-sends nothing older.
            DrainCommand::Sync => {
                storage.sync().await?;
                DrainInput::Synced
            }
            DrainCommand::SetAlarm(at) => {
                ensure_alarm(state, armed, at).await?;
                DrainInput::AlarmSet
            }
            DrainCommand::Done => return Ok(()),
        };
        command = runs.0.borrow_mut().handle(run, input);
    }
}

/// The gate `due` asks before it is sent, counted under `entity`: its source's destination
/// (`default` when unnamed), and whether it is configured `deliver = "latest"`; none for a
/// published message's own URL.
fn gated(due: &store::Due, entity: &str, loaded: &Loaded) -> Option<Gated> {
    let destination = due.dest_name.as_deref().unwrap_or(DEFAULT_DESTINATION);
    due.url.is_none().then(|| {
        let forward = loaded
            .source(&due.source)
            .and_then(|s| s.config.destination(destination))
            .map(|d| &d.forward);
        Gated {
            latest: forward.is_some_and(|f| f.deliver == Deliver::Latest),
            // A row whose destination is gone never asks; any timeout does.
            timeout: forward.map_or(DEFAULT_FORWARD_TIMEOUT, |f| f.timeout),
            destination: destination.to_owned(),
            entity: entity.to_owned(),
        }
    })
}

/// One request to the gate of `source`'s `destination`.
async fn call_gate(
    env: &Env,
    loaded: &Loaded,
    source: &str,
    destination: &str,
    request: GateRequest,
) -> Result<GateAnswer, String> {
    let config = loaded
        .source(source)
        .ok_or_else(|| format!("no source {source}"))?;
    gate::call(env, &config.config, destination, request).await
}

/// Logs the first trouble with a gate in a run (its calls are retried a second later, so
/// an unreachable gate would log every second otherwise).
fn log_gate_trouble(logged: &mut bool, trouble: &Result<GateAnswer, String>) {
    if std::mem::replace(logged, true) {
        return;
    }
    match trouble {
        Err(e) => worker::console_error!("hookonce: {e}; the row waits a second"),
        Ok(a) => worker::console_error!("hookonce: a gate answered an ask with {a:?}"),
    }
}

/// What sending a row takes: the row as read, its target and body, the secrets of the key
/// its target names.
struct Via<'a> {
    due: &'a store::Due,
    to: Target<'a>,
    secrets: &'a [Secret],
    body: &'a [u8],
}

impl<'a> Via<'a> {
    /// What sending `due` takes, or why it never can.
    fn of(due: &'a store::Due, loaded: &'a Loaded) -> Result<Via<'a>, DeadReason> {
        let source = loaded.source(&due.source).map(|s| &s.config);
        let to = outbox_target(due.url.as_deref(), source, due.dest_name.as_deref())?;
        Ok(Via {
            due,
            to,
            secrets: loaded
                .signers(&due.source, to.key)
                .ok_or(DeadReason::Unsendable)?,
            body: due.body.as_deref().ok_or(DeadReason::Unsendable)?,
        })
    }

    /// The request of attempt number `attempt`.
    fn outgoing(&self, attempt: u32) -> Outgoing<'a> {
        Outgoing {
            source: &self.due.source,
            event_id: &self.due.event_id,
            attempt,
            body: self.body,
        }
    }
}
