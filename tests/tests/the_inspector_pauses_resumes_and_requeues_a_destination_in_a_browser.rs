//! `/inspect` in headless Chromium (`tests/browser/guard.mjs`): the destination's health
//! row shows its guard `closed`; Pause makes it `paused`, as the admin API then says, and
//! Resume makes it `closed` again. The row counts the destination's dead letters (two events
//! its origin answered 410 Gone); its Re-queue sends them back to the destination, which
//! now takes them: the page says how many went back, and the row then counts none.
//! Screenshots: target/inspector-screenshots/8-destination-paused.png and
//! 9-destination-dead-letters.png.

use std::time::Duration;

use hookonce_e2e::browser;
use hookonce_e2e::destinations::{destination, forwarding_sources_to};
use hookonce_e2e::events::{at, cardholder_created, COCKPIT};
use hookonce_e2e::origin::{Origin, Reply};
use hookonce_e2e::workerd::Workerd;

#[test]
fn a_person_can_pause_resume_and_requeue_a_destination_from_the_inspector() {
    let o = Origin::start();
    o.set_default(Reply::Gone);
    let w = Workerd::builder()
        .sources(forwarding_sources_to(&o.url("/hooks")))
        .start();
    for (id, ch) in [("evt_gone_1", "ch_gone_1"), ("evt_gone_2", "ch_gone_2")] {
        let r = w.deliver_cockpit(&cardholder_created(id, ch, &at(0), "Ada"));
        assert_eq!(r.status, 200, "{r}");
    }
    o.wait_requests(2, Duration::from_secs(15));
    // From now on the application takes what it is sent.
    o.set_default(Reply::OK);

    let stdout = browser::drive(&w.base, COCKPIT, "guard.mjs", &[]);
    let steps = browser::steps(&stdout, 4);
    assert_eq!(
        (&steps[1]["shown"], &steps[1]["api"]),
        (&"paused".into(), &"paused".into()),
        "{stdout}"
    );
    assert_eq!(steps[2]["api"], "closed", "{stdout}");
    assert_eq!(
        (&steps[3]["before"], &steps[3]["answer"], &steps[3]["after"]),
        (
            &"2".into(),
            &"Re-queued 2 dead letters of default.".into(),
            &"0".into()
        ),
        "{stdout}"
    );
    let after = destination(&w, COCKPIT, "default", "status").json();
    assert_eq!(after["state"], "closed", "{after}");
    // Both went back to the destination, and it took them.
    let taken = o.wait_for(Duration::from_secs(15), |reqs| {
        reqs.iter().filter(|r| r.reply == Reply::OK).count() >= 2
    });
    let mut keys: Vec<&str> = taken
        .iter()
        .filter(|r| r.reply == Reply::OK)
        .map(|r| r.must("idempotency-key"))
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["evt_gone_1", "evt_gone_2"]);
    assert!(browser::screenshots()
        .join("8-destination-paused.png")
        .exists());
}
