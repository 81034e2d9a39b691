/// A stage that contributes figures of its own from the inputs: a new metric is one type that
/// conforms, plus one line in `Metrics.registered`; nothing else in the engine changes.
///
/// The composer feeds every metric each input (`observe`) and the clock (`advance`), and asks it
/// for its snapshot fields, its summary fields, a lap's fields when a lap ends, and the value a
/// route point keeps. Each figure is a `MetricValue` (a JSON key and a number; NaN is `null`).
///
///     struct StrideLength: Metric { ... }          // one new file
///     static let registered: [any Metric] = [StrideLength()]   // one line
public protocol Metric: Sendable {
    /// A validated input at its resolved time; `cruising` while the flight is in cruise.
    mutating func observe(_ input: Input, at t: Double, cruising: Bool)
    /// The clock moved to `t` (before the input at `t`, if any, is observed).
    mutating func advance(to t: Double, cruising: Bool)
    /// The fields of the `flight` snapshot at `t`.
    func snapshot(at t: Double) -> [MetricValue]
    /// The same fields, appended to `values` (a metric that can should append them without
    /// making an array of its own: snapshots refilled in place then allocate nothing).
    func appendSnapshot(at t: Double, to values: inout [MetricValue])
    /// The fields of the summary.
    func summary() -> [MetricValue]
    /// The fields of the lap that ends at `t` (now, or before now: a lap cut after its end, when
    /// the step it falls in was measured); the next lap starts there.
    mutating func endLap(at t: Double) -> [MetricValue]
    /// The value a route point at `t` keeps (NaN: none).
    func routeValue(at t: Double) -> Double
    /// An input at `t`: the clock moves there (`cruisingBefore`), then the input is observed
    /// (`cruisingAfter`). One call a metric for each input (the default does both).
    mutating func take(_ input: Input, at t: Double, cruisingBefore: Bool, cruisingAfter: Bool)
}

extension Metric {
    public func appendSnapshot(at t: Double, to values: inout [MetricValue]) {
        values.append(contentsOf: snapshot(at: t))
    }

    public mutating func take(_ input: Input, at t: Double, cruisingBefore: Bool, cruisingAfter: Bool) {
        advance(to: t, cruising: cruisingBefore)
        observe(input, at: t, cruising: cruisingAfter)
    }
}

/// One figure: a JSON key and its value (NaN: unknown, written as null).
public struct MetricValue: Sendable, Equatable {
    public let key: StaticString
    public let value: Double

    public init(_ key: StaticString, _ value: Double) {
        self.key = key
        self.value = value
    }

    public static func == (a: MetricValue, b: MetricValue) -> Bool {
        a.key.description == b.key.description && a.value.bitPattern == b.value.bitPattern
    }
}

extension Array where Element == MetricValue {
    /// The figure under `key` (NaN when none has it): a summary's or a lap's (`Lap.metrics`).
    func figure(_ key: String) -> Double {
        first { $0.key.description == key }?.value ?? .nan
    }
}

/// The metrics, in the order their fields are written: power, then the registered ones.
///
/// Power is held as itself: a metric in `[any Metric]` is mutated through its existential box
/// (a uniqueness check of the array and of the box, a witness call) on every input, about 200
/// instructions a fix, a twentieth of the engine's step. The registered ones are.
public struct Metrics: Sendable {
    /// Every metric the engine computes beyond power. Add a metric here.
    static let registered: [any Metric] = []

    var power = PowerMeter()
    var added: [any Metric] = Metrics.registered

    mutating func advance(to t: Double, cruising: Bool) {
        power.advance(to: t, cruising: cruising)
        for i in added.indices { added[i].advance(to: t, cruising: cruising) }
    }

    /// Every metric takes the input; whether it carried power (`PowerMeter.observed`).
    @inline(__always) @discardableResult
    mutating func take(_ input: Input, at t: Double, cruisingBefore: Bool, cruisingAfter: Bool) -> Bool {
        power.advance(to: t, cruising: cruisingBefore)
        let sampled = power.observed(input, at: t, cruising: cruisingAfter)
        for i in added.indices { added[i].take(input, at: t, cruisingBefore: cruisingBefore, cruisingAfter: cruisingAfter) }
        return sampled
    }

    /// Every metric's snapshot fields; with power alone (as now) its own array, without a
    /// second one made by flatMap.
    func snapshot(at t: Double) -> [MetricValue] {
        added.isEmpty ? power.snapshot(at: t) : added.reduce(into: power.snapshot(at: t)) { $0 += $1.snapshot(at: t) }
    }
    func appendSnapshot(at t: Double, to values: inout [MetricValue]) {
        power.appendSnapshot(at: t, to: &values)
        for m in added { m.appendSnapshot(at: t, to: &values) }
    }
    func summary() -> [MetricValue] { power.summary() + added.flatMap { $0.summary() } }

    mutating func endLap(at t: Double) -> [MetricValue] {
        var out = power.endLap(at: t)
        for i in added.indices { out += added[i].endLap(at: t) }
        return out
    }

    /// The route's metric column: power.
    func routeValue(at t: Double) -> Double { power.routeValue(at: t) }
}

extension JSONWriter {
    /// Writes each figure as a field.
    mutating func fields(_ values: [MetricValue]) {
        for v in values { field(v.key, v.value) }
    }
}
