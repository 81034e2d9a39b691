import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// A silence of the positions that a foot pod measured, and the fixes that come back 10 s later
/// (not a gap): the pod's metres count once (review h101).
@Suite("A silence a speed sensor measured, and the fixes after it")
struct SensorSilenceReturnTests {
    /// A runner with a foot pod and a receiver without Doppler speed (with it: `doppler`; the run
    /// profile, auto-pause off): standing from 0 s, running at 3 m/s from `setOff` s, straight
    /// north or round a circle of 40 m radius; a fix a second up to 30 s, none for `silence`
    /// seconds (a tunnel), then again; the pod's sample each second (0 m/s standing); stopped at
    /// `end` s. The distance and the truth.
    static func podThroughASilence(setOff: Int, silence: Int = 10, circle: Bool = false, doppler: Bool = false,
                                   end: Int = 120) throws -> (distance: Double, truth: Double) {
        var c = EngineConfig()
        c.autoLapM = 0
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...end {
            let t = Double(i), v: Double = i > setOff ? 3 : 0
            let s = 3 * max(0, t - Double(setOff)), a = s / 40
            let (east, north) = circle ? (40 * (1 - cos(a)), 40 * sin(a)) : (0, s)
            if i <= 30 || i > 30 + silence {
                try d.fix(t, 52 + degreesNorth(north), 4 + degreesEast(east), speed: doppler ? v : .nan, hAcc: 5)
            }
            if i >= 1 { try d.json("{\"type\":\"speed\",\"speed\":\(v),\"t\":\(t)}") }
        }
        try d.phase(.stop, Double(end))
        return (d.core.distance, 3 * Double(end - setOff))
    }

    /// The pod measures the silence (30 m when the runner moves through all of it); the positions
    /// take the leg up from where it left off: within 1.5 m of the truth, with Doppler or without.
    /// Positions only, the track filter's estimate stayed at the last fix (nothing told it the
    /// runner moved) and caught up over the fixes after the silence, steps counted whole: the
    /// silence counted again, +18.6 to +30 m of 261–273 m. It starts over at the fix that ends
    /// the silence (`TrackFilter.restart`), the lag of that start credited (`StartLag`).
    @Test(arguments: [29, 30, 31, 33])
    func aSilenceThePodMeasuredIsNotCountedAgainByThePositionsAfterIt(setOff: Int) throws {
        for doppler in [true, false] {
            let r = try Self.podThroughASilence(setOff: setOff, doppler: doppler)
            #expect(abs(r.distance - r.truth) <= 1.5, "doppler \(doppler), set off at \(setOff) s: \(r.distance) m of \(r.truth) m")
        }
    }

    /// Held back (not looked at while the restart was built, which used set-offs 5, 9 ... 53 s and
    /// silences of 5, 10 and 20 s): the runner setting off anywhere from long before the silence
    /// to long after it, straight or round a tight circle (40 m radius): the silence counts once,
    /// not again (before: up to +30 m). Measured: straight −3.1 to +0.1 m, circle −7.1 to +0.3 m.
    /// What reads short is a start's lag, not the silence: a start's lag is credited by the chord
    /// from its first fix, which cuts the circle's bend, and a set-off 15–20 s after the first
    /// fix is credited too little (`docs/accuracy.md`, start lag), so the count-once side is the
    /// one asserted.
    @Test(arguments: [false, true])
    func whereverTheRunnerSetsOffTheSilenceCountsOnce(circle: Bool) throws {
        for setOff in stride(from: 3, through: 57, by: 6) {
            for silence in [7, 13] {
                let r = try Self.podThroughASilence(setOff: setOff, silence: silence, circle: circle, end: 150)
                let e = r.distance - r.truth
                #expect(e <= 3, "set off at \(setOff) s, a \(silence) s silence: \(e) m")
            }
        }
    }
}
