import Testing
@testable import RunwayCore

/// A set-off from a stop while auto-paused: the fast hold that resumes the flight is judged on a
/// speed that, from positions alone, is filtered and lags the set-off by a few fixes, while the
/// steps measured it; the resume begins with those steps (`AutoPauseStage.setOff`).
@Suite("A set-off while auto-paused counts from where the runner set off")
struct SetOffTests {
    /// Clean fixes due north at 1 Hz: `v` m/s for 60 s, a stand of `standS`, `v` m/s for 60 s.
    static func fly(_ activity: Activity, autoPause: Bool, doppler: Bool, standS: Double) throws -> FlightData {
        var c = Driver.config()
        c.activity = activity
        c.autoLapM = 0
        c.autoPause.enabled = autoPause
        var d = Driver(c)
        let v = activity == .ride ? 8.0 : 4.0
        try d.phase(.start, 0)
        let end = 120 + Int(standS)
        for i in 0...end {
            let t = Double(i)
            let standing = t > 60 && t <= 60 + standS
            let moved = (min(t, 60) + max(0, t - 60 - standS)) * v
            try d.fix(t, 52 + degreesNorth(moved), 4, speed: doppler ? (standing ? 0 : v) : .nan, hAcc: 5)
        }
        try d.phase(.stop, Double(end))
        return d.snapshot
    }

    /// With auto-pause on, the run or ride measures as with it off: the stop is paused, and the
    /// set-off counts whole (positions only it lost 12.7 m and 3 s of moving time a set-off at
    /// 4 m/s, 15.5 m and 2 s at 8 m/s: the steps before the filtered speed passed the threshold).
    @Test(arguments: [Activity.run, .ride])
    func aSetOffCountsAsWithoutAutoPause(_ activity: Activity) throws {
        for doppler in [false, true] {
            let on = try SetOffTests.fly(activity, autoPause: true, doppler: doppler, standS: 60)
            let off = try SetOffTests.fly(activity, autoPause: false, doppler: doppler, standS: 60)
            #expect(abs(on.distanceM - off.distanceM) < 0.5, "\(activity), Doppler \(doppler): \(on.distanceM) m, \(off.distanceM) m without auto-pause")
            #expect(abs(on.movingS - off.movingS) <= 1, "\(activity), Doppler \(doppler): moving \(on.movingS) s, \(off.movingS) s without auto-pause")
            #expect(abs(on.movingS - 120) <= 1, "\(activity), Doppler \(doppler): moving \(on.movingS) s of 120")
            #expect(on.elapsedS < off.elapsedS - 30, "\(activity), Doppler \(doppler): the stop was not paused")
        }
    }
}
