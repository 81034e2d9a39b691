/// The phases of a flight (a run): `preflight` → `cruise` ⇄ `holding` → `touchdown`.
public enum FlightPhase: String, Sendable, CaseIterable {
    case preflight, cruise, holding, touchdown

    /// The phase a command leads to from this phase, or nil when the transition is not allowed.
    public func after(_ command: PhaseCommand) -> FlightPhase? {
        switch (self, command) {
        case (.preflight, .start): return .cruise
        case (.cruise, .pause): return .holding
        case (.holding, .resume): return .cruise
        case (.cruise, .stop), (.holding, .stop): return .touchdown
        default: return nil
        }
    }
}

/// What a host asks of the flight: the four phase commands.
public enum PhaseCommand: String, Sendable, CaseIterable {
    case start, pause, resume, stop
}
