//! Raising an operational alert (core's `ops`): the alert becomes an event of the ops
//! source, signed with the ops secret and verified and parsed as any delivery is (steps 2
//! and 3), then handed to its subject's entity object (step 4 on), which deduplicates it
//! by id, keeps it in its outbox and delivers it. Raising never fails its caller: an alert
//! that cannot be raised is logged (`ops_raise_failed`), and the caller goes on.

use hookonce_core::event::Event;
use hookonce_core::handoff;
use hookonce_core::log;
use hookonce_core::names::object_for;
use hookonce_core::ops::{Alert, SOURCE};
use hookonce_core::sign;
use worker::Env;

use crate::internal::{Op, ENTITY_BINDING};
use crate::sources::Loaded;
use crate::{clock, http, logs};

/// Raises each of `alerts`, in order, when the deployment has operational webhooks.
pub async fn raise(env: &Env, loaded: &Loaded, alerts: Vec<Alert>) {
    let (Some(config), Some(ops)) = (&loaded.ops, loaded.source(SOURCE)) else {
        return;
    };
    for alert in alerts {
        let now = clock::now();
        let message = alert.message(now, config.quiet);
        let scheme = &ops.config.scheme;
        let headers = sign::headers(scheme, &ops.signer, &message.id, now, &message.body);
        let event = ops
            .verifier
            .verify(&headers, &message.body, now)
            .map_err(|e| e.to_string())
            .and_then(|v| Event::parse(&v, &headers, &ops.config.shape).map_err(|e| e.to_string()));
        let called = match event {
            Ok(event) => {
                let object = object_for(SOURCE, ops.config.buckets, event.entity(), event.id());
                let body = handoff::encode(SOURCE, &event, &headers, &message.body);
                let url = Op::Ingest.url();
                match http::call_object(env, ENTITY_BINDING, &object, &url, None, &body).await {
                    Ok(resp) if resp.status() < 300 => Ok(()),
                    Ok(resp) => Err(format!("the ops object answered {}", resp.status())),
                    Err(e) => Err(e.to_string()),
                }
            }
            Err(e) => Err(e),
        };
        if let Err(e) = called {
            let error = format!("{}: {e}", alert.kind());
            logs::emit(
                loaded.log,
                log::failure("ops_raise_failed", alert.source(), &error),
            );
        }
    }
}
