#if canImport(Glibc)
import Glibc
#endif

/// The true altitude along the loop: gentle hills that repeat every lap.
///
/// Three harmonics of the loop (weights 0.6, 0.3, 0.1, random phases) scaled by the amplitude,
/// so the profile is smooth, periodic (the loop closes in altitude too) and stays within
/// ±amplitude of its base, which is `5 m + 1.2 × amplitude` (always above sea level).
struct HillProfile: Sendable {
    let amplitude: Double
    let loopLength: Double
    let phases: [Double]
    static let weights = [0.6, 0.3, 0.1]

    init(amplitude: Double, loopLength: Double, rng: inout SimRandom) {
        self.amplitude = amplitude
        self.loopLength = loopLength
        phases = HillProfile.weights.map { _ in rng.uniform() * 2 * Double.pi }
    }

    /// Altitude in metres `u` metres along the loop.
    func altitude(at u: Double) -> Double {
        var h = 5 + 1.2 * amplitude
        guard amplitude > 0, loopLength > 0 else { return h }
        for (k, w) in HillProfile.weights.enumerated() {
            h += amplitude * w * sin(2 * Double.pi * Double(k + 1) * u / loopLength + phases[k])
        }
        return h
    }
}
