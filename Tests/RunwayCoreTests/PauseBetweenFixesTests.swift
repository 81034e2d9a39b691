import Testing
@testable import RunwayCore

/// A user's pause that comes after the leg's last fix: the step to the next fix (while paused, or
/// after the resume) counts its share before the pause, as a step across a resume counts its
/// share after it; and the laps asked for meanwhile take that share where it lies. Filters on
/// and off (raw accumulation: the line from the leg's last fix, whatever point the distance
/// filter kept last).
@Suite("A pause between fixes counts the stretch before it")
struct PauseBetweenFixesTests {
    /// A rider (9 m/s) or runner (3 m/s) due north at 1 Hz who moves until the pause, stands
    /// through it (or, `walksOn`, moves on at that speed: no distance while paused) and sets off
    /// at the resume; `skip` drops the fixes of a dropout, in which a speed sensor samples the
    /// seconds of `sensed`; `doppler` false: fixes without a speed. Returns the flight and the
    /// truth (metres covered in cruise).
    static func fly(pauseAt: Double, resumeAt: Double, skip: ClosedRange<Double>? = nil, sensed: [ClosedRange<Double>] = [],
                    ride: Bool, laps: [Double] = [], stillness: Bool = true, filters: Bool = true,
                    doppler: Bool = true, walksOn: Bool = false) throws -> (d: Driver, truthM: Double) {
        var c = Driver.config(filters: filters)
        c.activity = ride ? .ride : .run
        c.autoLapM = 0
        c.stillness.enabled = stillness
        var d = Driver(c)
        let v = ride ? 9.0 : 3.0
        try d.phase(.start, 0)
        var paused = false, resumed = false, lapsLeft = laps
        for i in 0...200 {
            let t = Double(i)
            if !paused && t >= pauseAt { try d.phase(.pause, pauseAt); paused = true }
            if !resumed && t >= resumeAt { try d.phase(.resume, resumeAt); resumed = true }
            while let l = lapsLeft.first, l <= t { try d.core.lap(at: l, wallClock: .nan, events: &d.events); lapsLeft.removeFirst() }
            let standing = !walksOn && t > pauseAt && t < resumeAt
            if let s = skip, s.contains(t) {
                if sensed.contains(where: { $0.contains(t) }) {
                    try d.core.process(.sample(.speed(mps: standing ? 0 : v, t: t)), wallClock: .nan, events: &d.events)
                }
                continue
            }
            let moved = walksOn ? t : min(t, pauseAt) + max(0, t - resumeAt)
            try d.fix(t, 52 + degreesNorth(moved * v), 4, speed: !doppler ? .nan : standing ? 0 : v, hAcc: 5)
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
        (82.5, 100, 61...130),    // the fixes come back after the resume, longer than gap_s after the last
    ]

    /// Within 0.5 m and 1 s of moving time. (Filters off, before: the stretch before the pause
    /// was lost, up to 202 m and 22.5 s; and with a 5 m distance filter the runner's last fix,
    /// which it left out, 3 m.)
    @Test(arguments: [true, false], [true, false])
    func theStretchBeforeThePauseCounts(ride: Bool, filters: Bool) throws {
        for k in PauseBetweenFixesTests.cases {
            let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: k.pause, resumeAt: k.resume, skip: k.skip, ride: ride, filters: filters)
            let s = d.snapshot
            #expect(abs(s.distanceM - truth) < 0.5, "\(k): \(s.distanceM) m, truth \(truth) m")
            #expect(s.movingS <= s.elapsedS + 1e-9)
            #expect(abs(s.movingS - (truth / (ride ? 9 : 3))) < 1.01, "\(k): moving \(s.movingS) s")
        }
    }

