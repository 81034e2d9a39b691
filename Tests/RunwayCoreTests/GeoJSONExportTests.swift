import Testing
@testable import RunwayCore

@Suite("Exports: GeoJSON")
struct GeoJSONExportTests {
    @Test func geojsonIsAFeatureWithAMultiLineStringForSeveralSegments() throws {
        let r = try ExportFixture.simulated()
        let root = try JSONInput.object(exportText(Exporter.export(r, as: .geojson)))
        let doc = Dictionary(root.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(doc["type"] == .string("Feature"))
        let geometry = jsonObject(doc["geometry"])
        #expect(geometry["type"] == .string("MultiLineString"))
        let lines = jsonArray(geometry["coordinates"])
        #expect(lines.map { jsonArray($0).count } == r.route.segmentRanges.map(\.count))
        let first = jsonArray(jsonArray(lines.first).first)
        #expect(first == [.number(r.route.longitude(0)), .number(r.route.latitude(0)),
                          .number((r.route.altitude(0) * 100).rounded() / 100)])
        let props = jsonObject(doc["properties"])
        #expect(props["distance_m"] == .number(r.distanceM))
        #expect(props["start_time"] == .string(ISOTime.string(r.startT) ?? ""))
        #expect(props["flight_id"] == .string("flight-run"))
        #expect(jsonArray(props["laps"]).count == r.laps.count)
        #expect(props["avg_hr_bpm"]?.finiteNumber != nil)
    }

    @Test func geojsonIsALineStringForOneSegmentAndWritesUnknownsAsNull() throws {
        let r = try ExportFixture.simulated(sensors: false, gap: nil, manualLapAfter: nil, lengthM: 500)
        let bytes = Exporter.export(r, as: .geojson)
        let doc = Dictionary(try JSONInput.object(exportText(bytes)).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        let geometry = jsonObject(doc["geometry"])
        #expect(geometry["type"] == .string("LineString"))
        #expect(jsonArray(geometry["coordinates"]).count == r.route.count)
        #expect(jsonObject(doc["properties"])["avg_hr_bpm"] == .null)
        #expect(!exportText(bytes).contains("nan"))
    }
}
