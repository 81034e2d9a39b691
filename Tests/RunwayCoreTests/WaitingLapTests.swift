import Testing
@testable import RunwayCore

/// A manual lap asked for after the latest fix, or while a gap's distance waits for its
/// confirming fix, waits for the step it falls in (`FlightComputer.lap(resolvedAt:)`); the
/// held-tunnel and backdated-pause cases are in GateOutlierWhileHeldTests
/// (`aManualLapBeforeTheFixThatConfirmsAGapChangesNoTotal`).
@Suite("A manual lap between fixes or while a gap waits")
struct WaitingLapTests {
    /// A run north at 3 m/s, no fix from 61 s to 99 s (a 39 s gap, past `gap_s`), the fix after
    /// the gap at 100 s; `between` runs in the second before the next fix, `after` at the end.
    func run(between: (inout Driver) throws -> Void, after: (inout Driver) throws -> Void = { try $0.phase(.stop, 130) }) throws -> Driver {
        var c = EngineConfig()
        c.autoLapM = 0
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
        try d.fix(100, 52 + degreesNorth(300), 4, speed: 3, hAcc: 5)
        #expect(d.core.gaps.isWaiting)
        try between(&d)
        for i in 101...130 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
        try after(&d)
        return d
    }

    func splits(_ d: Driver) -> [Lap] { d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } } }

    @Test func theLapComesWithTheConfirmingFixAtItsOwnTimeWithTheGapInIt() throws {
        var countAtLap = -1
        let d = try run(between: { d in
            try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
            countAtLap = d.events.count { if case .split = $0.body { true } else { false } }
        })
        #expect(countAtLap == 0, "the lap was cut before the gap was resolved")
        let laps = splits(d)
        #expect(laps.map(\.trigger) == [.manual, .final])
        #expect(laps[0].endT == 100.5)
        // The gap (180 m from 60 s to 100 s) is before the lap, so in it: 300 m in all.
        #expect(abs(laps[0].distanceM - 300) < 3, "\(laps[0].distanceM)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - d.core.elapsed) < 1e-6)
    }

    /// A run north at 3 m/s, fixes at `times`, `lapT` a manual lap; the laps' paces, m/s.
    func lapSpeeds(times: [Double], lapT: Double, countGaps: Bool = true) throws -> (laps: [Lap], flight: (Double, Double)) {
        var c = EngineConfig()
        c.autoLapM = 0
        c.countGaps = countGaps
        var d = Driver(c)
        try d.phase(.start, 0)
        var asked = false
        for t in times {
            if t > lapT, !asked {
                try d.core.lap(at: lapT, wallClock: .nan, events: &d.events)
                asked = true
            }
            try d.fix(t, 52 + degreesNorth(3 * t), 4, speed: 3, hAcc: 5)
        }
        try d.phase(.stop, times.last ?? 0)
        return (splits(d), (d.core.distance, d.core.elapsed))
    }

    @Test(arguments: [
        // A gap from 60 s to 100 s at 1 Hz, the lap 4 s before its end (before the fix that
        // shows it): the gap's line before the lap is the first lap's (it had none of it, and the
        // second lap all of it: 3 m/s run at 6.2 m/s).
        ("inside a gap", Array(0...60).map(Double.init) + Array(100...130).map(Double.init), 96.0),
        // A recorder's fix every 30 s (a step of its route), the lap halfway through a step (the
        // first lap had 2 m/s, the second 4.5 m/s).
        ("between sparse fixes", stride(from: 0.0, through: 600, by: 30).map { $0 }, 345.0),
        // 1 Hz, the lap half a second after a fix.
        ("between 1 Hz fixes", Array(0...200).map(Double.init), 120.5),
    ])
    func aLapBetweenFixesTakesItsShareOfTheStepItFallsIn(_ c: (name: String, times: [Double], lapT: Double)) throws {
        let (laps, flight) = try lapSpeeds(times: c.times, lapT: c.lapT)
        #expect(laps.map(\.trigger) == [.manual, .final], "\(c.name)")
        guard laps.count == 2 else { return }
        #expect(laps[0].endT == c.lapT, "\(c.name)")
        #expect(abs(laps[0].elapsedS - c.lapT) < 1e-9, "\(c.name): \(laps[0].elapsedS) s")
        for lap in laps {
            let speed = lap.distanceM / lap.elapsedS
            #expect(abs(speed - 3) < 0.005, "\(c.name): lap \(lap.index) at \(speed) m/s (\(lap.distanceM) m in \(lap.elapsedS) s)")
        }
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - flight.0) < 1e-6, "\(c.name)")
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - flight.1) < 1e-6, "\(c.name)")
    }

    @Test func aLapInsideAGapThatDoesNotCountTakesNoneOfIt() throws {
        // `count_gaps` off: the gap's line and time are no movement, in neither lap; the laps
        // still add up to the flight, and the time of each is its own.
        let (laps, flight) = try lapSpeeds(times: Array(0...60).map(Double.init) + Array(100...130).map(Double.init), lapT: 96, countGaps: false)
        #expect(laps.map(\.trigger) == [.manual, .final])
        guard laps.count == 2 else { return }
        #expect(laps[0].endT == 96)
        #expect(abs(laps[0].distanceM - 180) < 3, "\(laps[0].distanceM)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - flight.0) < 1e-6)
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - flight.1) < 1e-6)
    }

    @Test func aSecondLapMeanwhileWaitsTooAndBothAreCutInOrder() throws {
        let d = try run(between: { d in
            try d.core.lap(at: 100.4, wallClock: .nan, events: &d.events)
            try d.core.lap(at: 100.8, wallClock: .nan, events: &d.events)
            #expect(d.core.gaps.isWaiting, "the second lap credited the gap unconfirmed")
        })
        let laps = splits(d)
        #expect(laps.map(\.trigger) == [.manual, .manual, .final])
        #expect(laps.map(\.endT).prefix(2) == [100.4, 100.8])
        // The gap is the first lap's; the second has 0.4 s of the run at 3 m/s.
        #expect(abs(laps[0].distanceM - 301.2) < 3, "\(laps[0].distanceM)")
        #expect(abs(laps[1].distanceM / laps[1].elapsedS - 3) < 0.01, "\(laps[1].distanceM) m in \(laps[1].elapsedS) s")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
    }

    @Test func aSecondLapAtTheSameTimeIsRefusedAsNothingToLap() throws {
        let d = try run(between: { d in
            try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
            do throws(RunwayError) {
                try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
                Issue.record("a second lap with nothing since the waiting one was allowed")
            } catch {
                #expect(error.status == .state)
            }
            #expect(d.core.gaps.isWaiting, "a refused lap changes nothing")
        })
        #expect(splits(d).map(\.trigger) == [.manual, .final])
    }

    /// The pause after the lap comes before the next fix: the step to that fix (taken while
    /// paused) measures the stretch up to the pause, the lap's included, so the lap waits for it.
    @Test func aPauseMeanwhileKeepsTheLapWaitingForTheStepAcrossIt() throws {
        let d = try run(between: { d in
            try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
            try d.phase(.pause, 100.7)
        }, after: { d in
            try d.phase(.resume, 131)
            try d.phase(.stop, 132)
        })
        let kinds = d.events.compactMap { e -> String? in
            switch e.body {
            case .split(let l): "split \(l.trigger) \(l.endT)"
            case .phase(_, let to, _): "phase \(to)"
            default: nil
            }
        }
        #expect(kinds.prefix(3) == ["phase cruise", "phase holding", "split manual 100.5"], "\(kinds)")
        let laps = splits(d)
        // 180 m of fixes, the gap's 120 m and half a second at 3 m/s; the 0.2 s after it, the final lap's.
        #expect(abs(laps[0].distanceM - 301.5) < 0.5, "\(laps[0].distanceM)")
        #expect(abs(laps[1].distanceM - 0.6) < 0.2, "\(laps[1].distanceM)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - d.core.elapsed) < 1e-6)
    }
}

