import Testing
@testable import RunwayCore
import RunwaySim

/// A recorder that gives one fix every 25 to 60 s (a watch saving power, a logger): every wait is
/// longer than `gap_s` or every step longer than `jump_m`, so each step goes through the gap stage,
/// but in the recorder's own rhythm (`FixCadence`) it is a step of the route, not a break.
@Suite("Sparse recorders: a gap in the recorder's own rhythm is a step of its route")
struct SparseRecorderTests: ExportReading {
    struct Case: Sendable, CustomTestStringConvertible {
        var activity: Activity, intervalS: Double, mps: Double, doppler: Bool, filters = true
        var testDescription: String { "\(activity) every \(Int(intervalS)) s at \(mps) m/s\(doppler ? " with Doppler" : "")\(filters ? "" : ", filters off")" }
    }

    static let cases: [Case] = [
        Case(activity: .run, intervalS: 60, mps: 3, doppler: false),
        Case(activity: .run, intervalS: 40, mps: 3.5, doppler: true),
        Case(activity: .walk, intervalS: 45, mps: 1.4, doppler: true),
        Case(activity: .ride, intervalS: 25, mps: 9, doppler: false),      // 225 m steps: jumps, not gaps
        Case(activity: .ride, intervalS: 60, mps: 7, doppler: true),
        Case(activity: .run, intervalS: 60, mps: 3, doppler: false, filters: false),
    ]

    /// An hour along a meridian at `c.mps`, a fix every `c.intervalS` (the first one before the
    /// start, as a watch has one, so the recorder's rhythm is known from the start); the
    /// snapshots' ground speeds.
    func fly(_ c: Case, countGaps: Bool = true) throws -> (Driver, speeds: [Double]) {
        var config = EngineConfig(activity: c.activity)
        config.countGaps = countGaps
        config.filters = c.filters
        config.autoPause.enabled = false
        var d = Driver(config)
        let t0 = 1_700_000_000.0, n = Int(3600 / c.intervalS)
        try d.fix(t0 - c.intervalS, 52, 4, speed: 0, hAcc: 5)
        try d.phase(.start, t0)
        var speeds: [Double] = []
        for i in 0...n {
            let s = Double(i) * c.intervalS
            try d.fix(t0 + s, 52 + degreesNorth(c.mps * s), 4, speed: c.doppler ? c.mps : .nan, hAcc: 5)
            speeds.append(d.snapshot.groundSpeedMps)
        }
        try d.phase(.stop, t0 + Double(n) * c.intervalS)
        return (d, speeds)
    }

