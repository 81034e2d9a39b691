#if canImport(Glibc)
import Glibc
#endif

/// A small, fast, seeded random number generator: xoshiro256** seeded through SplitMix64.
///
/// The simulator draws every random number from one of these, never from the system generator,
/// so a run is a pure function of its `SimConfig`. Each concern (geometry, pace, position error,
/// altitude error, Doppler, accuracy, spikes) has its own *stream* — a generator seeded from the
/// run's seed and a stream number — so switching one concern on or off (say, omitting speed, or
/// adding a spike) leaves every other concern's numbers unchanged.
///
/// ```swift
/// var rng = SimRandom(seed: 1, stream: 7)
/// let u = rng.uniform()      // 0 ..< 1
/// let g = rng.gaussian()     // N(0, 1)
/// ```
public struct SimRandom: Sendable {
    var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The second value of the latest Box–Muller pair, not yet handed out.
    var spare = Double.nan

    /// A generator for one stream of one seed.
    ///
    /// - Parameters:
    ///   - seed: the run's seed.
    ///   - stream: distinguishes independent sequences drawn from the same seed.
    public init(seed: UInt64, stream: UInt64 = 0) {
        var sm = seed ^ (stream &* 0xD1B5_4A32_D192_ED03) ^ 0x6A09_E667_F3BC_C908
        s0 = SimRandom.splitMix(&sm)
        s1 = SimRandom.splitMix(&sm)
        s2 = SimRandom.splitMix(&sm)
        s3 = SimRandom.splitMix(&sm)
        if s0 | s1 | s2 | s3 == 0 { s0 = 0x9E37_79B9_7F4A_7C15 }   // xoshiro's one forbidden state
    }

    /// One SplitMix64 step: the recommended way to fill xoshiro's state from a 64-bit seed.
    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// The next 64 random bits (xoshiro256**).
    public mutating func next() -> UInt64 {
        let result = SimRandom.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = SimRandom.rotl(s3, 45)
        return result
    }

    /// A uniform value in `0 ..< 1` with 53 random bits.
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform integer in `0 ..< bound` (`bound` ≥ 1; 0 is treated as 1).
    public mutating func below(_ bound: UInt64) -> UInt64 {
        let b = max(bound, 1)
        // Lemire's multiply-shift; the tiny bias for huge bounds is irrelevant here.
        return next().multipliedFullWidth(by: b).high
    }

    /// A standard normal value, N(0, 1), by the Box–Muller transform (pairs, the second kept).
    public mutating func gaussian() -> Double {
        if !spare.isNaN {
            let g = spare
            spare = .nan
            return g
        }
        let u1 = 1 - uniform()               // 0 < u1 ≤ 1, so the logarithm is finite
        let u2 = uniform()
        let r = (-2 * log(u1)).squareRoot()
        let theta = 2 * Double.pi * u2
        spare = r * sin(theta)
        return r * cos(theta)
    }
}

/// A first-order Gauss–Markov process: exponentially correlated noise with a set spread.
///
/// `x(k+1) = e^(−Δt/τ)·x(k) + N(0, σ²(1 − e^(−2Δt/τ)))`, started from the stationary
/// distribution N(0, σ²), so its spread is σ at every step and its autocorrelation at lag Δ is
/// e^(−Δ/τ). A zero σ gives a constant zero; an infinite τ a constant bias.
public struct GaussMarkov: Sendable {
    public let sigma: Double
    public let tau: Double
    public private(set) var value: Double

    /// A process started from its stationary distribution.
    ///
    /// - Parameters:
    ///   - sigma: the stationary standard deviation (negative or non-finite values count as 0).
    ///   - tau: the correlation time in seconds (non-positive or NaN values count as 1e-9 s,
    ///     i.e. white noise).
    ///   - rng: the stream to draw from.
    public init(sigma: Double, tau: Double, rng: inout SimRandom) {
        self.sigma = sigma.isFinite && sigma > 0 ? sigma : 0
        self.tau = tau > 0 ? tau : 1e-9          // NaN fails `> 0` too
        value = self.sigma * rng.gaussian()
    }

    /// Advances the process by `dt` seconds and returns the new value.
    @discardableResult
    public mutating func step(dt: Double, rng: inout SimRandom) -> Double {
        let g = rng.gaussian()                   // always drawn, so streams stay aligned
        guard dt > 0 else { return value }
        let phi = exp(-dt / tau)
        value = phi * value + sigma * max(0, 1 - phi * phi).squareRoot() * g
        return value
    }
}
