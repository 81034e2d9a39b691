/// Refuses GPS altitudes that jump faster than anyone climbs (receivers settling report junk
/// such as 55 m → 142 m → 56 m within seconds); like the fix gate, it re-anchors when several
/// consecutive refused altitudes agree with each other, so a junk first altitude cannot lock it out.
///
///     var gate = AltitudeGate()
///     gate.accepts(55, at: 0)    // true
///     gate.accepts(142, at: 1)   // false: 87 m in a second
struct AltitudeGate: Sendable {
    /// The fastest believable change of altitude (m/s), plus a fixed allowance for noise (m).
    static let maxVerticalSpeedMps = 5.0
    static let noiseAllowanceM = 10.0
    static let reanchorCount = 3
    /// Refused altitudes must agree for this long before they are believed (a settling
    /// receiver's junk lasts a few seconds).
    static let reanchorSpanS = 10.0

    var last: (alt: Double, t: Double)?
    var candidates: [(alt: Double, t: Double)] = []
    /// Whether the last accepted altitude re-anchored the gate: the previous level was the
    /// outlier, and the step from it is no climb.
    private(set) var reanchored = false

    static func consistent(_ a: (alt: Double, t: Double), _ b: (alt: Double, t: Double)) -> Bool {
        abs(b.alt - a.alt) <= noiseAllowanceM + maxVerticalSpeedMps * abs(b.t - a.t)
    }

    /// Whether to use this altitude (NaN: missing, never used).
    @inline(__always)
    mutating func accepts(_ alt: Double, at t: Double) -> Bool {
        guard !alt.isNaN else { return false }
        let sample = (alt: alt, t: t)
        reanchored = false
        guard let l = last, !AltitudeGate.consistent(l, sample) else {
            last = sample
            if !candidates.isEmpty { candidates.removeAll(keepingCapacity: true) }   // (on an empty array it allocates)
            return true
        }
        if let c = candidates.last, !AltitudeGate.consistent(c, sample) { candidates.removeAll(keepingCapacity: true) }
        candidates.append(sample)
        if candidates.count >= AltitudeGate.reanchorCount,
           let first = candidates.first, t - first.t >= AltitudeGate.reanchorSpanS {
            last = sample
            candidates.removeAll(keepingCapacity: true)
            reanchored = true
            return true
        }
        return false
    }
}
