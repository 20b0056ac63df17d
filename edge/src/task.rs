//! Runs each request's futures in that request's own I/O context.
//!
//! workerd ties every subrequest and stream to the request whose code created it, and one
//! isolate serves many requests (the Worker's and the objects') at once. wasm-bindgen's
//! executor polls every woken task of the isolate in one microtask, queued by whichever
//! task woke first: a second request's task then ran inside the first one's context,
//! called its object there, and workerd refused the answer's body to the request that
//! returned it ("Cannot perform I/O on behalf of a different request", a 500; 5,225 of
//! the 3 × 5 s `dupes` runs that followed an idle pause on one workerd failed so). Here a
//! wake queues a microtask for its own task alone, from the code that woke it: the I/O
//! callback of the request the task belongs to.
//!
//! So nothing in hookonce hands a future to wasm-bindgen's executor: the entry points
//! ([`promise`], [`export_object!`]), `waitUntil` ([`detach`]) and
//! `blockConcurrencyWhile` ([`hold_requests_until`]) all run here. The promises of a
//! delivery's path (its body, the object's answer) are awaited with [`wait`], whose
//! settling wakes the task from that promise's own callback, as `JsFuture`'s does.
//!
//! A panic (a bug) aborts the wasm instance, and with it every pending task's future, whose
//! promise would then never settle: a request in flight would wait until its client gave
//! up. So each task keeps its promise's `reject`, and [`reject_all_after_panic`] (from the
//! panic hook) rejects every pending one: the runtime retries an alarm, an object's caller
//! gets an error, and an entry point's [`or_else`] answers its request.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use hookonce_core::small_map::SmallMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::{js_sys, State};

type Boxed = Pin<Box<dyn Future<Output = ()>>>;

/// A spawned future, in the table while it is pending.
struct Slot {
    /// `None` while it is being polled.
    future: Option<Boxed>,
    waker: Waker,
    /// A microtask to poll it is queued: more wakes before it runs add nothing.
    queued: bool,
    /// Rejects its promise, if a panic ends the instance first.
    reject: js_sys::Function,
}

thread_local! {
    static TASKS: RefCell<SmallMap<u64, Slot>> = const { RefCell::new(SmallMap::new()) };
    static NEXT: Cell<u64> = const { Cell::new(0) };
    /// The one function every queued microtask calls, with its task's id.
    static RUN: Closure<dyn FnMut(f64)> = Closure::new(|id: f64| run(id as u64));
    /// The promises [`wait`] is waiting on, by id, until their future takes the result.
    static WAITING: RefCell<SmallMap<u64, Waiting>> = const { RefCell::new(SmallMap::new()) };
    /// The one function every promise [`wait`] waits on settles through.
    static SETTLED: Closure<dyn FnMut(f64, JsValue, bool)> =
        Closure::new(|id: f64, value: JsValue, ok: bool| settled(id as u64, value, ok));
}

#[wasm_bindgen]
extern "C" {
    type Resolved;

    /// `Promise.resolve(id)`: `.then(RUN)` on it is a microtask calling `RUN(id)`.
    #[wasm_bindgen(js_namespace = Promise, js_name = resolve)]
    fn resolved(id: f64) -> Resolved;

    #[wasm_bindgen(method)]
    fn then(this: &Resolved, run: &Closure<dyn FnMut(f64)>);

    /// A promise, for `catch` with a JavaScript function: a closure of this instance could
    /// not run once a panic has ended it.
    type Caught;

    #[wasm_bindgen(method, js_name = catch)]
    fn catch_with(this: &Caught, handler: &js_sys::Function) -> js_sys::Promise;
}

#[wasm_bindgen(inline_js = "export function settle(promise, id, settled) {
  promise.then((value) => settled(id, value, true), (error) => settled(id, error, false));
}")]
extern "C" {
    /// `promise.then(…)` with two functions made here, in JavaScript, that call `settled`
    /// with `id`: cheaper than two wasm-bindgen closures, which each cost a call to make,
    /// a finalizer to register and a call to drop.
    fn settle(promise: &js_sys::Promise, id: f64, settled: &Closure<dyn FnMut(f64, JsValue, bool)>);
}

