import Testing
@testable import RunwayCore

// The sensor measures a silence in cruise and the rider stops inside it (the suite and its
// helpers are SpeedSensorTests.swift's).

extension SpeedSensorTests {
    /// A ride's fixes fall silent (a wheel sensor takes the flight up after three missed fixes and
    /// measures the ride on), the rider stops inside the silence, auto-pause holds on the sensor's
    /// standing samples, and the fixes come back within `gap_s` while it still holds: the sensor
    /// measures on through the hold, and that fix's held step is its share after the sensor's last
    /// sample. The rider sets off at that fix (its Doppler speed fast, or none: judged by its
    /// positions) or later: the resume credits what was held from the set-off on, never the
    /// sensor's stretch a second time, nor its time. (Before, with a fast Doppler speed, the held
    /// step spanned the whole 200-220 s line, began the fast hold, and the resume credited it from
    /// 200 s: 1926 m of 1866 m, +60 m, and 331 s elapsed of a 320 s flight.)
    @Test(arguments: [(220, 6.0), (220, Double.nan), (225, 6.0), (225, Double.nan)])
    func aFixAfterTheSensorsStretchWhileHeldDoesNotCountItAgain(_ setsOff: Int, _ doppler: Double) throws {
        let v = 6.0
        let (r, north) = try silentRide(v, stopAt: 210, back: 220, setsOff: setsOff, doppler: doppler) { d, k in
            if k == 215 { #expect(d.core.phases.isAutoHeld, "auto-paused on the sensor's standing samples") }
        }
        // Less at most the set-off's interval and, judged by positions, the one more a filtered
        // speed takes to rise (`aSensorsStandstillAutoPausesARide`); never the sensor's 60 m again.
        #expect(r.distanceM <= north * 1.002, "\(r.distanceM) m of \(north) m")
        #expect(r.elapsedS < 320 - 2, "\(r.elapsedS) s elapsed of 320 s, auto-paused in between")
        #expect(r.distanceM >= north - 2 * v - 0.002 * north, "\(r.distanceM) m of \(north) m")
        #expect(r.movingS <= r.elapsedS, "\(r.movingS) s moving, \(r.elapsedS) s")
    }

    /// The same ride over a grid: the rider stops before the silence or inside it (the sensor's
    /// standing samples auto-pause it either way), the fixes come back 12 to 35 s after the last
    /// (the last a gap, past `gap_s`), the rider sets off before that fix, at it or after it, and
    /// that fix says a fast Doppler speed or none. Nothing counts twice: the distance at most the
    /// truth's (0.2 % for the positions' scatter), the elapsed time at most the flight's wall time,
    /// moving time within it; and at most the set-off's few seconds lost. (Before, 38 of these 138
    /// flights broke a bound: 27 the held step's line from the last fix credited again, up to
    /// +66 m and 332 s elapsed of 320 s; 11 the set-off the waiting samples measured dropped with
    /// them, down to -45 m.) The same bounds with each second's fix before its speed sample, the
    /// order a phone may get them in (review h97: setting off 3 s before a returning fix without
    /// Doppler lost 23-30 m that way, 9-12 m the other: the sample of the fix's second did not
    /// complete the resume the sensor's samples began in the silence).
    @Test(arguments: [false, true])
    func aSilenceTheSensorMeasuredCountsOnceWhereverTheRiderStopsAndSetsOff(fixFirst: Bool) throws {
        let v = 6.0
        var flights = 0
        for stopAt in [198, 206, 211] {
            for back in [212, 216, 220, 226, 235] {
                for setsOff in [back - 6, back - 3, back - 1, back, back + 5] where setsOff > stopAt + 1 {
                    for doppler in [v, Double.nan] {
                        let (r, north) = try silentRide(v, stopAt: stopAt, back: back, setsOff: setsOff, doppler: doppler, fixFirst: fixFirst)
                        let flight = "stop \(stopAt) s, fixes back \(back) s, set off \(setsOff) s, Doppler \(doppler), fix first \(fixFirst)"
                        #expect(r.distanceM <= north * 1.002, "\(flight): \(r.distanceM) m of \(north) m")
                        #expect(r.distanceM >= north - 3 * v - 0.002 * north, "\(flight): \(r.distanceM) m of \(north) m")
                        #expect(r.elapsedS <= 320 && r.movingS <= r.elapsedS, "\(flight): \(r.movingS) s moving, \(r.elapsedS) s elapsed of 320 s")
                        flights += 1
                    }
                }
            }
        }
        #expect(flights == 138)
    }

    /// A ride at `v` with auto-pause (the profile's default), no auto laps and a speed sample each
    /// second, for 320 s: its rider stands after `stopAt` s and rides again from `setsOff` s, its
    /// fixes (1 Hz, their Doppler speed the rider's) are silent from 201 s until `back` s, whose fix
    /// says `doppler` when the rider moves; each second's speed sample before its fix, or after it
    /// (`fixFirst`). `each` looks at the flight after the speed sample.
    /// Returns the record and the distance ridden.
    func silentRide(_ v: Double, stopAt: Int, back: Int, setsOff: Int, doppler: Double, fixFirst: Bool = false,
                    each: (Driver, Int) -> Void = { _, _ in }) throws -> (FlightRecord, Double) {
        var config = EngineConfig(activity: .ride)
        config.autoLapM = 0
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        var north = 0.0
        for k in 0...320 {
            let t = Self.t0 + Double(k), moving = k <= stopAt || k >= setsOff
            if k > 0 && moving { north += v }
            if k > 0 && !fixFirst { try speed(&d, t, moving ? v : 0) }
            if !fixFirst { each(d, k) }
            if !(201..<back).contains(k) {
                try d.fix(t, 52 + degreesNorth(north), 4, speed: k == back ? (moving ? doppler : 0) : moving ? v : 0, hAcc: 4)
            }
            if k > 0 && fixFirst { try speed(&d, t, moving ? v : 0) }
            if fixFirst { each(d, k) }
        }
        try d.phase(.stop)
        return (d.core.record, north)
    }
}
