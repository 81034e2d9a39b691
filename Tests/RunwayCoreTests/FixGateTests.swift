import Testing
@testable import RunwayCore

/// A fix `north`/`east` metres from 52° N, 4° E, for the gate alone (it is given the time apart).
private func fix(north: Double, east: Double = 0, hAcc: Double = 5) -> Fix {
    Fix(t: 0, lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east), alt: .nan, speed: .nan, course: .nan, hAcc: hAcc)
}

private func accepted(_ v: FixGate.Verdict) -> (newSegment: Bool, reanchored: Bool)? {
    if case .accept(let s, let r) = v { return (s, r) }
    return nil
}

@Suite("The fix gate at its limits (issue #4: 50 m, the speed caps, 30 s, 200 m, 10 s)")
struct FixGateLimitTests {
    @Test func accuracyOfExactly50mPassesAndWorseIsFiltered() {
        var g = FixGate()
        #expect(accepted(g.assess(fix(north: 0, hAcc: 50), at: 0)) != nil)
        #expect(g.assess(fix(north: 3, hAcc: 50.5), at: 1) == .filtered(.accuracy))
        #expect(accepted(g.assess(fix(north: 6, hAcc: 49), at: 2)) != nil)
    }

    @Test(arguments: [(Activity.run, 12.0), (.walk, 6.0), (.ride, 30.0)])
    func eachProfileFiltersOnlyWhatIsFasterThanItsCap(_ activity: Activity, _ cap: Double) throws {
        // Through the engine, so the profile's cap is the one the gate gets.
        var d = Driver(EngineConfig(activity: activity))
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, hAcc: 5)
        try d.fix(1, 52 + degreesNorth(cap - 0.5), 4, hAcc: 5)          // just under the cap
        #expect(d.core.filtered[.speed] == 0)
        try d.fix(2, 52 + degreesNorth(cap - 0.5 + cap + 0.5), 4, hAcc: 5)  // just over it
        #expect(d.core.filtered[.speed] == 1)
    }

    @Test func aGapOfMoreThan30sStartsANewSegmentAndOneOf30sDoesNot() {
        var g = FixGate()
        _ = g.assess(fix(north: 0), at: 0)
        #expect(accepted(g.assess(fix(north: 90), at: 30))?.newSegment == false)
        #expect(accepted(g.assess(fix(north: 180), at: 60.5))?.newSegment == true)
    }

    @Test func aJumpOfMoreThan200mStartsANewSegmentWithoutAGap() {
        // 20 s apart, both under the run's 12 m/s cap, neither a gap.
        var g = FixGate()
        _ = g.assess(fix(north: 0), at: 0)
        #expect(accepted(g.assess(fix(north: 190), at: 20))?.newSegment == false)
        #expect(accepted(g.assess(fix(north: 400), at: 40))?.newSegment == true)
    }

    @Test func theGapAndJumpLimitsAreSettings() throws {
        let c = try EngineConfig.parse(#"{"gap_s":10,"jump_m":50,"required_accuracy_m":20}"#)
        var g = FixGate(settings: c.gateSettings)
        _ = g.assess(fix(north: 0), at: 0)
        #expect(accepted(g.assess(fix(north: 30), at: 11))?.newSegment == true)    // an 11 s gap
        #expect(accepted(g.assess(fix(north: 90), at: 21))?.newSegment == true)    // a 60 m jump
        #expect(g.assess(fix(north: 93, hAcc: 25), at: 22) == .filtered(.accuracy))
    }

    @Test func theReducedAccuracyWarningComesAfter10sOfBadFixesOnceAnEpisode() {
        var g = FixGate()
        _ = g.assess(fix(north: 0), at: 0)
        _ = g.assess(fix(north: 3, hAcc: 80), at: 100)
        let early = g.accuracyWarningDue(at: 109.9), due = g.accuracyWarningDue(at: 110), again = g.accuracyWarningDue(at: 111)
        #expect(!early && due && !again)
        _ = g.assess(fix(north: 6, hAcc: 5), at: 112)                // accuracy restored
        #expect(!g.accuracyIsBad)
        _ = g.assess(fix(north: 9, hAcc: 80), at: 113)               // a new episode
        let early2 = g.accuracyWarningDue(at: 122.9), due2 = g.accuracyWarningDue(at: 123)
        #expect(!early2 && due2)
    }

    @Test func theDefaultsAreTheIssues() {
        let c = EngineConfig()
        #expect(c.requiredAccuracyM == 50 && c.gapS == 30 && c.jumpM == 200 && c.countGaps)
        #expect(c.speedCapMps == 12 && EngineConfig(activity: .ride).speedCapMps == 30)
        #expect(c.paceWindowS == 10 && c.autoLapM == 1000 && c.hrMax == 190 && c.elevationHysteresisM == 3)
        #expect(c.activity == .run && c.filters && !c.autoPause.enabled)
    }
}
