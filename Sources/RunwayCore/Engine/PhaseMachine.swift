/// The flight phase and who is holding it: `preflight` → `cruise` ⇄ `holding` → `touchdown`.
///
/// `check` says whether a command is allowed and where it leads without changing anything;
/// `change` moves to a phase and returns the `PhaseChange` for the event and the log.
///
///     var phases = PhaseMachine()
///     let next = try phases.check(.start)       // .cruise
///     let change = phases.change(to: next, by: nil)
///     change.logText                            // "phase preflight -> cruise"
public struct PhaseMachine: Sendable, Equatable {
    /// Why the flight is holding.
    public enum HoldReason: String, Sendable { case user, auto }

    public private(set) var phase: FlightPhase = .preflight
    /// Why the flight is holding (nil unless `phase == .holding`).
    public private(set) var holdingBy: HoldReason? = nil

    public init() {}

    /// Whether the flight is auto-paused.
    @inline(__always)
    public var isAutoHeld: Bool { phase == .holding && holdingBy == .auto }

    /// The phase `command` leads to; a user's pause while auto-paused makes the hold the user's.
    /// - Throws: `.state` when the command is not allowed now.
    public func check(_ command: PhaseCommand) throws(RunwayError) -> FlightPhase {
        let userTakesOverAutoHold = command == .pause && isAutoHeld
        guard let next = userTakesOverAutoHold ? .holding : phase.after(command) else {
            throw .state("cannot \(command.rawValue) in phase \(phase.rawValue)" + Self.why(phase))
        }
        return next
    }

    /// What a refused command's message adds about the phase: a flight not started yet (its
    /// fixes so far were the receiver's warm-up, no distance), or over.
    static func why(_ phase: FlightPhase) -> String {
        switch phase {
        case .preflight: " (the flight has not started: start it first; fixes before the start add no distance)"
        case .touchdown: " (a session is one flight)"
        case .cruise, .holding: ""
        }
    }

    /// A change of phase, as applied.
    public struct PhaseChange: Sendable, Equatable {
        public var from: FlightPhase
        public var to: FlightPhase
        public var by: HoldReason?
        /// The log line: "phase cruise -> holding (auto)".
        public var logText: String
    }

    mutating func change(to next: FlightPhase, by: HoldReason?) -> PhaseChange {
        let from = phase, fromBy = holdingBy
        phase = next
        holdingBy = next == .holding ? by : nil
        let how = holdingBy.map { " (\($0.rawValue))" } ?? (fromBy == .auto && next == .cruise ? " (auto)" : "")
        return PhaseChange(from: from, to: next, by: holdingBy, logText: "phase \(from.rawValue) -> \(next.rawValue)\(how)")
    }
}
