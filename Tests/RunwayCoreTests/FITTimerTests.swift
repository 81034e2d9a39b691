import Testing
import RunwaySim
@testable import RunwayCore

/// A FIT export's records in the timer period their distance belongs to (`FITTimeline`), and an
/// auto-paused flight analysed again from its FIT.
@Suite("FIT timer: a backdated auto-pause and auto-resume from the file")
struct FITTimerTests {
    /// A ride that slows to a stop, stands 40 s and rides on, auto-pause on, its fixes without a
    /// Doppler speed (as the tour's TCX): the auto-pause is backdated to the start of its slow
    /// hold, so the leg ends before the last points it kept (their slow metres are the leg's),
    /// and the auto-resume to the start of its fast hold, seconds before the resumed leg's first
    /// point. Its FIT has every record whose distance grew within a timer leg (the stopped
    /// periods' records repeat the distance before them, as Garmin's do), the records and timer
    /// events in time order, and the events' intervals are `total_timer_time`; analysed again,
    /// it comes back with the flight's segments, timer, distance (0.5 %) and moving time (2 s).
    /// Before, the leg's last record lay in the stopped period and its metres were lost, and the
    /// resumed leg's first step spanned the pause: `togeojson__tour_hr.tcx` came back −1.25 %
    /// with a segment more; this flight −2.0 %, −4 s moving and −5 s of timer, with 3 segments for 2
    /// (now −0.37 %, +1 s).
    @Test func aBackdatedAutoPauseReplaysFromItsFITWithTheFlightsSegmentsAndDistance() throws {
        let r = try TimerFixture.flight(activity: .ride, [
            .paced(1...150, mps: { _ in 3 }),
            .paced(151...160, mps: { k in [2.6, 2.2, 1.8, 1.4, 1.1, 0.9, 0.8, 0.8, 0.7, 0.7][k - 151] }),
            .paced(161...200, mps: { _ in 0 }),
            .paced(201...350, mps: { _ in 3 }),
            .command(.stop, 350),
        ])
        try #require(r.timerLegs.count == 2 && r.route.segmentStarts.count == 2, "one auto-pause: \(r.timerLegs)")
        let pause = r.timerLegs[0].end, resume = r.timerLegs[1].start
        let before = (0..<r.route.count).last { r.route.time($0) <= pause }.map { r.route.distanceM($0) } ?? 0
        try #require((0..<r.route.count).contains { r.route.time($0) > pause && r.route.distanceM($0) > before },
                     "a point after the leg's end carries distance the leg counted")
        try #require(!(0..<r.route.count).contains { r.route.time($0) == resume }, "no point at the resume")
        // The FIT: records in time order, timer events at the legs' ends, and no distance in a stopped period.
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        var running = false, last: Int64 = 0, distance: Int64 = 0, starts: [Int64] = [], stops: [Int64] = []
        for m in fit.messages where m.global == 20 || (m.global == 21 && m.fields[0] == 0) {
            let t = try #require(m.fields[253])
            #expect(t >= last, "in time order")
            last = t
            if m.global == 21 {
                running = m.fields[1] == 0
                if running { starts.append(t) } else { stops.append(t) }
                continue
            }
            let d = try #require(m.fields[5])
            #expect(d >= distance && (running || d == distance), "record at \(t): \(d) cm after \(distance) cm, timer \(running ? "running" : "stopped")")
            distance = d
        }
        let session = try #require(fit.all(18).first)
        #expect(zip(starts, stops).reduce(0) { $0 + ($1.1 - $1.0) } * 1000 == session[8])
        #expect(fit.all(20).count == r.route.count + 1, "a record per point, and one where the auto-resumed leg began")
        let back = try ExportRoundTripTests().imported(r, .fit)
        let replay = try RecordingAnalysis.run(back, config: EngineConfig(activity: .ride))
        let again = replay.flight.record
        #expect(replay.rejected == 0)
        #expect(again.route.segmentStarts.count == r.route.segmentStarts.count, "segments \(again.route.segmentStarts) of \(r.route.segmentStarts)")
        #expect(again.timerLegs.map { [$0.start, $0.end] } == r.timerLegs.map { [$0.start, $0.end] } && again.elapsedS == r.elapsedS,
                "\(again.timerLegs) of \(r.timerLegs)")
        #expect(abs(again.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(again.distanceM) m, the flight's \(r.distanceM) m")
        #expect(abs(again.movingS - r.movingS) <= 2, "\(again.movingS) s moving of \(r.movingS)")
    }

    static let recordings = ImportTests.recordings.filter { $0 != "gpxpy__Mojstrovka.gpx" }   // (its 1901 times are refused)
        + ["fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"]

    func analysed(_ bytes: [UInt8]) throws -> FlightRecord {
        let result: Result<RecordingAnalysis, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try RecordingAnalysis.run(b, options: AnalysisOptions())) } catch { return .failure(error) }
        }
        return try result.get().flight.record
    }

    /// Every real recording analysed (`runway_analyse`: the file's sport, auto-pause as its
    /// profile has it), exported to FIT and analysed again has the flight's segments and its
    /// timer (0.1 %; `sample-activity.fit` −0.05 %). Before, the tour's TCX (a ride that
    /// auto-pauses once) came back with 3 segments for 2 and −1.17 % of timer (422 s of 427).
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"), arguments: recordings)
    func aRecordingAnalysedFromItsFITHasItsSegmentsAndTimer(_ file: String) throws {
        let dir = try #require(SharedTracks.folder)
        let bytes = try #require(SharedTracks.read(dir + "/" + file), "missing \(file)")
        let flight = try analysed(bytes)
        let again = try analysed(Exporter.export(flight, as: .fit))
        #expect(again.route.segmentStarts.count == flight.route.segmentStarts.count,
                "\(again.route.segmentStarts.count) segments of \(flight.route.segmentStarts.count)")
        // FIT's timestamps are whole seconds (rounded down): what that takes from each leg of a
        // recording with fractional times (Friday-Evening-Run's, three legs since its trksegs are
        // pauses) is beyond the format, not the round trip.
        let whole = flight.timerLegs.reduce(0.0) { $0 + abs(($1.end.rounded(.down) - $1.start.rounded(.down)) - ($1.end - $1.start)) }
        #expect(abs(again.elapsedS - flight.elapsedS) <= 1e-3 * flight.elapsedS + whole,
                "\(again.elapsedS) s of timer, the flight's \(flight.elapsedS) s (whole seconds take \(whole) s)")
    }
}
