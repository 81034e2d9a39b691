import Testing
import CRunwayABI
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Every line `runway_import` writes can be pushed back: the import report lists a bounded part
/// of what is unbounded in a file (tracks, warnings, device laps, the file's own texts) and
/// counts the rest. Before, a GPX of 30 000 one-point `trk`s wrote a 1.63 MB report line, which
/// `runway_push_jsonl` refused (over `RUNWAY_MAX_INPUT_BYTES`).
@Suite("import report bound")
struct ImportReportBoundTests {
    /// `2024-01-01T00:00:00Z` plus `s` seconds (s < 1 day).
    static func time(_ s: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "2024-01-01T\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
    }

    static func gpx(tracks: Int, name: (Int) -> String?, type: String? = nil, untimed: Bool = false) -> [UInt8] {
        var text = #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"#
        for k in 0..<tracks {
            text += "<trk>"
            if let n = name(k) { text += "<name>\(n)</name>" }
            if let type { text += "<type>\(type)</type>" }
            text += "<trkseg>"
            if untimed { text += #"<trkpt lat="52.0" lon="4.0"></trkpt>"# }
            let lat = 52.0 + Double(k) * 0.00003
            text += #"<trkpt lat="\#(lat)" lon="4.0"><time>\#(time(k))</time></trkpt></trkseg></trk>"#
        }
        return Array((text + "</gpx>").utf8)
    }

    static func tcx(laps: Int) -> [UInt8] {
        var text = #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running">"#
        for k in 0..<laps {
            let lat = 52.0 + Double(k) * 0.00003
            text += #"<Lap StartTime="\#(time(k))"><TotalTimeSeconds>1.000000000000001</TotalTimeSeconds>"#
                + "<DistanceMeters>3.3333333333333335</DistanceMeters><Track><Trackpoint><Time>\(time(k))</Time>"
                + "<Position><LatitudeDegrees>\(lat)</LatitudeDegrees><LongitudeDegrees>4.0</LongitudeDegrees></Position>"
                + "</Trackpoint></Track></Lap>"
        }
        return Array((text + "</Activity></Activities></TrainingCenterDatabase>").utf8)
    }

    static let long = String(repeating: "\\\"", count: 150_000)   // 300 000 characters, each escaped in JSON

    /// Files whose report was over 1 MiB, or would be with the names and laps they carry.
    static let hostile: [(String, [UInt8], ImportFormat)] = [
        ("24 000 one-point trks", gpx(tracks: 24_000, name: { _ in nil }), .gpx),
        ("6 000 trks named with 100 escaped characters", gpx(tracks: 6_000, name: { _ in String(long.prefix(100)) }), .gpx),
        ("20 000 trks with an untimed point each", gpx(tracks: 20_000, name: { "t\($0)" }, untimed: true), .gpx),
        ("a trk named and typed with 300 000 escaped characters", gpx(tracks: 2, name: { _ in long }, type: long), .gpx),
        ("12 000 TCX laps", tcx(laps: 12_000), .tcx),
    ]

    @Test(arguments: 0..<hostile.count)
    func everyLineTheImporterWritesPushesBack(_ k: Int) throws {
        let (what, file, format) = Self.hostile[k]
        let jsonl = try file.withUnsafeBufferPointer { b in
            try AnalyseTests.call { out, n in
                b.withMemoryRebound(to: CChar.self) { runway_import_impl(format.rawValue, $0.baseAddress, b.count, out, n) }
            }.get()
        }
        let lines = jsonl.split(separator: 0x0A)
        let longest = lines.map(\.count).max() ?? 0
        #expect(longest <= JSONInput.maxInputBytes, "\(what): a line of \(longest) bytes")
        let reportLine = String(decoding: lines.last ?? [], as: UTF8.self)

        // The report lists the first of each list and counts the rest: together, the file's.
        let full = try file.withUnsafeBytes { try Importer.recording($0, as: format) }.report
        let report = try JSONInput.object(reportLine)
        func count(_ list: String, _ more: String, in object: [(key: String, value: JSONValue)]) -> Int {
            var n = 0
            for (key, value) in object {
                if key == list, case .array(let a) = value { n += a.count }
                if key == more, case .number(let m) = value { n += Int(m) }
            }
            return n
        }
        #expect(count("tracks", "more_tracks", in: report) == full.tracks.count, "\(what)")
        #expect(count("warnings", "more_warnings", in: report) == full.warnings.count, "\(what)")
        if let device = report.first(where: { $0.key == "device" })?.value, case .object(let d) = device {
            #expect(count("laps", "more_laps", in: d.map { (key: $0.key, value: $0.value) }) == full.device?.laps.count, "\(what)")
        }
        for (key, value) in report {
            if case .string(let s) = value { #expect(s.unicodeScalars.count <= ImportReport.maxTextScalars, "\(what): \(key)") }
        }

        // The whole output pushes back into the session its report configures, every line taken.
        var config: UnsafeMutablePointer<CChar>? = nil
        try #require(runway_replay_config_impl(reportLine, nil, &config) == RUNWAY_OK, "\(what): \(lastError())")
        defer { free(config) }
        let s = try CSession(config.map { String(cString: $0) })
        #expect(s.start() == RUNWAY_OK)
        var accepted = 0, rejected = 0
        let st = jsonl.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { runway_push_jsonl_impl(s.handle, $0.baseAddress, b.count, &accepted, &rejected) }
        }
        #expect(st == RUNWAY_OK && rejected == 0 && accepted == lines.count, "\(what): \(rejected) rejected: \(lastError())")

        // runway_analyse reads it too, and its result carries the same report.
        let analysed = AnalyseTests.analyse(file, "{\"format\":\"\(format.rawValue)\",\"route\":false}")
        guard case .success(let result) = analysed else { Issue.record("\(what): \(analysed)"); return }
        let start = Array(#"{"type":"import_report""#.utf8), wanted = Array(reportLine.utf8)
        let at = result.indices.first { result[$0...].starts(with: start) }
        #expect(at.map { result[$0...].starts(with: wanted) } == true, "\(what): runway_analyse's report is not runway_import's")
    }

    /// The worst report the bounds allow: every list full and every text as long as it may be,
    /// each of its characters escaped to 6 bytes, every number as long as a double prints.
    @Test func theLongestReportFitsThePushLimit() {
        let worst = -1.2345678901234567e-300
        let text = String(repeating: "\u{1}", count: 1000)
        var report = ImportReport(format: .tcx)
        report.sport = text
        report.tracks = (0..<5000).map { ImportReport.Track(index: Int.min + $0, name: text, points: Int.min, untimed: Int.min) }
        report.warnings = Array(repeating: text, count: 5000)
        var lap = ImportReport.DeviceLap()
        (lap.startT, lap.distanceM, lap.timerS, lap.elapsedS, lap.ascentM) = (worst, worst, worst, worst, worst)
        (lap.avgPowerW, lap.maxPowerW, lap.normalizedPowerW) = (worst, worst, worst)
        var device = ImportReport.DeviceTotals()
        device.laps = Array(repeating: lap, count: 50_000)
        report.device = device
        var w = JSONWriter(capacity: 1024)
        report.write(to: &w)
        #expect(w.bytes.count <= 600_000, "\(w.bytes.count) bytes")
        #expect(w.bytes.count <= JSONInput.maxInputBytes)
    }

    /// `runway_replay_config` takes what `runway_push_jsonl` takes: a longer line is refused as
    /// the push refuses it (before, it took a report line of any length).
    @Test func aReportLineOverThePushLimitIsRefused() {
        let padding = String(repeating: " ", count: JSONInput.maxInputBytes)
        let line = #"{"type":"import_report","activity":"ride","altitude_source":null,"auto_lap_m":0}"#
        var out: UnsafeMutablePointer<CChar>? = nil
        #expect(runway_replay_config_impl(line + padding, nil, &out) == RUNWAY_ERR_LIMIT)
        #expect(lastError().hasPrefix("report_line of more than \(JSONInput.maxInputBytes) bytes exceeds the limit"), "\(lastError())")
        #expect(out == nil)
        #expect(runway_replay_config_impl(line, nil, &out) == RUNWAY_OK)
        free(out)
    }
}
