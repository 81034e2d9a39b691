import Testing
import RunwaySim
@testable import RunwayCore

/// GPX and TCX exports say where their altitudes come from (`<runway:altitude_source>`,
/// `AltitudeSourceElement`), and the import reads it back as the report's `altitude_source`: a
/// barometer's altitudes analysed again from the file are a barometer's (300 s window and 6 m
/// threshold as GPS altitudes halved the gain of every barometric FIT exported and read back).
@Suite("GPX and TCX exports say where their altitudes come from")
struct AltitudeSourceExportTests {
    static func analysed(_ bytes: [UInt8], options: AnalysisOptions = AnalysisOptions()) throws -> RecordingAnalysis {
        let result: Result<RecordingAnalysis, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try RecordingAnalysis.run(b, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    static func report(_ text: String, _ format: ImportFormat) throws -> ImportReport {
        let bytes = Array(text.utf8)
        let result: Result<ImportedRecording, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try Importer.recording(b, as: format)) } catch { return .failure(error) }
        }
        return try result.get().report
    }

    /// A simulated run over a sine hill, its altitudes in its fixes from `source`, replayed with
    /// `fix_altitude` saying so: the simulator's barometer (`SimAltitudeError.barometric`: 0.2 m
    /// of white noise and a slow drift) over a 60 m hill (gain 120 m), or its GPS (the default
    /// wander of metres) over a 15 m one.
    static func hillyFlight(_ trial: SimTrial, _ source: SimAltitudeSource) throws -> FlightComputer {
        var sim = trial.config(SimConfig())
        sim.altitudeSource = source
        if source == .barometric { sim.altitudeError = .barometric }
        sim.hillShape = .sine
        sim.altitudeAmplitudeM = source == .barometric ? 60 : 15
        let run = simulate(sim)
        var config = EngineConfig()
        config.fixAltitude = source == .barometric ? .barometric : .gps
        var core = FlightComputer(config: config)
        var events: [Event] = []
        let first = try #require(run.fixes.first), last = try #require(run.fixes.last)
        try core.command(.start, at: first.t, wallClock: .nan, events: &events)
        for f in run.fixes {
            try core.process(.fix(Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc)),
                             wallClock: .nan, events: &events)
        }
        try core.command(.stop, at: last.t, wallClock: .nan, events: &events)
        return core
    }

    /// How far the gain of a flight's export, analysed again, is from the flight's (a fraction):
    /// the file holds the route's points (one every `distance_filter_m` or so), not every fix, and
    /// the barometric climb counter's 60 m / 60 s means over fewer points differ a little. Up to
    /// 2.0 % measured: sample-activity 290.6 m, 284.9 m from GPX or TCX, 290.0 m from FIT (its
    /// records without a position carry the altimeter's altitude); the 2015 Edge 200 ride 59.9 m,
    /// 58.9 m from GPX or TCX; ELEMNT 288.8 m, 288.2 m and 288.3 m; the fenix 2 run 69.9 m, 69.3 m;
    /// the simulated seed 2 120.22 m, 120.39 m from GPX or TCX and 120.33 m from FIT (the same when
    /// the altitudes come as altimeter samples, `AltimeterExportTests`).
    /// Read as GPS altitudes (the element taken out), GPX and TCX give about half (the ELEMNT ride's
    /// 141.4 m of 288.8); the simulated tuning flights 4.1–4.3 % less (113.9–115.0 m of
    /// 119.0–120.2: the 300 s mean flattens the hill's top).
    static let routeTolerance = 0.025

    @Test(arguments: [ExportFormat.gpx, .tcx, .fit])
    func aBarometricFlightsExportReplaysToItsGain(_ format: ExportFormat) throws {
        for trial in SimTrials.tuning {
            let core = try Self.hillyFlight(trial, .barometric)
            let gain = core.elevation.gainM
            #expect(gain > 100, "\(trial): \(gain) m")
            let back = try Self.analysed(Exporter.export(core.record, as: format))
            #expect(back.report.altitudeSource == .barometric, "\(format), \(trial): \(String(describing: back.report.altitudeSource))")
            let replayed = back.flight.elevation.gainM
            #expect(abs(replayed - gain) <= Self.routeTolerance * gain, "\(format), \(trial): gain \(replayed) m from the file, the flight's \(gain) m")
        }
    }

    @Test(arguments: [ExportFormat.gpx, .tcx])
    func aGPSAltitudeFlightsExportSaysGPS(_ format: ExportFormat) throws {
        let core = try Self.hillyFlight(SimTrials.tuning[0], .gps)
        let text = exportText(Exporter.export(core.record, as: format))
        #expect(text.contains("<runway:altitude_source>gps</runway:altitude_source>"))
        let back = try Self.analysed(Exporter.export(core.record, as: format))
        #expect(back.report.altitudeSource == .gps)
        var w = JSONWriter()
        back.report.write(to: &w)
        #expect(w.text.contains(#""altitude_source":"gps""#), "\(w.text)")
    }

    /// The element's place in each format's schema: GPX 1.1's `trk` takes its `extensions` after
    /// `type` and before the `trkseg`s; TCX's `Activity` its `Extensions` last, after `Notes`.
    @Test func theElementIsWhereEachSchemaAllowsExtensions() throws {
        var r = try ExportFixture.simulated()
        r.flightID = "morning"
        r.altitudeSource = .barometric
        let gpx = exportText(Exporter.export(r, as: .gpx))
        #expect(gpx.contains(#"xmlns:runway="https://librunway.dev/xmlschemas/1""#))
        #expect(gpx.contains("<type>running</type><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>\n  <trkseg>"))
        let tcx = exportText(Exporter.export(r, as: .tcx))
        #expect(tcx.contains(#"xmlns:runway="https://librunway.dev/xmlschemas/1""#))
        #expect(tcx.contains("<Notes>morning</Notes>\n   <Extensions><runway:altitude_source>barometric</runway:altitude_source></Extensions>\n  </Activity>"))
    }

    static let gpxHead = #"<?xml version="1.0"?><gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1""#
    static let point = #"<trkseg><trkpt lat="52.37" lon="4.89"><ele>3</ele><time>2023-11-14T22:13:20Z</time></trkpt></trkseg>"#

    /// A GPX file from elsewhere, without librunway's element, or with one that is not librunway's
    /// (another namespace, an unbound or default-namespace name, another place) or says something
    /// else, says nothing: `altitude_source` null, and no error.
    @Test func aGPXWithoutTheElementOrWithAnotherSaysNothing() throws {
        let ns = #"xmlns:runway="https://librunway.dev/xmlschemas/1""#
        let cases: [(String, ElevationTracker.Source?)] = [
            (Self.gpxHead + "><trk>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", .barometric),
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source> gps\n</runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", .gps),
            // Malformed values are ignored.
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source>xyz</runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source>Barometric</runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source></runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source><b>barometric</b></runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            // Another namespace, the GPX one (no prefix), an unbound prefix.
            (Self.gpxHead + #" xmlns:runway="https://example.com/x"><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>"# + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><extensions><altitude_source>barometric</altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + "><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            // Bound on the element itself, or as its default namespace: librunway's.
            (Self.gpxHead + #"><trk><extensions><r:altitude_source xmlns:r="https://librunway.dev/xmlschemas/1">barometric</r:altitude_source></extensions>"# + Self.point + "</trk></gpx>", .barometric),
            (Self.gpxHead + #"><trk><extensions xmlns:r="https://librunway.dev/xmlschemas/1"><r:altitude_source>gps</r:altitude_source></extensions>"# + Self.point + "</trk></gpx>", .gps),
            (Self.gpxHead + #"><trk><extensions><altitude_source xmlns="https://librunway.dev/xmlschemas/1">barometric</altitude_source></extensions>"# + Self.point + "</trk></gpx>", .barometric),
            // An inner binding of the prefix shadows the outer one, and goes out of scope with its
            // element: the root's librunway binding again for the next track's element.
            (Self.gpxHead + " \(ns)><trk><extensions xmlns:runway=\"https://example.com/x\"><runway:altitude_source>barometric</runway:altitude_source></extensions>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + #" xmlns:runway="https://example.com/x"><trk><extensions><runway:altitude_source xmlns:runway="https://librunway.dev/xmlschemas/1">gps</runway:altitude_source></extensions>"# + Self.point + "</trk></gpx>", .gps),
            (Self.gpxHead + " \(ns)><trk><extensions xmlns:runway=\"https://example.com/x\"><runway:altitude_source>gps</runway:altitude_source></extensions>" + Self.point + "</trk><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions></trk></gpx>", .barometric),
            // A binding on a sibling is out of scope.
            (Self.gpxHead + #"><trk><extensions><x xmlns:runway="https://librunway.dev/xmlschemas/1"/><runway:altitude_source>barometric</runway:altitude_source></extensions>"# + Self.point + "</trk></gpx>", nil),
            // Elsewhere: the metadata's, a point's, deeper in the track's extensions.
            (Self.gpxHead + " \(ns)><metadata><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions></metadata><trk>" + Self.point + "</trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><trkseg><trkpt lat=\"52.37\" lon=\"4.89\"><time>2023-11-14T22:13:20Z</time><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions></trkpt></trkseg></trk></gpx>", nil),
            (Self.gpxHead + " \(ns)><trk><extensions><x><runway:altitude_source>barometric</runway:altitude_source></x></extensions>" + Self.point + "</trk></gpx>", nil),
            // Two tracks that agree, and two that do not.
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>" + Self.point + "</trk><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions></trk></gpx>", .barometric),
            (Self.gpxHead + " \(ns)><trk><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>" + Self.point + "</trk><trk><extensions><runway:altitude_source>gps</runway:altitude_source></extensions></trk></gpx>", nil),
        ]
        for (k, (text, expected)) in cases.enumerated() {
            let report = try Self.report(text, .gpx)
            #expect(report.altitudeSource == expected, "case \(k): \(String(describing: report.altitudeSource))")
            #expect(report.inputs == 1 && report.warnings.isEmpty, "case \(k): \(report.inputs) inputs, \(report.warnings)")
        }
    }

    @Test func aTCXReadsTheElementOnlyInTheActivitysExtensions() throws {
        let head = #"<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:runway="https://librunway.dev/xmlschemas/1"><Activities><Activity Sport="Running"><Id>2023-11-14T22:13:20Z</Id>"#
        let lap = #"<Lap StartTime="2023-11-14T22:13:20Z"><TotalTimeSeconds>1</TotalTimeSeconds><DistanceMeters>0</DistanceMeters><Calories>0</Calories><Intensity>Active</Intensity><TriggerMethod>Manual</TriggerMethod><Track><Trackpoint><Time>2023-11-14T22:13:20Z</Time><Position><LatitudeDegrees>52.37</LatitudeDegrees><LongitudeDegrees>4.89</LongitudeDegrees></Position><AltitudeMeters>3</AltitudeMeters></Trackpoint></Track>"#
        let cases: [(String, ElevationTracker.Source?)] = [
            (head + lap + "</Lap></Activity></Activities></TrainingCenterDatabase>", nil),
            (head + lap + "</Lap><Extensions><runway:altitude_source>barometric</runway:altitude_source></Extensions></Activity></Activities></TrainingCenterDatabase>", .barometric),
            (head + lap + "</Lap><Extensions><runway:altitude_source>gps</runway:altitude_source></Extensions></Activity></Activities></TrainingCenterDatabase>", .gps),
            (head + lap + "</Lap><Extensions><runway:altitude_source>xyz</runway:altitude_source></Extensions></Activity></Activities></TrainingCenterDatabase>", nil),
            (head + lap + "</Lap><Extensions><altitude_source>barometric</altitude_source></Extensions></Activity></Activities></TrainingCenterDatabase>", nil),
            // A lap's extensions are not the activity's.
            (head + lap + "<Extensions><runway:altitude_source>barometric</runway:altitude_source></Extensions></Lap></Activity></Activities></TrainingCenterDatabase>", nil),
        ]
        for (k, (text, expected)) in cases.enumerated() {
            let report = try Self.report(text, .tcx)
            #expect(report.altitudeSource == expected, "case \(k): \(String(describing: report.altitudeSource))")
            #expect(report.inputs == 1 && report.warnings.isEmpty, "case \(k): \(report.inputs) inputs, \(report.warnings)")
        }
    }

    /// An exported barometric flight whose element says something else ("xyz") imports without
    /// an error and with `altitude_source` null, as any GPX or TCX from elsewhere.
    @Test(arguments: [ExportFormat.gpx, .tcx])
    func aMalformedValueInAnExportIsIgnored(_ format: ExportFormat) throws {
        var r = try ExportFixture.simulated()
        r.altitudeSource = .barometric
        let text = exportText(Exporter.export(r, as: format))
        let bad = text.split(separator: ">barometric</runway:altitude_source>", omittingEmptySubsequences: false)
            .joined(separator: ">xyz</runway:altitude_source>")
        #expect(bad != text)
        let back = try Self.analysed(Array(bad.utf8))
        #expect(back.report.altitudeSource == nil)
        #expect(back.report.warnings.isEmpty, "\(back.report.warnings)")
    }

    /// The GPX and TCX files in ../shared/tracks come from other tools: none says.
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func theRealGPXAndTCXFilesSayNothing() throws {
        let dir = try #require(SharedTracks.folder)
        for file in ["gpxpy__Mojstrovka.gpx", "gpxpy__cerknicko-jezero.gpx", "togeojson__Friday-Evening-Run.gpx",
                     "tcxreader__cross-country-skiing_activity_1.tcx", "togeojson__tour_hr.tcx"] {
            let bytes = try #require(SharedTracks.read(dir + "/" + file), "\(file)")
            let format = try #require(ImportFormat(rawValue: String(file.split(separator: ".").last ?? "")))
            let result: Result<ImportedRecording, RunwayError> = bytes.withUnsafeBytes { b in
                do throws(RunwayError) { return .success(try Importer.recording(b, as: format)) } catch { return .failure(error) }
            }
            #expect(try result.get().report.altitudeSource == nil, "\(file)")
        }
    }

    /// The barometric FITs in ../shared/tracks (the device's altitudes: the report's
    /// `altitude_source` barometric), analysed, exported to GPX and TCX (and FIT, for comparison) and
    /// analysed again: the same gain within `routeTolerance` (GPX and TCX gave about half: the
    /// altitudes replayed as GPS ones).
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"), arguments: [ExportFormat.gpx, .tcx, .fit])
    func theRealBarometricFITsExportedReplayToTheirGain(_ format: ExportFormat) throws {
        let dir = try #require(SharedTracks.folder)
        var barometric = 0
        for file in ["fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit", "fitparse__sample-activity.fit",
                     "fitparse__activity-small-fenix2-run.fit", "fitparse__2015-10-13-08-43-15.fit"] {
            let bytes = try #require(SharedTracks.read(dir + "/" + file), "\(file)")
            let flight = try Self.analysed(bytes, options: try AnalysisOptions.parse(#"{"format":"fit"}"#))
            guard flight.report.altitudeSource == .barometric else { continue }
            barometric += 1
            let record = flight.flight.record
            #expect(record.altitudeSource == .barometric)
            let gain = record.gainM
            let back = try Self.analysed(Exporter.export(record, as: format))
            #expect(back.report.altitudeSource == .barometric, "\(file) as \(format)")
            let replayed = back.flight.elevation.gainM
            #expect(gain > 20 && abs(replayed - gain) <= Self.routeTolerance * gain, "\(file) as \(format): gain \(replayed) m, the flight's \(gain) m")
        }
        #expect(barometric == 4)
    }
}
