//! The C contract itself, through `sys`, where the safe layer would hide a library fault.

mod common;

use std::os::raw::{c_char, c_void};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use common::*;
use runway::sys;

struct Ctx {
    session: AtomicU64, // the session pointer, as an integer
    id: AtomicU64,
    once: AtomicBool,
    entered: Mutex<Sender<()>>,
    gate: Mutex<Receiver<()>>,
    finished: AtomicBool,
}

unsafe extern "C" fn unsubscribe_self_then_wait(_json: *const c_char, user: *mut c_void) {
    let ctx = unsafe { &*(user as *const Ctx) };
    if ctx.once.swap(true, Ordering::SeqCst) {
        return;
    }
    let s = ctx.session.load(Ordering::SeqCst) as *mut sys::runway_session;
    let code = unsafe { sys::runway_unsubscribe(s, ctx.id.load(Ordering::SeqCst)) };
    assert_eq!(code, sys::RUNWAY_OK); // a panic here aborts: it cannot unwind out of extern "C"
    let _ = ctx.entered.lock().unwrap().send(());
    let _ = ctx.gate.lock().unwrap().recv_timeout(WAIT);
    ctx.finished.store(true, Ordering::SeqCst);
}

/// runway.h: runway_session_close "ends all its subscriptions, waits until none of its
/// callbacks is running". That includes a callback that has just ended its own subscription
/// (from inside, runway_unsubscribe does not wait) and is still running.
#[test]
fn close_waits_for_a_callback_that_unsubscribed_itself() {
    let (entered_tx, entered_rx) = mpsc::channel();
    let (gate_tx, gate_rx) = mpsc::channel();
    // Leaked on purpose: if the library is wrong, the callback outlives the session.
    let ctx: &'static Ctx = Box::leak(Box::new(Ctx {
        session: AtomicU64::new(0),
        id: AtomicU64::new(0),
        once: AtomicBool::new(false),
        entered: Mutex::new(entered_tx),
        gate: Mutex::new(gate_rx),
        finished: AtomicBool::new(false),
    }));
    let mut s = ptr::null_mut();
    assert_eq!(unsafe { sys::runway_session_open(ptr::null(), &mut s) }, sys::RUNWAY_OK);
    ctx.session.store(s as u64, Ordering::SeqCst);
    let mut id = 0;
    let user = ctx as *const Ctx as *mut c_void;
    let opts = c"{\"kinds\":[\"phase\"]}";
    let code =
        unsafe { sys::runway_subscribe(s, opts.as_ptr(), Some(unsubscribe_self_then_wait), user, &mut id) };
    assert_eq!(code, sys::RUNWAY_OK);
    ctx.id.store(id, Ordering::SeqCst);
    assert_eq!(unsafe { sys::runway_start(s, T0) }, sys::RUNWAY_OK);
    entered_rx.recv_timeout(WAIT).expect("the callback did not run");

    let s_addr = s as usize;
    let closer = thread::spawn(move || {
        unsafe { sys::runway_session_close(s_addr as *mut sys::runway_session) };
        ctx.finished.load(Ordering::SeqCst)
    });
    // A head start for the close (not a wait for an outcome: with a correct library the
    // assertion holds for every interleaving).
    let _ = mpsc::channel::<()>().1.recv_timeout(Duration::from_millis(200));
    gate_tx.send(()).unwrap();
    assert!(
        closer.join().unwrap(),
        "runway_session_close returned while a callback that had unsubscribed itself was still running"
    );
}

struct Gate {
    session: AtomicU64,
    id: AtomicU64,
    entered: Mutex<Sender<()>>,
    gate: Mutex<Receiver<()>>,
    finished: AtomicBool,
    close_refused: AtomicBool,
}

unsafe extern "C" fn wait_at_gate(_json: *const c_char, user: *mut c_void) {
    let g = unsafe { &*(user as *const Gate) };
    let _ = g.entered.lock().unwrap().send(());
    let _ = g.gate.lock().unwrap().recv_timeout(WAIT);
    g.finished.store(true, Ordering::SeqCst);
}

