import Testing
@testable import RunwayCore

/// The track filter's restart after a silence a speed sensor measured (`TrackFilter.restart`,
/// `StartLag.restarted`) on noisy positions, without Doppler speed (review h102 of 654e17c).
@Suite("A filter restart after a sensor's silence, on noisy fixes")
struct SensorSilenceNoisyRestartTests {
    /// A runner at 3 m/s from 0 s to `stopT` with a foot pod (a sample each second at
    /// `sampleOffset` after the fix's second), a receiver without Doppler speed whose fixes carry
    /// a seeded noise of about 3 m (hAcc 5) on each axis, a fix each second of `fixTimes`; the
    /// user pauses at `pauses[i].0` and resumes at `pauses[i].1`; auto-pause and auto laps off.
    /// Returns the distance less the truth (the metres run in cruise).
    static func runError(fixTimes: [Double], sampleOffset: Double, pauses: [(Double, Double)],
                         stopT: Double, seed: UInt64, noiseM: Double = 3) throws -> Double {
        var c = EngineConfig()
        c.autoLapM = 0
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, 0)
        var state = seed
        func noise() -> Double {   // (a sum of four uniforms: near normal, σ ≈ noiseM)
            var s = 0.0
            for _ in 0..<4 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                s += Double(state >> 11) / Double(UInt64(1) << 53) - 0.5
            }
            return s * noiseM * 1.7
        }
        var pending = pauses[...]
        func pausesBefore(_ t: Double) throws {
            while let p = pending.first, p.0 < t {
                try d.phase(.pause, p.0)
                try d.phase(.resume, p.1)
                pending.removeFirst()
            }
        }
        for second in 1..<Int(stopT) {
            let t = Double(second), ts = t + sampleOffset
            try pausesBefore(t)
            if fixTimes.contains(t) {
                try d.fix(t, 52 + degreesNorth(3 * t + noise()), 4 + degreesEast(noise()), hAcc: 5)
            }
            try pausesBefore(ts)
            try d.json("{\"type\":\"speed\",\"speed\":3,\"t\":\(ts)}")
        }
        try d.phase(.stop, stopT)
        let paused = pauses.reduce(0.0) { $0 + 3 * ($1.1 - $1.0) }
        return d.core.distance - (3 * stopT - paused)
    }

    /// Ten minutes at 3 m/s on noisy fixes, with a 10 s silence every minute that the pod
    /// measured (ten of them): each silence counts once. Compared with the same run, the same
    /// noise, with no silence, the silences add at most 2 m each (the restart's lag and the
    /// noise of the fixes either side). On 654e17c they added 65 to 80 m (ten restarts, each
    /// credited about 12 m for a lag of about 5 m: its lag measured along the restarted filter's
    /// track, whose first positions are the noisy fixes' own); on its parent, -19 to +7 m.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func silencesThePodMeasuredAreNotCountedAgainOnNoisyFixes(seed: UInt64) throws {
        let all = (0..<600).map(Double.init)
        let silent = all.filter { t in t <= 30 || (Int(t) - 30) % 60 == 0 || (Int(t) - 30) % 60 > 10 }
        let without = try Self.runError(fixTimes: all, sampleOffset: 0, pauses: [], stopT: 600, seed: seed)
        let with = try Self.runError(fixTimes: silent, sampleOffset: 0, pauses: [], stopT: 600, seed: seed)
        #expect(with - without <= 2 * 10, "seed \(seed): \(with) m with the silences, \(without) m without")
    }

    /// A user's pause of 0.2 s between two fixes, ten times in two minutes, on noisy fixes, the
    /// pod's samples half a second after each fix: no silence, the fixes come each second. The
    /// pause takes the pod's sample since the last fix (`SpeedSensorStage.legEnds`), which set
    /// `measuredUntil` after the filter's last fix, and the filter restarted at the next fix as
    /// after a silence, its lag credited along its noisy track: +17 to +34 m over what the same
    /// run reads without the pauses (its parent: -1.9 to +1.9 m). At most 0.5 m a pause.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func aUsersPauseBetweenFixesIsNoSilence(seed: UInt64) throws {
        let all = (0..<120).map(Double.init)
        let pauses = stride(from: 10.0, through: 100, by: 10).map { ($0 + 0.7, $0 + 0.9) }
        let without = try Self.runError(fixTimes: all, sampleOffset: 0.5, pauses: [], stopT: 120, seed: seed, noiseM: 2)
        let with = try Self.runError(fixTimes: all, sampleOffset: 0.5, pauses: pauses, stopT: 120, seed: seed, noiseM: 2)
        #expect(abs(with - without) <= 0.5 * 10, "seed \(seed): \(with) m off the truth with the pauses, \(without) m without")
    }
}
