import Testing
@testable import RunwayCore

@Suite("PhaseMachine: transitions, who holds, log text")
struct PhaseMachineTests {
    @Test func theAllowedCommandsLeadThroughTheFlight() throws {
        var phases = PhaseMachine()
        #expect(try phases.check(.start) == .cruise)
        _ = phases.change(to: .cruise, by: nil)
        #expect(try phases.check(.pause) == .holding)
        _ = phases.change(to: .holding, by: .user)
        #expect(phases.holdingBy == .user && !phases.isAutoHeld)
        #expect(try phases.check(.resume) == .cruise)
        #expect(try phases.check(.stop) == .touchdown)
        _ = phases.change(to: .touchdown, by: nil)
        #expect(phases.phase == .touchdown && phases.holdingBy == nil)
    }

    @Test func aCommandNotAllowedNowThrowsAStateErrorAndChangesNothing() {
        var phases = PhaseMachine()
        for command in [PhaseCommand.pause, .resume, .stop] {
            do {
                _ = try phases.check(command)
                Issue.record("\(command) allowed in preflight")
            } catch {
                #expect(error.status == .state)
                #expect(error.message == "cannot \(command.rawValue) in phase preflight (the flight has not started: start it first; fixes before the start add no distance)")
            }
        }
        #expect(phases == PhaseMachine())
        _ = phases.change(to: .cruise, by: nil)
        #expect(throws: RunwayError.self) { try phases.check(.start) }
        #expect(throws: RunwayError.self) { try phases.check(.resume) }
    }

    @Test func afterTouchdownNothingIsAllowedAndTheMessageSaysASessionIsOneFlight() {
        var phases = PhaseMachine()
        _ = phases.change(to: .cruise, by: nil)
        _ = phases.change(to: .touchdown, by: nil)
        for command in PhaseCommand.allCases {
            do {
                _ = try phases.check(command)
                Issue.record("\(command) allowed after touchdown")
            } catch {
                #expect(error.message.hasSuffix("(a session is one flight)"))
            }
        }
    }

    /// A start at the flight's own start time while it flies is already true: nothing changes,
    /// nothing is journaled, no event. Any other start after the start (another time, none, or
    /// after touchdown) is a state error.
    @Test func aStartAtTheFlightsOwnStartTimeIsAlreadyTrue() throws {
        var driver = FlightDriver(config: EngineConfig())
        var journaled: [JournalEntry] = []
        var events: [Event] = []
        func perform(_ r: FlightDriver.Request) throws(RunwayError) {
            try driver.perform(r, wallClock: .nan, journal: { (e) throws(RunwayError) in journaled.append(e) }, events: &events)
        }
        try perform(.command(.start, t: 100))
        try perform(.input(try ValidatedInput(.fix(Fix(t: 101, lat: 52, lon: 4, speed: 3)))))
        let before = (driver.core.snapshot.seq, journaled.count, events.count, driver.core.log.lines.count)
        try perform(.command(.start, t: 100))
        #expect((driver.core.snapshot.seq, journaled.count, events.count, driver.core.log.lines.count) == before)
        try perform(.command(.pause, t: 110))
        try perform(.command(.start, t: 100))   // holding: still the flight's start
        #expect(driver.core.phase == .holding && journaled.count == before.1 + 1)
        for t in [110.0, 120, .nan] {
            #expect(throws: RunwayError.self) { try perform(.command(.start, t: t)) }
        }
        try perform(.command(.stop, t: 120))
        do {
            try perform(.command(.start, t: 100))
            Issue.record("a start after touchdown was allowed")
        } catch {
            #expect(error.status == .state && error.message.hasSuffix("(a session is one flight)"))
        }
    }

    @Test func aUserPauseWhileAutoPausedTakesOverTheHold() throws {
        var phases = PhaseMachine()
        _ = phases.change(to: .cruise, by: nil)
        _ = phases.change(to: .holding, by: .auto)
        #expect(phases.isAutoHeld)
        #expect(try phases.check(.pause) == .holding)      // not "cannot pause in phase holding"
        let change = phases.change(to: .holding, by: .user)
        #expect(change.from == .holding && change.to == .holding && change.by == .user)
        #expect(phases.holdingBy == .user && !phases.isAutoHeld)
        // A user's hold is not taken over again by a second pause.
        #expect(throws: RunwayError.self) { try phases.check(.pause) }
    }

    @Test func theLogTextSaysWhoHoldsAndWhenAnAutoHoldEnds() {
        var phases = PhaseMachine()
        #expect(phases.change(to: .cruise, by: nil).logText == "phase preflight -> cruise")
        #expect(phases.change(to: .holding, by: .auto).logText == "phase cruise -> holding (auto)")
        #expect(phases.change(to: .cruise, by: nil).logText == "phase holding -> cruise (auto)")
        #expect(phases.change(to: .holding, by: .user).logText == "phase cruise -> holding (user)")
        #expect(phases.change(to: .cruise, by: nil).logText == "phase holding -> cruise")
        #expect(phases.change(to: .touchdown, by: nil).logText == "phase cruise -> touchdown")
    }

    @Test func holdingByIsClearedOutsideHolding() {
        var phases = PhaseMachine()
        _ = phases.change(to: .cruise, by: nil)
        let change = phases.change(to: .cruise, by: .auto)   // a reason given for a non-hold is dropped
        #expect(change.by == nil && phases.holdingBy == nil)
    }
}
