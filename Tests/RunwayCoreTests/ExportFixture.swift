import Testing
@testable import RunwayCore
import RunwaySim

/// Flights made by driving a FlightComputer, as a session does.
enum ExportFixture {
    /// A simulated 2.6 km flight: 1 Hz fixes starting at a fractional second, heart rate and
    /// (odd and even) cadence on every fix, a 40 s gap in the fixes (a second route segment),
    /// auto laps every 1000 m and a manual lap after fix 450.
    ///
    /// - Parameters:
    ///   - filters: false for raw accumulation with no distance filter (every fix kept, the
    ///     distance the geodesic sum of the route).
    ///   - stop: false leaves the flight in the air (the lap in progress is unfinished).
    ///   - gap: fix indices left out.
    static func simulated(activity: Activity = .run, lat: Double = 52.37, lon: Double = 4.89,
                          filters: Bool = true, stop: Bool = true, sensors: Bool = true,
                          gap: Range<Int>? = 150..<190, manualLapAfter: Int? = 450,
                          lengthM: Double = 2600) throws -> FlightRecord {
        var sc = SimConfig()
        sc.seed = 7
        sc.startT = 1_700_000_000.25
        sc.centerLat = lat
        sc.centerLon = lon
        sc.loopLengthM = lengthM
        sc.paceMinPerKm = activity == .ride ? 2.0 : 5.0
        let run = simulate(sc)
        var config = EngineConfig()
        config.activity = activity
        config.speedCapMps = activity.speedCapMps
        if !filters {
            config.filters = false
            config.distanceFilterM = 0
        }
        var core = FlightComputer(config: config)
        var events: [Event] = []
        guard let first = run.fixes.first, let last = run.fixes.last else { return core.record }
        try core.command(.start, at: first.t, wallClock: .nan, events: &events)
        for (i, f) in run.fixes.enumerated() where !(gap?.contains(i) ?? false) {
            let fix = Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc,
                          hr: sensors ? 120 + Double(i) * 0.05 : .nan,
                          cadence: sensors ? 170 + Double(i % 7) : .nan)
            try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
            if i == manualLapAfter { try core.lap(at: f.t, wallClock: .nan, events: &events) }
        }
        if stop { try core.command(.stop, at: last.t, wallClock: .nan, events: &events) }
        var record = core.record
        record.flightID = "flight-\(activity.rawValue)"
        return record
    }

    /// A flight from JSON Lines fixes (a real recording's `fixes/*.jsonl`), raw accumulation
    /// with no distance filter; nil when a line is refused.
    static func replay(jsonl: [UInt8], id: String) throws -> FlightRecord? {
        var config = EngineConfig()
        config.filters = false
        config.distanceFilterM = 0
        var d = Driver(config)
        var started = false
        var lastT = Double.nan
        for line in jsonl.split(separator: 0x0A) where !line.isEmpty {
            let text = String(decoding: line, as: UTF8.self)
            guard (try? JSONInput.object(text)) != nil else { return nil }
            if !started {
                guard case .number(let t)? = (try JSONInput.object(text)).first(where: { $0.key == "t" })?.value else { return nil }
                try d.phase(.start, t)
                started = true
            }
            do { try d.json(text) } catch { return nil }
            lastT = d.core.now
        }
        if started { try d.phase(.stop, lastT) }
        var record = d.core.record
        record.flightID = id
        return record
    }

    /// The geodesic length of the route (the engine's WGS84 distance between consecutive points),
    /// within segments, and with the straight lines across the gaps between them.
    static func routeLength(_ r: Route) -> (withinSegments: Double, bridged: Double) {
        var within = 0.0, bridged = 0.0
        guard r.count > 1 else { return (0, 0) }
        for i in 1..<r.count {
            let d = Geodesy.distance(lat1: r.latitude(i - 1), lon1: r.longitude(i - 1), lat2: r.latitude(i), lon2: r.longitude(i))
            bridged += d
            if r.segment(of: i) == r.segment(of: i - 1) { within += d }
        }
        return (within, bridged)
    }
}
