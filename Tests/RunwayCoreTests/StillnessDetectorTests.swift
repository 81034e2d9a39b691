import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import RunwayCore

/// The standing-still decision on hand-made fixes: what holds, what confirms, what is credited.
@Suite("StillnessDetector")
struct StillnessDetectorTests {
    static let lat0 = 52.0, lon0 = 4.0
    static let k = Geodesy.scales(latitude: lat0)

    /// A fix `east`, `north` metres from the origin.
    static func fix(_ t: Double, east: Double, north: Double, speed: Double = .nan, hAcc: Double = 4) -> Fix {
        Fix(t: t, lat: lat0 + north / k.ky, lon: lon0 + east / k.kx, speed: speed, hAcc: hAcc)
    }

    /// Feeds fixes one a second; returns the distance and moving time the odometer would count.
    struct Feed {
        var detector = StillnessDetector()
        var distance = 0.0, moving = 0.0
        var credits: [HeldCredit] = []

        init(still: Bool) { detector.reset(still: still) }

        mutating func add(_ fix: Fix, step: Step) {
            let j = detector.judge(step, fix: fix, at: fix.t, dt: 1)
            distance += j.step.distanceM
            if j.step.moving { moving += 1 }
            if let c = j.credit {
                distance += c.distanceM
                moving += c.movingS
                credits.append(c)
            }
        }
    }

    @Test func aLegEndedBeforeMovementIsConfirmedKeepsTheMetresItMoved() {
        // Set off and stopped after two fixes, 10 s apart at 3.3 m/s: fewer than confirm.
        var d = StillnessDetector()
        d.reset(still: true)
        _ = d.judge(Step(distanceM: 0, moving: false), fix: Self.fix(0, east: 0, north: 0, speed: 3.2), at: 0, dt: 0)
        let j = d.judge(Step(distanceM: 33, moving: true), fix: Self.fix(10, east: 0, north: 33, speed: 3.3), at: 10, dt: 10)
        #expect(j.step.distanceM == 0 && j.credit == nil)   // still held
        let end = d.endLeg()
        #expect(end?.credit?.distanceM == 33 && end?.credit?.movingS == 10)
        #expect(d.endLeg() == nil)                          // credited once
    }

    @Test func aLegEndedWhileStandingCreditsNoNoise() {
        var d = StillnessDetector()
        d.reset(still: true)
        // Two minutes standing: Doppler noise 0.2-0.45 m/s, 0.3 m filter steps now and then.
        for t in 0..<120 {
            let tt = Double(t)
            let fix = Self.fix(tt, east: 2 * sin(tt / 20), north: 2 * cos(tt / 17), speed: 0.2 + 0.25 * Double(t % 3) / 2)
            _ = d.judge(Step(distanceM: t % 4 == 0 ? 0.3 : 0, moving: t % 4 == 0), fix: fix, at: tt, dt: 1)
        }
        #expect(d.endLeg() == nil)
    }

    @Test func standingWithNoisyDopplerIsHeldAndNeverCounted() {
        var feed = Feed(still: true)
        // The receiver wanders a few metres; Doppler 0.2-0.45; the track filter lets 0.3 m steps through.
        for i in 0..<600 {
            let t = Double(i)
            let wander = 3 * sin(t / 40)
            feed.add(Self.fix(t, east: wander, north: -wander / 2, speed: 0.2 + 0.25 * abs(sin(t))), step: Step(distanceM: 0.3, moving: i % 3 == 0))
        }
        #expect(feed.detector.isStill)
        #expect(feed.distance == 0 && feed.moving == 0)
        #expect(feed.credits.isEmpty)
    }

    @Test func dopplerAtAWalkersSpeedConfirmsAndCreditsTheStepsSinceTheStart() {
        var feed = Feed(still: true)
        for i in 0..<30 { feed.add(Self.fix(Double(i), east: 0, north: 0, speed: 0.2), step: Step(distanceM: 0, moving: false)) }
        // Sets off at 1.5 m/s: two fixes held, the third confirms, all three credited.
        for i in 30..<33 {
            feed.add(Self.fix(Double(i), east: 1.5 * Double(i - 29), north: 0, speed: 1.5), step: Step(distanceM: 1.5, moving: true))
            #expect(feed.detector.isStill == (i < 32))
        }
        #expect(feed.credits == [HeldCredit(distanceM: 4.5, movingS: 3)])
        #expect(feed.distance == 4.5 && feed.moving == 3)
        // Moving: steps count as they come.
        feed.add(Self.fix(33, east: 6, north: 0, speed: 1.5), step: Step(distanceM: 1.5, moving: true))
        #expect(feed.distance == 6)
    }

