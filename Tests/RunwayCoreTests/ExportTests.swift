import Testing
@testable import RunwayCore
import RunwaySim
#if canImport(Glibc)
import Glibc
#endif

// Each format has its suite (GPXExportTests, TCXExportTests, FITExportTests, GeoJSONExportTests,
// CSVExportTests; ExportTextTests for the text they share), the flights they export are
// ExportFixture's and the readers they check them with are in ExportReaders.swift. Here: what
// holds for every format, and the files for the Python readers.

/// Files for the Python readers (Tests/python/test_exports.py): with `RUNWAY_EXPORT_DIR` set,
/// each flight's five exports and an `expect.json` of the figures they must carry.
enum ExportDirectory {
    static var path: String? {
        guard let p = getenv("RUNWAY_EXPORT_DIR") else { return nil }
        let s = String(cString: p)
        return s.isEmpty ? nil : s
    }

    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        guard let f = fopen(path, "wb") else { return false }
        defer { fclose(f) }
        return fwrite(bytes, 1, bytes.count, f) == bytes.count
    }

    static func save(_ r: FlightRecord, name: String, filters: Bool, in dir: String) -> Bool {
        var ok = true
        for format in ExportFormat.allCases {
            ok = write(Exporter.export(r, as: format), to: "\(dir)/\(name).\(format.fileExtension)") && ok
        }
        let length = ExportFixture.routeLength(r.route)
        var w = JSONWriter()
        w.beginObject()
        w.field("name", name)
        w.field("activity", r.activity.rawValue)
        w.field("filters", filters ? "on" : "off")
        w.key("count_gaps"); w.bool(true)
        w.field("points", r.route.count)
        w.field("segments", r.route.segmentRanges.count)
        w.key("segment_sizes"); w.beginArray(); for s in r.route.segmentRanges { w.integer(s.count) }; w.endArray()
        w.field("laps", r.exportLaps.count)
        w.field("summary_laps", r.laps.count)
        w.field("distance_m", r.distanceM)
        w.field("route_geodesic_m", length.withinSegments)
        w.field("route_geodesic_bridged_m", length.bridged)
        // The timer legs: a leg's points are those at or after its start, before the next's.
        let times = (0..<r.route.count).map { r.route.time($0) }
        let legStarts = Set(r.timerLegs.dropFirst().compactMap { leg in times.firstIndex { $0 >= leg.start } }).subtracting([0]).sorted()
        let legBounds = [0] + legStarts + [r.route.count]
        let legs = zip(legBounds, legBounds.dropFirst()).filter { $0.0 < $0.1 }
        var legLength = 0.0
        for (a, b) in legs where b - a > 1 {
            for i in (a + 1)..<b {
                legLength += Geodesy.distance(lat1: r.route.latitude(i - 1), lon1: r.route.longitude(i - 1),
                                              lat2: r.route.latitude(i), lon2: r.route.longitude(i))
            }
        }
        w.field("legs", legs.count)
        w.key("leg_sizes"); w.beginArray(); for (a, b) in legs { w.integer(b - a) }; w.endArray()
        w.key("leg_starts"); w.beginArray(); for s in legStarts { w.integer(s) }; w.endArray()
        w.field("leg_geodesic_m", legLength)
        w.key("hr"); w.bool((0..<r.route.count).contains { !r.route.heartRate($0).isNaN })
        if (0..<r.route.count).contains(where: { !r.route.power($0).isNaN }) {
            w.key("power_w"); w.beginArray()
            for i in 0..<r.route.count { let p = r.route.power(i); if p.isNaN { w.null() } else { w.number(p) } }
            w.endArray()
        }
        w.endObject()
        return write(w.bytes, to: "\(dir)/\(name).expect.json") && ok
    }
}

@Suite("Exports: every format, and files for the Python readers")
struct ExportTests {
    static let tracks = SharedTracks.folder

    // MARK: Every format

    @Test(arguments: ExportFormat.allCases)
    func aFlightWithNoPointsStillExportsAValidFile(_ format: ExportFormat) throws {
        let records = [FlightComputer().record, try ExportFixture.simulated(gap: nil, manualLapAfter: nil, lengthM: 0)]
        for r in records {
            let bytes = Exporter.export(r, as: format)
            switch format {
            case .gpx, .tcx:
                let parsed = ExportXML.parse(bytes)
                #expect(parsed != nil, "\(format) of an empty flight")
            case .fit:
                let fit = try ExportFITReader.read(bytes)
                let crcOK = fit.headerCRCOK && fit.fileCRCOK, records = fit.count(20), laps = fit.count(19)
                #expect(crcOK && records == r.route.count && laps >= 1)
            case .geojson:
                let parsed = try? JSONInput.object(exportText(bytes))
                #expect(parsed != nil)
            case .csv:
                let lines = exportText(bytes).split(separator: "\n").count
                #expect(lines == r.route.count + 1)
            }
        }
    }

    @Test(arguments: ExportFormat.allCases.filter(\.isText))
    func textExportsAreValidUTF8WithoutNUL(_ format: ExportFormat) throws {
        var r = try ExportFixture.simulated()
        r.flightID = "løb ✓ \u{0}end"
        let bytes = Exporter.export(r, as: format)
        #expect(bytes.withUnsafeBytes { JSONInput.firstInvalidUTF8($0) } == nil)
    }

    // MARK: Files for the Python readers

    /// Writes the fixture flights (and real recordings from ../shared/tracks when present) for
    /// Tests/python/test_exports.py when `RUNWAY_EXPORT_DIR` is set.
    @Test(.enabled(if: ExportDirectory.path != nil, "RUNWAY_EXPORT_DIR is not set"))
    func writeExportsForThePythonReaders() throws {
        let dir = try #require(ExportDirectory.path)
        let flights: [(String, FlightRecord, Bool)] = [
            ("run-two-segments", try ExportFixture.simulated(), true),
            ("run-in-the-air", try ExportFixture.simulated(stop: false), true),
            ("run-gap-and-pause", try ExportLegTests.gapAndPause(), true),
            ("raw-south", try ExportFixture.simulated(lat: -33.87, lon: 151.21, filters: false, sensors: false), false),
            ("empty-preflight", FlightComputer().record, true),
            ("ride-antimeridian", try ExportFixture.simulated(activity: .ride, lat: -16.5, lon: 179.999, filters: false,
                                                              lengthM: 6000), false),
            ("ride-power", TimerFixture.withPower(try ExportFixture.simulated(activity: .ride, filters: false)) {
                $0 % 10 == 3 ? .nan : Double(($0 * 37) % 400) }, false),
        ]
        for (name, r, filters) in flights {
            #expect(ExportDirectory.save(r, name: name, filters: filters, in: dir), "\(name)")
        }
        if let tracks = ExportTests.tracks {
            for file in ["togeojson__Friday-Evening-Run.gpx", "fitparse__activity-small-fenix2-run.fit",
                         "tcxreader__cross-country-skiing_activity_1.tcx"] {
                guard let bytes = SharedTracks.read(tracks + "/fixes/" + file + ".jsonl"),
                      let r = try ExportFixture.replay(jsonl: bytes, id: file) else {
                    Issue.record("could not replay \(file)"); continue
                }
                #expect(ExportDirectory.save(r, name: "track-" + file, filters: false, in: dir), "\(file)")
            }
        }
    }
}
