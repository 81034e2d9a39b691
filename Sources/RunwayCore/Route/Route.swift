/// The route: every kept coordinate, stored compactly (32 bytes a point).
///
/// Latitude and longitude are kept as 1e-7° integers (about 1 cm), altitude as a Float (NaN when
/// unknown; the one the flight's gain is measured on: `PointAltitudes`), time as a Double, and for the exports the cumulative distance as a Float (rounded
/// down: `metres`), the engine's ground speed and the fix's own (device) speed in mm/s as UInt16s
/// (FIT's own unit and range; 0xFFFF = none), heart rate and cadence as bytes (0 = none) and power
/// as whole watts in a UInt16 (0xFFFF = none; 0 W is a reading): one `Point` each.
///
/// The points are stored in chunks of `chunkCapacity` (one append a kept fix): a chunk after the
/// first is allocated at its full size when the one before it fills, and a full chunk is never
/// grown, moved or copied, so memory grows by the points stored, with no doubling array's old and
/// new buffer side by side (the first chunk grows as an array does, up to the chunk's size, so a
/// short route stays small). A copy of a route shares its chunks; appending to either copies the
/// last chunk only (copy-on-write), and the list of full chunks when that one fills, never the
/// full chunks themselves.
public struct Route: Sendable {
    /// One stored point (32 bytes, no padding).
    public struct Point: Sendable, Equatable {
        public var t: Double
        public var latE7: Int32, lonE7: Int32
        public var alt: Float, dist: Float
        /// The engine's ground speed and the fix's own speed as it came, mm/s (`noSpeed`: none).
        public var speed: UInt16, device: UInt16
        public var pw: UInt16
        public var hr: UInt8, cad: UInt8
    }

    /// Points a chunk holds (2^chunkShift: a point's chunk and place in it are a shift and a mask
    /// of its index). 2 048 points are 64 KiB: under glibc's mmap threshold (128 KiB), so a chunk
    /// comes from the heap with only Array's 32-byte header and malloc's few bytes beside it;
    /// 4 096 (128 KiB and the header) would each take a mapping of their own, rounded up to a
    /// page: 33 bytes a point (measured: 33.65 B/point against 32.70 for 2 048 and 32.71 for
    /// 1 024, RSS growth of the whole process, `bench_mem`).
    static let chunkShift = 11
    static let chunkCapacity = 1 << chunkShift
    static let chunkMask = chunkCapacity - 1

    /// The points, `chunkCapacity` a chunk: the full chunks (`full`), then the last one (`tail`,
    /// 1 up to `chunkCapacity` points; empty, with no storage, for an empty route). The last chunk
    /// is kept apart from the list so that an append (one a kept fix) checks one array for
    /// copy-on-write, not the list and then the chunk in it (two runtime calls and a bounds check).
    private var full: [[Point]] = []
    private var tail: [Point] = []
    public private(set) var count = 0
    /// The last point's time (NaN for an empty route): kept beside the points, as the recorder
    /// asks for it on nearly every fix (`RouteRecorder.lastKeptT`), where reading it from its
    /// chunk took two bounds checks and two loads more.
    private(set) var lastTime = Double.nan
    /// The index of the first point of each segment (a new one after a gap, a jump, a pause).
    public private(set) var segmentStarts: [Int] = []

    public init() {}

    /// Every point, in order, as one array: a copy made when read (O(n)), for tests; the library
    /// reads points by index (`point(_:)`, `last`).
    var points: [Point] { full.flatMap { $0 } + tail }

    /// The points the chunks have room for (memory allocated for points, in points).
    var capacity: Int { full.reduce(tail.capacity) { $0 + $1.capacity } }

