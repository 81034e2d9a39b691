import Testing
@testable import RunwayCore

@Suite("FlightClock: legs, elapsed time and resolving times")
struct FlightClockTests {
    @Test func elapsedCountsOnlyCruiseLegs() {
        var clock = FlightClock()
        clock.apply(.start, at: 100, phase: .preflight)
        clock.advance(to: 160, phase: .cruise)
        #expect(clock.elapsed(in: .cruise) == 60)
        clock.apply(.pause, at: 160, phase: .cruise)
        clock.advance(to: 400, phase: .holding)        // 240 s holding count nothing
        #expect(clock.elapsed(in: .holding) == 60)
        clock.apply(.resume, at: 400, phase: .holding)
        clock.advance(to: 430, phase: .cruise)
        #expect(clock.elapsed(in: .cruise) == 90)
        clock.apply(.stop, at: 430, phase: .cruise)
        clock.advance(to: 1000, phase: .touchdown)
        #expect(clock.elapsed(in: .touchdown) == 90)
        #expect(clock.startT == 100 && clock.endT == 430 && clock.endReason == "stopped")
    }

    @Test func elapsedAtAFutureTimeMovesOnlyInCruise() {
        var clock = FlightClock()
        clock.apply(.start, at: 0, phase: .preflight)
        clock.advance(to: 10, phase: .cruise)
        #expect(clock.elapsed(at: 25, in: .cruise) == 25)
        #expect(clock.elapsed(in: .cruise) == 10)           // asking changed nothing
        clock.apply(.pause, at: 10, phase: .cruise)
        #expect(clock.elapsed(at: 25, in: .holding) == 10)
    }

    @Test func anAutoPauseEndsTheLegAtItsBackdatedTimeAndAResumeStartsOne() {
        var clock = FlightClock()
        clock.apply(.start, at: 0, phase: .preflight)
        clock.advance(to: 50, phase: .cruise)
        clock.autoPause(from: 40)                            // decided at 50, slow since 40
        #expect(clock.elapsed(in: .holding) == 40)
        #expect(clock.cruiseSince.isNaN)
        clock.advance(to: 100, phase: .holding)
        clock.autoResume(since: 95)
        clock.advance(to: 100, phase: .cruise)
        #expect(clock.elapsed(in: .cruise) == 45)
    }

    @Test func aHoldMovedLaterCreditsTheTimeBetweenAsCruise() {
        var clock = FlightClock()
        clock.apply(.start, at: 0, phase: .preflight)
        clock.advance(to: 50, phase: .cruise)
        clock.autoPause(from: 20)
        #expect(clock.elapsed(in: .holding) == 20)
        clock.creditHold(from: 20, to: 35)                   // the runner crossed a gap moving
        #expect(clock.elapsed(in: .holding) == 35)
    }

    @Test func aCommandWithoutATimeTakesTheNextInputsTime() {
        var clock = FlightClock()
        clock.advance(to: 5, phase: .preflight)
        clock.apply(.start, at: .nan, phase: .preflight)
        #expect(clock.timePending)
        #expect(clock.startT.isNaN && clock.elapsed(in: .cruise) == 0)
        clock.advance(to: 12, phase: .cruise)
        #expect(!clock.timePending)
        #expect(clock.startT == 12 && clock.cruiseSince == 12)
        clock.advance(to: 20, phase: .cruise)
        #expect(clock.elapsed(in: .cruise) == 8)
    }

    @Test func aPendingStopTakesTheNextInputsTimeAsItsEnd() {
        var clock = FlightClock()
        clock.apply(.start, at: 0, phase: .preflight)
        clock.advance(to: 30, phase: .cruise)
        clock.apply(.stop, at: .nan, phase: .cruise)
        #expect(clock.endT.isNaN && clock.timePending)
        clock.advance(to: 31, phase: .touchdown)
        #expect(clock.endT == 31)
        #expect(clock.elapsed(in: .touchdown) == 30)
    }

    @Test func resolveTakesTheInputsOwnTime() throws {
        let clock = FlightClock()
        #expect(try clock.resolve(1_700_000_000, wallClock: 5, live: true, what: "fix", notBefore: clock.now) == 1_700_000_000)
        #expect(try clock.resolve(1_700_000_000, wallClock: .nan, live: false, what: "fix", notBefore: clock.now) == 1_700_000_000)
    }

    @Test func resolveRefusesATimeBeforeTheLatest() {
        var clock = FlightClock()
        clock.advance(to: 100, phase: .preflight)
        #expect(throws: RunwayError.self) { try clock.resolve(99, wallClock: .nan, live: false, what: "fix", notBefore: clock.now) }
        do {
            _ = try clock.resolve(99, wallClock: .nan, live: false, what: "fix", notBefore: clock.now)
        } catch {
            #expect(error.status == .input)
            #expect(error.message.contains("time going backwards"))
        }
        #expect((try? clock.resolve(100, wallClock: .nan, live: false, what: "fix", notBefore: clock.now)) == 100)  // equal is fine
    }

    @Test func resolveRefusesATimeOutOfRange() {
        let clock = FlightClock()
        for bad in [Double.infinity, -Double.infinity, 1e300] {
            #expect(throws: RunwayError.self) { try clock.resolve(bad, wallClock: .nan, live: false, what: "fix", notBefore: clock.now) }
        }
    }

    @Test func aMissingTimeUnderTheReplayClockIsRefusedUnlessOptional() throws {
        var clock = FlightClock()
        do {
            _ = try clock.resolve(.nan, wallClock: 50, live: false, what: "fix", notBefore: clock.now)
            Issue.record("a fix without t under the replay clock was accepted")
        } catch {
            #expect(error.status == .input)
            #expect(error.message.contains("fix needs \"t\""))
        }
        #expect(try clock.resolve(.nan, wallClock: 50, live: false, what: "pause", optional: true, notBefore: clock.now).isNaN)
        clock.advance(to: 70, phase: .preflight)
        #expect(try clock.resolve(.nan, wallClock: 50, live: false, what: "pause", optional: true, notBefore: clock.now) == 70)
    }

    @Test func aMissingTimeUnderTheLiveClockIsTheWallClockNeverBeforeTheLatest() throws {
        var clock = FlightClock()
        #expect(try clock.resolve(.nan, wallClock: 50, live: true, what: "fix", notBefore: clock.now) == 50)
        clock.advance(to: 70, phase: .preflight)
        #expect(try clock.resolve(.nan, wallClock: 50, live: true, what: "fix", notBefore: clock.now) == 70)   // a wall clock set back
        #expect(try clock.resolve(.nan, wallClock: 90, live: true, what: "fix", notBefore: clock.now) == 90)
    }
}