    @Test func withoutDopplerLeavingTheStillPointConfirms() {
        var feed = Feed(still: true)
        for i in 0..<30 { feed.add(Self.fix(Double(i), east: 0, north: 0), step: Step(distanceM: 0, moving: false)) }
        // 5 σ (4 m) = 20 m from the still point, three fixes in a row; the filter's steps lag.
        var i = 30
        while feed.detector.isStill, i < 100 {
            let x = 2.0 * Double(i - 29)
            feed.add(Self.fix(Double(i), east: x, north: 0), step: Step(distanceM: i > 33 ? 2 : 0, moving: i > 33))
            i += 1
        }
        #expect(!feed.detector.isStill)
        // Confirmed at the third fix beyond 20 m: 2·(i−29) > 20 from i = 40, so at 42.
        #expect(i - 1 == 42)
        #expect(feed.distance == 2 * Double(42 - 33))
    }

    @Test func aLargerReportedAccuracyWidensTheStillPoint() {
        var feed = Feed(still: true)
        for i in 0..<10 { feed.add(Self.fix(Double(i), east: 0, north: 0, hAcc: 20), step: Step(distanceM: 0, moving: false)) }
        // 60 m away is within 5 σ of 20 m: no confirmation by position.
        for i in 10..<20 { feed.add(Self.fix(Double(i), east: 60, north: 0, hAcc: 20), step: Step(distanceM: 0, moving: false)) }
        #expect(feed.detector.isStill)
        for i in 20..<23 { feed.add(Self.fix(Double(i), east: 120, north: 0, hAcc: 20), step: Step(distanceM: 0, moving: false)) }
        #expect(!feed.detector.isStill)
    }

    @Test func aRunnerWhoStopsIsStillAfterTheWindowAndAWalkerNeverIs() {
        var feed = Feed(still: false)
        for i in 0..<120 { feed.add(Self.fix(Double(i), east: 1.5 * Double(i), north: 0, speed: 1.5), step: Step(distanceM: 1.5, moving: true)) }
        #expect(!feed.detector.isStill)
        #expect(feed.distance == 180)
        var stillAt = Double.nan
        for i in 120..<200 {
            feed.add(Self.fix(Double(i), east: 180, north: 0, speed: 0.2), step: Step(distanceM: 0.1, moving: true))
            if feed.detector.isStill, stillAt.isNaN { stillAt = Double(i) }
        }
        // Still once the window's ends (15 s apart) are within 3 σ and its mean Doppler is
        // standing noise: 16 s after the stop (the 17th fix there); from then on nothing counts.
        #expect(stillAt == 136)
        // The step to 120 counts (its first fix was at a walker's speed); those to 121 ... 136,
        // slower than a walker at both ends, waited for the decision and were dropped with the
        // stand (before, they counted: 1.6 m and 16 s).
        #expect(abs(feed.distance - 180.1) < 1e-9 && feed.moving == 121, "\(feed.distance) m, \(feed.moving) s")
    }