@Suite("A manual lap between fixes, then an auto-pause backdated before it")
struct WaitingLapAutoPauseTests {
    /// With auto-pause on: a run north at 3 m/s for `runS` seconds, then standing (Doppler 0) to
    /// 90 s; manual laps asked for between standing fixes at `lapTs`, before the fix that decides
    /// the pause (backdated to where the standing began). Each was accepted: each is a split at
    /// its time, and the laps add up to the flight.
    @Test(arguments: [
        ("standing from the start", 0.0, [2.5]),
        ("a lap, then another a second later", 60.0, [62.5, 63.5]),
    ])
    func aLapAcceptedWhileStandingIsCutThoughThePauseIsBackdated(_ c: (name: String, runS: Double, lapTs: [Double])) throws {
        var config = EngineConfig()
        config.autoLapM = 0
        config.autoPause.enabled = true
        var d = Driver(config)
        try d.phase(.start, 0)
        var asked = c.lapTs
        for i in 0...90 {
            let t = Double(i)
            while let lapT = asked.first, lapT < t {
                try d.core.lap(at: lapT, wallClock: .nan, events: &d.events)   // (OK: it promises a split)
                asked.removeFirst()
            }
            try d.fix(t, 52 + degreesNorth(3 * min(t, c.runS)), 4, speed: t <= c.runS && c.runS > 0 ? 3 : 0, hAcc: 5)
        }
        #expect(d.core.phase == .holding, "\(c.name)")
        try d.phase(.stop, 90)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.filter { $0.trigger == .manual }.map(\.endT) == c.lapTs, "\(c.name)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6, "\(c.name)")
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - d.core.elapsed) < 1e-6, "\(c.name)")
    }
}

