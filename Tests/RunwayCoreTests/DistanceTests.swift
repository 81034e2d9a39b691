import Testing
@testable import RunwayCore

@Suite("Distance, route and time")
struct DistanceTests {
    @Test func theRouteStoresAtMost32BytesAPoint() {
        // The figure in docs/accuracy.md ("route storage"): what the route's arrays hold per point.
        var r = Route()
        let n = 1000
        for i in 0..<n { r.append(lat: 52, lon: 4, alt: 1, t: Double(i), distanceM: Double(i), speedMps: 3, hr: 150, cadence: 170) }
        func bytes<T>(_ a: [T]) -> Int { a.count * MemoryLayout<T>.stride }
        #expect(bytes(r.points) == n * Route.bytesPerPoint)
        #expect(Route.bytesPerPoint <= 32)
        #expect(r.capacity * Route.bytesPerPoint < 2 * n * 32)
    }

    @Test func withFiltersOffAutoLapsAndAlertsStillWork() throws {
        // Raw accumulation changes how distance is measured, not what follows from it: auto laps
        // (and their split events) and MINIMUMS. (They were not run at all with filters off.)
        var c = Driver.config(filter: 0, filters: false)
        c.autoLapM = 1000
        c.alerts.goalM = 2000
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...80 { try d.fix(Double(i) * 10, 52 + Double(i) * 0.0003, 4) }   // ~2.7 km, 3.3 m/s
        let splits = d.events.compactMap { if case .split(let lap) = $0.body { return lap } else { return nil } }
        #expect(splits.map(\.index) == [1, 2])
        #expect(splits.allSatisfy { abs($0.distanceM - 1000) < 1e-6 })
        let alerts = d.events.compactMap { if case .alert(let a) = $0.body { return a.code } else { return nil } }
        #expect(alerts == ["MINIMUMS", "MINIMUMS", "MINIMUMS_GOAL"], "\(alerts)")
        #expect(d.core.laps.laps.count == 2)
    }

