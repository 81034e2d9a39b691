#if canImport(Glibc)
import Glibc
#endif

/// The WGS84 ellipsoid, independently of the engine: local scales and Vincenty's geodesics.
///
/// RunwaySim must not share code with RunwayCore, so that its truth is an independent check of
/// the engine's distances. Positions are built with a local ellipsoidal scale
/// (``offset(lat:lon:east:north:)``) and measured with the exact geodesic
/// (``inverse(lat1:lon1:lat2:lon2:)``).
public enum WGS84 {
    /// Semi-major axis, metres.
    public static let a = 6_378_137.0
    /// Flattening.
    public static let f = 1 / 298.257223563
    /// Semi-minor axis, metres.
    public static let b = a * (1 - f)
    /// First eccentricity squared.
    public static let e2 = f * (2 - f)
    static let rad = Double.pi / 180

    /// Radii of curvature at a latitude (degrees): of the meridian (M, north–south) and of the
    /// prime vertical (N, east–west, before the cos φ factor of a parallel).
    public static func radii(latitude: Double) -> (meridian: Double, primeVertical: Double) {
        let s = sin(latitude * rad)
        let w2 = 1 - e2 * s * s
        let w = w2.squareRoot()
        return (a * (1 - e2) / (w2 * w), a / w)
    }

    /// A longitude wrapped into -180 ..< 180 (180 itself becomes -180).
    public static func normalisedLongitude(_ lon: Double) -> Double {
        guard lon.isFinite else { return lon }
        if lon >= -180 && lon < 180 { return lon }
        // fmod is exact, and so are these subtractions (Sterbenz), so no precision is lost.
        var x = fmod(lon, 360)
        if x >= 180 { x -= 360 } else if x < -180 { x += 360 }
        return x
    }

    /// The point `east` and `north` metres from (lat, lon), by the local ellipsoidal scale.
    ///
    /// Northing uses the meridian radius at the mid-latitude of the move, easting the radius of
    /// the parallel at the new latitude, so moves along a meridian or a parallel keep their
    /// length to a few parts per million over kilometres. The longitude comes back normalised to
    /// -180 ..< 180, so offsets across the antimeridian wrap.
    public static func offset(lat: Double, lon: Double, east: Double, north: Double) -> (lat: Double, lon: Double) {
        let firstGuess = lat + north / radii(latitude: lat).meridian / rad
        let m = radii(latitude: (lat + firstGuess) / 2).meridian
        let newLat = lat + north / m / rad
        let n = radii(latitude: newLat).primeVertical
        let c = cos(newLat * rad)
        let dLon = c > 1e-12 ? east / (n * c) / rad : 0
        return (newLat, normalisedLongitude(lon + dLon))
    }

    /// The geodesic between two points by Vincenty's inverse formula (1975).
    ///
    /// Accurate to well under a millimetre on the ellipsoid; it converges for every pair that is
    /// not nearly antipodal (which a run never produces; after 200 iterations it returns its
    /// latest estimate). Longitude differences are wrapped, so a line across the antimeridian is
    /// short. Identical points give distance 0 and azimuth 0.
    ///
    /// - Returns: the distance in metres and the initial azimuth in degrees clockwise from
    ///   north, in 0 ..< 360.
    public static func inverse(lat1: Double, lon1: Double, lat2: Double, lon2: Double)
        -> (distance: Double, azimuth: Double)
    {
        var dLon = normalisedLongitude(lon2 - lon1)
        if dLon == -180 { dLon = 180 }
        let L = dLon * rad
        let u1 = atan((1 - f) * tan(lat1 * rad)), u2 = atan((1 - f) * tan(lat2 * rad))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = L
        var sinLambda = 0.0, cosLambda = 1.0
        var sinSigma = 0.0, cosSigma = 1.0, sigma = 0.0, cos2Alpha = 1.0, cos2SigmaM = 0.0
        for _ in 0..<200 {
            sinLambda = sin(lambda)
            cosLambda = cos(lambda)
            let p = cosU2 * sinLambda
            let q = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (p * p + q * q).squareRoot()
            if sinSigma == 0 { return (0, 0) }    // coincident points
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cos2Alpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0   // equatorial line
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = L + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-13 { break }
        }
        let uu = cos2Alpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uu / 16384 * (4096 + uu * (-768 + uu * (320 - 175 * uu)))
        let bigB = uu / 1024 * (256 + uu * (-128 + uu * (74 - 47 * uu)))
        let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
            - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        let distance = b * bigA * (sigma - deltaSigma)
        var azimuth = atan2(cosU2 * sinLambda, cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) / rad
        if azimuth < 0 { azimuth += 360 }
        if azimuth >= 360 { azimuth -= 360 }
        return (distance, azimuth)
    }

    /// The geodesic distance in metres between two points (Vincenty; see ``inverse(lat1:lon1:lat2:lon2:)``).
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        inverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2).distance
    }
}