@Suite("A manual lap with nothing to wait for")
struct PromptLapTests {
    func splits(_ events: [Event]) -> [Lap] { events.compactMap { if case .split(let l) = $0.body { l } else { nil } } }

    /// An indoor session with a heart-rate strap alone (no fix, no speed sensor): nothing will
    /// measure the step a lap falls in, so each lap goes out when asked for, with its time,
    /// whether asked for between two samples or at one.
    @Test(arguments: [50.5, 50.0])
    func aHeartRateOnlyFlightLapsAtOnce(lapT: Double) throws {
        var d = Driver()
        try d.phase(.start, 0)
        for t in stride(from: 1.0, through: 100, by: 1) {
            if t > lapT && t - 1 <= lapT {
                let before = d.events.count
                try d.core.lap(at: lapT, wallClock: .nan, events: &d.events)
                #expect(splits(Array(d.events[before...])).map(\.endT) == [lapT], "the lap at \(lapT) did not go out when asked for")
            }
            try d.core.process(try ValidatedInput(.sample(.heartRate(bpm: 120, t: t))), wallClock: .nan, events: &d.events)
        }
        try d.phase(.stop, 100)
        let laps = splits(d.events)
        #expect(laps.map(\.trigger) == [.manual, .final])
        #expect(laps.first.map { abs($0.elapsedS - lapT) < 1e-9 } == true)
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - d.core.elapsed) < 1e-6)
    }
}