    @Test(arguments: cases)
    func itsRouteIsOneSegmentAndItsGeoJSONALineThroughEveryPoint(_ c: Case) throws {
        let (d, _) = try fly(c)
        let record = d.core.record
        #expect(record.route.segmentStarts.count == 1, "\(record.route.segmentStarts.count) segments")
        #expect(record.route.count == Int(3600 / c.intervalS) + 1)
        let root = try JSONInput.object(exportText(Exporter.export(record, as: .geojson)))
        let doc = Dictionary(root.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        let geometry = jsonObject(doc["geometry"])
        #expect(geometry["type"] == .string("LineString"))
        #expect(jsonArray(geometry["coordinates"]).count == record.route.count)
    }

    @Test(arguments: cases)
    func itsDistanceAndMovingTimeDoNotDependOnCountGaps(_ c: Case) throws {
        let truth = c.mps * 3600
        for countGaps in [true, false] {
            let (d, _) = try fly(c, countGaps: countGaps)
            #expect(abs(d.core.distance / truth - 1) < 0.001, "count_gaps \(countGaps): \(d.core.distance) m of \(truth)")
            #expect(abs(d.core.movingS - 3600) < 1, "count_gaps \(countGaps): moving \(d.core.movingS) s")
        }
    }

    @Test(arguments: cases)
    func itHasALivePaceFromItsThirdFix(_ c: Case) throws {
        let (_, speeds) = try fly(c)
        for (i, v) in speeds.enumerated().dropFirst(2) {
            #expect(abs(v - c.mps) < 0.01 * c.mps, "fix \(i): ground speed \(v) m/s")
            if abs(v - c.mps) >= 0.01 * c.mps { break }
        }
    }

    /// A run at 3 m/s along a meridian with fixes at `seconds` after the start (negative: before
    /// it), Doppler speed or none, stopped at the last; count_gaps as given.
    func run(atSeconds seconds: [Double], doppler: Bool, countGaps: Bool) throws -> Driver {
        var config = EngineConfig(activity: .run)
        config.countGaps = countGaps
        var d = Driver(config)
        let t0 = 1_700_000_000.0
        for s in seconds {
            if s >= 0 && d.core.phase == .preflight { try d.phase(.start, t0) }
            try d.fix(t0 + s, 52 + degreesNorth(3 * s), 4, speed: doppler ? 3 : .nan, hAcc: 5)
        }
        try d.phase(.stop, t0 + (seconds.last ?? 0))
        return d
    }

    @Test func aWaitOfMoreThanThreeOfItsIntervalsIsABreak() throws {
        // Every 40 s (one fix before the start: the rhythm is known), then nothing for 200 s:
        // that wait is a gap as a 1 Hz receiver's would be.
        let times = stride(from: -40.0, through: 800, by: 40).map { $0 } + stride(from: 1000.0, through: 1800, by: 40).map { $0 }
        let d = try run(atSeconds: times, doppler: false, countGaps: false)
        #expect(d.core.route.segmentStarts.count == 2)
        #expect(abs(d.core.distance - 3 * 1600) < 5, "\(d.core.distance) m: the 600 m across the break do not count")
    }

    @Test func aFirstWaitLongerThanGapSIsABreakWithNoRhythmHeardYet() throws {
        // One fix at the start, ten minutes without one, then 1 Hz: nothing showed a rhythm, so
        // the wait is a gap, and with count_gaps off its 1800 m line does not count.
        let d = try run(atSeconds: [0] + (600...900).map(Double.init), doppler: true, countGaps: false)
        #expect(d.core.route.segmentStarts.count == 2)
        #expect(abs(d.core.distance - 900) < 10, "\(d.core.distance) m")
    }

    @Test func aOneHertzReceiverThatLosesTheSkyStillHasAGap() throws {
        // 1 Hz, then 60 s without a fix, then 1 Hz: the wait breaks the rhythm.
        let d = try run(atSeconds: (Array(0...300) + Array(360...600)).map(Double.init), doppler: true, countGaps: false)
        #expect(d.core.route.segmentStarts.count == 2)
        #expect(abs(d.core.distance - 3 * 540) < 10, "\(d.core.distance) m")
    }

    @Test func aReceiverThatTurnsSparseIsFollowedWithinThreeFixes() throws {
        // 1 Hz for 5 minutes, then a fix every 40 s (power saving): the first waits are breaks,
        // from the fourth on they are the rhythm.
        let times = (0...300).map(Double.init) + stride(from: 340.0, through: 1500, by: 40).map { $0 }
        let d = try run(atSeconds: times, doppler: true, countGaps: true)
        let starts = d.core.route.segmentStarts.count
        #expect(starts >= 2 && starts <= 4, "\(starts) segments")
        #expect(abs(d.core.distance - 4500) < 10, "\(d.core.distance) m")
    }

    @Test(arguments: [Activity.run, .ride])
    func aJunkFixInItsRhythmLeavesTheRouteAndItsExports(_ activity: Activity) throws {
        // One fix every 40 s, the 21st junk 3 km east (out of reach at the cap), the next back on
        // the way: its two gaps are one, and the junk fix is no point of the route. In the
        // recorder's rhythm it is no segment of its own: it stayed on the route, a 3 km spike
        // in every export (6 km more to a tool that sums the points).
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false
        var d = Driver(config)
        let t0 = 1_700_000_000.0, mps = activity == .ride ? 8.0 : 3.0
        try d.fix(t0 - 40, 52, 4, hAcc: 5)
        try d.phase(.start, t0)
        for i in 0...40 {
            let s = Double(i) * 40
            try d.fix(t0 + s, 52 + degreesNorth(mps * s), 4 + degreesEast(i == 20 ? 3000 : 0), hAcc: 5)
        }
        try d.phase(.stop, t0 + 1600)
        #expect(abs(d.core.distance - mps * 1600) < 5, "\(d.core.distance) m")
        let route = d.core.record.route
        #expect(route.count == 40 && route.segmentStarts == [0], "\(route.count) points, segments \(route.segmentStarts)")
        #expect((0..<route.count).allSatisfy { abs(route.longitude($0) - 4) < degreesEast(100) }, "the junk fix is on the route")
        let gpx = try imported(d.core.record, .gpx)   // what another tool reads: the points' line
        let points = fixes(gpx.inputs)
        let line = zip(points, points.dropFirst()).reduce(0) { $0 + Geodesy.distance(lat1: $1.0.lat, lon1: $1.0.lon, lat2: $1.1.lat, lon2: $1.1.lon) }
        #expect(abs(line - mps * 1600) < 0.01 * mps * 1600, "the GPX's points are \(line) m apart")
    }

    /// A real recording's fixes, one every `everyS` seconds at most (all of them for 0), replayed
    /// with the recording's sport, started at the second: the route's segment count and distance.
    static func decimated(_ file: String, everyS: Double) throws -> (segments: Int, distanceM: Double)? {
        guard let dir = SharedTracks.folder, let bytes = SharedTracks.read(dir + "/" + file) else { return nil }
        let recording = try bytes.withUnsafeBytes { b throws(RunwayError) in try Importer.recording(b, as: .fit) }
        var d = Driver(EngineConfig(activity: recording.report.activity ?? .run))
        var next = -Double.infinity, heard = 0
        for input in recording.inputs {
            guard case .fix = input, input.t >= next else { continue }
            next = input.t + everyS
            heard += 1
            if heard == 2 { try d.phase(.start, input.t) }   // (the first fix before the start, as a watch has it)
            try d.core.process(input, wallClock: .nan, events: &d.events)
        }
        try d.phase(.stop)
        return (d.core.route.segmentStarts.count, d.core.distance)
    }

    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"),
          arguments: ["fitparse__2013-02-06-12-11-14.fit", "fitparse__activity-small-fenix2-run.fit",
                      "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"])
    func aRealRecordingThinnedToAFixEveryHalfMinuteOrMinuteBreaksNoMoreThanInFull(_ file: String) throws {
        // The same runs and ride as a logger set to 30 s or 60 s would have recorded them: every
        // wait is longer than gap_s, none a break in that rhythm but the recording's own stops.
        // Their straight lines cut the route's corners (the 2013 run's fixes a minute apart are
        // themselves a line 13.5 % shorter than all its fixes), but count.
        let full = try #require(try Self.decimated(file, everyS: 0))
        for every in [30.0, 60.0] {
            let thin = try #require(try Self.decimated(file, everyS: every))
            #expect(thin.segments <= full.segments, "every \(Int(every)) s: \(thin.segments) segments, \(full.segments) in full")
            #expect(thin.distanceM > 0.8 * full.distanceM, "every \(Int(every)) s: \(thin.distanceM) m, \(full.distanceM) m in full")
        }
    }
}
