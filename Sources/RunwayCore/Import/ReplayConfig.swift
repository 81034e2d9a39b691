import CJSON

/// The session config a recording replays with: the host's config with what the file says added
/// where the config is silent — the import report's `activity`, its `altitude_source` as
/// `fix_altitude`, and its `auto_lap_m` (0 when the file's own laps are replayed as lap lines:
/// the flight's laps are then the device's). The one rule of `runway_analyse`
/// (`AnalysisOptions.configText(for:)`) and of `runway_replay_config`, which gives it to a host
/// that imports a recording and replays its lines itself.
///
///     // line: {"type":"import_report","activity":"ride","altitude_source":"barometric","auto_lap_m":0,...}
///     try ReplayConfig.text(reportLine: line, config: #"{"auto_lap_m":500}"#)
///     // {"activity":"ride","fix_altitude":"barometric","auto_lap_m":500}
public enum ReplayConfig {
    /// What an import report says of the session config.
    public struct Settings: Sendable, Equatable {
        public var activity: Activity? = nil
        public var fixAltitude: ElevationTracker.Source? = nil
        public var autoLapM: Int? = nil

        public init(report: ImportReport) {
            activity = report.activity
            fixAltitude = report.altitudeSource
            autoLapM = report.autoLapM
        }

        /// Reads an import report line, `{"type":"import_report",...}` as `runway_import` writes
        /// it (within `maxInputBytes`, as every line it writes is: `ImportReport.write`).
        ///
        /// - Throws: `.json` for text that is not a JSON object (invalid UTF-8 too); `.limit` for
        ///   one over `maxInputBytes` (what `runway_push_jsonl` refuses too) or nested deeper than
        ///   `maxDepth`; `.input` for an object that is not an import
        ///   report, or whose `activity`, `altitude_source` or `auto_lap_m` is not one the report
        ///   writes (a profile, a source, a whole number of metres, or null).
        public init(reportLine bytes: UnsafeRawBufferPointer) throws(RunwayError) {
            do {
                self = try JSONInput.withObject(bytes) { (root) throws(RunwayError) in try Settings(report: root) }
            } catch {
                throw RunwayError(error.status, "report_line: \(error.message)")
            }
        }

        private init(report root: UnsafeMutablePointer<cJSON>) throws(RunwayError) {
            let type = cJSON_GetObjectItemCaseSensitive(root, "type")
            guard let type, cJSON_IsString(type) != 0, let t = type.pointee.valuestring,
                  String(cString: t) == "import_report" else {
                let said = type.map { cJSON_IsString($0) != 0 ? "\"\(Settings.text($0).prefix(40))\"" : JSONInput.typeName($0) }
                throw .input("not an import report: its \"type\" is \(said ?? "missing"), not \"import_report\"")
            }
            activity = try Settings.member(root, "activity", "run, ride, walk")
            fixAltitude = try Settings.member(root, "altitude_source", "gps, barometric")
            if let m = cJSON_GetObjectItemCaseSensitive(root, "auto_lap_m"), cJSON_IsNull(m) == 0 {
                let d = m.pointee.valuedouble
                guard cJSON_IsNumber(m) != 0, d >= 0, d <= 1e15, d == d.rounded(.towardZero) else {
                    throw .input("\"auto_lap_m\" must be a whole number of metres, 0 or more, or null")
                }
                autoLapM = Int(d)
            }
        }

        /// A member that is one of `values` by name; nil when it is absent or null.
        private static func member<T: RawRepresentable>(_ root: UnsafeMutablePointer<cJSON>, _ key: String,
                                                        _ values: String) throws(RunwayError) -> T? where T.RawValue == String {
            guard let v = cJSON_GetObjectItemCaseSensitive(root, key), cJSON_IsNull(v) == 0 else { return nil }
            guard cJSON_IsString(v) != 0, let value = T(rawValue: text(v)) else {
                throw .input("\"\(key)\" must be one of \(values), or null")
            }
            return value
        }

        private static func text(_ item: UnsafeMutablePointer<cJSON>) -> String {
            item.pointee.valuestring.map { String(cString: $0) } ?? ""
        }
    }