@Suite("A manual lap after a resume, before the first fix")
struct LapAfterResumeTests {
    /// A run north at 3 m/s with 1 Hz fixes to 100 s, a pause at 100.5 s (the runner stands, no
    /// fix), a resume at 200 s, a lap at `lapT`, and the first fix after the resume at 215 s (the
    /// receiver finding its satellites again), then 1 Hz to 260 s. The pause's 99.5 s are no cruise
    /// time: the step to 215 s is its 0.5 s before the pause and 15 s after the resume, and
    /// the lap takes what was before it, not a share of the pause's wall time.
    @Test(arguments: [200.0, 203.0])
    func aLapAfterAResumeTakesTheTimeBeforeItNotThePauses(lapT: Double) throws {
        var c = EngineConfig()
        c.autoLapM = 0
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...100 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
        try d.phase(.pause, 100.5)
        try d.phase(.resume, 200)
        try d.core.lap(at: lapT, wallClock: .nan, events: &d.events)
        for i in 215...260 { try d.fix(Double(i), 52 + degreesNorth(301.5 + 3 * Double(i - 200)), 4, speed: 3, hAcc: 5) }
        try d.phase(.stop, 260)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.map(\.trigger) == [.manual, .final])
        guard laps.count == 2 else { return }
        #expect(laps[0].endT == lapT)
        // Cruise time: 100.5 s before the pause, then lapT − 200 s after the resume.
        #expect(abs(laps[0].elapsedS - (100.5 + lapT - 200)) < 0.01, "lap 1: \(laps[0].elapsedS) s")
        #expect(abs(laps[1].elapsedS - (260 - lapT)) < 0.01, "lap 2: \(laps[1].elapsedS) s")
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - d.core.elapsed) < 1e-6)
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
    }
}

@Suite("Two manual laps between the same two fixes")
struct TwoWaitingLapsTests {
    /// A run north at 3 m/s, a recorder's fix every 30 s, two laps between the fixes at 330 s
    /// and 360 s: the step is shared among the three laps by time, each at the run's pace (the
    /// second lap cut the first with none of the step, and itself had none: 0 m in 10 s).
    @Test func bothLapsTakeTheirShareOfTheStep() throws {
        var c = EngineConfig()
        c.autoLapM = 0
        var d = Driver(c)
        try d.phase(.start, 0)
        for t in stride(from: 0.0, through: 600, by: 30) {
            if t == 360 {
                try d.core.lap(at: 340, wallClock: .nan, events: &d.events)
                try d.core.lap(at: 350, wallClock: .nan, events: &d.events)
            }
            try d.fix(t, 52 + degreesNorth(3 * t), 4, speed: 3, hAcc: 5)
        }
        try d.phase(.stop, 600)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.map(\.endT) == [340, 350, 600])
        for lap in laps {
            #expect(abs(lap.distanceM / lap.elapsedS - 3) < 0.01, "lap \(lap.index): \(lap.distanceM) m in \(lap.elapsedS) s")
        }
    }

    /// A host lapping thousands of times between two fixes: each waiting lap's check cuts the
    /// ones waiting on a copy, so the 8000th cost as much as all before it (8000 laps took 23 s
    /// in a debug build). At most `LapCounter.maxWaitingLaps` wait; the next is refused with
    /// `.limit`, changing nothing, and the next fix cuts them all and lets laps be asked again.
    /// (The runner's movement is confirmed first: laps asked while the first steps are held wait
    /// for them too, `HeldStepLapTests`.)
    @Test func atMostAHundredLapsWaitForOneStep() throws {
        var c = EngineConfig()
        c.autoLapM = 0
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...10 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
        #expect(!d.core.stillness.isStill)
        for i in 1...LapCounter.maxWaitingLaps { try d.core.lap(at: 10 + Double(i) * 0.005, wallClock: .nan, events: &d.events) }
        let before = d.core.laps
        do throws(RunwayError) {
            try d.core.lap(at: 10.9, wallClock: .nan, events: &d.events)
            Issue.record("a lap beyond the waiting limit was accepted")
        } catch {
            #expect(error.status == .limit)
        }
        #expect(d.core.laps.pendingManual.count == before.pendingManual.count)
        try d.fix(11, 52 + degreesNorth(33), 4, speed: 3, hAcc: 5)
        #expect(d.core.laps.laps.count == LapCounter.maxWaitingLaps)
        #expect(d.core.laps.pendingManual.isEmpty)
        try d.core.lap(at: 11.5, wallClock: .nan, events: &d.events)
        #expect(d.core.laps.pendingManual.count == 1)
    }
}
