/// The fields of one input as read from a JSON object, before validation: what both JSON paths
/// (cJSON's tree and `FlatInputParser`'s single pass) fill, and the one place that turns them
/// into a `ValidatedInput`, so the two cannot differ past reading.
///
///     var f = InputFields()
///     f.set(InputFields.lat, 52); f.set(InputFields.lon, 4)
///     try f.finish(.fix)   // a validated fix at 52, 4
struct InputFields {
    /// The slots of the known keys (the order the decoders name them in).
    static let lat = 0, lon = 1, t = 2, alt = 3, speed = 4, course = 5, hAcc = 6, vAcc = 7, hr = 8,
               cadence = 9, bpm = 10, spm = 11, power = 12, watts = 13

    var fix = Fix(lat: .nan, lon: .nan)
    var bpm = Double.nan, spm = Double.nan, watts = Double.nan
    var sawLat = false, sawLon = false

    /// Sets the value of slot `slot` (a number, or NaN for null).
    @inline(__always)
    mutating func set(_ slot: Int, _ v: Double) {
        switch slot {
        case 0: fix.lat = v; sawLat = true
        case 1: fix.lon = v; sawLon = true
        case 2: fix.t = v
        case 3: fix.alt = v
        case 4: fix.speed = v
        case 5: fix.course = v
        case 6: fix.hAcc = v
        case 7: fix.vAcc = v
        case 8: fix.hr = v
        case 9: fix.cadence = v
        case 10: bpm = v
        case 11: spm = v
        case 12: fix.power = v
        default: watts = v
        }
    }

    /// The validated input of kind `kind`; nil for an import report.
    func finish(_ kind: InputKind) throws(RunwayError) -> ValidatedInput? {
        switch kind {
        case .fix:
            guard sawLat, sawLon, !fix.lat.isNaN, !fix.lon.isNaN else {
                throw .input(sawLat || sawLon ? "fix needs both lat and lon" : "fix needs lat and lon (or a \"type\")")
            }
            return try ValidatedInput(.fix(fix))
        case .hr: return try ValidatedInput(.sample(.heartRate(bpm: bpm, t: fix.t)))
        case .cadence: return try ValidatedInput(.sample(.cadence(spm: spm, t: fix.t)))
        case .altimeter: return try ValidatedInput(.sample(.altimeter(alt: fix.alt, t: fix.t)))
        case .power: return try ValidatedInput(.sample(.power(watts: watts, t: fix.t)))
        case .importReport: return nil
        }
    }
}

/// What an input object's `"type"` names (none: a fix).
enum InputKind {
    case fix, hr, cadence, altimeter, power, importReport

    /// The kind a `"type"` string names (nil: no type), or `.input` for an unknown one.
    init(type: String?) throws(RunwayError) {
        switch type {
        case nil, "fix", "location": self = .fix
        case "hr": self = .hr
        case "cadence": self = .cadence
        case "altimeter": self = .altimeter
        case "power": self = .power
        case "import_report": self = .importReport
        case let other?:
            throw .input("unknown input type \"\(other.prefix(40))\" (expected fix, hr, cadence, altimeter or power)")
        }
    }
}
