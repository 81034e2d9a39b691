/// Session settings, from the config JSON given to `runway_session_open`.
///
/// Every key is optional; the activity profile (`run`, `walk`, `ride`) picks the defaults that
/// depend on speed (the gate's speed cap, auto-pause and its thresholds, the moving threshold).
public struct EngineConfig: Sendable, Equatable {
    public enum Clock: String, Sendable { case replay, live }

    /// `replay`: times come from the inputs (deterministic); `live`: the wall clock when omitted.
    public var clock: Clock = .replay
    /// The activity profile.
    public var activity: Activity = .run
    /// `false` (`"filters":"off"`): raw accumulation — every valid fix counts, distance is the sum
    /// of geodesic distances between kept points (for comparison and tests).
    public var filters = true
    /// A fix closer than this to the last kept point is not kept as a route point (metres).
    public var distanceFilterM: Double = 5
    /// The gate: fixes with a worse horizontal accuracy are filtered (metres).
    public var requiredAccuracyM: Double = 50
    /// Window for the current pace (seconds).
    public var paceWindowS: Double = 10
    /// A gap without fixes longer than this starts a new route segment (seconds), unless it is
    /// the recorder's own rhythm (`FixCadence`: a fix every 30 s or more).
    public var gapS: Double = 30
    /// A jump longer than this starts a new route segment (metres), the same.
    public var jumpM: Double = 200
    /// Whether the straight-line distance across a gap or jump counts (as devices do); a gap in
    /// the recorder's own rhythm counts either way.
    public var countGaps = true
    /// The gate's implied-speed cap (m/s); defaults by activity.
    public var speedCapMps: Double
    /// Auto-pause; defaults by activity.
    public var autoPause: AutoPause.Settings
    /// Auto-lap distance (metres; 0 = off).
    public var autoLapM: Double = 1000
    /// Maximum heart rate for the zones.
    public var hrMax: Double = 190
    /// The smallest climb or descent of GPS altitude that counts (metres; a third of it for a
    /// barometric altitude).
    public var elevationHysteresisM: Double = 3
    /// The least position noise the track filter assumes for a fix (metres, `"position_sigma_m"`;
    /// a fix's `h_acc` when that is larger). 3 m suits receivers whose error wanders by metres;
    /// positions known to be cleaner (a planned route, a survey receiver, a generated track) can
    /// say so, and the filter then cuts street corners less (docs/accuracy.md, "Position noise").
    public var positionSigmaM: Double = 3
    /// Where fixes' `alt` comes from: GPS (the default) or the device's barometric altimeter
    /// (`"fix_altitude":"barometric"`, as watch recordings carry it; see the import report's
    /// `altitude_source`).
    public var fixAltitude: ElevationTracker.Source = .gps
    /// GPWS and MINIMUMS.
    public var alerts = AlertMonitor.Settings()
    /// Tolerance of the simplified route in the summary (Ramer–Douglas–Peucker, metres).
    public var simplifyM: Double = 2
    /// The SQLite store that journals the flight (nil: none).
    public var storePath: String? = nil
    /// "every_fix" (durable when the call returns) or "batched" (within about a second).
    public var durability = "every_fix"
    /// The flight's id in the store (nil: generated).
    public var flightID: String? = nil
    /// The most points the route keeps (`"max_route_points"`, 1...`maxRoutePointsLimit`): once
    /// the route is full, a fix that would add a point is refused.
    public var maxRoutePoints = EngineConfig.maxRoutePointsLimit
    /// The standing-still decision's settings (no config key): the same for every activity,
    /// since standing noise is the receiver's, not the activity's.
    var stillness = StillnessDetector.Settings()

    /// The shortest auto-lap distance, metres (`"auto_lap_m"` is 0 or at least this).
    public static let minAutoLapM = 10.0

    /// The largest and default `"max_route_points"`: `RUNWAY_MAX_ROUTE_POINTS`.
    public static let maxRoutePointsLimit = 1_000_000

    public init(activity: Activity = .run) {
        self.activity = activity
        speedCapMps = activity.speedCapMps
        autoPause = AutoPause.Settings.defaults(for: activity)
    }

    /// Where a config comes from, for the store keys (`store`, `flight_id`, `durability`).
    public enum Use: Sendable {
        /// `runway_session_open` (and a recording's analysis): `flight_id` and `durability`
        /// without `store` have no effect, so they are argument errors.
        case open
        /// `runway_session_recover`'s config: the store and the flight are its arguments, so
        /// `store` and `flight_id` are argument errors; `durability` applies to the recovered
        /// session's journal.
        case recover
        /// A flight's own config as the store kept it (the open config that journaled it).
        case stored
    }