    /// Where each chunk's points are in memory (tests: a chunk neither moved nor copied keeps
    /// its address).
    var chunkAddresses: [UInt] {
        (tail.isEmpty ? full : full + [tail]).map { $0.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
    }

    /// Point `i` (0 ..< `count`; outside it traps, as an array's subscript does: the tail is read
    /// at `i` less the full chunks' points, not at `i`'s place in a chunk, which an index past the
    /// route would alias).
    @inline(__always)
    public func point(_ i: Int) -> Point {
        let k = i >> Route.chunkShift
        return k < full.count ? full[k][i & Route.chunkMask] : tail[i - (full.count << Route.chunkShift)]
    }

    /// The last point (nil for an empty route).
    public var last: Point? { count > 0 ? point(count - 1) : nil }

    /// Starts a new segment at the next point (no-op when the current one is still empty).
    public mutating func beginSegment() {
        if segmentStarts.last != count { segmentStarts.append(count) }
    }

    /// The number of points in the current segment.
    public var currentSegmentCount: Int { count - (segmentStarts.last ?? 0) }

    /// Removes the last point (a junk fix discovered afterwards), and its segment if it empties.
    public mutating func removeLast() {
        guard count > 0 else { return }
        keepTailRoom()
        tail.removeLast()
        if tail.isEmpty { tail = full.popLast() ?? [] }   // (the last full chunk is the last one again)
        count -= 1
        lastTime = count > 0 ? point(count - 1).t : .nan
        while let last = segmentStarts.last, last >= count { segmentStarts.removeLast() }
    }

    /// Sets the last point's cumulative distance (a gap's distance credited after the point was kept).
    public mutating func setLastDistance(_ distanceM: Double) {
        guard count > 0 else { return }
        setDistance(distanceM, at: count - 1)
    }

    /// Sets point `i`'s cumulative distance (out of range: no-op).
    public mutating func setDistance(_ distanceM: Double, at i: Int) {
        guard i >= 0, i < count else { return }
        let k = i >> Route.chunkShift
        if k < full.count {
            Route.keepRoom(&full[k], first: k == 0)
            full[k][i & Route.chunkMask].dist = Route.metres(distanceM)
        } else {
            keepTailRoom()
            tail[i - (full.count << Route.chunkShift)].dist = Route.metres(distanceM)   // (as `point`)
        }
    }

    /// Makes the last chunk this route's own before a change in place, with the room it has
    /// (`keepRoom`).
    @inline(__always)
    private mutating func keepTailRoom() { Route.keepRoom(&tail, first: full.isEmpty) }

    /// Makes `chunk` (the route's `first` when true) this route's own before a change in place,
    /// with the room it has: when a copy shares it, Array's own copy for a subscript set or
    /// `removeLast` would have room for its points only, and the appends after it would grow the
    /// last chunk as a doubling array (moved, and past `chunkCapacity`). Unshared and with that
    /// room already: no-op. (The first chunk grows as an array does: its room is what it has.)
    @inline(__always)
    private static func keepRoom(_ chunk: inout [Point], first: Bool) {
        chunk.reserveCapacity(first ? chunk.capacity : Route.chunkCapacity)
    }

    /// A cumulative distance as stored: the Float at or below it (NaN stays NaN). Rounded down,
    /// never to nearest: a point's stored distance is then never beyond the flight's at its time,
    /// and a credit added to it later (`setDistance`) never lifts it past a later point's.
    static func metres(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) > d ? f.nextDown : f
    }

    /// Bytes stored per point.
    public static let bytesPerPoint = MemoryLayout<Point>.stride

    public mutating func append(lat: Double, lon: Double, alt: Double, t: Double,
                                distanceM: Double = .nan, speedMps: Double = .nan, deviceSpeedMps: Double = .nan,
                                hr: Double = .nan, cadence: Double = .nan, power: Double = .nan) {
        if segmentStarts.isEmpty { segmentStarts.append(count) }
        let p = Point(t: t, latE7: Route.quantise(lat), lonE7: Route.quantise(lon), alt: Float(alt),
                      dist: Route.metres(distanceM), speed: Route.millimetres(speedMps), device: Route.millimetres(deviceSpeedMps),
                      pw: Route.watts(power),
                      hr: Route.byte(hr), cad: Route.byte(cadence))
        if tail.count < Route.chunkCapacity {   // (an empty route's too: its first chunk)
            tail.append(p)
        } else {
            appendChunk(p)
        }
        count += 1
        lastTime = t
    }

    /// A new last chunk holding `p` (the last one is full: it joins the full ones), allocated at
    /// its full size, once. (The first chunk grows as an array does, in `append`.)
    @inline(never)
    private mutating func appendChunk(_ p: Point) {
        var chunk: [Point] = []
        chunk.reserveCapacity(Route.chunkCapacity)
        chunk.append(p)
        full.append(tail)
        tail = chunk
    }

