//! Callback and poll subscriptions: threads, cancellation, lifetimes. (Queues, policies,
//! overflow and kinds: subscription_policies.rs.)

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;

use common::*;
use runway::{Event, Session, Subscription};

/// A closure that forwards every event into a channel.
fn forward() -> (impl FnMut(&Event) + Send + 'static, mpsc::Receiver<Event>) {
    let (tx, rx) = mpsc::channel();
    (move |e: &Event| drop(tx.send(e.clone())), rx)
}

/// After `rx`'s closure has been freed: every event it sent, then the disconnect, at once.
fn drain_closed(rx: &mpsc::Receiver<Event>) -> Vec<Event> {
    let got: Vec<Event> = rx.try_iter().collect();
    assert_eq!(rx.try_recv().unwrap_err(), mpsc::TryRecvError::Disconnected, "the closure is still alive");
    got
}

#[test]
fn callbacks_run_on_a_library_thread() {
    let s = cruising(0);
    let (tx, rx) = mpsc::channel();
    let _sub = s
        .subscribe(Some(r#"{"kinds":["flight"]}"#), move |e| {
            let _ = tx.send((thread::current().id(), e.kind.clone(), e.seq));
        })
        .unwrap();
    s.push_json(&fix_json(T0, 0)).unwrap();
    let (id, kind, seq) = rx.recv_timeout(WAIT).expect("no event");
    assert_ne!(id, thread::current().id(), "the callback ran on the test thread");
    assert_eq!(kind, "flight");
    assert!(seq > 0);
}

