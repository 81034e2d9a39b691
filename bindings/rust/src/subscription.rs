//! Subscriptions: callback ones ([`Subscription`]) and poll ones ([`PollSubscription`]).
//! Implementation notes are on [`Subscription`].
//!
//! Here callback subscriptions; [`Event`] in `event`, poll subscriptions and their [`Drain`] in
//! `poll`.

mod event;
mod poll;

pub use event::Event;
pub(crate) use poll::poll_subscribe;
pub use poll::{Drain, PollSubscription};

use std::any::Any;
use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{check, Result, Status};
use crate::session::{opt_cstring, opt_ptr, Inner};
use crate::sys;
// ---- Callback boxes ---------------------------------------------------------

thread_local! {
    /// How many runway callbacks (of this crate) are running on this thread.
    static CALLBACK_DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Whether the current thread is inside a runway callback delivered through this crate.
pub(crate) fn in_callback() -> bool {
    CALLBACK_DEPTH.try_with(|d| d.get() > 0).unwrap_or(false)
}

struct CallbackScope;

impl CallbackScope {
    fn enter() -> CallbackScope {
        let _ = CALLBACK_DEPTH.try_with(|d| d.set(d.get() + 1));
        CallbackScope
    }
}

impl Drop for CallbackScope {
    fn drop(&mut self) {
        let _ = CALLBACK_DEPTH.try_with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// A boxed user closure.
pub(crate) type Callback = Box<dyn FnMut(&Event) + Send>;

/// What the C `user` pointer points to.
pub(crate) struct CallbackData {
    /// The user's closure. The library never runs a subscription's callback concurrently with
    /// itself, so this lock is uncontended; it makes the sharing plainly sound.
    f: Mutex<Callback>,
    panics: AtomicUsize,
    last_panic: Mutex<Option<String>>,
}

impl CallbackData {
    fn record_panic(&self, payload: Box<dyn Any + Send>) {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "callback panicked (non-string payload)".to_owned()
        };
        *self.last_panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(message);
        self.panics.fetch_add(1, Ordering::SeqCst);
        // A payload's own Drop could panic too; that must not unwind into C either.
        if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
            std::mem::forget(again);
        }
    }
}

/// An owned, leaked `Box<CallbackData>` on its way to being freed after the session closes.
pub(crate) struct CallbackPtr(*mut CallbackData);

// SAFETY: CallbackData is Send + Sync (the closure is Send and behind a Mutex).
unsafe impl Send for CallbackPtr {}

impl CallbackPtr {
    /// Frees the box, after waiting for a call in progress (if any) to return.
    ///
    /// # Safety
    /// No callback may start with this box as `user` any more.
    pub(crate) unsafe fn free(self) {
        let data = Box::from_raw(self.0);
        // A call in progress holds this lock until its last access to the box. Waiting here
        // also covers a callback that ended its own subscription and is still finishing while
        // the session closes.
        drop(data.f.lock());
        drop(data);
    }
}

/// The C callback of every callback subscription: turns the JSON into an [`Event`] and calls
/// the closure in `user`, catching any panic so that it never unwinds into C.
///
/// The closure's lock is held for the whole call and released as the last access to `user`:
/// [`CallbackPtr::free`] takes that lock before freeing, so a box is never freed under a call
/// in progress.
unsafe extern "C" fn trampoline(event_json: *const c_char, user: *mut c_void) {
    if event_json.is_null() || user.is_null() {
        return;
    }
    // SAFETY: user is the CallbackData passed to runway_subscribe; it is freed only when this
    // callback can no longer start, and not before the lock below is released.
    let data = unsafe { &*(user as *const CallbackData) };
    let _scope = CallbackScope::enter();
    let mut f = data.f.lock().unwrap_or_else(PoisonError::into_inner);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: event_json is a NUL-terminated string valid during this call.
        let json = unsafe { CStr::from_ptr(event_json) }.to_string_lossy().into_owned();
        let event = Event::from_json(json);
        (*f)(&event);
    }));
    if let Err(payload) = outcome {
        data.record_panic(payload);
    }
    drop(f); // the last access to `data`
}

pub(crate) fn subscribe(inner: &Arc<Inner>, options: Option<&str>, f: Callback) -> Result<Subscription> {
    let options = opt_cstring(options, Status::Argument)?;
    let data = Box::into_raw(Box::new(CallbackData {
        f: Mutex::new(f),
        panics: AtomicUsize::new(0),
        last_panic: Mutex::new(None),
    }));
    let mut id = 0u64;
    // SAFETY: valid session; options NULL or NUL-terminated; `data` outlives the subscription.
    let code = unsafe {
        sys::runway_subscribe(
            inner.raw(),
            opt_ptr(&options),
            Some(trampoline),
            data.cast::<c_void>(),
            &mut id,
        )
    };
    if let Err(e) = check(code) {
        // Never registered: nothing can call it.
        // SAFETY: the box was created above and handed to nobody.
        unsafe { CallbackPtr(data).free() };
        return Err(e);
    }
    Ok(Subscription { inner: Arc::clone(inner), id, data })
}