    /// Latitude and longitude in 1e-7° units, as stored.
    public func latE7(_ i: Int) -> Int32 { point(i).latE7 }
    public func lonE7(_ i: Int) -> Int32 { point(i).lonE7 }
    public func distanceM(_ i: Int) -> Double { Double(point(i).dist) }
    /// The engine's ground speed at the point (NaN when none: unknown, or not yet measured in its leg).
    public func speedMps(_ i: Int) -> Double { Route.metres(point(i).speed) }
    /// The speed the point's fix came with (its device's Doppler speed; a speed sensor's sample's
    /// for a sensed point), NaN when it had none or the point is no fix's (a leg's first point at a
    /// start or resume between fixes).
    public func deviceSpeedMps(_ i: Int) -> Double { Route.metres(point(i).device) }
    /// Heart rate at the point (NaN when none).
    public func heartRate(_ i: Int) -> Double { let hr = point(i).hr; return hr == 0 ? .nan : Double(hr) }
    /// Cadence at the point (NaN when none).
    public func cadence(_ i: Int) -> Double { let cad = point(i).cad; return cad == 0 ? .nan : Double(cad) }
    /// Power at the point in watts (NaN when none).
    public func power(_ i: Int) -> Double { let pw = point(i).pw; return pw == Route.noPower ? .nan : Double(pw) }
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
    @inline(__always)
    static func byte(_ v: Double) -> UInt8 {
        guard v.isFinite, v >= 0.5, v < 255.5 else { return 0 }
        return UInt8(truncatingIfNeeded: rounded(v))   // (1...255, as checked: no check again)
    }

    static let noPower: UInt16 = 0xFFFF
    static let noSpeed: UInt16 = 0xFFFF

    /// m/s to whole mm/s 0...65534 (FIT's `speed`), rounded; `noSpeed` for unknown, negative or beyond.
    @inline(__always)
    static func millimetres(_ mps: Double) -> UInt16 {
        let v = mps * 1000
        guard v > -0.5, v < 65_534.5 else { return noSpeed }   // (false for NaN)
        return UInt16(truncatingIfNeeded: rounded(v))   // (0...65 534, as checked: no check again)
    }

    static func metres(_ mm: UInt16) -> Double { mm == noSpeed ? .nan : Double(mm) / 1000 }

    /// Watts 0...65534 rounded; `noPower` for unknown or out of range.
    @inline(__always)
    static func watts(_ v: Double) -> UInt16 {
        guard v.isFinite, v > -0.5, v < 65_534.5 else { return noPower }
        return UInt16(truncatingIfNeeded: rounded(v))   // (0...65 534, as checked: no check again)
    }

    /// `v.rounded()` (half away from zero) as an integer, for -0.5 < `v` < 65 535.5 (the callers
    /// check): the fraction of such a value is exact, so this is the same integer without libm's
    /// `round` call (as `quantise`). (`&+`: `whole` is under 65 536, so the compiler's overflow
    /// check would only test it again.)
    @inline(__always)
    static func rounded(_ v: Double) -> Int {
        let whole = Int(v)   // toward zero
        let fraction = v - Double(whole)
        return fraction >= 0.5 ? whole &+ 1 : whole   // (v > -0.5: never a fraction of -0.5 or less)
    }

    public func latitude(_ i: Int) -> Double { Double(point(i).latE7) / 1e7 }
    public func longitude(_ i: Int) -> Double { Double(point(i).lonE7) / 1e7 }
    public func altitude(_ i: Int) -> Double { Double(point(i).alt) }
    public func time(_ i: Int) -> Double { point(i).t }

    /// Degrees to 1e-7° units, rounded half away from zero (as `rounded()`, without libm's
    /// call: the fraction of a value under 2^31 is exact); the caller has checked the range
    /// (|lon| ≤ 180 fits in Int32), anything else is 0.
    @inline(__always)
    static func quantise(_ degrees: Double) -> Int32 {
        let v = degrees * 1e7
        guard v > -2_147_483_647.5, v < 2_147_483_646.5 else { return 0 }   // rounded inside Int32's open range; false for NaN
        let whole = Int32(v)   // toward zero
        let fraction = v - Double(whole)
        return fraction >= 0.5 ? whole &+ 1 : (fraction <= -0.5 ? whole &- 1 : whole)   // (-Int32.max ≤ whole < Int32.max, as checked: no overflow)
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
