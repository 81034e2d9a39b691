/// An input whose values have been checked: the only kind that reaches the engine
/// (`FlightComputer.process`), whether it came from C (`runway_push_fix`), JSON
/// (`InputDecoder`) or Swift (`RunningCenter`), or is replayed from a journal.
///
/// Validation normalises the "unknown" markers (a negative finite speed, course or accuracy, as on
/// phones, becomes NaN) and refuses anything out of range or non-finite with an `.input` error
/// that says which value and why. A missing time is allowed here (the live clock fills it in);
/// the engine refuses it under the replay clock.
///
///     let v = try ValidatedInput(.fix(Fix(t: 1_700_000_000, lat: 52, lon: 4, speed: -1)))
///     v.input   // .fix with speed NaN
///     try ValidatedInput(.sample(.heartRate(bpm: 400, t: 0)))   // throws: bpm 400.0 out of range 0...300
public struct ValidatedInput: Sendable, Equatable {
    /// The altitudes an altimeter sample may have, metres.
    public static let altimeterRangeM = -1000.0...100_000.0
    /// The fastest a speed sensor's sample may say, m/s (the fastest cap a profile has is far under).
    public static let sensorSpeedMaxMps = 100.0
    public let input: Input

    /// Checks `input`.
    /// - Throws: `.input` naming the value that is missing, non-finite or out of range.
    public init(_ input: Input) throws(RunwayError) {
        switch input {
        case .fix(let f):
            self.input = .fix(try Self.fix(f))
        case .sample(.heartRate(let bpm, let t)):
            guard !bpm.isNaN else { throw .input("hr sample needs \"bpm\"") }
            let b = try Self.heartRate(bpm)
            try Self.optionalTime(t)
            self.input = .sample(.heartRate(bpm: b, t: t))
        case .sample(.cadence(let spm, let t)):
            guard !spm.isNaN else { throw .input("cadence sample needs \"spm\"") }
            let s = try Self.cadence(spm)
            try Self.optionalTime(t)
            self.input = .sample(.cadence(spm: s, t: t))
        case .sample(.altimeter(let alt, let t)):
            guard !alt.isNaN else { throw .input("altimeter sample needs \"alt\"") }
            guard Self.altimeterRangeM.contains(alt) else { throw .input("alt \(alt) out of range -1000...100000") }
            try Self.optionalTime(t)
            self.input = .sample(.altimeter(alt: alt, t: t))
        case .sample(.power(let watts, let t)):
            guard !watts.isNaN else { throw .input("power sample needs \"watts\"") }
            let w = try Self.power(watts)
            try Self.optionalTime(t)
            self.input = .sample(.power(watts: w, t: t))
        case .sample(.speed(let mps, let t)):
            guard !mps.isNaN else { throw .input("speed sample needs \"speed\"") }
            guard mps >= 0, mps <= Self.sensorSpeedMaxMps else { throw .input("speed \(mps) out of range 0...\(Int(Self.sensorSpeedMaxMps))") }
            try Self.optionalTime(t)
            self.input = .sample(.speed(mps: mps, t: t))
        }
    }

    /// Checks a fix given as a C struct (`runway_fix`), where NaN means unknown (a missing time:
    /// now) and every other value must be finite.
    ///
    /// Inlined into the C entry: the common case, a fix in range, makes no call.
    @inlinable @inline(__always)
    public init(podFix f: Fix) throws(RunwayError) {
        if Self.inRange(f) {   // the common case: every value in range or unknown
            input = .fix(f)
            return
        }
        input = .fix(try Self.checkedPodFix(f))
    }

    /// A C struct's fix that is not in range as it is: refused unless only "unknown" markers
    /// need normalising (see `init(podFix:)`).
    @usableFromInline @inline(never)
    static func checkedPodFix(_ f: Fix) throws(RunwayError) -> Fix {
        guard f.lat.isFinite, f.lon.isFinite else { throw .input("fix needs finite lat and lon") }
        guard f.t.isNaN || f.t.isFinite else { throw .input("t must be finite (or NaN = now)") }
        if f.alt.isInfinite || f.speed.isInfinite || f.course.isInfinite || f.hAcc.isInfinite || f.vAcc.isInfinite {
            throw .input("alt, speed, course, h_acc and v_acc must be finite (or NaN = unknown)")
        }
        return try fix(f)
    }

    /// The time the input carries (NaN: none).
    public var t: Double { input.t }

    /// The same input at time `t` (validated times stay valid: the engine resolves them first).
    func withTime(_ t: Double) -> ValidatedInput { ValidatedInput(checked: input.withTime(t)) }

    private init(checked: Input) { input = checked }

    static func fix(_ fix: Fix) throws(RunwayError) -> Fix {
        if inRange(fix) { return fix }
        return try checkedFix(fix)
    }

