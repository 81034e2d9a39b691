/// Sequence numbers, the log ring and the events a call appends.
///
/// Every event takes the next `seq`; a `flight` snapshot's `seq` is `flightSeq`. Log lines a stage
/// notes while a fix is processed (`note`) wait and are written, in order, just before that fix's
/// snapshot; `append` writes one at once.
///
///     var log = EventLog()
///     log.note(.warning, "reduced accuracy")
///     log.flush(at: 10, into: &events)     // the log event, seq 1
public struct EventLog: Sendable {
    /// The sequence number of the latest event.
    public private(set) var seq: UInt64 = 0
    /// The sequence number of the latest `flight` event: the snapshot's `seq`.
    public private(set) var flightSeq: UInt64 = 0
    /// The last 20 log lines.
    public private(set) var ring = LogRing(capacity: 20)

    /// A log line waiting for the snapshot of the fix that noted it.
    struct Note: Sendable {
        var level: LogRing.Line.Level
        var message: String
    }
    private var notes: [Note] = []

    public init() {}

    /// The next sequence number.
    mutating func next() -> UInt64 {
        seq += 1
        return seq
    }

    /// Notes a line to write before the next snapshot.
    mutating func note(_ level: LogRing.Line.Level, _ message: String) {
        notes.append(Note(level: level, message: message))
    }

    /// Writes a log line now.
    mutating func append(_ level: LogRing.Line.Level, _ message: String, at now: Double, into events: inout [Event]) {
        let line = LogRing.Line(seq: next(), t: now, level: level, message: message)
        ring.append(line)
        events.append(Event(seq: line.seq, t: now, body: .log(line)))
    }

    /// Writes the noted lines.
    @inline(__always)   // on every fix's path, nearly always with nothing noted
    mutating func flush(at now: Double, into events: inout [Event]) {
        if !notes.isEmpty { writeNotes(at: now, into: &events) }
    }

    @inline(never)
    private mutating func writeNotes(at now: Double, into events: inout [Event]) {
        for n in notes { append(n.level, n.message, at: now, into: &events) }
        notes.removeAll(keepingCapacity: true)
    }

    /// Takes the sequence number of a `flight` snapshot.
    mutating func nextFlight() -> UInt64 {
        flightSeq = next()
        return flightSeq
    }
}
