/// Standing still during a run: at an exact distance along the path, for a time.
public struct SimStop: Sendable, Equatable {
    /// Distance from the start along the true path, metres (across laps: 7000 on a 5500 m loop
    /// is 1500 m into the second lap).
    public var atDistanceM: Double
    /// Seconds standing still (true speed exactly 0).
    public var durationS: Double

    public init(atDistanceM: Double, durationS: Double) {
        self.atDistanceM = atDistanceM
        self.durationS = durationS
    }
}

/// A single bad fix replacing one simulated fix's position.
public struct SimSpike: Sendable, Equatable {
    /// What the bad fix reports.
    public enum Kind: Sendable, Equatable {
        /// Exactly (0, 0), the "null island" fix of a receiver with no solution.
        case nullIsland
        /// A position this many metres from the *true* position, in a random (seeded) direction.
        case offsetM(Double)
    }

    /// The index of the fix in `SimRun.fixes` (out-of-range indices are ignored).
    public var atIndex: Int
    public var kind: Kind

    public init(atIndex: Int, kind: Kind) {
        self.atIndex = atIndex
        self.kind = kind
    }
}

/// Everything that shapes a simulated run. The defaults are a 5.5 km city loop at 5:00 min/km,
/// 1 Hz, with the receiver error of the accuracy issue (Gauss–Markov σ 4 m, τ 60 s, plus 0.7 m
/// white noise per axis).
///
/// Out-of-range values are clamped rather than trapped (see ``sanitised()``); the run records
/// the configuration it actually used.
///
/// ```swift
/// var config = SimConfig()
/// config.seed = 7
/// config.stops = [SimStop(atDistanceM: 2000, durationS: 120)]
/// let run = simulate(config)
/// ```
public struct SimConfig: Sendable {
    /// Seeds every random choice: the loop's shape, pace variation and all measurement noise.
    public var seed: UInt64 = 1
    /// Time of the first fix, seconds since 1970.
    public var startT: Double = 1_700_000_000
    /// The loop's centre, degrees. Latitude -80...80; any longitude (the loop may straddle ±180).
    public var centerLat: Double = 52.37, centerLon: Double = 4.89
    /// Length of one lap of the closed loop, metres (10 m ... 100 km): a polygon with rounded
    /// corners, not a circle, its shape drawn from the seed.
    public var loopLengthM: Double = 5500
    /// How many times round (fractions allowed; 0 ... 10 000).
    public var laps: Double = 1
    /// Steady target pace, minutes per km (1 ... 60).
    public var paceMinPerKm: Double = 5.0
    /// Spread of the slow random speed variation (a Gauss–Markov process, τ 120 s), as a fraction
    /// of the steady speed (0 ... 0.3). Corners also slow the runner a little (up to 20%).
    public var paceVariation: Double = 0.03
    /// Stops: standing still (true speed 0, true position fixed) at exact distances. Stops
    /// beyond the end of the run are ignored.
    public var stops: [SimStop] = []
    /// Seconds standing at the start before running, and at the end after arriving.
    public var standStillBeforeS: Double = 0, standStillAfterS: Double = 0
    /// Fixes per second (0.1 ... 100).
    public var hz: Double = 1
    /// Receiver position error per axis (east, north), metres: a first-order Gauss–Markov
    /// process (σ, τ in seconds) plus white noise.
    public var gmSigmaM: Double = 4, gmTauS: Double = 60, whiteSigmaM: Double = 0.7
    /// Doppler speed noise: speed = |true velocity vector + N(0, σ) per axis|, m/s.
    public var dopplerSigmaMps: Double = 0.1
    /// Course = bearing of the noisy velocity vector + N(0, σ) degrees; omitted below 0.5 m/s.
    public var courseSigmaDeg: Double = 3
    /// Which fields the fixes carry (an excluded field is NaN, and absent from the JSON).
    public var includeSpeed = true, includeCourse = true, includeAccuracy = true, includeAltitude = true
    /// Gentle hills along the loop: the true altitude stays within ± this of its base, metres.
    public var altitudeAmplitudeM: Double = 15
    /// GPS altitude error: Gauss–Markov σ and τ (vertical is worse than horizontal) plus white
    /// noise, metres.
    public var altitudeGmSigmaM: Double = 6, altitudeGmTauS: Double = 60, altitudeWhiteSigmaM: Double = 1
    /// Spread of the reported horizontal accuracy around the true error σ (log-normal, slowly
    /// varying over 30 s): 0.15 reports roughly ±15%.
    public var accuracyVariation: Double = 0.15
    /// Doppler speed scale error: the reported speed is the noisy speed times this (0.93 reads
    /// 7% slow, as a badly calibrated source would; 0 ... 10). Positions are unaffected.
    public var dopplerScale: Double = 1

