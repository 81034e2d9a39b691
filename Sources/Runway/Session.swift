import CRunwayABI
import RunwayCore
import RunwayStore

/// A session as the C ABI sees it: one flight's `FlightComputer` and its subscribers, under one lock.
///
/// Every call runs the core synchronously under the lock, so a call returns after its input is
/// processed. Each new discrete event is queued (as one shared `Payload`, serialised once by
/// whoever reads it first) to each subscriber whose kind mask it matches. Flight snapshots for
/// `latest` subscribers are neither built nor queued by the call: each such subscriber notes
/// only that it has one pending, and the first consumer to take it writes the core's current
/// snapshot into `flightSlot` (refilled in place while no one else holds it), which every
/// subscriber that takes it before the next push shares. Callback subscribers are served by their own
/// delivery thread, which never holds the lock while it runs the host's callback. A delivery
/// thread that is waiting is woken once, after the lock is released (`locked`): a busy one finds
/// the new events itself when its callback returns.
final class Session: @unchecked Sendable {
    let lock = Lock()
    /// Broadcast when a delivery thread finishes a callback or exits.
    let idle: Lock.Condition
    let liveClock: Bool

    // `driver`, `scratch`, `pendingWakes` and `retired` are touched only under `lock`, which
    // already makes every access exclusive: the runtime's dynamic exclusivity check on each
    // (four a push) is redundant.
    @exclusivity(unchecked) var driver: FlightDriver
    /// The subscriptions, in the order they were made (dispatch order).
    var subscriptions: [Subscription] = []
    var nextID: UInt64 = 1
    private var wanted: UInt32 = 0
    var closed = false
    /// Callback subscriptions ended from inside a callback, whose thread may still be running
    /// it: close must wait for them too.
    var retiring: [Subscription] = []
    @exclusivity(unchecked) private var scratch: [Event] = []
    /// The unknown input keys warned of (under `lock`).
    private var unknownKeyWarnings = UnknownKeyWarnings()
    /// Waiting delivery threads that have events queued: `locked` wakes one once the lock is
    /// released, and each woken thread wakes the next (`deliver`).
    @exclusivity(unchecked) var pendingWakes: [Subscription] = []
    /// Payloads whose last reference a delivery thread gave up (`retire`), freed by `locked` on
    /// the calling thread.
    @exclusivity(unchecked) var retired: Payload?
    /// The newest flight snapshot taken by a `latest` subscriber (each has `flightPending` set
    /// until it takes one): written when first taken (`currentFlight`), one payload serialised at
    /// most once however many subscribers take it.
    var flightSlot: Payload?
    /// When `flightSlot` was last written (monotonic ns).
    var flightWrittenNs: UInt64 = 0
    /// How many of `latestFlightSubs` have no snapshot pending (`dispatch` has some to tell).
    var latestNotPending = 0
    /// Flight payloads (`Payload.reusable`) that no one references, to write the next snapshot
    /// into when the slot's is still held (linked by `nextRetired`): one per `latest` flight
    /// subscriber and one more, allocated when they subscribe, so that a delivery thread always
    /// finds one (each holds at most one) and never allocates.
    var spareFlights: Payload?
    var spareFlightCount = 0
    /// The `latest` subscribers that want flight snapshots (served from `flightSlot`).
    var latestFlightSubs: [Subscription] = []
    /// The core's flight seq when the `latest` subscribers were last told of a new snapshot.
    private var lastFlightSeq: UInt64 = 0
    /// The pacing of flight snapshots to `latest` callback subscribers (`deliver`); tests set
    /// it (under the lock) to hold a paced snapshot back for as long as they need.
    var flightIntervalNs = Session.defaultFlightIntervalNs

    /// The journal of this flight, when the session has a store (written ahead of the core:
    /// an input is journaled, then processed).
    let store: FlightStore?
    let flightID: String?
    /// Held while this session may write its stored flight.
    let lease: FlightLease?

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

    /// Processes one decoded input (or a start, pause or resume line); a rejected one is logged and rethrown.
    /// `unknownKeys` (consumed): the line's keys that no line reads (`InputDecoder.decodeLine`),
    /// warned of once the line is taken.
    @inline(__always)   // (into each entry: a fix goes from the C call straight to the driver)
    func process(_ request: FlightDriver.Request, unknownKeys: Unmanaged<UnknownInputKeys>? = nil) throws(RunwayError) {
        try logged({ (now) throws(RunwayError) in try perform(request, wallClock: now) },
                   refused: { unknownKeys?.release() },
                   taken: { if let unknownKeys { warn(of: unknownKeys.takeRetainedValue()) } })
    }

    /// `process(.input(input))` (the C entry's fix path: the input without the request's enum
    /// around it, `FlightDriver.perform(_:wallClock:journal:events:)`).
    @inline(__always)   // (into the entry: a fix goes from the C call straight to the driver)
    func process(_ input: ValidatedInput) throws(RunwayError) {
        try logged({ (now) throws(RunwayError) in try perform(input, wallClock: now) })
    }

