//! `/inspect` in headless Chromium (`tests/browser/guard.mjs`): the destination's health
//! row shows its guard `closed`; Pause makes it `paused`, as the admin API then says, and
//! Resume makes it `closed` again. Screenshot: target/inspector-screenshots/
//! 8-destination-paused.png.

use hookonce_e2e::browser;
use hookonce_e2e::destinations::{destination, forwarding_worker};
use hookonce_e2e::events::COCKPIT;

#[test]
fn a_person_can_pause_and_resume_a_destination_from_the_inspector() {
    let w = forwarding_worker();
    let stdout = browser::drive(&w.base, COCKPIT, "guard.mjs", &[]);
    let steps = browser::steps(&stdout, 3);
    assert_eq!(
        (&steps[1]["shown"], &steps[1]["api"]),
        (&"paused".into(), &"paused".into()),
        "{stdout}"
    );
    assert_eq!(steps[2]["api"], "closed", "{stdout}");
    let after = destination(&w, COCKPIT, "default", "status").json();
    assert_eq!(after["state"], "closed", "{after}");
    assert!(browser::screenshots()
        .join("8-destination-paused.png")
        .exists());
}
