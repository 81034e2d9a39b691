@testable import RunwayCore

/// Drives a FlightComputer like a host would, collecting its events.
struct Driver {
    var core: FlightComputer
    var events: [Event] = []

    init(_ config: EngineConfig = EngineConfig()) { core = FlightComputer(config: config) }

    static func config(filter: Double = 5, accuracy: Double = 50, clock: EngineConfig.Clock = .replay,
                       filters: Bool = true) -> EngineConfig {
        var c = EngineConfig()
        c.filters = filters
        c.distanceFilterM = filter
        c.requiredAccuracyM = accuracy
        c.clock = clock
        return c
    }

    mutating func json(_ text: String, wallClock: Double = .nan) throws(RunwayError) {
        var copy = text
        var decoded: Result<Input, RunwayError> = .failure(RunwayError(.internal, "unset"))
        copy.withUTF8 { buf in
            do throws(RunwayError) { decoded = .success(try InputDecoder.decode(UnsafeRawBufferPointer(buf)).input) }
            catch { decoded = .failure(error) }
        }
        try core.process(try decoded.get(), wallClock: wallClock, events: &events)
    }

    mutating func fix(_ t: Double, _ lat: Double, _ lon: Double, speed: Double = .nan, course: Double = .nan,
                      hAcc: Double = .nan, alt: Double = .nan) throws(RunwayError) {
        let f = try Fix(t: t, lat: lat, lon: lon, alt: alt, speed: speed, course: course, hAcc: hAcc).validated()
        try core.process(.fix(f), wallClock: .nan, events: &events)
    }

    mutating func phase(_ c: PhaseCommand, _ t: Double = .nan) throws(RunwayError) {
        try core.command(c, at: t, wallClock: .nan, events: &events)
    }

    var snapshot: FlightData { core.snapshot }

    /// The snapshot as JSON (NaN fields make FlightData values compare unequal to themselves).
    var snapshotJSON: String {
        var w = JSONWriter()
        core.snapshot.write(to: &w)
        return w.text
    }

    func kinds() -> [EventKind] { events.map(\.kind) }
}

/// Metres north per degree of latitude near `lat` (good enough to place test points).
func degreesNorth(_ metres: Double) -> Double { metres / 111_250 }

/// Metres east per degree of longitude at 52° N (good enough to place test points).
func degreesEast(_ metres: Double) -> Double { metres / (111_320 * 0.61566) }

extension FlightComputer {
    /// Tests push plain inputs: each is validated first, as every host does.
    mutating func process(_ input: Input, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        try process(try ValidatedInput(input), wallClock: wallClock, events: &events)
    }
}
