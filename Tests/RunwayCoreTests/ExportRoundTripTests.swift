import Testing
import RunwaySim
@testable import RunwayCore

/// A flight exported and read back with the importer (the round-trip suites share it).
protocol ExportReading {}

extension ExportReading {
    func imported(_ r: FlightRecord, _ format: ExportFormat) throws -> ImportedRecording {
        let bytes = Exporter.export(r, as: format)
        let kind = try #require(ImportFormat(rawValue: format.rawValue))
        let result: Result<ImportedRecording, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try Importer.recording(b, as: kind)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    func fixes(_ inputs: [Input]) -> [Fix] { inputs.compactMap { if case .fix(let f) = $0 { return f } else { return nil } } }
}

@Suite("Exports: stops, timer events and the last point as other tools read them")
struct ExportRoundTripTests: ExportReading {
    static let fitEpoch = 631_065_600.0

    // MARK: Stops in the route

    /// A run (auto-pause off) that stands for two minutes: the route keeps a point every half
    /// `gap_s` while the runner stands, so the stop is no gap of track when the file is analysed
    /// again (it was: a minute without a route point came back as a new segment).
    @Test(arguments: [ExportFormat.gpx, .tcx, .fit])
    func aStopInCruiseComesBackFromTheFileAsNoGap(_ format: ExportFormat) throws {
        let r = try TimerFixture.flight(autoPause: false, [
            .fixes(1...300, moving: true), .fixes(301...420, moving: false), .fixes(421...600, moving: true),
            .command(.stop, 600),
        ])
        #expect(r.route.segmentStarts == [0])
        let times = (0..<r.route.count).map { r.route.time($0) }
        let longest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longest <= EngineConfig().gapS / 2, "the route went \(longest) s without a point")
        let again = try RecordingAnalysis.run(try imported(r, format), config: EngineConfig()).flight.record
        #expect(again.route.segmentStarts == [0], "\(format): segments \(again.route.segmentStarts)")
        #expect(abs(again.distanceM - r.distanceM) <= 0.001 * r.distanceM, "\(format): \(again.distanceM) m of \(r.distanceM)")
    }

    // MARK: Timer legs and FIT timer events