    /// One input's frame: under the lock, `body` at the wall clock's time; a refusal is logged
    /// (after `refused`), dispatched and rethrown, else `taken` runs and the events are dispatched.
    @inline(__always)
    private func logged(_ body: (Double) throws(RunwayError) -> Void,
                        refused: () -> Void = {}, taken: () -> Void = {}) throws(RunwayError) {
        let now = liveClock ? WallClock.now() : .nan
        try locked { () throws(RunwayError) in
            do throws(RunwayError) {
                try body(now)
            } catch {
                refused()
                driver.core.logRejection(error, events: &scratch)
                dispatch()
                throw error
            }
            taken()
            dispatch()
        }
    }

    /// Logs a `warning` for each key of `keys` not warned of yet, as `unknownKeyWarnings` allows:
    /// the keys that no line reads of a line just taken. Under the lock, its events dispatched
    /// by the caller. Out of line: rare.
    @inline(never)
    private func warn(of keys: UnknownInputKeys) {
        for message in unknownKeyWarnings.messages(for: keys) {
            driver.core.logWarning(message, events: &scratch)
        }
    }

    /// Processes a batch in order under one lock; returns the first failure with its index.
    /// (A start, pause or resume line is the command; a stop is never one, so no flight ends here.)
    /// `unknownKeys`: the lines (by number, in order) with keys that no line reads, warned of
    /// once taken.
    func process(batch: [(line: Int, request: Result<FlightDriver.Request, RunwayError>)],
                 unknownKeys: [(line: Int, keys: UnknownInputKeys)],
                 accepted: inout Int, firstError: inout (line: Int, error: RunwayError)?) {
        let now = liveClock ? WallClock.now() : .nan
        locked {
            var nextUnknown = 0
            for item in batch {
                var taken = false
                do throws(RunwayError) {
                    try perform(item.request.get(), wallClock: now)
                    accepted += 1
                    taken = true
                } catch {
                    driver.core.logRejection(error, events: &scratch)
                    if firstError == nil { firstError = (item.line, error) }
                }
                // (A refused line's unknown keys are passed over, not warned of.)
                if nextUnknown < unknownKeys.count, unknownKeys[nextUnknown].line == item.line {
                    if taken { warn(of: unknownKeys[nextUnknown].keys) }
                    nextUnknown += 1
                }
            }
            dispatch()
        }
    }

    /// Logs an input that failed before reaching the core (bad JSON, bad values).
    func reject(_ error: RunwayError) {
        locked {
            driver.core.logRejection(error, events: &scratch)
            dispatch()
        }
    }

    func command(_ command: PhaseCommand, at t: Double) throws(RunwayError) {
        let now = liveClock ? WallClock.now() : .nan
        try locked { () throws(RunwayError) in
            try perform(.command(command, t: t), wallClock: now)
            dispatch()
            if command == .stop, let store, let flightID {
                try store.finish(id: flightID, row: Session.row(of: driver.core, id: flightID), recordJSON: driver.core.summaryJSON())
            }
        }
    }

    func lap(at t: Double) throws(RunwayError) {
        let now = liveClock ? WallClock.now() : .nan
        try locked { () throws(RunwayError) in
            try perform(.lap(t: t), wallClock: now)
            dispatch()
        }
    }

    /// The driver's one path, journaling to the store when there is one: what the core refuses
    /// (a bad time, a full route) is not journaled, and what the journal could not keep is
    /// refused before it changes anything.
    ///
    /// Once the session closes (a callback delivering what was queued), nothing changes its flight:
    /// no subscription would see the events.
    @inline(__always)   // (a fix's path: no call between the entry and the driver)
    private func perform(_ request: FlightDriver.Request, wallClock now: Double) throws(RunwayError) {
        try drive { (driver, journal, events) throws(RunwayError) in
            try driver.perform(request, wallClock: now, journal: journal, events: &events)
        }
    }

    /// `perform(.input(input))`, the input without the request's enum.
    @inline(__always)
    private func perform(_ input: ValidatedInput, wallClock now: Double) throws(RunwayError) {
        try drive { (driver, journal, events) throws(RunwayError) in
            try driver.perform(input, wallClock: now, journal: journal, events: &events)
        }
    }

    /// Runs `body` on the driver with the journal to the store (nil: none) and the scratch
    /// events, unless the session is closing (`perform`).
    @inline(__always)
    private func drive(_ body: (inout FlightDriver, FlightDriver.Journal?, inout [Event]) throws(RunwayError) -> Void) throws(RunwayError) {
        guard !closed else { throw RunwayError(.state, "the session is closing (runway_session_close): no input or command") }
        // Compared, not bound, on the common path: binding would retain both.
        guard store != nil, flightID != nil, let store, let flightID else {
            try body(&driver, nil, &scratch)
            return
        }
        try body(&driver, { (entry) throws(RunwayError) in try store.append(entry, to: flightID) }, &scratch)
    }

    /// A clock tick (the ticker's or the host's), journaled when it moves the clock: elapsed
    /// time and the time-weighted figures advance with it, so the recovered flight must too.
    func tick(at t: Double) throws(RunwayError) {
        let now = WallClock.now()
        try locked { () throws(RunwayError) in
            guard !closed else { return }
            settlePendingFlight()
            try perform(.tick(t: t), wallClock: now)
            dispatch()
            try store?.commitIfDue()   // (batched entries wait no longer than a second, ticks or not)
        }
    }