    /// Steps slower than a walker at both ends wait while moving, and are credited once their
    /// stretch is movement: a slow walk (Doppler 0.6 m/s, above standing noise) after 5 s, a
    /// speed that dropped to 0 while the fixes move on at 3 m/s once its first and last 5 s are
    /// further apart than a standing receiver wanders; at the leg's end, what waits is credited.
    /// A stop whose leg ends 6 s later drops its waiting noise.
    @Test(arguments: [(0.6, 0.6), (0.0, 3.0)])
    func slowStepsThatAreMovementAreCredited(_ doppler: Double, _ mps: Double) {
        var feed = Feed(still: false)
        for i in 0..<30 { feed.add(Self.fix(Double(i), east: 1.5 * Double(i), north: 0, speed: 1.5), step: Step(distanceM: 1.5, moving: true)) }
        var x = 1.5 * 29
        for i in 30..<90 {
            x += mps
            feed.add(Self.fix(Double(i), east: x, north: 0, speed: doppler), step: Step(distanceM: mps, moving: true))
            if i == 50 { #expect(feed.distance >= 1.5 * 30 + mps * 10, "\(feed.distance) m at 50 s") }
        }
        #expect(!feed.detector.isStill)
        let end = feed.detector.endLeg()
        let credited = end?.credit?.distanceM ?? 0
        #expect(abs(feed.distance + credited - (1.5 * 30 + 60 * mps)) < 1e-9, "\(feed.distance + credited) m")
        #expect(abs(feed.moving + (end?.credit?.movingS ?? 0) - 90) < 1e-9)
        // A stop: 6 s of standing noise, then the leg ends.
        var stop = Feed(still: false)
        for i in 0..<30 { stop.add(Self.fix(Double(i), east: 1.5 * Double(i), north: 0, speed: 1.5), step: Step(distanceM: 1.5, moving: true)) }
        for i in 30..<36 { stop.add(Self.fix(Double(i), east: 1.5 * 29, north: 0, speed: 0.3), step: Step(distanceM: 0.15, moving: true)) }
        #expect(stop.detector.endLeg() == nil && abs(stop.distance - (1.5 * 30 + 0.15)) < 1e-9, "\(stop.distance) m")   // (the step into the stop counts)
    }

    @Test func positionsSayMovingEvenWhenTheDopplerSaysStanding() {
        // A receiver that reports 0 m/s for its first seconds: the window's ends 15 s apart are
        // 22 m apart, more than a standing receiver wanders, so the runner is not judged still.
        var feed = Feed(still: false)
        for i in 0..<60 { feed.add(Self.fix(Double(i), east: 1.5 * Double(i), north: 0, speed: 0), step: Step(distanceM: 1.5, moving: true)) }
        #expect(!feed.detector.isStill)
    }

    @Test func aQuietStretchMarksWhereMovementBegan() {
        var feed = Feed(still: true)
        // Noise steps the filter let through while standing, then 5 s of nothing, then off.
        for i in 0..<20 { feed.add(Self.fix(Double(i), east: 0, north: 0, speed: 0.3), step: Step(distanceM: 0.4, moving: true)) }
        for i in 20..<25 { feed.add(Self.fix(Double(i), east: 0, north: 0, speed: 0.1), step: Step(distanceM: 0, moving: false)) }
        for i in 25..<28 { feed.add(Self.fix(Double(i), east: 2 * Double(i - 24), north: 0, speed: 2), step: Step(distanceM: 2, moving: true)) }
        #expect(feed.credits == [HeldCredit(distanceM: 6, movingS: 3)])
    }

    @Test func stepsThatMoveWithoutABreakConfirmOnATrackTooSmallToLeave() {
        var feed = Feed(still: true)
        // Circles of 8 m radius, positions only: never 20 m from the still point, but the filter
        // measures 1 m/s without a break for 30 s, and the fixes scatter wider than a standing
        // receiver's at their accuracy (4 m an axis: an RMS radius of 5.7 m; a 5 m circle is
        // within it, and confirms no longer).
        for i in 0..<40 {
            let a = Double(i) / 5
            feed.add(Self.fix(Double(i), east: 8 * cos(a), north: 8 * sin(a)), step: Step(distanceM: 1, moving: i > 0))
        }
        #expect(!feed.detector.isStill)
        #expect(feed.distance >= 39)
        // Slower than a walker (noise let through for as long): no confirmation.
        var slow = Feed(still: true)
        for i in 0..<60 { slow.add(Self.fix(Double(i), east: 0, north: 0), step: Step(distanceM: 0.3, moving: true)) }
        #expect(slow.detector.isStill)
    }

    @Test func aGapCrossedAtAWalkersSpeedConfirms() {
        var feed = Feed(still: true)
        for i in 0..<5 { feed.add(Self.fix(Double(i), east: 2 * Double(i), north: 0), step: Step(distanceM: 2, moving: true)) }
        // The gap's first step is no quiet stretch: the steps before it are credited.
        feed.add(Self.fix(60, east: 200, north: 0), step: .segmentStart)
        let slow = GapCredit(distanceM: 20, at: 60, fromT: 4, lastT: 4, speedAcrossMps: 0.3, confirmingDopplerMps: .nan, held: false, pausedFrom: nil)
        #expect(feed.detector.crossed(slow) == nil)
        var fast = slow
        fast.speedAcrossMps = 3.5
        let judged = feed.detector.crossed(fast)
        #expect(judged?.credit == HeldCredit(distanceM: 10, movingS: 5))
        #expect(feed.detector.creditedSteps.distance(upTo: 2) == 6)
        #expect(!feed.detector.isStill)
    }

    @Test func disabledItPassesEveryStepThrough() {
        var settings = StillnessDetector.Settings()
        settings.enabled = false
        var d = StillnessDetector(settings: settings)
        d.reset(still: true)
        let j = d.judge(Step(distanceM: 0.7, moving: true), fix: Self.fix(1, east: 0, north: 0, speed: 0.1), at: 1, dt: 1)
        #expect(j.step == Step(distanceM: 0.7, moving: true) && j.credit == nil)
    }

    @Test func aGapStartsTheWindowOverAndNonFiniteFixesChangeNothing() {
        var feed = Feed(still: false)
        for i in 0..<15 { feed.add(Self.fix(Double(i), east: 0, north: 0, speed: 0.1), step: Step(distanceM: 0, moving: false)) }
        feed.add(Self.fix(15, east: 0, north: 0, speed: 0.1), step: .segmentStart)
        for i in 16..<30 { feed.add(Self.fix(Double(i), east: 0, north: 0, speed: 0.1), step: Step(distanceM: 0, moving: false)) }
        // 15 s before the gap and 14 after: no 20 s window yet.
        #expect(!feed.detector.isStill)
        let j = feed.detector.judge(Step(distanceM: 1, moving: true), fix: Fix(t: 31, lat: .nan, lon: 4), at: 31, dt: 1)
        #expect(j.step.distanceM == 1 && !feed.detector.isStill)
    }

    @Test func creditedStepsShareTheirDistanceOutByTime() {
        var steps = CreditedSteps()
        #expect(steps.isEmpty && steps.distance(upTo: 100) == 0)
        steps.append(t: 10, d: 3)
        steps.append(t: 11, d: 2)
        #expect(steps.distance(upTo: 9.9) == 0)
        #expect(steps.distance(upTo: 10) == 3)
        #expect(steps.distance(upTo: 11) == 5)
    }
}
