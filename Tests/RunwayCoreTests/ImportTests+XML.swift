import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// GPX and TCX imports (the suite is ImportTests.swift's).

extension ImportTests {
    // MARK: - GPX

    /// The GPX reader keeps its open points and elements in memory it allocates once and frees
    /// without deinitialising them (GPXReader.points, .open: OpenStacks): right only while they hold no
    /// reference (a String field added to OpenPoint would leak on every point, silently).
    @Test func theGPXReadersOpenPointsAndElementsAreTrivialValues() {
        #expect(_isPOD(GPXReader.OpenPoint.self))
        #expect(_isPOD((name: GPXReader.Name, seq: Int).self))
    }

    /// The same for the TCX reader: its open trackpoints, laps and elements (TCXReader.points,
    /// .laps, .open, each an OpenStack) are freed without deinitialising them.
    @Test func theTCXReadersOpenPointsLapsAndElementsAreTrivialValues() {
        #expect(_isPOD(TCXReader.OpenPoint.self))
        #expect(_isPOD(TCXReader.OpenLap.self))
        #expect(_isPOD((name: TCXReader.Name, seq: Int).self))
    }

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

    /// A TCX file keeps at most RUNWAY_MAX_LAPS `Lap`s (a replay cannot lap more; 64 MiB of
    /// empty `Lap`s kept about 9 M, 1.6 GB) and says how many more it had.
    @Test func aTCXFileKeepsAtMostMaxLapsLaps() throws {
        let point = { (s: Int, lat: Double) in
            "<Trackpoint><Time>2020-01-01T00:00:0\(s)Z</Time><Position><LatitudeDegrees>\(lat)</LatitudeDegrees><LongitudeDegrees>4</LongitudeDegrees></Position></Trackpoint>"
        }
        let tcx = #"<TrainingCenterDatabase><Activities><Activity><Lap StartTime="2020-01-01T00:00:00Z"><Track>"#
            + point(0, 52) + point(5, 52.0001) + "</Track></Lap>"
            + String(repeating: "<Lap/>", count: LapCounter.maxLaps + 1) + "</Activity></Activities></TrainingCenterDatabase>"
        let r = try report(Array(tcx.utf8), as: .tcx)
        #expect(r.inputs.count == 2)
        #expect(r.report.device?.laps.count == LapCounter.maxLaps)
        #expect(r.report.warnings.contains { $0.hasPrefix("the TCX file has 2 more Laps than the 50000 kept") }, "\(r.report.warnings)")
    }

    @Test func aHalfPositionInTCXIsAnError() {
        let tcx = #"<TrainingCenterDatabase><Activities><Activity><Lap><Track><Trackpoint><Time>2020-01-01T00:00:00Z</Time>"#
            + "<Position><LatitudeDegrees>1</LatitudeDegrees></Position></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        #expect(inputError(Array(tcx.utf8), .tcx)?.message == "Trackpoint 1: Position has no LongitudeDegrees")
    }
}
