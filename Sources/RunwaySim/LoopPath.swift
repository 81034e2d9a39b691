#if canImport(Glibc)
import Glibc
#endif

/// A closed, city-like running loop in local east/north metres: a polygon with rounded corners.
///
/// Generated from a seed: 6 to 12 corners at increasing bearings round the centre (so the
/// polygon is star-shaped, hence simple), with random radii, no edge shorter than 30% of the
/// mean and no turn sharper than 120°. Each corner is rounded with an arc of radius
/// `min(4 m, 0.4% of the loop)`, the line a runner takes round a street corner, and the polygon
/// is scaled so the whole path — straights plus arcs — is exactly the requested length. The
/// path starts and ends in the middle of the first edge, on a straight.
struct LoopPath: Sendable {
    /// A straight or an arc, by its start distance along the loop.
    struct Piece: Sendable {
        var start: Double
        var length: Double
        var isArc: Bool
        /// Line: start point. Arc: centre.
        var x: Double, y: Double
        /// Heading at the start, radians counter-clockwise from east.
        var heading: Double
        /// Arc: +1 turning left, -1 turning right.
        var turn: Double
        var radius: Double
    }

    /// A rounded corner: where its arc starts and ends along the loop, and how much a runner
    /// slows for it (a fraction of the steady speed).
    struct Corner: Sendable {
        var start: Double
        var end: Double
        var speedFactor: Double
    }

    let pieces: [Piece]
    let corners: [Corner]
    /// The path's length, metres (the requested length up to rounding).
    let length: Double

