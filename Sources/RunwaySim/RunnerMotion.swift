#if canImport(Glibc)
import Glibc
#endif

/// The runner's true motion along the path: distance and speed over time, with stops.
///
/// A plain value stepped forward in time. The runner starts standing, speeds up at no more
/// than 1 m/s², follows a target speed (the steady speed times a slow random variation,
/// lowered ahead of corners), and brakes into every stop at a constant 1 m/s² so that it comes
/// to rest *exactly* at the stop's distance, stands there (speed exactly 0) for the stop's
/// duration, and sets off again. The end of the run is the last stop. The acceleration never
/// exceeds 1.5 m/s² in either direction, so the true speed has no jumps.
struct RunnerMotion: Sendable {
    /// Speeding up, m/s².
    static let maxAcceleration = 1.0
    /// The target-following controller's hardest braking, m/s².
    static let maxDeceleration = 1.5
    /// The constant braking into a stop, m/s².
    static let stopDeceleration = 1.0
    /// The braking a runner plans for a corner, m/s².
    static let cornerDeceleration = 0.5
    /// How quickly the runner closes a gap to the target speed, seconds.
    static let responseTime = 1.0
    /// How far ahead (in seconds at the current speed) the runner looks for corners.
    static let lookahead = 0.5

    /// Standing still at a distance along the path for a time.
    struct Stop: Sendable {
        var at: Double
        var duration: Double
    }

    enum Phase: Sendable, Equatable {
        case standing(remaining: Double)
        case running
        case braking
        case finished
    }

    let path: LoopPath
    let steadySpeed: Double
    /// Sorted by distance; the first is at 0 (standing before the start), the last at the end.
    let stops: [Stop]
    let variationLimit: Double
    private(set) var next = 0
    private(set) var phase: Phase
    /// Distance along the path, metres (beyond one lap, it keeps counting).
    private(set) var s = 0.0
    /// True speed, m/s.
    private(set) var v = 0.0
    /// Seconds spent running or braking (not standing).
    private(set) var movingTime = 0.0
    var variation: GaussMarkov
    var rng: SimRandom

    /// - Parameters:
    ///   - stops: sorted, the first at 0 and the last at the run's end; at least one.
    ///   - paceVariation: the spread of the slow speed variation, as a fraction.
    init(path: LoopPath, steadySpeed: Double, stops: [Stop], paceVariation: Double, rng: SimRandom) {
        self.path = path
        self.steadySpeed = steadySpeed
        self.stops = stops.isEmpty ? [Stop(at: 0, duration: 0)] : stops
        self.variationLimit = 3 * paceVariation
        var r = rng
        variation = GaussMarkov(sigma: paceVariation, tau: 120, rng: &r)
        self.rng = r
        phase = .standing(remaining: self.stops[0].duration)
    }

    var isFinished: Bool { phase == .finished }
    var isMoving: Bool { v > 0 }

    /// The distance to the stop being approached.
    private var target: Double { stops[min(next, stops.count - 1)].at }

    /// Moves the runner `dt` seconds on.
    mutating func advance(by dt: Double) {
        variation.step(dt: dt, rng: &rng)
        var left = dt
        var transitions = 0
        while left > 0, transitions < 64 {
            switch phase {
            case .finished:
                return
            case .standing(let remaining):
                if remaining > left {
                    phase = .standing(remaining: remaining - left)
                    return
                }
                left -= remaining
                next += 1
                phase = next < stops.count ? .running : .finished
                transitions += 1
            case .running:
                let d = target - s
                if d <= 1e-9 {
                    arrive()
                    transitions += 1
                    continue
                }
                let a = controllerAcceleration()
                let step = RunnerMotion.move(v: v, a: a, dt: left)
                if step.ds < d && !mustBrake(v: step.v, remaining: d - step.ds) {
                    s += step.ds
                    v = step.v
                    movingTime += left
                    return
                }
                // The braking curve is reached inside this step: find when, go there, then brake.
                var lo = 0.0, hi = left
                for _ in 0..<60 {
                    let mid = (lo + hi) / 2
                    let m = RunnerMotion.move(v: v, a: a, dt: mid)
                    if m.ds >= d || mustBrake(v: m.v, remaining: d - m.ds) { hi = mid } else { lo = mid }
                }
                let m = RunnerMotion.move(v: v, a: a, dt: hi)
                s = min(s + m.ds, target)
                v = m.v
                movingTime += hi
                left -= hi
                phase = .braking
                transitions += 1
            case .braking:
                let d = target - s
                if d <= 1e-9 {
                    arrive()
                    transitions += 1
                    continue
                }
                guard v > 0 else {                        // cannot happen; recover by running on
                    phase = .running
                    transitions += 1
                    continue
                }
                // Constant deceleration that ends exactly at the stop: v² = 2·a·d.
                let a = v * v / (2 * d)
                let timeToStop = 2 * d / v
                if timeToStop <= left {
                    movingTime += timeToStop
                    left -= timeToStop
                    arrive()
                    transitions += 1
                } else {
                    s = min(s + v * left - a * left * left / 2, target)
                    v = max(v - a * left, 0)
                    movingTime += left
                    return
                }
            }
        }
    }

    /// Whether, at speed `v` with `remaining` metres to the stop, braking must begin.
    private func mustBrake(v: Double, remaining: Double) -> Bool {
        v * v >= 2 * RunnerMotion.stopDeceleration * remaining
    }

    private mutating func arrive() {
        s = target
        v = 0
        phase = .standing(remaining: stops[min(next, stops.count - 1)].duration)
    }

    /// Constant acceleration `a` for `dt` seconds from speed `v`, never going backwards.
    static func move(v: Double, a: Double, dt: Double) -> (ds: Double, v: Double) {
        if a < 0 && v + a * dt < 0 {
            let t = -v / a
            return (v * t + a * t * t / 2, 0)
        }
        return (v * dt + a * dt * dt / 2, v + a * dt)
    }

    /// The acceleration that closes the gap to the target speed, within the limits.
    private func controllerAcceleration() -> Double {
        let factor = 1 + min(max(variation.value, -variationLimit), variationLimit)
        let desired = steadySpeed * max(0.3, factor)
        let ahead = s + v * RunnerMotion.lookahead
        var u = fmod(ahead, path.length)
        if u < 0 { u += path.length }
        let corner = path.cornerSpeedLimit(at: u, steadySpeed: steadySpeed,
                                           deceleration: RunnerMotion.cornerDeceleration)
        let wanted = min(desired, corner)
        let a = (wanted - v) / RunnerMotion.responseTime
        return min(max(a, -RunnerMotion.maxDeceleration), RunnerMotion.maxAcceleration)
    }
}