    /// Reads a config JSON object; nil or empty text gives the defaults.
    ///
    /// Unknown keys, wrong types and out-of-range values are argument errors (they are typos),
    /// as are store keys that would have no effect (`Use`).
    public static func parse(_ text: String?, for use: Use = .open) throws(RunwayError) -> EngineConfig {
        guard let text, !text.isEmpty else { return EngineConfig() }
        let object: [(key: String, value: JSONValue)]
        do { object = try JSONInput.object(text) } catch {
            throw RunwayError(error.status == .limit ? .limit : .argument, "config: \(error.message)")
        }
        // One value a key: a duplicate is a mistake whichever copy would win. (A stored config
        // replays as it was journaled: the last copy of a key won, but the first `activity`.)
        if use != .stored, let duplicate = JSONInput.duplicateKey(in: object, text: text) {
            throw .argument("config: \(duplicate)")
        }
        // The activity first: other defaults depend on it.
        var config = EngineConfig()
        if let a = object.first(where: { $0.key == "activity" }) {
            guard case .string(let s) = a.value, let activity = Activity(rawValue: s) else {
                throw .argument("config: \"activity\" must be one of \(Activity.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            config = EngineConfig(activity: activity)
        }
        var sawFilter = false, sawAccuracy = false
        var storeKeyWithoutStore: String? = nil
        for (key, value) in object {
            if use == .recover, key == "store" || key == "flight_id" {
                throw .argument("config: \"\(key)\" is not a recover config key (the store and the flight are runway_session_recover's arguments)")
            }
            if use == .open, key == "flight_id" || key == "durability" { storeKeyWithoutStore = storeKeyWithoutStore ?? key }
            switch key {
            case "activity": break
            case "clock":
                guard case .string(let s) = value, let c = Clock(rawValue: s) else {
                    throw .argument("config: \"clock\" must be \"replay\" or \"live\"")
                }
                config.clock = c
            case "filters":
                guard case .string(let s) = value, s == "on" || s == "off" else {
                    throw .argument("config: \"filters\" must be \"on\" or \"off\"")
                }
                config.filters = s == "on"
            case "distance_filter_m": config.distanceFilterM = try number(value, key, 0...1000); sawFilter = true
            case "required_accuracy_m": config.requiredAccuracyM = try number(value, key, 0.1...100_000); sawAccuracy = true
            case "pace_window_s": config.paceWindowS = try number(value, key, 1...600)
            case "gap_s": config.gapS = try number(value, key, 1...86_400)
            case "jump_m": config.jumpM = try number(value, key, 1...1_000_000)
            case "count_gaps": config.countGaps = try bool(value, key)
            case "speed_cap_mps": config.speedCapMps = try number(value, key, 0.5...1000)
            case "auto_pause": config.autoPause.enabled = try bool(value, key)
            case "auto_lap_m":
                // 0 turns auto laps off; below 10 m a lap is noise, and a tiny distance would cut
                // thousands of laps a fix (found by fuzzing: 0.0008 m took seconds and gigabytes).
                let m = try number(value, key, 0...1_000_000)
                guard m == 0 || m >= EngineConfig.minAutoLapM else {
                    throw .argument("config: \"auto_lap_m\" must be 0 (off) or \(Int(EngineConfig.minAutoLapM))...1000000 metres")
                }
                config.autoLapM = m
            case "hr_max": config.hrMax = try number(value, key, 60...260)
            case "simplify_m": config.simplifyM = try number(value, key, 0...10_000)
            case "store":
                guard case .string(let path) = value, !path.isEmpty, path.utf8.count < 4096 else {
                    throw .argument("config: \"store\" must be a file path")
                }
                config.storePath = path
            case "durability":
                guard case .string(let d) = value, d == "every_fix" || d == "batched" else {
                    throw .argument("config: \"durability\" must be \"every_fix\" or \"batched\"")
                }
                config.durability = d
            case "flight_id":
                guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= 128,
                      id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
                    throw .argument("config: \"flight_id\" must be 1 to 128 visible characters")
                }
                config.flightID = id
            case "max_route_points":
                guard let n = value.finiteNumber, n == n.rounded(), n >= 1 else {
                    throw .argument("config: \"max_route_points\" must be an integer in 1...\(maxRoutePointsLimit)")
                }
                guard n <= Double(maxRoutePointsLimit) else {
                    throw .limit("config: \"max_route_points\" \(JSONInput.integerText(n)) exceeds the limit of \(maxRoutePointsLimit) points (RUNWAY_MAX_ROUTE_POINTS)")
                }
                config.maxRoutePoints = Int(n)
            case "elevation_hysteresis_m": config.elevationHysteresisM = try number(value, key, 0...100)
            case "position_sigma_m": config.positionSigmaM = try number(value, key, 0.1...100)
            case "fix_altitude":
                guard case .string(let s) = value, let source = ElevationTracker.Source(rawValue: s) else {
                    throw .argument("config: \"fix_altitude\" must be \"gps\" or \"barometric\"")
                }
                config.fixAltitude = source
            case "target_pace":
                if case .object(let o) = value, let unknown = o.keys.filter({ $0 != "min" && $0 != "max" }).min() {
                    throw .argument("config: unknown key \"\(unknown.prefix(60))\" in \"target_pace\" (expected min and max)")
                }
                guard case .object(let o) = value, let lo = o["min"]?.finiteNumber, let hi = o["max"]?.finiteNumber, lo > 0, hi >= lo, hi <= 100 else {
                    throw .argument("config: \"target_pace\" must be {\"min\":M,\"max\":N} in min/km with 0 < min <= max")
                }
                config.alerts.targetPaceMin = lo
                config.alerts.targetPaceMax = hi
            case "target_power":
                if case .object(let o) = value, let unknown = o.keys.filter({ $0 != "min" && $0 != "max" }).min() {
                    throw .argument("config: unknown key \"\(unknown.prefix(60))\" in \"target_power\" (expected min and max)")
                }
                guard case .object(let o) = value, let lo = o["min"]?.finiteNumber, let hi = o["max"]?.finiteNumber,
                      lo >= 0, hi >= lo, hi > 0, hi <= 5000 else {
                    throw .argument("config: \"target_power\" must be {\"min\":W,\"max\":W} in watts with 0 <= min <= max <= 5000, max > 0")
                }
                config.alerts.targetPowerMin = lo
                config.alerts.targetPowerMax = hi
            case "hr_ceiling": config.alerts.hrCeiling = try number(value, key, 1...300)
            case "goal_m": config.alerts.goalM = try number(value, key, 1...10_000_000)
            case "minimums_m":
                guard case .array(let list) = value else { throw .argument("config: \"minimums_m\" must be an array of distances") }
                var marks: [Double] = []
                for item in list {
                    guard let m = item.finiteNumber, m > 0, m <= 10_000_000 else {
                        throw .argument("config: \"minimums_m\" must hold positive distances in metres")
                    }
                    marks.append(m)
                }
                config.alerts.marksM = marks
            default:
                throw .argument("config: unknown key \"\(key.prefix(60))\"")
            }
        }
        if let key = storeKeyWithoutStore, config.storePath == nil {
            throw .argument("config: \"\(key)\" needs \"store\" (without a store nothing is journaled)")
        }
        if !config.filters {
            // Raw accumulation: every valid fix counts unless the host said otherwise.
            if !sawFilter { config.distanceFilterM = 0 }
            if !sawAccuracy { config.requiredAccuracyM = 100_000 }
        }
        return config
    }

    static func number(_ v: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws(RunwayError) -> Double {
        guard let d = v.finiteNumber, range.contains(d) else {
            throw .argument("config: \"\(key)\" must be a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return d
    }

    static func bool(_ v: JSONValue, _ key: String) throws(RunwayError) -> Bool {
        guard case .bool(let b) = v else { throw .argument("config: \"\(key)\" must be true or false") }
        return b
    }

    /// The gate's settings from this config.
    var gateSettings: FixGate.Settings {
        var g = FixGate.Settings()
        g.maxHAccM = requiredAccuracyM
        g.speedCapMps = speedCapMps
        g.gapS = gapS
        g.jumpM = jumpM
        return g
    }


    /// The track filter's settings for this activity.
    var trackSettings: TrackFilter.Settings {
        var t = TrackFilter.Settings()
        t.speedCapMps = speedCapMps
        t.minPositionSigmaM = positionSigmaM
        switch activity {
        case .run: break
        case .walk: t.movingSpeedMps = 0.6; t.stationaryDopplerMps = 0.3
        case .ride: t.movingSpeedMps = 1.5; t.stationaryDopplerMps = 0.8; t.accelerationSigma = 0.6
        }
        return t
    }
}