    /// `writeSnapshot(into:)` gives what `snapshot` gives, and refills a kept snapshot's metric
    /// figures in their own storage (what lets a library thread refill one without allocating).
    @Test func aSnapshotWrittenIntoAKeptOneIsTheSnapshotAndKeepsItsStorage() throws {
        var d = Driver()
        func text(_ data: FlightData) -> String { var w = JSONWriter(); data.write(to: &w); return w.text }
        var kept = FlightData()
        try d.phase(.start, 0)
        var storage: UnsafePointer<MetricValue>? = nil
        for i in 0..<60 {
            try d.fix(Double(i), 52 + Double(i) * 0.0001, 4 + Double(i % 7) * 0.00001, speed: 3)
            if i == 30 { try d.phase(.pause, 30.5) }
            if i == 40 { try d.phase(.resume, 40.5) }
            d.core.writeSnapshot(into: &kept)
            #expect(text(kept) == text(d.snapshot), "fix \(i)")
            let base = kept.metrics.withUnsafeBufferPointer { $0.baseAddress }
            if i > 0 { #expect(base == storage, "fix \(i): the figures were written where they were") }
            storage = base
        }
        #expect(!kept.metrics.isEmpty)
    }

    @Test func distanceAccumulatesBetweenKeptFixesOnTheEllipsoid() throws {
        var d = Driver(Driver.config(filter: 0, filters: false))
        try d.phase(.start, 0)
        var expected = 0.0
        var prev = (52.0, 4.0)
        try d.fix(0, prev.0, prev.1)
        for i in 1...100 {
            let p = (52.0 + Double(i) * 0.0001, 4.0 + Double(i) * 0.00005)
            try d.fix(Double(i), p.0, p.1)
            expected += vincentyDistance(lat1: prev.0, lon1: prev.1, lat2: p.0, lon2: p.1)
            prev = p
        }
        #expect(abs(d.snapshot.distanceM - expected) / expected < 1e-5)
        #expect(d.core.route.count == 101)
    }

    @Test func theDistanceFilterIsMeasuredFromTheLastKeptPointNotThePreviousFix() throws {
        var d = Driver(Driver.config(filter: 5, filters: false))
        try d.phase(.start, 0)
        // Ten fixes 3 m apart: each is < 5 m from the previous fix, but every second one is
        // >= 5 m from the last kept point, so about 30 m accumulate (not 0, which a filter against
        // the previous raw fix would give).
        for i in 0...10 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4) }
        #expect(d.snapshot.distanceM > 29 && d.snapshot.distanceM <= 30.5)
        #expect(d.core.route.count == 6)  // 0, 6, 12, 18, 24, 30 m
        #expect(d.snapshot.fixes == 11)
    }

    @Test func fixesBeforeStartAndWhileHoldingAddNoDistance() throws {
        var d = Driver(Driver.config(filter: 0, filters: false))
        try d.fix(0, 52, 4)
        try d.fix(10, 52.001, 4)
        #expect(d.snapshot.distanceM == 0)
        #expect(d.snapshot.lat == 52.001)  // the preflight display still follows the fix
        try d.phase(.start, 10)
        try d.fix(20, 52.002, 4)
        let run1 = d.snapshot.distanceM
        #expect(run1 > 100)
        try d.phase(.pause, 20)
        try d.fix(30, 52.010, 4)   // walked 900 m while paused
        try d.phase(.resume, 40)   // the leg goes on from where the runner is now
        try d.fix(40, 52.010, 4)
        try d.fix(50, 52.011, 4)
        let total = d.snapshot.distanceM
        #expect(abs(total - 2 * run1) < 1)
    }

    @Test func elapsedCountsCruiseTimeOnlyAndAveragePaceFollowsIt() throws {
        var d = Driver(Driver.config(filter: 0, filters: false))
        try d.phase(.start, 1000)
        try d.fix(1000, 52, 4)
        try d.fix(1300, 52 + degreesNorth(1000), 4)
        try d.phase(.pause, 1300)
        try d.fix(1500, 52 + degreesNorth(1000), 4)
        #expect(d.snapshot.elapsedS == 300)
        try d.phase(.resume, 1600)
        try d.fix(1660, 52 + degreesNorth(1200), 4)
        try d.phase(.stop, 1700)
        let s = d.snapshot
        #expect(s.elapsedS == 400)
        let expectedAvg = (s.elapsedS / 60) / (s.distanceM / 1000)
        #expect(s.avgPaceMinPerKm == expectedAvg)
        // The step from the hold's last fix (1500) to the leg's first (1660) counts the leg's
        // share of it, 60 of its 160 s: where the runner was at the resume, no fix says.
        #expect(abs(s.distanceM - (1000 + 200 * 60.0 / 160)) < 12)
    }

    /// A runner who stood through a hold (no fixes while holding) and set off at a resume between
    /// fixes 4 s apart: the fix's own speed says the step after the resume was run after it, and it
    /// counts whole; without a speed, the leg's share of the step's time counts (4 of its 24 s).
    @Test(arguments: [false, true])
    func aStepAcrossAResumeCountsAsFarAsTheFixsSpeedCarriedTheRunner(_ filters: Bool) throws {
        let stepM = 11.2, speed = 2.8
        func flight(doppler: Bool) throws -> Double {
            var d = Driver(Driver.config(filter: 0, filters: filters))
            try d.phase(.start, 0)
            var k = 0.0
            for t in stride(from: 0.0, through: 40, by: 4) {
                try d.fix(t, 52 + degreesNorth(stepM * k), 4, speed: doppler ? speed : .nan); k += 1
            }
            try d.phase(.pause, 40)
            try d.phase(.resume, 60)   // standing at the last fix, then off at 2.8 m/s
            k -= 1
            for t in stride(from: 64.0, through: 104, by: 4) {
                k += 1; try d.fix(t, 52 + degreesNorth(stepM * k), 4, speed: doppler ? speed : .nan)
            }
            try d.phase(.stop, 104)
            return d.core.distance
        }
        let run = 21 * stepM   // 10 steps before the pause, 11 after (the first across the hold)
        if filters {
            #expect(abs(try flight(doppler: true) - run) < 2, "the step after the resume counts whole")
        } else {
            #expect(abs(try flight(doppler: true) - run) < 0.05, "the step after the resume counts whole")
            #expect(abs(try flight(doppler: false) - (run - stepM * 20 / 24)) < 0.05, "its 4 of 24 s")
        }
    }

    /// A host that stops sending fixes while paused (a phone app saving its battery, a watch that
    /// records nothing while its timer is stopped, a FIT file's timer stop replayed) gets the same
    /// distance as one that sends them: the walk while holding is no distance either way. The
    /// step from the last fix before the hold to the first after counts the leg's share of its
    /// line, as its moving time counts the leg's share of its time; the route's leg begins on
    /// that line at the resume. Filters on and off, a run and a ride, short and long holds, a
    /// resume on a fix's second and between.
    @Test(arguments: [true, false], [Activity.run, .ride])
    func theWalkWhileHoldingIsNoDistanceWhetherOrNotFixesCameDuringIt(_ filters: Bool, _ activity: Activity) throws {
        for (pauseT, resumeT) in [(300.0, 310.0), (300.0, 360.0), (300.0, 330.5)] {
            func flight(fixesWhileHolding: Bool) throws -> FlightComputer {
                var config = Driver.config(filter: 0, filters: filters)
                config.activity = activity
                config.speedCapMps = activity.speedCapMps
                config.autoPause.enabled = false
                var d = Driver(config)
                try d.phase(.start, 0)
                for k in 0...400 {
                    let t = Double(k)
                    if t > pauseT && t - 1 <= pauseT { try d.phase(.pause, pauseT) }
                    if t >= resumeT && t - 1 < resumeT { try d.phase(.resume, resumeT) }   // (310: a fix of its second)
                    if t > pauseT && t < resumeT && !fixesWhileHolding { continue }
                    try d.fix(t, 52 + degreesNorth(3 * t), 4, speed: 3)
                }
                try d.phase(.stop, 400)
                return d.core
            }
            let sent = try flight(fixesWhileHolding: true), dark = try flight(fixesWhileHolding: false)
            let ran = 3 * (400 - (resumeT - pauseT))
            #expect(abs(sent.distance - ran) < 4, "\(pauseT)-\(resumeT): fixes while holding \(sent.distance) m, \(ran) m run")
            #expect(abs(dark.distance - sent.distance) < 1, "\(pauseT)-\(resumeT): without fixes while holding \(dark.distance) m, with \(sent.distance) m")
            #expect(dark.distance / dark.movingS <= 3.05, "no faster than the runner ran")
            // No segment of the leg's first point alone (a hold without fixes longer than the
            // gap is no gap in cruise).
            func segments(_ r: Route) -> [Int] {
                let s = r.segmentStarts
                return s.indices.map { (($0 + 1 < s.count ? s[$0 + 1] : r.count) - s[$0]) }
            }
            #expect(!segments(dark.route).contains(1) && !segments(sent.route).contains(1),
                    "\(pauseT)-\(resumeT): segments \(segments(dark.route)) without fixes while holding, \(segments(sent.route)) with")
            // No route point after another faster than the runner ran, and none twice.
            let r = dark.route
            let starts = Set(r.segmentStarts)
            for i in 1..<r.count {
                #expect(!(r.time(i) == r.time(i - 1) && r.latitude(i) == r.latitude(i - 1) && r.longitude(i) == r.longitude(i - 1)),
                        "\(pauseT)-\(resumeT): route point \(i) repeats the one before")
            }
            for i in 1..<r.count where !starts.contains(i) && r.time(i) > r.time(i - 1) {
                let v = Geodesy.distance(lat1: r.latitude(i - 1), lon1: r.longitude(i - 1), lat2: r.latitude(i), lon2: r.longitude(i)) / (r.time(i) - r.time(i - 1))
                #expect(v < 3.05, "\(pauseT)-\(resumeT): route point \(i) at \(r.time(i)): \(v) m/s")
            }
        }
    }

    @Test func withRawAccumulationPaceComesFromTheFixSpeedOrFromRecentDistanceOverTime() throws {
        var d = Driver(Driver.config(filter: 0, filters: false))
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, speed: 3.7)
        #expect(abs(d.snapshot.paceMinPerKm - 1 / (3.7 * 60 / 1000)) < 1e-12)
        // Without speed: 4 m/s from distance over time.
        for i in 1...20 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4) }
        #expect(abs(d.snapshot.groundSpeedMps - 4) < 0.05)
        #expect(abs(d.snapshot.paceMinPerKm - 1000 / (60 * 4)) < 0.06)
        // A negative speed means unknown: still derived.
        try d.fix(21, 52 + degreesNorth(84), 4, speed: -1)
        #expect(abs(d.snapshot.groundSpeedMps - 4) < 0.05)
    }

    @Test func currentPaceComesFromDistanceOverTimeAndSpeedMpsStaysTheDevicesRawSpeed() throws {
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...30 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 3.5, course: 0) }
        #expect(d.snapshot.speedMps == 3.5)
        #expect(abs(d.snapshot.groundSpeedMps - 3.5) / 3.5 < 0.05, "\(d.snapshot.groundSpeedMps)")
        #expect(abs(d.snapshot.paceMinPerKm - 1000 / (60 * 3.5)) / (1000 / (60 * 3.5)) < 0.05)
    }

    @Test func headingIsTheCourseOrTheBearingOfTheLastSegment() throws {
        var d = Driver(Driver.config(filter: 0, filters: false))
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, course: 108.19)
        #expect(d.snapshot.headingDeg == 108.19)
        try d.fix(1, 52, 4)
        try d.fix(2, 52, 4.001)
        #expect(abs(d.snapshot.headingDeg - 90) < 0.01)
    }

    @Test func withRawAccumulationAReducedAccuracyFixIsNotRouteAndWarnsAtOnce() throws {
        var d = Driver(Driver.config(filter: 0, accuracy: 20, filters: false))
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, hAcc: 5)
        try d.fix(1, 52.001, 4, hAcc: 80)
        try d.fix(2, 52.002, 4, hAcc: 90)
        #expect(d.snapshot.distanceM == 0)
        #expect(d.core.route.count == 1)
        #expect(d.snapshot.accuracy == .reduced)
        let warnings = d.events.compactMap { e -> LogRing.Line? in
            if case .log(let l) = e.body, l.level == .warning { return l }
            return nil
        }
        #expect(warnings.count == 1)
        try d.fix(3, 52.0001, 4, hAcc: 4)
        #expect(d.snapshot.accuracy == .ok)
        #expect(d.core.route.count == 2)
    }

    /// The record is complete at touchdown: a fix or sample after stop is refused with
    /// `.state` and changes neither the record nor the snapshot, and a tick changes nothing.
    /// Before, they were accepted: the record's `fixes` counted them and the snapshot moved.
    @Test func inputsAfterStopAreRefusedAndChangeNothing() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.fix(1, 52, 4)
        try d.json(#"{"t":10,"lat":52.0003,"lon":4,"hr":150}"#)
        try d.phase(.stop, 10)
        var before = JSONWriter()
        d.core.writeSummary(to: &before, includeRoute: true)
        let snapshot = d.snapshotJSON
        do { try d.json(#"{"t":100,"lat":53,"lon":5,"hr":170}"#); Issue.record("a fix after stop was accepted") } catch { #expect(error.status == .state) }
        do { try d.json(#"{"type":"hr","t":101,"bpm":170}"#); Issue.record("a sample after stop was accepted") } catch { #expect(error.status == .state) }
        try d.core.tick(at: 200, wallClock: .nan, events: &d.events)
        var after = JSONWriter()
        d.core.writeSummary(to: &after, includeRoute: true)
        #expect(after.text == before.text)
        #expect(d.snapshotJSON == snapshot)
    }

    @Test func timeGoingBackwardsIsRejectedAndChangesNothing() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.fix(10, 52, 4)
        let before = d.snapshotJSON
        do { try d.fix(9, 52.1, 4); Issue.record("accepted") } catch { #expect(error.status == .input) }
        #expect(d.snapshotJSON == before)
        // Equal times are allowed.
        try d.fix(10, 52.00001, 4)
    }

    @Test func aPhaseCallWithoutTimeTakesTheNextInputsTimeWithTheReplayClock() throws {
        var d = Driver(Driver.config(filter: 0))
        try d.phase(.start)           // before any input
        try d.fix(500, 52, 4)
        try d.fix(560, 52 + degreesNorth(200), 4)
        #expect(d.snapshot.elapsedS == 60)
        try d.phase(.stop)            // "now" = the latest input
        do { try d.fix(600, 52, 4); Issue.record("a fix after stop was accepted") } catch { #expect(error.status == .state) }
        var w = JSONWriter()
        d.core.writeSummary(to: &w, includeRoute: false)
        #expect(w.text.contains("\"start_t\":500.0"))
        #expect(w.text.contains("\"end_t\":560.0"))
    }

    @Test func theReplayClockNeedsTimesAndTheLiveClockFillsThemIn() throws {
        var replay = Driver()
        do { try replay.json(#"{"lat":52,"lon":4}"#); Issue.record("accepted") } catch { #expect(error.status == .input) }
        var live = Driver(Driver.config(clock: .live))
        try live.json(#"{"lat":52,"lon":4}"#, wallClock: 1_800_000_000)
        #expect(live.snapshot.t == 1_800_000_000)
    }

    @Test func heartRateAndCadenceReachTheSnapshotAndTheSummaryTimeWeighted() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.json(#"{"type":"hr","bpm":148,"t":1}"#)
        try d.json(#"{"type":"cadence","spm":172,"t":1}"#)
        try d.json(#"{"type":"hr","bpm":152,"t":2}"#)
        #expect(d.snapshot.hrBpm == 152)
        #expect(d.snapshot.cadenceSpm == 172)
        try d.fix(4, 52, 4)
        let text = d.core.summaryJSON()
        // 148 bpm held for 1 s, 152 bpm for 2 s.
        #expect(text.contains("\"avg_hr_bpm\":\((148.0 + 2 * 152.0) / 3)"), "\(text.prefix(600))")
        #expect(text.contains("\"max_hr_bpm\":152.0"))
    }

    @Test func theSameInputsGiveTheSameOutputs() throws {
        func run() throws -> (String, [[UInt8]]) {
            var d = Driver()
            try d.phase(.start, 0)
            for i in 0..<300 {
                let wobble = Double((i * 7919) % 13) * 0.3
                try d.fix(Double(i), 52 + degreesNorth(3 * Double(i) + wobble), 4 + degreesNorth(wobble) * 1.6)
            }
            try d.phase(.stop, 300)
            return (d.core.summaryJSON(), d.events.map { $0.cString() })
        }
        let a = try run(), b = try run()
        #expect(a.0 == b.0)
        #expect(a.1 == b.1)  // compared as JSON: NaN (unknown) values are never equal as Doubles
    }

    @Test func theLogKeepsTheLast20Lines() throws {
        var d = Driver()
        for i in 0..<30 {
            d.core.logRejection(RunwayError(.input, "bad \(i)"), events: &d.events)
        }
        let lines = d.core.log.lines
        #expect(lines.count == 20)
        #expect(lines.first?.message == "rejected input: bad 10")
        #expect(lines.last?.message == "rejected input: bad 29")
    }
}
