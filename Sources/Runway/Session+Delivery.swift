import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// The delivery side of a session: the loop of each callback subscription's thread, and the
/// retired list through which that thread hands back the payloads it is done with.
///
///     // on the delivery thread, lock held:
///     guard let p = nextEvent(sub) else { sub.waiting = true; sub.wake.wait(); ... }
///     // lock released: p's text is serialised (once, for every subscriber) and the callback runs
///     // lock held again: retire(p), then the next event
extension Session {
    /// The pacing of flight snapshots to one `latest` callback subscriber, in nanoseconds
    /// (`flightIntervalNs`): at most one an interval, the intervals on a grid the session's
    /// subscribers share (`nextFlightDue`), at least half an interval apart. A snapshot that
    /// comes sooner waits (newer ones take its place) until the next interval: however fast the
    /// pushes, a subscriber's thread takes at most 4 000 snapshots a second (a display needs
    /// 60), so it leaves the pushing thread its core, and the newest push is shown within about
    /// 0.25 ms. Other events are never held back.
    static let defaultFlightIntervalNs: UInt64 = 250_000

    /// When a `latest` subscriber that took a snapshot at `now` may take the next: the end of
    /// the interval, on a grid of intervals shared by the session's subscribers (so that they
    /// come for their snapshots together and share one, see `currentFlight`), at least half an
    /// interval away.
    static func nextFlightDue(after now: UInt64, interval: UInt64) -> UInt64 {
        guard interval > 0 else { return now }
        let next = (now / interval &+ 1) &* interval
        return next &- now >= interval / 2 ? next : next &+ interval
    }

    /// The delivery loop of one callback subscription, on its own thread. It allocates and frees
    /// nothing itself (see `Payload`). With nothing to deliver it waits with `waiting` set; the
    /// call that queues its next event notes it in `pendingWakes` and, after its lock is
    /// released, wakes one such thread, which wakes the next before it takes its own event, and
    /// so on: a thread still busy with a callback is never signalled (it finds the new events
    /// itself). Flight snapshots are paced (`defaultFlightIntervalNs`): within the interval the
    /// thread waits with `pacing` set instead, which a new snapshot does not interrupt (the
    /// timeout ends it) and any other event does.
    func deliver(_ sub: Subscription, target: CallbackTarget) {
        ThreadState.markDeliveryThread(token)
        // When this thread may take its next flight snapshot (monotonic ns).
        var flightDue: UInt64 = 0
        let paced = sub.takesLatestFlight
        lock.lock()
        while !sub.cancelled {
            // A wake-up to pass on (the next waiting subscriber with events), so that the pushing
            // thread signals one thread a call, not every one: passed on first, before this
            // thread takes anything, so that nothing it took grows stale should the thread it
            // wakes take its core for a while.
            if let next = pendingWakes.popLast() {
                lock.unlock()
                next.wake.signal()
                lock.lock()
                continue
            }
            // (Draining for a close: the newest snapshot now, unpaced, then the end.)
            let now = paced && !sub.draining ? Session.monotonicNs() : 0
            // Only a snapshot pending, too soon after the last: wait out the interval. So is
            // nothing pending, so that the snapshots to come do not wake the thread before then.
            if paced && !sub.draining && now < flightDue && !sub.hasOtherPending {
                park(sub, pacing: true, until: flightDue)
                continue
            }
            guard let payload = nextEvent(sub, now: now) else {
                if sub.draining { break }
                park(sub, pacing: false, until: 0)
                continue
            }
            if paced && payload.kind == .flight { flightDue = Session.nextFlightDue(after: now, interval: flightIntervalNs) }
            lock.unlock()
            payload.withBytes { buf in
                guard let base = buf.baseAddress else { return }
                target.fn(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), target.user)
            }
            lock.lock()
            retire(payload)
        }
        pendingWakes.popLast()?.wake.signal()
        sub.running = false
        idle.broadcast()
        lock.unlock()
    }

    /// Waits on the subscription's condition (lock held): until woken (`waiting`), or until
    /// the monotonic clock reads `deadline` unless woken for another event (`pacing`).
    private func park(_ sub: Subscription, pacing: Bool, until deadline: UInt64) {
        #if DEBUG
        sub.waits += 1
        #endif
        if pacing {
            sub.pacing = true
            sub.wake.wait(untilMonotonicNs: deadline)
            sub.pacing = false
        } else {
            sub.waiting = true
            sub.wake.wait()
            sub.waiting = false
        }
    }

    static func monotonicNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Gives up a delivery thread's reference to `payload` (lock held): when it is the last one,
    /// the payload joins the retired list instead of being freed on this thread. Every other
    /// reference is dropped under the lock too (queues, polls), so "the last one" is exact.
    private func retire(_ payload: consuming Payload) {
        var p = payload
        guard isKnownUniquelyReferenced(&p), !keepSpareFlight(p) else { return }
        p.nextRetired = retired
        retired = p
    }

    /// Drops a poll's reference under the lock (so that a delivery thread's `retire` sees every
    /// other reference it races with); a reusable flight payload left with no other goes back to
    /// the spares.
    func release(_ payload: consuming Payload) {
        var p = payload
        guard isKnownUniquelyReferenced(&p) else { return }
        _ = keepSpareFlight(p)
    }

    /// Frees a retired list, one payload at a time (no recursion down the list).
    static func free(_ list: Payload?) {
        var next = list
        while let p = next {
            next = p.nextRetired
            p.nextRetired = nil
        }
    }
}
