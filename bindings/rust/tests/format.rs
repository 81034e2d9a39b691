//! The PFD formatters.

use runway::*;

#[test]
fn pace_is_minutes_and_seconds_rounded() {
    assert_eq!(format_pace(4.0 + 29.0 / 60.0), "4:29");
    assert_eq!(format_pace(5.05), "5:03");
    assert_eq!(format_pace(4.0 + 59.6 / 60.0), "5:00", "rounding carries into the minutes");
    assert_eq!(format_pace(12.0), "12:00");
    for unknown in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -3.0] {
        assert_eq!(format_pace(unknown), "--:--", "{unknown}");
    }
}

#[test]
fn the_pace_tape_is_centred_on_the_nearest_quarter_minute() {
    assert_eq!(format_pace_tape(4.0 + 29.0 / 60.0), "4:00 4:15 4:30 4:45 5:00");
    assert_eq!(format_pace_tape(5.0), "4:30 4:45 5:00 5:15 5:30");
    assert_eq!(format_pace_tape(f64::NAN), "");
}

#[test]
fn direction_is_one_of_eight_points() {
    assert_eq!(format_direction(108.19), "E");
    assert_eq!(format_direction(0.0), "N");
    assert_eq!(format_direction(359.0), "N");
    assert_eq!(format_direction(22.4), "N");
    assert_eq!(format_direction(22.6), "NE");
    assert_eq!(format_direction(225.0), "SW");
    assert_eq!(format_direction(f64::NAN), "--");
}

#[test]
fn heading_tape_shows_the_neighbours() {
    assert_eq!(format_heading_tape(0.0), "W N E");
    assert_eq!(format_heading_tape(108.19), "N E S");
    assert_eq!(format_heading_tape(260.0), "S W N");
}

#[test]
fn time_distance_and_altitude() {
    assert_eq!(format_time(3725.9), "01:02:05", "whole seconds, floored");
    assert_eq!(format_time(0.0), "00:00:00");
    assert_eq!(format_time(f64::NAN), "--:--:--");
    assert_eq!(format_distance(5030.0), "5.03");
    assert_eq!(format_distance(0.0), "0.00");
    assert_eq!(format_altitude(123.4), "123");
    assert_eq!(format_altitude(f64::NAN), "--");
}