    /// Without Doppler speed the share before the pause is the time share of the line
    /// (`legShare`): exact for a runner who moves on evenly through the pause (the walk while
    /// paused is no distance). One who stood from the pause on covered the line in less than
    /// its time, and the share reads short (filters off, the rider paused 22.5 s into a 40 s
    /// dropout: 114 m of its 202.5 m), never long.
    @Test(arguments: [true, false], [true, false])
    func withoutDopplerTheLineIsTakenAsCoveredEvenly(ride: Bool, filters: Bool) throws {
        for k in PauseBetweenFixesTests.cases {
            for walksOn in [true, false] {
                let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: k.pause, resumeAt: k.resume, skip: k.skip, ride: ride, filters: filters,
                                                                doppler: false, walksOn: walksOn)
                let s = d.snapshot
                #expect(s.distanceM < truth + 0.5, "\(k), walks on \(walksOn): \(s.distanceM) m, truth \(truth) m")
                #expect(s.movingS <= s.elapsedS + 1e-9)
                guard walksOn else { continue }
                #expect(abs(s.distanceM - truth) < 0.5, "\(k): \(s.distanceM) m, truth \(truth) m")
                #expect(abs(s.movingS - (truth / (ride ? 9 : 3))) < 1.01, "\(k): moving \(s.movingS) s")
            }
        }
    }

    /// A speed sensor that measures part of a dropout the pause falls in (after the resume only,
    /// or before the pause and after the resume, or in stretches a silence apart): the gap's
    /// line counts the cruise time the sensor left unmeasured, the stretch before the pause
    /// included (it lost up to 202.5 m and 22.5 s of moving time counting only the line after the
    /// sensor's last sample; 684 m across three stretches). Filters off the line's share before
    /// the pause is the cruise time up to it that the sensor had not measured at the pause.
    @Test(arguments: [true, false], [true, false])
    func aSensorThatMeasuredPartOfTheDropoutLeavesTheRestToTheLine(ride: Bool, filters: Bool) throws {
        let cases: [(pause: Double, resume: Double, skip: ClosedRange<Double>, sensed: [ClosedRange<Double>])] = [
            (82.5, 100, 61...130, [100...130]),                   // after the resume
            (82.5, 100, 61...130, [110...130]),                   // from 10 s after it
            (70.5, 100, 61...139, [100...139]),                   // up to the fix after the dropout
            (82.5, 100, 61...130, [61...82, 100...130]),          // before the pause and after the resume
            (150, 160, 61...170, [100...110, 145...158, 160...170]),   // three stretches, silences between
        ]
        for k in cases {
            let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: k.pause, resumeAt: k.resume, skip: k.skip, sensed: k.sensed, ride: ride,
                                                            filters: filters)
            let s = d.snapshot
            #expect(abs(s.distanceM - truth) < 0.5, "\(k): \(s.distanceM) m, truth \(truth) m")
            #expect(abs(s.movingS - (truth / (ride ? 9 : 3))) < 1.01, "\(k): moving \(s.movingS) s")
        }
    }

    /// Without the stillness detector (an embedder's config) nothing judges standing: the
    /// stretch before the pause counts as it does with it.
    @Test func theStretchBeforeThePauseCountsWithoutTheStillnessDetector() throws {
        let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: 82.5, resumeAt: 120, skip: 61...99, ride: true, stillness: false)
        #expect(abs(d.snapshot.distanceM - truth) < 0.5, "\(d.snapshot.distanceM) m, truth \(truth) m")
    }

    /// The leg's route ends where the rider paused, with the distance there.
    @Test(arguments: [true, false])
    func theLegsRouteEndsAtThePause(filters: Bool) throws {
        let (d, _) = try PauseBetweenFixesTests.fly(pauseAt: 82.5, resumeAt: 120, skip: 61...99, ride: true, filters: filters)
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
    @Test(arguments: [true, false], [true, false])
    func lapsMeanwhileTakeTheirShare(ride: Bool, filters: Bool) throws {
        let v = ride ? 9.0 : 3.0
        let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: 82.5, resumeAt: 120, skip: 61...99, ride: ride, laps: [70.5, 90.5],
                                                        filters: filters)
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
    @Test(arguments: [true, false], [true, false])
    func aLapBeforeAPauseInsideADropoutTakesItsShareOfTheGap(ride: Bool, filters: Bool) throws {
        let v = ride ? 9.0 : 3.0
        let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: 70.5, resumeAt: 80, skip: 61...99, ride: ride, laps: [65.5], filters: filters)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.map(\.trigger) == [.manual, .final], "\(laps.map(\.trigger))")
        guard laps.count == 2 else { return }
        #expect(abs(d.snapshot.distanceM - truth) < 0.5, "\(d.snapshot.distanceM) m, truth \(truth) m")
        #expect(abs(laps[0].distanceM - 65.5 * v) < 0.5, "\(laps[0].distanceM)")
        #expect(abs(laps[0].elapsedS - 65.5) < 1e-6, "\(laps[0].elapsedS)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.snapshot.distanceM) < 1e-6)
    }

    /// A dropout the rider paused in and resumed before the fixes came back: the first fix
    /// after it starts a gap that waits, and the laps asked meanwhile (before the pause, while
    /// paused, after the resume) wait on for its credit, which shares its line by their cruise
    /// seconds. (Before, the fix cut them first, as of the pause, without the gap: the laps
    /// before the pause had none of its line, and the lap after the resume all of it, 146 m in
    /// 5 s for the rider: faster than the ride's cap.)
    @Test(arguments: [true, false], [true, false])
    func lapsInADropoutResumedBeforeItsGapTakeTheirShareOfTheGap(ride: Bool, filters: Bool) throws {
        let v = ride ? 9.0 : 3.0
        let (d, truth) = try PauseBetweenFixesTests.fly(pauseAt: 82.5, resumeAt: 90, skip: 61...99, ride: ride, laps: [70.5, 85, 95],
                                                        filters: filters)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(laps.map(\.trigger) == [.manual, .manual, .manual, .final], "\(laps.map(\.trigger))")
        guard laps.count == 4 else { return }
        // Cruise seconds in each: 70.5, 12 (to the pause), 5 (after the resume at 90).
        for (lap, cruiseS) in zip(laps, [70.5, 12, 5]) {
            #expect(abs(lap.elapsedS - cruiseS) < 1e-6, "lap \(lap.index): \(lap.elapsedS) s")
            #expect(abs(lap.distanceM - cruiseS * v) < 0.5, "lap \(lap.index): \(lap.distanceM) m")
        }
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - truth) < 0.5)
    }
}

