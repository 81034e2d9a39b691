import Testing
@testable import RunwayCore

@Suite("EventLog: seq, noted lines, the ring")
struct EventLogTests {
    private func logLines(_ events: [Event]) -> [LogRing.Line] {
        events.compactMap { if case .log(let line) = $0.body { return line } else { return nil } }
    }

    @Test func everyEventTakesTheNextSeqAndTheSnapshotsSeqIsRemembered() {
        var log = EventLog()
        var events: [Event] = []
        #expect(log.next() == 1)
        log.append(.info, "one", at: 5, into: &events)
        #expect(events.map(\.seq) == [2])
        #expect(log.nextFlight() == 3)
        #expect(log.flightSeq == 3 && log.seq == 3)
        #expect(log.next() == 4)
        #expect(log.flightSeq == 3)
    }

    @Test func notedLinesWaitUntilTheFlushThenComeInOrder() {
        var log = EventLog()
        var events: [Event] = []
        log.note(.warning, "reduced accuracy")
        log.note(.info, "filtered fix")
        #expect(events.isEmpty && log.seq == 0 && log.ring.lines.isEmpty)
        log.flush(at: 10, into: &events)
        let lines = logLines(events)
        #expect(lines.map(\.message) == ["reduced accuracy", "filtered fix"])
        #expect(lines.map(\.level) == [.warning, .info])
        #expect(lines.map(\.seq) == [1, 2])
        #expect(events.map(\.t) == [10, 10])
        // Flushed once: a second flush writes nothing.
        log.flush(at: 11, into: &events)
        #expect(events.count == 2)
    }

    @Test func notedLinesComeBeforeTheSnapshotTheyBelongTo() {
        var log = EventLog()
        var events: [Event] = []
        log.note(.info, "filtered fix at t 3: speed")
        log.flush(at: 3, into: &events)
        let snapshotSeq = log.nextFlight()
        #expect(events.allSatisfy { $0.seq < snapshotSeq })
    }

    @Test func theRingKeepsTheLast20LinesOldestFirst() {
        var log = EventLog()
        var events: [Event] = []
        for i in 1...25 { log.append(.info, "line \(i)", at: Double(i), into: &events) }
        let kept = log.ring.lines
        #expect(kept.count == 20)
        #expect(kept.first?.message == "line 6" && kept.last?.message == "line 25")
        #expect(kept.map(\.seq) == Array(6...25).map(UInt64.init))
        #expect(events.count == 25)          // the events carry every line
    }
}
