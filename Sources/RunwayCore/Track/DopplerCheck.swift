/// Checks the fixes' Doppler speed against their positions over a long window, and prefers the
/// positions for the rest of the flight when the two disagree by more than noise explains.
///
/// With Doppler speed in the fixes the track filter's distance is the trapezoid of the speeds
/// (`TrackFilter`), so a speed with a scale error (a foot pod's calibration, a device that
/// reports speed from another source) reads the whole flight short or long by that much. Over
/// each window of `windowM` metres of positions, the check compares the Doppler-integrated
/// distance with the positions': chords between fixes at least `minChordS` apart while Doppler
/// says moving (on a receiver error of 4 m they read long by under 1%; on the winding paths of
/// real recordings at one fix every few seconds they read within ±4% of the device over a
/// kilometre, ±2.5% over two). Beyond `tolerance` it says so (a `warning` log line), credits the
/// window's shortfall (when the Doppler read short; a Doppler that read long cannot be taken
/// back) and from then on hands the filter fixes without speed or course (`trusted`), so the
/// flight's distance is the positions'. Windows that agree keep the Doppler; the check starts a
/// new window.
///
///     var check = DopplerCheck()
///     let extra = check.take(step, fix: fix, at: t, cruising: true,
///                            measuredBySpeed: filter.lastStepMeasuredBySpeed, log: &log)   // 0, until a window disagrees
///     let fix = check.trusted(fix)   // speed and course dropped once positions are preferred
public struct DopplerCheck: Sendable {
    /// The length of a window, metres of positions.
    public var windowM: Double = 2000
    /// Chords between fixes at least this many seconds apart measure the positions' distance.
    public var minChordS: Double = 5
    /// The relative disagreement beyond which noise is no explanation.
    public var tolerance: Double = 0.05

    /// Whether a window disagreed: the flight's distance comes from the positions since.
    public private(set) var prefersPositions = false
    /// The Doppler-integrated and the positions' distance of the window that disagreed, metres,
    /// and the time of the fix that ended it.
    public private(set) var disagreement: (dopplerM: Double, positionsM: Double, t: Double)? = nil

    var anchor: (lat: Double, lon: Double, t: Double)? = nil
    var positionsM = 0.0, dopplerM = 0.0, pendingDopplerM = 0.0

    public init() {}

    /// The fix as the track filter should take it: without speed and course once positions are
    /// preferred.
    @inline(__always)
    func trusted(_ fix: Fix) -> Fix {
        guard prefersPositions, !fix.speed.isNaN || !fix.course.isNaN else { return fix }
        var f = fix
        f.speed = .nan
        f.course = .nan
        return f
    }

    /// Takes the filter's `step` for `fix` (as the device sent it): the distance to credit now.
    /// A step without Doppler speed, outside cruise or starting a segment starts the window over;
    /// one standing still (the positions' scatter is no distance) moves the chord's start on, as
    /// does one the speeds did not measure (`measuredBySpeed` false: a long step that moves at one
    /// end only, `TrackFilter.lastStepMeasuredBySpeed`, may count its chord, so it would
    /// read the speeds short against the positions by its chord's noise alone: a ride at
    /// 1.55 m/s, a fix every 7 s, read 5 % short over a window and lost 16 % of its distance to
    /// the positions).
    @inline(__always)
    mutating func take(_ step: Step, fix: Fix, at t: Double, cruising: Bool, measuredBySpeed: Bool, log: inout EventLog) -> Double {
        guard !prefersPositions else { return 0 }
        guard cruising, !fix.speed.isNaN, !step.newSegment, let a = anchor else {
            restart(at: fix, t)
            return 0
        }
        guard step.moving, measuredBySpeed else {
            anchor = (fix.lat, fix.lon, t)
            pendingDopplerM = 0
            return 0
        }
        pendingDopplerM += step.distanceM
        guard t - a.t >= minChordS else { return 0 }
        positionsM += Geodesy.distance(lat1: a.lat, lon1: a.lon, lat2: fix.lat, lon2: fix.lon)
        dopplerM += pendingDopplerM
        pendingDopplerM = 0
        anchor = (fix.lat, fix.lon, t)
        guard positionsM >= windowM else { return 0 }
        defer { restart(at: fix, t) }
        guard abs(dopplerM - positionsM) > tolerance * positionsM else { return 0 }
        prefersPositions = true
        disagreement = (dopplerM, positionsM, t)
        let percent = PFD.whole(100 * (dopplerM / positionsM - 1))
        log.note(.warning, "Doppler speed disagrees with the positions: \(PFD.whole(dopplerM)) m against \(PFD.whole(positionsM)) m over the last window (\(percent)%); the distance is measured from the positions from t \(t)")
        return max(0, positionsM - dopplerM)
    }

    mutating func restart(at fix: Fix, _ t: Double) {
        anchor = (fix.lat, fix.lon, t)
        positionsM = 0
        dopplerM = 0
        pendingDopplerM = 0
    }
}