/// A promise [`wait`] waits on.
enum Waiting {
    /// Not settled yet; the waker of the last poll.
    Pending(Option<Waker>),
    Settled(Result<JsValue, JsValue>),
}

/// `promise` as a future, as wasm-bindgen's `JsFuture` is, but settled through one
/// function made once per instance (`SETTLED`), not two closures made per promise.
pub fn wait(promise: js_sys::Promise) -> Wait {
    let id = NEXT.with(|n| n.replace(n.get() + 1));
    WAITING.with(|w| w.borrow_mut().insert(id, Waiting::Pending(None)));
    SETTLED.with(|settled| settle(&promise, id as f64, settled));
    Wait { id }
}

/// The future of [`wait`]: the promise's value, or its rejection's reason.
pub struct Wait {
    id: u64,
}

impl Future for Wait {
    type Output = Result<JsValue, JsValue>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        WAITING.with(|w| {
            let mut w = w.borrow_mut();
            if let Some(Waiting::Pending(waker)) = w.get_mut(&self.id) {
                *waker = Some(cx.waker().clone());
                return Poll::Pending;
            }
            match w.remove(&self.id) {
                Some(Waiting::Settled(result)) => Poll::Ready(result),
                // Taken by an earlier poll: a bug of the caller's, as for any future.
                _ => panic!("a `Wait` polled after it completed"),
            }
        })
    }
}

impl Drop for Wait {
    /// A future dropped before its promise settled: the late settlement finds no entry.
    /// After `Ready` the entry is gone already, and this finds nothing to remove.
    fn drop(&mut self) {
        WAITING.with(|w| w.borrow_mut().remove(&self.id));
    }
}

