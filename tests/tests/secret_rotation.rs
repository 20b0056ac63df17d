//! During a secret rotation both bindings verify: a delivery signed with the new secret or
//! the previous one is accepted; one signed with neither is not.

use hookonce_e2e::events::*;
use hookonce_e2e::Worker;

const PREVIOUS: &str = "whsec_CVHbIk2dr2WGJQt+GtI9aPv40fJj6c7VgJDfaj3hJc4=";

#[test]
fn deliveries_signed_with_either_secret_are_accepted() {
    let w = Worker::builder()
        .secret("COCKPIT_SECRET_PREVIOUS", PREVIOUS)
        .start();
    let current = cockpit_secret();
    let a = cardholder_created(&new_id("evt"), "ch_rot", &at(0), "Current");
    let b = cardholder_updated(&new_id("evt"), "ch_rot", &at(10), "Previous");
    assert_eq!(outcome(&deliver_with(&w, &current, &a)), "applied");
    assert_eq!(outcome(&deliver_with(&w, PREVIOUS, &b)), "applied");
    // A copy signed with the other secret is the same event: a duplicate.
    assert_eq!(outcome(&deliver_with(&w, &current, &b)), "duplicate");

    let other = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    let c = cardholder_updated(&new_id("evt"), "ch_rot", &at(20), "Neither");
    assert_problem(&deliver_with(&w, other, &c), 401, "invalid-signature");
    assert_eq!(entity(&w, "ch_rot").json()["state"]["name"], "Previous");
}
