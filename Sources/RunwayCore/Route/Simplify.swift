/// Ramer–Douglas–Peucker simplification of the route, for drawing it as a polyline on a map.
public enum Simplify {
    /// The indices of the points to keep so that no dropped point lies farther than `toleranceM`
    /// metres from the simplified line; segments are simplified separately and keep their ends.
    ///
    /// Iterative (an explicit stack), so a route of any length cannot exhaust the call stack.
    /// Distances are measured on the local tangent plane of each stretch (exact enough at metre
    /// tolerances: the plane's error over 10 km is a few centimetres).
    public static func indices(of route: Route, toleranceM: Double) -> [Int] {
        guard route.count > 0 else { return [] }
        var keep = [Bool](repeating: false, count: route.count)
        let starts = route.segmentStarts.isEmpty ? [0] : route.segmentStarts
        for (k, first) in starts.enumerated() {
            let last = (k + 1 < starts.count ? starts[k + 1] : route.count) - 1
            guard first <= last, first >= 0, last < route.count else { continue }
            keep[first] = true
            keep[last] = true
            var stack = [(first, last)]
            while let (a, b) = stack.popLast() {
                guard b > a + 1 else { continue }
                let (farthest, d) = farthestPoint(route, a, b)
                if d > toleranceM {
                    keep[farthest] = true
                    stack.append((a, farthest))
                    stack.append((farthest, b))
                }
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// The point between `a` and `b` farthest from the line a–b, and its distance in metres.
    static func farthestPoint(_ r: Route, _ a: Int, _ b: Int) -> (Int, Double) {
        let lat0 = r.latitude(a), lon0 = r.longitude(a)
        let k = Geodesy.scales(latitude: (lat0 + r.latitude(b)) / 2)
        func xy(_ i: Int) -> (Double, Double) {
            (Geodesy.wrappedDeltaLon(lon0, r.longitude(i)) * k.kx, (r.latitude(i) - lat0) * k.ky)
        }
        let (bx, by) = xy(b)
        let len2 = bx * bx + by * by
        var best = a + 1, bestD = -1.0
        for i in (a + 1)..<b {
            let (px, py) = xy(i)
            let d: Double
            if len2 == 0 {
                d = (px * px + py * py).squareRoot()
            } else {
                let u = max(0, min(1, (px * bx + py * by) / len2))
                let dx = px - u * bx, dy = py - u * by
                d = (dx * dx + dy * dy).squareRoot()
            }
            if d > bestD { bestD = d; best = i }
        }
        return (best, bestD)
    }
}
