//! AMLworld timestamps (`YYYY/MM/DD HH:MM`) as minutes since 1970-01-01 00:00 UTC.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count (inverse of `days_from_civil`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Parses `YYYY/MM/DD HH:MM` into minutes since the Unix epoch; `None` when malformed or invalid.
///
/// # Example
/// ```
/// use cefedgnn::aml::{format_timestamp, parse_timestamp};
/// let t = parse_timestamp("2022/09/01 00:06").unwrap();
/// assert_eq!(format_timestamp(t), "2022/09/01 00:06");
/// assert_eq!(parse_timestamp("2022/02/30 00:00"), None);
/// ```
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 16 || b[4] != b'/' || b[7] != b'/' || b[10] != b' ' || b[13] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = &s[r];
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d, h, mi) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
    );
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 {
        return None;
    }
    Some(days_from_civil(y, mo, d) * 1440 + h * 60 + mi)
}

/// Formats minutes since the Unix epoch as `YYYY/MM/DD HH:MM`.
pub fn format_timestamp(minutes: i64) -> String {
    let days = minutes.div_euclid(1440);
    let rem = minutes.rem_euclid(1440);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}/{m:02}/{d:02} {:02}:{:02}", rem / 60, rem % 60)
}

/// Minutes since the epoch of 00:00 on a date (for AMLSim day steps).
pub(crate) fn date_minutes(y: i64, m: i64, d: i64) -> i64 {
    days_from_civil(y, m, d) * 1440
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_over_years() {
        for &s in &[
            "1970/01/01 00:00",
            "2000/02/29 23:59",
            "2022/09/18 16:18",
            "2100/12/31 12:00",
        ] {
            let t = parse_timestamp(s).unwrap();
            assert_eq!(format_timestamp(t), s);
        }
        assert_eq!(parse_timestamp("1970/01/02 00:01"), Some(1441));
        for bad in [
            "2022-09-01 00:00",
            "2022/13/01 00:00",
            "2022/09/01 24:00",
            "2022/09/01 0:00",
            "2021/02/29 00:00",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }
}
