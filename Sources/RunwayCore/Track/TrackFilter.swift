#if canImport(Glibc)
import Glibc
#endif

/// Distance that survives GPS noise: a constant-velocity Kalman filter over the accepted fixes,
/// in metres on the local tangent plane of its own estimate, that uses everything a fix carries.
///
/// - Positions update the filter with their accuracy (a floor of `minPositionSigmaM`).
/// - A Doppler speed with a course updates the velocity directly (Doppler is far less noisy than
///   positions differenced).
/// - Distance: with Doppler speed in the fixes, the trapezoid of the speeds over time (a speed
///   below `stationaryDopplerMps` counts as standing); otherwise the filtered speed over time
///   while it is above `movingSpeedMps` (the filtered speed of a receiver standing still wanders,
///   and adding it up is how raw accumulation turns ten minutes at a red light into a kilometre).
///
/// Raw accumulation of the simulated receiver error in the tests reads ~10% long and adds ~900 m
/// in ten minutes standing still; this filter stays within the figures (see the tests).
public struct TrackFilter: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Random acceleration of the runner (m/s²), the process noise.
        public var accelerationSigma: Double = 0.3
        /// The least position noise assumed for a fix, metres (also used without h_acc).
        public var minPositionSigmaM: Double = 3
        /// Doppler speed noise assumed per axis (m/s).
        public var dopplerSigmaMps: Double = 0.15
        /// Doppler speeds below this count as standing still.
        public var stationaryDopplerMps: Double = 0.4
        /// Filtered speeds below this count as standing still (positions only).
        public var movingSpeedMps: Double = 0.8
        /// No speed above this counts (the gate's cap for the activity).
        public var speedCapMps: Double = 12
        /// A step longer than this is judged moving by its displacement, not its endpoints' speeds.
        public var longStepS: Double = 5
        public init() {}
    }

    public let settings: Settings

    // State: the estimate's position in degrees, its velocity east/north in m/s, and the 4×4
    // covariance in metres (row-major, order x y vx vy).
    var lat = Double.nan, lon = Double.nan
    var ve = 0.0, vn = 0.0
    var p = SIMD16<Double>(repeating: 0)   // on the stack: no heap traffic per fix
    var lastT = Double.nan
    var lastDoppler = Double.nan
    var lastFixLat = Double.nan, lastFixLon = Double.nan
    // Metres per degree at `scaleLat`, refreshed when the estimate has moved 0.001° (111 m) in
    // latitude: a relative error below 2e-5 at 80°, and one cosine per ~30 s of running, not four
    // a fix.
    var scaleLat = Double.nan
    var cachedScales = (kx: 0.0, ky: 0.0)

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The filtered ground speed (m/s); NaN before the filter has a velocity.
    public var speedMps: Double { lat.isNaN ? .nan : (ve * ve + vn * vn).squareRoot() }

    /// Whether the filter has a position.
    public var isStarted: Bool { !lat.isNaN }

    /// Starts over at `fix` (the first fix, or after a gap or a jump).
    public mutating func reset(at fix: Fix, t: Double) {
        lat = fix.lat; lon = fix.lon
        let sigma = positionSigma(fix)
        var v0 = 0.0, vn0 = 0.0
        var velocityVar = 25.0
        if !fix.speed.isNaN && !fix.course.isNaN {
            let c = fix.course * Geodesy.degToRad
            v0 = fix.speed * sin(c); vn0 = fix.speed * cos(c)
            velocityVar = settings.dopplerSigmaMps * settings.dopplerSigmaMps
        }
        ve = v0; vn = vn0
        p = SIMD16<Double>(sigma * sigma, 0, 0, 0,
                           0, sigma * sigma, 0, 0,
                           0, 0, velocityVar, 0,
                           0, 0, 0, velocityVar)
        lastT = t
        lastDoppler = fix.speed
        lastFixLat = fix.lat; lastFixLon = fix.lon
    }

    /// Adds a fix; returns the step from the previous fix: the distance travelled and whether it moved.
    public mutating func update(_ fix: Fix, t: Double) -> Step {
        guard !lat.isNaN, !lastT.isNaN else {
            reset(at: fix, t: t)
            return Step(distanceM: 0, moving: false)
        }
        let dt = t - lastT
        guard dt > 0 else { return Step(distanceM: 0, moving: false) }
        let speedBefore = speedMps
        predict(dt)
        correctPosition(fix)
        if !fix.speed.isNaN && !fix.course.isNaN { correctVelocity(fix) }
        lastT = t
        let result: (Double, Bool)
        if !fix.speed.isNaN && !lastDoppler.isNaN {
            let a = lastDoppler < settings.stationaryDopplerMps ? 0 : lastDoppler
            let b = fix.speed < settings.stationaryDopplerMps ? 0 : fix.speed
            var d = (a + b) / 2 * dt
            // Starting, stopping or "standing": some receivers report 0 m/s for the first seconds
            // of a run. When Doppler says standing at either end, let the filtered positions
            // speak if they clearly move.
            if a == 0 || b == 0 {
                let v = speedMps
                if v >= settings.movingSpeedMps { d = max(d, v * dt) }
            }
            // Over a long step (sparse "smart" recording, a device that stopped recording while
            // its rider stood) the endpoints' speeds say little about the time between: moving is
            // judged by the displacement over the step.
            if dt > settings.longStepS {
                let chord = Geodesy.distance(lat1: lastFixLat, lon1: lastFixLon, lat2: fix.lat, lon2: fix.lon)
                result = (d, chord / dt >= settings.stationaryDopplerMps)
            } else {
                result = (d, d > 0)
            }
        } else {
            let v = speedMps
            let moving = v >= settings.movingSpeedMps
            // The trapezoid of the filtered speed, when both ends are moving.
            let before = speedBefore.isNaN ? v : speedBefore
            result = (moving ? (before >= settings.movingSpeedMps ? (before + v) / 2 : v) * dt : 0, moving)
        }
        lastDoppler = fix.speed
        lastFixLat = fix.lat; lastFixLon = fix.lon
        return Step(distanceM: min(result.0, settings.speedCapMps * dt), moving: result.1)
    }

    mutating func scales() -> (kx: Double, ky: Double) {
        if scaleLat.isNaN || abs(lat - scaleLat) > 0.001 {
            scaleLat = lat
            cachedScales = Geodesy.scales(latitude: lat)
        }
        return cachedScales
    }

    func positionSigma(_ fix: Fix) -> Double {
        fix.hAcc.isNaN ? settings.minPositionSigmaM : max(settings.minPositionSigmaM, fix.hAcc)
    }

    mutating func predict(_ dt: Double) {
        // Move the estimate by v·dt on the local plane.
        let k = scales()
        lat += vn * dt / k.ky
        lon += ve * dt / k.kx
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        lat = min(90, max(-90, lat))
        // P = F P Fᵀ + Q, F = [[I, dt·I], [0, I]], Q from white acceleration.
        var n = p
        for r in 0..<2 {
            for c in 0..<4 {
                n[r * 4 + c] = p[r * 4 + c] + dt * p[(r + 2) * 4 + c]
            }
        }
        var m = n
        for r in 0..<4 {
            for c in 0..<2 {
                m[r * 4 + c] = n[r * 4 + c] + dt * n[r * 4 + c + 2]
            }
        }
        let q = settings.accelerationSigma * settings.accelerationSigma
        let dt2 = dt * dt
        let qpp = q * dt2 * dt2 / 4, qpv = q * dt2 * dt / 2, qvv = q * dt2
        m[0] += qpp; m[5] += qpp; m[10] += qvv; m[15] += qvv
        m[2] += qpv; m[8] += qpv; m[7] += qpv; m[13] += qpv
        p = m
    }

    /// Scalar update of state component `i` (0 x, 1 y, 2 vx, 3 vy) with innovation `y`, variance `r`.
    mutating func correct(component i: Int, innovation y: Double, variance r: Double) -> SIMD4<Double> {
        let s = p[i * 4 + i] + r
        guard s > 0, s.isFinite else { return SIMD4<Double>(repeating: 0) }
        let k = SIMD4<Double>(p[i], p[4 + i], p[8 + i], p[12 + i]) / s
        var n = p
        for a in 0..<4 {
            for b in 0..<4 {
                n[a * 4 + b] = p[a * 4 + b] - k[a] * p[i * 4 + b]
            }
        }
        p = n
        return k * y
    }

    mutating func apply(_ dx: SIMD4<Double>) {
        let k = scales()
        lon += dx[0] / k.kx
        lat += dx[1] / k.ky
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        lat = min(90, max(-90, lat))
        ve += dx[2]; vn += dx[3]
    }

    mutating func correctPosition(_ fix: Fix) {
        let sigma = positionSigma(fix)
        let r = sigma * sigma
        // Sequential scalar updates (the axes' noises are independent); each innovation is taken
        // against the estimate as the previous update left it.
        let ex = Geodesy.wrappedDeltaLon(lon, fix.lon) * scales().kx
        apply(correct(component: 0, innovation: ex, variance: r))
        let ny = (fix.lat - lat) * scales().ky
        apply(correct(component: 1, innovation: ny, variance: r))
    }

    mutating func correctVelocity(_ fix: Fix) {
        let c = fix.course * Geodesy.degToRad
        let r = settings.dopplerSigmaMps * settings.dopplerSigmaMps
        apply(correct(component: 2, innovation: fix.speed * sin(c) - ve, variance: r))
        apply(correct(component: 3, innovation: fix.speed * cos(c) - vn, variance: r))
    }
}