    // MARK: - Outputs

    /// The snapshot, read where the core lies (through an inout access): `driver.core.snapshot`
    /// would first copy the whole FlightComputer out of this object (some 30 retains and as many
    /// releases).
    func snapshot() -> FlightData { lock.withLock { Session.snapshot(of: &driver.core) } }

    private static func snapshot(of core: inout FlightComputer) -> FlightData { core.snapshot }

    /// A copy of the core (cheap: its arrays are copy-on-write), to serialise outside the lock.
    func coreCopy() -> FlightComputer { lock.withLock { driver.core } }

    /// Runs `body` under the lock; then, with the lock released, wakes the delivery threads that
    /// `dispatch` found waiting and frees the payloads delivery threads retired.
    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        let result: Result<R, E>
        do throws(E) { result = .success(try body()) } catch { result = .failure(error) }
        if pendingWakes.isEmpty && retired == nil {   // the common case: no thread to wake, nothing to free
            lock.unlock()
        } else {
            unlockWaking()
        }
        return try result.get()
    }

    /// Releases the lock, then wakes the first delivery thread `dispatch` found waiting and frees
    /// the payloads delivery threads retired (out of line: on the common path there are none,
    /// and holding the empty optionals cost a retain and two releases of nil on every call).
    @inline(never)
    private func unlockWaking() {
        let woken = pendingWakes.isEmpty ? nil : pendingWakes.popLast()
        let dead = retired.take()
        lock.unlock()
        woken?.wake.signal()
        Session.free(dead)
    }

    /// Queues the new events to the subscribers that want them (as shared payloads that their
    /// consumers serialise once, outside the lock), tells the `latest` subscribers of a new
    /// flight snapshot (built only when one takes it), and notes the waiting delivery threads to
    /// wake (each once: the flag is cleared here). Called with the lock held.
    @inline(__always)   // after every call: nearly always with nothing to do and nobody subscribed
    private func dispatch() {
        if wanted != 0 || !scratch.isEmpty { dispatchEvents() }
    }

    private func dispatchEvents() {
        defer { if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) } }
        guard wanted != 0 else { return }
        for event in scratch {
            let bit = event.kind.bit
            guard wanted & bit != 0 else { continue }
            // Flight events are in `scratch` only while a queue subscriber wants every one; the
            // latest subscribers then share the newest of them.
            let payload = Payload(event)
            if event.kind == .flight && !latestFlightSubs.isEmpty { flightSlot = payload }
            for sub in subscriptions where sub.mask & bit != 0 {
                sub.enqueue(payload)
                noteWake(sub, pacing: true)
            }
        }
        guard !latestFlightSubs.isEmpty, driver.core.flightSeq != lastFlightSeq else { return }
        lastFlightSeq = driver.core.flightSeq
        guard latestNotPending > 0 else { return }
        // (With every latest subscriber's snapshot pending, as while pushes come faster than they
        // take them, a push touches none of them.)
        for sub in latestFlightSubs where !sub.flightPending {
            // A subscriber whose snapshot is still pending gets the newer one in its place, and
            // needs no wake-up: it was woken for the first, or is busy.
            sub.flightPending = true
            noteWake(sub, pacing: false)
        }
        latestNotPending = 0
    }

    /// Notes a waiting delivery thread to wake after the lock is released (once: the flag is
    /// cleared here). A thread pacing its snapshots is woken only for other events (`pacing`).
    @inline(__always)
    private func noteWake(_ sub: Subscription, pacing: Bool) {
        guard sub.waiting || (pacing && sub.pacing) else { return }
        sub.waiting = false
        sub.pacing = false
        #if DEBUG
        sub.wakesNoted += 1
        #endif
        pendingWakes.append(sub)
    }

    /// After the subscriptions changed (lock held): what the core must build, and who shares
    /// the newest flight snapshot.
    func subscriptionsChanged() {
        wanted = subscriptions.reduce(0) { $0 | $1.mask }
        let flight = EventKind.flight.bit
        latestFlightSubs = subscriptions.filter(\.takesLatestFlight)
        latestNotPending = latestFlightSubs.reduce(0) { $0 + ($1.flightPending ? 0 : 1) }
        // Every snapshot is built as an event only while a queue subscriber wants them all.
        driver.core.emitsSnapshots = subscriptions.contains { $0.mask & flight != 0 && $0.options.policy == .queue }
        lastFlightSeq = driver.core.flightSeq
        if latestFlightSubs.isEmpty { flightSlot = nil }
        // Spares: one per latest flight subscriber and one more, made here on the caller's thread.
        let spares = latestFlightSubs.isEmpty ? 0 : latestFlightSubs.count + 1
        while spareFlightCount < spares {
            let p = Payload(flightWithMetrics: 8)
            p.nextRetired = spareFlights
            spareFlights = p
            spareFlightCount += 1
        }
        while spareFlightCount > spares, takeSpareFlight() != nil {}
    }
}
