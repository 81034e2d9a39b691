import Testing
@testable import RunwayCore

/// GPX `trkseg`s and TCX `Track`s break where the flight's timer stopped (its cruise legs), not
/// at a GPS gap or jump inside a leg: an import reads every break as a pause, and finds the gaps
/// again from the points' times.
@Suite("Exports: GPX and TCX segments are the flight's timer legs")
struct ExportLegTests {
    func analysed(_ r: FlightRecord, _ format: ExportFormat) throws -> RecordingAnalysis {
        let bytes = Exporter.export(r, as: format)
        let kind = try #require(ImportFormat(rawValue: format.rawValue))
        let imported = try bytes.withUnsafeBytes { b throws(RunwayError) in try Importer.recording(b, as: kind) }
        var config = EngineConfig(activity: r.activity)
        config.autoPause.enabled = false
        return try RecordingAnalysis.run(imported, config: config)
    }

    /// A run (auto-pause off) with a 60 s GPS gap in cruise (180 m run without a fix, which the
    /// engine counts) and a user pause of 60 s: legs 0-600 and 660-900, three route segments.
    static func gapAndPause() throws -> FlightRecord {
        try TimerFixture.flight(autoPause: false, [
            .fixes(1...300, moving: true), .gap(301...360), .fixes(361...600, moving: true),
            .command(.pause, 600), .command(.resume, 660), .fixes(661...900, moving: true), .command(.stop, 900),
        ])
    }

    @Test func aPointBelongsToTheLatestLegStartedByItsTime() {
        var route = Route()
        for t in [0.0, 10, 20, 30, 40, 50, 60] {
            if t == 30 || t == 50 { route.beginSegment() }
            route.append(lat: 52, lon: 4, alt: .nan, t: t, distanceM: 0, speedMps: .nan, deviceSpeedMps: .nan, hr: .nan, cadence: .nan)
        }
        // Leg 1 ends at 15; the point at 20 (paused) stays with it; a point at exactly 30 (the
        // resume) begins leg 2; the route segment at 50 (a gap) breaks nothing; a leg without
        // a point (55-56) is no range.
        let legs = [TimerLeg(start: 0, end: 15), TimerLeg(start: 30, end: 45), TimerLeg(start: 55, end: 56),
                    TimerLeg(start: 60, end: 70)]
        #expect(route.legRanges(legs) == [0..<3, 3..<6, 6..<7])
        #expect(route.legRanges([TimerLeg(start: 5, end: 70)]) == [0..<7], "points before the first leg are in it")
        #expect(route.legRanges([]) == route.segmentRanges && route.segmentRanges == [0..<3, 3..<5, 5..<7])
        #expect(route.legRanges([TimerLeg(start: .nan, end: .nan)]) == route.segmentRanges)
        #expect(Route().legRanges(legs).isEmpty)
    }

    @Test func aGapBreaksNoTrksegOrTrackAndAPauseDoes() throws {
        let r = try Self.gapAndPause()
        #expect(r.route.segmentStarts.count == 3, "the gap and the resume start segments: \(r.route.segmentStarts)")
        #expect(r.timerLegs.count == 2)
        let resumed = try #require((0..<r.route.count).first { r.route.time($0) >= TimerFixture.t0 + 660 })
        let gpx = try parsedExport(r, .gpx)
        let segs = try #require(gpx.first("trk")).all("trkseg")
        #expect(segs.map { $0.all("trkpt").count } == [resumed, r.route.count - resumed])
        // TCX: a Track starts at each Lap and at the resume, none at the gap.
        let tcx = try parsedExport(r, .tcx)
        var firsts: [String] = []
        for lap in tcx.descendants("Lap") {
            for track in lap.all("Track") { firsts.append(track.all("Trackpoint").first?.first("Time")?.text ?? "") }
        }
        let lapStarts = r.exportLaps.compactMap { ISOTime.string(r.route.time($0.points.lowerBound)) }
        let resume = try #require(ISOTime.string(r.route.time(resumed)))
        #expect(Set(firsts) == Set(lapStarts + [resume]) && firsts.count == Set(firsts).count, "\(firsts)")
        for format in [ExportFormat.gpx, .tcx] {
            let back = try analysed(r, format)
            #expect(back.report.pauses == 1, "\(format): \(back.report.pauses) pauses")
            let again = back.flight.record
            #expect(again.route.segmentStarts.count == 3, "\(format): segments \(again.route.segmentStarts)")
            // The FIT round trip's tolerance (ExportRoundTripTests); the gap's 180 m are 7 %.
            #expect(abs(again.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(format): \(again.distanceM) m of \(r.distanceM) m")
            #expect(abs(again.movingS - r.movingS) <= 0.005 * r.movingS, "\(format): \(again.movingS) s moving of \(r.movingS) s")
        }
    }