    /// Bad fixes replacing the positions at given indices.
    public var spikes: [SimSpike] = []
    /// The run is cut after this many fixes (1 ... 10 000 000), a guard against configurations
    /// that would run for years.
    public var maxFixes: Int = 2_000_000

    // MARK: Positions and Doppler: standing still, scale error, motion profiles (issue #19)

    /// Doppler speed noise per axis while the receiver stands still (true speed 0), m/s: the
    /// reported speed is then the magnitude of that noise vector (per-axis σ 0.2 gives 0.06–0.5
    /// m/s, median 0.24, never exactly 0). NaN: `dopplerSigmaMps`, as when moving.
    public var standingDopplerSigmaMps: Double = .nan
    /// Whether the course is reported below 0.5 m/s too: the bearing of the noisy velocity
    /// vector, which standing still is pure noise (receivers that always fill the field).
    public var courseWhenSlow = false

    // MARK: - Altitude: hill shapes, error models, source (issue #19)

    /// The shape of the hills (`altitudeAmplitudeM` sets their height).
    public var hillShape: SimHillShape = .harmonics
    /// An altitude error model; nil keeps the Gauss–Markov settings above as they are. A model
    /// sets them (and the drift) when the configuration is sanitised.
    public var altitudeError: SimAltitudeError? = nil
    /// A slow drift added to the altitude: a random walk whose spread grows by this many metres
    /// per √hour (a barometer following the weather), metres/√h (0 ... 1000).
    public var altitudeDriftMPerSqrtH: Double = 0
    /// Where the altitude is reported: on the fixes (`alt`, GPS) or as barometric samples
    /// (`{"type":"altimeter"}` lines before each fix, whose `alt` is then left out).
    public var altitudeSource: SimAltitudeSource = .gps
    /// Whether fixes carry `v_acc`: the altitude error's σ (√(σ_GM² + σ_white²)).
    public var includeVerticalAccuracy = false

    public init() {}

    /// A configuration for a motion profile: `SimMotion.run` is the default 5:00 min/km.
    public init(motion: SimMotion) {
        paceMinPerKm = motion.paceMinPerKm
    }

