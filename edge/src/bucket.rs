//! A bucket object's checks before a delivery: events about no entity share a source's
//! `buckets` bucket objects (`{source}/b/{n}`, core's `object_for`). Each bucket records the
//! count it was made with and when the source's buckets were made (bucket 0's record, which
//! a new bucket takes), and within core's `looks_up_per_event_objects` asks the object an
//! earlier version gave each event (`{source}/i/{id}`) about an id it does not know.

use std::cell::Cell;

use hookonce_core::config::SourceConfig;
use hookonce_core::event::Event;
use hookonce_core::names::{bucket_name, per_event_object};
use hookonce_core::time::UnixSeconds;
use serde_json::{json, Value};
use worker::{Env, Response, Result, State};

use crate::internal::{Op, ENTITY_BINDING};
use crate::problem::{self, json_response};
use crate::sources::Source;
use crate::store::bucket as store;
use crate::store::entity::EntityStore;
use crate::{clock, http};

/// What a bucket's checks came to.
pub enum Gate {
    /// Go on to read → decide → write.
    Open,
    /// The event's own object from before buckets recorded it: a duplicate.
    Recorded,
    /// Answer this instead: the count of buckets changed, or a call failed.
    Refuse(Response),
}

/// A bucket's record of its source's buckets (`store::bucket`), once this instance read it.
#[derive(Default)]
pub struct Known(Cell<Option<store::Bucket>>);

impl Known {
    /// The checks before a delivery of `event` to bucket `n`, whose store is `entity`. Each costs a call to another object only when the bucket cannot answer it:
    /// the record once per new bucket, the old object once per id new to the bucket.
    pub async fn gate(
        &self,
        entity: &EntityStore,
        env: &Env,
        source: &Source,
        n: u32,
        event: &Event,
    ) -> Result<Gate> {
        let config = &source.config;
        let sql = entity.sql();
        let now = clock::now();
        let recorded = match self.0.get() {
            Some(b) => b,
            None => {
                let made = store::Bucket {
                    count: config.buckets,
                    since: now,
                };
                let b = match store::bucket(sql, (n == 0).then_some(made))? {
                    Some(b) => b,
                    None => match bucket_zero(env, config).await? {
                        Ok(b) if b.count == config.buckets => {
                            store::bucket(sql, Some(b))?.unwrap_or(b)
                        }
                        Ok(b) => b,
                        Err(refused) => return Ok(Gate::Refuse(refused)),
                    },
                };
                self.0.set(Some(b));
                b
            }
        };
        if let Err(e) = config.check_buckets(recorded.count) {
            return problem::CONFIG.respond(e).map(Gate::Refuse);
        }
        let known = || Ok::<_, worker::Error>(!entity.empty() && entity.recorded(event.id())?);
        let created_at = event.created_at().map(|c| UnixSeconds(c.secs()));
        if !config.looks_up_per_event_objects(recorded.since, now, created_at) || known()? {
            return Ok(Gate::Open);
        }
        let old = per_event_object(&config.name, event.id().as_str());
        let url = Op::Event(event.id().as_str().to_owned()).url();
        let found = http::query_object(env, ENTITY_BINDING, &old, &url, false).await?;
        Ok(match found.status_code() {
            200 => Gate::Recorded,
            404 => Gate::Open,
            _ => Gate::Refuse(found),
        })
    }
}

/// `Op::Buckets`, in bucket 0: its record, made now with `count` if it has none.
pub fn record(state: &State, count: u32) -> Result<Response> {
    let made = store::Bucket {
        count,
        since: clock::now(),
    };
    let b = store::bucket(&state.storage().sql(), Some(made))?.unwrap_or(made);
    json_response(
        200,
        &json!({ "count": b.count, "since": b.since.0 }),
        "application/json",
    )
}

/// The record of the source's buckets that bucket 0 holds (made now with `config`'s count
/// if it has none); a failed call is the problem to answer.
async fn bucket_zero(
    env: &Env,
    config: &SourceConfig,
) -> Result<std::result::Result<store::Bucket, Response>> {
    let zero = bucket_name(&config.name, 0);
    let url = Op::Buckets(config.buckets).url();
    let mut resp = http::query_object(env, ENTITY_BINDING, &zero, &url, true).await?;
    if resp.status_code() != 200 {
        return Ok(Err(resp));
    }
    let body: Value = resp.json().await?;
    let count = body["count"].as_u64().and_then(|c| u32::try_from(c).ok());
    match (count, body["since"].as_i64()) {
        (Some(count), Some(since)) => Ok(Ok(store::Bucket {
            count,
            since: UnixSeconds(since),
        })),
        _ => problem::INTERNAL
            .respond("bucket 0 answered no record of the buckets")
            .map(Err),
    }
}
