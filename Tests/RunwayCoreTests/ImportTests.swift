import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Importing GPX, TCX and FIT recordings for replay: real recordings against the fixes given beside
/// them in ../shared/tracks, hand-made files for what those do not cover, and hostile input.
@Suite("Importing recordings")
struct ImportTests {
    // MARK: - Real recordings

    /// `<repo>/../shared/tracks` when it is there (not part of the repository).
    static let tracks = SharedTracks.folder

    static let recordings: [String] = [
        "actparser__garmin-edge-820-bike.fit", "actparser__garmin-fenix-5-bike.fit",
        "actparser__garmin-fenix-5-run.fit", "fitparse__2013-02-06-12-11-14.fit",
        "fitparse__2015-10-13-08-43-15.fit", "fitparse__activity-small-fenix2-run.fit",
        "fitparse__garmin-fenix-5-walk.fit", "fitparse__sample-activity.fit",
        "gpxpy__Mojstrovka.gpx", "gpxpy__cerknicko-jezero.gpx",
        "tcxreader__cross-country-skiing_activity_1.tcx", "togeojson__Friday-Evening-Run.gpx",
        "togeojson__apple_watch_route.gpx", "togeojson__tour_hr.tcx",
    ]

    static func format(of file: String) -> ImportFormat? {
        guard let ext = file.split(separator: ".").last else { return nil }
        return ImportFormat(rawValue: String(ext))
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: recordings)
    func realRecordingImportsToTheSamePointsAsItsReferenceFixes(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/" + file), "missing \(file)")
        let expected = try #require(readFile(dir + "/fixes/" + file + ".jsonl"), "missing fixes for \(file)")
        let format = try #require(ImportTests.format(of: file))
        let inputs = try importing(bytes, as: format)
        let fixes = inputs.compactMap { if case .fix(let f) = $0 { return f } else { return nil } }
        let lines = expected.split(separator: 0x0A).filter { !$0.isEmpty }
        #expect(fixes.count == lines.count, "\(file): \(fixes.count) fixes, reference \(lines.count)")
        var mismatches: [String] = []
        for (i, line) in lines.enumerated() where i < fixes.count {
            let ref = try referenceFix(Array(line), importedAs: fixes[i], file: file, line: i + 1)
            mismatches += differences(fixes[i], ref).map { "\(file) fix \(i + 1): \($0)" }
        }
        let mismatched = mismatches.count
        #expect(mismatched == 0, "\(mismatches.prefix(5).joined(separator: "\n"))")
    }

