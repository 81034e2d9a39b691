/// Ramer–Douglas–Peucker simplification of the route, for drawing it as a polyline on a map.
public enum Simplify {
    /// The indices of the points to keep so that no dropped point lies farther than `toleranceM`
    /// metres from the simplified line; segments are simplified separately and keep their ends.
    ///
    /// Iterative (an explicit stack), so a route of any length cannot exhaust the call stack.
    /// Distances are measured on the local tangent plane of each stretch (exact enough at metre
    /// tolerances: the plane's error over 10 km is a few centimetres).
    ///
    /// The work is bounded as introsort bounds quicksort's: a stretch split more than
    /// `depthLimit` times over is split at its middle point instead of its farthest (kept, and
    /// the halves simplified on, so no dropped point is farther than the tolerance still), so
    /// each point is measured at most `depthLimit` + log2(count) + 1 times. Plain RDP peels one
    /// point a pass off a zigzag whose farthest point is always at an end: n²/2 measurements, a
    /// 1 000 000-point route about 5·10^11 (half an hour or more, in a summary, `runway_analyse`
    /// or a stored session's stop). A route whose splits stay within the limit (every recording
    /// and simulated flight the tests replay) is simplified exactly as before.
    public static func indices(of route: Route, toleranceM: Double) -> [Int] {
        var work = 0
        return indices(of: route, toleranceM: toleranceM, work: &work)
    }

    /// How many times a stretch is split at its farthest point before its middle one.
    static let depthLimit = 64

    /// `indices(of:toleranceM:)`, counting the points measured in `work` (tests).
    static func indices(of route: Route, toleranceM: Double, work: inout Int) -> [Int] {
        guard route.count > 0 else { return [] }
        var keep = [Bool](repeating: false, count: route.count)
        let starts = route.segmentStarts.isEmpty ? [0] : route.segmentStarts
        // The coordinates in degrees once (the same doubles `Route.latitude(_:)` gives): a point
        // is measured once per level of the recursion.
        let lat = (0..<route.count).map { route.latitude($0) }
        let lon = (0..<route.count).map { route.longitude($0) }
        lat.withUnsafeBufferPointer { lat in
            lon.withUnsafeBufferPointer { lon in
                for (k, first) in starts.enumerated() {
                    let last = (k + 1 < starts.count ? starts[k + 1] : route.count) - 1
                    guard first <= last, first >= 0, last < route.count else { continue }
                    keep[first] = true
                    keep[last] = true
                    var stack = [(first, last, 0)]
                    while let (a, b, depth) = stack.popLast() {
                        guard b > a + 1 else { continue }
                        let (farthest, d) = farthestPoint(lat, lon, a, b)
                        work += b - a - 1
                        if d > toleranceM {
                            let split = depth < depthLimit ? farthest : a + (b - a) / 2
                            keep[split] = true
                            stack.append((a, split, depth + 1))
                            stack.append((split, b, depth + 1))
                        }
                    }
                }
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// `farthestPoint` on a route's points (tests).
    static func farthestPoint(_ r: Route, _ a: Int, _ b: Int) -> (Int, Double) {
        let lat = (0..<r.count).map { r.latitude($0) }, lon = (0..<r.count).map { r.longitude($0) }
        return lat.withUnsafeBufferPointer { lat in
            lon.withUnsafeBufferPointer { lon in farthestPoint(lat, lon, a, b) }
        }
    }

    /// The point between `a` and `b` (0 ≤ a < b < count) farthest from the line a–b, and its
    /// distance in metres.
    static func farthestPoint(_ lat: UnsafeBufferPointer<Double>, _ lon: UnsafeBufferPointer<Double>,
                              _ a: Int, _ b: Int) -> (Int, Double) {
        let lat0 = lat[a], lon0 = lon[a]
        let k = Geodesy.scales(latitude: (lat0 + lat[b]) / 2)
        @inline(__always)
        func xy(_ i: Int) -> (Double, Double) {
            (Geodesy.wrappedDeltaLon(lon0, lon[i]) * k.kx, (lat[i] - lat0) * k.ky)
        }
        let (bx, by) = xy(b)
        let len2 = bx * bx + by * by
        // The projection's fraction along a–b clamped to 0...1, without the division where it
        // clamps (0 for dot ≤ 0, 1 for dot ≥ len2: what the division and clamp give then, up to
        // the sign of a zero, which a square hides); a non-finite len2 takes the division.
        let clampsExactly = len2.isFinite
        // The points compared by squared distance, which orders them as the distance does; the
        // distance (a square root) is taken only where the squared one beats the best so far,
        // and compared as before, so the same point wins (a tie in the root keeps the first).
        var best = a + 1, bestD = -1.0, bestD2 = -1.0
        for i in (a + 1)..<b {
            let (px, py) = xy(i)
            let d2: Double
            if len2 == 0 {
                d2 = px * px + py * py
            } else {
                let dot = px * bx + py * by
                let u = clampsExactly && dot <= 0 ? 0 : clampsExactly && dot >= len2 ? 1 : max(0, min(1, dot / len2))
                let dx = px - u * bx, dy = py - u * by
                d2 = dx * dx + dy * dy
            }
            if d2 > bestD2 {
                let d = d2.squareRoot()
                if d > bestD { bestD = d; best = i; bestD2 = d2 }
            }
        }
        return (best, bestD)
    }
}
