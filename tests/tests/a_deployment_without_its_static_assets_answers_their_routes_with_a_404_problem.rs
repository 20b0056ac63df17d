//! A deployment without `edge/assets/` bound as `ASSETS` still runs: the inspector's and
//! the API description's routes answer a 404 problem that names the missing binding,
//! never a 5xx, and every other route works.

use hookonce_e2e::events::assert_problem;
use hookonce_e2e::workerd::Workerd;

#[test]
fn a_deployment_without_its_static_assets_answers_their_routes_with_a_404_problem() {
    let w = Workerd::builder().without_assets().start();
    for path in ["/inspect", "/openapi.json"] {
        let detail = assert_problem(&w.get(path), 404, "not-found");
        assert!(detail.contains("ASSETS"), "{path}: {detail}");
    }
    // The rest of the worker is unaffected.
    assert_eq!(w.get("/").status, 200);
}