    /// The reference line as a fix. Lines the engine refuses (the 1901 placeholder times) are read
    /// field by field, and the imported fix must be refused with the same message.
    func referenceFix(_ line: [UInt8], importedAs fix: Fix, file: String, line number: Int) throws -> Fix {
        do throws(RunwayError) {
            let input = try withBytes(line) { (b) throws(RunwayError) in try InputDecoder.decode(b).input }
            guard case .fix(let f) = input else {
                Issue.record("\(file) line \(number) is not a fix"); return Fix(lat: .nan, lon: .nan)
            }
            return f
        } catch {
            // The engine refuses the imported fix alike (the message names the same field).
            do throws(RunwayError) {
                _ = try fix.validated()
                Issue.record("\(file) line \(number): reference refused (\(error.message)), import accepted")
            } catch let mine {
                #expect(mine.status == error.status && mine.message.split(separator: " ").first
                        == error.message.split(separator: " ").first, "\(file) line \(number): \(mine) vs \(error)")
            }
            var f = Fix(lat: .nan, lon: .nan)
            for (key, value) in try JSONInput.object(String(decoding: line, as: UTF8.self)) {
                let v = value.finiteNumber ?? .nan
                switch key {
                case "lat": f.lat = v
                case "lon": f.lon = v
                case "t": f.t = v
                case "alt": f.alt = v
                case "speed": f.speed = v
                case "course": f.course = v
                case "h_acc": f.hAcc = v
                case "v_acc": f.vAcc = v
                case "hr": f.hr = v
                default: break
                }
            }
            return f
        }
    }

    /// What differs between an imported fix and its reference (cadence is not in the references).
    ///
    /// Times agree to 1.5 µs: the references were written through Python datetimes, which keep
    /// microseconds (Mojstrovka's "52.2073437Z" is .207343 there).
    func differences(_ a: Fix, _ r: Fix) -> [String] {
        var out: [String] = []
        func check(_ name: String, _ x: Double, _ y: Double, _ tolerance: Double) {
            if x.isNaN != y.isNaN { out.append("\(name) \(x) vs reference \(y)"); return }
            if !x.isNaN, !(abs(x - y) <= tolerance) { out.append("\(name) \(x) vs reference \(y)") }
        }
        func relative(_ y: Double) -> Double { max(abs(y) * 1e-9, 1e-9) }
        check("t", a.t, r.t, 1.5e-6)
        check("lat", a.lat, r.lat, 1e-9)
        check("lon", a.lon, r.lon, 1e-9)
        check("alt", a.alt, r.alt, relative(r.alt))
        check("speed", a.speed, r.speed, relative(r.speed))
        check("course", a.course, r.course, relative(r.course))
        check("h_acc", a.hAcc, r.hAcc, relative(r.hAcc))
        check("v_acc", a.vAcc, r.vAcc, relative(r.vAcc))
        check("hr", a.hr, r.hr, 0)
        return out
    }

    /// The first altimeter sample and the first fix's altitude a file is known to have (nil: not
    /// checked): sample-activity's first record, 161 m at its first second, 48 m above its first fix.
    struct FirstAltitudes: Sendable, CustomStringConvertible {
        var altimeter: Input, fixAlt: Double
        var description: String { "\(altimeter), first fix at \(fixAlt) m" }
    }

    /// Records without a position, counted with python-fitparse (and fitdecode): 2013-02-06 has 7,
    /// all with heart rate and altitude; sample-activity has 133, all with heart rate and
    /// altitude and 131 with cadence. Their altitude (the device's barometric altitude) becomes an
    /// altimeter sample, their speed (a wheel sensor's) a speed sample.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"),
          arguments: [("fitparse__2013-02-06-12-11-14.fit", 583, 7, 0, 7, 7, nil),
                      ("fitparse__sample-activity.fit", 2965, 133, 131, 133, 133,
                       FirstAltitudes(altimeter: .sample(.altimeter(alt: 161, t: 1_309_123_120)), fixAlt: 112.6))])
    func fitRecordsWithoutAPositionBecomeHeartRateCadenceAltimeterAndSpeedSamples(_ file: String, _ fixes: Int, _ hr: Int,
                                                                             _ cadence: Int, _ altimeter: Int, _ speed: Int,
                                                                             _ first: FirstAltitudes?) throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/" + file))
        let inputs = try importing(bytes, as: .fit)
        var counts = (fixes: 0, hr: 0, cadence: 0, altimeter: 0, speed: 0)
        var lastT = -Double.infinity, ordered = true
        var firstAltimeter: Input? = nil, firstFix: Fix? = nil
        for input in inputs {
            switch input {
            case .fix(let f): counts.fixes += 1; if firstFix == nil { firstFix = f }
            case .sample(.heartRate): counts.hr += 1
            case .sample(.cadence): counts.cadence += 1
            case .sample(.altimeter): counts.altimeter += 1; if firstAltimeter == nil { firstAltimeter = input }
            case .sample(.power): Issue.record("these files have no power")
            case .sample(.speed): counts.speed += 1
            }
            if input.t < lastT { ordered = false }
            lastT = input.t
        }
        #expect(counts.fixes == fixes)
        #expect(counts.hr == hr)
        #expect(counts.cadence == cadence)
        #expect(counts.altimeter == altimeter)
        #expect(counts.speed == speed)
        #expect(ordered, "inputs come in the recording's time order")
        if let first {
            #expect(firstAltimeter == first.altimeter, "\(String(describing: firstAltimeter))")
            #expect(firstFix.map { abs($0.alt - first.fixAlt) < 1e-9 } == true, "\(String(describing: firstFix))")
        }
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func everyRealFITFileFailsCleanlyWhenTruncatedOrCorrupted() throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/fitparse__garmin-fenix-5-walk.fit"))
        let dataEnd = bytes.count - 2  // without the file CRC the data is still complete
        for length in stride(from: 0, to: bytes.count, by: 7) where length != dataEnd {
            #expect(throws: RunwayError.self, "length \(length)") { try importing(Array(bytes[0..<length]), as: .fit) }
            #expect(inputError(Array(bytes[0..<length]), .fit)?.status == .input)
        }
        for position in stride(from: 20, to: dataEnd, by: 97) {
            var corrupt = bytes
            corrupt[position] ^= 0x10
            let error = inputError(corrupt, .fit)
            #expect(error?.status == .input)
            #expect(error?.message.contains("corrupt FIT file") == true, "byte \(position): \(String(describing: error))")
        }
    }

    // MARK: - GPX

    @Test func gpxTimesWithFractionsAndOffsetsBecomeUnixSeconds() throws {
        let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
          <trk><trkseg>
            <trkpt lat="52.5" lon="4.25"><time>2024-03-01T12:00:00.5+02:00</time></trkpt>
            <trkpt lat="52.5" lon="4.25"><time>2024-02-29T23:59:59-05:30</time></trkpt>
            <trkpt lat="52.5" lon="4.25"><time>2000-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="52.5" lon="4.25"><time>2000-01-01T00:00:00.125</time></trkpt>
            <trkpt lat="52.5" lon="4.25"><time> 2000-01-01T01:00:00+0100 </time></trkpt>
          </trkseg></trk>
        </gpx>
        """
        let times = try importing(Array(gpx.utf8), as: .gpx).map(\.t)
        #expect(times == [1_709_287_200.5, 1_709_270_999, 946_684_800, 946_684_800.125, 946_684_800])
    }

    @Test func gpxPointsCarryElevationAndExtensionsInAnyNamespace() throws {
        let gpx = """
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
             xmlns:x="urn:other">
          <wpt lat="1" lon="1"><time>2020-01-01T00:00:00Z</time></wpt>
          <trk><trkseg>
            <trkpt lat="-33.865" lon="151.209"><ele>12.5</ele><time>2020-01-01T00:00:00Z</time>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>148</gpxtpx:hr><gpxtpx:cad>86</gpxtpx:cad>
                <gpxtpx:speed>3.25</gpxtpx:speed><gpxtpx:course>271.5</gpxtpx:course></gpxtpx:TrackPointExtension></extensions>
            </trkpt>
            <trkpt lat="-33.866" lon="-179.999"><time>2020-01-01T00:00:01Z</time>
              <extensions><speed>1.5</speed><course>90</course><hAcc>4.5</hAcc><vAcc>6</vAcc><x:heartrate>150</x:heartrate></extensions>
            </trkpt>
            <trkpt lat="10" lon="10"><ele>5</ele></trkpt>
          </trkseg></trk>
          <trk><trkseg>
            <trkpt lat="-33.867" lon="179.999"><ele>n/a</ele><time>2020-01-01T00:00:02Z</time></trkpt>
          </trkseg></trk>
        </gpx>
        """
        let inputs = try importing(Array(gpx.utf8), as: .gpx)
        let expected: [Input] = [
            .fix(Fix(t: 1_577_836_800, lat: -33.865, lon: 151.209, alt: 12.5, speed: 3.25, course: 271.5, hr: 148, cadence: 86)),
            .fix(Fix(t: 1_577_836_801, lat: -33.866, lon: -179.999, speed: 1.5, course: 90, hAcc: 4.5, vAcc: 6, hr: 150)),
            // the point without a time is dropped; an unreadable elevation is absent
            .fix(Fix(t: 1_577_836_802, lat: -33.867, lon: 179.999)),
        ]
        #expect(inputs.count == expected.count)
        for (a, b) in zip(inputs, expected) { #expect(same(a, b), "\(a) vs \(b)") }
    }

    @Test func gpx10SpeedAndCourseAreRead() throws {
        let gpx = """
        <gpx version="1.0" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg>
        <trkpt lat="45.5" lon="14.25"><ele>500</ele><time>2010-08-06T10:36:35Z</time><course>45.5</course><speed>2.5</speed><hdop>3</hdop></trkpt>
        </trkseg></trk></gpx>
        """
        let inputs = try importing(Array(gpx.utf8), as: .gpx)
        #expect(inputs.count == 1)
        #expect(same(inputs.first, .fix(Fix(t: 1_281_090_995, lat: 45.5, lon: 14.25, alt: 500, speed: 2.5, course: 45.5))))
    }

    @Test func gpxPointsWithBadCoordinatesOrTimesAreNamedInTheError() {
        func message(_ point: String) -> String? {
            let gpx = #"<gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="1"><time>2020-01-01T00:00:00Z</time></trkpt>"#
                + point + "</trkseg></trk></gpx>"
            return inputError(Array(gpx.utf8), .gpx)?.message
        }
        #expect(message(#"<trkpt lon="2"><time>2020-01-01T00:00:01Z</time></trkpt>"#) == "trkpt 2 has no lat")
        #expect(message(#"<trkpt lat="x" lon="2"><time>2020-01-01T00:00:01Z</time></trkpt>"#)
                == #"trkpt 2: lat "x" is not a number"#)
        #expect(message(#"<trkpt lat="nan" lon="2"><time>2020-01-01T00:00:01Z</time></trkpt>"#)
                == #"trkpt 2: lat "nan" is not a number"#)
        #expect(message(#"<trkpt lat="1" lon="2"><time>2020-02-30T00:00:01Z</time></trkpt>"#)
                == #"trkpt 2: time "2020-02-30T00:00:01Z" is not an ISO 8601 date-time"#)
    }

    @Test func externalEntitiesAreNeverLoaded() throws {
        // A value that would only appear if the parser read the external entity.
        let path = "/tmp/runway-import-entity-\(getpid()).txt"
        guard let f = fopen(path, "w") else { Issue.record("cannot write \(path)"); return }
        fputs("1234.5", f)
        fclose(f)
        defer { unlink(path) }
        let gpx = """
        <?xml version="1.0"?>
        <!DOCTYPE gpx [<!ENTITY secret SYSTEM "file://\(path)">]>
        <gpx version="1.1"><trk><trkseg>
        <trkpt lat="1" lon="2"><ele>&secret;</ele><time>2020-01-01T00:00:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """
        // A document with a DTD is refused outright: no entity is ever declared, let alone loaded.
        let result = Result { () throws(RunwayError) in try importing(Array(gpx.utf8), as: .gpx) }
        switch result {
        case .failure(let e): #expect(e.status == .input && e.message.contains("DTD"), "\(e.message)")
        case .success(let inputs):
            if case .fix(let fix)? = inputs.first { #expect(fix.alt.isNaN, "the entity's file was read: alt \(fix.alt)") }
        }
    }

    @Test func exponentialEntityExpansionIsRefused() {
        var gpx = #"<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY a0 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx">"#
        for k in 1...12 { gpx += "<!ENTITY a\(k) \"" + String(repeating: "&a\(k - 1);", count: 10) + "\">" }
        gpx += #"]><gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><ele>&a12;</ele>"#
            + "<time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
        // 10^12 copies if expanded: refused (the DTD is), or left unexpanded.
        let result = Result { () throws(RunwayError) in try importing(Array(gpx.utf8), as: .gpx) }
        switch result {
        case .failure(let e): #expect(e.status == .input)
        case .success(let inputs):
            if case .fix(let f)? = inputs.first { #expect(f.alt.isNaN) } else { Issue.record("no fix") }
        }
    }

    // MARK: - TCX

    @Test func tcxTrackpointsBecomeFixesAndHeartRateWithoutPositionBecomesSamples() throws {
        let tcx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
            xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
         <Activities><Activity Sport="Running"><Id>2020-12-27T15:43:49.000+01:00</Id>
          <Lap StartTime="2020-12-27T15:43:49.000+01:00"><TotalTimeSeconds>10</TotalTimeSeconds><Track>
           <Trackpoint><Time>2020-12-27T15:43:49.000+01:00</Time>
            <Position><LatitudeDegrees>47.5</LatitudeDegrees><LongitudeDegrees>8.25</LongitudeDegrees></Position>
            <AltitudeMeters>483.0</AltitudeMeters><DistanceMeters>0</DistanceMeters>
            <HeartRateBpm><Value>121</Value></HeartRateBpm>
            <Extensions><ns3:TPX><ns3:Speed>2.75</ns3:Speed><ns3:RunCadence>84</ns3:RunCadence></ns3:TPX></Extensions>
           </Trackpoint>
           <Trackpoint><Time>2020-12-27T14:43:50Z</Time><HeartRateBpm><Value>122</Value></HeartRateBpm><Cadence>85</Cadence></Trackpoint>
           <Trackpoint><Time>2020-12-27T14:43:51Z</Time><DistanceMeters>3</DistanceMeters></Trackpoint>
           <Trackpoint><Position><LatitudeDegrees>47.5</LatitudeDegrees><LongitudeDegrees>8.25</LongitudeDegrees></Position></Trackpoint>
          </Track></Lap>
          <Lap StartTime="2020-12-27T14:43:52Z"><Track>
           <Trackpoint><Time>2020-12-27T14:43:52Z</Time>
            <Position><LatitudeDegrees>-47.5</LatitudeDegrees><LongitudeDegrees>-8.25</LongitudeDegrees></Position></Trackpoint>
          </Track></Lap>
         </Activity></Activities>
        </TrainingCenterDatabase>
        """
        let inputs = try importing(Array(tcx.utf8), as: .tcx)
        let t0 = 1_609_080_229.0
        let expected: [Input] = [
            .fix(Fix(t: t0, lat: 47.5, lon: 8.25, alt: 483, speed: 2.75, hr: 121, cadence: 168)),  // RunCadence per foot × 2
            .sample(.heartRate(bpm: 122, t: t0 + 1)),
            .sample(.cadence(spm: 85, t: t0 + 1)),
            .sample(.speed(mps: 1.5, t: t0 + 2)),   // 3 m since the one before, over 2 s
            .fix(Fix(t: t0 + 3, lat: -47.5, lon: -8.25)),
        ]
        #expect(inputs.count == expected.count)
        for (a, b) in zip(inputs, expected) { #expect(same(a, b), "\(a) vs \(b)") }
    }

    @Test func aHalfPositionInTCXIsAnError() {
        let tcx = #"<TrainingCenterDatabase><Activities><Activity><Lap><Track><Trackpoint><Time>2020-01-01T00:00:00Z</Time>"#
            + "<Position><LatitudeDegrees>1</LatitudeDegrees></Position></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        #expect(inputError(Array(tcx.utf8), .tcx)?.message == "Trackpoint 1: Position has no LongitudeDegrees")
    }

    // MARK: - Wrong, truncated and hostile files

    @Test func aFileOfTheOtherXMLFormatIsRefusedByItsRootElement() {
        let tcx = Array("<TrainingCenterDatabase/>".utf8)
        let gpx = Array(#"<gpx version="1.1"/>"#.utf8)
        #expect(inputError(tcx, .gpx)?.message == "not a GPX file: the root element is <TrainingCenterDatabase>, expected <gpx>")
        #expect(inputError(gpx, .tcx)?.message == "not a TCX file: the root element is <gpx>, expected <TrainingCenterDatabase>")
        #expect(inputError(Array("{\"lat\":1}".utf8), .gpx)?.message.hasPrefix("not a well-formed GPX file") == true)
        #expect(inputError([], .gpx)?.message == "empty GPX file")
        #expect(inputError(gpx, .fit)?.message.hasPrefix("not a FIT file") == true)
    }

    @Test func truncatedXMLIsAnInputError() {
        let gpx = Array("""
        <?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lat="1" lon="2"><ele>3</ele><time>2020-01-01T00:00:00Z</time></trkpt>
        <trkpt lat="1.0001" lon="2"><ele>3</ele><time>2020-01-01T00:00:01Z</time></trkpt>
        </trkseg></trk></gpx>
        """.utf8)
        for length in 0..<gpx.count {
            let error = inputError(Array(gpx[0..<length]), .gpx)
            #expect(error?.status == .input, "length \(length): \(String(describing: error))")
        }
        #expect(inputError(gpx, .gpx) == nil)
    }

    @Test func randomBytesAreAnInputErrorInEveryFormat() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<200 {
            let count = round % 50 == 0 ? 0 : 1 + Int(state % 4096)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 56))
            }
            if round % 3 == 0, bytes.count >= 12 {  // random data behind a plausible FIT header
                bytes[0] = 14; bytes[8] = 0x2E; bytes[9] = 0x46; bytes[10] = 0x49; bytes[11] = 0x54
            }
            for format in ImportFormat.allCases {
                let error = inputError(bytes, format)
                #expect(error?.status == .input, "round \(round) \(format): \(String(describing: error))")
            }
        }
    }

    @Test func inputLargerThanTheLimitIsRefusedBeforeParsing() {
        let bytes = [UInt8](repeating: 0x20, count: Importer.maxBytes + 1)
        for format in ImportFormat.allCases {
            #expect(inputError(bytes, format)?.message.contains("exceeds the import limit") == true)
        }
    }

    // MARK: - FIT

    @Test func fitRecordsDecodeWithScalesInvalidValuesAndCompressedTimestamps() throws {
        let inputs = try importing(FITFile.sample(), as: .fit)
        let t = FITFile.start + 631_065_600
        let expected: [Input] = [
            .fix(Fix(t: t, lat: FITFile.degrees(52.0), lon: FITFile.degrees(4.0), alt: 12.4, speed: 3.1,
                     hAcc: 4, hr: 150, cadence: 85.5)),
            .fix(Fix(t: t + 1, lat: FITFile.degrees(52.0001), lon: FITFile.degrees(4.0), alt: 10, speed: 3)),
            .fix(Fix(t: t + 4, lat: FITFile.degrees(-33.9), lon: FITFile.degrees(-151.2), alt: 20, hr: 151)),
            .fix(Fix(t: t + 34, lat: FITFile.degrees(-33.9001), lon: FITFile.degrees(-151.2), alt: 20.2, hr: 152)),
            .sample(.heartRate(bpm: 140, t: t + 40)),
            .sample(.cadence(spm: 80, t: t + 40)),
            .sample(.heartRate(bpm: 141, t: t + 41)),
            .sample(.speed(mps: 0, t: t + 41)),          // its speed without a position: a sensor's
            .sample(.altimeter(alt: 12.4, t: t + 41)),   // its enhanced altitude: the device's own
        ]
        #expect(inputs.count == expected.count)
        for (a, b) in zip(inputs, expected) { #expect(same(a, b), "\(a) vs \(b)") }
    }

    /// A position-less record's altitude that no altimeter sample may have (a corrupt value,
    /// 119 500 m) is left out; its heart rate and speed are kept.
    @Test func aFITAltitudeNoAltimeterSampleMayHaveIsLeftOut() throws {
        let inputs = try importing(FITFile.sample(unplacedAltitude: 600_000), as: .fit)
        let t = FITFile.start + 631_065_600
        #expect(inputs.count == 8)
        #expect(inputs.suffix(2) == [.sample(.heartRate(bpm: 141, t: t + 41)), .sample(.speed(mps: 0, t: t + 41))])
    }

    @Test func fitWithA12ByteHeaderIsRead() throws {
        let inputs = try importing(FITFile.sample(headerSize: 12), as: .fit)
        #expect(inputs.count == 9)
    }

    @Test func chainedFITFilesAreReadOneAfterTheOther() throws {
        let inputs = try importing(FITFile.sample() + FITFile.sample(headerSize: 12), as: .fit)
        #expect(inputs.count == 18)
    }

    @Test func aBadFITCRCIsCorrupt() {
        var file = FITFile.sample()
        file[file.count - 1] ^= 0xFF
        #expect(inputError(file, .fit)?.message.hasPrefix("corrupt FIT file: file CRC") == true)
        #expect(inputError(file, .fit)?.message.contains("at byte \(file.count - 2)") == true)
        let kept = try? salvaged(file)
        #expect(kept?.inputs.count == 9, "salvage keeps the records behind a bad file CRC")
        #expect(kept?.report.warnings.first?.hasPrefix("corrupt FIT file: file CRC") == true)
        file = FITFile.sample()
        file[3] ^= 0x01  // a header byte under the header CRC
        #expect(inputError(file, .fit)?.message.hasPrefix("corrupt FIT file: header CRC") == true)
    }

    @Test func truncatedFITIsAnInputErrorAtEveryLength() {
        let file = FITFile.sample()
        for length in 0..<(file.count - 2) {
            let error = inputError(Array(file[0..<length]), .fit)
            #expect(error?.status == .input, "length \(length): \(String(describing: error))")
        }
    }

    /// Damaged content behind valid CRCs reaches the message decoder: it returns inputs or an
    /// `.input` error, and never reads out of bounds (debug builds trap on any such read).
    @Test func corruptFITContentWithValidCRCsNeverTraps() throws {
        var files = [FITFile.sample()]
        if let dir = ImportTests.tracks, let real = readFile(dir + "/actparser__garmin-fenix-5-run.fit") { files.append(real) }
        var state: UInt64 = 42
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % max(n, 1)
        }
        var decoded = 0, refused = 0
        for round in 0..<3000 {
            let original = files[round % files.count]
            let headerSize = Int(original[0])
            var data = Array(original[headerSize..<(original.count - 2)])
            for _ in 0...next(3) { data[next(data.count)] = UInt8(truncatingIfNeeded: next(256)) }
            if round % 5 == 0 { data.removeLast(next(data.count)) }  // cut short at a message boundary or not
            let file = FITFile.wrap(data, headerSize: headerSize, fileCRC: true)
            switch Result(catching: { () throws(RunwayError) in try importing(file, as: .fit) }) {
            case .success: decoded += 1
            case .failure(let e):
                refused += 1
                #expect(e.status == .input, "round \(round): \(e)")
            }
            // Salvage reads the same damage into what it can, never trapping.
            if let kept = try? salvaged(file) { #expect(kept.report.inputs == kept.inputs.count + kept.timer.count) }
        }
        #expect(decoded > 0 && refused > 0, "decoded \(decoded), refused \(refused)")
    }

    @Test func fitDataBeforeItsDefinitionIsAnInputError() {
        // A data message for local type 5, never defined, with a valid CRC.
        let file = FITFile.wrap([0x05, 0x00, 0x00], headerSize: 14, fileCRC: true)
        #expect(inputError(file, .fit)?.message
                == "corrupt FIT file: data message at byte 14 uses local message type 5, which is not defined")
    }

    // MARK: - FIT damage

    func salvaged(_ bytes: [UInt8]) throws(RunwayError) -> ImportedRecording {
        try report(bytes, as: .fit, options: ImportOptions(salvage: true))
    }

    /// Every real FIT recording: those above and the ELEMNT ride, whose reference fixes leave out
    /// the cadence and power its records carry.
    static var realFITs: [String] {
        recordings.filter { $0.hasSuffix(".fit") } + ["fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"]
    }

    /// Cutting the last 1 or 2 bytes (the file CRC) of a real FIT file is refused with the CRC's
    /// offset; with salvage every record is kept (they are all whole) and the report says why.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realFITs)
    func aFITFileCutBy1Or2BytesIsRefusedOrKeptOnlyWithSalvage(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/" + file))
        let inputs = try importing(whole, as: .fit)
        let crcAt = Int(whole[0]) + Int(FITFile.u32(whole, 4))
        #expect(crcAt == whole.count - 2)
        for cut in [1, 2] {
            let bytes = Array(whole.dropLast(cut))
            let error = inputError(bytes, .fit)
            #expect(error?.status == .input)
            #expect(error?.message == "truncated FIT file: the file CRC at byte \(crcAt) is missing (\(2 - cut) of 2 bytes are there)", "\(file)")
            let kept = try salvaged(bytes)
            #expect(kept.inputs.count == inputs.count && zip(kept.inputs, inputs).allSatisfy { same($0, $1) })
            #expect(kept.report.warnings.first?.hasPrefix("truncated FIT file: the file CRC at byte \(crcAt)") == true)
            #expect(kept.report.warnings.first?.hasSuffix("kept the \(inputs.count) inputs read before it (salvage)") == true)
        }
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realFITs)
    func junkAfterARealFITFileIsRefusedOrKeptOnlyWithSalvage(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/" + file))
        let inputs = try importing(whole, as: .fit)
        for junk: [UInt8] in [[0x00], [0x0A, 0x0D], Array(repeating: 0xFF, count: 40), Array("<html>not found</html>".utf8)] {
            let bytes = whole + junk
            let error = inputError(bytes, .fit)
            #expect(error?.status == .input)
            #expect(error?.message.hasPrefix("trailing bytes in FIT file:") == true)
            #expect(error?.message.contains("at byte \(whole.count)") == true, "\(String(describing: error))")
            let kept = try salvaged(bytes)
            #expect(kept.inputs.count == inputs.count)
            #expect(kept.report.warnings.first?.hasPrefix("trailing bytes in FIT file:") == true)
        }
    }

    /// Replayed with no auto-pause of the engine's own, a real FIT recording's elapsed time is its
    /// device's timer time (records and timer events are stamped in whole seconds: within 2 s);
    /// with its sport's profile the engine's auto-pause may hold longer, never shorter.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realFITs)
    func aRealFITRecordingsElapsedTimeIsItsDevicesTimerTime(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/" + file))
        func analyse(_ options: String) throws -> RecordingAnalysis {
            try bytes.withUnsafeBytes { (b) throws(RunwayError) in try RecordingAnalysis.run(b, options: try AnalysisOptions.parse(options)) }
        }
        let timer = try #require(analyse("{}").report.device?.timerS)
        let timerOnly = try analyse(#"{"config":{"auto_pause":false}}"#).flight.record
        #expect(abs(timerOnly.elapsedS - timer) <= 2, "\(file): elapsed \(timerOnly.elapsedS) s, the device's timer \(timer) s")
        let profile = try analyse("{}").flight.record
        #expect(profile.elapsedS <= timer + 2, "\(file): elapsed \(profile.elapsedS) s, the device's timer \(timer) s")
        #expect(profile.movingS <= profile.elapsedS)
    }

    /// A second, chained file whose header is damaged: refused naming the chained file's offset; with
    /// salvage the first file's records are kept.
    @Test func aCorruptChainedFITHeaderIsRefusedOrKeptOnlyWithSalvage() throws {
        let first = FITFile.sample()
        let second = FITFile.sample()
        let one = try importing(first, as: .fit)
        #expect(try importing(first + second, as: .fit).count == 2 * one.count)
        var damaged: [(bytes: [UInt8], message: String)] = []
        var crc = second; crc[5] ^= 0x01   // a data-size byte under the header CRC
        damaged.append((crc, "corrupt chained FIT file at byte \(first.count): header CRC"))
        var size = second; size[0] = 13
        damaged.append((size, "corrupt chained FIT file at byte \(first.count): header size 13 at byte \(first.count)"))
        var signature = second; signature[9] = UInt8(ascii: "X")
        damaged.append((signature, "trailing bytes in FIT file: the \(second.count) bytes at byte \(first.count)"))
        damaged.append((Array(second.prefix(10)), "trailing bytes in FIT file: 10 bytes at byte \(first.count)"))
        damaged.append((Array(second.dropLast(5)), "truncated chained FIT file at byte \(first.count): the header at byte \(first.count) announces"))
        for (tail, message) in damaged {
            let error = inputError(first + tail, .fit)
            #expect(error?.status == .input)
            #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error)) vs \(message)")
            let kept = try salvaged(first + tail)
            #expect(kept.report.warnings.first?.hasPrefix(message) == true)
            #expect(kept.inputs.count >= one.count && zip(kept.inputs, one).allSatisfy { same($0, $1) })
            if !message.hasPrefix("truncated") { #expect(kept.inputs.count == one.count) }
        }
    }

    /// Cut anywhere: refused; with salvage, the records before the cut are kept (a prefix of the
    /// whole file's inputs) and the damage is a warning, never a trap.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func aFITFileCutAnywhereKeepsOnlyTheRecordsBeforeTheCutWithSalvage() throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/fitparse__activity-small-fenix2-run.fit"))
        let inputs = try importing(whole, as: .fit)
        var previous = -1
        for length in stride(from: 14, to: whole.count - 2, by: max(1, whole.count / 97)) {
            let bytes = Array(whole.prefix(length))
            #expect(inputError(bytes, .fit)?.message.hasPrefix("truncated FIT file: the header at byte 0 announces") == true)
            let kept = try salvaged(bytes)
            // The sport is in the session message at the end: a cut file keeps its cadence as
            // recorded (per foot, with a warning) where the whole file gives steps per minute.
            func perFoot(_ input: Input) -> Input {
                switch input {
                case .fix(var f): f.cadence /= 2; return .fix(f)
                case .sample(.cadence(let spm, let t)): return .sample(.cadence(spm: spm / 2, t: t))
                default: return input
                }
            }
            #expect(kept.inputs.count <= inputs.count && zip(kept.inputs, inputs).allSatisfy { same($0, perFoot($1)) })
            #expect(kept.inputs.count >= previous, "a longer prefix keeps at least as much")
            #expect(kept.report.warnings.count >= 1 && kept.report.inputs == kept.inputs.count)
            previous = kept.inputs.count
        }
        #expect(previous > inputs.count * 9 / 10)
    }

    @Test func salvageIsAFormatOptionAndUnknownOptionsAreArgumentErrors() throws {
        let (format, options) = try Importer.format("fit;salvage")
        #expect(format == .fit && options.salvage)
        #expect(try Importer.format("gpx").1.salvage == false)
        #expect(throws: RunwayError.self) { try Importer.format("fit;repair") }
        #expect(throws: RunwayError.self) { try Importer.format("fits") }
        do { _ = try Importer.format("fit;repair") } catch { #expect(error.status == .argument) }
    }

    /// Records stamped in device system time (seconds since power-on, < 0x10000000) are placed by
    /// the file's timestamp_correlation, else by its first UTC timestamp, else refused.
    @Test func fitSystemTimeRecordsArePlacedByCorrelationOrTheFirstUTCTimeOrRefused() throws {
        let utc: UInt32 = 1_000_000_000
        let epoch = 631_065_600.0
        // Local 0: record with timestamp and position. Local 1: timestamp_correlation (162):
        // timestamp, system_timestamp.
        let recordDef: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        func record(_ t: UInt32, _ lat: Double) -> [UInt8] {
            [0x00] + FITFile.le(t) + FITFile.le(FITFile.semicircles(lat)) + FITFile.le(FITFile.semicircles(4))
        }
        let correlation: [UInt8] = [0x41, 0, 0] + FITFile.le(UInt16(162)) + [2, 253, 4, 0x86, 1, 4, 0x86]
            + [0x01] + FITFile.le(utc) + FITFile.le(UInt32(1000))
        let system = record(1000, 52) + record(1001, 52.0001)

        let correlated = FITFile.wrap(recordDef + system + correlation + record(utc + 2, 52.0002), headerSize: 14, fileCRC: true)
        let placed = try report(correlated, as: .fit)
        #expect(placed.inputs.map(\.t) == [Double(utc) + epoch, Double(utc) + 1 + epoch, Double(utc) + 2 + epoch])
        #expect(placed.report.warnings.first?.contains("placed by its timestamp_correlation") == true)

        let byUTC = FITFile.wrap(recordDef + system + record(utc + 5, 52.0002), headerSize: 14, fileCRC: true)
        let guessed = try report(byUTC, as: .fit)
        #expect(guessed.inputs.map(\.t) == [Double(utc) + 4 + epoch, Double(utc) + 5 + epoch, Double(utc) + 5 + epoch])
        #expect(guessed.report.warnings.first?.contains("placed by its first UTC timestamp") == true)

        let unplaceable = FITFile.wrap(recordDef + system, headerSize: 14, fileCRC: true)
        let error = inputError(unplaceable, .fit)
        #expect(error?.status == .input)
        #expect(error?.message.contains("device system time") == true && error?.message.contains("no timestamp_correlation") == true)
        let left = try salvaged(unplaceable)
        #expect(left.inputs.isEmpty && left.report.unreadable == 2)
        #expect(left.report.warnings.first?.hasSuffix("they were left out (salvage)") == true)
    }

    /// The device's timer events become pause and resume lines: each stop of a running timer a
    /// pause after the record of its second, each restart a resume before it; a second stop, an
    /// event that is no timer's, and a change after the last record change nothing; a timer
    /// stopped when the first record comes is a pause at it. The replay's elapsed time is then
    /// the timer's.
    @Test func fitTimerStopsAndRestartsBecomePauseAndResumeLines() throws {
        let t0: UInt32 = 1_000_000_000
        let epoch = 631_065_600.0
        // Local 0: record (timestamp, position). Local 1: event (timestamp, event, event_type).
        let definitions: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
            + [0x41, 0, 0] + FITFile.le(UInt16(21)) + [3, 253, 4, 0x86, 0, 1, 0x00, 1, 1, 0x00]
        func record(_ dt: UInt32) -> [UInt8] {
            [0x00] + FITFile.le(t0 + dt) + FITFile.le(FITFile.semicircles(52 + Double(dt) * 0.00003)) + FITFile.le(FITFile.semicircles(4))
        }
        func event(_ dt: Int, _ type: UInt8, event: UInt8 = 0) -> [UInt8] { [0x01] + FITFile.le(UInt32(Int(t0) + dt)) + [event, type] }
        let start: UInt8 = 0, stop: UInt8 = 1, stopAll: UInt8 = 4
        /// Each line as its kind and its second after t0 ("fix 0", "pause 1").
        func lines(_ data: [UInt8]) throws -> [String] {
            let imported = try report(FITFile.wrap(definitions + data, headerSize: 14, fileCRC: true), as: .fit)
            var lines: [String] = []
            imported.forEachLine { line in
                switch line {
                case .input(let input): lines.append("fix \(Int(input.t - epoch) - Int(t0))")
                case .command(let command, let t): lines.append("\(command.rawValue) \(Int(t - epoch) - Int(t0))")
                }
            }
            #expect(imported.report.inputs == lines.count)
            #expect(imported.report.pauses == imported.timer.filter { $0.command == .pause }.count)
            return lines
        }

        // A timer started before the first record starts the flight there (a start line).
        let paused = event(-5, start) + record(0) + record(1) + event(1, stop) + event(2, stopAll)
            + event(6, stop, event: 9) + event(10, start) + record(10) + event(20, stop) + event(25, start)
            + event(26, start) + record(30) + event(30, stopAll)
        #expect(try lines(paused) == ["start -5", "fix 0", "fix 1", "pause 1", "resume 10", "fix 10", "pause 20", "resume 25", "fix 30"])
        // After a start line the changes before the first record are lines of their own; a start
        // in the first record's second is no start line.
        let stoppedBeforeFirst = event(-5, start) + event(-2, stop) + record(0) + event(3, start) + record(4)
        #expect(try lines(stoppedBeforeFirst) == ["start -5", "pause -2", "fix 0", "resume 3", "fix 4"])
        #expect(try lines(event(0, start) + record(0) + record(1)) == ["fix 0", "fix 1"])

        // With no start before it, the flight starts at the first record with the timer as the
        // events before it left it: a pause at it when stopped.
        let stoppedAtFirst = event(-2, stop) + record(0) + event(3, start) + record(4)
        #expect(try lines(stoppedAtFirst) == ["fix 0", "pause 0", "resume 3", "fix 4"])
        #expect(try lines(event(-2, stop) + record(0)) == ["fix 0"], "a pause after the only record is left out")

        // A stop and a start in the first record's second: a pause and its resume after it; in
        // the last record's second: neither (no pause is left without its resume, no resume
        // without its pause).
        let blinkAtFirst = record(0) + event(0, stop) + event(0, start) + record(1) + record(60)
        #expect(try lines(blinkAtFirst) == ["fix 0", "pause 0", "resume 0", "fix 1", "fix 60"])
        let blinkAtLast = event(-5, start) + record(0) + record(60) + event(60, stop) + event(60, start)
        #expect(try lines(blinkAtLast) == ["start -5", "fix 0", "fix 60"])

        // A timer event stamped in system time (seconds since power-on) among UTC records is placed
        // as the records would be (here by the first UTC timestamp after it), else left out.
        let unplaced = try report(FITFile.wrap(definitions + record(0) + [0x01] + FITFile.le(UInt32(500)) + [0, stop]
                                               + record(10), headerSize: 14, fileCRC: true), as: .fit)
        #expect(unplaced.timer.isEmpty && unplaced.inputs.count == 2)
        #expect(unplaced.report.warnings.first?.contains("1 timer event") == true
                && unplaced.report.warnings.first?.contains("left out") == true, "\(unplaced.report.warnings)")
        let placed = try report(FITFile.wrap(definitions + [0x01] + FITFile.le(UInt32(509)) + [0, stop] + record(10)
                                             + event(20, start) + record(30), headerSize: 14, fileCRC: true), as: .fit)
        var placedLines: [String] = []
        placed.forEachLine { if case .command(let c, let t) = $0 { placedLines.append("\(c.rawValue) \(Int(t - epoch) - Int(t0))") } }
        #expect(placedLines == ["pause 10", "resume 20"], "the stop at system time 509, the second before the UTC record at t0 + 10")
        #expect(placed.report.warnings.first?.contains("1 timer event") == true, "\(placed.report.warnings)")

        // A lap's start time in system time is placed the same way, else left out (not reported
        // as a time in 1990). Local 2: lap (timestamp, start_time).
        let lapDefinition: [UInt8] = [0x42, 0, 0] + FITFile.le(UInt16(19)) + [2, 253, 4, 0x86, 2, 4, 0x86]
        func lap(end: UInt32, start: UInt32) -> [UInt8] { [0x02] + FITFile.le(end) + FITFile.le(start) }
        let lapPlaced = try report(FITFile.wrap(definitions + lapDefinition + [0x01] + FITFile.le(UInt32(509)) + [0, stop]
                                                + record(10) + record(30) + lap(end: t0 + 30, start: 505), headerSize: 14, fileCRC: true), as: .fit)
        #expect(lapPlaced.report.device?.laps.map { $0.startT - epoch } == [Double(t0) + 6], "system time 505, 4 s before the stop at t0 + 10")
        #expect(lapPlaced.report.warnings.first?.contains("1 lap start") == true, "\(lapPlaced.report.warnings)")
        let lapUnplaced = try report(FITFile.wrap(definitions + lapDefinition + record(0) + record(30)
                                                  + lap(end: t0 + 30, start: 505), headerSize: 14, fileCRC: true), as: .fit)
        #expect(lapUnplaced.report.device?.laps.count == 1 && lapUnplaced.report.device?.laps.first?.startT.isNaN == true)
        #expect(lapUnplaced.report.warnings.first?.contains("1 lap start") == true
                && lapUnplaced.report.warnings.first?.contains("left out") == true, "\(lapUnplaced.report.warnings)")

        // Replayed as a run (no auto-pause), the flight's cruise time is the timer's: 6 + 10 + 5 s
        // (from the start 5 s before the first record), and 3 + 1 s.
        for (data, timer) in [(paused, 21.0), (stoppedBeforeFirst, 4)] {
            let bytes = FITFile.wrap(definitions + data, headerSize: 14, fileCRC: true)
            let analysis = try bytes.withUnsafeBytes { (b) throws(RunwayError) in
                try RecordingAnalysis.run(b, options: try AnalysisOptions.parse(#"{"config":{"activity":"run"}}"#))
            }
            #expect(analysis.rejected == 0)
            #expect(analysis.flight.record.elapsedS == timer)
            #expect(analysis.flight.record.startT == Double(t0) + epoch - 5)
        }
    }

    // MARK: - JSON Lines

    @Test func jsonLinesDecodeBackToTheSameInputs() throws {
        let recordings: [([UInt8], ImportFormat)] = [
            (FITFile.sample(), .fit),
            (Array(#"""
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="-33.865" lon="151.209"><ele>12.5</ele><time>2020-01-01T00:00:00.123456789Z</time>
              <extensions><hr>148</hr><cad>86</cad><speed>3.25</speed><course>271.5</course><hAcc>4.5</hAcc><vAcc>6</vAcc></extensions></trkpt>
            </trkseg></trk></gpx>
            """#.utf8), .gpx),
        ]
        for (bytes, format) in recordings {
            let inputs = try importing(bytes, as: format)
            let text = try withBytes(bytes) { (b) throws(RunwayError) in try Importer.jsonLines(b, as: format) }
            #expect(text.last == 0x0A)
            let lines = text.split(separator: 0x0A)
            #expect(lines.count == inputs.count + 1, "the inputs, then the import report")
            #expect(lines.last.map { String(decoding: $0, as: UTF8.self).hasPrefix(#"{"type":"import_report""#) } == true)
            for (line, input) in zip(lines, inputs) {
                let decoded = try withBytes(Array(line)) { (b) throws(RunwayError) in try InputDecoder.decode(b).input }
                #expect(same(decoded, input), "\(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func realRecordingsRoundTripThroughJSONLines() throws {
        let dir = try #require(ImportTests.tracks)
        for file in ImportTests.recordings where file != "gpxpy__Mojstrovka.gpx" {  // 1901 times are refused
            let bytes = try #require(readFile(dir + "/" + file))
            let format = try #require(ImportTests.format(of: file))
            let recording = try report(bytes, as: format)
            var expected: [ImportedRecording.Line] = []
            recording.forEachLine { expected.append($0) }
            let text = try withBytes(bytes) { (b) throws(RunwayError) in try Importer.jsonLines(b, as: format) }
            let lines = text.split(separator: 0x0A)
            #expect(lines.count == expected.count + 1, "\(file): the inputs and timer lines, then the import report")
            #expect(recording.report.inputs == expected.count)
            for (line, want) in zip(lines, expected) {
                let decoded = try withBytes(Array(line)) { (b) throws(RunwayError) in try InputDecoder.decodeLine(b) }
                switch (decoded, want) {
                case (.input(let got)?, .input(let input)):
                    #expect(same(got.input, input), "\(file): \(String(decoding: line, as: UTF8.self))")
                case (.command(let got, let t)?, .command(let command, let at)):
                    #expect(got == command && t == at, "\(file): \(String(decoding: line, as: UTF8.self))")
                default:
                    Issue.record("\(file): \(String(decoding: line, as: UTF8.self)) decodes as \(String(describing: decoded)), not \(want)")
                }
            }
        }
    }

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
            try withBytes(bytes) { (b) throws(RunwayError) in try XMLStream.parse(b, what: "file", into: oracle) }
            #expect(r.sport == oracle.sport, "\(file)")
            // (The pause and resume lines of the file's segment breaks count as inputs.)
            #expect(r.inputs == (try importing(bytes, as: format)).count + 2 * r.pauses)
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

    // MARK: - Times

    @Test func isoTimesOutsideTheCalendarAreRefused() {
        for text in ["2020-13-01T00:00:00Z", "2021-02-29T00:00:00Z", "2020-01-01T24:00:01Z", "2020-01-01T00:60:00Z",
                     "2020-01-01T00:00Z", "2020-01-01", "2020-01-01T00:00:00.Z", "2020-01-01T00:00:00+2", "2020-01-01T00:00:00Zjunk",
                     "20200101T000000Z", "", "2020-01-01T00:00:00+24:00"] {
            #expect(RecordedText.unixTime(text) == nil, "\(text)")
        }
        #expect(RecordedText.unixTime("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(RecordedText.unixTime("1901-12-13T20:45:52Z") == -2_147_483_648)
        #expect(RecordedText.unixTime("1970-01-01T00:00:00+01:00") == -3600)
        #expect(RecordedText.unixTime("2016-12-31T23:59:60Z") == 1_483_228_800)  // leap second
        #expect(RecordedText.unixTime("2020-01-01T24:00:00Z") == 1_577_923_200)
    }

    // MARK: - Helpers

    func importing(_ bytes: [UInt8], as format: ImportFormat) throws(RunwayError) -> [Input] {
        try withBytes(bytes) { (b) throws(RunwayError) in try Importer.read(b, as: format) }
    }

    /// `withUnsafeBytes` keeping the error's type.
    func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(RunwayError) -> R) throws(RunwayError) -> R {
        let result: Result<R, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try body(b)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    func inputError(_ bytes: [UInt8], _ format: ImportFormat) -> RunwayError? {
        do { _ = try importing(bytes, as: format); return nil } catch { return error }
    }

    func readFile(_ path: String) -> [UInt8]? { SharedTracks.read(path) }

    /// Equal inputs, where NaN (absent) equals NaN and numbers agree to 1e-9 relative.
    func same(_ a: Input?, _ b: Input?) -> Bool {
        func eq(_ x: Double, _ y: Double) -> Bool {
            x.isNaN ? y.isNaN : abs(x - y) <= max(abs(y) * 1e-12, 1e-9)
        }
        switch (a, b) {
        case (.fix(let x)?, .fix(let y)?):
            return eq(x.t, y.t) && eq(x.lat, y.lat) && eq(x.lon, y.lon) && eq(x.alt, y.alt) && eq(x.speed, y.speed)
                && eq(x.course, y.course) && eq(x.hAcc, y.hAcc) && eq(x.vAcc, y.vAcc) && eq(x.hr, y.hr)
                && eq(x.cadence, y.cadence) && eq(x.power, y.power)
        case (.sample(.heartRate(let x, let s))?, .sample(.heartRate(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.power(let x, let s))?, .sample(.power(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.cadence(let x, let s))?, .sample(.cadence(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.altimeter(let x, let s))?, .sample(.altimeter(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.speed(let x, let s))?, .sample(.speed(let y, let u))?): return eq(x, y) && eq(s, u)
        default: return false
        }
    }
}

/// A small FIT activity written byte by byte, with its own (bitwise) CRC, for what the real
/// recordings lack: big-endian definitions, developer fields, compressed timestamps, invalid values.
enum FITFile {
    /// The first record's FIT timestamp.
    static let start: Double = 1_000_000_000

    static func semicircles(_ degrees: Double) -> Int32 { Int32((degrees / 180 * 2_147_483_648).rounded()) }
    static func degrees(_ d: Double) -> Double { Double(semicircles(d)) * (180 / 2_147_483_648) }

    static func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
    static func be<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

    /// `unplacedAltitude`: the raw enhanced altitude of the last record, which has no position.
    static func sample(headerSize: Int = 14, fileCRC: Bool = true, unplacedAltitude: UInt32 = 2562) -> [UInt8] {
        let t0 = UInt32(start)
        var d: [UInt8] = []
        // Local 0: event (global 21), timestamp only; it sets the time base too.
        d += [0x40, 0, 0] + le(UInt16(21)) + [1, 253, 4, 0x86]
        d += [0x00] + le(t0 - 100)
        // Developer data id (global 207) and the field description (206) of developer field 0: 3 bytes.
        d += [0x44, 0, 0] + le(UInt16(207)) + [1, 3, 1, 0x02] + [0x04, 0]
        d += [0x44, 0, 0] + le(UInt16(206)) + [4, 0, 1, 0x02, 1, 1, 0x02, 2, 1, 0x02, 3, 4, 0x07]
        d += [0x04, 0, 0, 0x0D] + Array("dev\0".utf8)
        // Local 1: record, little-endian, every field librunway reads, plus a 3-byte developer field.
        d += [0x61, 0, 0] + le(UInt16(20)) + [11,
              253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 78, 4, 0x86, 6, 2, 0x84, 73, 4, 0x86,
              3, 1, 0x02, 4, 1, 0x02, 53, 1, 0x02, 31, 1, 0x02] + [1, 0, 3, 0]
        func record1(_ t: UInt32, _ lat: Int32, _ lon: Int32, alt: UInt16, ealt: UInt32, speed: UInt16, espeed: UInt32,
                     hr: UInt8, cad: UInt8, frac: UInt8, acc: UInt8) -> [UInt8] {
            [0x01] + le(t) + le(lat) + le(lon) + le(alt) + le(ealt) + le(speed) + le(espeed) + [hr, cad, frac, acc] + [9, 9, 9]
        }
        d += record1(t0, semicircles(52.0), semicircles(4.0), alt: 2550, ealt: 2562, speed: 3000, espeed: 3100,
                     hr: 150, cad: 85, frac: 64, acc: 4)
        // Invalid enhanced values fall back to altitude/speed; invalid HR, cadence and accuracy are absent.
        d += record1(t0 + 1, semicircles(52.0001), semicircles(4.0), alt: 2550, ealt: 0xFFFF_FFFF, speed: 3000,
                     espeed: 0xFFFF_FFFF, hr: 0xFF, cad: 0xFF, frac: 0xFF, acc: 0xFF)
        // Local 2: big-endian record without a timestamp, for compressed timestamp headers.
        d += [0x42, 0, 1] + be(UInt16(20)) + [4, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 3, 1, 0x02]
        func compressed(_ t: UInt32, _ lat: Int32, _ lon: Int32, alt: UInt16, hr: UInt8) -> [UInt8] {
            [0x80 | (2 << 5) | UInt8(t & 0x1F)] + be(lat) + be(lon) + be(alt) + [hr]
        }
        d += compressed(t0 + 4, semicircles(-33.9), semicircles(-151.2), alt: 2600, hr: 151)
        d += compressed(t0 + 34, semicircles(-33.9001), semicircles(-151.2), alt: 2601, hr: 152)  // wraps the 5 bits
        // Local 3: record without a position: heart rate and cadence become samples.
        d += [0x43, 0, 0] + le(UInt16(20)) + [3, 253, 4, 0x86, 3, 1, 0x02, 4, 1, 0x02]
        d += [0x03] + le(t0 + 40) + [140, 80]
        // A record without any valid time is dropped.
        d += record1(0xFFFF_FFFF, semicircles(1), semicircles(1), alt: 2550, ealt: 2562, speed: 0, espeed: 0,
                     hr: 1, cad: 1, frac: 0, acc: 1)
        // An invalid latitude means no position: its heart rate is a sample.
        d += record1(t0 + 41, 0x7FFF_FFFF, semicircles(4.0), alt: 2550, ealt: unplacedAltitude, speed: 0, espeed: 0,
                     hr: 141, cad: 0xFF, frac: 0xFF, acc: 0xFF)
        return wrap(d, headerSize: headerSize, fileCRC: fileCRC)
    }

    static func wrap(_ data: [UInt8], headerSize: Int, fileCRC: Bool) -> [UInt8] {
        var f: [UInt8] = [UInt8(headerSize), 0x20] + le(UInt16(2132)) + le(UInt32(data.count)) + Array(".FIT".utf8)
        if headerSize == 14 { f += le(crc(f)) }
        f += data
        if fileCRC { f += le(crc(f)) }
        return f
    }

    /// CRC-16/ARC (reflected polynomial 0xA001), bit by bit: the FIT CRC without its nibble table.
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        var c: UInt16 = 0
        for b in bytes {
            c ^= UInt16(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xA001 : c >> 1 }
        }
        return c
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