    /// An outing like `cerknicko-jezero.gpx`: a walk with gaps of 45 s, 2 and 5 minutes (their
    /// straight lines counted, `count_gaps`), paused once. Its GPX and TCX keep the distance.
    @Test(arguments: [ExportFormat.gpx, .tcx])
    func aFlightWithSeveralCountedGapsKeepsItsDistanceThroughTheFile(_ format: ExportFormat) throws {
        let r = try TimerFixture.flight(autoPause: false, [
            .fixes(1...200, moving: true), .gap(201...245), .fixes(246...500, moving: true), .gap(501...620),
            .fixes(621...800, moving: true), .command(.pause, 800), .command(.resume, 1400),
            .fixes(1401...1600, moving: true), .gap(1601...1900), .fixes(1901...2100, moving: true), .command(.stop, 2100),
        ])
        #expect(r.route.segmentStarts.count == 5, "three gaps and a resume: \(r.route.segmentStarts)")
        let bridged = ExportFixture.routeLength(r.route)
        #expect(r.distanceM > bridged.withinSegments + 1000, "the gaps are counted: \(r.distanceM) m")
        let back = try analysed(r, format)
        #expect(back.report.pauses == 1)
        let again = back.flight.record
        #expect(again.route.segmentStarts.count == r.route.segmentStarts.count, "\(format): segments \(again.route.segmentStarts)")
        #expect(abs(again.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(format): \(again.distanceM) m of \(r.distanceM) m")
        #expect(abs(again.movingS - r.movingS) <= 0.005 * r.movingS, "\(format): \(again.movingS) s moving of \(r.movingS) s")
    }
}

@Suite("TCX: a timer leg that begins with a speed sensor's points")
struct SensorLegTCXTests {
    /// A ride paused by its rider (300-360 s) that resumes in a tunnel: a speed sensor measures
    /// the first 100 s of the resumed leg, then fixes come again. The sensor's points open the
    /// resumed leg's Track, so the TCX analysed again pauses at the break and has the flight's
    /// timer (but for the seconds the TCX has no point for). Before, they joined the first leg's Track,
    /// the only break fell between the last sample and the first fix (the same second), and the
    /// import joined the Tracks: no pause, 699 s of timer for 640. (Now 638: a TCX has no point at
    /// the start or at the resume, so the replay's timer begins a second later at each.)
    @Test func theResumedLegsSamplesOpenItsTrack() throws {
        var config = EngineConfig(activity: .ride)
        config.autoPause.enabled = false
        var d = Driver(config)
        let t0 = 1_700_000_000.0
        var lat = 52.0
        try d.phase(.start, t0)
        for k in 1...300 { lat += 6 / 111_250; try d.fix(t0 + Double(k), lat, 4, speed: 6, hAcc: 4) }
        try d.phase(.pause, t0 + 300)
        try d.phase(.resume, t0 + 360)
        for k in 361...460 {
            try d.core.process(try ValidatedInput(.sample(.speed(mps: 6, t: t0 + Double(k)))), wallClock: .nan, events: &d.events)
        }
        lat += 600 / 111_250
        for k in 461...700 { lat += 6 / 111_250; try d.fix(t0 + Double(k), lat, 4, speed: 6, hAcc: 4) }
        try d.phase(.stop)
        let r = d.core.record
        try #require(r.timerLegs.count == 2 && r.sensed.count == 100)
        let back = try ExportLegTests().analysed(r, .tcx)
        let again = back.flight.record
        #expect(back.report.pauses == 1, "\(back.report.warnings)")
        #expect(abs(again.elapsedS - r.elapsedS) <= 2, "\(again.elapsedS) s of timer, the flight's \(r.elapsedS) s")
        #expect(abs(again.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(again.distanceM) m of \(r.distanceM) m")
    }
}