unsafe extern "C" fn try_to_close(_json: *const c_char, user: *mut c_void) {
    let g = unsafe { &*(user as *const Gate) };
    let s = g.session.load(Ordering::SeqCst) as *mut sys::runway_session;
    unsafe { sys::runway_session_close(s) };
    let msg = unsafe { std::ffi::CStr::from_ptr(sys::runway_last_error()) };
    // Still open: a snapshot works.
    let mut out = ptr::null_mut();
    let ok = unsafe { sys::runway_snapshot_json(s, &mut out) } == sys::RUNWAY_OK;
    unsafe { sys::runway_string_free(out) };
    g.close_refused.store(ok && !msg.to_bytes().is_empty(), Ordering::SeqCst);
    let _ = g.entered.lock().unwrap().send(());
}

fn gate() -> (&'static Gate, Receiver<()>, Sender<()>) {
    let (entered_tx, entered_rx) = mpsc::channel();
    let (gate_tx, gate_rx) = mpsc::channel();
    let g = Box::leak(Box::new(Gate {
        session: AtomicU64::new(0),
        id: AtomicU64::new(0),
        entered: Mutex::new(entered_tx),
        gate: Mutex::new(gate_rx),
        finished: AtomicBool::new(false),
        close_refused: AtomicBool::new(false),
    }));
    (g, entered_rx, gate_tx)
}

fn open_with(
    g: &'static Gate,
    f: unsafe extern "C" fn(*const c_char, *mut c_void),
) -> *mut sys::runway_session {
    let mut s = ptr::null_mut();
    assert_eq!(unsafe { sys::runway_session_open(ptr::null(), &mut s) }, sys::RUNWAY_OK);
    g.session.store(s as u64, Ordering::SeqCst);
    let mut id = 0;
    let opts = c"{\"kinds\":[\"phase\"]}";
    let user = g as *const Gate as *mut c_void;
    assert_eq!(unsafe { sys::runway_subscribe(s, opts.as_ptr(), Some(f), user, &mut id) }, sys::RUNWAY_OK);
    g.id.store(id, Ordering::SeqCst);
    s
}

/// runway.h: runway_unsubscribe from outside a callback "returns when that subscription's
/// callback is not running and will never run again".
#[test]
fn unsubscribe_waits_for_a_running_callback() {
    let (g, entered, open_gate) = gate();
    let s = open_with(g, wait_at_gate);
    assert_eq!(unsafe { sys::runway_start(s, T0) }, sys::RUNWAY_OK);
    entered.recv_timeout(WAIT).expect("the callback did not run");
    let s_addr = s as usize;
    let id = g.id.load(Ordering::SeqCst);
    let ender = thread::spawn(move || {
        let code = unsafe { sys::runway_unsubscribe(s_addr as *mut sys::runway_session, id) };
        (code, g.finished.load(Ordering::SeqCst))
    });
    let _ = mpsc::channel::<()>().1.recv_timeout(Duration::from_millis(200)); // head start
    open_gate.send(()).unwrap();
    assert_eq!(ender.join().unwrap(), (sys::RUNWAY_OK, true), "unsubscribe returned while the callback ran");
    unsafe { sys::runway_session_close(s) };
}

/// runway.h: runway_session_close from inside a callback "is detected, nothing is closed, and
/// runway_last_error() says so".
#[test]
fn close_inside_a_callback_is_refused() {
    let (g, entered, _gate) = gate();
    let s = open_with(g, try_to_close);
    assert_eq!(unsafe { sys::runway_start(s, T0) }, sys::RUNWAY_OK);
    entered.recv_timeout(WAIT).expect("the callback did not run");
    assert!(g.close_refused.load(Ordering::SeqCst), "close inside a callback was not refused");
    assert_eq!(unsafe { sys::runway_stop(s, T0 + 1.0) }, sys::RUNWAY_OK, "the session was closed");
    unsafe { sys::runway_session_close(s) };
}
