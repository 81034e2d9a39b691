import Testing
@testable import RunwayCore

/// What each route point carries (and so every export: GPX, TCX, FIT, CSV): its own fix's
/// readings, not the fix's before it.
@Suite("Route points: each carries its own fix's power and speed")
struct RoutePointTests {
    static let t0 = 1_700_000_000.0
    /// Each fix's own Doppler speed (2.5 ... 3.5 m/s) and power (100 ... 299 W): no two fixes in a row alike.
    static func speed(_ k: Int) -> Double { 2.5 + Double(k % 5) * 0.25 }
    static func watts(_ k: Int) -> Double { Double(100 + (k * 37) % 200) }

    struct Flown {
        var route: Route
        var fixes: [Double: Fix] = [:]
        /// The engine's ground speed after each fix (its snapshot's).
        var groundSpeed: [Double: Double] = [:]
    }

    /// A run north at each fix's own speed, with power on every fix; paused by the user from 200 s
    /// to 230.5 s (standing fixes while paused), so the route has two segments; no auto-pause.
    static func flight(filters: Bool) throws -> Flown {
        var config = EngineConfig()
        config.filters = filters
        if !filters { config.distanceFilterM = 0 }
        config.autoPause.enabled = false
        var core = FlightComputer(config: config)
        var events: [Event] = []
        var flown = Flown(route: Route())
        var lat = 52.0
        try core.command(.start, at: t0, wallClock: .nan, events: &events)
        for k in 1...400 {
            let t = t0 + Double(k)
            if k == 201 { try core.command(.pause, at: t0 + 200, wallClock: .nan, events: &events) }
            if k == 231 { try core.command(.resume, at: t0 + 230.5, wallClock: .nan, events: &events) }
            let paused = k > 200 && k <= 230
            if !paused { lat += speed(k) / 111_250 }
            let fix = Fix(t: t, lat: lat, lon: 4, alt: 5, speed: paused ? 0 : speed(k), course: 0, hAcc: 4, power: watts(k))
            try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
            flown.fixes[t] = fix
            flown.groundSpeed[t] = core.snapshot.groundSpeedMps
        }
        try core.command(.stop, at: t0 + 400, wallClock: .nan, events: &events)
        flown.route = core.record.route
        return flown
    }

    static func same(_ a: Double, _ b: Double) -> Bool { a == b || (a.isNaN && b.isNaN) }

    @Test(arguments: [false, true])
    func eachPointCarriesItsOwnFixsPowerAndSpeed(_ filters: Bool) throws {
        let f = try Self.flight(filters: filters)
        #expect(f.route.segmentStarts.count == 2)
        var checked = 0, wrong: [String] = []
        for i in 0..<f.route.count {
            guard let fix = f.fixes[f.route.time(i)] else { continue }   // (a leg's first point at the resume: no fix of its own)
            checked += 1
            let watts = f.route.power(i)
            // Filters off the point's speed is the fix's own; on, the engine's ground speed after that fix.
            let speed = f.route.speedMps(i), want = filters ? f.groundSpeed[fix.t] ?? .nan : fix.speed
            // (stored in whole mm/s); the speed the fix came with, as the exports write it, exactly.
            let close = Self.same(speed, want) || abs(speed - want) <= 0.0005
            if watts != fix.power || !close || !Self.same(f.route.deviceSpeedMps(i), fix.speed) {
                wrong.append("point \(i) (t+\(Int(fix.t - Self.t0))): \(watts) W, \(speed) m/s for \(fix.power) W, \(want) m/s")
            }
        }
        #expect(checked > (filters ? 120 : 360))
        #expect(wrong.count == 0, "of \(checked): \(wrong.prefix(4))")
    }

    /// A ride that stops twice: auto-paused at the first stop (resumed by the ride's own speed),
    /// paused by the user at the second (resumed at a fix's second, and between fixes): no leg
    /// begins with speed 0, the hold's, whether or not the engine has measured one yet.
    @Test(arguments: [false, true])
    func aResumedLegsFirstPointCarriesNoZeroSpeed(_ filters: Bool) throws {
        var config = EngineConfig()
        config.activity = .ride
        config.speedCapMps = Activity.ride.speedCapMps
        config.filters = filters
        config.autoPause = AutoPause.Settings.defaults(for: .ride)
        config.autoPause.enabled = true
        var core = FlightComputer(config: config)
        var events: [Event] = []
        var lat = 52.0
        try core.command(.start, at: Self.t0, wallClock: .nan, events: &events)
        for k in 1...700 {
            let t = Self.t0 + Double(k)
            if k == 401 { try core.command(.pause, at: Self.t0 + 400, wallClock: .nan, events: &events) }
            if k == 460 { try core.command(.resume, at: Self.t0 + 460, wallClock: .nan, events: &events) }
            if k == 560 { try core.command(.pause, at: Self.t0 + 560, wallClock: .nan, events: &events) }
            if k == 601 { try core.command(.resume, at: Self.t0 + 600.5, wallClock: .nan, events: &events) }
            let standing = (150...210).contains(k) || (401...459).contains(k) || (560...600).contains(k)
            if !standing { lat += 6 / 111_250 }
            let fix = Fix(t: t, lat: lat, lon: 4, alt: 5, speed: standing ? 0 : 6, course: 0, hAcc: 4)
            try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
        }
        try core.command(.stop, at: Self.t0 + 700, wallClock: .nan, events: &events)
        let route = core.record.route
        let resumes = route.segmentStarts.dropFirst()
        #expect(resumes.count >= (filters ? 3 : 2), "two user pauses, and filters on an auto-pause: \(route.segmentStarts)")
        let zero = resumes.filter { route.speedMps($0) == 0 }
        #expect(zero.count == 0, "legs beginning with speed 0 at t+\(zero.map { Int(route.time($0) - Self.t0) })")
    }

    /// A start between fixes after standing ones (filters off too): the leg's first point has no
    /// ground speed, not the standing fix's 0; a start at a fix's own time: that point carries
    /// the fix's own speed. Before (a review of the change above), filters off took the 0 from
    /// before the start, and a start or resume at a fix's time wrote no device speed there.
    @Test(arguments: [false, true])
    func aLegsFirstPointCarriesItsOwnSpeedOrNone(_ filters: Bool) throws {
        for startAtAFix in [false, true] {
            var config = EngineConfig()
            config.filters = filters
            config.autoPause.enabled = false
            var core = FlightComputer(config: config)
            var events: [Event] = []
            for k in 0...5 { try core.process(.fix(try Fix(t: Self.t0 + Double(k), lat: 52, lon: 4, speed: k == 5 && startAtAFix ? 2.5 : 0, course: 0, hAcc: 4).validated()), wallClock: .nan, events: &events) }
            try core.command(.start, at: Self.t0 + (startAtAFix ? 5 : 7.5), wallClock: .nan, events: &events)
            for k in 8...40 { try core.process(.fix(try Fix(t: Self.t0 + Double(k), lat: 52 + Double(k) * 3 / 111_250, lon: 4, speed: 3, course: 0, hAcc: 4).validated()), wallClock: .nan, events: &events) }
            try core.command(.stop, at: Self.t0 + 40, wallClock: .nan, events: &events)
            let route = core.record.route
            let what = "filters \(filters), start at a fix \(startAtAFix)"
            try #require(route.count > 0)
            #expect(route.speedMps(0) != 0, "\(what): the leg's first point has ground speed 0")
            if startAtAFix { #expect(route.deviceSpeedMps(0) == 2.5, "\(what): device speed \(route.deviceSpeedMps(0))") }
        }
    }
}
