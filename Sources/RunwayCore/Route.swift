/// The route: every kept coordinate, stored compactly (20 bytes a point).
///
/// Latitude and longitude are kept as 1e-7° integers (about 1 cm), altitude as a Float (NaN when
/// unknown) and time as a Double, in separate arrays (structure of arrays, no padding).
public struct Route: Sendable {
    public private(set) var lat: [Int32] = []
    public private(set) var lon: [Int32] = []
    public private(set) var alt: [Float] = []
    public private(set) var t: [Double] = []
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
        while let last = segmentStarts.last, last >= count { segmentStarts.removeLast() }
    }

    public var count: Int { t.count }

    /// Bytes stored per point.
    public static let bytesPerPoint = MemoryLayout<Int32>.size * 2 + MemoryLayout<Float>.size + MemoryLayout<Double>.size

    public mutating func append(lat: Double, lon: Double, alt: Double, t: Double) {
        if segmentStarts.isEmpty { segmentStarts.append(count) }
        self.lat.append(Route.quantise(lat))
        self.lon.append(Route.quantise(lon))
        self.alt.append(Float(alt))
        self.t.append(t)
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
