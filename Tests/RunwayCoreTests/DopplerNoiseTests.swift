import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import RunwayCore
import RunwaySim

/// The stillness detector measures a standing receiver's Doppler noise and scales its Doppler
/// thresholds when the receiver is noisier than they were set for (`designDopplerSigmaMps`).
@Suite("Standing Doppler noise, measured")
struct DopplerNoiseTests {
    typealias T = StillnessDetectorTests

    /// Ten minutes of a receiver standing at the origin (position wander of a few metres),
    /// its Doppler the magnitude of Gaussian noise of `sigma` an axis; the detector after it.
    static func standing(sigma: Double, seed: UInt64 = 7) -> StillnessDetector {
        var rng = SimRandom(seed: seed)
        var d = StillnessDetector()
        d.reset(still: true)
        for t in 0..<600 {
            let tt = Double(t)
            let v = (pow(sigma * rng.gaussian(), 2) + pow(sigma * rng.gaussian(), 2)).squareRoot()
            let fix = T.fix(tt, east: 2 * sin(tt / 50), north: 2 * cos(tt / 70), speed: v)
            _ = d.judge(Step(distanceM: max(0, v - 0.4), moving: v >= 0.4), fix: fix, at: tt, dt: t == 0 ? 0 : 1)
        }
        return d
    }

    @Test func aReceiverAsQuietAsTheDesignKeepsTheThresholds() {
        for sigma in [0.05, 0.1, 0.2] { #expect(Self.standing(sigma: sigma).dopplerScale < 1.15, "σ \(sigma)") }
        #expect(Self.standing(sigma: 0).dopplerScale == 1)
    }

    @Test func aNoisierReceiverHasItsThresholdsScaledToItsNoise() {
        // The measure reaches the noise: σ / 0.2 within 20 %.
        for sigma in [0.35, 0.45, 0.6] {
            let scale = Self.standing(sigma: sigma).dopplerScale
            #expect(abs(scale / (sigma / 0.2) - 1) < 0.2, "σ \(sigma): scale \(scale)")
        }
    }

    @Test func aSlowWalkIsMovementNotNoise() {
        // Walking at 0.6 m/s (under the 0.8 m/s a walk confirms at) for ten minutes, Doppler
        // right: the positions move as fast, so nothing of it is noise.
        var d = StillnessDetector()
        d.reset(still: true)
        for t in 0..<600 {
            let tt = Double(t)
            _ = d.judge(Step(distanceM: 0.6, moving: true), fix: T.fix(tt, east: 0, north: 0.6 * tt, speed: 0.6), at: tt, dt: t == 0 ? 0 : 1)
        }
        #expect(d.dopplerScale < 1.15, "scale \(d.dopplerScale)")
    }

    @Test func aRunnerAfterANoisyStandIsStillConfirmedAndCredited() {
        // After ten minutes standing with σ 0.45, the runner sets off at 3 m/s: confirmed by
        // Doppler (far above the scaled threshold), the metres since setting off credited.
        var d = Self.standing(sigma: 0.45)
        var counted = 0.0
        for k in 1...60 {
            let t = 599 + Double(k)
            let j = d.judge(Step(distanceM: 3, moving: true), fix: T.fix(t, east: 0, north: 3 * Double(k), speed: 3), at: t, dt: 1)
            counted += j.step.distanceM + (j.credit?.distanceM ?? 0)
        }
        #expect(!d.isStill)
        #expect(abs(counted - 180) <= 3, "\(counted) m of 180")
    }
}
