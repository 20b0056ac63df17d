//! A destination's `types` list admits event types segment by segment: a literal segment
//! exactly, `*` one whole segment or, last, the rest; `!` exclusions win over inclusions, and
//! a list of exclusions only starts from every type. Known answers with the providers' own
//! type names (Stripe, Shopify, GitHub).

use hookonce_core::filter::Filter;

/// Asserts which of `types` the list `patterns` admits and which it does not.
fn check(patterns: &[&str], admitted: &[&str], refused: &[&str]) {
    let filter = Filter::parse(patterns.iter().copied()).expect("a valid list");
    for t in admitted {
        assert!(filter.admits(t), "{patterns:?} must admit {t:?}");
    }
    for t in refused {
        assert!(!filter.admits(t), "{patterns:?} must not admit {t:?}");
    }
}

#[test]
fn a_trailing_star_admits_one_or_more_segments_below_its_prefix() {
    check(
        &["invoice.*"],
        &[
            "invoice.paid",
            "invoice.upcoming",
            "invoice.payment_failed",
            "invoice.payment.failed",
        ],
        &[
            "invoice",
            "invoices.paid",
            "customer.invoice.paid",
            "invoice/paid",
        ],
    );
}

#[test]
fn a_leading_star_admits_exactly_one_segment() {
    check(
        &["*.created"],
        &["customer.created", "invoice.created", "charge.created"],
        &[
            "customer.subscription.created",
            "created",
            "customer.created.late",
            "customer/created",
        ],
    );
}

#[test]
fn a_star_in_the_middle_admits_one_segment_there() {
    check(
        &["customer.*.updated"],
        &["customer.subscription.updated", "customer.source.updated"],
        &[
            "customer.updated",
            "customer.subscription.schedule.updated",
            "customer.subscription.deleted",
        ],
    );
}

#[test]
fn a_literal_pattern_admits_only_its_own_type() {
    check(
        &["pull_request", "customer.subscription.updated"],
        &["pull_request", "customer.subscription.updated"],
        &[
            "pull_request_review",
            "pull_request.opened",
            "customer.subscription",
            "customer.subscription.updated.extra",
        ],
    );
}

#[test]
fn shopify_topics_match_on_their_slash() {
    check(
        &["orders/*"],
        &[
            "orders/create",
            "orders/paid",
            "orders/risk_assessment_changed",
        ],
        &[
            "orders",
            "orders.create",
            "products/create",
            "draft_orders/create",
        ],
    );
}

#[test]
fn star_admits_every_type_and_so_does_the_default() {
    let types = [
        "invoice.upcoming",
        "orders/create",
        "pull_request",
        "customer.subscription.updated",
        "évènement",
    ];
    for filter in [Filter::parse(["*"]).unwrap(), Filter::all()] {
        for t in types {
            assert!(filter.admits(t), "{filter:?} must admit {t:?}");
        }
    }
}

#[test]
fn an_exclusion_wins_over_an_inclusion() {
    check(
        &["invoice.*", "customer.subscription.*", "!invoice.upcoming"],
        &[
            "invoice.paid",
            "invoice.payment_failed",
            "customer.subscription.updated",
        ],
        &["invoice.upcoming", "customer.created", "charge.succeeded"],
    );
}

#[test]
fn exclusions_alone_admit_every_other_type() {
    check(
        &["!invoice.upcoming", "!*.deleted"],
        &[
            "invoice.paid",
            "invoice.upcoming.extra",
            "customer.subscription.deleted",
            "orders/create",
            "pull_request",
        ],
        &["invoice.upcoming", "customer.deleted", "product.deleted"],
    );
}

#[test]
fn an_exclusion_with_a_trailing_star_removes_a_whole_subtree() {
    check(
        &["*", "!customer.subscription.*"],
        &["customer.subscription", "customer.created", "invoice.paid"],
        &[
            "customer.subscription.updated",
            "customer.subscription.trial_will_end",
        ],
    );
}
