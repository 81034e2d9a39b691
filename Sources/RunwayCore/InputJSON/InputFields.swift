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

    /// The value of each slot (NaN: absent or null), in slot order.
    var values: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
                 Double, Double) = (.nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan)
    /// The number slots set, bit `slot` each.
    var seen: UInt16 = 0

    /// Sets the value of slot `slot` (a number, or NaN for null).
    @inline(__always)
    mutating func set(_ slot: Int, _ v: Double) {
        seen |= 1 << UInt16(truncatingIfNeeded: slot)
        store(slot, v)
    }

    /// Sets the value of slot `slot` without marking it seen (the caller keeps `seen`); false
    /// (and nothing set) when `slot` is no number slot.
    @inline(__always) @discardableResult
    mutating func store(_ slot: Int, _ v: Double) -> Bool {
        guard UInt(bitPattern: slot) < 14 else { return false }
        withUnsafeMutableBytes(of: &values) { $0.storeBytes(of: v, toByteOffset: slot &* 8, as: Double.self) }
        return true
    }

    var fix: Fix {
        Fix(t: values.2, lat: values.0, lon: values.1, alt: values.3, speed: values.4, course: values.5,
            hAcc: values.6, vAcc: values.7, hr: values.8, cadence: values.9, power: values.12)
    }

    /// The request a line of kind `kind` makes: a validated input, a start, pause or resume, or a
    /// lap at `t` (NaN: now); nil for an import report.
    @inline(__always)
    func finish(_ kind: InputKind) throws(RunwayError) -> FlightDriver.Request? {
        switch kind {
        case .fix:
            let sawLat = seen & 1 != 0, sawLon = seen & 2 != 0
            guard sawLat, sawLon, !values.0.isNaN, !values.1.isNaN else {
                throw .input(sawLat || sawLon ? "fix needs both lat and lon" : "fix needs lat and lon (or a \"type\")")
            }
            return .input(try ValidatedInput(.fix(fix)))
        case .hr: return .input(try ValidatedInput(.sample(.heartRate(bpm: values.10, t: values.2))))
        case .cadence: return .input(try ValidatedInput(.sample(.cadence(spm: values.11, t: values.2))))
        case .altimeter: return .input(try ValidatedInput(.sample(.altimeter(alt: values.3, t: values.2))))
        case .power: return .input(try ValidatedInput(.sample(.power(watts: values.13, t: values.2))))
        case .speed: return .input(try ValidatedInput(.sample(.speed(mps: values.4, t: values.2))))
        case .start: return .command(.start, t: values.2)
        case .pause: return .command(.pause, t: values.2)
        case .resume: return .command(.resume, t: values.2)
        case .lap: return .lap(t: values.2)
        case .deviceLap: return .deviceLap(t: values.2)
        case .importReport: return nil
        }
    }
}

/// What an input object's `"type"` names (none: a fix).
enum InputKind: CaseIterable {
    case fix, hr, cadence, altimeter, power, speed, importReport
    /// A timer command in the stream (a recording's timer start before its first input, its
    /// stops and restarts): `runway_start`, `runway_pause` and `runway_resume` at the line's `t`.
    case start, pause, resume
    /// A lap mark in the stream: `runway_lap` at the line's `t`.
    case lap
    /// A recording's device lap (each lap's start after the first, as `runway_import` writes
    /// them): the lap at the line's `t` while auto laps are off (`FlightDriver.Request.deviceLap`).
    case deviceLap

    /// The kind's `"type"` name (a fix's: `fix`), as an unknown key's warning names it.
    var name: String {
        switch self {
        case .fix: return "fix"
        case .hr: return "hr"
        case .cadence: return "cadence"
        case .altimeter: return "altimeter"
        case .power: return "power"
        case .speed: return "speed"
        case .importReport: return "import_report"
        case .start: return "start"
        case .pause: return "pause"
        case .resume: return "resume"
        case .lap: return "lap"
        case .deviceLap: return "device_lap"
        }
    }

    /// The kind a `"type"` string names (nil: no type; `location` is a fix too), or `.input` for
    /// an unknown one. The names are `name`'s: one table for both ways.
    init(type: String?) throws(RunwayError) {
        guard let type, type != "location" else { self = .fix; return }
        for kind in InputKind.allCases where kind.name == type {
            self = kind
            return
        }
        throw .input("unknown input type \"\(type.prefix(40))\" (expected \(InputKind.expected))")
    }

    /// The types a host sends, as the unknown type's message lists them (`import_report` is the
    /// library's own line: it is read, but never asked for).
    private static let expected: String = {
        let names = allCases.filter { $0 != .importReport }.map(\.name)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }()
}
