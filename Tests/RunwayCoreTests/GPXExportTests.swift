import Testing
@testable import RunwayCore

@Suite("Exports: GPX")
struct GPXExportTests {
    @Test func gpxHasOneTrksegPerTimerLegWithEveryPointItsTimeAndPosition() throws {
        let r = try ExportFixture.simulated()
        #expect(r.route.segmentRanges.count == 2, "the fixture's gap splits the route")
        #expect(r.timerLegs.count == 1, "but not the timer")
        let gpx = try parsedExport(r, .gpx)
        #expect(gpx.name == "gpx" && gpx.namespace == "http://www.topografix.com/GPX/1/1")
        #expect(gpx.attributes["version"] == "1.1" && gpx.attributes["creator"] == "librunway")
        let trk = try #require(gpx.first("trk"))
        let segs = trk.all("trkseg")
        // One trkseg: an import reads a trkseg break as a pause, and finds the gap from the times.
        #expect(segs.map { $0.all("trkpt").count } == [r.route.count])
        var i = 0
        for seg in segs {
            for pt in seg.all("trkpt") {
                #expect(Double(pt.attributes["lat"] ?? "") == r.route.latitude(i))
                #expect(Double(pt.attributes["lon"] ?? "") == r.route.longitude(i))
                #expect(pt.first("time")?.text == ISOTime.string(r.route.time(i)))
                let ele = try #require(Double(pt.first("ele")?.text ?? ""))
                #expect(abs(ele - r.route.altitude(i)) <= 0.005)
                let ext = pt.first("extensions")?.first("TrackPointExtension")
                #expect(ext?.namespace == "http://www.garmin.com/xmlschemas/TrackPointExtension/v2")
                #expect(ext?.first("hr")?.text == String(Int(r.route.heartRate(i))))
                // A run's cad counts one foot, as Garmin writes it: the engine's steps ÷ 2, whole.
                #expect(ext?.first("cad")?.text == String(Int((r.route.cadence(i) / 2).rounded())))
                i += 1
            }
        }
        #expect(i == r.route.count && i > 300)
        #expect(segs.first?.all("trkpt").first?.first("time")?.text.hasSuffix(".250Z") == true,
                "fractional seconds keep their milliseconds")
    }

    @Test func gpxLeavesOutWhatIsUnknownInsteadOfWritingZero() throws {
        let r = try ExportFixture.simulated(sensors: false, gap: nil, manualLapAfter: nil, lengthM: 300)
        let bytes = Exporter.export(r, as: .gpx)
        let parsed = ExportXML.parse(bytes)
        let gpx = try #require(parsed)
        let points = gpx.descendants("trkpt")
        #expect(points.count == r.route.count)
        #expect(gpx.descendants("hr").isEmpty && gpx.descendants("cad").isEmpty)
        #expect(!exportText(bytes).contains("nan") && !exportText(bytes).contains("inf"))
    }

    @Test(arguments: places)
    func gpxCoordinatesAreExactInEveryHemisphereAndAcrossTheAntimeridian(_ place: (lat: Double, lon: Double)) throws {
        let r = try ExportFixture.simulated(lat: place.lat, lon: place.lon, gap: nil, manualLapAfter: nil, lengthM: 800)
        let gpx = try parsedExport(r, .gpx)
        let points = gpx.descendants("trkpt")
        #expect(points.count == r.route.count)
        for (i, pt) in points.enumerated() {
            #expect(Double(pt.attributes["lat"] ?? "") == r.route.latitude(i))
            #expect(Double(pt.attributes["lon"] ?? "") == r.route.longitude(i))
        }
    }

    @Test func flightIDsAreEscapedInTheXMLFormats() throws {
        var r = try ExportFixture.simulated(gap: nil, manualLapAfter: nil, lengthM: 300)
        r.flightID = "run <1> & \"two\" 'x'\u{07}"
        let gpx = try parsedExport(r, .gpx)
        #expect(gpx.first("trk")?.first("name")?.text == "run <1> & \"two\" 'x'")
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.descendants("Notes").first?.text == "run <1> & \"two\" 'x'")
    }
}
