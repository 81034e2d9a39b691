#if canImport(Glibc)
import Glibc
#endif

/// Distance that survives GPS noise: a constant-velocity Kalman filter over the accepted fixes,
/// in metres on the local tangent plane of its own estimate, that uses everything a fix carries.
///
/// - Positions update the filter with their accuracy (a floor of `minPositionSigmaM`).
/// - A Doppler speed with a course updates the velocity directly (Doppler is far less noisy than
///   positions differenced).
/// - Distance: with Doppler speed in the fixes, the trapezoid of the speeds over time (a speed
///   below `stationaryDopplerMps` counts as standing: at both ends of a step believed once the
///   Doppler speed has shown movement, unless the step is long or its fixes clearly moved; where
///   the positions speak, no further than the step's chord; a stretch of standing speeds whose
///   fixes clearly move on is doubted, `judgeStanding`, and measured by the positions; a step
///   longer than `longStepS` that moves at one end only counts what its fixes moved when its
///   trapezoid is longer than that and a position σ explain); otherwise
///   the filtered speed over time while it is above `movingSpeedMps` (the filtered speed of a
///   receiver standing still wanders, and adding it up is how raw accumulation turns ten minutes
///   at a red light into a kilometre).
///   In all no further than the fixes moved since the filter started: the filtered speed lags a
///   stop and would run on past it; what runs ahead waits until the fixes have moved as far
///   (`counted`, `fixesMoved`, `ahead`).
///
/// Raw accumulation of the simulated receiver error in the tests reads ~10% long and adds ~900 m
/// in ten minutes standing still; this filter stays within the figures (see the tests).
public struct TrackFilter: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Random acceleration of the runner (m/s²), the process noise.
        public var accelerationSigma: Double = 0.3
        /// The least position noise assumed for a fix, metres (also used without h_acc).
        public var minPositionSigmaM: Double = 3
        /// Doppler speed noise assumed per axis (m/s).
        public var dopplerSigmaMps: Double = 0.15
        /// Doppler speeds below this count as standing still.
        public var stationaryDopplerMps: Double = 0.4
        /// Filtered speeds below this count as standing still (positions only); with Doppler, the
        /// speed that shows movement, and the least at which the positions speak for a standing one.
        public var movingSpeedMps: Double = 0.8
        /// No speed above this counts (the gate's cap for the activity).
        public var speedCapMps: Double = 12
        /// A step longer than this is judged moving by its displacement, not its endpoints' speeds.
        public var longStepS: Double = 5
        /// Consecutive fixes beyond what standing explains after which a Doppler speed that says
        /// standing is doubted (`judgeStanding`; at least 2: one fix can be an outlier).
        public var doubtFixes: Int = 4
        public init() {}
    }

    public let settings: Settings

    // State: the estimate's position in degrees, its velocity east/north in m/s, and the
    // covariance in metres of each axis (x vx east, y vy north). The 4×4 covariance of x y vx vy
    // is block diagonal (F, Q, the start and every scalar update keep the axes apart), so each
    // axis is its own 2-state filter, written out in closed form (`Axis`).
    var lat = Double.nan, lon = Double.nan
    var ve = 0.0, vn = 0.0
    var east = Axis(), north = Axis()
    var lastT = Double.nan
    /// When it last started (`reset`, `restart`).
    var startedAt = Double.nan
    var lastDoppler = Double.nan
    /// Whether a fix's Doppler speed has shown movement (the moving speed or more, which a
    /// standing receiver's noise rarely reaches) since the filter started.
    var dopplerHasMoved = false
    var lastFixLat = Double.nan, lastFixLon = Double.nan
    /// Positions only, since the filter started: the distance its steps counted (and the start
    /// lag credited, `credited`), and the distance its fixes moved (the sum of their geodesics).
    var counted = 0.0, fixesMoved = 0.0
    /// What its steps would have counted beyond that: counted once the fixes have moved as far.
    var ahead = 0.0
    /// What its steps counted since its last step below the moving speed (`restarted`).
    var sinceRestM = 0.0
    /// While the Doppler speed says standing (`judgeStanding`): the fix where the stretch began
    /// (the last before it, where the speed said more; NaN: the speed does not say standing),
    /// what the steps counted since, and the consecutive fixes since beyond what standing explains.
    var standingLat = Double.nan, standingLon = Double.nan, standingT = Double.nan
    var standingCountedM = 0.0
    var beyondStanding = 0
    /// What the stretch's fixes are judged against: where it began, moved on while they stand.
    var reference = (lat: Double.nan, lon: Double.nan, t: Double.nan)
    var firstBeyond = (m: 0.0, t: 0.0)
    /// Whether the stretch's standing is doubted: its fixes are taken without their speed and
    /// course, and its steps are measured by the positions.
    var standingDoubted = false
    /// A stretch just doubted, until the flight takes it (`takeDoubt`).
    public internal(set) var doubt: Doubt? = nil
    /// The time of the stretch's steps since its reference that did not count as moving (the
    /// flight's cruise time of them: `notCruising`), and the last step's part of it.
    var standingStillS = 0.0, lastStillS = 0.0
    /// Whether the Doppler speeds measured the last step: not a step longer than `longStepS` that
    /// moves at one end only, whose trapezoid is a guess and which may count its chord (the
    /// Doppler check leaves it out of its comparison of speeds with positions).
    public private(set) var lastStepMeasuredBySpeed = true
    /// In a doubted stretch: its latest fixes (at most `doubtedFixesKept`), each with what the
    /// stretch's steps had counted there (`doubtedStep`).
    var doubtedFixes: [(lat: Double, lon: Double, countedM: Double)] = []
    // Metres per degree at `scaleLat`, refreshed when the estimate has moved 0.001° (111 m) in
    // latitude: a relative error below 2e-5 at 80°, and one cosine per ~30 s of running, not four
    // a fix.
    var scaleLat = Double.nan
    var cachedScales = (kx: 0.0, ky: 0.0)

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The filtered ground speed (m/s); NaN before the filter has a velocity.
    @inline(__always)
    public var speedMps: Double { lat.isNaN ? .nan : (ve * ve + vn * vn).squareRoot() }

    /// Where the filter is and how fast it goes, as a small value (what `StartLag` reads of it:
    /// handing it the whole filter copied the filter on every fix).
    public struct Estimate: Sendable {
        public var lat: Double, lon: Double, speedMps: Double
        /// When the filter last started (`reset`, `restart`).
        public var startedAt: Double
    }
    /// The filter's position and speed now.
    @inline(__always)
    public var estimate: Estimate { Estimate(lat: lat, lon: lon, speedMps: speedMps, startedAt: startedAt) }

    /// Whether the filter has a position.
    public var isStarted: Bool { !lat.isNaN }

    /// Starts over at `fix` (the first fix, or after a gap or a jump).
    public mutating func reset(at fix: Fix, t: Double) {
        lat = fix.lat; lon = fix.lon
        let sigma = positionSigma(fix)
        var v0 = 0.0, vn0 = 0.0
        var velocityVar = 25.0
        if !fix.speed.isNaN && !fix.course.isNaN {
            let (s, c) = Self.sinCos(degrees: fix.course)
            v0 = fix.speed * s; vn0 = fix.speed * c
            velocityVar = settings.dopplerSigmaMps * settings.dopplerSigmaMps
        }
        ve = v0; vn = vn0
        east = Axis(pp: sigma * sigma, vv: velocityVar)
        north = Axis(pp: sigma * sigma, vv: velocityVar)
        lastT = t; startedAt = t
        lastDoppler = fix.speed
        dopplerHasMoved = false
        lastFixLat = fix.lat; lastFixLon = fix.lon
        counted = 0; fixesMoved = 0; sinceRestM = 0; ahead = 0
        standingT = .nan; standingDoubted = false; beyondStanding = 0; standingCountedM = 0; doubt = nil
        standingStillS = 0; lastStillS = 0
        lastStepMeasuredBySpeed = true
        doubtedFixes.removeAll(keepingCapacity: true)
    }

    /// Starts over at `fix` after a silence of the fixes that the flight measured by other means
    /// (a speed sensor's samples, up to after the filter's last fix): the estimate stayed where
    /// that fix left it, and catching up with the runner from there would count the silence
    /// again in the steps after it. It starts as at a first fix (`reset`), and without a Doppler
    /// speed and course, at `mps` (the sensor's latest speed; NaN: none) along the line from the
    /// last fix, known to 1 m/s on each axis (the line's direction is the silence's, not the
    /// runner's at the fix); `StartLag` credits what this start lags (`startedAt`). Returns the
    /// step: the line from the last fix, moving when it moved at the moving speed or more (the
    /// flight counts only its share after the silence). The bound on what the steps count
    /// (`counted`, `fixesMoved`) goes on from before, the line counted and moved (a lag before
    /// the silence that `StartLag` credits later is within it); what ran `ahead` of the fixes
    /// before the silence does not.
    public mutating func restart(at fix: Fix, t: Double, mps: Double) -> Step {
        let dt = t - lastT
        let o = Geodesy.offset(lat1: lastFixLat, lon1: lastFixLon, lat2: fix.lat, lon2: fix.lon)
        let lineM = Geodesy.length(o)
        let bound = (counted: counted, moved: fixesMoved)
        reset(at: fix, t: t)
        if fix.speed.isNaN || fix.course.isNaN, mps >= 0, lineM > 0 {
            ve = mps * o.dx / lineM; vn = mps * o.dy / lineM
            east.vv = 1; north.vv = 1
        }
        lastStepMeasuredBySpeed = false   // (a line, not speeds: the Doppler check leaves it out)
        let stepM = dt > 0 ? min(lineM, settings.speedCapMps * dt) : 0
        counted = bound.counted + stepM; fixesMoved = bound.moved + lineM
        return Step(distanceM: stepM, moving: dt > 0 && lineM >= settings.movingSpeedMps * dt)
    }

    /// A stretch of standing speeds just doubted (`judgeStanding`). Whatever the flight decided
    /// from those speeds after `from` (an auto-pause) was decided on speeds that did not hold.
    public struct Doubt: Sendable, Equatable {
        /// The time from which its fixes moved, as far as they tell.
        public var from: Double
        /// How much of the time since then its steps did not count as moving (the moving time
        /// they missed, as the shortfall is the distance).
        public var stillS: Double
        /// How far its fixes moved since the stretch began.
        public var movedM: Double
        /// What its steps missed of that displacement: the fixes' movement beyond what they
        /// counted. The flight pays it out as it pays the start lag (no faster than the speed
        /// cap, the pace window shifted), so no step carries it: the Doppler check compares steps
        /// the speed measured.
        public var shortfallM: Double
    }

    /// The stretch doubted since the last call, once.
    public mutating func takeDoubt() -> Doubt? {
        defer { doubt = nil }
        return doubt
    }

    /// Whether the last fix's speed said standing and is doubted: the filtered speed (the
    /// positions') stands for it.
    @inline(__always)
    public var doubtsSpeed: Bool { standingDoubted }

    /// Whether the last fix's speed said standing while the fixes since its stretch began lie
    /// beyond what standing explains, too few yet to doubt it (`judgeStanding`): within
    /// `doubtFixes` fixes the filter doubts it, or the fixes come back or stay where they are
    /// (an offset), and the speed is believed.
    @inline(__always)
    public var standingInDoubt: Bool {
        !standingT.isNaN && !standingDoubted && beyondStanding > 0 && beyondStanding < max(2, settings.doubtFixes)
    }

    /// `s` of the last step's time was no cruise (a pause, before a start or resume): not time
    /// that a doubted stretch's steps missed as moving.
    public mutating func notCruising(_ s: Double) {
        let x = min(max(0, s), lastStillS)
        standingStillS -= x
        lastStillS -= x
    }

    /// The flight did not count the last step's `m` (held while auto-paused, or paused): a
    /// stretch of standing speeds doubted later owes it in its shortfall, which is what the
    /// flight missed.
    public mutating func heldBack(_ m: Double) {
        if !standingT.isNaN && !standingDoubted { standingCountedM -= m }
    }

    /// Notes distance credited for the filter's lag since it started (`StartLag`): it counts
    /// toward what the fixes' own movement bounds.
    public mutating func credited(_ m: Double) { counted += m }

    /// Movement was confirmed after standing, and the flight counted `countedM` of the steps
    /// since the filter last stood (the held steps credited; those before the confirmation was
    /// sure are left out): what it left out does not count toward the bound.
    public mutating func restarted(countedM: Double) {
        counted = max(0, counted - max(0, sinceRestM - countedM))
        sinceRestM = 0   // taken into account once
    }

    /// Adds a fix; returns the step from the previous fix: the distance travelled and whether it moved.
    @inline(__always)
    public mutating func update(_ fix: Fix, t: Double) -> Step {
        guard !lat.isNaN, !lastT.isNaN else {
            reset(at: fix, t: t)
            return Step(distanceM: 0, moving: false)
        }
        let dt = t - lastT
        lastStillS = 0
        lastStepMeasuredBySpeed = true
        guard dt > 0 else { return Step(distanceM: 0, moving: false) }
        let veBefore = ve, vnBefore = vn   // the speed before, wanted without Doppler only
        predict(dt)
        correctPosition(fix)
        let standing = fix.speed < settings.stationaryDopplerMps   // (false without a speed)
        var missedM = Double.nan   // (a stretch's standing just doubted: what its fixes moved)
        if standing { missedM = judgeStanding(fix, t: t, dt: dt) } else { standingT = .nan; standingDoubted = false }
        if !fix.speed.isNaN && !fix.course.isNaN && !(standing && standingDoubted) { correctVelocity(fix) }
        lastT = t
        let result: (Double, Bool)
        if !fix.speed.isNaN && !lastDoppler.isNaN {
            let a = lastDoppler < settings.stationaryDopplerMps ? 0 : lastDoppler
            let b = fix.speed < settings.stationaryDopplerMps ? 0 : fix.speed
            var d = (a + b) / 2 * dt
            // Starting, stopping or "standing". Some receivers report 0 m/s for the first seconds
            // of a run: until the Doppler speed has shown movement since the filter started, a step
            // it calls standing is left to the filtered positions if they clearly move. Once it
            // has, its standing at both ends of a step is believed, unless the step's fixes moved
            // further than the moving speed and a position σ explain (a wheel sensor's speed that
            // drops out mid-ride; a step longer than `longStepS`, below, is judged by its chord):
            // the filtered speed lags a stop (without a course, Doppler does not correct it) and
            // ran on past it, 4 to 34 m a stop, and over 100 m across a device's own 20 s pause.
            // The positions add to the trapezoid no further than the fixes moved over the step.
            var chord = Double.nan
            if a == 0 || b == 0 {
                let v = speedMps
                if v >= settings.movingSpeedMps {
                    chord = Geodesy.distance(lat1: lastFixLat, lon1: lastFixLon, lat2: fix.lat, lon2: fix.lon)
                    let believed = a == 0 && b == 0 && dopplerHasMoved && !standingDoubted && dt <= settings.longStepS
                        && chord <= settings.movingSpeedMps * dt + positionSigma(fix)
                    if standingDoubted { d = max(d, v * dt) } else if !believed { d = max(d, min(v * dt, chord)) }
                }
            }
            // Over a long step (sparse "smart" recording, a device that stopped recording while
            // its rider stood) the endpoints' speeds say little about the time between: moving is
            // judged by the displacement over the step (below). When one end moves and the other
            // does not clearly (under the moving speed, which a standing receiver's noise rarely
            // reaches), the trapezoid's steady change of speed between them is a guess (a runner
            // who stopped a second after the last fix and stood through a 26 s dropout read 33 m
            // for 2.7): when it exceeds what the fixes moved and a position σ explain, the step
            // counts what they moved (a stop or a set-off: the way between is about straight).
            // Within a σ the chord's noise could not tell them apart, and the trapezoid stands
            // (the shorter of the two read a slow rider's sparse track, its Doppler round the
            // moving speed, 2 % short).
            let long = dt > settings.longStepS
            if long {
                if chord.isNaN { chord = Geodesy.distance(lat1: lastFixLat, lon1: lastFixLon, lat2: fix.lat, lon2: fix.lon) }
                if min(lastDoppler, fix.speed) < settings.movingSpeedMps, max(lastDoppler, fix.speed) >= settings.movingSpeedMps {
                    lastStepMeasuredBySpeed = false
                    if d > chord + positionSigma(fix) { d = chord }
                }
            }
            if standing {
                // A stretch just doubted: what its steps missed of its fixes' displacement is the shortfall.
                if missedM > 0 { doubt?.shortfallM = max(0, missedM - standingCountedM - d) }
                standingCountedM += d
                if standingDoubted { doubtedStep(fix, t: t, justDoubted: missedM > 0) }
            }
            result = long ? (d, chord / dt >= settings.stationaryDopplerMps) : (d, d > 0)
            // (A step of the stretch, since its reference, before any doubt, that did not move.)
            lastStillS = standing && !standingDoubted && !result.1 && t - dt >= reference.t ? dt : 0
            standingStillS += lastStillS
        } else {
            let v = speedMps
            let moving = v >= settings.movingSpeedMps
            // The trapezoid of the filtered speed, when both ends are moving.
            let before = (veBefore * veBefore + vnBefore * vnBefore).squareRoot()
            var d = moving ? min((before >= settings.movingSpeedMps ? (before + v) / 2 : v) * dt, settings.speedCapMps * dt) : 0
            // A step longer than `longStepS` whose fixes moved slower than the moving speed counts
            // no further than they moved: the filtered speeds at its ends say little of the time
            // between (the speed after a long prediction is the chord's own and the velocity
            // correction's overshoot: a standing receiver's 27 s dropout, 7 m of wander, read
            // 1.1 m/s, 29.5 m; a runner braking into a stop, 2.8 m/s before it, 20 m for 3.6).
            let chord = Geodesy.distance(lat1: lastFixLat, lon1: lastFixLon, lat2: fix.lat, lon2: fix.lon)
            if dt > settings.longStepS && chord < settings.movingSpeedMps * dt { d = min(d, chord) }
            // The filtered speed lags: it runs on past a runner who stops (run: about 12 m after
            // a stop from 3.3 m/s, more than the start lag credited). No more is counted than the
            // fixes themselves moved since the filter started: what would run ahead of them waits
            // (`ahead`) until they have moved as far (setting off again, while the filter lags),
            // and a step that counts nothing is not moving.
            fixesMoved += chord
            let wanted = d + ahead
            let bounded = min(wanted, max(0, fixesMoved - counted), settings.speedCapMps * dt)
            ahead = wanted - bounded
            counted += bounded
            sinceRestM = moving ? sinceRestM + bounded : 0
            result = (bounded, bounded > 0)
        }
        lastDoppler = fix.speed
        if fix.speed >= settings.movingSpeedMps { dopplerHasMoved = true }   // (standing noise rarely reaches it)
        lastFixLat = fix.lat; lastFixLon = fix.lon
        return Step(distanceM: min(result.0, settings.speedCapMps * dt), moving: result.1)
    }
}