    /// The configuration with every value brought into its documented range: NaN takes the
    /// default, out-of-range values are clamped, negative or NaN durations and noise levels
    /// count as 0 (infinite ones are capped), and the longitude is normalised to -180 ..< 180.
    public func sanitised() -> SimConfig {
        let d = SimConfig()
        var c = self
        c.startT = startT.isFinite ? startT : d.startT
        c.centerLat = clamp(centerLat, -80, 80, d.centerLat)
        c.centerLon = centerLon.isFinite ? WGS84.normalisedLongitude(centerLon) : d.centerLon
        c.loopLengthM = clamp(loopLengthM, 10, 100_000, d.loopLengthM)
        c.laps = clamp(laps, 0, 10_000, 0)
        c.paceMinPerKm = clamp(paceMinPerKm, 1, 60, d.paceMinPerKm)
        c.paceVariation = clamp(paceVariation, 0, 0.3, 0)
        c.stops = stops.map { SimStop(atDistanceM: $0.atDistanceM, durationS: nonNegative($0.durationS)) }
            .filter { $0.atDistanceM >= 0 }             // NaN fails too
        c.standStillBeforeS = nonNegative(standStillBeforeS)
        c.standStillAfterS = nonNegative(standStillAfterS)
        c.hz = clamp(hz, 0.1, 100, d.hz)
        c.gmSigmaM = nonNegative(gmSigmaM, max: 1e5)
        c.gmTauS = clamp(gmTauS, 1e-6, .infinity, d.gmTauS)
        c.whiteSigmaM = nonNegative(whiteSigmaM, max: 1e5)
        c.dopplerSigmaMps = nonNegative(dopplerSigmaMps, max: 1e5)
        c.courseSigmaDeg = nonNegative(courseSigmaDeg, max: 360)
        c.dopplerScale = clamp(dopplerScale, 0, 10, d.dopplerScale)
        c.altitudeAmplitudeM = clamp(altitudeAmplitudeM, 0, 1000, 0)
        c.altitudeGmSigmaM = nonNegative(altitudeGmSigmaM, max: 1e5)
        c.altitudeGmTauS = clamp(altitudeGmTauS, 1e-6, .infinity, d.altitudeGmTauS)
        c.altitudeWhiteSigmaM = nonNegative(altitudeWhiteSigmaM, max: 1e5)
        c.altitudeDriftMPerSqrtH = nonNegative(altitudeDriftMPerSqrtH, max: 1000)
        if let model = altitudeError { model.apply(to: &c) }
        c.accuracyVariation = clamp(accuracyVariation, 0, 1, 0)
        c.maxFixes = min(max(maxFixes, 1), 10_000_000)
        c.standingDopplerSigmaMps = standingDopplerSigmaMps.isNaN ? .nan : nonNegative(standingDopplerSigmaMps, max: 1e5)
        return c
    }
}

/// `x` clamped to lo...hi; NaN gives `fallback`.
func clamp(_ x: Double, _ lo: Double, _ hi: Double, _ fallback: Double) -> Double {
    x.isNaN ? fallback : min(max(x, lo), hi)
}

/// `x` clamped to 0...hi (durations up to about 30 years, noise levels up to 100 km); NaN gives 0.
func nonNegative(_ x: Double, max hi: Double = 1e9) -> Double {
    x >= 0 ? min(x, hi) : 0
}

/// How the simulated person moves: the steady pace of a run, a walk or a ride.
///
/// ```swift
/// var config = SimConfig(motion: .walk)     // 11:00 min/km, 1.5 m/s
/// config.standStillAfterS = 600
/// ```
public enum SimMotion: String, Sendable, CaseIterable {
    /// 5:00 min/km (3.33 m/s).
    case run
    /// 11:00 min/km (1.52 m/s).
    case walk
    /// 27 km/h (7.5 m/s), 2:13 min/km.
    case ride

    public var paceMinPerKm: Double {
        switch self {
        case .run: 5
        case .walk: 11
        case .ride: 60 / 27
        }
    }
}

/// Altitude error models of the accuracy issue (#19).
public enum SimAltitudeError: String, Sendable, CaseIterable {
    /// No error at all: the true altitude.
    case clean
    /// GPS-like: Gauss–Markov σ 3 m, τ 60 s, plus 0.5 m white noise.
    case gps
    /// Barometric: 0.2 m white noise plus a slow drift (a random walk of 1 m per √hour).
    case barometric

    func apply(to c: inout SimConfig) {
        switch self {
        case .clean:
            c.altitudeGmSigmaM = 0; c.altitudeWhiteSigmaM = 0; c.altitudeDriftMPerSqrtH = 0
        case .gps:
            c.altitudeGmSigmaM = 3; c.altitudeGmTauS = 60; c.altitudeWhiteSigmaM = 0.5; c.altitudeDriftMPerSqrtH = 0
        case .barometric:
            c.altitudeGmSigmaM = 0; c.altitudeWhiteSigmaM = 0.2; c.altitudeDriftMPerSqrtH = 1
        }
    }
}

/// Where a simulated run reports its altitude.
public enum SimAltitudeSource: String, Sendable {
    /// On each fix (`alt`), as a GPS receiver does.
    case gps
    /// As a barometric altimeter sample (`{"type":"altimeter","alt":…,"t":…}`) before each fix.
    case barometric
}