    /// Which of the keys a report may set a config names (with any value: then the report does
    /// not set it).
    public struct Names: Sendable, Equatable {
        public var activity = false, fixAltitude = false, autoLap = false
        /// Whether the config has no member at all.
        public var empty = true
        /// The first of those keys the config names as null, which is no value of theirs (nor of
        /// any config key: `runway_session_open` refuses it, and so does `text(reportLine:config:)`).
        public var null: String? = nil

        public init() {}

        public init(config object: UnsafeMutablePointer<cJSON>) {
            activity = cJSON_GetObjectItemCaseSensitive(object, "activity") != nil
            fixAltitude = cJSON_GetObjectItemCaseSensitive(object, "fix_altitude") != nil
            autoLap = cJSON_GetObjectItemCaseSensitive(object, "auto_lap_m") != nil
            empty = object.pointee.child == nil
            // The one the session names first: `activity` (read before the rest), else in order.
            if let a = cJSON_GetObjectItemCaseSensitive(object, "activity"), cJSON_IsNull(a) != 0 {
                null = "activity"
                return
            }
            var item = object.pointee.child
            while let member = item, null == nil {
                if cJSON_IsNull(member) != 0, let k = member.pointee.string,
                   case let key = String(cString: k), key == "fix_altitude" || key == "auto_lap_m" {
                    null = key
                }
                item = member.pointee.next
            }
        }

        /// The refusal of a config naming `null`: `runway_session_open`'s own for it.
        func refusal(of null: String) -> RunwayError {
            do throws(RunwayError) {
                _ = try EngineConfig.parse("{\"\(null)\":null}")
            } catch {
                return error
            }
            return .argument("config: \"\(null)\" must not be null")   // (parse refuses it: not reached)
        }
    }

    /// `config` (a JSON object's text, nil for none; `names` says what it names) with what
    /// `settings` say added before its own members, where it names nothing of theirs: `config`
    /// itself when they add nothing, nil when neither says anything.
    public static func text(_ config: String?, names: Names, settings: Settings) -> String? {
        var entries: [String] = []
        if let activity = settings.activity, !names.activity { entries.append("\"activity\":\"\(activity.rawValue)\"") }
        if let source = settings.fixAltitude, !names.fixAltitude { entries.append("\"fix_altitude\":\"\(source.rawValue)\"") }
        if let m = settings.autoLapM, !names.autoLap { entries.append("\"auto_lap_m\":\(m)") }
        guard !entries.isEmpty else { return config }
        let added = entries.joined(separator: ",")
        guard let config, !names.empty else { return "{\(added)}" }
        // (The config's own text after its "{", as the host wrote it: the first "{" of a text that
        // is a JSON object, after spaces or a byte order mark, which the parser skips.)
        let own = config.utf8.drop { $0 != UInt8(ascii: "{") }.dropFirst()
        return "{\(added)," + String(decoding: own, as: UTF8.self)
    }

    /// `runway_replay_config`: the config an import report line's recording replays with, given
    /// the host's config (nil or empty: none). The config is checked only for being a JSON object
    /// (`runway_session_open` judges the result); a config that is an empty object and a report
    /// that sets nothing give `{}`.
    ///
    /// - Throws: as `Settings(reportLine:)`; `.argument` for a config that is not a JSON object,
    ///   or that names `activity`, `fix_altitude` or `auto_lap_m` as null (with the message
    ///   `runway_session_open` gives for it: null is no value of any config key), `.limit` for
    ///   one over `maxInputBytes` or nested deeper than `maxDepth`.
    public static func text(reportLine: UnsafeRawBufferPointer, config: String?) throws(RunwayError) -> String {
        var names = Names()
        if var config, !config.isEmpty {
            let read: Result<Names, RunwayError> = config.withUTF8 { buf in
                do throws(RunwayError) {
                    return .success(try JSONInput.withObject(UnsafeRawBufferPointer(buf)) { Names(config: $0) })
                } catch {
                    return .failure(RunwayError(error.status == .limit ? .limit : .argument, "config: \(error.message)"))
                }
            }
            names = try read.get()
            // A null activity, fix_altitude or auto_lap_m would keep the report's value out and
            // then fail runway_session_open: refused here with the message the session gives.
            if let null = names.null { throw names.refusal(of: null) }
        }
        let settings = try Settings(reportLine: reportLine)
        let own = names.empty ? nil : config
        return text(own, names: names, settings: settings) ?? "{}"
    }
}
