import Testing
@testable import RunwayCore

/// The value, or a recorded issue and a thrown error (`#require` cannot take a mutating call).
private func required<T>(_ value: T?, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, sourceLocation: sourceLocation)
}

@Suite("GapResolver: a gap's distance waits for a fix to confirm it")
struct GapResolverTests {
    /// A point `north` and `east` metres from 52° N 4° E.
    private func at(_ north: Double, _ east: Double = 0, t: Double, speed: Double = .nan) -> Fix {
        Fix(t: t, lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east), speed: speed)
    }
    private func last(_ f: Fix) -> GapResolver.LastFix { .init(lat: f.lat, lon: f.lon, t: f.t) }
    private func chord(_ a: Fix, _ b: Fix) -> Double { Geodesy.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon) }

    /// A gap from `before` to `after`, waiting (cruise unless `autoHeld`).
    private func gapWaiting(_ gaps: inout GapResolver, from before: Fix, to after: Fix, autoHeld: Bool = false) -> GapResolver.GapStart {
        let start = gaps.gapEnded(at: after, t: after.t, last: last(before), shownSpeed: before.speed, waits: true)
        gaps.wait(start, autoHeld: autoHeld)
        return start
    }

    @Test func aGapsDistanceWaitsAndAConfirmingFixCreditsIt() throws {
        var gaps = GapResolver(countGaps: true)
        let before = at(0, t: 100), after = at(300, t: 200)
        let start = gapWaiting(&gaps, from: before, to: after)
        #expect(start.credit == nil)
        #expect(start.step == .segmentStart)                       // the fix after the gap adds nothing yet
        let waiting = try #require(gaps.waiting)
        #expect(waiting.at == 200 && waiting.fromT == 100 && !waiting.held)
        #expect(abs(waiting.distanceM - chord(before, after)) < 1e-9)
        let confirming = at(303, t: 201, speed: 3)
        let credit = try required(gaps.confirmed(by: confirming, at: 201))
        #expect(abs(credit.distanceM - chord(before, after)) < 1e-9)
        #expect(credit.at == 200 && credit.fromT == 100 && !credit.held && credit.pausedFrom == nil)
        // Moved across it: the line from before the gap to the confirming fix, over its time.
        #expect(abs(credit.speedAcrossMps - chord(before, confirming) / 101) < 1e-9)
        #expect(credit.confirmingDopplerMps == 3)
        #expect(gaps.waiting == nil)
        #expect(gaps.confirmed(by: at(306, t: 202), at: 202) == nil)   // credited once
    }

    @Test func withGapsNotCountedTheGapAddsNoDistanceButStillMeasuresItsSpeed() throws {
        var gaps = GapResolver(countGaps: false)
        _ = gapWaiting(&gaps, from: at(0, t: 100), to: at(300, t: 200))
        #expect(gaps.waiting?.distanceM == 0)
        let credit = try required(gaps.confirmed(by: at(303, t: 201), at: 201))
        #expect(credit.distanceM == 0 && credit.speedAcrossMps > 2.9)
    }

    @Test func aReanchorReplacesTheWaitingGapWithTheChordToTheReanchoredFix() throws {
        var gaps = GapResolver(countGaps: true)
        let before = at(0, t: 100)
        _ = gapWaiting(&gaps, from: before, to: at(5000, t: 200))   // the fix after the gap was junk
        let truth = at(400, t: 205)
        let credit = try required(gaps.reanchored(on: truth, at: 205))
        #expect(abs(credit.distanceM - chord(before, truth)) < 1e-9)
        #expect(abs(credit.distanceM - 400) < 1)
        #expect(credit.at == 200)
        #expect(gaps.waiting == nil)
        #expect(gaps.reanchored(on: truth, at: 206) == nil)            // nothing waits any more
        var uncounted = GapResolver(countGaps: false)
        _ = gapWaiting(&uncounted, from: before, to: at(5000, t: 200))
        #expect(uncounted.reanchored(on: truth, at: 205)?.distanceM == 0)
    }

    /// Credited as it is (a pause, a stop), the gap is measured by its own line, the distance it
    /// credits; one that ended while auto-paused is not (movement would resume the flight).
    @Test func aFlushCreditsTheGapAsItIsMeasuredByItsOwnLine() throws {
        var gaps = GapResolver(countGaps: true)
        let before = at(0, t: 100), after = at(300, t: 200)
        _ = gapWaiting(&gaps, from: before, to: after)
        let credit = try required(gaps.flush())
        #expect(abs(credit.distanceM - chord(before, after)) < 1e-9)
        #expect(abs(credit.speedAcrossMps - chord(before, after) / 100) < 1e-9)
        #expect(credit.confirmedT == 200)
        #expect(credit.confirmingDopplerMps.isNaN)
        #expect(gaps.flush() == nil)
        var held = GapResolver(countGaps: true)
        _ = gapWaiting(&held, from: before, to: after, autoHeld: true)
        let heldCredit = try required(held.flush())
        #expect(heldCredit.held && heldCredit.speedAcrossMps.isNaN)
    }

    @Test func aGapThatDoesNotWaitIsTheStepsOwnDistance() {
        var gaps = GapResolver(countGaps: true)
        let before = at(0, t: 100), after = at(300, t: 200)
        let start = gaps.gapEnded(at: after, t: 200, last: last(before), shownSpeed: .nan, waits: false)
        gaps.wait(start, autoHeld: false)
        #expect(start.step.newSegment && !start.step.moving)
        #expect(abs(start.step.distanceM - chord(before, after)) < 1e-9)
        #expect(gaps.waiting == nil)
    }

    @Test func aSparseRecordersNextFixOnTheWayOnConfirmsTheGapBefore() throws {
        var gaps = GapResolver(countGaps: true)
        let a = at(0, t: 100), b = at(300, t: 200, speed: 3), c = at(600, t: 300)
        _ = gapWaiting(&gaps, from: a, to: b)
        let start = gapWaiting(&gaps, from: b, to: c)                 // one fix a gap
        let credit = try #require(start.credit)
        #expect(abs(credit.distanceM - chord(a, b)) < 1e-9)
        #expect(abs(credit.speedAcrossMps - chord(a, b) / 100) < 1e-9)
        #expect(credit.confirmingDopplerMps == 3)                       // b's own speed, as shown
        #expect(gaps.waiting?.at == 300 && gaps.waiting?.fromT == 200)
    }

    @Test func aDoubtfulFixLeavesTheLastKnownPlaceWhereItWas() throws {
        var gaps = GapResolver(countGaps: true)
        let a = at(0, t: 100), junk = at(0, 2000, t: 200), back = at(30, t: 300)
        _ = gapWaiting(&gaps, from: a, to: junk)
        let start = gapWaiting(&gaps, from: junk, to: back)           // the way back from a junk fix
        #expect(start.credit?.speedAcrossMps.isNaN == true)                    // the junk fix's gap: unconfirmed
        #expect(gaps.waiting?.fromT == 100)                             // measured from a, not the junk fix
        let credit = try required(gaps.confirmed(by: at(33, t: 301), at: 301))
        #expect(abs(credit.speedAcrossMps - chord(a, at(33, t: 301)) / 201) < 1e-9)
        #expect(credit.speedAcrossMps < 0.2)                            // standing, as the runner was
    }

    /// A doubtful fix out of reach of where the runner was (faster than the cap to get there) is
    /// junk: it goes, and the gap to it and the gap from it are one gap, from before the first.
    /// (Both lines to and from it counted: 4 km for a runner who stood.) One within reach is
    /// the hairpin ambiguity: its line is credited as it is (the test above).
    @Test func aDoubtfulFixOutOfReachIsJunkAndItsTwoGapsAreOne() throws {
        var gaps = GapResolver(countGaps: true, speedCapMps: 6)
        let a = at(0, t: 100), junk = at(0, 2000, t: 200), back = at(30, t: 300)
        _ = gapWaiting(&gaps, from: a, to: junk)                        // 2 km in 100 s: 20 m/s
        let start = gapWaiting(&gaps, from: junk, to: back)
        #expect(start.credit == nil)                                    // nothing to the junk fix
        #expect(start.junk == last(junk))
        #expect(gaps.waiting?.fromT == 100)
        #expect(abs((gaps.waiting?.distanceM ?? 0) - chord(a, back)) < 1e-9)   // a to back, not junk to back
        let credit = try required(gaps.confirmed(by: at(33, t: 301), at: 301))
        #expect(abs(credit.distanceM - chord(a, back)) < 1e-9)
        #expect(credit.lastT == 100 && credit.at == 300)                // the gap spans both
        #expect(credit.speedAcrossMps < 0.2)
    }

    @Test func twoDoubtfulFixesInARowMakeTheLastKnownPlaceUnknownAndTheSpeedUnknown() throws {
        var gaps = GapResolver(countGaps: true)
        let a = at(0, t: 100)
        _ = gapWaiting(&gaps, from: a, to: at(0, 2000, t: 200))
        _ = gapWaiting(&gaps, from: at(0, 2000, t: 200), to: at(2000, t: 300))    // doubtful: carried
        _ = gapWaiting(&gaps, from: at(2000, t: 300), to: at(-2000, t: 400))      // doubtful again: unknown
        let credit = try required(gaps.confirmed(by: at(-1997, t: 401), at: 401))
        #expect(credit.speedAcrossMps.isNaN)
        #expect(credit.distanceM > 3900)                                 // the distance still counts
    }

    @Test func aGapEndedWhileAutoPausedIsHeldAndItsCreditSaysSo() throws {
        var gaps = GapResolver(countGaps: true)
        _ = gapWaiting(&gaps, from: at(0, t: 100), to: at(300, t: 200), autoHeld: true)
        #expect(gaps.waiting?.held == true)
        let credit = try required(gaps.confirmed(by: at(303, t: 201), at: 201))
        #expect(credit.held)
    }

    @Test func aResumeWhoseFastHoldBeganBeforeAHeldGapMakesItAnOrdinaryGap() throws {
        var gaps = GapResolver(countGaps: true)
        _ = gapWaiting(&gaps, from: at(0, t: 100), to: at(300, t: 200), autoHeld: true)
        gaps.resumed(fastHoldSince: 150)
        #expect(gaps.waiting?.held == false)
        #expect(try required(gaps.confirmed(by: at(303, t: 201), at: 201)).held == false)
    }

    @Test func aResumeWhoseFastHoldBeganAfterAHeldGapDropsIt() {
        var gaps = GapResolver(countGaps: true)
        _ = gapWaiting(&gaps, from: at(0, t: 100), to: at(300, t: 200), autoHeld: true)
        gaps.resumed(fastHoldSince: 200)
        #expect(gaps.waiting == nil)
        #expect(gaps.flush() == nil)
    }

    @Test func aResumeLeavesAGapThatIsNotHeldAlone() {
        var gaps = GapResolver(countGaps: true)
        _ = gapWaiting(&gaps, from: at(0, t: 100), to: at(300, t: 200))
        gaps.resumed(fastHoldSince: 300)
        #expect(gaps.waiting?.held == false)
    }

    @Test func anAutoPauseBeforeTheGapsEndIsCarriedInItsCredit() throws {
        var gaps = GapResolver(countGaps: true)
        _ = gapWaiting(&gaps, from: at(0, t: 100), to: at(300, t: 200))
        gaps.paused(from: 95, cruising: true)
        #expect(try required(gaps.flush()).pausedFrom == 95)

        _ = gapWaiting(&gaps, from: at(0, t: 300), to: at(300, t: 400))
        gaps.paused(from: 400, cruising: true)                             // not before the gap's end
        #expect(try required(gaps.flush()).pausedFrom == nil)

        _ = gapWaiting(&gaps, from: at(0, t: 500), to: at(300, t: 600))
        gaps.paused(from: 550, cruising: false)                            // no cruise leg to move
        #expect(try required(gaps.flush()).pausedFrom == nil)

        _ = gapWaiting(&gaps, from: at(0, t: 700), to: at(300, t: 800), autoHeld: true)
        gaps.paused(from: 750, cruising: true)                             // held: already paused
        #expect(try required(gaps.flush()).pausedFrom == nil)
    }
}

