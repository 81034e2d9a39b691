extension TrackFilter {
    /// One axis's 2-state filter (position in metres, velocity in m/s): its covariance and the
    /// scalar updates of the 4×4 filter written out for the axis's block, with the same
    /// operations in the same order. Both off-diagonal entries are kept: the update leaves them
    /// equal only up to rounding.
    struct Axis: Sendable, Equatable {
        var pp = 0.0, pv = 0.0, vp = 0.0, vv = 0.0

        /// P = F P Fᵀ + Q with F = [[1, dt], [0, 1]].
        @inline(__always)
        mutating func predict(_ dt: Double, qpp: Double, qpv: Double, qvv: Double) {
            let pv1 = pv + dt * vv
            pp = (pp + dt * vp) + dt * pv1 + qpp
            pv = pv1 + qpv
            vp = (vp + dt * vv) + qpv
            vv += qvv
        }

        /// Update by a measured position (innovation `y`, variance `r`); returns the state's change.
        @inline(__always)
        mutating func correctPosition(innovation y: Double, variance r: Double) -> (position: Double, velocity: Double) {
            let s = pp + r
            guard s > 0, s.isFinite else { return (0, 0) }
            let kp = pp / s, kv = vp / s
            (pp, pv, vp, vv) = (pp - kp * pp, pv - kp * pv, vp - kv * pp, vv - kv * pv)
            return (kp * y, kv * y)
        }

        /// Update by a measured velocity (innovation `y`, variance `r`); returns the state's change.
        @inline(__always)
        mutating func correctVelocity(innovation y: Double, variance r: Double) -> (position: Double, velocity: Double) {
            let s = vv + r
            guard s > 0, s.isFinite else { return (0, 0) }
            let kp = pv / s, kv = vv / s
            (pp, pv, vp, vv) = (pp - kp * vp, pv - kp * vv, vp - kv * vp, vv - kv * vv)
            return (kp * y, kv * y)
        }
    }
}
