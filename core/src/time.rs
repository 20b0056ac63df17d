//! Time as data. The core never reads a clock: every function that needs "now"
//! takes a [`UnixSeconds`], which only `edge` produces (from `Date::now()`).

use std::fmt;

/// A point in time, whole seconds since 1970-01-01T00:00:00Z (POSIX time, IEEE 1003.1 §4.16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct UnixSeconds(pub i64);

/// A length of time in whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Seconds(pub u64);

impl UnixSeconds {
    /// `self + d`, saturating rather than wrapping on absurd inputs.
    #[must_use]
    pub fn plus(self, d: Seconds) -> UnixSeconds {
        UnixSeconds(
            self.0
                .saturating_add(i64::try_from(d.0).unwrap_or(i64::MAX)),
        )
    }

    /// `self - d`, saturating.
    #[must_use]
    pub fn minus(self, d: Seconds) -> UnixSeconds {
        UnixSeconds(
            self.0
                .saturating_sub(i64::try_from(d.0).unwrap_or(i64::MAX)),
        )
    }

    /// How long until `later`; zero if `later` is not after `self`.
    #[must_use]
    pub fn until(self, later: UnixSeconds) -> Seconds {
        Seconds(u64::try_from(later.0.saturating_sub(self.0)).unwrap_or(0))
    }
}

impl Seconds {
    /// One minute.
    pub const MINUTE: Seconds = Seconds(60);
    /// One hour.
    pub const HOUR: Seconds = Seconds(3_600);
    /// One day.
    pub const DAY: Seconds = Seconds(86_400);
}

impl fmt::Display for UnixSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.0)
    }
}

/// A proleptic Gregorian date (ISO 8601 calendar): year, month 1-12, day 1-31.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CivilDate {
    /// The year, e.g. 2026.
    pub year: i64,
    /// 1 to 12.
    pub month: u32,
    /// 1 to the month's length.
    pub day: u32,
}

impl CivilDate {
    /// The date, if `day` exists in that month (leap years included).
    pub fn new(year: i64, month: u32, day: u32) -> Option<CivilDate> {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let len = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        (1..=len)
            .contains(&day)
            .then_some(CivilDate { year, month, day })
    }

    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
    pub fn days_since_epoch(self) -> i64 {
        let y = if self.month <= 2 {
            self.year - 1
        } else {
            self.year
        };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = i64::from((self.month + 9) % 12); // March = 0, so the leap day ends the year
        let doy = (153 * mp + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    pub fn from_days_since_epoch(days: i64) -> CivilDate {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        CivilDate {
            year: yoe + era * 400 + i64::from(month <= 2),
            month,
            day,
        }
    }
}

/// Parses an RFC 3339 `date-time` (`2026-10-06T07:06:30Z`, `…30.123+02:00`) into unix
/// seconds and nanoseconds. A leap second (`:60`) folds onto `:59`, as POSIX time does.
pub(crate) fn parse_rfc3339(s: &str) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            Some(
                part.iter()
                    .fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')),
            )
        } else {
            None
        }
    };
    let sep = |i: usize, allowed: &[u8]| b.get(i).is_some_and(|c| allowed.contains(c));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let date = CivilDate::new(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?)?;
    if hour > 23
        || minute > 59
        // 60 is a leap second; POSIX time folds it onto :59.
        || second > 60
    {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0u32;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            if i - start < 9 {
                nanos = nanos * 10 + u32::from(b[i] - b'0');
            }
            i += 1;
        }
        let digits = i - start;
        if digits == 0 {
            return None;
        }
        for _ in digits..9 {
            nanos *= 10;
        }
    }
    let offset = match b.get(i..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let digits = [*h1, *h2, *m1, *m2];
            if !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let h = i64::from((h1 - b'0') * 10 + (h2 - b'0'));
            let m = i64::from((m1 - b'0') * 10 + (m2 - b'0'));
            if h > 23 || m > 59 {
                return None;
            }
            let off = h * 3600 + m * 60;
            if *sign == b'+' {
                off
            } else {
                -off
            }
        }
        _ => return None,
    };
    let secs =
        date.days_since_epoch() * 86_400 + hour * 3600 + minute * 60 + second.min(59) - offset;
    Some((secs, nanos))
}

/// `IMF-fixdate = day-name "," SP day SP month SP year SP hour ":" minute ":" second SP "GMT"`,
/// all fixed width and case-sensitive (RFC 9110 §5.6.7).
pub(crate) fn parse_imf_fixdate(s: &str) -> Option<UnixSeconds> {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let b = s.as_bytes();
    if b.len() != 29 || !s.is_ascii() {
        return None;
    }
    let punctuation = [
        (3, b','),
        (4, b' '),
        (7, b' '),
        (11, b' '),
        (16, b' '),
        (19, b':'),
        (22, b':'),
        (25, b' '),
    ];
    if punctuation.iter().any(|&(i, c)| b[i] != c) || &s[26..] != "GMT" {
        return None;
    }
    if !DAYS.contains(&&s[0..3]) {
        return None;
    }
    let month = MONTHS.iter().position(|m| *m == &s[8..11])? as u32 + 1;
    let day = digits(&s[5..7])?;
    let year = digits(&s[12..16])?;
    let (hour, minute, second) = (
        digits(&s[17..19])?,
        digits(&s[20..22])?,
        digits(&s[23..25])?,
    );
    // second = 60 is a leap second; POSIX time has none, so it counts as the next second.
    let date = CivilDate::new(i64::from(year), month, day)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = date.days_since_epoch();
    Some(UnixSeconds(
        days * 86_400 + i64::from(hour * 3_600 + minute * 60 + second),
    ))
}

/// A fixed-width run of ASCII digits.
fn digits(s: &str) -> Option<u32> {
    if s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_a_past_instant_is_zero() {
        assert_eq!(UnixSeconds(100).until(UnixSeconds(40)), Seconds(0));
        assert_eq!(UnixSeconds(40).until(UnixSeconds(100)), Seconds(60));
    }

    #[test]
    fn civil_dates_round_trip_through_days() {
        for days in [-719_468, -1, 0, 1, 11_016, 20_367, 2_932_896] {
            let date = CivilDate::from_days_since_epoch(days);
            assert_eq!(CivilDate::new(date.year, date.month, date.day), Some(date));
            assert_eq!(date.days_since_epoch(), days);
        }
        assert_eq!(
            CivilDate::new(2026, 10, 6).unwrap().days_since_epoch(),
            20_732
        );
    }

    #[test]
    fn only_real_days_are_dates() {
        assert!(CivilDate::new(2000, 2, 29).is_some());
        assert!(CivilDate::new(1900, 2, 29).is_none());
        assert!(CivilDate::new(2026, 4, 31).is_none());
        assert!(CivilDate::new(2026, 13, 1).is_none());
        assert!(CivilDate::new(2026, 1, 0).is_none());
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(
            UnixSeconds(i64::MAX).plus(Seconds(10)),
            UnixSeconds(i64::MAX)
        );
        assert_eq!(
            UnixSeconds(i64::MIN).minus(Seconds(u64::MAX)),
            UnixSeconds(i64::MIN)
        );
    }
}
