/// The one path every request takes into the engine: validate → resolve time → journal → apply.
///
/// Inputs, phase commands, laps and clock ticks each go through it, so a request's time is
/// resolved once and journaled as resolved (a tick when it moves the clock: `checkTick`), and
/// nothing the engine would refuse is journaled: the journal sees an entry only after every
/// check has passed and before anything changes, and an entry the journal could not keep is
/// refused before it changes anything. Both hosts wrap it:
/// `Session` (the C ABI, journaling to a `FlightStore`) and `RunningCenter` (the Swift actor).
///
///     var driver = FlightDriver(config: EngineConfig())
///     var events: [Event] = []
///     try driver.perform(.command(.start, t: 0), wallClock: .nan, events: &events)
///     try driver.perform(.input(try ValidatedInput(.fix(Fix(t: 1, lat: 52, lon: 4)))), wallClock: .nan, events: &events)
public struct FlightDriver: Sendable {
    /// A request a host makes of a flight.
    public enum Request: Sendable, Equatable {
        /// A fix or sample, already validated (`ValidatedInput`).
        case input(ValidatedInput)
        /// A phase command at `t` (NaN: now).
        case command(PhaseCommand, t: Double)
        /// A lap at `t` (NaN: now): a manual lap (`runway_lap`), or a device's lap ended by
        /// `trigger` (`deviceLap`, and its journal entry).
        case lap(t: Double, trigger: LapTrigger = .manual)
        /// A lap a recording's device marked (an imported file's `device_lap` line, its `trigger`
        /// what ended the device's lap: `manual` when the line says nothing): the lap at `t`
        /// while the flight's auto laps are off (`auto_lap_m` 0, as the import report says to
        /// replay a file with laps); with auto laps on, the flight's laps are its auto laps and
        /// this changes nothing (the log says so once).
        case deviceLap(t: Double, trigger: LapTrigger = .manual)
        /// A clock tick at `t` (NaN: now): the live clock's, or the host's `runway_tick`.
        case tick(t: Double)
    }

    /// Where accepted entries go before they are applied (a store's journal); nil: nowhere.
    public typealias Journal = (JournalEntry) throws(RunwayError) -> Void

    public var core: FlightComputer

    public init(config: EngineConfig) { core = FlightComputer(config: config) }
    public init(core: FlightComputer) { self.core = core }

    /// Performs `request`; on a throw nothing has changed and nothing was journaled.
    ///
    /// - Parameters:
    ///   - wallClock: the wall clock now (for a missing time with the live clock).
    ///   - journal: takes the entry with its resolved time once every check has passed.
    @inlinable   // (the host's every call: a fix goes from the host's frame straight into `process`)
    public mutating func perform(_ request: Request, wallClock: Double, journal: Journal? = nil,
                                 events: inout [Event]) throws(RunwayError) {
        switch request {
        case .input(let input):
            try perform(input, wallClock: wallClock, journal: journal, events: &events)
        case .command(let command, let t):
            if core.givesPendingStartItsTime(command, at: t) {
                // The input the start waits for: its time is the start's, as a tick's would be.
                try perform(.tick(t: t), wallClock: wallClock, journal: journal, events: &events)
                return
            }
            guard let resolved = try core.check(command, at: t, wallClock: wallClock) else { return }   // already true: not journaled
            try journal?(.command(command, t: resolved.t))
            core.command(command, resolved: resolved, events: &events)
        case .deviceLap(let t, let trigger):
            guard core.config.autoLapM > 0 else {
                try perform(.lap(t: t, trigger: trigger), wallClock: wallClock, journal: journal, events: &events)
                return
            }
            core.passOverDeviceLap(&events)
        case .lap(let t, let trigger):
            let time = try core.checkLap(at: t, wallClock: wallClock)
            try journal?(.lap(t: time, trigger: trigger))
            core.lap(resolvedAt: time, trigger: trigger, events: &events)
        case .tick(let t):
            let tick = try core.checkTick(at: t, wallClock: wallClock)
            if tick.moves { try journal?(.tick(t: tick.t)) }
            core.tick(resolvedAt: tick.t, events: &events)
        }
    }

    /// Performs `.input(input)` (the request without its enum: the C entry's fix path, where
    /// `perform(_:)`'s switch and its copies of the request were ~100 instructions a fix).
    @inlinable
    public mutating func perform(_ input: ValidatedInput, wallClock: Double, journal: Journal? = nil,
                                 events: inout [Event]) throws(RunwayError) {
        guard let journal else {
            try core.process(input, wallClock: wallClock, events: &events)
            return
        }
        try core.process(input, wallClock: wallClock, events: &events) { (stamped) throws(RunwayError) in
            try journal(.input(stamped))
        }
    }

    /// Replays journaled entries (a stored flight, or one recovered after its host died): each is
    /// validated again, as it might come from another build. Returns the entries refused.
    public mutating func replay(_ entries: [JournalEntry]) -> ReplayResult {
        var refused = 0, first: RunwayError? = nil
        var events: [Event] = []
        for entry in entries {
            defer { events.removeAll(keepingCapacity: true) }
            do throws(RunwayError) {
                switch entry {
                case .input(let input): try perform(.input(try ValidatedInput(input)), wallClock: input.t, events: &events)
                case .command(let c, let t): try perform(.command(c, t: t), wallClock: t, events: &events)
                case .lap(let t, let trigger): try perform(.lap(t: t, trigger: trigger), wallClock: t, events: &events)
                case .tick(let t): try perform(.tick(t: t), wallClock: t, events: &events)
                }
            } catch {
                refused += 1
                if first == nil { first = error }
            }
        }
        return ReplayResult(refused: refused, first: first)
    }

    /// What a replay refused: how many entries, and the first one's error.
    public struct ReplayResult: Sendable {
        public var refused: Int
        public var first: RunwayError?
    }
}
