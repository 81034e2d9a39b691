import Testing
@testable import RunwayCore

/// A user's pause that comes after the leg's last fix: the step to the next fix (while paused, or
/// after the resume) counts its share before the pause, as a step across a resume counts its
/// share after it; and the laps asked for meanwhile take that share where it lies.
@Suite("A pause between fixes counts the stretch before it")
struct PauseBetweenFixesTests {
    /// A rider (9 m/s) or runner (3 m/s) due north at 1 Hz who moves until the pause, stands
    /// through it and sets off at the resume; `skip` drops the fixes of a dropout. Returns the
    /// flight and the truth (metres covered in cruise).
    static func fly(pauseAt: Double, resumeAt: Double, skip: ClosedRange<Double>? = nil, ride: Bool,
                    laps: [Double] = []) throws -> (d: Driver, truthM: Double) {
        var c = Driver.config()
        c.activity = ride ? .ride : .run
        c.autoLapM = 0
        var d = Driver(c)
        let v = ride ? 9.0 : 3.0
        try d.phase(.start, 0)
        var paused = false, resumed = false, lapsLeft = laps
        for i in 0...200 {
            let t = Double(i)
            if !paused && t >= pauseAt { try d.phase(.pause, pauseAt); paused = true }
            if !resumed && t >= resumeAt { try d.phase(.resume, resumeAt); resumed = true }
            while let l = lapsLeft.first, l <= t { try d.core.lap(at: l, wallClock: .nan, events: &d.events); lapsLeft.removeFirst() }
            if let s = skip, s.contains(t) { continue }
            let moved = min(t, pauseAt) + max(0, t - resumeAt)
            try d.fix(t, 52 + degreesNorth(moved * v), 4, speed: t > pauseAt && t < resumeAt ? 0 : v, hAcc: 5)
        }
        try d.phase(.stop, 200)
        return (d, v * (pauseAt + 200 - resumeAt))
    }

    static let cases: [(pause: Double, resume: Double, skip: ClosedRange<Double>?)] = [
        (60.5, 90, nil),          // half a second after a fix, the next one while paused
        (60, 90, nil),            // at a fix's time, pushed before that fix
        (60.5, 90.5, nil),        // between fixes both, 30 s apart
        (82.5, 120, 61...99),     // 22.5 s into a dropout; the fixes come back while paused
        (65.5, 70.5, 61...75),    // a dropout shorter than gap_s across both
        (65.5, 90, 61...75),      // the fixes come back while paused after 15 s
    ]

    @Test(arguments: [true, false])
    func theStretchBeforeThePauseCounts(ride: Bool) throws {
        for k in PauseBetweenFixesTests.cases {
            let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: k.pause, resumeAt: k.resume, skip: k.skip, ride: ride)
            let s = d.snapshot
            #expect(abs(s.distanceM - truth) < 0.5, "\(k): \(s.distanceM) m, truth \(truth) m")
            #expect(s.movingS <= s.elapsedS + 1e-9)
            #expect(abs(s.movingS - (truth / (ride ? 9 : 3))) < 1.01, "\(k): moving \(s.movingS) s")
        }
    }

    /// The leg's route ends where the rider paused, with the distance there.
    @Test func theLegsRouteEndsAtThePause() throws {
        let (d, _) = try PauseBetweenFixesTests.fly(pauseAt: 82.5, resumeAt: 120, skip: 61...99, ride: true)
        let r = d.core.route
        guard let i = (0..<r.count).first(where: { r.time($0) == 82.5 }) else {
            Issue.record("no route point at the pause")
            return
        }
        #expect(abs(r.latitude(i) - (52 + degreesNorth(82.5 * 9))) < 1e-6)
        #expect(abs(r.distanceM(i) - 82.5 * 9) < 1)
        #expect(r.segment(of: i) == r.segment(of: i - 1) && r.segment(of: i + 1) == r.segment(of: i) + 1)
    }

    /// Laps asked for between the last fix and the pause, and while paused, wait for the step
    /// across the pause: each takes the share of it before its time, none has distance without
    /// time, and the laps add up to the flight.
    @Test(arguments: [true, false])
    func lapsMeanwhileTakeTheirShare(ride: Bool) throws {
        let v = ride ? 9.0 : 3.0
        let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: 82.5, resumeAt: 120, skip: 61...99, ride: ride, laps: [70.5, 90.5])
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.map(\.trigger) == [.manual, .manual, .final], "\(laps.map(\.trigger))")
        guard laps.count == 3 else { return }
        #expect(abs(laps[0].distanceM - 70.5 * v) < 0.5, "\(laps[0].distanceM)")
        #expect(abs(laps[1].distanceM - 12 * v) < 0.5, "\(laps[1].distanceM)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - truth) < 0.5)
        for l in laps { #expect(l.distanceM == 0 || l.elapsedS > 0, "lap \(l.index): \(l.distanceM) m in \(l.elapsedS) s") }
    }

    /// Paused and resumed inside a dropout: the fix after it ends a gap whose credit counts both
    /// sides of the pause, and a lap asked for before the pause takes its share of the gap's
    /// cruise time.
    @Test(arguments: [true, false])
    func aLapBeforeAPauseInsideADropoutTakesItsShareOfTheGap(ride: Bool) throws {
        let v = ride ? 9.0 : 3.0
        let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: 70.5, resumeAt: 80, skip: 61...99, ride: ride, laps: [65.5])
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.map(\.trigger) == [.manual, .final], "\(laps.map(\.trigger))")
        guard laps.count == 2 else { return }
        #expect(abs(d.snapshot.distanceM - truth) < 0.5, "\(d.snapshot.distanceM) m, truth \(truth) m")
        #expect(abs(laps[0].distanceM - 65.5 * v) < 0.5, "\(laps[0].distanceM)")
        #expect(abs(laps[0].elapsedS - 65.5) < 1e-6, "\(laps[0].elapsedS)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.snapshot.distanceM) < 1e-6)
    }
}
