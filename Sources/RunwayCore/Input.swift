/// One GPS fix. NaN means unknown; negative speed, course and accuracies are normalised to NaN.
public struct Fix: Sendable, Equatable {
    public var t: Double
    public var lat: Double
    public var lon: Double
    public var alt: Double
    public var speed: Double
    public var course: Double
    public var hAcc: Double
    public var vAcc: Double
    /// Heart rate, cadence and power (watts) carried on the fix itself (as recordings do); NaN
    /// when absent.
    public var hr: Double
    public var cadence: Double
    public var power: Double

    public init(t: Double = .nan, lat: Double, lon: Double, alt: Double = .nan, speed: Double = .nan,
                course: Double = .nan, hAcc: Double = .nan, vAcc: Double = .nan,
                hr: Double = .nan, cadence: Double = .nan, power: Double = .nan) {
        self.t = t; self.lat = lat; self.lon = lon; self.alt = alt; self.speed = speed
        self.course = course; self.hAcc = hAcc; self.vAcc = vAcc; self.hr = hr; self.cadence = cadence
        self.power = power
    }

    /// Checks ranges and normalises "unknown" markers, as every input path must.
    ///
    /// - Parameter timeRequired: whether `t` must be given (the replay clock).
    /// - Returns: the fix with negative speed, course and accuracies turned into NaN.
    public func validated() throws(RunwayError) -> Fix {
        var f = self
        guard lat.isFinite, lon.isFinite else {
            throw .input(lat.isNaN || lon.isNaN ? "fix needs lat and lon" : "lat/lon must be finite")
        }
        guard (-90.0...90.0).contains(lat) else { throw .input("lat \(lat) out of range -90...90") }
        guard (-180.0...180.0).contains(lon) else { throw .input("lon \(lon) out of range -180...180") }
        if !alt.isNaN {
            guard alt.isFinite, (-1_000_000.0...1_000_000.0).contains(alt) else {
                throw .input("alt \(alt) out of range")
            }
        }
        f.speed = try Fix.optionalNonNegative(speed, "speed", max: 1_000_000)
        f.course = try Fix.optionalNonNegative(course, "course", max: 360)
        f.hAcc = try Fix.optionalNonNegative(hAcc, "h_acc", max: 1e9)
        f.vAcc = try Fix.optionalNonNegative(vAcc, "v_acc", max: 1e9)
        if !hr.isNaN { f.hr = try Sample.checkedHeartRate(hr) }
        if !cadence.isNaN { f.cadence = try Sample.checkedCadence(cadence) }
        if !power.isNaN { f.power = try Sample.checkedPower(power) }
        if !t.isNaN { try Sample.checkTime(t) }
        return f
    }

    /// A value where a negative finite number means "unknown" (as on phones).
    static func optionalNonNegative(_ v: Double, _ name: String, max: Double) throws(RunwayError) -> Double {
        if v.isNaN { return .nan }
        guard v.isFinite else { throw .input("\(name) must be finite") }
        if v < 0 { return .nan }
        guard v <= max else { throw .input("\(name) \(v) out of range 0...\(max)") }
        return v
    }
}

/// A sensor sample.
public enum Sample: Sendable, Equatable {
    case heartRate(bpm: Double, t: Double)
    case cadence(spm: Double, t: Double)
    /// A barometric altitude (metres), preferred over GPS altitude while it keeps coming.
    case altimeter(alt: Double, t: Double)
    /// A power meter's reading (watts), from a recording's timed point without a position.
    case power(watts: Double, t: Double)

    public var t: Double {
        switch self {
        case .heartRate(_, let t), .cadence(_, let t), .altimeter(_, let t), .power(_, let t): return t
        }
    }

    static func checkedHeartRate(_ bpm: Double) throws(RunwayError) -> Double {
        guard bpm.isFinite, bpm >= 0, bpm <= 300 else { throw .input("bpm \(bpm) out of range 0...300") }
        return bpm
    }

    static func checkedCadence(_ spm: Double) throws(RunwayError) -> Double {
        guard spm.isFinite, spm >= 0, spm <= 400 else { throw .input("spm \(spm) out of range 0...400") }
        return spm
    }

    /// Watts 0...5000 (a track sprinter's peak is about 2500 W).
    static func checkedPower(_ watts: Double) throws(RunwayError) -> Double {
        guard watts.isFinite, watts >= 0, watts <= 5000 else { throw .input("power \(watts) W out of range 0...5000") }
        return watts
    }

    /// Unix seconds between 1970 and about year 5138.
    static func checkTime(_ t: Double) throws(RunwayError) {
        guard t.isFinite, t >= 0, t < 1e11 else {
            throw .input("t \(t) out of range (unix seconds, 0...1e11)")
        }
    }
}

/// One input pushed by a host.
public enum Input: Sendable, Equatable {
    case fix(Fix)
    case sample(Sample)

    public var t: Double {
        switch self {
        case .fix(let f): return f.t
        case .sample(let s): return s.t
        }
    }

    /// The same input at time `t` (a journal records inputs with their resolved times).
    public func withTime(_ t: Double) -> Input {
        switch self {
        case .fix(var f): f.t = t; return .fix(f)
        case .sample(.heartRate(let b, _)): return .sample(.heartRate(bpm: b, t: t))
        case .sample(.cadence(let s, _)): return .sample(.cadence(spm: s, t: t))
        case .sample(.altimeter(let a, _)): return .sample(.altimeter(alt: a, t: t))
        case .sample(.power(let w, _)): return .sample(.power(watts: w, t: t))
        }
    }
}