    /// A loop of `length` metres drawn from `rng`.
    init(length requested: Double, rng: inout SimRandom) {
        let unit = LoopPath.polygon(rng: &rng)
        let n = unit.count
        var unitEdges: [Double] = []
        var turns: [Double] = []
        for i in 0..<n {
            let p = unit[i], q = unit[(i + 1) % n]
            unitEdges.append(((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot())
            turns.append(LoopPath.turn(unit[(i + n - 1) % n], p, q))
        }
        let perimeter = unitEdges.reduce(0, +)
        let r = min(4, 0.004 * requested)
        // Rounding a corner of turn θ shortens the path by r·(2·tan(θ/2) − θ); scale up to match.
        let shortening = turns.reduce(0) { $0 + r * (2 * tan(abs($1) / 2) - abs($1)) }
        let scale = (requested + shortening) / perimeter
        let v = unit.map { (x: $0.x * scale, y: $0.y * scale) }
        let edges = unitEdges.map { $0 * scale }
        let dirs = (0..<n).map { i -> (x: Double, y: Double) in
            let p = v[i], q = v[(i + 1) % n]
            return ((q.x - p.x) / edges[i], (q.y - p.y) / edges[i])
        }
        let tangent = turns.map { r * tan(abs($0) / 2) }

        var pieces: [Piece] = []
        var corners: [Corner] = []
        var at = 0.0
        func line(from p: (x: Double, y: Double), along d: (x: Double, y: Double), length: Double) {
            guard length > 0 else { return }
            pieces.append(Piece(start: at, length: length, isArc: false, x: p.x, y: p.y,
                                heading: atan2(d.y, d.x), turn: 0, radius: 0))
            at += length
        }
        // Half of edge 0, from its midpoint to the first corner.
        let mid = (x: (v[0].x + v[1].x) / 2, y: (v[0].y + v[1].y) / 2)
        line(from: mid, along: dirs[0], length: edges[0] / 2 - tangent[1])
        for k in 1...n {
            let i = k % n
            let din = dirs[(i + n - 1) % n], dout = dirs[i]
            let arcLength = r * abs(turns[i])
            if arcLength > 0 {
                let heading = atan2(din.y, din.x)
                let sign: Double = turns[i] > 0 ? 1 : -1
                let start = (x: v[i].x - tangent[i] * din.x, y: v[i].y - tangent[i] * din.y)
                // The centre lies a radius to the side the runner turns to.
                let centre = (x: start.x - sign * r * sin(heading), y: start.y + sign * r * cos(heading))
                pieces.append(Piece(start: at, length: arcLength, isArc: true, x: centre.x, y: centre.y,
                                    heading: heading, turn: sign, radius: r))
                let sharpness = min(abs(turns[i]) / (Double.pi / 2), 4.0 / 3)
                corners.append(Corner(start: at, end: at + arcLength, speedFactor: 1 - 0.15 * sharpness))
                at += arcLength
            }
            let from = (x: v[i].x + tangent[i] * dout.x, y: v[i].y + tangent[i] * dout.y)
            let straight = i == 0 ? edges[0] / 2 - tangent[0] : edges[i] - tangent[i] - tangent[(i + 1) % n]
            line(from: from, along: dout, length: straight)
        }
        self.pieces = pieces
        self.corners = corners
        self.length = at
    }

    /// The signed turn at `b` going from `a` through `b` to `c`, radians (left positive).
    static func turn(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), _ c: (x: Double, y: Double)) -> Double {
        let d1 = (x: b.x - a.x, y: b.y - a.y), d2 = (x: c.x - b.x, y: c.y - b.y)
        return atan2(d1.x * d2.y - d1.y * d2.x, d1.x * d2.x + d1.y * d2.y)
    }

    /// A random star-shaped polygon round the origin (mean radius about 1), counter-clockwise.
    static func polygon(rng: inout SimRandom) -> [(x: Double, y: Double)] {
        for _ in 0..<200 {
            let n = 6 + Int(rng.below(7))
            let base = rng.uniform() * 2 * Double.pi
            var points: [(x: Double, y: Double)] = []
            for i in 0..<n {
                let angle = base + 2 * Double.pi * (Double(i) + 0.6 * (rng.uniform() - 0.5)) / Double(n)
                let radius = 1 + 0.3 * (2 * rng.uniform() - 1)
                points.append((radius * cos(angle), radius * sin(angle)))
            }
            if acceptable(points) { return points }
        }
        return (0..<8).map { i in
            let angle = 2 * Double.pi * Double(i) / 8
            return (cos(angle), sin(angle))
        }
    }

    /// No edge shorter than 30% of the mean, no turn sharper than 120°.
    static func acceptable(_ p: [(x: Double, y: Double)]) -> Bool {
        let n = p.count
        var edges: [Double] = []
        for i in 0..<n {
            let a = p[i], b = p[(i + 1) % n]
            edges.append(((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot())
            if abs(turn(p[(i + n - 1) % n], a, b)) > 2 * Double.pi / 3 { return false }
        }
        let mean = edges.reduce(0, +) / Double(n)
        return edges.allSatisfy { $0 >= 0.3 * mean }
    }

    /// The point `u` metres along the loop (clamped to 0...length) and the heading there
    /// (radians counter-clockwise from east).
    func point(at u: Double) -> (east: Double, north: Double, heading: Double) {
        let u = min(max(u, 0), length)
        var lo = 0, hi = pieces.count - 1
        while lo < hi {                                   // the last piece starting at or before u
            let m = (lo + hi + 1) / 2
            if pieces[m].start <= u { lo = m } else { hi = m - 1 }
        }
        let p = pieces[lo]
        let along = min(max(u - p.start, 0), p.length)
        if !p.isArc {
            return (p.x + along * cos(p.heading), p.y + along * sin(p.heading), p.heading)
        }
        let heading = p.heading + p.turn * along / p.radius
        return (p.x + p.turn * p.radius * sin(heading), p.y - p.turn * p.radius * cos(heading), heading)
    }

    /// The fastest a runner at `u` takes the corners ahead: each corner's speed inside it, and
    /// on the approach the speed from which braking at `deceleration` reaches the corner speed.
    func cornerSpeedLimit(at u: Double, steadySpeed: Double, deceleration: Double) -> Double {
        var limit = Double.infinity
        for c in corners {
            let cornerSpeed = steadySpeed * c.speedFactor
            if u >= c.start && u <= c.end {
                limit = min(limit, cornerSpeed)
                continue
            }
            var ahead = c.start - u
            if ahead < 0 { ahead += length }
            limit = min(limit, (cornerSpeed * cornerSpeed + 2 * deceleration * ahead).squareRoot())
        }
        return limit
    }
}
