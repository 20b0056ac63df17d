//! Every protection setting out of range is refused with the configuration field's name
//! and a message saying what it must be; the defaults are valid.

use hookonce_core::protect::{Settings, SettingsBuilder, SettingsError};

#[test]
fn each_bad_value_names_its_field() {
    let b = Settings::builder;
    let cases: [(SettingsBuilder, &str); 14] = [
        (b().failure_threshold(0), "failure_threshold"),
        (b().failure_threshold(10_001), "failure_threshold"),
        (b().failure_rate(0), "failure_rate"),
        (b().failure_rate(101), "failure_rate"),
        (b().min_attempts(0), "min_attempts"),
        (b().window_secs(0), "window_secs"),
        (b().window_secs(3_601), "window_secs"),
        (b().cool_down_secs(0), "cool_down_secs"),
        (b().cool_down_secs(601), "cool_down_secs"),
        (
            b().max_cool_down_secs(3_601).cool_down_secs(30),
            "max_cool_down_secs",
        ),
        (b().max_in_flight(0), "max_in_flight"),
        (b().max_per_second(Some(0)), "max_per_second"),
        (b().max_per_second(Some(100_001)), "max_per_second"),
        (b().lease_secs(0), "lease_secs"),
    ];
    for (builder, field) in cases {
        let error: SettingsError = builder.build().unwrap_err();
        assert_eq!(error.field(), field);
        let message = error.to_string();
        assert!(
            message.starts_with(field) && message.contains("must be"),
            "{message}"
        );
    }
}

#[test]
fn the_defaults_and_the_edges_of_each_range_are_accepted() {
    let d = Settings::builder().build().unwrap();
    assert_eq!(d, Settings::default());
    assert_eq!(
        (d.failure_threshold(), d.failure_rate(), d.min_attempts()),
        (10, 50, 20)
    );
    assert_eq!(
        (d.window().0, d.cool_down().0, d.max_cool_down().0),
        (60, 30, 600)
    );
    assert_eq!(
        (d.max_in_flight(), d.max_per_second(), d.lease().0),
        (10, None, 30)
    );
    let edges = Settings::builder()
        .failure_threshold(1)
        .failure_rate(100)
        .min_attempts(10_000)
        .window_secs(3_600)
        .cool_down_secs(3_600)
        .max_cool_down_secs(3_600)
        .max_in_flight(1_000)
        .max_per_second(Some(1))
        .lease_secs(900)
        .build();
    assert!(edges.is_ok(), "{edges:?}");
}