extension PauseBetweenFixesTests {
    /// A host that passes 0 m/s for every fix (`ZeroSpeedHostTests`): the track filter doubts
    /// the zeros of a runner the positions show moving, and the stretch before the pause is
    /// measured at the filtered speed, metres with its moving time. (Before, the last fix's 0
    /// counted: no metres, yet the whole stretch as moving time; 11 s with 0 m across a
    /// dropout with a resume and a second pause in it.)
    @Test func aHostsZeroSpeedCountsNoMovingTimeWithoutDistance() throws {
        // Paused 0.5 s after a fix; and paused, resumed and paused again in a dropout.
        let cases: [(commands: [(PhaseCommand, Double)], back: Double)] = [
            ([(.pause, 60.5)], 61), ([(.pause, 60.5), (.resume, 70), (.pause, 80.5)], 101),
        ]
        for k in cases {
            var d = Driver(Driver.config())
            try d.phase(.start, 0)
            for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 0, hAcc: 5) }
            for (c, t) in k.commands { try d.phase(c, t) }
            let before = d.snapshot
            // Moving at 3 m/s in cruise: 60.5 s (and 10.5 s more when resumed).
            let moved = 3 * (k.commands.count == 1 ? 60.5 : 71)
            try d.fix(k.back, 52 + degreesNorth(moved), 4, speed: 0, hAcc: 5)
            let m = d.snapshot.distanceM - before.distanceM, s = d.snapshot.movingS - before.movingS
            #expect(s == 0 || m / s > 2, "\(k.commands): \(m) m in \(s) s of moving time")
        }
    }
}

extension PauseBetweenFixesTests {
    /// Filters off, a step whose fixes' speeds carried the rider further than its line (a pause
    /// 5 s after the fix, a resume 5 s before the next, at 9 m/s: 90 m, over a line of 70 m)
    /// counts its line once: the share after the resume takes what the share before the pause
    /// (45 m) left. (Before, only the share after the resume counted: 45 m.)
    @Test func bothSharesOfARawStepCountItsLineOnce() throws {
        var d = Driver(Driver.config(filters: false))
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(9 * Double(i)), 4, speed: 9, hAcc: 5) }
        try d.phase(.pause, 65)
        try d.phase(.resume, 75)
        let before = d.snapshot.distanceM
        try d.fix(80, 52 + degreesNorth(540 + 70), 4, speed: 9, hAcc: 5)
        let line = Geodesy.distance(lat1: 52 + degreesNorth(540), lon1: 4, lat2: 52 + degreesNorth(610), lon2: 4)
        #expect(abs(d.snapshot.distanceM - before - line) < 1e-6, "\(d.snapshot.distanceM - before) m of a \(line) m line")
    }
}

