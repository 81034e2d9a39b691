import RunwayCore
/// A session's subscriptions: made (a callback one gets its delivery thread), polled, ended one
/// at a time, and all ended by close, which lets each callback subscription deliver what was
/// queued for it first.
///
///     let id = try session.subscribe(options: options, target: nil)   // a poll subscription
///     try session.poll(id) { json in /* one event, or nil */ }
///     try session.unsubscribe(id)
extension Session {
    func subscribe(options: SubscriptionOptions, target: CallbackTarget?) throws(RunwayError) -> UInt64 {
        try locked { () throws(RunwayError) -> UInt64 in
            // A callback delivering what was queued while the session closes: close ends only
            // the subscriptions it found, so one made now would outlive it (thread never joined).
            guard !closed else {
                throw RunwayError(.state, "the session is closing (runway_session_close): no new subscription")
            }
            guard subscriptions.count < Session.maxSubscribers else {
                throw RunwayError(.limit, "the session already has \(subscriptions.count) subscriptions, the limit of \(Session.maxSubscribers) (RUNWAY_MAX_SUBSCRIBERS)")
            }
            reapRetired()
            let id = nextID
            let sub = Subscription(id: id, options: options, target: target, lock: lock)
            if let target {
                sub.running = true
                sub.thread = spawnJoinableThread { [self] in deliver(sub, target: target) }
                guard sub.thread != nil else {
                    sub.running = false
                    throw RunwayError(.internal, "could not start a delivery thread")
                }
            }
            nextID += 1
            subscriptions.append(sub)
            subscriptionsChanged()
            return id
        }
    }

    /// The subscriptions (tests; lock held).
    var subscriptionsForTests: [Subscription] { subscriptions }

    private func subscription(_ id: UInt64) throws(RunwayError) -> Subscription {
        guard let sub = subscriptions.first(where: { $0.id == id }) else {
            throw RunwayError(.notFound, "no subscription \(id) in this session")
        }
        return sub
    }

    /// Takes the next event of a poll subscription and calls `body` with its NUL-terminated JSON
    /// (outside the lock), or with nil when there is none.
    func poll(_ id: UInt64, _ body: (UnsafeBufferPointer<UInt8>?) throws(RunwayError) -> Void) throws(RunwayError) {
        let payload = try locked { () throws(RunwayError) -> Payload? in
            let sub = try subscription(id)
            guard sub.target == nil else {
                throw RunwayError(.argument, "subscription \(id) delivers by callback; runway_poll is for poll subscriptions")
            }
            return nextEvent(sub)
        }
        guard let payload else { return try body(nil) }
        defer { lock.withLock { release(payload) } }
        try payload.withBytes { (buf) throws(RunwayError) in try body(buf) }
    }

    func unsubscribe(_ id: UInt64) throws(RunwayError) {
        try locked { () throws(RunwayError) in
            guard let index = subscriptions.firstIndex(where: { $0.id == id }) else {
                throw RunwayError(.notFound, "no subscription \(id) in this session (already ended?)")
            }
            let sub = subscriptions.remove(at: index)
            pendingWakes.removeAll { $0 === sub }
            subscriptionsChanged()
            sub.cancelled = true
            sub.wake.signal()
            reapRetired()
            // Inside a callback we must not wait (it could be waiting on itself): its thread is
            // joined later, by the next subscribe or unsubscribe after it finished, or by close.
            guard !ThreadState.isDeliveryThread else {
                if sub.thread != nil { retiring.append(sub) }
                return
            }
            while sub.running { idle.wait() }
            sub.joinThread()
        }
    }

    /// Joins the threads of subscriptions ended from inside a callback that have finished since.
    /// Called under `lock`; never joins the calling thread (its own subscription is still running).
    private func reapRetired() {
        retiring.removeAll { r in
            guard !r.running else { return false }
            r.joinThread()
            return true
        }
    }

    /// Ends every subscription and waits until no callback of this session runs: each callback
    /// subscription's thread first delivers the events already queued for it (its newest
    /// snapshot, unpaced, for a `latest` one), so a close right after a stop does not lose the
    /// touchdown. Nothing new is queued for them meanwhile: they are out of `subscriptions`.
    /// - Returns: false (and closes nothing) when called from one of this session's callbacks.
    func close() -> Bool {
        guard ThreadState.deliveryToken != token else { return false }
        locked {
            closed = true
            let subs = subscriptions
            subscriptions.removeAll()
            pendingWakes.removeAll()
            subscriptionsChanged()
            for sub in subs {
                sub.draining = true
                sub.wake.signal()
            }
            for sub in subs + retiring {
                while sub.running { idle.wait() }
                sub.joinThread()
            }
            retiring.removeAll()
            store?.close()
            lease?.release()
        }
        return true
    }
}
