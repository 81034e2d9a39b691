/// The one owner of run state for Swift callers: an actor over the engine's `FlightDriver`.
///
/// Every input, phase change, lap and tick goes through it (validated, its time resolved once).
/// Two kinds of stream fan the results out, each with its own buffer and its own cancellation:
///
/// - `stream()`: `FlightData` snapshots, buffering the newest one (a slow display skips ahead);
/// - `events(_:)`: the events themselves, by kind (`phase`, `split`, `alert`, `log`, `tick`,
///   `flight`; discrete ones by default), buffered without limit so none is dropped silently.
///
///     let center = RunningCenter()
///     let phases = await center.events([.phase, .split, .alert])
///     try await center.updatePhase(.start, at: 1_700_000_000)
///     try await center.process(.fix(Fix(t: 1_700_000_010, lat: 52, lon: 4, speed: 3)))
///     for await e in phases { print(e.kind, e.seq) }
public actor RunningCenter {
    var driver: FlightDriver
    var snapshotStreams: [UInt64: AsyncStream<FlightData>.Continuation] = [:]
    var eventStreams: [UInt64: (kinds: UInt32, continuation: AsyncStream<Event>.Continuation)] = [:]
    var nextID: UInt64 = 0
    var scratch: [Event] = []

    /// The kinds `events()` delivers by default: every discrete kind (not the snapshots).
    public static let discreteKinds: Set<EventKind> = [.phase, .split, .alert, .log, .tick, .overflow]

    public init(config: EngineConfig = EngineConfig()) {
        driver = FlightDriver(config: config)
        driver.core.emitsSnapshots = false   // until an events stream asks for flight events
    }

    /// The latest snapshot.
    public var snapshot: FlightData { driver.core.snapshot }

    /// The current phase.
    public var phase: FlightPhase { driver.core.phase }

    /// Processes one input (validated first) and returns the snapshot it produced.
    /// - Throws: `.input` for a value out of range or a time going backwards; nothing changes.
    @discardableResult
    public func process(_ input: Input) throws(RunwayError) -> FlightData {
        try perform(.input(try ValidatedInput(input)))
    }

    /// Changes the flight phase (`start`, `pause`, `resume`, `stop`) at time `t` (NaN = now).
    @discardableResult
    public func updatePhase(_ command: PhaseCommand, at t: Double = .nan) throws(RunwayError) -> FlightData {
        try perform(.command(command, t: t))
    }

    /// Ends the current lap at `t` (NaN = now).
    @discardableResult
    public func lap(at t: Double = .nan) throws(RunwayError) -> FlightData {
        try perform(.lap(t: t))
    }

    /// Advances the clock to `t` (NaN = now): a `tick` event while cruising.
    public func tick(at t: Double = .nan) throws(RunwayError) {
        _ = try perform(.tick(t: t))
    }

    /// The flight record so far, as JSON.
    public func summaryJSON() -> String { driver.core.summaryJSON() }

    /// A new, independent stream of snapshots, from the next one on (buffer: the newest one).
    ///
    /// The stream is opened once and its continuation stored; cancelling it (or dropping its
    /// iterator) ends only this stream.
    public func stream() -> AsyncStream<FlightData> {
        let (stream, continuation) = AsyncStream<FlightData>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = newID()
        snapshotStreams[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeStream(id) } }
        return stream
    }

    /// A new, independent stream of the events of `kinds`, from the next one on, buffered
    /// without limit (discrete events are never dropped; ask for `.flight` to get every snapshot
    /// too). Cancelling it ends only this stream.
    public func events(_ kinds: Set<EventKind> = RunningCenter.discreteKinds) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let id = newID()
        eventStreams[id] = (kinds.reduce(0) { $0 | $1.bit }, continuation)
        updateSnapshotDemand()
        continuation.onTermination = { [weak self] _ in Task { await self?.removeStream(id) } }
        return stream
    }

    /// Ends every stream.
    public func finish() {
        for c in snapshotStreams.values { c.finish() }
        for e in eventStreams.values { e.continuation.finish() }
        snapshotStreams.removeAll()
        eventStreams.removeAll()
        updateSnapshotDemand()
    }

    /// The number of open streams (of both kinds).
    public var streamCount: Int { snapshotStreams.count + eventStreams.count }

    func newID() -> UInt64 {
        nextID += 1
        return nextID
    }

    func removeStream(_ id: UInt64) {
        snapshotStreams[id] = nil
        eventStreams[id] = nil
        updateSnapshotDemand()
    }

    /// `flight` events are built only while an events stream asks for them (snapshot streams
    /// read `snapshot` itself); set when streams come and go, not on every request.
    func updateSnapshotDemand() {
        driver.core.emitsSnapshots = eventStreams.values.contains { $0.kinds & EventKind.flight.bit != 0 }
    }

    func perform(_ request: FlightDriver.Request) throws(RunwayError) -> FlightData {
        defer { scratch.removeAll(keepingCapacity: true) }
        do throws(RunwayError) {
            try driver.perform(request, wallClock: WallClock.now(), events: &scratch)
        } catch {
            if case .input = request { driver.core.logRejection(error, events: &scratch); publish() }
            throw error
        }
        let data = driver.core.snapshot
        for c in snapshotStreams.values { c.yield(data) }
        publish()
        return data
    }

    func publish() {
        for event in scratch {
            let bit = event.kind.bit
            for e in eventStreams.values where e.kinds & bit != 0 { e.continuation.yield(event) }
        }
    }
}
