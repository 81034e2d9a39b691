import Testing
@testable import RunwayCore

// The sensor measures a silence in cruise and the rider stops inside it (the suite and its
// helpers are SpeedSensorTests.swift's).

extension SpeedSensorTests {
    /// A ride's fixes fall silent (a wheel sensor takes the flight up after three missed fixes and
    /// measures the ride on), the rider stops inside the silence, auto-pause holds on the sensor's
    /// standing samples, and the fixes come back within `gap_s` while it still holds: that fix's
    /// held step spans the part the sensor measured in cruise too. The rider sets off at that fix
    /// (its Doppler speed fast, or none: judged by its positions) or later: the resume credits
    /// what was held from the set-off on, never the sensor's stretch a second time (open when the
    /// rider sets off at that fix with a fast Doppler speed: a known issue below).
    @Test(arguments: [(220, 6.0), (220, Double.nan), (225, 6.0), (225, Double.nan)])
    func aFixAfterTheSensorsStretchWhileHeldDoesNotCountItAgain(_ setsOff: Int, _ doppler: Double) throws {
        var config = EngineConfig(activity: .ride)
        config.autoLapM = 0
        var d = Driver(config)
        let v = 6.0
        try d.phase(.start, Self.t0)
        var north = 0.0
        for k in 0...320 {
            let t = Self.t0 + Double(k), moving = k <= 210 || k >= setsOff
            if k > 0 && moving { north += v }
            if k > 0 { try speed(&d, t, moving ? v : 0) }
            if k == 215 { #expect(d.core.phases.isAutoHeld, "auto-paused on the sensor's standing samples") }
            if !(201..<220).contains(k) {
                try d.fix(t, 52 + degreesNorth(north), 4, speed: k == 220 ? (moving ? doppler : 0) : moving ? v : 0, hAcc: 4)
            }
        }
        try d.phase(.stop)
        let r = d.core.record
        // Less at most the set-off's interval and, judged by positions, the one more a filtered
        // speed takes to rise (`aSensorsStandstillAutoPausesARide`); never the sensor's 60 m again.
        // Open: set off at the fix with a fast Doppler speed, its held step (the whole 200-220 s
        // line) starts the fast hold and the resume credits it from 200 s: +60 m (1926 m of
        // 1866 m), and the 200-211 s cruise counted again (331 s elapsed of a 320 s flight).
        withKnownIssue("a held fix step across the sensor's stretch is credited again") {
            #expect(r.distanceM <= north * 1.002, "\(r.distanceM) m of \(north) m")
            #expect(r.elapsedS < 320 - 2, "\(r.elapsedS) s elapsed of 320 s, auto-paused in between")
        } when: { setsOff == 220 && doppler == v }
        #expect(r.distanceM >= north - 2 * v - 0.002 * north, "\(r.distanceM) m of \(north) m")
        #expect(r.movingS <= r.elapsedS, "\(r.movingS) s moving, \(r.elapsedS) s")
    }
}
