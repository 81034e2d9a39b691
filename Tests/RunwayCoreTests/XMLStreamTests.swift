import Testing
@testable import RunwayCore

/// The streaming XML readers (`XMLStream`, `GPXReader`, `TCXReader`) on documents whose shape a
/// tree would read one way and a naive stream another: points inside points, values inside
/// values, an error after a later point's.
@Suite struct XMLStreamTests {
    func read(_ text: String, _ format: ImportFormat) throws(RunwayError) -> ImportedRecording {
        let bytes = Array(text.utf8)
        let result: Result<ImportedRecording, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try Importer.recording(b, as: format)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses `text` into `handler`; the error's message, or nil.
    func parse(_ text: String, _ handler: any XMLStreamHandler) -> String? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { b in
            do throws(RunwayError) { try XMLStream.parse(b, what: "test", into: handler); return nil } catch { return error.message }
        }
    }

    func message(_ gpx: String) -> String? {
        do throws(RunwayError) { _ = try read(gpx, .gpx); return nil } catch { return error.message }
    }

    func times(_ r: ImportedRecording) -> [Double] { r.inputs.map(\.t) }

    final class Recorder: XMLStreamHandler {
        var log: [String] = []
        func start(_ name: XMLName, depth: Int, attributes: XMLAttributes) -> Bool {
            log.append("<\(name.string)@\(depth)\(attributes.value("k").map { " k=\($0)" } ?? "")")
            return name == "v"
        }
        func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
            log.append("/\(depth)" + (text.map { " \"" + String(decoding: $0, as: UTF8.self) + "\"" } ?? ""))
        }
    }

    @Test func theStreamReportsLocalNamesDepthsAndTheTextAskedFor() throws {
        let r = Recorder()
        let doc = #"<a:root><v> 1<x>2</x>3 </v><b x:k=" 7 ">t</b></a:root>"#
        #expect(parse(doc, r) == nil)
        // The text of <v> is its own character data, trimmed, without its child's.
        #expect(r.log == ["<root@0", "<v@1", "<x@2", "/2", "/1 \"13\"", "<b@1 k=7", "/1", "/0"])
    }

    @Test func aDTDOrDeepNestingIsRefusedAndTheHandlerHearsNoMore() {
        let r = Recorder()
        let dtd = #"<!DOCTYPE r [<!ENTITY e "x">]><r><v>&e;</v></r>"#
        #expect(parse(dtd, r) == "not a valid test file: a DTD (<!DOCTYPE>) is not allowed in a recording")
        #expect(r.log.isEmpty)
        let deep = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        let r2 = Recorder()
        #expect(parse(deep, r2) == "not a valid test file: elements nested deeper than 256")
        #expect(r2.log.count == 256)
    }

    @Test func aGPXPointInsideAnotherComesAfterItAsInDocumentOrder() throws {
        let gpx = #"""
        <gpx><trk><trkseg>
        <trkpt lat="1" lon="1"><time>2020-01-01T00:00:01Z</time>
          <extensions><trkpt lat="2" lon="2"><time>2020-01-01T00:00:02Z</time><extensions><hr>120</hr></extensions></trkpt>
          <hr>130</hr></extensions></trkpt>
        <trkpt lat="3" lon="3"><time>2020-01-01T00:00:03Z</time></trkpt>
        </trkseg></trk></gpx>
        """#
        let r = try read(gpx, .gpx)
        #expect(times(r) == [1_577_836_801, 1_577_836_802, 1_577_836_803])
        // The outer point's extensions hold the inner point's hr first in document order.
        guard case .fix(let outer) = r.inputs[0], case .fix(let inner) = r.inputs[1] else { Issue.record("not fixes"); return }
        #expect(outer.hr == 120 && inner.hr == 120)
    }

    @Test func theFirstNumberInDocumentOrderFillsAnExtensionValue() throws {
        let gpx = #"""
        <gpx><trk><trkseg><trkpt lat="1" lon="1"><time>2020-01-01T00:00:01Z</time>
        <extensions><hr>n/a<hr>150</hr></hr><hr>160</hr><x><cad>80<cad>70</cad></cad></x></extensions>
        <speed>2</speed><extensions><speed>3</speed></extensions></trkpt></trkseg></trk></gpx>
        """#
        let r = try read(gpx, .gpx)
        guard case .fix(let f) = r.inputs.first else { Issue.record("no fix"); return }
        // The outer <hr> says n/a (absent); its inner one is next in document order.
        #expect(f.hr == 150 && f.cadence == 80 && f.speed == 2)
    }

    @Test func theErrorIsTheFirstPointsInDocumentOrder() {
        // The outer point's time is bad and it starts first; its inner point (which ends first)
        // has no lat.
        let gpx = #"""
        <gpx><trk><trkseg><trkpt lat="1" lon="1"><time>soon</time>
        <extensions><trkpt lon="2"><time>2020-01-01T00:00:02Z</time></trkpt></extensions></trkpt></trkseg></trk></gpx>
        """#
        #expect(message(gpx) == #"trkpt 1: time "soon" is not an ISO 8601 date-time"#)
        // A well-formedness error comes before any point's.
        #expect(message(#"<gpx><trk><trkpt lon="1"></trk></gpx>"#)
                == #"not a well-formed GPX file: mismatched tag (line 1); salvage keeps the points read before the break ("gpx;salvage")"#)
    }

    @Test func theFirstTrackTypeAndNameChildrenCount() throws {
        let gpx = #"""
        <gpx><trk><type></type><type>cycling</type><name>A</name><name>B</name>
        <trkseg><trkpt lat="1" lon="1"><time>2020-01-01T00:00:01Z</time></trkpt></trkseg></trk>
        <trk><trkseg/><type>running</type></trk></gpx>
        """#
        let r = try read(gpx, .gpx)
        // The first trk's first type is empty: the sport is the second trk's.
        #expect(r.report.sport == "running")
        #expect(r.report.tracks.map(\.name) == ["A", nil])
    }

    @Test func tcxLapsAddUpInDocumentOrderAndPositionsAreTheirFirstChildren() throws {
        let tcx = #"""
        <TrainingCenterDatabase><Activities><Activity Sport="Biking">
        <Lap StartTime="2020-01-01T00:00:00Z"><TotalTimeSeconds>10</TotalTimeSeconds><DistanceMeters>100</DistanceMeters>
          <Extensions><LX><AvgWatts>200</AvgWatts><MaxWatts>n/a</MaxWatts><MaxWatts>300</MaxWatts></LX></Extensions>
          <Track><Trackpoint><Time>2020-01-01T00:00:01Z</Time>
            <Position><LatitudeDegrees>1</LatitudeDegrees><LatitudeDegrees>9</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position>
            <HeartRateBpm><Value>140</Value><Value>150</Value></HeartRateBpm>
            <Extensions><TPX><RunCadence>n/a</RunCadence><RunCadence>40</RunCadence></TPX></Extensions></Trackpoint>
          <Trackpoint><Time>2020-01-01T00:00:02Z</Time><HeartRateBpm><Value>141</Value></HeartRateBpm></Trackpoint>
          </Track></Lap>
        <Lap><TotalTimeSeconds>5</TotalTimeSeconds><DistanceMeters>50</DistanceMeters></Lap>
        </Activity></Activities></TrainingCenterDatabase>
        """#
        let r = try read(tcx, .tcx)
        #expect(r.report.sport == "biking")
        guard case .fix(let f) = r.inputs.first else { Issue.record("no fix"); return }
        #expect(f.lat == 1 && f.lon == 2 && f.hr == 140 && f.cadence == 80)
        #expect(r.inputs.count == 2 && r.report.noPosition == 1)
        let d = try #require(r.report.device)
        #expect(d.distanceM == 150 && d.timerS == 15 && d.laps.count == 2)
        #expect(d.avgPowerW == 200 && d.maxPowerW == 300)
    }
}
