import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// The import report (ImportTests' tests of it, and where altitudes come from).

extension ImportTests {
    // MARK: - The import report

    func report(_ bytes: [UInt8], as format: ImportFormat, options: ImportOptions = ImportOptions()) throws(RunwayError) -> ImportedRecording {
        try withBytes(bytes) { (b) throws(RunwayError) in try Importer.recording(b, as: format, options: options) }
    }

    /// The trailing line of the JSON Lines, as key/value pairs.
    func reportLine(_ bytes: [UInt8], as format: ImportFormat) throws -> [(key: String, value: JSONValue)] {
        let text = try withBytes(bytes) { (b) throws(RunwayError) in try Importer.jsonLines(b, as: format) }
        let last = try #require(text.split(separator: 0x0A).last)
        return try JSONInput.object(String(decoding: last, as: UTF8.self))
    }

    func number(_ key: String, _ object: [(key: String, value: JSONValue)]) -> Double? {
        object.first { $0.key == key }?.value.finiteNumber
    }

    @Test func untimedPointsAreCountedPerTrackInTheReport() throws {
        let gpx = Array(#"""
        <gpx version="1.1"><trk><name>Planned</name><type>running</type><trkseg>
          <trkpt lat="52.0" lon="4.0"><ele>1</ele></trkpt><trkpt lat="52.001" lon="4.0"/><trkpt lat="52.002" lon="4.0"/>
        </trkseg></trk><trk><trkseg>
          <trkpt lat="52.0" lon="4.0"><time>2020-01-01T00:00:00Z</time></trkpt>
          <trkpt lat="52.0001" lon="4.0"><time>2020-01-01T00:00:01Z</time><extensions><power>245</power></extensions></trkpt>
        </trkseg></trk></gpx>
        """#.utf8)
        let imported = try report(gpx, as: .gpx)
        let r = imported.report
        #expect(r.inputs == 2 && imported.inputs.count == 2)
        #expect(r.untimed == 3 && r.noPosition == 0 && r.unreadable == 0)
        #expect(r.tracks == [ImportReport.Track(index: 0, name: "Planned", points: 0, untimed: 3),
                             ImportReport.Track(index: 1, name: nil, points: 2, untimed: 0)])
        #expect(r.warnings == [#"track 0 "Planned": 3 points without a time left out"#])
        #expect(r.sport == "running" && r.activity == .run && r.device == nil)
        #expect(r.altitudeSource == nil, "a GPX file does not say where its altitudes come from")
        guard case .fix(let powered) = imported.inputs[1] else { Issue.record("not a fix"); return }
        #expect(powered.power == 245)
        let line = try reportLine(gpx, as: .gpx)
        #expect(line.first?.key == "type" && line.first?.value == .string("import_report"))
        #expect(number("untimed", line) == 3 && number("inputs", line) == 2)
        #expect(line.first { $0.key == "device" }?.value == .null)
    }

    @Test func fitReportCountsRecordsWithoutATimeOrAPosition() throws {
        let r = try report(FITFile.sample(), as: .fit).report
        #expect(r.inputs == 9)
        #expect(r.untimed == 1, "the record with a position and no valid time")
        #expect(r.noPosition == 2, "the records at t+40 and t+41 became samples")
        #expect(r.tracks == [ImportReport.Track(index: 0, name: nil, points: 9, untimed: 1)])
        #expect(r.sport == nil && r.device == nil)
    }

    @Test func tcxReportCarriesSportLapTotalsAndPower() throws {
        let tcx = Array(#"""
        <TrainingCenterDatabase xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
        <Activities><Activity Sport="Biking"><Id>2020-01-01T00:00:00Z</Id>
          <Lap StartTime="2020-01-01T00:00:00Z"><TotalTimeSeconds>600</TotalTimeSeconds><DistanceMeters>5000.5</DistanceMeters>
            <Calories>100</Calories><Extensions><ns3:LX><ns3:AvgWatts>200</ns3:AvgWatts><ns3:MaxWatts>400</ns3:MaxWatts></ns3:LX></Extensions>
            <Track><Trackpoint><Time>2020-01-01T00:00:00Z</Time><Position><LatitudeDegrees>52</LatitudeDegrees><LongitudeDegrees>4</LongitudeDegrees></Position>
              <Extensions><ns3:TPX><ns3:Watts>210</ns3:Watts></ns3:TPX></Extensions></Trackpoint>
              <Trackpoint><Time>2020-01-01T00:00:01Z</Time><Extensions><ns3:TPX><ns3:Watts>220</ns3:Watts></ns3:TPX></Extensions></Trackpoint>
              <Trackpoint><Position><LatitudeDegrees>52</LatitudeDegrees><LongitudeDegrees>4</LongitudeDegrees></Position></Trackpoint>
            </Track></Lap>
          <Lap StartTime="2020-01-01T00:10:00Z"><TotalTimeSeconds>300</TotalTimeSeconds><DistanceMeters>2000</DistanceMeters>
            <Calories>50</Calories><Extensions><ns3:LX><ns3:AvgWatts>100</ns3:AvgWatts><ns3:MaxWatts>500</ns3:MaxWatts></ns3:LX></Extensions></Lap>
        </Activity></Activities></TrainingCenterDatabase>
        """#.utf8)
        let imported = try report(tcx, as: .tcx)
        let r = imported.report
        #expect(r.sport == "biking" && r.activity == .ride)
        #expect(r.altitudeSource == nil)
        #expect(r.untimed == 1 && r.noPosition == 1 && r.inputs == 2)
        guard case .fix(let f)? = imported.inputs.first else { Issue.record("no fix"); return }
        #expect(f.power == 210)
        #expect(imported.inputs.last == .sample(.power(watts: 220, t: 1_577_836_801)))
        let d = try #require(r.device)
        #expect(d.distanceM == 7000.5 && d.timerS == 900 && d.caloriesKcal == 150)
        let weighted: Double = (200.0 * 600.0 + 100.0 * 300.0) / 900.0
        #expect(d.avgPowerW == weighted, "laps' power weighted by their timer time")
        #expect(d.maxPowerW == 500)
        #expect(d.elapsedS.isNaN && d.ascentM.isNaN, "TCX stores neither")
        #expect(d.laps.map(\.startT) == [1_577_836_800, 1_577_837_400])
        #expect(d.laps.map(\.distanceM) == [5000.5, 2000])
    }

    @Test func sportNamesMapToTheProfileToReplayWith() {
        #expect(FITReader.sportName(2) == "cycling" && FITReader.sportName(12) == "cross_country_skiing")
        #expect(FITReader.sportName(200) == "sport_200")
        #expect(ImportReport.activity(forSport: "cycling") == .ride && ImportReport.activity(forSport: "Biking") == .ride)
        #expect(ImportReport.activity(forSport: "hiking") == .walk && ImportReport.activity(forSport: "walking") == .walk)
        #expect(ImportReport.activity(forSport: "running") == .run)
        #expect(ImportReport.activity(forSport: "cross_country_skiing") == nil && ImportReport.activity(forSport: nil) == nil)
    }

    /// Each real recording's sport as its file states it (read here by a handler of its own on
    /// `XMLStream` for TCX and GPX; FIT sports are compared with Garmin's SDK in
    /// Tests/python/test_import_report.py).
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func realTCXAndGPXSportsAreTheFilesOwn() throws {
        let dir = try #require(ImportTests.tracks)
        for file in ImportTests.recordings where !file.hasSuffix(".fit") {
            let bytes = try #require(readFile(dir + "/" + file))
            let format = try #require(ImportTests.format(of: file))
            let r = try report(bytes, as: format).report
            let oracle = SportOracle(tcx: format == .tcx)
            _ = try withBytes(bytes) { (b) throws(RunwayError) in try XMLStream.parse(b, what: "file", into: oracle) }
            #expect(r.sport == oracle.sport, "\(file)")
            // (The pause and resume lines of the file's segment breaks count as inputs, and the
            // lap lines of its laps.)
            #expect(r.inputs == (try importing(bytes, as: format)).count + 2 * r.pauses + r.laps)
        }
    }

    /// The first TCX `Activity Sport` (lower-cased), or the first GPX `trk`'s first non-empty
    /// `type` child.
    final class SportOracle: XMLStreamHandler {
        let tcx: Bool
        var sport: String? = nil
        var trkDepth = -1, typeSeen = false
        init(tcx: Bool) { self.tcx = tcx }
        func start(_ name: XMLName, depth: Int, attributes: XMLAttributes) -> Bool {
            guard sport == nil else { return false }
            if tcx, name == "Activity" { sport = attributes.value("Sport")?.lowercased() }
            if !tcx, name == "trk" { trkDepth = depth; typeSeen = false }
            return !tcx && trkDepth >= 0 && depth == trkDepth + 1 && name == "type" && !typeSeen
        }
        func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
            if let text, depth == trkDepth + 1, !typeSeen {
                typeSeen = true
                let t = String(decoding: text, as: UTF8.self)
                if !t.isEmpty { sport = t }
            }
            if depth == trkDepth { trkDepth = -1 }
        }
    }
}

@Suite("Import report: where altitudes come from")
struct ImportAltitudeSourceTests {
    @Test func aFITFileSaysItsAltitudesAreTheDevicesBarometricOnesAndTheSessionTakesThat() throws {
        let imported = try FITFile.sample().withUnsafeBytes { buf throws(RunwayError) in try Importer.recording(buf, as: .fit) }
        #expect(imported.report.altitudeSource == .barometric)
        var w = JSONWriter(capacity: 512)
        imported.report.write(to: &w)
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text.contains(#""altitude_source":"barometric""#), "\(text)")
        // The session's config names it; anything else is a config error.
        #expect(try EngineConfig.parse(#"{"fix_altitude":"barometric"}"#).fixAltitude == .barometric)
        #expect(try EngineConfig.parse(nil).fixAltitude == .gps)
        do {
            _ = try EngineConfig.parse(#"{"fix_altitude":"baro"}"#)
            Issue.record("a misspelt source was accepted")
        } catch {
            #expect(error.message.contains("fix_altitude"), "\(error.message)")
        }
    }

    @Test func fixesMarkedBarometricAreCountedAsABarometerWithItsLowThreshold() throws {
        // A 2 m rise and fall: under the 6 m GPS threshold, over the barometer's 1 m.
        for (source, expected) in [(ElevationTracker.Source.gps, 0.0), (.barometric, 2.0)] {
            var config = EngineConfig()
            config.fixAltitude = source
            var core = FlightComputer(config: config)
            var events: [Event] = []
            try core.command(.start, at: 0, wallClock: .nan, events: &events)
            for k in 0...400 {
                let alt = 100 + (k < 100 ? 0 : k < 200 ? 2 * Double(k - 100) / 100 : k < 300 ? 2 - 2 * Double(k - 200) / 100 : 0)
                try core.process(.fix(Fix(t: Double(k), lat: 52 + degreesNorth(3 * Double(k)), lon: 4, alt: alt, speed: 3)),
                                 wallClock: .nan, events: &events)
            }
            try core.command(.stop, at: .nan, wallClock: .nan, events: &events)
            #expect(abs(core.elevation.gainM - expected) < 0.25, "\(source): gain \(core.elevation.gainM)")
            #expect(core.elevation.source == source)
        }
    }
}