/// The promise `id` settled: keep the result and wake the task waiting on it.
fn settled(id: u64, value: JsValue, ok: bool) {
    let waker = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        let entry = w.get_mut(&id)?;
        let result = if ok { Ok(value) } else { Err(value) };
        match std::mem::replace(entry, Waiting::Settled(result)) {
            Waiting::Pending(waker) => waker,
            // Not reached: `settle` registers one pair of callbacks, and a promise settles once.
            Waiting::Settled(_) => None,
        }
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// A task's waker: its id, which is all `Send + Sync` needs to see.
struct Wakeup(u64);

impl Wake for Wakeup {
    fn wake(self: Arc<Self>) {
        schedule(self.0);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        schedule(self.0);
    }
}

/// Queues a poll of task `id` in the current context, unless one is queued already or
/// the task has ended.
fn schedule(id: u64) {
    let queue = TASKS.with(|t| match t.borrow_mut().get_mut(&id) {
        Some(slot) if !slot.queued => {
            slot.queued = true;
            true
        }
        _ => false,
    });
    if queue {
        // Ids stay below 2^53, exact as a JavaScript number.
        RUN.with(|run| resolved(id as f64).then(run));
    }
}

/// Polls task `id` once; it leaves the table when it is done. No borrow of the table is
/// held while it runs, so it may spawn and wake tasks.
fn run(id: u64) {
    let taken = TASKS.with(|t| {
        let mut t = t.borrow_mut();
        let slot = t.get_mut(&id)?;
        slot.queued = false;
        Some((slot.future.take()?, slot.waker.clone()))
    });
    let Some((mut future, waker)) = taken else {
        return;
    };
    let done = future
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_ready();
    TASKS.with(|t| {
        let mut t = t.borrow_mut();
        if done {
            t.remove(&id);
        } else if let Some(slot) = t.get_mut(&id) {
            slot.future = Some(future);
        }
    });
}

/// Runs `future` from the next microtask on, as wasm-bindgen's `spawn_local` does;
/// `reject` rejects the promise it settles.
fn spawn(future: impl Future<Output = ()> + 'static, reject: js_sys::Function) {
    let id = NEXT.with(|n| n.replace(n.get() + 1));
    let slot = Slot {
        future: Some(Box::pin(future)),
        waker: Waker::from(Arc::new(Wakeup(id))),
        queued: false,
        reject,
    };
    TASKS.with(|t| t.borrow_mut().insert(id, slot));
    schedule(id);
}

/// The promise of `future`'s result, for the runtime: what an entry point returns.
pub fn promise(
    future: impl Future<Output = Result<JsValue, JsValue>> + 'static,
) -> js_sys::Promise {
    let mut future = Some(future);
    js_sys::Promise::new(&mut |resolve, reject| {
        let Some(future) = future.take() else {
            return;
        };
        let on_panic = reject.clone();
        let task = async move {
            let (settle, value) = match future.await {
                Ok(value) => (resolve, value),
                Err(error) => (reject, error),
            };
            // Settling can only fail if the runtime is gone, and then nobody is waiting.
            let _ = settle.call1(&JsValue::UNDEFINED, &value);
        };
        spawn(task, on_panic);
    })
}

/// `promise`, or what `fallback` (a JavaScript function, called with the reason) makes of
/// its rejection: how an entry point still answers its request after a panic.
pub fn or_else(promise: &js_sys::Promise, fallback: &js_sys::Function) -> js_sys::Promise {
    promise.unchecked_ref::<Caught>().catch_with(fallback)
}

/// Rejects the promise of every pending task. Called by the panic hook, before the
/// instance aborts: none of their futures will run again.
pub fn reject_all_after_panic() {
    // The table is never borrowed while a task runs; if a panic came from inside a
    // borrow, nothing can be rejected from here.
    let pending: Vec<js_sys::Function> = TASKS.with(|t| match t.try_borrow() {
        Ok(t) => t.values().map(|slot| slot.reject.clone()).collect(),
        Err(_) => Vec::new(),
    });
    let error = js_sys::Error::new("hookonce panicked (a bug, logged); it is safe to retry");
    for reject in pending {
        let _ = reject.call1(&JsValue::UNDEFINED, &error);
    }
}

/// The promise of an object method's response, for the runtime: workers-rs's `Response`
/// (converted here) or the runtime's own (passed on as it is).
pub fn respond<R: Into<worker::web_sys::Response>>(
    future: impl Future<Output = worker::Result<R>> + 'static,
) -> js_sys::Promise {
    promise(async move {
        let resp: worker::web_sys::Response = future.await?.into();
        Ok(resp.into())
    })
}

/// `future` as a promise to hand to `waitUntil`: work that goes on after the answer.
pub fn detach(future: impl Future<Output = ()> + 'static) -> js_sys::Promise {
    promise(async move {
        future.await;
        Ok(JsValue::UNDEFINED)
    })
}

/// `blockConcurrencyWhile(work)`: the object takes no request until `work` is done.
pub fn hold_requests_until(
    state: &State,
    work: impl Future<Output = worker::Result<()>> + 'static,
) {
    let callback = Closure::once_into_js(move || {
        promise(async move {
            work.await
                .map(|()| JsValue::UNDEFINED)
                .map_err(JsValue::from)
        })
    });
    // Its promise settles when the gate opens; nothing here waits for it.
    let _ = state
        .as_raw()
        .block_concurrency_while(callback.unchecked_ref());
}

/// Exports a Durable Object class to the runtime under `$class`: `$export` holds the
/// object (`$object`, with inherent `new`, `fetch` and, when named, `alarm`), and each
/// method the runtime calls runs on this module's executor. `fetch` takes the runtime's
/// request as it is, and converts it only if it needs to.
macro_rules! export_object {
    ($export:ident as $class:literal for $object:ident $(, $alarm:ident)?) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_name = $class)]
        pub struct $export(std::rc::Rc<$object>);

        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $export {
            #[wasm_bindgen(constructor)]
            pub fn new(state: worker::worker_sys::DurableObjectState, env: worker::Env) -> Self {
                Self(std::rc::Rc::new($object::new(state.into(), env)))
            }

            pub fn fetch(&self, req: worker::web_sys::Request) -> worker::js_sys::Promise {
                let this = self.0.clone();
                $crate::task::respond(async move { this.fetch(req).await })
            }

            $(
            pub fn $alarm(&self) -> worker::js_sys::Promise {
                let this = self.0.clone();
                $crate::task::respond(async move { this.alarm().await })
            }
            )?
        }
    };
}
pub(crate) use export_object;
