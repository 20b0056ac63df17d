//! TEMPORARY smoke worker: proves the build/dev/test pipeline (wasm build, Durable Object
//! bindings, SQLite storage, persistence). It will be replaced by the real adapter.
//!
//! - `GET /health` -> `ok`
//! - `POST /hit/{name}` -> inserts a row into entity `{name}`'s SQLite table, returns the count
//! - `GET /hit/{name}` -> returns the count without inserting

use worker::*;

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    console_error_panic_hook::set_once();
    let path = req.path();
    if path == "/health" {
        return Response::ok("ok");
    }
    match path.strip_prefix("/hit/") {
        Some(name) if !name.is_empty() => {
            let stub = env.durable_object("ENTITY")?.get_by_name(name)?;
            stub.fetch_with_request(req).await
        }
        _ => Response::error("not found", 404),
    }
}

#[durable_object]
pub struct EntityObject {
    state: State,
}

impl DurableObject for EntityObject {
    fn new(state: State, _env: Env) -> Self {
        state
            .storage()
            .sql()
            .exec(
                "CREATE TABLE IF NOT EXISTS hits (id INTEGER PRIMARY KEY, at TEXT)",
                None,
            )
            .expect("create table");
        Self { state }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let sql = self.state.storage().sql();
        if req.method() == Method::Post {
            sql.exec(
                "INSERT INTO hits (at) VALUES (?)",
                vec![Date::now().to_string().into()],
            )?;
        }
        #[derive(serde::Deserialize)]
        struct Count {
            n: i64,
        }
        let count: Count = sql.exec("SELECT COUNT(*) AS n FROM hits", None)?.one()?;
        Response::ok(count.n.to_string())
    }
}

#[durable_object]
pub struct KeyObject {
    _state: State,
}

impl DurableObject for KeyObject {
    fn new(state: State, _env: Env) -> Self {
        Self { _state: state }
    }

    async fn fetch(&self, _req: Request) -> Result<Response> {
        Response::error("not implemented", 501)
    }
}
