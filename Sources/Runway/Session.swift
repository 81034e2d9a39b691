import CRunwayABI
import RunwayCore
import RunwayStore

/// A session as the C ABI sees it: one flight's `FlightComputer` and its subscribers, under one lock.
///
/// Every call runs the core synchronously under the lock, so a call returns after its input is
/// processed. Events are serialised once and queued to each interested subscriber; callback
/// subscribers are served by their own delivery thread, which never holds the lock while it runs
/// the host's callback.
final class Session: @unchecked Sendable {
    let lock = Lock()
    /// Broadcast when a delivery thread finishes a callback or exits.
    let idle: Lock.Condition
    let liveClock: Bool

    // `driver` and `scratch` are touched only under `lock`, which already makes every access
    // exclusive: the runtime's dynamic exclusivity check on each (three a push) is redundant.
    @exclusivity(unchecked) private var driver: FlightDriver
    private var subscriptions: [UInt64: Subscription] = [:]
    private var order: [UInt64] = []
    private var nextID: UInt64 = 1
    private var wanted: UInt32 = 0
    private var closed = false
    /// Callback subscriptions ended from inside a callback, whose thread may still be running
    /// it: close must wait for them too.
    private var retiring: [Subscription] = []
    @exclusivity(unchecked) private var scratch: [Event] = []

    /// The journal of this flight, when the session has a store (written ahead of the core:
    /// an input is journaled, then processed).
    private let store: FlightStore?
    let flightID: String?
    /// Held while this session may write its stored flight.
    private let lease: FlightLease?

    static let maxSubscribers = Int(RUNWAY_MAX_SUBSCRIBERS)

    /// A new session; with a store in the config, a new flight in it.
    convenience init(config: EngineConfig, configText: String?) throws(RunwayError) {
        guard let path = config.storePath else {
            self.init(core: FlightComputer(config: config), store: nil, flightID: nil)
            return
        }
        let store = try FlightStore(path: path, durability: Durability(rawValue: config.durability) ?? .everyFix)
        let id = config.flightID ?? FlightStore.newFlightID(startT: WallClock.now())
        let lease = try FlightLease(storePath: path, flightID: id)
        try store.createFlight(id: id, configJSON: configText ?? "{}")
        var core = FlightComputer(config: config)
        core.flightID = id
        self.init(core: core, store: store, flightID: id, lease: lease)
    }

    init(core: FlightComputer, store: FlightStore?, flightID: String?, lease: FlightLease? = nil) {
        self.driver = FlightDriver(core: core)
        self.store = store
        self.flightID = flightID
        self.lease = lease
        driver.core.emitsSnapshots = false   // until a subscriber wants flight events
        liveClock = driver.core.config.clock == .live
        idle = Lock.Condition(lock)
        scratch.reserveCapacity(8)
    }

    /// An identity that delivery threads carry, to detect close from inside a callback.
    var token: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    // MARK: - Inputs

    /// Processes one decoded input; a rejected one is logged and rethrown.
    func process(_ input: ValidatedInput) throws(RunwayError) {
        let now = liveClock ? WallClock.now() : .nan
        try lock.withLock { () throws(RunwayError) in
            do throws(RunwayError) {
                try perform(.input(input), wallClock: now)
            } catch {
                driver.core.logRejection(error, events: &scratch)
                dispatch()
                throw error
            }
            dispatch()
        }
    }

    /// Processes a batch in order under one lock; returns the first failure with its index.
    func process(batch: [(line: Int, input: Result<ValidatedInput, RunwayError>)],
                 accepted: inout Int, firstError: inout (line: Int, error: RunwayError)?) {
        let now = liveClock ? WallClock.now() : .nan
        lock.withLock {
            for item in batch {
                do throws(RunwayError) {
                    try perform(.input(item.input.get()), wallClock: now)
                    accepted += 1
                } catch {
                    driver.core.logRejection(error, events: &scratch)
                    if firstError == nil { firstError = (item.line, error) }
                }
            }
            dispatch()
        }
    }

    /// Logs an input that failed before reaching the core (bad JSON, bad values).
    func reject(_ error: RunwayError) {
        lock.withLock {
            driver.core.logRejection(error, events: &scratch)
            dispatch()
        }
    }

    func command(_ command: PhaseCommand, at t: Double) throws(RunwayError) {
        let now = liveClock ? WallClock.now() : .nan
        try lock.withLock { () throws(RunwayError) in
            try perform(.command(command, t: t), wallClock: now)
            dispatch()
            if command == .stop, let store, let flightID {
                try store.finish(id: flightID, row: Session.row(of: driver.core, id: flightID), recordJSON: driver.core.summaryJSON())
            }
        }
    }

    func lap(at t: Double) throws(RunwayError) {
        let now = liveClock ? WallClock.now() : .nan
        try lock.withLock { () throws(RunwayError) in
            try perform(.lap(t: t), wallClock: now)
            dispatch()
        }
    }