/// A callback subscription, from [`Session::subscribe`](crate::Session::subscribe).
///
/// Dropping it (or [`cancel`](Subscription::cancel)) ends the subscription. It keeps its
/// session open (see [`Session`](crate::Session#lifetime)). It is `Send + Sync`, so a callback
/// can own a handle to its own subscription (e.g. `Arc<Mutex<Option<Subscription>>>`) and end
/// it from inside by dropping it; the callback in progress finishes and no later one starts.
///
/// # When the closure is freed
/// [`Session::subscribe`](crate::Session::subscribe) boxes the closure and passes the box as
/// the C `user` pointer, with a trampoline as the C callback. The box is freed only when it can
/// no longer run:
/// - [`Subscription::cancel`] or drop outside any callback: `runway_unsubscribe` returns when
///   the callback is not running and will never run again, so the box is freed at once;
/// - inside a callback (its own or another's): `runway_unsubscribe` does not wait, so the box
///   is handed to the session and freed right after the session closes;
/// - [`Subscription::detach`]: likewise, the subscription stays active until the session
///   closes.
///
/// In addition, freeing a box waits for a call of it in progress (the trampoline holds the
/// closure's lock until its last access to the box), so a late-finishing callback is never
/// freed under its feet whatever the library's timing.
///
/// "Inside a callback" means inside a closure called by this crate. Dropping safe handles from
/// a raw callback registered through [`sys`](crate::sys) is not covered by this reasoning.
///
/// ```no_run
/// # fn main() -> runway::Result<()> {
/// use std::sync::{Arc, Mutex};
/// let session = runway::Session::open(None)?;
/// let slot: Arc<Mutex<Option<runway::Subscription>>> = Arc::default();
/// let in_callback = Arc::clone(&slot);
/// let sub = session.subscribe(None, move |event| {
///     if event.kind == "phase" {
///         drop(in_callback.lock().unwrap().take()); // one phase change is enough
///     }
/// })?;
/// *slot.lock().unwrap() = Some(sub);
/// session.start(None)?; // the phase event ends the subscription from inside its callback
/// # Ok(()) }
/// ```
pub struct Subscription {
    inner: Arc<Inner>,
    id: u64,
    /// The leaked closure box; null once ended or detached.
    data: *mut CallbackData,
}

// SAFETY: Inner is Send + Sync; `data` points to a Send + Sync CallbackData that this handle
// owns until it ends; reads through it (panic counters) are synchronized.
unsafe impl Send for Subscription {}
unsafe impl Sync for Subscription {}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").field("id", &self.id).finish()
    }
}

impl Subscription {
    /// The subscription's id (never 0).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// How many times the callback panicked (each panic was caught).
    pub fn panic_count(&self) -> usize {
        self.data().map_or(0, |d| d.panics.load(Ordering::SeqCst))
    }

    /// The message of the callback's latest panic, if any.
    pub fn last_panic(&self) -> Option<String> {
        self.data().and_then(|d| d.last_panic.lock().unwrap_or_else(PoisonError::into_inner).clone())
    }

    /// Ends the subscription. Called outside any callback, it returns when the callback is not
    /// running and will never run again, and frees the closure. Called inside a callback, it
    /// does not wait: the callback in progress finishes, no later one starts, and the closure
    /// is freed when the session closes. A subscription already ended through [`sys`] is not
    /// an error.
    pub fn cancel(mut self) -> Result<()> {
        self.end()
    }

    /// Lets the subscription run until the session closes, without keeping the session open:
    /// the closure is freed after the session is closed.
    pub fn detach(mut self) {
        let data = std::mem::replace(&mut self.data, ptr::null_mut());
        self.inner.defer(CallbackPtr(data));
    }

    fn data(&self) -> Option<&CallbackData> {
        // SAFETY: non-null `data` is owned by this handle and alive.
        unsafe { self.data.as_ref() }
    }

    fn end(&mut self) -> Result<()> {
        let data = std::mem::replace(&mut self.data, ptr::null_mut());
        if data.is_null() {
            return Ok(());
        }
        // SAFETY: valid session (this handle keeps it open).
        let result = match check(unsafe { sys::runway_unsubscribe(self.inner.raw(), self.id) }) {
            // Already ended (through sys): just as final.
            Err(e) if e.status == Status::NotFound => Ok(()),
            other => other,
        };
        if result.is_ok() && !in_callback() {
            // SAFETY: the subscription has ended, so no later call starts; free() waits for
            // a call in progress.
            unsafe { CallbackPtr(data).free() };
        } else {
            // Inside a callback, free() could wait on a call that waits on us (or on this very
            // call); after a failed unsubscribe the callback may still be active. Keep the box
            // until the session closes.
            self.inner.defer(CallbackPtr(data));
        }
        result
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let _ = self.end();
    }
}
