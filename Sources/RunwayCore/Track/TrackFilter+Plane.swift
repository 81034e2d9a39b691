#if canImport(Glibc)
import Glibc
#endif

/// The filter's arithmetic on the local tangent plane: metres per degree, the prediction, the
/// position and velocity updates applied to the estimate in degrees, and a course's sine and
/// cosine.
extension TrackFilter {
    @inline(__always)
    mutating func scales() -> (kx: Double, ky: Double) {
        if scaleLat.isNaN || abs(lat - scaleLat) > 0.001 {
            scaleLat = lat
            cachedScales = Geodesy.scales(latitude: lat)
        }
        return cachedScales
    }

    /// The fix's accuracy, at least `minPositionSigmaM` (that without one).
    @inline(__always)
    func positionSigma(_ fix: Fix) -> Double { fix.hAcc(atLeast: settings.minPositionSigmaM) }

    @inline(__always)
    mutating func predict(_ dt: Double) {
        // Move the estimate by v·dt on the local plane.
        let k = scales()
        lat += vn * dt / k.ky
        lon += ve * dt / k.kx
        wrapAndClamp()
        // P = F P Fᵀ + Q per axis, F = [[1, dt], [0, 1]], Q from white acceleration.
        let q = settings.accelerationSigma * settings.accelerationSigma
        let dt2 = dt * dt
        let qpp = q * dt2 * dt2 / 4, qpv = q * dt2 * dt / 2, qvv = q * dt2
        east.predict(dt, qpp: qpp, qpv: qpv, qvv: qvv)
        north.predict(dt, qpp: qpp, qpv: qpv, qvv: qvv)
    }

    /// Applies an update of the east axis: `d` metres east and `dv` m/s to the east velocity, with
    /// the scales `k` that `scales()` gave at the current latitude.
    @inline(__always)
    mutating func applyEast(_ d: Double, _ dv: Double, _ k: (kx: Double, ky: Double)) {
        lon += d / k.kx
        wrapLon()   // (the latitude is as it was)
        ve += dv
    }

    /// Applies an update of the north axis: `d` metres north and `dv` m/s to the north velocity
    /// (`k` as for `applyEast`, taken before the latitude moves).
    @inline(__always)
    mutating func applyNorth(_ d: Double, _ dv: Double, _ k: (kx: Double, ky: Double)) {
        lat += d / k.ky
        clampLat()   // (the longitude is as it was)
        vn += dv
    }

    @inline(__always)
    mutating func wrapAndClamp() {
        wrapLon()
        clampLat()
    }

    @inline(__always)
    mutating func wrapLon() {
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
    }

    @inline(__always)
    mutating func clampLat() { lat = min(90, max(-90, lat)) }

    @inline(__always)
    mutating func correctPosition(_ fix: Fix) {
        let sigma = positionSigma(fix)
        let r = sigma * sigma
        // Sequential scalar updates (the axes' noises are independent); each innovation is taken
        // against the estimate as the previous update left it. The east update leaves the
        // latitude, so the scales hold for both (asking `scales()` again would return the same).
        let k = scales()
        let ex = Geodesy.wrappedDeltaLon(lon, fix.lon) * k.kx
        let de = east.correctPosition(innovation: ex, variance: r)
        applyEast(de.position, de.velocity, k)
        let ny = (fix.lat - lat) * k.ky
        let dn = north.correctPosition(innovation: ny, variance: r)
        applyNorth(dn.position, dn.velocity, k)
    }

    @inline(__always)
    mutating func correctVelocity(_ fix: Fix) {
        let (s, c) = Self.sinCos(degrees: fix.course)
        let r = settings.dopplerSigmaMps * settings.dopplerSigmaMps
        let k = scales()   // at the latitude the position update left
        let de = east.correctVelocity(innovation: fix.speed * s - ve, variance: r)
        applyEast(de.position, de.velocity, k)
        let dn = north.correctVelocity(innovation: fix.speed * c - vn, variance: r)
        applyNorth(dn.position, dn.velocity, k)
    }

    /// The sine and cosine of a course in degrees (0...360; anything else: libm's).
    ///
    /// The course is reduced to ±45° in degrees, exactly (90·q is within a factor of two of a
    /// course of 45° or more), then to radians, where Taylor polynomials of sin and cos are
    /// within an ulp; the quadrant swaps and signs them. Rounding the whole course to radians for
    /// libm errs by up to 1.4e-15 at 360°, so the two agree to 2e-15 (the tests compare a million
    /// courses), this one closer to the true values, at half the cost.
    @inline(__always)
    static func sinCos(degrees: Double) -> (sin: Double, cos: Double) {
        guard degrees >= 0, degrees <= 360 else {
            let x = degrees * Geodesy.degToRad
            return (sin(x), cos(x))
        }
        // q = Int(v), 0...4, by comparison (the conversion's range checks cost more than these).
        let v = degrees * (1.0 / 90) + 0.5
        let q = v < 2 ? (v < 1 ? 0 : 1) : v < 3 ? 2 : v < 4 ? 3 : 4
        let x = (degrees - 90 * Double(q)) * Geodesy.degToRad
        let s = Geodesy.sine(x), c = Geodesy.cosine(x)
        switch q & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }
}