extension PauseBetweenFixesTests {
    /// How the runner moves around a leg with no fix of its own (`flyALegWithoutAFix`).
    enum AroundTheLeg: CaseIterable {
        /// Moves on evenly through the pauses (no distance then).
        case movesOn
        /// Stands through the pauses, moves in cruise.
        case standsInThePauses
        /// Stands from the first pause on, sets off 2.5 s after the last fix before the leg,
        /// still paused, and moves on evenly from there.
        case setsOffInThePause
        /// Stands from the first pause to the second resume (the fixes after the leg 6 m off:
        /// the receiver's wander).
        case standsThroughTheLeg
    }

    /// A rider (9 m/s) or runner (3 m/s) due north at 1 Hz, paused at 60.5 s, resumed at 90.5 s
    /// and paused again at 110.5 s inside a dropout (no fix from 85 to 125 s: the leg between has
    /// no fix of its own), resumed at 140.5 s, stopped at 200 s. Returns the flight, and what the
    /// first fix after the leg (at 126 s, paused) added: the leg's metres and moving time.
    static func flyALegWithoutAFix(ride: Bool, filters: Bool, doppler: Bool, around: AroundTheLeg) throws -> (d: Driver, legM: Double, legS: Double) {
        var c = Driver.config(filters: filters)
        c.activity = ride ? .ride : .run
        c.autoLapM = 0
        var d = Driver(c)
        let v = ride ? 9.0 : 3.0
        let commands: [(PhaseCommand, Double)] = [(.pause, 60.5), (.resume, 90.5), (.pause, 110.5), (.resume, 140.5)]
        func cruising(_ t: Double) -> Bool { !(t > 60.5 && t < 90.5) && !(t > 110.5 && t < 140.5) }
        func movesAt(_ t: Double) -> Bool {
            switch around {
            case .movesOn: return true
            case .standsInThePauses: return cruising(t)
            case .setsOffInThePause: return t <= 60.5 || t >= 86.5
            case .standsThroughTheLeg: return t <= 60.5 || t >= 140.5
            }
        }
        // (Metres travelled by `t`: the seconds moved, at 0.5 s resolution as the commands fall.)
        func travelled(_ t: Double) -> Double {
            var m = 0.0
            for k in 0..<Int(2 * t) where movesAt(Double(k) / 2 + 0.25) { m += v / 2 }
            return m + (around == .standsThroughTheLeg && t > 125 ? 6 : 0)
        }
        try d.phase(.start, 0)
        var next = commands[...], leg = (m: 0.0, s: 0.0)
        for i in 0...200 {
            let t = Double(i)
            while let (command, at) = next.first, at <= t { try d.phase(command, at); next = next.dropFirst() }
            if (85...125).contains(t) { continue }
            let before = d.snapshot
            try d.fix(t, 52 + degreesNorth(travelled(t)), 4, speed: doppler ? (movesAt(t) ? v : 0) : .nan, hAcc: 5)
            if t == 126 { leg = (d.snapshot.distanceM - before.distanceM, d.snapshot.movingS - before.movingS) }
        }
        try d.phase(.stop, 200)
        return (d, leg.m, leg.s)
    }

    /// The leg counts its metres and its time when the next fix comes. With the fixes' speeds:
    /// within 0.5 m (the line less what those speeds carried the runner through the pauses on
    /// either side, no faster than the faster of them: one who set off in the pause after the
    /// last fix is not credited the line's walk in the pause); without them, or with speeds of 0
    /// at both fixes (they say nothing of when the line was covered), the leg's time share of the
    /// line: exact for one who moved on evenly, short (never long) for one who stood in the
    /// pauses. Its time is its moving time. (Before, the leg was lost: 180 m and 20 s a rider,
    /// 60 m a runner.)
    @Test(arguments: [true, false], [true, false])
    func aLegWithNoFixOfItsOwnCountsItsStretch(ride: Bool, filters: Bool) throws {
        let truthM = 20 * (ride ? 9.0 : 3.0)
        for doppler in [true, false] {
            for around in [AroundTheLeg.movesOn, .standsInThePauses, .setsOffInThePause] {
                let (d, m, s) = try PauseBetweenFixesTests.flyALegWithoutAFix(ride: ride, filters: filters, doppler: doppler, around: around)
                let what = "Doppler \(doppler), \(around): the leg \(m) m, truth \(truthM); \(s) s"
                #expect(d.snapshot.movingS <= d.snapshot.elapsedS + 1e-9)
                #expect(abs(s - 20) < 1e-9, "\(what)")
                if around == .movesOn || (doppler && around == .setsOffInThePause) {
                    #expect(abs(m - truthM) < 0.5, "\(what)")
                } else {
                    #expect(m < truthM + 0.5 && m > truthM / 3, "\(what)")
                }
            }
        }
    }

