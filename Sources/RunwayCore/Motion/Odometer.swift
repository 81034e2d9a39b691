/// The flight's distance, moving time and fastest speed.
///
/// Distance never decreases: steps and credits add to it, nothing takes away.
///
///     var odo = Odometer()
///     odo.add(Step(distanceM: 3, moving: true), over: 1)
///     odo.noteSpeed(3.1)
///     (odo.distanceM, odo.movingS, odo.maxSpeedMps)   // (3, 1, 3.1)
public struct Odometer: Sendable, Equatable {
    public private(set) var distanceM = 0.0
    public private(set) var movingS = 0.0
    /// The fastest speed shown in cruise, m/s (NaN before any).
    public private(set) var maxSpeedMps = Double.nan

    public init() {}

    /// Adds a step that took `dt` seconds.
    mutating func add(_ step: Step, over dt: Double) {
        distanceM += step.distanceM
        if step.moving { movingS += dt }
    }

    /// Adds distance and moving time measured earlier (a gap credit, an auto-pause's held steps).
    mutating func credit(distanceM d: Double, movingS m: Double = 0) {
        distanceM += d
        movingS += m
    }

    /// Takes back moving time that turned out to be a hold's (an auto-pause backdated to the
    /// start of its slow hold); distance stays.
    mutating func withdraw(movingS m: Double) {
        movingS = max(0, movingS - m)
    }

    mutating func noteSpeed(_ v: Double) {
        if !v.isNaN, !(v <= maxSpeedMps) { maxSpeedMps = v }
    }
}
