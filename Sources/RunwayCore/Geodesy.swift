#if canImport(Glibc)
import Glibc
#endif

/// Distances and bearings on the WGS84 ellipsoid.
///
/// Uses the local ellipsoidal approximation at the segment's mid-latitude (the radii of curvature
/// of the meridian and the prime vertical, as cheap-ruler does). For segments up to 10 km at
/// latitudes up to 80° it stays within 0.001% of the exact geodesic (the tests check it against
/// Vincenty's inverse formula), at the cost of one cosine and one square root.
public enum Geodesy {
    /// WGS84 semi-major axis, metres.
    public static let a = 6_378_137.0
    /// WGS84 flattening.
    public static let f = 1.0 / 298.257223563
    static let e2 = f * (2 - f)
    static let metresPerRadian = a
    static let degToRad = Double.pi / 180

    /// Metres per degree of latitude (ky) and of longitude (kx) at a latitude.
    @inline(__always)
    static func scales(latitude: Double) -> (kx: Double, ky: Double) {
        let c = cosine(latitude * degToRad)
        let w2 = 1 / (1 - e2 * (1 - c * c))
        let w = w2.squareRoot()
        let m = metresPerRadian * degToRad
        return (m * w * c, m * w * w2 * (1 - e2))
    }

    /// The cosine of a latitude in radians, within one ulp of libm's `cos` (the tests compare
    /// millions): a Taylor polynomial of cos up to π/4 and of sin of the complement above it
    /// (π/2 − |x| is exact there, and its rounding error is added back), a third of libm's cost.
    /// Beyond ±π/2 (no latitude is): libm.
    @inline(__always)
    static func cosine(_ x: Double) -> Double {
        let a = abs(x)
        if a <= 0.7853981633974483 {
            let z = a * a
            var p = 1.0 / 20_922_789_888_000
            p = p * z - 1.0 / 87_178_291_200
            p = p * z + 1.0 / 479_001_600
            p = p * z - 1.0 / 3_628_800
            p = p * z + 1.0 / 40_320
            p = p * z - 1.0 / 720
            p = p * z + 1.0 / 24
            p = p * z - 1.0 / 2
            return 1 + z * p
        }
        guard a <= 1.5707963267948966 else { return cos(x) }
        return sine((1.5707963267948966 - a) + 6.123233995736766e-17)
    }

    /// The sine of an angle of at most π/4 in radians, within one ulp: a Taylor polynomial.
    @inline(__always)
    static func sine(_ x: Double) -> Double {
        let z = x * x
        var p = 1.0 / 355_687_428_096_000
        p = p * z - 1.0 / 1_307_674_368_000
        p = p * z + 1.0 / 6_227_020_800
        p = p * z - 1.0 / 39_916_800
        p = p * z + 1.0 / 362_880
        p = p * z - 1.0 / 5_040
        p = p * z + 1.0 / 120
        p = p * z - 1.0 / 6
        return x + x * z * p
    }

    /// Longitude difference wrapped into -180...180, so segments across the antimeridian are short.
    @inline(__always)
    static func wrappedDeltaLon(_ lon1: Double, _ lon2: Double) -> Double {
        var d = lon2 - lon1
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }

    /// The second point's offset from the first in metres, east and north, on the local plane at
    /// their mid-latitude: what `distance` and `bearing` are made of.
    @inline(__always)
    static func offset(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> (dx: Double, dy: Double) {
        let k = scales(latitude: (lat1 + lat2) / 2)
        return (wrappedDeltaLon(lon1, lon2) * k.kx, (lat2 - lat1) * k.ky)
    }

    /// An offset measured (`offset`) with its two points: a stage that measures the same two
    /// points again takes it (`offset` is a function of them alone: the same value, without its
    /// cosine, square root and division again).
    struct Measured: Sendable {
        var lat1 = Double.nan, lon1 = Double.nan, lat2 = Double.nan, lon2 = Double.nan
        var offset = (dx: Double.nan, dy: Double.nan)   // (none measured: what NaN points measure)

        /// The offset from the first point to the second, taken from here when these are the two
        /// points measured (bit for bit: `offset` tells 0 from -0).
        @inline(__always)
        func offset(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> (dx: Double, dy: Double) {
            if lat1.bitPattern == self.lat1.bitPattern && lon1.bitPattern == self.lon1.bitPattern
                && lat2.bitPattern == self.lat2.bitPattern && lon2.bitPattern == self.lon2.bitPattern {
                return offset
            }
            return Geodesy.offset(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        }
    }

    /// Distance in metres between two points given in degrees.
    @inline(__always)
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        length(offset(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2))
    }

    @inline(__always)
    static func length(_ o: (dx: Double, dy: Double)) -> Double { (o.dx * o.dx + o.dy * o.dy).squareRoot() }

    /// Initial bearing in degrees clockwise from true north, 0..<360.
    public static func bearing(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        bearing(offset(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2))
    }

    /// The bearing of an offset (`offset`), degrees clockwise from true north, 0..<360.
    static func bearing(_ o: (dx: Double, dy: Double)) -> Double {
        var b = atan2(o.dx, o.dy) / degToRad
        if b < 0 { b += 360 }
        if b >= 360 { b -= 360 }
        return b
    }
}