    @Test func theEngineRecordsACruiseLegPerStartOrResumeAndTheyAddUpToTheTimer() throws {
        let r = try TimerFixture.userPaused()
        let t0 = TimerFixture.t0
        #expect(r.timerLegs == [TimerLeg(start: t0, end: t0 + 300), TimerLeg(start: t0 + 360, end: t0 + 700),
                                TimerLeg(start: t0 + 750, end: t0 + 1000)])
        #expect(r.elapsedS == 890)
        // In the air, the leg in progress ends now.
        let inAir = try TimerFixture.flight(autoPause: false, [.fixes(1...100, moving: true), .command(.pause, 100),
                                                               .command(.resume, 130), .fixes(131...200, moving: true)])
        #expect(inAir.timerLegs == [TimerLeg(start: t0, end: t0 + 100), TimerLeg(start: t0 + 130, end: t0 + 200)])
        #expect(inAir.elapsedS == 170)
    }

    @Test func autoPausedLegsAddUpToTheTimerTime() throws {
        // A ride (auto-pause on): 300 s moving, 120 s standing, 300 s moving, stop.
        let r = try TimerFixture.flight(activity: .ride, [
            .fixes(1...300, moving: true), .fixes(301...420, moving: false), .fixes(421...720, moving: true),
            .command(.stop, 720),
        ])
        #expect(r.timerLegs.count == 2, "one auto-pause: \(r.timerLegs)")
        let sum = r.timerLegs.reduce(0) { $0 + ($1.end - $1.start) }
        #expect(abs(sum - r.elapsedS) < 1e-6, "legs \(sum) s, timer \(r.elapsedS) s")
        #expect(r.elapsedS < 720 - 60, "the standing time is not timed")
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        let timer = fit.all(21).filter { $0[0] == 0 }
        #expect(timer.map { $0[1] } == [0, 4, 0, 4], "start, stop_all (auto-pause), start (resume), stop_all")
        let expected = r.timerLegs.flatMap { [$0.start, $0.end] }.map { Int64(($0 - Self.fitEpoch).rounded(.down)) }
        #expect(timer.map { $0[253] } == expected)
    }

    /// The paused run's FIT: a timer start at the start and each resume, a stop_all at each pause
    /// and the stop, among the records in time order; the start → stop_all intervals add up to the
    /// session's and the activity's total_timer_time, and moving ≤ timer ≤ elapsed.
    @Test func aPausedFlightsFITHasTheTimerEventsAndTheirIntervalsAreTheTimerTime() throws {
        let r = try TimerFixture.userPaused()
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        let timer = fit.messages.enumerated().filter { $0.element.global == 21 && $0.element.fields[0] == 0 }
        #expect(timer.map { $0.element.fields[1] } == [0, 4, 0, 4, 0, 4])
        let times = timer.compactMap { $0.element.fields[253] }
        var derived: Int64 = 0
        for k in stride(from: 0, to: times.count - 1, by: 2) { derived += times[k + 1] - times[k] }
        let session = try #require(fit.all(18).first)
        #expect(derived * 1000 == session[8], "timer from the events: \(derived) s, total_timer_time \(String(describing: session[8]))")
        #expect(fit.all(34).first?[0] == session[8])
        let moving = try #require(session[59]), timerMs = try #require(session[8]), elapsedMs = try #require(session[7])
        #expect(moving <= timerMs && timerMs <= elapsedMs)
        #expect(elapsedMs == 1_000_000 && timerMs == 890_000)
        // The events are among the records in time order.
        var last: Int64 = 0
        for m in fit.messages where m.global == 20 || (m.global == 21 && m.fields[0] == 0) {
            let t = try #require(m.fields[253])
            #expect(t >= last)
            last = t
        }
        // Each lap's timer is the timed part of its span; lap timers add up to the session's.
        let laps = fit.all(19)
        for lap in laps { #expect((lap[8] ?? -1) <= (lap[7] ?? -2)) }
        #expect(abs(laps.reduce(0) { $0 + ($1[8] ?? 0) } - timerMs) <= Int64(laps.count), "each lap's timer rounded to 1 ms")
    }

    // MARK: The last point's distance

    /// A paused flight exported to FIT and analysed again keeps its timer: the export's timer
    /// events come back as start, pause and resume lines, so the replay's elapsed time is the
    /// flight's (from its start, a second before the first fix), and so is its distance: the
    /// ground covered while paused, which the file has no record of, is not counted again.
    /// A FIT export lists its local sensors as devices do (`device_info`): the GPS, and a
    /// barometer when the flight's altitudes were barometric. Analysed again, the file replays
    /// its altitudes as they were taken: GPS altitude as GPS (its threshold three times a
    /// barometer's), the gain within 10 % of the flight's (the file holds the route's points, not
    /// every fix); a barometric flight's as barometric. Before, every FIT was read as a
    /// barometer's: the simulator's runs with GPS altitude gained 4 to 5 times as much from their own
    /// FIT (+124 to +138 m on 34 to 37 m), the cross-country ski TCX's flight 85.0 → 109.7 m in a
    /// helper's round trip. On the tuning trials.
    @Test(arguments: [SimAltitudeSource.gps, .barometric])
    func aFITExportSaysWhereItsAltitudesCameFrom(_ source: SimAltitudeSource) throws {
        for trial in SimTrials.tuning {
            let core = try AltitudeSourceExportTests.hillyFlight(trial, source)
            let bytes = Exporter.export(core.record, as: .fit)
            let analysed: Result<RecordingAnalysis, RunwayError> = bytes.withUnsafeBytes { b in
                do throws(RunwayError) { return .success(try RecordingAnalysis.run(b, options: AnalysisOptions())) } catch { return .failure(error) }
            }
            let back = try analysed.get()
            #expect(back.report.altitudeSource == core.config.fixAltitude, "\(trial): \(String(describing: back.report.altitudeSource))")
            let gain = core.elevation.gainM, replayed = back.flight.elevation.gainM
            #expect(abs(replayed - gain) <= 0.1 * gain, "\(source), \(trial): gain \(replayed) m from the FIT, the flight's \(gain) m")
        }
    }

    @Test(arguments: [Activity.run, .ride])
    func aPausedFlightsFITReplaysToItsOwnTimerAndDistance(_ activity: Activity) throws {
        let r = try TimerFixture.userPaused(activity: activity)
        let back = try imported(r, .fit)
        #expect(back.report.pauses == 2)
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false
        let replay = try RecordingAnalysis.run(back, config: config).flight.record
        #expect(replay.startT == r.startT && replay.elapsedS == r.elapsedS, "\(replay.elapsedS) s, the flight's \(r.elapsedS) s")
        // Within the 0.5% of a run with Doppler speed (the file holds the route's points, 6 m
        // apart, not the fixes); the 180 m walked during the first pause would be 6.8%.
        #expect(abs(replay.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(replay.distanceM) m, the flight's \(r.distanceM) m")
    }

    /// A flight whose first fix came two minutes after its start (a GPS lock after the runner
    /// pressed start) exported to FIT and analysed again starts at its start, not at its first
    /// fix: its elapsed time is the flight's, paused or not, and the replay's JSON Lines begin
    /// with the start line.
    @Test(arguments: [false, true])
    func aFlightWhoseFirstFixCameAfterItsStartReplaysFromItsStart(_ paused: Bool) throws {
        let script: [TimerFixture.Step] = paused
            ? [.command(.pause, 30), .command(.resume, 90), .fixes(120...600, moving: true)]
            : [.fixes(120...600, moving: true)]
        let r = try TimerFixture.flight(autoPause: false, script)
        #expect(r.elapsedS == (paused ? 540 : 600))
        let back = try imported(r, .fit)
        #expect(back.startsBeforeItsFirstInput && back.timer.first?.t == r.startT)
        var config = EngineConfig()
        config.autoPause.enabled = false
        let replay = try RecordingAnalysis.run(back, config: config)
        #expect(replay.rejected == 0)
        #expect(replay.flight.record.startT == r.startT && replay.flight.record.elapsedS == r.elapsedS,
                "\(replay.flight.record.elapsedS) s, the flight's \(r.elapsedS) s")
        #expect(abs(replay.flight.record.distanceM - r.distanceM) <= 0.005 * r.distanceM)
        // The same through JSON Lines: the first line starts the flight.
        let fit = Exporter.export(r, as: .fit)
        let lines: Result<[UInt8], RunwayError> = fit.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try Importer.jsonLines(b, as: .fit)) } catch { return .failure(error) }
        }
        let text = String(decoding: try lines.get(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"type":"start","t":\#(Int(r.startT)).0}"#), "\(text.prefix(80))")
    }

    /// A ride a speed sensor measured, auto-pause off: indoors on a trainer (a user's pause and a
    /// standing half minute), or through a curved tunnel (`CurvedTunnel`) with fixes outside it;
    /// samples at uneven whole seconds.
    func sensorFlight(tunnel: Bool) throws -> (EngineConfig, Driver) {
        var config = EngineConfig(activity: .ride)
        config.autoPause.enabled = false
        var d = Driver(config)
        let t0 = 1_700_000_000.0, v = 6.0, path = CurvedTunnel(v: v)
        try d.phase(.start, t0)
        var t = t0, k = 0
        while t < t0 + 900 {
            t += Double(1 + k % 3)   // whole seconds (a FIT record's time), uneven
            k += 1
            if tunnel, !path.inTunnel(Int(t - t0)) {
                let (lat, lon) = path.position(at: t - t0)
                try d.fix(t, lat, lon, speed: v, hAcc: 4)
            }
            if !tunnel && k == 100 { try d.phase(.pause, t) }
            if !tunnel && k == 130 { try d.phase(.resume, t) }
            let mps = (200..<230).contains(k) ? 0.2 : v + Double(k % 5) * 0.3   // standing, then riding
            try d.core.process(try ValidatedInput(.sample(.speed(mps: mps, t: t))), wallClock: .nan, events: &d.events)
        }
        try d.phase(.stop)
        return (config, d)
    }

    /// A flight a speed sensor measured (indoors on a trainer, with a pause and a standing minute;
    /// a ride with a curved tunnel) exported to FIT and analysed again reads its own distance,
    /// moving time and timer: the sensor's stretch is written as records without a position, each
    /// with its sample's speed and the flight's distance, which the import reads as speed samples.
    /// Before, the indoor flight's FIT had no record (its import refused it: no timed points) and
    /// the tunnel's read as its straight line.
    @Test(arguments: [false, true])
    func aFlightASpeedSensorMeasuredReplaysFromItsFIT(_ tunnel: Bool) throws {
        let (config, d) = try sensorFlight(tunnel: tunnel)
        let r = d.core.record
        #expect(r.sensed.count > (tunnel ? 50 : 300))
        let back = try imported(r, .fit)
        let replay = try RecordingAnalysis.run(back, config: config)
        let again = replay.flight.record
        #expect(replay.rejected == 0)
        // The sensor's stretch replays exactly; positions within 0.5 %, as the other flights here
        // (a record's speed is the flight's smoothed speed, the fix's Doppler is not kept).
        #expect(abs(again.distanceM - r.distanceM) <= (tunnel ? 0.005 : 1e-6) * r.distanceM, "\(again.distanceM) m, the flight's \(r.distanceM) m")
        #expect(abs(again.movingS - r.movingS) <= 2 && again.elapsedS == r.elapsedS, "\(again.movingS) s moving of \(r.movingS), \(again.elapsedS) s of \(r.elapsedS)")
        #expect(abs(replay.flight.sensorDistance - d.core.sensorDistance) <= 1e-6 * r.distanceM && again.sensed.count == r.sensed.count)
        // The records' distances never decrease, and the last is the flight's.
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        let distances = fit.all(20).compactMap { $0[5] }
        #expect(distances == distances.sorted() && abs(Double(distances.last ?? 0) / 100 - r.distanceM) <= 0.01)
    }

    /// A trainer ride that stops for two minutes, auto-pause on (the ride profile's default):
    /// the samples while auto-paused are no records, and its FIT analysed again pauses there too,
    /// to the ride's own distance, moving time and timer.
    @Test func anAutoPausedTrainerRideReplaysFromItsFIT() throws {
        let config = EngineConfig(activity: .ride)
        #expect(config.autoPause.enabled)
        var d = Driver(config)
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        for k in 1...900 {
            let mps = (300..<420).contains(k) ? 0.1 : 7.0
            try d.core.process(try ValidatedInput(.sample(.speed(mps: mps, t: t0 + Double(k)))), wallClock: .nan, events: &d.events)
        }
        try d.phase(.stop)
        let r = d.core.record
        #expect(r.elapsedS < 800 && r.sensed.count < 800, "auto-paused: \(r.elapsedS) s, \(r.sensed.count) records")
        let again = try RecordingAnalysis.run(try imported(r, .fit), config: config).flight.record
        #expect(again.distanceM == r.distanceM && again.movingS == r.movingS && again.elapsedS == r.elapsedS,
                "\(again.distanceM) m, \(again.movingS) s, \(again.elapsedS) s of \(r.distanceM), \(r.movingS), \(r.elapsedS)")
    }

    /// The same flights exported to TCX and analysed again: the sensor's stretch is Trackpoints
    /// without a Position, each with its sample's speed (`<ns3:TPX><ns3:Speed>`, to 1 mm/s) and
    /// the flight's distance, which the import reads as speed samples. TCX has no timer events,
    /// and its replay starts at its first Trackpoint: the indoor flight's first sample measures
    /// nothing (its interval from the start is not in the TCX), nor does its first after the
    /// resume (it begins the resumed leg's Track, which the import resumes at); two intervals,
    /// < 0.5 %. Before, an indoor flight's TCX had no Trackpoint and its
    /// import refused it; the tunnel read as its straight line.
    @Test(arguments: [false, true])
    func aFlightASpeedSensorMeasuredReplaysFromItsTCX(_ tunnel: Bool) throws {
        let (config, d) = try sensorFlight(tunnel: tunnel)
        let r = d.core.record
        let back = try imported(r, .tcx)
        let replay = try RecordingAnalysis.run(back, config: config)
        let again = replay.flight.record
        #expect(replay.rejected == 0 && again.sensed.count == r.sensed.count - (tunnel ? 0 : 2), "\(again.sensed.count) of \(r.sensed.count) points")
        #expect(abs(again.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(again.distanceM) m, the flight's \(r.distanceM) m")
        #expect(abs(replay.flight.sensorDistance - d.core.sensorDistance) <= (tunnel ? 0.001 : 0.005) * d.core.sensorDistance,
                "\(replay.flight.sensorDistance) m by the sensor of \(d.core.sensorDistance) m")
        #expect(abs(again.movingS - r.movingS) <= 3, "\(again.movingS) s moving of \(r.movingS)")
        // The Trackpoints' distances never decrease, and the last is the flight's.
        let tcx = try parsedExport(r, .tcx)
        let distances = tcx.descendants("Trackpoint").compactMap { Double($0.first("DistanceMeters")?.text ?? "") }
        #expect(distances.count == r.route.count + r.sensed.count)
        #expect(distances == distances.sorted() && abs((distances.last ?? 0) - r.distanceM) <= 0.01)
    }

    /// An indoor run's TCX as a treadmill or a sync service writes it: Trackpoints with a Time,
    /// the device's cumulative DistanceMeters and a heart rate, no Position and no Speed. Each
    /// measures the distance since the one before it, so the run reads its device's distance.
    /// The second Track (after 5 minutes) is a pause of the replay: its first Trackpoint, which
    /// has none before it in its Track, resumes the flight, and the next measures from there;
    /// the 5 minutes are not timed. Before, the replay ran through them and the second Track's
    /// first interval was lost (the sample before it too long ago, `gap_s`).
    @Test func anIndoorTCXWithOnlyDistancesReadsItsDevicesDistance() throws {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        func point(_ t: Int, _ d: Double) -> String {
            "<Trackpoint><Time>2026-03-01T07:\(two(t / 60)):\(two(t % 60))Z</Time><DistanceMeters>\(d)</DistanceMeters><HeartRateBpm><Value>140</Value></HeartRateBpm></Trackpoint>"
        }
        var first = "", second = "", d = 0.0
        for t in 0...600 where t % 2 == 0 { first += point(t, d); d += 2 * (2.8 + Double(t % 7) * 0.1) }
        let paused = d
        for t in 900...1500 where t % 2 == 0 { second += point(t, d); d += 2 * 3.0 }
        let last = d - 2 * 3.0
        let text = "<?xml version=\"1.0\"?><TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\"><Activities><Activity Sport=\"Running\"><Id>2026-03-01T07:00:00Z</Id><Lap StartTime=\"2026-03-01T07:00:00Z\"><TotalTimeSeconds>1200</TotalTimeSeconds><DistanceMeters>\(last)</DistanceMeters><Track>\(first)</Track><Track>\(second)</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        let bytes = Array(text.utf8)
        let recording = try bytes.withUnsafeBytes { b throws(RunwayError) in try Importer.recording(b, as: .tcx) }
        let speeds = recording.inputs.filter { if case .sample(.speed) = $0 { true } else { false } }
        #expect(speeds.count == 300 + 300, "\(speeds.count) speed samples")
        let flight = try RecordingAnalysis.run(recording, config: EngineConfig(activity: .run)).flight
        let truth = (paused - 2 * (2.8 + Double(600 % 7) * 0.1)) + (last - paused)
        #expect(abs(flight.record.distanceM - truth) < 1e-6, "\(flight.record.distanceM) m of \(truth) m")
        #expect(abs(flight.sensorDistance - truth) < 1e-6)
        #expect(recording.report.pauses == 1 && flight.record.elapsedS == 1200, "\(flight.record.elapsedS) s")
    }

    /// The exported cumulative distance of the last point is the flight's distance (CSV, TCX and
    /// FIT carry it to 1 cm): with the distance filter, the fixes after the last kept point used
    /// to add distance that no point carried (4.2 m on the 2.6 km run, 2.9 m on the ride).
    @Test(arguments: [(Activity.run, true), (.ride, true), (.run, false)])
    func theLastExportedPointCarriesTheFlightsDistance(_ activity: Activity, _ filters: Bool) throws {
        let flights = [try ExportFixture.simulated(activity: activity, filters: filters), try TimerFixture.userPaused(activity: activity)]
        for r in flights {
            let csv = exportText(Exporter.export(r, as: .csv)).split(separator: "\n").last
            let csvD = try #require(Double(csv?.split(separator: ",", omittingEmptySubsequences: false)[5] ?? ""))
            let tcx = try parsedExport(r, .tcx)
            let tcxD = try #require(Double(tcx.descendants("Trackpoint").last?.first("DistanceMeters")?.text ?? ""))
            let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
            let fitD = Double(try #require(fit.all(20).last?[5])) / 100
            for (format, d) in [("csv", csvD), ("tcx", tcxD), ("fit", fitD)] {
                #expect(abs(d - r.distanceM) <= 0.01, "\(format): last point \(d) m, flight \(r.distanceM) m")
            }
            #expect(r.route.time(r.route.count - 1) == r.endT || !filters, "the route ends where the flight did")
        }
    }
}
