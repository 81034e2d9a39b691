/// Speed samples (a wheel sensor, a foot pod, a treadmill) measure the flight where no position
/// can: until the flight's first fix in cruise, so indoors, where none comes, and before the GPS
/// locks. Positions then measure the leg from where the sensor left off (`measuredUntil`: the
/// leg's share of a line from a fix before it begins there), and speed samples measure nothing.
///
/// Each sample measures the time since the previous one (or since the leg began, when that is
/// later) at its own speed, as a sensor's reading is the speed over its last interval: a step of
/// that distance, moving when at a walker's speed or more; slower, neither distance nor moving
/// time, as a standing runner's steps. A silence longer than `maxIntervalS` (the config's `gap_s`)
/// measures nothing.
///
///     var s = SpeedSensorStage(movingMps: 0.8, maxIntervalS: 30)
///     s.step(mps: 3, at: 1, since: 0)   // (Step(distanceM: 3, moving: true), dt: 1)
///     s.step(mps: 0.2, at: 2, since: 0) // (Step(distanceM: 0, moving: false), dt: 1)
struct SpeedSensorStage: Sendable, Equatable {
    /// The speed from which a sample is movement (the stillness detector's walker's speed).
    let movingMps: Double
    let maxIntervalS: Double
    /// The previous sample's time (NaN: none yet).
    private var lastT = Double.nan
    /// The time up to which the samples measured the flight (-infinity: never).
    private(set) var measuredUntil = -Double.infinity
    /// Whether a sample faster than the profile's cap has been seen (it is logged once).
    private var sawTooFast = false

    init(movingMps: Double, maxIntervalS: Double) {
        self.movingMps = movingMps
        self.maxIntervalS = maxIntervalS
    }

    /// The step a sample of `mps` at `t` measures over the time since the previous sample and not
    /// before `since` (the leg's start; -infinity while auto-paused, where the hold keeps it); nil
    /// when it measures none (no time in the leg, or a silence longer than `maxIntervalS`).
    mutating func step(mps: Double, at t: Double, since: Double) -> (step: Step, dt: Double)? {
        defer { lastT = t }
        let from = lastT.isNaN ? since : max(lastT, since)
        let dt = t - from
        guard dt > 0, dt <= maxIntervalS else { return nil }
        measuredUntil = t
        let moving = mps >= movingMps
        return (Step(distanceM: moving ? mps * dt : 0, moving: moving), dt)
    }

    /// Notes a sample faster than the profile's cap: true the first time (to log it).
    mutating func noteTooFast() -> Bool {
        defer { sawTooFast = true }
        return !sawTooFast
    }

    /// A sample that measures nothing (before the start, while the user holds, once positioned):
    /// the next one measures from it.
    mutating func seen(at t: Double) { lastT = t }
}
