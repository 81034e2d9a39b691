/// Steps credited after the fact, oldest first: how much of their distance had been covered by
/// a time, so the points kept meanwhile (route, pace window) take their share, and each one's
/// moving time (for an auto-pause that backdates over them).
///
///     var steps = CreditedSteps()
///     steps.append(t: 10, d: 3)
///     steps.append(t: 11, d: 3)
///     steps.distance(upTo: 10.5)   // 3
public struct CreditedSteps: Sendable, Equatable {
    public private(set) var times: [Double] = []
    public private(set) var distances: [Double] = []
    public private(set) var movingS: [Double] = []
    /// When each step began (NaN: not known).
    public private(set) var starts: [Double] = []

    public init() {}

    public var isEmpty: Bool { times.isEmpty }

    mutating func append(t: Double, d: Double, movingS m: Double = 0, from: Double = .nan) {
        times.append(t)
        starts.append(from)
        distances.append(d)
        movingS.append(m)
    }

    mutating func removeAll() {
        times.removeAll(keepingCapacity: true)
        distances.removeAll(keepingCapacity: true)
        movingS.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
    }

    /// The distance of the steps that ended at or before `t`.
    public func distance(upTo t: Double) -> Double {
        var sum = 0.0
        for (ti, d) in zip(times, distances) where ti <= t { sum += d }
        return sum
    }
}
