//! The inspector page and the API description are static files (`edge/assets/`, bound as
//! `ASSETS` in `wrangler.toml`), not part of the wasm. Through `wrangler dev`, as deployed,
//! their routes serve the files byte for byte, with the page's security headers.

use hookonce_e2e::events::assert_problem;
use hookonce_e2e::{repo_root, Worker};

fn file(name: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("edge/assets").join(name)).expect("edge/assets file")
}

#[test]
fn the_inspector_and_the_api_description_come_from_the_static_assets() {
    let w = Worker::builder().start();

    let page = w.get("/inspect");
    assert_eq!(page.status, 200, "{page}");
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let csp = page.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("connect-src 'self'"), "{csp}");
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert!(
        page.body == file("inspect.html"),
        "GET /inspect is not edge/assets/inspect.html"
    );

    let api = w.get("/openapi.json");
    assert_eq!(api.status, 200, "{api}");
    assert_eq!(api.header("content-type"), Some("application/json"));
    assert!(
        api.body == file("openapi.json"),
        "GET /openapi.json is not edge/assets/openapi.json"
    );

    // Every path is the Worker's: the file's own name is not a route.
    assert_problem(&w.get("/inspect.html"), 404, "not-found");
}
