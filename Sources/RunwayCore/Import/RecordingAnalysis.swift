import CJSON

/// A recording analysed in one go (`runway_analyse`): imported, replayed through a flight of its
/// own with the file's sport, and stopped, with no JSON between the reader and the engine.
///
/// The flight is the one today's separate calls give: `runway_import`, a session opened with the
/// import report's `activity` (and its `altitude_source` as `fix_altitude`, its `auto_lap_m`:
/// 0 when the file's own laps are replayed) unless the config names them, started at the first
/// input's time unless the first line is a start line, fed every line (`runway_push_jsonl`: the
/// inputs, the device's timer as start, pause and resume lines, and its laps as lap lines; a
/// refused one is logged and the rest go on), stopped at
/// the latest time it saw; the summary is `runway_summary_json`'s.
///
///     let options = try AnalysisOptions.parse(#"{"format":"auto","config":{"hr_max":185}}"#)
///     let analysis = try RecordingAnalysis.run(bytes, options: options)
///     var w = JSONWriter()
///     analysis.write(to: &w, route: options.route)   // {"summary":{...},"report":{...},...}
public struct RecordingAnalysis: Sendable {
    /// The import report (format, sport, counts, the device's own totals).
    public var report: ImportReport
    /// The stopped flight.
    public var flight: FlightComputer
    public var inputs = 0, accepted = 0, rejected = 0
    /// The first refused line: its place among the lines (1-based; start, pause, resume and lap lines count)
    /// and why.
    public var firstRejection: (index: Int, error: RunwayError)? = nil

    /// Imports `bytes` as `options` say and replays them.
    ///
    /// - Throws: `.input` for a file that is not a readable recording or has no timed point, or
    ///   whose first time cannot start a flight; `.argument` for a config the engine refuses.
    public static func run(_ bytes: UnsafeRawBufferPointer, options: AnalysisOptions) throws(RunwayError) -> RecordingAnalysis {
        // The config is checked before the file is read: a typo costs no import.
        _ = try EngineConfig.parse(options.configText)
        let format: ImportFormat
        if let f = options.format { format = f } else { format = try AnalysisOptions.detect(bytes) }
        let imported = try Importer.recording(bytes, as: format, options: options.importOptions)
        let config = try EngineConfig.parse(options.configText(for: imported.report))
        return try run(imported, config: config)
    }

    /// Replays inputs already imported through a new flight with `config`.
    public static func run(_ imported: ImportedRecording, config: EngineConfig) throws(RunwayError) -> RecordingAnalysis {
        guard let first = imported.inputs.first else { throw .input("no timed points") }
        var driver = FlightDriver(config: config)
        driver.core.emitsSnapshots = false
        var events: [Event] = []
        events.reserveCapacity(8)
        var result = RecordingAnalysis(report: imported.report, flight: driver.core)
        if !imported.startsBeforeItsFirstInput {
            try driver.perform(.command(.start, t: first.t), wallClock: .nan, events: &events)
        }
        imported.forEachLine { line in
            result.inputs += 1
            if !events.isEmpty { events.removeAll(keepingCapacity: true) }
            do throws(RunwayError) {
                try driver.perform(line.request(), wallClock: .nan, events: &events)
                result.accepted += 1
            } catch {
                driver.core.logRejection(error, events: &events)
                result.rejected += 1
                if result.firstRejection == nil { result.firstRejection = (result.inputs, error) }
            }
        }
        events.removeAll(keepingCapacity: true)
        try driver.perform(.command(.stop, t: .nan), wallClock: .nan, events: &events)
        result.flight = driver.core
        return result
    }

    /// Writes the result: `{"summary":{...},"report":{...},"inputs":N,"accepted":N,
    /// "rejected":N,"first_rejection":null|{"index":i,"message":"..."}}`. `routePoints` false
    /// leaves the summary's `"route"` array out (its points go as structs: `runway_analyse_route`).
    public func write(to w: inout JSONWriter, route: Bool = true, routePoints: Bool = true) {
        w.beginObject()
        w.key("summary")
        flight.writeSummary(to: &w, includeRoute: route, routePoints: routePoints)
        w.key("report")
        report.write(to: &w)
        w.field("inputs", inputs)
        w.field("accepted", accepted)
        w.field("rejected", rejected)
        w.key("first_rejection")
        if let r = firstRejection {
            w.beginObject()
            w.field("index", r.index)
            w.field("message", r.error.message)
            w.endObject()
        } else {
            w.null()
        }
        w.endObject()
    }
}

/// `runway_analyse`'s options: `{"format":"auto"|"gpx"|"tcx"|"fit","salvage":false,
/// "route":true,"config":{...}}`, every key optional.
public struct AnalysisOptions: Sendable, Equatable {
    /// nil: by the file's first bytes.
    public var format: ImportFormat? = nil
    public var importOptions = ImportOptions()
    /// Whether the summary carries the route.
    public var route = true
    /// The session config as JSON text (nil: the defaults).
    public var configText: String? = nil
    /// What the config names of what a recording's report may set (`ReplayConfig`).
    public var configNames = ReplayConfig.Names()

