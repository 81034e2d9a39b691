/// The one owner of run state for Swift callers: an actor over the deterministic `FlightComputer`.
///
/// Every input and phase change goes through it; each produces a `FlightData` snapshot that is
/// sent to every stream opened with `stream()`. Each stream has its own buffer (newest 1: a slow
/// reader skips to the newest snapshot) and its own cancellation.
///
///     let center = RunningCenter()
///     let snapshots = await center.stream()
///     try await center.updatePhase(.start, at: 1_700_000_000)
///     try await center.process(.fix(Fix(t: 1_700_000_010, lat: 52, lon: 4, speed: 3)))
public actor RunningCenter {
    var computer: FlightComputer
    var continuations: [UInt64: AsyncStream<FlightData>.Continuation] = [:]
    var nextID: UInt64 = 0
    var scratch: [Event] = []

    public init(config: EngineConfig = EngineConfig()) {
        computer = FlightComputer(config: config)
    }

    /// The latest snapshot.
    public var snapshot: FlightData { computer.snapshot }

    /// The current phase.
    public var phase: FlightPhase { computer.phase }

    /// Processes one input and returns the snapshot it produced.
    @discardableResult
    public func process(_ input: Input) throws(RunwayError) -> FlightData {
        let checked: Input
        switch input {
        case .fix(let f): checked = .fix(try f.validated())
        case .sample: checked = input
        }
        try computer.process(checked, wallClock: WallClock.now(), events: &scratch)
        return publish()
    }

    /// Changes the flight phase (`start`, `pause`, `resume`, `stop`) at time `t` (NaN = now).
    @discardableResult
    public func updatePhase(_ command: PhaseCommand, at t: Double = .nan) throws(RunwayError) -> FlightData {
        try computer.command(command, at: t, wallClock: WallClock.now(), events: &scratch)
        return publish()
    }

    /// The flight record so far, as JSON.
    public func summaryJSON() -> String { computer.summaryJSON() }

    /// A new, independent stream of snapshots, from the next one on.
    ///
    /// The stream is opened once and its continuation stored; cancelling it (or dropping its
    /// iterator) ends only this stream.
    public func stream() -> AsyncStream<FlightData> {
        let (stream, continuation) = AsyncStream<FlightData>.makeStream(bufferingPolicy: .bufferingNewest(1))
        nextID += 1
        let id = nextID
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeStream(id) }
        }
        return stream
    }

    /// Ends every stream.
    public func finish() {
        for c in continuations.values { c.finish() }
        continuations.removeAll()
    }

    /// The number of open streams.
    public var streamCount: Int { continuations.count }

    func removeStream(_ id: UInt64) { continuations[id] = nil }

    func publish() -> FlightData {
        scratch.removeAll(keepingCapacity: true)
        let data = computer.snapshot
        for c in continuations.values { c.yield(data) }
        return data
    }
}
