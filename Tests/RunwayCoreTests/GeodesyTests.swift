import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Vincenty's inverse formula on WGS84 (accurate to well under a millimetre for these lengths):
/// an independent reference for the engine's distances.
func vincentyDistance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
    let a = 6_378_137.0, f = 1 / 298.257223563, b = a * (1 - f)
    let rad = Double.pi / 180
    var dLon = lon2 - lon1
    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
    let L = dLon * rad
    let U1 = atan((1 - f) * tan(lat1 * rad)), U2 = atan((1 - f) * tan(lat2 * rad))
    let sinU1 = sin(U1), cosU1 = cos(U1), sinU2 = sin(U2), cosU2 = cos(U2)
    var lambda = L
    var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cos2Alpha = 0.0, cos2SigmaM = 0.0
    for _ in 0..<200 {
        let sinL = sin(lambda), cosL = cos(lambda)
        sinSigma = ((cosU2 * sinL) * (cosU2 * sinL) + (cosU1 * sinU2 - sinU1 * cosU2 * cosL) * (cosU1 * sinU2 - sinU1 * cosU2 * cosL)).squareRoot()
        if sinSigma == 0 { return 0 }
        cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL
        sigma = atan2(sinSigma, cosSigma)
        let sinAlpha = cosU1 * cosU2 * sinL / sinSigma
        cos2Alpha = 1 - sinAlpha * sinAlpha
        cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
        let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
        let prev = lambda
        lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
        if abs(lambda - prev) < 1e-13 { break }
    }
    let u2 = cos2Alpha * (a * a - b * b) / (b * b)
    let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
    let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
    let deltaSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
    return b * A * (sigma - deltaSigma)
}

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

@Suite("WGS84 distances")
struct GeodesyTests {
    @Test func segmentsUpTo10kmStayWithinOneThousandthOfAPercentOfTheGeodesic() {
        var rng = SeededRandom(seed: 42)
        var worst = 0.0
        for _ in 0..<20_000 {
            let lat1 = Double.random(in: -80...80, using: &rng)
            let lon1 = Double.random(in: -180...180, using: &rng)
            let length = Double.random(in: 1...10_000, using: &rng)
            let azimuth = Double.random(in: 0..<(2 * Double.pi), using: &rng)
            // Place the second point about `length` metres away (any rough placement will do: the
            // reference, not this placement, decides the true distance).
            let dLat = length * cos(azimuth) / 111_000
            let dLon = length * sin(azimuth) / (111_000 * max(0.05, cos(lat1 * Double.pi / 180)))
            let lat2 = min(80, max(-80, lat1 + dLat))
            var lon2 = lon1 + dLon
            if lon2 > 180 { lon2 -= 360 } else if lon2 < -180 { lon2 += 360 }
            let truth = vincentyDistance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            guard truth > 0.5, truth <= 10_000 else { continue }
            let ours = Geodesy.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            worst = max(worst, abs(ours - truth) / truth)
        }
        #expect(worst < 1e-5, "worst relative error \(worst)")
    }

    @Test func aSphericalHaversineWouldFailTheSameBound() {
        // Guards the test above: a sphere of mean radius is off by up to ~0.5%, far beyond 0.001%.
        let lat1 = 60.0, lon1 = 10.0, lat2 = 60.05, lon2 = 10.0
        let r = 6_371_008.8, rad = Double.pi / 180
        let h = 2 * r * asin(sqrt(pow(sin((lat2 - lat1) * rad / 2), 2)))
        let truth = vincentyDistance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        #expect(abs(h - truth) / truth > 1e-4)
        #expect(abs(Geodesy.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) - truth) / truth < 1e-5)
    }

    /// The scales' cosine is within one ulp of libm's at every latitude (it differs in the last
    /// bit on about a sixth of them): the figures are libm's to the last bit or so.
    @Test func theLatitudeCosineIsLibmsToOneUlp() {
        var rng = SystemRandomNumberGenerator()
        var latitudes: [Double] = [0, -0.0, 45, -45, 44.999999999, 45.000000001, 89.99, 90, -90]
        for _ in 0..<1_000_000 { latitudes.append(Double.random(in: -90...90, using: &rng)) }
        var worst = 0.0, differing = 0
        for lat in latitudes {
            let x = lat * Double.pi / 180
            let mine = Geodesy.cosine(x), libm = cos(x)
            if mine != libm { differing += 1 }
            worst = max(worst, abs(mine - libm) / libm.ulp)
        }
        #expect(worst <= 1, "worst \(worst) ulp")
        #expect(differing < latitudes.count / 3)
        #expect(Geodesy.cosine(2) == cos(2))   // beyond a latitude: libm's own
    }

