import Testing
@testable import RunwayCore
import RunwaySim

@Suite("RawTrack: the measuring stage with the filters off")
struct RawTrackTests {
    private func track(filter: Double = 5) -> RawTrack {
        var config = EngineConfig()
        config.filters = false
        config.distanceFilterM = filter
        return RawTrack(config: config)
    }

    /// The rhythm of a recorder not heard yet (any wait longer than `gap_s` is a break).
    private let unheard = FixCadence(gapS: 30)

    /// A recorder heard giving a fix every `interval` seconds up to `t` 9.
    private func heard(every interval: Double) -> FixCadence {
        var c = FixCadence(gapS: 30)
        for t in stride(from: 9 - 5 * interval, through: 9, by: interval) { c.hear(at: t) }
        return c
    }

    private let origin = Coordinate(lat: 52, lon: 4)

    @Test func theFirstFixOfALegIsKeptWithNoDistance() {
        let m = track().measure(Fix(lat: 52, lon: 4), at: 0, lastKept: nil, keptT: .nan, previousT: nil, cadence: unheard)
        #expect(m.keep)
        #expect(m.step == Step(distanceM: 0, moving: false))
    }

    @Test func aFixCloserThanTheDistanceFilterToTheLastKeptPointAddsNothing() {
        let raw = track(filter: 5)
        let near = Fix(lat: 52 + degreesNorth(3), lon: 4)
        let m = raw.measure(near, at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard)
        #expect(!m.keep && m.step.distanceM == 0 && !m.step.moving)
    }

    @Test func theDistanceIsMeasuredFromTheLastKeptPointNotTheFixBefore() {
        let raw = track(filter: 5)
        // Three fixes 3 m apart: the second is not kept, the third is 6 m from the kept one.
        let second = raw.measure(Fix(lat: 52 + degreesNorth(3), lon: 4), at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard)
        #expect(!second.keep)
        let third = raw.measure(Fix(lat: 52 + degreesNorth(6), lon: 4), at: 2, lastKept: origin, keptT: 0, previousT: 1, cadence: unheard)
        #expect(third.keep)
        #expect(abs(third.step.distanceM - 6) < 0.05)
        #expect(third.step.moving)
    }

    @Test func withAZeroFilterEveryFixIsKeptEvenAtTheSamePlace() {
        let raw = track(filter: 0)
        let same = raw.measure(Fix(lat: 52, lon: 4), at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard)
        #expect(same.keep && same.step.distanceM == 0)
        #expect(raw.measure(Fix(lat: 52 + degreesNorth(0.5), lon: 4), at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard).keep)
    }

    @Test func aFixLongerThanGapSAfterTheOneBeforeBeginsASegment() {
        let raw = track(), oneHz = heard(every: 1)
        let after = raw.measure(Fix(lat: 52 + degreesNorth(100), lon: 4), at: 40, lastKept: origin, keptT: 0, previousT: 9, cadence: oneHz)
        #expect(after.step.newSegment)
        let within = raw.measure(Fix(lat: 52 + degreesNorth(100), lon: 4), at: 39, lastKept: origin, keptT: 0, previousT: 9, cadence: oneHz)
        #expect(!within.step.newSegment)
        // The first point of a leg begins nothing of its own.
        #expect(!raw.measure(Fix(lat: 52, lon: 4), at: 40, lastKept: nil, keptT: .nan, previousT: 9, cadence: oneHz).step.newSegment)
    }

    @Test func aWaitInTheRecordersOwnRhythmBeginsNoSegment() {
        // A recorder giving a fix every 40 s: its 40 s wait is a step of its route; four of its
        // intervals without a fix are a break. Not heard yet, a wait longer than gap_s is one.
        let raw = track(), fix = Fix(lat: 52 + degreesNorth(100), lon: 4)
        #expect(!raw.measure(fix, at: 49, lastKept: origin, keptT: 0, previousT: 9, cadence: heard(every: 40)).step.newSegment)
        #expect(raw.measure(fix, at: 170, lastKept: origin, keptT: 0, previousT: 9, cadence: heard(every: 40)).step.newSegment)
        #expect(raw.measure(fix, at: 49, lastKept: origin, keptT: 0, previousT: 9, cadence: unheard).step.newSegment)
    }