    /// One who stood through the leg too: with the stillness detector, the leg adds nothing (the
    /// 6 m between the fixes on either side is a standing receiver's wander).
    @Test(arguments: [true, false], [true, false])
    func aLegWithNoFixStoodThroughAddsNothing(ride: Bool, doppler: Bool) throws {
        let (_, m, s) = try PauseBetweenFixesTests.flyALegWithoutAFix(ride: ride, filters: true, doppler: doppler, around: .standsThroughTheLeg)
        #expect(m == 0 && s == 0, "the leg \(m) m, \(s) s")
    }
}

extension PauseBetweenFixesTests {
    /// A runner (3 m/s, due north at 1 Hz) who stands from 30 s, is paused at 70 s standing (the
    /// stillness detector judges it: the pause keeps no leg end), sets off at that pause and
    /// moves on evenly, resumed at 80 s and paused again at 100 s inside a dropout (no fix from
    /// 51 to 109 s: the leg between has no fix of its own), resumed at 120 s. The leg is 20 s of
    /// cruise, 60 m: its moving time is those 20 s, not the standing cruise before the first
    /// pause too, and its metres are never long; with Doppler (standing at the fix before, 3 m/s
    /// at the one after) within 0.5 m. (Before, the leg's time ran from the last fix: 40 s, and
    /// 80 m without Doppler, 90 m with it.)
    @Test(arguments: [true, false])
    func aLegWithNoFixCountsNoneOfTheStandBeforeThePause(doppler: Bool) throws {
        var c = Driver.config(filters: true)
        c.activity = .run
        c.autoLapM = 0
        var d = Driver(c)
        var commands: [(PhaseCommand, Double)] = [(.start, 0), (.pause, 70), (.resume, 80), (.pause, 100), (.resume, 120)]
        var leg = (m: 0.0, s: 0.0)
        for i in 0...160 {
            let t = Double(i)
            while let (command, at) = commands.first, at <= t { try d.phase(command, at); commands.removeFirst() }
            if t > 50 && t < 110 { continue }
            let moving = t < 30 || t >= 70
            let metres = 3 * (min(t, 30) + max(0, t - 70))
            let before = d.snapshot
            try d.fix(t, 52 + degreesNorth(metres), 4, speed: doppler ? (moving ? 3 : 0) : .nan, hAcc: 5)
            if t == 110 { leg = (d.snapshot.distanceM - before.distanceM, d.snapshot.movingS - before.movingS) }
        }
        try d.phase(.stop, 160)
        #expect(abs(leg.s - 20) < 1e-9, "the leg's moving time \(leg.s) s of its 20 s")
        #expect(leg.m < 60.5, "the leg \(leg.m) m of 60 m")
        if doppler { #expect(abs(leg.m - 60) < 0.5, "the leg \(leg.m) m of 60 m") }
    }
}

extension PauseBetweenFixesTests {
    /// A rider (9 m/s) or runner (3 m/s) due north at 1 Hz who moves on throughout: paused at
    /// 60.5 s (the fixes go on while paused), resumed at 90.5 s, one fix at 91 s, then a dropout
    /// (no fix from 92 to 119 s) in which the user pauses again (110.5 s); the fixes come back at
    /// 120 s while paused; resumed at 140.5 s, stopped at 200 s. `gapS`: 8 s, the 29 s without
    /// a fix are a gap (the fix after it starts a new segment); 30 s (the default), the run's are
    /// a step (the ride's 261 m are a jump, a gap still).
    /// Returns the flight and what the leg from 90.5 to 110.5 s added (from before the resume
    /// to after the fix at 120 s): metres and moving time.
    static func flyALegWithOneFixBeforeADropout(ride: Bool, doppler: Bool, gapS: Double, resumeAt: Double = 140.5) throws -> (d: Driver, legM: Double, legS: Double) {
        var c = Driver.config()
        c.activity = ride ? .ride : .run
        c.autoLapM = 0
        c.gapS = gapS
        var d = Driver(c)
        let v = ride ? 9.0 : 3.0
        var commands: [(PhaseCommand, Double)] = [(.start, 0), (.pause, 60.5), (.resume, 90.5), (.pause, 110.5), (.resume, resumeAt)]
        var before: FlightData? = nil, leg = (m: 0.0, s: 0.0)
        for i in 0...200 {
            let t = Double(i)
            if t == 91 { before = d.snapshot }
            while let (command, at) = commands.first, at <= t { try d.phase(command, at); commands.removeFirst() }
            if t > 91 && t < 120 { continue }
            try d.fix(t, 52 + degreesNorth(v * t), 4, speed: doppler ? v : .nan, hAcc: 5)
            if t == 120, let b = before { leg = (d.snapshot.distanceM - b.distanceM, d.snapshot.movingS - b.movingS) }
        }
        try d.phase(.stop, 200)
        return (d, leg.m, leg.s)
    }

