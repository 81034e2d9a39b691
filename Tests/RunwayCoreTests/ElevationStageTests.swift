import Testing
@testable import RunwayCore

@Suite("ElevationStage: the altitude gate before the tracker, stretches of track")
struct ElevationStageTests {
    @Test func aJunkGPSAltitudeIsRefusedBeforeTheTracker() {
        var stage = ElevationStage(hysteresisM: 3)
        stage.gps(alt: 55, at: 0, distanceM: 0)
        stage.gps(alt: 142, at: 1, distanceM: 3)               // 87 m in a second: a settling receiver
        stage.gps(alt: 56, at: 2, distanceM: 6)
        #expect(stage.tracker.gainM == 0)
        #expect(stage.tracker.maxAltitudeM < 57)
        // The tracker alone takes it: what the gate is for.
        var bare = ElevationTracker(hysteresisM: 3)
        bare.addGPS(alt: 55, t: 0, distanceM: 0)
        bare.addGPS(alt: 142, t: 1, distanceM: 3)
        #expect(bare.maxAltitudeM > 90)
    }

    @Test func aNewLevelThatHoldsIsTakenWithoutCountingTheJumpAsAClimb() {
        var stage = ElevationStage(hysteresisM: 3)
        stage.gps(alt: 55, at: 0, distanceM: 0)
        for s in 1...15 { stage.gps(alt: 142, at: Double(s), distanceM: 3 * Double(s)) }
        #expect(abs(stage.tracker.altitudeM - 142) < 1)          // re-anchored on the level that held
        #expect(stage.tracker.gainM == 0)
    }

    @Test func barometricSamplesGoStraightToTheTracker() {
        var stage = ElevationStage(hysteresisM: 3)
        stage.barometric(alt: 10, at: 0, distanceM: 0)
        stage.barometric(alt: 60, at: 1, distanceM: 3)
        #expect(stage.tracker.source == .barometric)
        #expect(stage.tracker.altitudeM > 30)
    }

    @Test func aMissingAltitudeChangesNothing() {
        var stage = ElevationStage(hysteresisM: 3)
        stage.gps(alt: 20, at: 0, distanceM: 0)
        stage.gps(alt: .nan, at: 1, distanceM: 3)
        #expect(stage.tracker.altitudeM == 20)
    }

    @Test func breakStretchStartsTheGradeAnewWhileTheGainGoesOn() {
        var stage = ElevationStage(hysteresisM: 3)
        // 3 m a second, climbing 1 m every 10 m: a 10 % grade, for 200 s (60 m of climb).
        func climb(_ seconds: ClosedRange<Int>) {
            for s in seconds { stage.gps(alt: 100 + 0.3 * Double(s), at: Double(s), distanceM: 3 * Double(s)) }
        }
        climb(0...200)
        #expect(abs(stage.tracker.gradePct - 10) < 1)
        let gain = stage.tracker.gainM
        #expect(gain > 10)   // gain before the break, for the break to keep
        stage.breakStretch()
        #expect(stage.tracker.gradePct.isNaN)
        #expect(stage.tracker.verticalSpeedMps.isNaN)
        #expect(stage.tracker.gainM == gain)
        // Less than the 30 m stretch after the break: still no grade; then there is one again.
        climb(201...208)
        #expect(stage.tracker.gradePct.isNaN)
        climb(209...220)
        #expect(!stage.tracker.gradePct.isNaN)
    }
}
