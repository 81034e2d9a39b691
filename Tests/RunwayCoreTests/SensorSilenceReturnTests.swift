import Testing
@testable import RunwayCore

/// A silence of the positions that a foot pod measured, and the fixes that come back 10 s later
/// (not a gap): the pod's metres count once (review h101).
@Suite("A silence a speed sensor measured, and the fixes after it")
struct SensorSilenceReturnTests {
    /// A runner with a foot pod and a receiver without Doppler speed (the run profile, auto-pause
    /// off): standing from 0 s, running at 3 m/s from `setOff` s; a fix a second up to 30 s, none
    /// from 31 to 40 s (a tunnel), then again from 41 s; the pod's sample each second (0 m/s
    /// standing); stopped at 120 s. The distance and the truth.
    static func podThroughASilence(setOff: Int, doppler: Bool = false) throws -> (distance: Double, truth: Double) {
        var c = EngineConfig()
        c.autoLapM = 0
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...120 {
            let t = Double(i), v: Double = i > setOff ? 3 : 0
            if i <= 30 || i >= 41 {
                try d.fix(t, 52 + degreesNorth(3 * max(0, t - Double(setOff))), 4, speed: doppler ? v : .nan, hAcc: 5)
            }
            if i >= 1 { try d.json("{\"type\":\"speed\",\"speed\":\(v),\"t\":\(t)}") }
        }
        try d.phase(.stop, 120)
        return (d.core.distance, 3 * (120 - Double(setOff)))
    }

    /// The pod measures the silence (30 m when the runner moves through all of it). With Doppler
    /// the positions take the leg up from where the pod left off: within 1.5 m of the truth.
    /// Positions only they count it again, an open defect: the first fix back counts only its
    /// share of the line after the pod's last sample, but the track filter, whose estimate stayed
    /// behind at the last fix (no speed told it the runner moved), catches up over the next fixes
    /// (12 m a step at 44–46 s for a runner at 3 m/s), and those steps are not shared: set off 1 s
    /// before the fixes stop to 3 s into the silence, +18.6 to +30 m of 261–273 m.
    @Test(arguments: [29, 30, 31, 33])
    func aSilenceThePodMeasuredIsNotCountedAgainByThePositionsAfterIt(setOff: Int) throws {
        let withDoppler = try Self.podThroughASilence(setOff: setOff, doppler: true)
        #expect(withDoppler.distance <= withDoppler.truth + 3, "with Doppler: \(withDoppler.distance) m of \(withDoppler.truth) m")
        let r = try Self.podThroughASilence(setOff: setOff)
        withKnownIssue("positions only: the track filter's catch-up after the silence is counted again (docs/accuracy.md)") {
            #expect(r.distance <= r.truth + 3, "set off at \(setOff) s: \(r.distance) m of \(r.truth) m")
        }
    }
}
