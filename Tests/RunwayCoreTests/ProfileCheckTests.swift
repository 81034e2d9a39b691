import Testing
@testable import RunwayCore

@Suite("ProfileCheck: consistent fixes refused as too fast for the profile")
struct ProfileCheckTests {
    func messages(_ log: inout EventLog) -> [String] {
        var events: [Event] = []
        log.flush(at: 0, into: &events)
        return events.compactMap { if case .log(let l) = $0.body { return l.message } else { return nil } }
    }

    @Test func aRideAtFifteenMetresASecondPushedAsARunSuggestsRide() {
        var check = ProfileCheck(activity: .run), log = EventLog()
        for i in 0..<10 {
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(15 * Double(i)), lon: 4)
            check.see(fix, at: fix.t, verdict: i == 0 ? .accept(newSegment: false, reanchored: false) : .filtered(.speed), log: &log)
        }
        #expect(check.suggested == .ride && check.refused == 9)
        let lines = messages(&log)
        #expect(lines.count == 1 && lines[0].contains("\"activity\":\"ride\""))
    }

    @Test func aJogPushedAsAWalkSuggestsRun() {
        var check = ProfileCheck(activity: .walk), log = EventLog()
        for i in 0..<8 {
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(7 * Double(i)), lon: 4)
            check.see(fix, at: fix.t, verdict: i == 0 ? .accept(newSegment: false, reanchored: false) : .filtered(.speed), log: &log)
        }
        #expect(check.suggested == .run && check.refused == 7)
    }

    /// A walk session that sees a jog's streak, then a ride's: the suggestion goes from run to
    /// ride, and the log says so each time (before, it kept its first line, "a run pushed as a
    /// walk?", while the summary suggested ride).
    @Test func aRaisedSuggestionIsLoggedAgain() {
        var check = ProfileCheck(activity: .walk), log = EventLog()
        var north = 0.0
        for i in 0..<20 {
            north += i < 10 ? 7 : 15
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(north), lon: 4)
            check.see(fix, at: fix.t, verdict: i == 0 ? .accept(newSegment: false, reanchored: false) : .filtered(.speed), log: &log)
        }
        let lines = messages(&log)
        #expect(check.suggested == .ride)
        #expect(lines.count == 2 && lines[0].contains("\"activity\":\"run\"") && lines[1].contains("\"activity\":\"ride\""), "\(lines)")
    }

    @Test func spikesAreNoMismatch() {
        // Every other fix a spike 400 m away: each refused fix is far from the one before it.
        var check = ProfileCheck(activity: .run), log = EventLog()
        for i in 0..<40 {
            let spike = i % 2 == 1
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(3 * Double(i) + (spike ? 400 : 0)), lon: 4)
            check.see(fix, at: fix.t, verdict: spike ? .filtered(.speed) : .accept(newSegment: false, reanchored: false), log: &log)
        }
        #expect(check.suggested == nil && check.refused == 0 && messages(&log).isEmpty)
    }

    @Test func fewerThanAStreakAreNoMismatch() {
        var check = ProfileCheck(activity: .run), log = EventLog()
        for i in 0..<5 {
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(15 * Double(i)), lon: 4)
            check.see(fix, at: fix.t, verdict: i == 0 ? .accept(newSegment: false, reanchored: false) : .filtered(.speed), log: &log)
        }
        #expect(check.suggested == nil)
    }

    @Test func aRideHasNoFasterProfile() {
        var check = ProfileCheck(activity: .ride), log = EventLog()
        for i in 0..<10 {
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(40 * Double(i)), lon: 4)
            check.see(fix, at: fix.t, verdict: i == 0 ? .accept(newSegment: false, reanchored: false) : .filtered(.speed), log: &log)
        }
        #expect(check.suggested == nil)
    }
}