    /// The course's sine and cosine (the track filter's Doppler velocity): on the reduced angle
    /// the polynomials are libm's to one ulp; on the whole course they agree with libm's of the
    /// course rounded to radians (as the filter computed them before) to 2e-15, that rounding's
    /// own error (π/180 and the product, 2.2e-16 relative of up to 6.3 rad) and an ulp each;
    /// with the right signs in each quadrant and at the exact quarters.
    @Test func theCourseSineAndCosineAreLibmsTo2e15() {
        var rng = SystemRandomNumberGenerator()
        var courses: [Double] = [0, 45, 89.999999, 90, 135, 180, 225, 270, 315, 359.9999999, 360]
        for _ in 0..<1_000_000 { courses.append(Double.random(in: 0...360, using: &rng)) }
        var worst = 0.0, worstUlp = 0.0
        for c in courses {
            let (s, k) = TrackFilter.sinCos(degrees: c)
            let x = c * Geodesy.degToRad
            worst = max(worst, abs(s - sin(x)), abs(k - cos(x)))
            let r = (c.truncatingRemainder(dividingBy: 90) - (c.truncatingRemainder(dividingBy: 90) > 45 ? 90 : 0)) * Geodesy.degToRad
            worstUlp = max(worstUlp, abs(Geodesy.sine(r) - sin(r)) / max(sin(r).ulp, Double.leastNormalMagnitude),
                           abs(Geodesy.cosine(r) - cos(r)) / cos(r).ulp)
        }
        #expect(worst < 2e-15, "worst \(worst)")
        #expect(worstUlp <= 1, "worst \(worstUlp) ulp on the reduced angle")
        #expect(TrackFilter.sinCos(degrees: 90) == (1, -0.0) && TrackFilter.sinCos(degrees: 180) == (-0.0, -1))
        #expect(TrackFilter.sinCos(degrees: 270).sin == -1 && TrackFilter.sinCos(degrees: 360).cos == 1)
        #expect(TrackFilter.sinCos(degrees: 400) == (sin(400 * Double.pi / 180), cos(400 * Double.pi / 180)))
    }

    @Test func segmentsAcrossTheAntimeridianAreShort() {
        let d = Geodesy.distance(lat1: -17.0, lon1: 179.9995, lat2: -17.0, lon2: -179.9995)
        let truth = vincentyDistance(lat1: -17.0, lon1: 179.9995, lat2: -17.0, lon2: -179.9995)
        #expect(truth > 100 && truth < 110)
        #expect(abs(d - truth) / truth < 1e-5)
    }

    @Test func bearingFollowsCompassConvention() {
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: 0.01, lon2: 0) - 0) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: 0, lon2: 0.01) - 90) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: -0.01, lon2: 0) - 180) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: 0, lon2: -0.01) - 270) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 10, lon1: 179.999, lat2: 10, lon2: -179.999) - 90) < 1e-6)
    }
}

@Suite("Geodesy.Measured: an offset measured once")
struct GeodesyMeasuredTests {
    /// The route takes the gate's measured step when its points are the same, bit for bit: the
    /// same offset as measuring again; any other points are measured.
    @Test func theSamePointsGiveTheOffsetMeasuredOtherPointsTheirOwn() {
        let o = Geodesy.offset(lat1: 52.1, lon1: 4.3, lat2: 52.10003, lon2: 4.30004)
        let m = Geodesy.Measured(lat1: 52.1, lon1: 4.3, lat2: 52.10003, lon2: 4.30004, offset: o)
        let same = m.offset(lat1: 52.1, lon1: 4.3, lat2: 52.10003, lon2: 4.30004)
        #expect(same.dx == o.dx && same.dy == o.dy)
        let other = m.offset(lat1: 52.09999, lon1: 4.3, lat2: 52.10003, lon2: 4.30004)
        let measured = Geodesy.offset(lat1: 52.09999, lon1: 4.3, lat2: 52.10003, lon2: 4.30004)
        #expect(other.dx == measured.dx && other.dy == measured.dy && other.dy != o.dy)
        // -0 is not 0 here: the offset tells them apart (the sign of a zero difference).
        let zero = Geodesy.Measured(lat1: 0, lon1: 4.3, lat2: 0, lon2: 4.3, offset: (1, 1))
        #expect(zero.offset(lat1: -0.0, lon1: 4.3, lat2: 0, lon2: 4.3).dx == 0)
        // Nothing measured: NaN points measure NaN, as `offset` does.
        let empty = Geodesy.Measured().offset(lat1: .nan, lon1: .nan, lat2: .nan, lon2: .nan)
        #expect(empty.dx.isNaN && empty.dy.isNaN)
    }
}