    public init() {}

    /// Reads the options JSON (nil or empty: the defaults).
    ///
    /// - Throws: `.argument` for an unknown key, a wrong type or format, or a config with a
    ///   store key (`store`, `flight_id`, `durability`) or a live clock (a recording is replayed,
    ///   not journaled).
    public static func parse(_ text: String?) throws(RunwayError) -> AnalysisOptions {
        guard var text, !text.isEmpty else { return AnalysisOptions() }
        var result: Result<AnalysisOptions, RunwayError> = .success(AnalysisOptions())
        text.withUTF8 { buf in
            do throws(RunwayError) {
                result = .success(try JSONInput.withObject(UnsafeRawBufferPointer(buf)) { (root) throws(RunwayError) in
                    try parse(object: root)
                })
            } catch {
                result = .failure(RunwayError(error.status == .limit ? .limit : .argument, "options: \(error.message)"))
            }
        }
        return try result.get()
    }

    static func parse(object root: UnsafeMutablePointer<cJSON>) throws(RunwayError) -> AnalysisOptions {
        var o = AnalysisOptions()
        if let duplicate = JSONInput.duplicateKey(in: root) { throw .argument(duplicate) }
        var child = root.pointee.child
        while let c = child {
            child = c.pointee.next
            let key = c.pointee.string.map { String(cString: $0) } ?? ""
            switch key {
            case "format":
                guard cJSON_IsString(c) != 0, let s = c.pointee.valuestring.map({ String(cString: $0) }) else {
                    throw .argument("\"format\" must be a string")
                }
                if s != "auto" {
                    guard let f = ImportFormat(rawValue: s) else {
                        throw .argument("unknown format \"\(s.prefix(20))\" (expected auto, gpx, tcx or fit)")
                    }
                    o.format = f
                }
            case "salvage", "route":
                guard cJSON_IsBool(c) != 0 else { throw .argument("\"\(key)\" must be true or false") }
                if key == "salvage" { o.importOptions.salvage = cJSON_IsTrue(c) != 0 } else { o.route = cJSON_IsTrue(c) != 0 }
            case "config":
                if cJSON_IsNull(c) != 0 { continue }
                guard cJSON_IsObject(c) != 0, let printed = cJSON_PrintUnformatted(c) else {
                    throw .argument("\"config\" must be an object")
                }
                o.configText = String(cString: printed)
                cJSON_free(printed)
                o.configNames = ReplayConfig.Names(config: c)
                // The store keys: an analysis journals nothing (`flight_id` and `durability`
                // would otherwise be refused as needing a `store`, which is refused here too).
                for storeKey in ["store", "flight_id", "durability"] where cJSON_GetObjectItemCaseSensitive(c, storeKey) != nil {
                    throw .argument("a recording is replayed, not journaled: no \"\(storeKey)\" in its config")
                }
                if let clock = cJSON_GetObjectItemCaseSensitive(c, "clock"), cJSON_IsString(clock) != 0,
                   let s = clock.pointee.valuestring, String(cString: s) != "replay" {
                    throw .argument("a recording is replayed: config \"clock\" must be \"replay\"")
                }
            default:
                throw .argument("unknown key \"\(key.prefix(40))\" (expected format, salvage, route or config)")
            }
        }
        return o
    }

    /// The config text with what the file says added where the config is silent
    /// (`ReplayConfig`: the report's `activity`, its `altitude_source` as `fix_altitude`, and its
    /// `auto_lap_m`, 0 when the file's own laps are replayed).
    func configText(for report: ImportReport) -> String? {
        ReplayConfig.text(configText, names: configNames, settings: ReplayConfig.Settings(report: report))
    }

    /// The format of a recording by its first bytes: a FIT header names ".FIT"; XML with a
    /// `TrainingCenterDatabase` in its first 4 KiB is TCX, with `<gpx` GPX.
    ///
    /// - Throws: `.input` for anything else.
    public static func detect(_ bytes: UnsafeRawBufferPointer) throws(RunwayError) -> ImportFormat {
        if FITReader.hasSignature(bytes, at: 0) { return .fit }
        let head = bytes.prefix(4096)
        var i = head.startIndex
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { i += 3 }
        while i < head.endIndex, JSONInput.isSpace(head[i]) { i += 1 }
        if i < head.endIndex, head[i] == UInt8(ascii: "<") {
            if contains(head, "TrainingCenterDatabase") { return .tcx }
            if contains(head, "<gpx") { return .gpx }
        }
        throw .input("not a GPX, TCX or FIT recording (by its first bytes)")
    }

    private static func contains(_ hay: Slice<UnsafeRawBufferPointer>, _ needle: StaticString) -> Bool {
        needle.withUTF8Buffer { n in
            guard n.count <= hay.count, let first = n.first else { return false }
            var i = hay.startIndex
            while i + n.count <= hay.endIndex {
                if hay[i] == first, hay[i..<(i + n.count)].elementsEqual(n) { return true }
                i += 1
            }
            return false
        }
    }
}
