#if canImport(Glibc)
import Glibc
#endif

/// The shape of the hills along the loop (each repeats every lap and closes the loop in altitude;
/// `A` is `SimConfig.altitudeAmplitudeM`, `L` the loop's length, `u` the distance along it).
public enum SimHillShape: String, Sendable, CaseIterable {
    /// Three harmonics of the loop (weights 0.6, 0.3, 0.1, random phases): gentle, irregular hills.
    case harmonics
    /// One sine a lap, `A·sin(2πu/L)`: from mid-height up to +A, down to −A and back (gain 2A a lap).
    case sine
    /// A steady climb from −A to +A over the first 30 % of the lap, a plateau to 50 %, a steady
    /// descent to −A by 80 %, flat to the end (gain 2A a lap).
    case ramp
    /// Three steps up in the first half and three down in the second, each a rise of 2A/3 over
    /// 50 m followed by a flat (gain 2A a lap).
    case stepped
}

/// The true altitude along the loop: hills of a shape that repeat every lap.
///
/// Every shape stays within ±amplitude of its base, which is `5 m + 1.2 × amplitude` (always
/// above sea level).
struct HillProfile: Sendable {
    let amplitude: Double
    let loopLength: Double
    let shape: SimHillShape
    let phases: [Double]
    static let weights = [0.6, 0.3, 0.1]
    /// The length of one step of `stepped`, metres.
    static let stepLengthM = 50.0

    init(amplitude: Double, loopLength: Double, shape: SimHillShape = .harmonics, rng: inout SimRandom) {
        self.amplitude = amplitude
        self.loopLength = loopLength
        self.shape = shape
        phases = HillProfile.weights.map { _ in rng.uniform() * 2 * Double.pi }
    }

    /// Altitude in metres `u` metres along the loop.
    func altitude(at u: Double) -> Double {
        var h = 5 + 1.2 * amplitude
        guard amplitude > 0, loopLength > 0 else { return h }
        let x = u / loopLength
        switch shape {
        case .harmonics: break
        case .sine: return h + amplitude * sin(2 * Double.pi * x)
        case .ramp:
            let a = amplitude
            if x < 0.3 { return h - a + 2 * a * x / 0.3 }
            if x < 0.5 { return h + a }
            if x < 0.8 { return h + a - 2 * a * (x - 0.5) / 0.3 }
            return h - a
        case .stepped:
            // Step k (0, 1, 2) of a half lap starts at k/6 of the lap; its rise takes stepLengthM.
            let half = x < 0.5 ? x : x - 0.5
            let k = min(2, Int(half * 6))
            let into = min(1, (half - Double(k) / 6) * loopLength / HillProfile.stepLengthM)
            let level = (Double(k) + into) / 3          // 0 ... 1 over the half lap
            return x < 0.5 ? h - amplitude + 2 * amplitude * level : h + amplitude - 2 * amplitude * level
        }
        for (k, w) in HillProfile.weights.enumerated() {
            h += amplitude * w * sin(2 * Double.pi * Double(k + 1) * u / loopLength + phases[k])
        }
        return h
    }
}
