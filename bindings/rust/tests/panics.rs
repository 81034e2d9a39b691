//! A panicking callback is caught at the C boundary: the process lives on, the panic is
//! recorded on the subscription, and later events are still delivered.
//! (Its own test binary: it installs a panic hook that silences the expected panics.)

mod common;

use std::sync::mpsc;
use std::sync::Once;

use common::*;
use runway::Session;

const MARK: &str = "deliberate test panic";

fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let p = info.payload();
            let expected = p.downcast_ref::<String>().is_some_and(|s| s.contains(MARK))
                || p.downcast_ref::<&str>().is_some_and(|s| s.contains(MARK))
                || p.is::<Marker>();
            if !expected {
                default(info);
            }
        }));
    });
}

#[test]
fn a_panic_in_a_callback_does_not_cross_into_c() {
    quiet_expected_panics();
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    let (tx, rx) = mpsc::channel();
    let mut calls = 0;
    let sub = s
        .subscribe(Some(r#"{"policy":"queue","kinds":["flight"]}"#), move |_| {
            calls += 1;
            let _ = tx.send(calls);
            if calls <= 3 {
                panic!("{MARK} in call {calls}");
            }
        })
        .unwrap();
    for i in 0..6usize {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    // Calls are sequential: once call 5 has started, calls 1..=4 have returned and their
    // panics are recorded.
    for want in 1..=5 {
        assert_eq!(rx.recv_timeout(WAIT).expect("delivery stopped after a panic"), want);
    }
    assert_eq!(sub.panic_count(), 3);
    assert_eq!(sub.last_panic().as_deref(), Some(format!("{MARK} in call 3").as_str()));
    assert_eq!(rx.recv_timeout(WAIT).unwrap(), 6);

    // The session and the subscription still work.
    s.push_json(&fix_json(T0 + 6.0, 6)).unwrap();
    assert_eq!(rx.recv_timeout(WAIT).unwrap(), 7);
    sub.cancel().unwrap();
    assert_eq!(rx.try_recv().unwrap_err(), mpsc::TryRecvError::Disconnected);
}

#[test]
fn a_panic_with_a_non_string_payload_is_caught_too() {
    quiet_expected_panics();
    let s = Session::open(None).unwrap();
    let (tx, rx) = mpsc::channel();
    let sub = s
        .subscribe(Some(r#"{"kinds":["phase"]}"#), move |e| {
            let _ = tx.send(e.str_field("to"));
            std::panic::panic_any(Marker);
        })
        .unwrap();
    s.start(Some(T0)).unwrap();
    s.pause(Some(T0)).unwrap();
    assert_eq!(rx.recv_timeout(WAIT).unwrap().as_deref(), Some("cruise"));
    assert_eq!(rx.recv_timeout(WAIT).unwrap().as_deref(), Some("holding"));
    assert!(sub.panic_count() >= 1);
    assert!(sub.last_panic().is_some());
}

/// A non-string panic payload.
struct Marker;
