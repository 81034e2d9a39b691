import Testing
@testable import RunwayCore

/// `target_power` at a stop with auto-pause: the power alerts wait while auto-pause judges a stand.
@Suite("A power alert at a stop does not hang on the order of a second's inputs")
struct PowerAlertAtAStopTests {
    /// A ride at 8 m/s (auto-pause on, the ride profile), 1 Hz fixes with Doppler and 1 Hz power
    /// samples of the same times, 250 W; the rider stops pedalling at 98 s, stands from 100 s to
    /// 130 s (0 W), then rides on at 250 W. `target_power` 200–400 W. Auto-pause is decided at the
    /// fix of 103 s (backdated: 131 s elapsed of 160). `powerFirst`: each second's power sample
    /// comes before its fix (a phone getting the meter's sample a few ms before the GPS fix),
    /// else after it. The ride is the same; its alerts should be too. Before: with the power first,
    /// GPWS_POWER_LOW at 103 s (held 5 s, from 98 s, though the hold, backdated, takes 101–103 s:
    /// 3 s of it in cruise); with the fix first, none.
    static func alerts(powerFirst: Bool) throws -> [String] {
        let d = try ride(powerFirst: powerFirst, speed: { $0 < 100 || $0 >= 130 ? 8 : 0 }, watts: { $0 < 98 || $0 >= 130 ? 250 : 0 })
        #expect(d.core.elapsed < 135, "auto-paused at the stop: \(d.core.elapsed) s elapsed")
        return alerts(of: d)
    }

    /// A ride of 160 s (auto-pause on, the ride profile, `target_power` 200–400 W): a fix a second
    /// north at `speed(i)` m/s (its Doppler speed the same) and a power sample of `watts(i)` W of
    /// the same time, before the fix (`powerFirst`) or after it.
    static func ride(powerFirst: Bool, speed: (Int) -> Double, watts: (Int) -> Int) throws -> Driver {
        var d = try startedRide()
        var north = 0.0
        for i in 0...160 {
            let t = Double(i), v = speed(i)
            north += v
            let power = "{\"type\":\"power\",\"watts\":\(watts(i)),\"t\":\(t)}"
            if powerFirst { try d.json(power) }
            try d.fix(t, 31.2 + degreesNorth(north), 121.5, speed: v, hAcc: 4)
            if !powerFirst { try d.json(power) }
        }
        return d
    }

    /// The ride profile's flight (auto-pause on, no auto laps), `target_power` 200–400 W, started at 0 s.
    static func startedRide() throws -> Driver {
        var c = EngineConfig(activity: .ride)
        c.autoLapM = 0
        c.alerts.targetPowerMin = 200
        c.alerts.targetPowerMax = 400
        var d = Driver(c)
        try d.phase(.start, 0)
        return d
    }

    /// The flight's alerts: code, time and hold.
    static func alerts(of d: Driver) -> [String] {
        d.events.compactMap { e -> String? in
            if case .alert(let a) = e.body { return "\(a.code) at \(e.t) held \(a.values["held_s"] ?? .nan)" } else { return nil }
        }
    }

    @Test func theSameRideGivesTheSameAlertsWhateverTheOrderOfASecondsInputs() throws {
        let first = try Self.alerts(powerFirst: true), after = try Self.alerts(powerFirst: false)
        #expect(first == after, "power before the fix: \(first); after it: \(after)")
        #expect(after.isEmpty, "in the band until the rider stopped: \(after)")
    }
}

/// The edges of auto-pause's slow hold: the fix that begins it and the one that ends it.
extension PowerAlertAtAStopTests {
    /// `ride`'s alerts, each second's power sample before its fix (`powerFirst`) or after it:
    /// the ride is the same either way, and its alerts should be too.
    static func alerts(powerFirst: Bool, speed: (Int) -> Double, watts: (Int) -> Int) throws -> [String] {
        alerts(of: try ride(powerFirst: powerFirst, speed: speed, watts: watts))
    }

    /// The stop ride (8 m/s, standing 100–130 s: auto-pause from the first slow fix, 100 s), but
    /// the rider stops pedalling at `dropAt` (0 W), some seconds before it: the alerts' 5 s hold
    /// may complete at any second, that fix's too. A sample judged as it came (review h98) gave
    /// GPWS_POWER_LOW at 100 s for a drop at 95 s with the power first, none with the fix first
    /// (it began the slow hold); judged as its second ended, neither.
    @Test(arguments: Array(90...99))
    func powerAlertsAtTheFirstSlowFixDoNotHangOnTheInputOrder(dropAt: Int) throws {
        let speed = { (i: Int) in i < 100 || i >= 130 ? 8.0 : 0 }, watts = { (i: Int) in i < dropAt || i >= 130 ? 250 : 0 }
        let first = try Self.alerts(powerFirst: true, speed: speed, watts: watts)
        let after = try Self.alerts(powerFirst: false, speed: speed, watts: watts)
        #expect(first == after, "drop at \(dropAt) s: power before the fix: \(first); after it: \(after)")
    }

    /// A ride at 8 m/s that slows to 0.5 m/s for two fixes (100 and 101 s: a track stand at a
    /// light that turns green, shorter than auto-pause's 3 s hold) and rides on; 0 W from
    /// `dropAt` to 110 s. No pause comes. The fix of 102 s ends the slow hold: a sample judged as
    /// it came was not judged with the power first (the hold still ran), and was with the fix
    /// first: the alert at 100 or 103 s against 102 s.
    @Test(arguments: Array(93...99))
    func powerAlertsAtTheEndOfABriefSlowingDoNotHangOnTheInputOrder(dropAt: Int) throws {
        let speed = { (i: Int) in i == 100 || i == 101 ? 0.5 : 8.0 }, watts = { (i: Int) in i < dropAt || i >= 110 ? 250 : 0 }
        let first = try Self.alerts(powerFirst: true, speed: speed, watts: watts)
        let after = try Self.alerts(powerFirst: false, speed: speed, watts: watts)
        #expect(first == after, "drop at \(dropAt) s: power before the fix: \(first); after it: \(after)")
    }
}