@Suite("A gap credited at a pause or a stop, before any fix confirmed it")
struct FlushedGapTests {
    /// A runner at 3 m/s through a 200 s tunnel who pauses or stops the watch a second after the
    /// first fix out of it: the gap's 600 m count, and so do its 200 s of moving time (they did
    /// not: 780 m in 60 s of moving time read an average of 13 m/s, above the run profile's cap
    /// and above the max speed).
    @Test(arguments: [PhaseCommand.stop, .pause], [Activity.run, .ride])
    func aTunnelJustBeforeTheEndIsMovingTimeAsItIsDistance(_ command: PhaseCommand, _ activity: Activity) throws {
        for doppler in [true, false] {
            var d = Driver(EngineConfig(activity: activity))
            try d.phase(.start, 0)
            for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: doppler ? 3 : .nan, hAcc: 5) }
            try d.fix(260, 52 + degreesNorth(180 + 600), 4, speed: doppler ? 3 : .nan, hAcc: 5)
            try d.phase(command, 261)
            let s = d.snapshot, max = d.core.odometer.maxSpeedMps
            let label = "\(command) \(activity) doppler \(doppler): \(s.distanceM) m, moving \(s.movingS) s, max \(max)"
            #expect(abs(s.distanceM - 780) < 5, "\(label)")
            #expect(s.movingS >= 255 && s.movingS <= s.elapsedS, "\(label)")
            #expect(abs(s.distanceM / s.movingS - 3) < 0.1 && s.distanceM / s.movingS <= max, "\(label)")
        }
    }

    /// A runner whose first fixes (positions only: the track filter's lag holds them) are
    /// followed by a 300 s tunnel, who stops the watch at the first fix out of it: the gap's line
    /// confirms the held steps, and every route point takes them up to its time, the gap's own
    /// point (kept at its end) too, so the route's distances never fall and the last is the
    /// flight's (with gaps counted or not). That point was left out (it was not before `now`, the
    /// gap's end): 0 m after 13 m with gaps not counted, 900 m of 916 with them.
    @Test(arguments: [true, false])
    func aFlushedGapsOwnPointTakesTheStepsItConfirmed(_ countGaps: Bool) throws {
        var config = EngineConfig(activity: .run)
        config.countGaps = countGaps
        var d = Driver(config)
        try d.phase(.start, 0)
        for i in 1...8 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, hAcc: 5) }
        try d.fix(308, 52 + degreesNorth(24 + 900), 4, hAcc: 5)
        try d.phase(.stop, 308)
        let route = d.core.record.route, distance = d.core.distance
        let distances = (0..<route.count).map { route.distanceM($0) }
        #expect(distance > (countGaps ? 910 : 10), "\(distance) m")
        #expect(distances == distances.sorted(), "\(distances)")
        #expect(abs((distances.last ?? 0) - distance) <= 1e-3 * distance, "last point \(distances.last ?? 0) m, the flight \(distance) m")
    }
}
