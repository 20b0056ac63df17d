//! `GateObject`: one per (source, destination), the guard all the source's entities share
//! for that destination (issue 54): core's `gate::Gate` holds its `Protect`, and each call
//! or alarm runs as core's `gate::Command`s, one IO per arm. The state that must survive
//! a restart is one row (`store::gate`), written before anything else goes out. An isolate
//! keeps the last answer that its gate holds a destination (core's `gate::Held`: open
//! until the probe, paused for a few seconds), so its other entities skip the call.

use std::cell::RefCell;

use hookonce_core::config::SourceConfig;
use hookonce_core::gate::{
    settings_for, Answer, Call, Command, Gate, Held, Request as GateRequest,
};
use hookonce_core::log::LogLevel;
use hookonce_core::names::gate_name;
use hookonce_core::protect::Ask;
use hookonce_core::small_map::SmallMap;
use hookonce_core::time::UnixSeconds;
use wasm_bindgen::JsValue;
use worker::{js_sys, web_sys, Env, Request, Response, Result, ScheduledTime, State};

use crate::internal::{Op, ENTITY_BINDING, GATE_BINDING, GATE_URL};
use crate::store::gate::GateStore;
use crate::task::export_object;
use crate::{clock, http, logs, ops, problem, sources};

export_object!(GateObjectClass as "GateObject" for GateObject, alarm);

pub struct GateObject {
    state: State,
    env: Env,
    gate: RefCell<Gate>,
}

impl GateObject {
    fn new(state: State, env: Env) -> Self {
        GateStore::create(&state);
        let saved = GateStore::new(&state).saved().unwrap_or_else(|e| {
            worker::console_error!("hookonce: reading a gate object's state failed: {e}");
            None
        });
        Self {
            state,
            env,
            gate: RefCell::new(Gate::new(saved)),
        }
    }

    async fn fetch(&self, req: web_sys::Request) -> Result<Response> {
        let body = Request::from(req).bytes().await?;
        let call = match Call::decode(&body) {
            Ok(call) => call,
            Err(e) => return problem::BAD_REQUEST.respond(e),
        };
        let Some(name) = self.state.id().name() else {
            return problem::INTERNAL
                .respond("a gate object is named by its source and destination");
        };
        // Decided and kept with no `.await` in between (`run`'s first arms are synchronous).
        let commands = self.gate.borrow_mut().handle(&name, call, clock::now());
        self.run(commands).await
    }

    async fn alarm(&self) -> Result<Response> {
        let commands = self.gate.borrow_mut().alarm(clock::now());
        self.run(commands).await
    }

    /// Carries out core's commands in order; the answer is the last.
    async fn run(&self, commands: Vec<Command>) -> Result<Response> {
        let store = GateStore::new(&self.state);
        let config = sources::load(&self.env);
        let level = match &*config {
            Ok(loaded) => loaded.log,
            Err(_) => LogLevel::default(),
        };
        for command in commands {
            match command {
                Command::Keep(saved) => store.keep(&saved)?,
                Command::Log(record) => logs::emit(level, record),
                Command::Raise(alert) => {
                    if let Ok(loaded) = &*config {
                        ops::raise(&self.env, loaded, vec![alert]).await;
                    }
                }
                Command::SetAlarm(at) => set_alarm(&self.state, at).await?,
                // Best effort: an entity not woken asks again at the second it was told.
                Command::Wake(entity) => {
                    let url = Op::Wake.url();
                    let woken = http::query_object(&self.env, ENTITY_BINDING, &entity, &url, true);
                    if let Err(e) = woken.await {
                        worker::console_error!("hookonce: waking {entity} failed: {e}");
                    }
                }
                Command::Answer(answer) => {
                    return problem::bytes_response(200, answer.encode(), "application/json")
                }
            }
        }
        Response::ok("done")
    }
}

/// Sets the object's alarm for `at`.
async fn set_alarm(state: &State, at: UnixSeconds) -> Result<()> {
    // A date, not the bare number: workers-rs reads an `i64` as an offset from now.
    let date = js_sys::Date::new(&JsValue::from_f64((at.0 * 1000) as f64));
    state.storage().set_alarm(ScheduledTime::new(date)).await
}

thread_local! {
    /// The destinations this isolate was last told are held (core's `gate::Held`), by gate
    /// object name: one entry per destination at most.
    static HELD: RefCell<SmallMap<String, Held>> = const { RefCell::new(SmallMap::new()) };
}

/// The answer this isolate keeps for `entity`'s ask to `source`'s `destination` at `now`,
/// if what it was last told still holds (core's `Held::answer`); `reporting`: the ask
/// carries a lease's results.
pub fn held(
    source: &str,
    destination: &str,
    entity: &str,
    reporting: bool,
    now: UnixSeconds,
) -> Option<Ask> {
    let object = gate_name(source, destination);
    HELD.with(|h| h.borrow().get(&object)?.answer(entity, reporting, now))
}

/// Keeps what core makes of `answer`, or forgets what was kept: an ask's answer, or an
/// admin request's (a pause or a resume changed the destination).
fn remember(object: &str, answer: &Answer) {
    let kept = match answer {
        Answer::Ask { ask, .. } => Held::of(ask, clock::now()),
        Answer::Status { .. } => None,
        Answer::Reported(_) => return,
    };
    HELD.with(|h| {
        let mut h = h.borrow_mut();
        match kept {
            Some(kept) => h.insert(object.to_owned(), kept),
            None => h.remove(object),
        };
    });
}

/// One request to the gate of `source`'s destination `destination`, with the settings the
/// configuration gives it: one object round trip. `Err` says why no answer came (no such
/// destination, the call failed, or its answer was not one), for the caller to log.
pub async fn call(
    env: &Env,
    source: &SourceConfig,
    destination: &str,
    request: GateRequest,
) -> std::result::Result<Answer, String> {
    let settings = settings_for(source, destination)
        .ok_or_else(|| format!("source {} has no destination {destination}", source.name))?;
    let body = Call { settings, request }.encode();
    let object = gate_name(&source.name, destination);
    let answered = async {
        let resp = http::call_object(env, GATE_BINDING, &object, GATE_URL, None, &body).await?;
        let mut resp = Response::from(resp);
        Ok::<_, worker::Error>((resp.status_code(), resp.bytes().await?))
    };
    match answered.await {
        Ok((200, bytes)) => {
            let answer = Answer::decode(&bytes)
                .ok_or_else(|| format!("gate {object} answered what is not an answer"))?;
            remember(&object, &answer);
            Ok(answer)
        }
        Ok((status, _)) => Err(format!("gate {object} answered {status}")),
        Err(e) => Err(format!("calling gate {object} failed: {e}")),
    }
}
