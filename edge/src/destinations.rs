//! The Worker side of a destination's admin routes: `GET …/status`, `POST …/pause` and
//! `POST …/resume` under `/sources/{source}/destinations/{destination}`. The admin token,
//! then the destination's gate object, with the settings the configuration gives it.

use hookonce_core::gate::{settings_for, Call, Request as GateRequest};
use hookonce_core::names::gate_name;
use hookonce_core::route::{DestinationOp, Route};
use worker::{Env, Request, Response, Result};

use crate::api::authorized;
use crate::internal::{GATE_BINDING, GATE_URL};
use crate::{http, problem, sources};

/// A destination route: authenticate, find the source and its destination, and ask the
/// destination's gate object; its answer (the status document) is returned as it is.
pub async fn serve(req: &Request, env: &Env, route: &Route) -> Result<Response> {
    let Route::Destination {
        source,
        destination,
        op,
    } = route
    else {
        return problem::NOT_FOUND.respond("not a destination route");
    };
    let loaded = sources::load(env);
    let found = match authorized(req, env, &loaded, source) {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let Some(settings) = settings_for(&found.config, destination) else {
        return problem::UNKNOWN_DESTINATION.respond(found.config.no_destination(destination));
    };
    let request = match op {
        DestinationOp::Status => GateRequest::Status,
        DestinationOp::Pause => GateRequest::Pause,
        DestinationOp::Resume => GateRequest::Resume,
    };
    let call = Call { settings, request }.encode();
    let object = gate_name(source, destination);
    let resp = http::call_object(env, GATE_BINDING, &object, GATE_URL, None, &call).await?;
    Ok(Response::from(resp))
}
