/// The route: every kept coordinate, stored compactly (32 bytes a point).
///
/// Latitude and longitude are kept as 1e-7° integers (about 1 cm), altitude as a Float (NaN when
/// unknown), time as a Double, and for the exports the cumulative distance and ground speed as
/// Floats, heart rate and cadence as bytes (0 = none) and power as whole watts in a UInt16
/// (0xFFFF = none; 0 W is a reading), in separate arrays (structure of arrays, no padding).
public struct Route: Sendable {
    public private(set) var lat: [Int32] = []
    public private(set) var lon: [Int32] = []
    public private(set) var alt: [Float] = []
    public private(set) var t: [Double] = []
    public private(set) var dist: [Float] = []
    public private(set) var speed: [Float] = []
    public private(set) var hr: [UInt8] = []
    public private(set) var cad: [UInt8] = []
    public private(set) var pw: [UInt16] = []
    /// The index of the first point of each segment (a new one after a gap, a jump, a pause).
    public private(set) var segmentStarts: [Int] = []

    public init() {}

    /// Starts a new segment at the next point (no-op when the current one is still empty).
    public mutating func beginSegment() {
        if segmentStarts.last != count { segmentStarts.append(count) }
    }

    /// The number of points in the current segment.
    public var currentSegmentCount: Int { count - (segmentStarts.last ?? 0) }

    /// Removes the last point (a junk fix discovered afterwards), and its segment if it empties.
    public mutating func removeLast() {
        guard count > 0 else { return }
        lat.removeLast(); lon.removeLast(); alt.removeLast(); t.removeLast()
        dist.removeLast(); speed.removeLast(); hr.removeLast(); cad.removeLast(); pw.removeLast()
        while let last = segmentStarts.last, last >= count { segmentStarts.removeLast() }
    }

    public var count: Int { t.count }

    /// Sets the last point's cumulative distance (a gap's distance credited after the point was kept).
    public mutating func setLastDistance(_ distanceM: Double) {
        guard count > 0 else { return }
        dist[count - 1] = Float(distanceM)
    }

    /// Sets point `i`'s cumulative distance (out of range: no-op).
    public mutating func setDistance(_ distanceM: Double, at i: Int) {
        guard i >= 0, i < count else { return }
        dist[i] = Float(distanceM)
    }

    /// Bytes stored per point.
    public static let bytesPerPoint = MemoryLayout<Int32>.size * 2 + MemoryLayout<Float>.size * 3
        + MemoryLayout<Double>.size + MemoryLayout<UInt8>.size * 2 + MemoryLayout<UInt16>.size

    public mutating func append(lat: Double, lon: Double, alt: Double, t: Double,
                                distanceM: Double = .nan, speedMps: Double = .nan, hr: Double = .nan, cadence: Double = .nan,
                                power: Double = .nan) {
        if segmentStarts.isEmpty { segmentStarts.append(count) }
        self.lat.append(Route.quantise(lat))
        self.lon.append(Route.quantise(lon))
        self.alt.append(Float(alt))
        self.t.append(t)
        dist.append(Float(distanceM))
        speed.append(Float(speedMps))
        self.hr.append(Route.byte(hr))
        cad.append(Route.byte(cadence))
        pw.append(Route.watts(power))
    }

    public func distanceM(_ i: Int) -> Double { Double(dist[i]) }
    public func speedMps(_ i: Int) -> Double { Double(speed[i]) }
    /// Heart rate at the point (NaN when none).
    public func heartRate(_ i: Int) -> Double { hr[i] == 0 ? .nan : Double(hr[i]) }
    /// Cadence at the point (NaN when none).
    public func cadence(_ i: Int) -> Double { cad[i] == 0 ? .nan : Double(cad[i]) }
    /// Power at the point in watts (NaN when none).
    public func power(_ i: Int) -> Double { pw[i] == Route.noPower ? .nan : Double(pw[i]) }
    /// The segment a point belongs to (0-based).
    public func segment(of i: Int) -> Int {
        var lo = 0, hi = segmentStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segmentStarts[mid] <= i { lo = mid } else { hi = mid - 1 }
        }
        return max(0, lo)
    }

    /// A value 1...255 rounded into a byte; 0 for unknown or out of range.
    static func byte(_ v: Double) -> UInt8 {
        guard v.isFinite, v >= 0.5, v < 255.5 else { return 0 }
        return UInt8(v.rounded())
    }

    static let noPower: UInt16 = 0xFFFF

    /// Watts 0...65534 rounded; `noPower` for unknown or out of range.
    static func watts(_ v: Double) -> UInt16 {
        guard v.isFinite, v > -0.5, v < 65_534.5 else { return noPower }
        return UInt16(v.rounded())
    }

    public func latitude(_ i: Int) -> Double { Double(lat[i]) / 1e7 }
    public func longitude(_ i: Int) -> Double { Double(lon[i]) / 1e7 }
    public func altitude(_ i: Int) -> Double { Double(alt[i]) }
    public func time(_ i: Int) -> Double { t[i] }

    /// Degrees to 1e-7° units; the caller has checked the range (|lon| ≤ 180 fits in Int32).
    static func quantise(_ degrees: Double) -> Int32 {
        let v = (degrees * 1e7).rounded()
        guard v.isFinite, v > Double(Int32.min), v < Double(Int32.max) else { return 0 }
        return Int32(v)
    }
}

/// The last N log lines, oldest first.
public struct LogRing: Sendable {
    public struct Line: Sendable, Equatable {
        public enum Level: String, Sendable { case info, warning, error }
        public let seq: UInt64
        public let t: Double
        public let level: Level
        public let message: String
    }

    public let capacity: Int
    var storage: [Line] = []
    var head = 0

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public mutating func append(_ line: Line) {
        if storage.count < capacity {
            storage.append(line)
        } else {
            storage[head] = line
            head = (head + 1) % capacity
        }
    }

    /// The lines, oldest first.
    public var lines: [Line] { Array(storage[head...] + storage[..<head]) }
}
