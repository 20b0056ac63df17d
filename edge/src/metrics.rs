//! `GET /metrics`: the admin token, then each configured source's figures from its feed
//! object and each of its destinations' protection from its gate object, written out by
//! core's `metrics::exposition`.

use hookonce_core::gate::{Answer, Request as GateRequest};
use hookonce_core::metrics::{exposition, Figures, Guard, SourceFigures};
use worker::{Env, Request, Response, Result};

use crate::internal::{FeedOp, FEED_BINDING};
use crate::{api, clock, gate, http, problem, sources};

/// The text format's media type.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `GET /metrics`: one request to each configured source's feed object, one after another
/// (sources are few and configured; a feed that does not answer is `hookonce_source_up 0`).
pub async fn serve(req: &Request, env: &Env) -> Result<Response> {
    let loaded = sources::load(env);
    let mut figures = Figures::default();
    match &*loaded {
        // The admin still gets a scrape that says so, for an alert to fire on.
        Err(_) if sources::carries_admin_token(req, env) => figures.configuration_invalid = true,
        Err(e) => return sources::misconfigured_for(req, env, e),
        Ok(loaded) => {
            if let Some(refused) = api::refuse_without_token(req, loaded) {
                return refused;
            }
            for (name, source) in loaded.sources.iter() {
                match source_figures(env, name).await {
                    Some(f) => figures.sources.push(f),
                    None => figures.unavailable.push(name.clone()),
                }
                for d in &source.config.destinations {
                    // A gate that does not answer has no sample this scrape.
                    let status = gate::call(env, &source.config, &d.name, GateRequest::Status);
                    if let Ok(Answer::Status { status, .. }) = status.await {
                        figures.guards.push(Guard {
                            source: name.clone(),
                            destination: d.name.clone(),
                            status,
                        });
                    }
                }
            }
        }
    }
    let text = exposition(&figures, clock::now());
    problem::bytes_response(200, text.into_bytes(), CONTENT_TYPE)
}

/// What the source's feed object answers, or `None` if it does not.
async fn source_figures(env: &Env, source: &str) -> Option<SourceFigures> {
    let url = FeedOp::Metrics.url();
    let mut resp = http::query_object(env, FEED_BINDING, source, &url, false)
        .await
        .ok()?;
    if resp.status_code() != 200 {
        return None;
    }
    SourceFigures::decode(source, &resp.text().await.ok()?)
}
