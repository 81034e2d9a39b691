//! Poll subscriptions: [`PollSubscription`] and its [`Drain`].

use std::os::raw::c_char;
use std::ptr;
use std::sync::Arc;

use super::Event;
use crate::error::{check, Result, Status};
use crate::session::{copy_and_free, opt_cstring, opt_ptr, Inner};
use crate::sys;

pub(crate) fn poll_subscribe(inner: &Arc<Inner>, options: Option<&str>) -> Result<PollSubscription> {
    let options = opt_cstring(options, Status::Argument)?;
    let mut id = 0u64;
    // SAFETY: valid session; options NULL or NUL-terminated; fn NULL = poll subscription.
    check(unsafe { sys::runway_subscribe(inner.raw(), opt_ptr(&options), None, ptr::null_mut(), &mut id) })?;
    Ok(PollSubscription { inner: Arc::clone(inner), id, ended: false })
}

/// A poll subscription, from [`Session::poll_subscription`](crate::Session::poll_subscription):
/// events wait in the library until taken with [`poll`](PollSubscription::poll). Ended on drop
/// or [`cancel`](PollSubscription::cancel); keeps its session open while alive.
pub struct PollSubscription {
    inner: Arc<Inner>,
    id: u64,
    ended: bool,
}

impl std::fmt::Debug for PollSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollSubscription").field("id", &self.id).finish()
    }
}

impl PollSubscription {
    /// The subscription's id (never 0).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Takes the next waiting event, or `None` when none is waiting. Never blocks.
    pub fn poll(&self) -> Result<Option<Event>> {
        let mut out: *mut c_char = ptr::null_mut();
        // SAFETY: valid session; *out is a library string or NULL.
        check(unsafe { sys::runway_poll(self.inner.raw(), self.id, &mut out) })?;
        Ok(copy_and_free(out).map(Event::from_json))
    }

    /// An iterator that takes the events waiting now, ending when none is left (or after
    /// yielding an error).
    pub fn drain(&self) -> Drain<'_> {
        Drain { sub: self, done: false }
    }

    /// Ends the subscription; events still waiting are discarded.
    pub fn cancel(mut self) -> Result<()> {
        self.end()
    }

    fn end(&mut self) -> Result<()> {
        if std::mem::replace(&mut self.ended, true) {
            return Ok(());
        }
        // SAFETY: valid session (this handle keeps it open).
        match check(unsafe { sys::runway_unsubscribe(self.inner.raw(), self.id) }) {
            Err(e) if e.status == Status::NotFound => Ok(()),
            other => other,
        }
    }
}

impl Drop for PollSubscription {
    fn drop(&mut self) {
        let _ = self.end();
    }
}

/// The events waiting in a [`PollSubscription`], from [`PollSubscription::drain`].
#[derive(Debug)]
pub struct Drain<'a> {
    sub: &'a PollSubscription,
    done: bool,
}

impl Iterator for Drain<'_> {
    type Item = Result<Event>;

    fn next(&mut self) -> Option<Result<Event>> {
        if self.done {
            return None;
        }
        match self.sub.poll() {
            Ok(Some(event)) => Some(Ok(event)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for Drain<'_> {}
