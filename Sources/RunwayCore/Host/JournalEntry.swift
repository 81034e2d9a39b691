/// One journal entry: what a session accepted, with its resolved time.
///
/// Replaying a flight's entries, in order, through a fresh `FlightComputer` rebuilds its state:
/// the core is deterministic, so the same inputs at the same times give the same flight.
///
///     try store.append(.command(.start, t: 1_764_439_512), to: id)
///     try store.append(.input(.fix(fix)), to: id)
///     try store.append(.lap(t: 1_764_439_800), to: id)
///     try store.append(.tick(t: 1_764_439_801), to: id)
public enum JournalEntry: Sendable, Equatable {
    /// A fix or a sensor sample, its `t` resolved (never NaN for entries a session accepted).
    case input(Input)
    /// A phase command. `t` is NaN only when the command's time was pending; NaN is kept.
    case command(PhaseCommand, t: Double)
    /// A lap mark, and what ended the lap (`manual`, or a recording's device's trigger). NaN is
    /// kept as for commands.
    case lap(t: Double, trigger: LapTrigger = .manual)
    /// A clock tick that moved the clock (`FlightComputer.checkTick`): elapsed time and the
    /// time-weighted figures advance with it, so a replay without it would differ from the
    /// live flight.
    case tick(t: Double)

    /// The entry's time: the input's, the command's, the lap's or the tick's (NaN when pending).
    public var t: Double {
        switch self {
        case .input(let i): return i.t
        case .command(_, let t), .lap(let t, _), .tick(let t): return t
        }
    }
}