    /// Whether every value of `f` is in range or NaN (unknown) as it is, so that checking it
    /// (`checkedFix`) would return it unchanged: lat, lon and alt in range, speed, course and the
    /// accuracies non-negative and in range (NaN stays NaN), hr, cadence, power and t in range.
    @inlinable @inline(__always)
    static func inRange(_ f: Fix) -> Bool {
        func within(_ v: Double, _ lo: Double, _ hi: Double) -> Bool { v >= lo && v <= hi }   // false for NaN
        func unknownOr(_ v: Double, _ lo: Double, _ hi: Double) -> Bool { !(v < lo) && !(v > hi) }   // true for NaN
        return within(f.lat, -90, 90) && within(f.lon, -180, 180) && unknownOr(f.alt, -1_000_000, 1_000_000)
            && unknownOr(f.speed, 0, 1_000_000) && unknownOr(f.course, 0, 360) && unknownOr(f.hAcc, 0, 1e9)
            && unknownOr(f.vAcc, 0, 1e9) && unknownOr(f.hr, 0, 300) && unknownOr(f.cadence, 0, 400)
            && unknownOr(f.power, 0, 5000) && !(f.t < 0) && !(f.t >= 1e11)
    }

    @inline(never)
    static func checkedFix(_ fix: Fix) throws(RunwayError) -> Fix {
        var f = fix
        guard f.lat.isFinite, f.lon.isFinite else {
            throw .input(f.lat.isNaN || f.lon.isNaN ? "fix needs lat and lon" : "lat/lon must be finite")
        }
        guard (-90.0...90.0).contains(f.lat) else { throw .input("lat \(f.lat) out of range -90...90") }
        guard (-180.0...180.0).contains(f.lon) else { throw .input("lon \(f.lon) out of range -180...180") }
        if !f.alt.isNaN {
            guard f.alt.isFinite, (-1_000_000.0...1_000_000.0).contains(f.alt) else {
                throw .input("alt \(f.alt) out of range")
            }
        }
        f.speed = try optionalNonNegative(f.speed, "speed", max: 1_000_000)
        f.course = try optionalNonNegative(f.course, "course", max: 360)
        f.hAcc = try optionalNonNegative(f.hAcc, "h_acc", max: 1e9)
        // A negative vertical accuracy says the altitude is invalid (CoreLocation's -1, whose
        // altitude is then 0): the altitude is unknown too, not a climb from or to sea level.
        if f.vAcc < 0 && f.vAcc.isFinite { f.alt = .nan }
        f.vAcc = try optionalNonNegative(f.vAcc, "v_acc", max: 1e9)
        if !f.hr.isNaN { f.hr = try heartRate(f.hr) }
        if !f.cadence.isNaN { f.cadence = try cadence(f.cadence) }
        if !f.power.isNaN { f.power = try power(f.power) }
        try optionalTime(f.t)
        return f
    }

    @inline(__always)
    static func optionalNonNegative(_ v: Double, _ name: StaticString, max: Double) throws(RunwayError) -> Double {
        if v >= 0 && v <= max { return v }   // the common case (false for NaN)
        return try outOfRangeNonNegative(v, name, max: max)
    }

    @inline(never)
    static func outOfRangeNonNegative(_ v: Double, _ name: StaticString, max: Double) throws(RunwayError) -> Double {
        if v.isNaN { return .nan }
        guard v.isFinite else { throw .input("\(name) must be finite") }
        if v < 0 { return .nan }
        guard v <= max else { throw .input("\(name) \(v) out of range 0...\(max)") }
        return v
    }

    static func heartRate(_ bpm: Double) throws(RunwayError) -> Double {
        guard bpm.isFinite, bpm >= 0, bpm <= 300 else { throw .input("bpm \(bpm) out of range 0...300") }
        return bpm
    }

    static func cadence(_ spm: Double) throws(RunwayError) -> Double {
        guard spm.isFinite, spm >= 0, spm <= 400 else { throw .input("spm \(spm) out of range 0...400") }
        return spm
    }

    /// Watts, 0...5000 (a track sprinter's peak is about 2500 W).
    static func power(_ watts: Double) throws(RunwayError) -> Double {
        guard watts.isFinite, watts >= 0, watts <= 5000 else { throw .input("watts \(watts) out of range 0...5000") }
        return watts
    }

    static func optionalTime(_ t: Double) throws(RunwayError) {
        if !t.isNaN { try time(t) }
    }

    /// A time in unix seconds, 0 ≤ t < 1e11.
    @inline(__always)
    static func time(_ t: Double) throws(RunwayError) {
        if t >= 0 && t < 1e11 { return }   // false for NaN and ±infinity
        try timeOutOfRange(t)
    }

    /// The error names the time as a date too (a recording's placeholder date, 1901-12-13, is
    /// recognisable where its unix seconds are not), when it has one in years 0…9999.
    @inline(never)
    static func timeOutOfRange(_ t: Double) throws(RunwayError) {
        let date = ISOTime.string(t).map { " (\($0))" } ?? ""
        throw .input("t \(t)\(date) out of range (unix seconds, 0 <= t < 1e11: 1970-01-01 to 5138-11-16)")
    }
}

extension Fix {
    /// The fix checked as every input is (`ValidatedInput`).
    public func validated() throws(RunwayError) -> Fix { try ValidatedInput.fix(self) }
}
