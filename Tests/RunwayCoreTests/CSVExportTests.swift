import Testing
@testable import RunwayCore

@Suite("Exports: CSV")
struct CSVExportTests {
    @Test func csvHasAHeaderAndOneRowPerRoutePoint() throws {
        let r = try ExportFixture.simulated()
        let lines = exportText(Exporter.export(r, as: .csv)).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "ends with a newline")
        let rows = lines.dropLast()
        #expect(rows.count == r.route.count + 1)
        #expect(rows.first == "t,time_iso,lat,lon,alt_m,distance_m,speed_mps,pace_min_per_km,hr_bpm,cadence_spm,segment,power_w")
        let cells = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(cells.allSatisfy { $0.count == 12 })
        #expect(cells.allSatisfy { $0[11].isEmpty }, "no power: empty cells")
        #expect(Set(cells.map { $0[10] }) == ["1", "2"])
        #expect(cells.first?[1] == ISOTime.string(r.route.time(0)))
        #expect(Double(cells.first?[2] ?? "") == r.route.latitude(0))
        #expect(abs((Double(cells.last?[5] ?? "") ?? -1) - r.route.distanceM(r.route.count - 1)) < 0.006)
        let bare = exportText(Exporter.export(try ExportFixture.simulated(sensors: false, gap: nil, lengthM: 300), as: .csv))
        let row = bare.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(row[8].isEmpty && row[9].isEmpty, "unknown heart rate and cadence are empty cells")
    }
}
