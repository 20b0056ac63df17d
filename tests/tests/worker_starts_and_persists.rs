//! Against the temporary smoke worker: it serves, and Durable Object SQLite state survives a
//! wrangler restart. Rewrite once the real adapter lands.

use hookonce_e2e::Worker;

#[test]
fn state_survives_a_restart() {
    let w = Worker::start();
    assert_eq!(w.get("/health").text(), "ok");

    let no_headers: &[(&str, &str)] = &[];
    for expected in ["1", "2"] {
        let r = w.post("/hit/alpha", no_headers, "");
        assert_eq!(r.status, 200, "{r}");
        assert_eq!(r.text(), expected);
    }
    assert_eq!(w.get("/hit/beta").text(), "0", "entities are separate");
    let unknown = w.get("/nope");
    assert_eq!(
        unknown.status, 404,
        "4xx is a response, not an error: {unknown}"
    );

    let w = w.restart();
    let r = w.get("/hit/alpha");
    assert_eq!(r.status, 200, "{r}");
    assert_eq!(r.text(), "2", "state after restart");
}