    /// A leg whose only fix came before a dropout it was paused in counts its 20 s: the step to
    /// that fix, and the share of the line to the fix after the dropout up to the pause (within
    /// 1 m and 1 s), with Doppler and positions only, across a gap or a step. Before, it counted
    /// nothing (180 m and 20 s short for the ride, 60 m for the run; receiver flight 1336: 0 m of
    /// 243 m): its one step, held as the leg began still, was not credited at the pause (its
    /// stretch measured no time: `StillnessDetector.endLeg`), so the pause took the runner as
    /// standing and kept no leg end.
    @Test(arguments: [true, false], [true, false])
    func aLegWithOneFixBeforeADropoutPausedInsideItCounts(ride: Bool, doppler: Bool) throws {
        for gapS in [8.0, 30] {
            let (d, m, s) = try PauseBetweenFixesTests.flyALegWithOneFixBeforeADropout(ride: ride, doppler: doppler, gapS: gapS)
            let v = ride ? 9.0 : 3.0, truthM = 20 * v, flightM = 140 * v
            let what = "ride \(ride), Doppler \(doppler), gap_s \(gapS): the leg \(m) m of \(truthM), \(s) s of 20; flight \(d.snapshot.distanceM) m of \(flightM)"
            #expect(abs(m - truthM) < 1, "\(what)")
            #expect(abs(s - 20) < 1, "\(what)")
            #expect(abs(d.snapshot.distanceM - flightM) < 2 * v, "\(what)")
            #expect(d.snapshot.movingS <= d.snapshot.elapsedS + 1e-9, "\(what)")
        }
    }

    /// The same, resumed inside the dropout (115 s): the fix after it comes in cruise, and ends a
    /// gap that waits, whose credit counts the line's cruise share on both sides of the pause, or
    /// (the run, gap_s 30) a step that counts its share after the resume and the leg end's before
    /// the pause; the leg's one step counts too (the flight within 1 m of the truth, moving time
    /// within 1 s). Before, the gap lost that step (4.5 m the ride, 1.5 m the run), the run's step
    /// the leg's 20 s (60 m).
    @Test(arguments: [true, false], [true, false])
    func aLegWithOneFixBeforeADropoutPausedAndResumedInsideItCounts(ride: Bool, doppler: Bool) throws {
        for gapS in [8.0, 30] {
            let (d, _, _) = try PauseBetweenFixesTests.flyALegWithOneFixBeforeADropout(ride: ride, doppler: doppler, gapS: gapS, resumeAt: 115)
            let v = ride ? 9.0 : 3.0, cruiseS = 60.5 + 20 + 85, flightM = cruiseS * v
            let what = "ride \(ride), Doppler \(doppler), gap_s \(gapS): \(d.snapshot.distanceM) m of \(flightM), moving \(d.snapshot.movingS) s of \(cruiseS)"
            #expect(abs(d.snapshot.distanceM - flightM) < 1, "\(what)")
            #expect(abs(d.snapshot.movingS - cruiseS) < 1, "\(what)")
        }
    }
}