    /// The driver's one path, journaling to the store when there is one: what the core refuses
    /// (a bad time, a full route) is not journaled, and what the journal could not keep is
    /// refused before it changes anything.
    private func perform(_ request: FlightDriver.Request, wallClock now: Double) throws(RunwayError) {
        guard let store, let flightID else {
            try driver.perform(request, wallClock: now, events: &scratch)
            return
        }
        try driver.perform(request, wallClock: now, journal: { (entry) throws(RunwayError) in
            try store.append(entry, to: flightID)
        }, events: &scratch)
    }

    func tick(at t: Double) throws(RunwayError) {
        let now = WallClock.now()
        try lock.withLock { () throws(RunwayError) in
            guard !closed else { return }
            try driver.perform(.tick(t: t), wallClock: now, events: &scratch)
            dispatch()
            try store?.commitIfDue()
        }
    }

    // MARK: - Outputs

    func snapshot() -> FlightData { lock.withLock { driver.core.snapshot } }

    /// A copy of the core (cheap: its arrays are copy-on-write), to serialise outside the lock.
    func coreCopy() -> FlightComputer { lock.withLock { driver.core } }

    /// Queues the new events to the subscribers that want them (as shared payloads that their
    /// consumers serialise once, outside the lock). Called with the lock held.
    private func dispatch() {
        defer { if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) } }
        guard wanted != 0 else { return }
        for event in scratch where wanted & event.kind.bit != 0 {
            let payload = Payload(event)
            for id in order {
                guard let sub = subscriptions[id], sub.wants(event.kind) else { continue }
                sub.enqueue(payload)
                if sub.target != nil { sub.wake.signal() }
            }
        }
    }

    // MARK: - Subscriptions

    func subscribe(options: SubscriptionOptions, target: CallbackTarget?) throws(RunwayError) -> UInt64 {
        try lock.withLock { () throws(RunwayError) -> UInt64 in
            guard subscriptions.count < Session.maxSubscribers else {
                throw RunwayError(.limit, "the session already has \(subscriptions.count) subscriptions, the limit of \(Session.maxSubscribers) (RUNWAY_MAX_SUBSCRIBERS)")
            }
            reapRetired()
            let id = nextID
            let sub = Subscription(id: id, options: options, target: target, lock: lock)
            if let target {
                sub.running = true
                sub.thread = spawnJoinableThread { [lock, idle, token] in
                    Session.deliver(sub, target: target, lock: lock, idle: idle, token: token)
                }
                guard sub.thread != nil else {
                    sub.running = false
                    throw RunwayError(.internal, "could not start a delivery thread")
                }
            }
            nextID += 1
            subscriptions[id] = sub
            order.append(id)
            wanted |= options.kinds
            driver.core.emitsSnapshots = wanted & EventKind.flight.bit != 0
            return id
        }
    }

    func poll(_ id: UInt64) throws(RunwayError) -> Payload? {
        try lock.withLock { () throws(RunwayError) -> Payload? in
            guard let sub = subscriptions[id] else { throw RunwayError(.notFound, "no subscription \(id) in this session") }
            guard sub.target == nil else {
                throw RunwayError(.argument, "subscription \(id) delivers by callback; runway_poll is for poll subscriptions")
            }
            return sub.next()
        }
    }

    func unsubscribe(_ id: UInt64) throws(RunwayError) {
        try lock.withLock { () throws(RunwayError) in
            guard let sub = subscriptions.removeValue(forKey: id) else {
                throw RunwayError(.notFound, "no subscription \(id) in this session (already ended?)")
            }
            order.removeAll { $0 == id }
            wanted = subscriptions.values.reduce(0) { $0 | $1.options.kinds }
            driver.core.emitsSnapshots = wanted & EventKind.flight.bit != 0
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

    /// Ends every subscription and waits until no callback of this session runs.
    /// - Returns: false (and closes nothing) when called from one of this session's callbacks.
    func close() -> Bool {
        guard ThreadState.deliveryToken != token else { return false }
        lock.withLock {
            closed = true
            let subs = Array(subscriptions.values)
            subscriptions.removeAll()
            order.removeAll()
            wanted = 0
            for sub in subs {
                sub.cancelled = true
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

    /// The delivery loop of one callback subscription, on its own thread.
    private static func deliver(_ sub: Subscription, target: CallbackTarget, lock: Lock,
                                idle: Lock.Condition, token: UInt) {
        ThreadState.markDeliveryThread(token)
        lock.lock()
        while !sub.cancelled {
            guard let payload = sub.next() else {
                sub.wake.wait()
                continue
            }
            lock.unlock()
            payload.bytes.withUnsafeBufferPointer { buf in
                guard let base = buf.baseAddress else { return }
                target.fn(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), target.user)
            }
            lock.lock()
            idle.broadcast()
        }
        sub.running = false
        idle.broadcast()
        lock.unlock()
    }
}
