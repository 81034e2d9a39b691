@testable import RunwayCore

/// Flights made for the timer, cadence and power conventions: whole-second times (FIT counts
/// whole seconds), a straight line north at 3 m/s.
enum TimerFixture {
    static let t0 = 1_700_000_000.0

    /// Fixes every second over `seconds` (relative to t0), `moving` at 3 m/s (else standing).
    struct Leg { var seconds: ClosedRange<Int>; var moving: Bool }

    /// A flight: start at t0, then `script` (fixes, pauses and resumes), stop at the end.
    static func flight(activity: Activity = .run, autoPause: Bool? = nil, cadence: (Int) -> Double = { 170 + Double($0 % 7) },
                       _ script: [Step]) throws -> FlightRecord {
        var config = EngineConfig()
        config.activity = activity
        config.speedCapMps = activity.speedCapMps
        var settings = AutoPause.Settings.defaults(for: activity)
        if let autoPause { settings.enabled = autoPause }
        config.autoPause = settings
        var core = FlightComputer(config: config)
        var events: [Event] = []
        var lat = 52.0
        try core.command(.start, at: t0, wallClock: .nan, events: &events)
        for step in script {
            switch step {
            case .fixes(let range, let moving):
                for k in range {
                    if moving { lat += 3 / 111_250 }
                    let fix = Fix(t: t0 + Double(k), lat: lat, lon: 4, alt: 5, speed: moving ? 3 : 0, hAcc: 4,
                                  hr: 140, cadence: cadence(k))
                    try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
                }
            case .paced(let range, let mps):
                for k in range {
                    lat += mps(k) / 111_250
                    let fix = Fix(t: t0 + Double(k), lat: lat, lon: 4, alt: 5, hAcc: 4, hr: 140, cadence: cadence(k))
                    try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
                }
            case .command(let c, let at):
                try core.command(c, at: t0 + Double(at), wallClock: .nan, events: &events)
            case .lap(let at):
                try core.lap(at: t0 + Double(at), wallClock: .nan, events: &events)
            case .gap(let range):
                lat += Double(range.count) * 3 / 111_250
            }
        }
        return core.record
    }

    enum Step {
        case fixes(ClosedRange<Int>, moving: Bool)
        /// Fixes every second, `mps(k)` m/s north, without a Doppler speed (as a TCX or GPX has them).
        case paced(ClosedRange<Int>, mps: (Int) -> Double)
        case command(PhaseCommand, Int)
        /// A manual lap at this second.
        case lap(Int)
        /// No fix over these seconds while the runner goes on at 3 m/s (a GPS gap).
        case gap(ClosedRange<Int>)
    }

    /// Paused twice by the user, stopped moving: legs 0-300, 360-700, 750-1000 (890 s of timer).
    static func userPaused(activity: Activity = .run) throws -> FlightRecord {
        try flight(activity: activity, autoPause: false, [
            .fixes(1...300, moving: true), .command(.pause, 300), .fixes(301...360, moving: true),
            .command(.resume, 360), .fixes(361...700, moving: true), .command(.pause, 700),
            .command(.resume, 750), .fixes(751...1000, moving: true), .command(.stop, 1000),
        ])
    }

    /// The same route with `power(i)` watts at point i, every other value kept.
    static func withPower(_ r: FlightRecord, _ power: (Int) -> Double) -> FlightRecord {
        var route = Route()
        let starts = Set(r.route.segmentStarts)
        for i in 0..<r.route.count {
            if starts.contains(i) { route.beginSegment() }
            route.append(lat: r.route.latitude(i), lon: r.route.longitude(i), alt: r.route.altitude(i), t: r.route.time(i),
                         distanceM: r.route.distanceM(i), speedMps: r.route.speedMps(i), deviceSpeedMps: r.route.deviceSpeedMps(i), hr: r.route.heartRate(i),
                         cadence: r.route.cadence(i), power: power(i))
        }
        var out = r
        out.route = route
        return out
    }
}
