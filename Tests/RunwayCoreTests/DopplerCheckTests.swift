import Testing
@testable import RunwayCore

@Suite("DopplerCheck: Doppler speed against the positions over a long window")
struct DopplerCheckTests {
    /// A straight run at `v` m/s whose Doppler reads `scale` × v; returns the check and its credit.
    func run(scale: Double, v: Double = 3.3, seconds: Int = 1200, standingFrom: Int? = nil) -> (DopplerCheck, Double, [String]) {
        var check = DopplerCheck(), filter = TrackFilter(), log = EventLog()
        var credit = 0.0, s = 0.0
        for i in 0..<seconds {
            let standing = standingFrom.map { i >= $0 } ?? false
            if !standing && i > 0 { s += v }
            let scatter = standing ? Double((i * 7919) % 7) - 3 : 0   // metres, as a receiver standing still
            let fix = Fix(t: Double(i), lat: 52 + degreesNorth(s + scatter), lon: 4, speed: standing ? 0.1 : v * scale, course: 0, hAcc: 4)
            let step = filter.update(check.trusted(fix), t: fix.t)
            credit += check.take(step, fix: fix, at: fix.t, cruising: true,
                                measuredBySpeed: filter.lastStepMeasuredBySpeed, log: &log)
        }
        var events: [Event] = []
        log.flush(at: 0, into: &events)
        let lines = events.compactMap { if case .log(let l) = $0.body { return l.message } else { return nil } }
        return (check, credit, lines)
    }

    @Test func aDopplerThatAgreesIsKept() {
        let (check, credit, lines) = run(scale: 1)
        #expect(!check.prefersPositions && check.disagreement == nil && credit == 0 && lines.isEmpty)
    }

    @Test func aDopplerThreePercentSlowIsWithinWhatNoiseExplains() {
        #expect(!run(scale: 0.97).0.prefersPositions)
    }

    @Test func aDopplerSevenPercentSlowIsReplacedByThePositionsAndTheWindowCredited() throws {
        let (check, credit, lines) = run(scale: 0.93)
        #expect(check.prefersPositions)
        let d = try #require(check.disagreement)
        #expect(abs(d.dopplerM / d.positionsM - 0.93) < 0.01)
        #expect(abs(credit - (d.positionsM - d.dopplerM)) < 1e-9 && credit > 100)
        #expect(lines.count == 1 && lines[0].contains("Doppler speed disagrees with the positions"))
        // Once preferred, the filter gets no speed or course.
        let f = check.trusted(Fix(t: 0, lat: 52, lon: 4, speed: 3, course: 10))
        #expect(f.speed.isNaN && f.course.isNaN)
    }

    @Test func aDopplerThatReadsLongIsReplacedWithoutATakeBack() {
        let (check, credit, _) = run(scale: 1.08)
        #expect(check.prefersPositions && credit == 0)
    }

    @Test func standingStillAddsToNeitherSide() {
        // 600 m running, then ten minutes standing with a Doppler of 0.1 m/s: no window completes.
        let (check, _, _) = run(scale: 1, seconds: 800, standingFrom: 180)
        #expect(check.positionsM < 700 && check.disagreement == nil)
    }
}