    @Test func aWalkedStepsMovingTimeRunsFromTheLastKeptPoint() {
        let raw = track(filter: 5)
        // 3 m/s at 1 Hz: the fix at 1 s was left out (3 m); the one at 2 s, 6 m from the point
        // kept at 0 s, moved for both seconds.
        let run = raw.measure(Fix(lat: 52 + degreesNorth(6), lon: 4), at: 2, lastKept: origin, keptT: 0, previousT: 1, cadence: unheard)
        #expect(run.step.moving && run.movingSince == 0)
        // A standing receiver's drift that passes the filter after a minute (0.1 m/s): the fix's
        // own second only, as before the filter left anything out.
        let drift = raw.measure(Fix(lat: 52 + degreesNorth(6), lon: 4), at: 60, lastKept: origin, keptT: 0, previousT: 59, cadence: unheard)
        #expect(drift.step.moving && drift.movingSince == 59)
    }

    @Test func aLegsLastFixTheFilterLeftOutIsTheRunnersWhenWalked() {
        let raw = track(filter: 5), end = Coordinate(lat: 52 + degreesNorth(3), lon: 4)
        // 3 m in the second after the kept point: a runner the filter had not caught up with.
        let run = raw.measureEnd(at: end, speed: .nan, t: 1, lastKept: origin, keptT: 0)
        #expect(run.keep && run.step.moving && run.movingSince == 0 && abs(run.step.distanceM - 3) < 0.05)
        // 3 m in a minute: a standing receiver's drift; a fix whose speed says 0; a leg with no point.
        #expect(!raw.measureEnd(at: end, speed: .nan, t: 60, lastKept: origin, keptT: 0).keep)
        #expect(!raw.measureEnd(at: end, speed: 0, t: 1, lastKept: origin, keptT: 0).keep)
        #expect(!raw.measureEnd(at: end, speed: 3, t: 1, lastKept: nil, keptT: .nan).keep)
    }

    /// The engine with the filters off and a 5 m distance filter: a runner's last fix, which the
    /// filter left out, counts at the stop and ends the route (before, its step was lost: 3 m
    /// here, at every pause or stop after such a fix); a standing receiver's drift under the
    /// filter still counts nothing.
    @Test(arguments: [true, false])
    func theLegEndsAtItsLastFixWhenTheRunnerCoveredTheStretchToIt(moving: Bool) throws {
        var d = Driver(Driver.config(filter: 5, filters: false))
        try d.phase(.start, 0)
        for i in 0...61 {
            let metres = moving ? 3 * Double(i) : (i == 61 ? 2 : 0)
            try d.fix(Double(i), 52 + degreesNorth(metres), 4, hAcc: 5)
        }
        try d.phase(.stop, 61)
        let r = d.core.route
        if moving {
            #expect(abs(d.snapshot.distanceM - 183) < 0.1, "\(d.snapshot.distanceM) m")
            #expect(abs(d.snapshot.movingS - 61) < 1e-9, "\(d.snapshot.movingS) s")
            #expect(r.time(r.count - 1) == 61 && abs(r.distanceM(r.count - 1) - d.snapshot.distanceM) < 0.01)
        } else {
            #expect(d.snapshot.distanceM == 0 && r.time(r.count - 1) == 0)
        }
    }

    /// The engine with the filters off and a distance filter: moving time is the run's, not the
    /// share of fixes the filter kept (at 1 Hz and 5 m a runner's every other fix: it read about
    /// half the run; 20 m, a sixth).
    @Test(arguments: [0.0, 5, 20])
    func aDistanceFilterLeavesTheMovingTimeWhole(_ filter: Double) throws {
        for trial in SimTrials.tuning + SimTrials.heldBack {
            let run = simulate(trial.config())
            var config = EngineConfig()
            config.filters = false
            config.distanceFilterM = filter
            let core = try Replay(run, config: config).core
            #expect(abs(core.movingS - run.truthMovingS) / run.truthMovingS < 0.01,
                    "\(trial), \(filter) m: moving \(core.movingS) s, truth \(run.truthMovingS) s")
        }
    }

    @Test func aStepIsMovingUnlessTheFixSaysZeroSpeedOrIsTheFirst() {
        let raw = track()
        let to = Fix(lat: 52 + degreesNorth(10), lon: 4)
        #expect(raw.measure(to, at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard).step.moving)           // no speed: moving
        var standing = to; standing.speed = 0
        let zero = raw.measure(standing, at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard)
        #expect(!zero.step.moving && zero.keep && zero.step.distanceM > 9)                  // distance still counts
        var fast = to; fast.speed = 2
        #expect(raw.measure(fast, at: 1, lastKept: origin, keptT: 0, previousT: 0, cadence: unheard).step.moving)
        #expect(!raw.measure(to, at: 1, lastKept: origin, keptT: 0, previousT: nil, cadence: unheard).step.moving)     // no fix before
    }
}
