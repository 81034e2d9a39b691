//! Subscription queues and policies: every event in order, the latest policy, overflow, kinds.

mod common;

use common::*;
use runway::{Event, Session};

#[test]
fn a_queue_poll_subscription_sees_every_event_in_order() {
    let s = Session::open(None).unwrap();
    let sub = s.poll_subscription(Some(r#"{"policy":"queue","capacity":65536}"#)).unwrap();
    assert!(sub.poll().unwrap().is_none(), "an event before any input");
    s.start(Some(T0)).unwrap();
    for i in 0..30usize {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
        if i == 10 {
            s.pause(None).unwrap();
            s.resume(None).unwrap();
        }
    }
    s.tick(Some(T0 + 31.0)).unwrap();
    s.stop(None).unwrap();
    let events: Vec<Event> = sub.drain().collect::<runway::Result<_>>().unwrap();
    assert!(sub.poll().unwrap().is_none(), "drain left events");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "gaps or disorder: {seqs:?}");
    assert_eq!(*seqs.last().unwrap(), seq_now(&s));
    let flights = events.iter().filter(|e| e.kind == "flight").count();
    assert!(flights >= 30, "{flights} flight events for 30 fixes");
    let phases: Vec<String> =
        events.iter().filter(|e| e.kind == "phase").map(|e| e.str_field("to").unwrap()).collect();
    assert_eq!(phases, ["cruise", "holding", "cruise", "touchdown"]);
    assert!(events.iter().any(|e| e.kind == "tick"));
    assert!(events.iter().any(|e| e.kind == "log"));
}

#[test]
fn the_latest_policy_coalesces_snapshots_but_keeps_discrete_events() {
    let s = cruising(0);
    let sub = s.poll_subscription(None).unwrap();
    for i in 0..50usize {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    s.pause(None).unwrap();
    let events: Vec<Event> = sub.drain().map(Result::unwrap).collect();
    let flights: Vec<&Event> = events.iter().filter(|e| e.kind == "flight").collect();
    assert_eq!(flights.len(), 1, "flight snapshots did not coalesce: {}", flights.len());
    let snap = s.snapshot_json().unwrap();
    for key in ["phase", "fixes", "lat", "distance_m", "t"] {
        assert_eq!(
            flights[0].field(key),
            runway::json::raw_field(&snap, key),
            "{key}: the kept snapshot is not the newest"
        );
    }
    assert_eq!(events.iter().filter(|e| e.kind == "phase").count(), 1);
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "out of order: {seqs:?}");
}

#[test]
fn a_full_queue_reports_an_overflow() {
    let s = cruising(0);
    let sub = s.poll_subscription(Some(r#"{"kinds":["flight"],"policy":"queue","capacity":5}"#)).unwrap();
    let all = s.poll_subscription(Some(r#"{"kinds":["flight"],"policy":"queue","capacity":100}"#)).unwrap();
    for i in 0..20usize {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    let flights: Vec<Event> = all.drain().map(Result::unwrap).collect();
    assert_eq!(flights.len(), 20, "one flight event a fix");
    let events: Vec<Event> = sub.drain().map(Result::unwrap).collect();
    assert_eq!(events.len(), 6, "{events:?}");
    assert_eq!(events[..5], flights[..5], "the queue kept the oldest five");
    let overflow = &events[5];
    assert_eq!(overflow.kind, "overflow");
    assert_eq!(overflow.f64_field("dropped"), Some(15.0));
    assert_eq!(overflow.seq, flights[19].seq, "the overflow's seq is the last dropped one");
}

#[test]
fn kinds_filter_what_a_subscriber_receives() {
    let s = cruising(0);
    let sub = s.poll_subscription(Some(r#"{"kinds":["phase"],"policy":"queue"}"#)).unwrap();
    for i in 0..5usize {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    s.pause(None).unwrap();
    s.stop(None).unwrap();
    let kinds: Vec<String> = sub.drain().map(|e| e.unwrap().kind).collect();
    assert_eq!(kinds, ["phase", "phase"]);
}
