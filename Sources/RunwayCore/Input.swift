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
    /// Heart rate and cadence carried on the fix itself (as recordings do); NaN when absent.
    public var hr: Double
    public var cadence: Double
    /// Power carried on the fix (watts), as FIT records carry it; NaN when absent.
    public var power: Double

    public init(t: Double = .nan, lat: Double, lon: Double, alt: Double = .nan, speed: Double = .nan,
                course: Double = .nan, hAcc: Double = .nan, vAcc: Double = .nan,
                hr: Double = .nan, cadence: Double = .nan, power: Double = .nan) {
        self.t = t; self.lat = lat; self.lon = lon; self.alt = alt; self.speed = speed
        self.course = course; self.hAcc = hAcc; self.vAcc = vAcc; self.hr = hr; self.cadence = cadence
        self.power = power
    }

    /// The stated horizontal accuracy, at least `floor` (`floor` without one, NaN): `max` as the
    /// standard library's, `y >= x ? y : x`, the comparison false for NaN. (A test for NaN before
    /// `max` compiled to two selects, a dozen instructions, on every fix.) The position σ of the
    /// track filter and of the stillness detector.
    @inline(__always)
    func hAcc(atLeast floor: Double) -> Double { hAcc >= floor ? hAcc : floor }
}

public enum Sample: Sendable, Equatable {
    case heartRate(bpm: Double, t: Double)
    case cadence(spm: Double, t: Double)
    /// A barometric altitude (metres), preferred over GPS altitude while it keeps coming.
    case altimeter(alt: Double, t: Double)
    /// Power from a power meter (watts); 0 while coasting is a measurement like any other.
    case power(watts: Double, t: Double)
    /// Speed from a speed sensor (m/s): a wheel sensor, a foot pod, a treadmill. It measures the
    /// flight where positions are silent (indoors, before the GPS locks, a tunnel); see `SpeedSensorStage`.
    case speed(mps: Double, t: Double)

    public var t: Double {
        switch self {
        case .heartRate(_, let t), .cadence(_, let t), .altimeter(_, let t), .power(_, let t), .speed(_, let t): return t
        }
    }
}

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
    @inline(__always)
    public func withTime(_ t: Double) -> Input {
        switch self {
        case .fix(var f): f.t = t; return .fix(f)
        case .sample(.heartRate(let b, _)): return .sample(.heartRate(bpm: b, t: t))
        case .sample(.cadence(let s, _)): return .sample(.cadence(spm: s, t: t))
        case .sample(.altimeter(let a, _)): return .sample(.altimeter(alt: a, t: t))
        case .sample(.power(let w, _)): return .sample(.power(watts: w, t: t))
        case .sample(.speed(let v, _)): return .sample(.speed(mps: v, t: t))
        }
    }
}
