import RunwayCore

/// The delivery side of a session: the loop of each callback subscription's thread, and the
/// retired list through which that thread hands back the payloads it is done with.
///
///     // on the delivery thread, lock held:
///     guard let p = sub.next(flight: flightSlot) else { sub.waiting = true; sub.wake.wait(); ... }
///     // lock released: p's text is serialised (once, for every subscriber) and the callback runs
///     // lock held again: retire(p), then the next event
extension Session {
    /// The delivery loop of one callback subscription, on its own thread. It allocates and frees
    /// nothing itself (see `Payload`). With nothing to deliver it waits with `waiting` set; the
    /// call that queues its next event notes it in `pendingWakes` and, after its lock is
    /// released, wakes one such thread, which wakes the next as it takes its event, and so on: a
    /// thread still busy with a callback is never signalled (it finds the new events itself).
    func deliver(_ sub: Subscription, target: CallbackTarget) {
        ThreadState.markDeliveryThread(token)
        // The wake-up to pass on: the next waiting subscriber with events (see `pendingWakes`),
        // so that the pushing thread signals one thread a call, not every one.
        var passOn: Subscription?
        lock.lock()
        while !sub.cancelled {
            guard let payload = sub.next(flight: flightSlot) else {
                passOn?.wake.signal()   // woken with nothing to deliver: pass it on at once
                sub.waiting = true
                sub.wake.wait()
                sub.waiting = false
                passOn = pendingWakes.popLast()
                continue
            }
            let next = passOn ?? pendingWakes.popLast()
            passOn = nil
            lock.unlock()
            next?.wake.signal()
            payload.withBytes { buf in
                guard let base = buf.baseAddress else { return }
                target.fn(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), target.user)
            }
            lock.lock()
            retire(payload)
        }
        (passOn ?? pendingWakes.popLast())?.wake.signal()
        sub.running = false
        idle.broadcast()
        lock.unlock()
    }

    /// Gives up a delivery thread's reference to `payload` (lock held): when it is the last one,
    /// the payload joins the retired list instead of being freed on this thread. Every other
    /// reference is dropped under the lock too (queues, polls), so "the last one" is exact.
    private func retire(_ payload: consuming Payload) {
        var p = payload
        guard isKnownUniquelyReferenced(&p) else { return }
        p.nextRetired = retired
        retired = p
    }

    /// Drops a reference under the lock (a poll's, so that a delivery thread's `retire` sees every
    /// other reference it races with).
    static func discard(_ payload: consuming Payload) {}

    /// Frees a retired list, one payload at a time (no recursion down the list).
    static func free(_ list: Payload?) {
        var next = list
        while let p = next {
            next = p.nextRetired
            p.nextRetired = nil
        }
    }
}
