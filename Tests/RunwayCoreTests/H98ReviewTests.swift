import Testing
@testable import RunwayCore

/// Review h98: edge cases of the last session's change (the power alerts that wait while
/// auto-pause judges a stand; manual laps that wait for held steps).
@Suite("h98 review")
struct H98ReviewTests {
    /// `PowerAlertAtAStopTests`' ride (8 m/s, auto-pause on, 1 Hz fixes and power samples of the
    /// same times, standing 100–130 s), but the rider stops pedalling at `dropAt` (0 W), some
    /// seconds before the first slow fix (100 s). The power alerts' 5 s hold may complete at any
    /// second; the ride is the same in either input order, and so should its alerts be.
    static func alerts(dropAt: Int, powerFirst: Bool) throws -> [String] {
        var c = EngineConfig(activity: .ride)
        c.autoLapM = 0
        c.alerts.targetPowerMin = 200
        c.alerts.targetPowerMax = 400
        var d = Driver(c)
        try d.phase(.start, 0)
        var north = 0.0
        for i in 0...160 {
            let t = Double(i)
            let v = i < 100 || i >= 130 ? 8.0 : 0
            north += v
            let power = "{\"type\":\"power\",\"watts\":\(i < dropAt || i >= 130 ? 250 : 0),\"t\":\(t)}"
            if powerFirst { try d.json(power) }
            try d.fix(t, 31.2 + degreesNorth(north), 121.5, speed: v, hAcc: 4)
            if !powerFirst { try d.json(power) }
        }
        return d.events.compactMap { e -> String? in
            if case .alert(let a) = e.body { return "\(a.code) at \(e.t)" } else { return nil }
        }
    }

    @Test(arguments: Array(90...99))
    func powerAlertsAtTheFirstSlowFixDoNotHangOnTheInputOrder(dropAt: Int) throws {
        let first = try Self.alerts(dropAt: dropAt, powerFirst: true)
        let after = try Self.alerts(dropAt: dropAt, powerFirst: false)
        #expect(first == after, "drop at \(dropAt) s: power before the fix: \(first); after it: \(after)")
    }
}

extension H98ReviewTests {
    /// A ride at 8 m/s (auto-pause on) that slows to 0.5 m/s for two fixes (100 and 101 s: a
    /// track stand at a light that turns green, shorter than auto-pause's 3 s hold) and rides on;
    /// 0 W from `dropAt`. No pause comes; the alerts should not hang on the order of the inputs.
    static func alertsAtABriefSlowing(dropAt: Int, powerFirst: Bool) throws -> [String] {
        var c = EngineConfig(activity: .ride)
        c.autoLapM = 0
        c.alerts.targetPowerMin = 200
        c.alerts.targetPowerMax = 400
        var d = Driver(c)
        try d.phase(.start, 0)
        var north = 0.0
        for i in 0...160 {
            let t = Double(i)
            let v = i == 100 || i == 101 ? 0.5 : 8.0
            north += v
            let power = "{\"type\":\"power\",\"watts\":\(i < dropAt || i >= 110 ? 250 : 0),\"t\":\(t)}"
            if powerFirst { try d.json(power) }
            try d.fix(t, 31.2 + degreesNorth(north), 121.5, speed: v, hAcc: 4)
            if !powerFirst { try d.json(power) }
        }
        #expect(!d.events.contains { if case .phase(_, .holding, _) = $0.body { true } else { false } }, "no pause")
        return d.events.compactMap { e -> String? in
            if case .alert(let a) = e.body { return "\(a.code) at \(e.t)" } else { return nil }
        }
    }

    @Test(arguments: Array(93...99))
    func powerAlertsAtTheEndOfABriefSlowingDoNotHangOnTheInputOrder(dropAt: Int) throws {
        let first = try Self.alertsAtABriefSlowing(dropAt: dropAt, powerFirst: true)
        let after = try Self.alertsAtABriefSlowing(dropAt: dropAt, powerFirst: false)
        #expect(first == after, "drop at \(dropAt) s: power before the fix: \(first); after it: \(after)")
    }
}