#[test]
fn events_start_with_the_next_one_and_carry_kind_and_seq() {
    let s = cruising(3);
    let before = seq_now(&s);
    let (f, rx) = forward();
    let _sub = s.subscribe(Some(r#"{"policy":"queue"}"#), f).unwrap();
    s.pause(Some(T0 + 3.0)).unwrap();
    let phase = recv_until(&rx, "the phase event", |e| e.kind == "phase");
    assert!(phase.seq > before, "an event from before the subscription: {phase:?}");
    assert_eq!(phase.str_field("from").as_deref(), Some("cruise"));
    assert_eq!(phase.str_field("to").as_deref(), Some("holding"));
    assert_eq!(phase.f64_field("t"), Some(T0 + 3.0));
}

#[test]
fn cancelling_one_subscriber_leaves_the_other_running() {
    let s = cruising(1);
    let (fa, rx_a) = forward();
    let (fb, rx_b) = forward();
    let a = s.subscribe(Some(r#"{"policy":"queue"}"#), fa).unwrap();
    let _b = s.subscribe(Some(r#"{"policy":"queue"}"#), fb).unwrap();

    s.push_json(&fix_json(T0 + 1.0, 1)).unwrap();
    let target = seq_now(&s);
    recv_until(&rx_a, "a's first events", |e| e.seq >= target);
    recv_until(&rx_b, "b's first events", |e| e.seq >= target);

    a.cancel().unwrap();
    // cancel returned: a's closure is freed, so it can never run again.
    let late = drain_closed(&rx_a);
    assert!(late.iter().all(|e| e.seq <= target), "a ran after cancel: {late:?}");

    for i in 2..6 {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    let target = seq_now(&s);
    recv_until(&rx_b, "b's events after a was cancelled", |e| e.seq >= target);
}

#[test]
fn cancelling_is_final_and_repeating_it_is_harmless() {
    let s = cruising(1);
    let (f, rx) = forward();
    let sub = s.subscribe(None, f).unwrap();
    let id = sub.id();
    assert_ne!(id, 0);
    sub.cancel().unwrap();
    drain_closed(&rx);
    // Again, at the C level: NOT_FOUND, harmless.
    assert_eq!(unsafe { runway::sys::runway_unsubscribe(s.as_raw(), id) }, runway::sys::RUNWAY_ERR_NOT_FOUND);

    // Ended through sys first, then dropped: the drop is harmless, the closure freed.
    let (f, rx) = forward();
    let sub = s.subscribe(None, f).unwrap();
    assert_eq!(unsafe { runway::sys::runway_unsubscribe(s.as_raw(), sub.id()) }, runway::sys::RUNWAY_OK);
    assert!(sub.cancel().is_ok());
    drain_closed(&rx);

    // A shared handle taken twice: the second take finds nothing.
    let slot = Arc::new(Mutex::new(Some(s.subscribe(None, |_| {}).unwrap())));
    drop(slot.lock().unwrap().take());
    assert!(slot.lock().unwrap().take().is_none());

    // Cancelling before the first event works, and the session still runs.
    let poll = s.poll_subscription(None).unwrap();
    poll.cancel().unwrap();
    s.push_json(&fix_json(T0 + 1.0, 1)).unwrap();
}

#[test]
fn a_callback_can_end_its_own_subscription() {
    let s = cruising(1);
    let slot: Arc<Mutex<Option<Subscription>>> = Arc::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel();
    let sub = {
        let (slot, calls) = (Arc::clone(&slot), Arc::clone(&calls));
        s.subscribe(Some(r#"{"policy":"queue"}"#), move |e| {
            calls.fetch_add(1, Ordering::SeqCst);
            let own = slot.lock().unwrap().take();
            let had_it = own.is_some();
            let ended = own.map(Subscription::cancel);
            let _ = tx.send((e.seq, had_it, ended));
        })
        .unwrap()
    };
    *slot.lock().unwrap() = Some(sub);
    let (fb, rx_b) = forward();
    let _b = s.subscribe(Some(r#"{"policy":"queue"}"#), fb).unwrap();

    s.push_json(&fix_json(T0 + 1.0, 1)).unwrap();
    let (_, had_it, ended) = rx.recv_timeout(WAIT).expect("the callback did not run");
    assert!(had_it);
    assert_eq!(ended, Some(Ok(())));

    // More events, seen by the other subscriber; the ended one never runs again.
    for i in 2..8 {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    let target = seq_now(&s);
    recv_until(&rx_b, "b's events", |e| e.seq >= target);
    drop(_b);
    drop(s); // closes the session: the deferred closure is freed after it
    let rest: Vec<_> = rx.try_iter().collect();
    assert!(rest.is_empty(), "the callback ran again after ending itself: {rest:?}");
    assert_eq!(rx.try_recv().unwrap_err(), mpsc::TryRecvError::Disconnected);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn closing_the_session_ends_live_subscriptions() {
    let s = cruising(1);
    let (fa, rx_a) = forward();
    let (fb, rx_b) = forward();
    s.subscribe(Some(r#"{"policy":"queue"}"#), fa).unwrap().detach();
    s.subscribe(None, fb).unwrap().detach();
    for i in 1..20 {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    let last = seq_now(&s);
    recv_until(&rx_b, "b's first event", |_| true);
    drop(s);
    // Closed: both closures were freed after the close, none runs any more.
    let a = drain_closed(&rx_a);
    drain_closed(&rx_b);
    assert!(a.iter().all(|e| e.seq <= last));
}

#[test]
fn a_subscription_keeps_its_session_open() {
    let s = cruising(1);
    let (f, rx) = forward();
    let sub = s.subscribe(None, f).unwrap();
    let poll = s.poll_subscription(None).unwrap();
    drop(s);
    // The C session is still open: ending the subscriptions succeeds (not NOT_FOUND on a freed
    // session), and then the last handle closes it.
    poll.cancel().unwrap();
    sub.cancel().unwrap();
    drain_closed(&rx);
}

#[test]
fn closing_waits_for_a_running_callback() {
    let s = cruising(0);
    let (entered_tx, entered_rx) = mpsc::channel();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    let finished = Arc::new(AtomicBool::new(false));
    let done = Arc::clone(&finished);
    s.subscribe(Some(r#"{"kinds":["phase"]}"#), move |_| {
        let _ = entered_tx.send(());
        let _ = gate_rx.recv_timeout(WAIT);
        done.store(true, Ordering::SeqCst);
    })
    .unwrap()
    .detach();
    s.pause(Some(T0)).unwrap();
    entered_rx.recv_timeout(WAIT).expect("the callback did not start");
    let closer = thread::spawn(move || {
        drop(s);
        finished.load(Ordering::SeqCst)
    });
    // Give the close a head start so that a close that does not wait would be seen; the
    // assertion below holds whatever the timing when close waits.
    let _ = head_start();
    gate_tx.send(()).unwrap();
    assert!(closer.join().unwrap(), "the session closed while its callback was running");
}

#[test]
fn closing_waits_for_a_callback_that_ended_its_own_subscription() {
    // The same through the safe layer, where the callback first drops its own Subscription.
    let s = cruising(0);
    let slot: Arc<Mutex<Option<Subscription>>> = Arc::default();
    let (entered_tx, entered_rx) = mpsc::channel();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    let finished = Arc::new(AtomicBool::new(false));
    let sub = {
        let (slot, done) = (Arc::clone(&slot), Arc::clone(&finished));
        s.subscribe(Some(r#"{"kinds":["phase"]}"#), move |_| {
            drop(slot.lock().unwrap().take());
            let _ = entered_tx.send(());
            let _ = gate_rx.recv_timeout(WAIT);
            done.store(true, Ordering::SeqCst);
        })
        .unwrap()
    };
    *slot.lock().unwrap() = Some(sub);
    s.pause(Some(T0)).unwrap();
    entered_rx.recv_timeout(WAIT).expect("the callback did not start");
    let closer = {
        let finished = Arc::clone(&finished);
        thread::spawn(move || {
            drop(s);
            finished.load(Ordering::SeqCst)
        })
    };
    let _ = head_start();
    gate_tx.send(()).unwrap();
    assert!(closer.join().unwrap(), "the closure was freed while still running");
}

/// A short pause that lets another thread get going. Not a wait for an outcome: tests that
/// use it assert what must hold for every interleaving.
fn head_start() -> Result<(), RecvTimeoutError> {
    let (_tx, rx) = mpsc::channel::<()>();
    rx.recv_timeout(std::time::Duration::from_millis(200))
}

#[test]
fn a_callback_may_call_back_into_the_library() {
    let s = Arc::new(cruising(1));
    let (tx, rx) = mpsc::channel();
    let inner = Arc::clone(&s);
    let sub = s
        .subscribe(Some(r#"{"kinds":["phase"]}"#), move |e| {
            let snap = inner.snapshot_json().map(|j| runway::json::str_field(&j, "phase"));
            let _ = tx.send((e.str_field("to"), snap));
        })
        .unwrap();
    s.pause(None).unwrap();
    let (to, snap) = rx.recv_timeout(WAIT).unwrap();
    assert_eq!(to.as_deref(), Some("holding"));
    assert_eq!(snap.unwrap().as_deref(), Some("holding"));
    sub.cancel().unwrap(); // breaks the cycle closure -> Arc<Session>
    assert_eq!(Arc::strong_count(&s), 1);
}

#[test]
fn dropping_the_last_handle_inside_a_callback_closes_after_it() {
    let s = cruising(0);
    let raw = s.as_raw();
    let slot: Arc<Mutex<Option<Session>>> = Arc::default();
    let (tx, rx) = mpsc::channel();
    {
        let slot = Arc::clone(&slot);
        s.subscribe(Some(r#"{"kinds":["phase"]}"#), move |_| {
            if let Some(session) = slot.lock().unwrap().take() {
                drop(session); // the last handle: the close must happen off this thread
                let _ = tx.send("dropped");
            }
        })
        .unwrap()
        .detach();
    }
    *slot.lock().unwrap() = Some(s);
    // The session is open (the slot owns it); trigger an event through the raw pointer.
    assert_eq!(unsafe { runway::sys::runway_pause(raw, T0) }, runway::sys::RUNWAY_OK);
    assert_eq!(rx.recv_timeout(WAIT), Ok("dropped"));
    // Closed on a helper thread after the callback returned; then the closure was freed.
    assert_eq!(rx.recv_timeout(WAIT), Err(RecvTimeoutError::Disconnected));
}

#[test]
fn a_refused_subscription_frees_its_closure_at_once() {
    let s = cruising(0);
    let polls: Vec<_> =
        (0..runway::sys::RUNWAY_MAX_SUBSCRIBERS).map(|_| s.poll_subscription(None).unwrap()).collect();
    let (f, rx) = forward();
    let err = s.subscribe(None, f).expect_err("a subscription beyond RUNWAY_MAX_SUBSCRIBERS");
    assert_eq!(err.status, runway::Status::Limit);
    assert!(err.message.contains("RUNWAY_MAX_SUBSCRIBERS"), "{}", err.message);
    drain_closed(&rx);
    let (f, rx) = forward();
    assert_eq!(s.subscribe(Some(r#"{"bogus":1}"#), f).unwrap_err().status, runway::Status::Argument);
    drain_closed(&rx);
    drop(polls);
    s.subscribe(None, |_| {}).expect("room again after the poll subscriptions ended");
}
