/// The seeds and places accuracy tests run over, in two sets.
///
/// - ``tuning``: the seeds and places an engineer may look at while choosing a mechanism's
///   settings (print figures, plot, iterate).
/// - ``heldBack``: seeds and places nobody looks at while tuning. Every accuracy figure the
///   project claims is asserted on these too; a figure that holds on the tuning set and fails
///   here is not a figure.
///
/// ```swift
/// for trial in SimTrials.heldBack {
///     var config = SimConfig()
///     config.seed = trial.seed
///     config.centerLat = trial.lat
///     config.centerLon = trial.lon
///     let run = simulate(config)
///     // assert on the engine's figures for `run`
/// }
/// ```
public struct SimTrial: Sendable, Equatable, CustomStringConvertible {
    public var seed: UInt64
    public var lat: Double
    public var lon: Double
    public var place: String

    public init(seed: UInt64, lat: Double, lon: Double, place: String) {
        self.seed = seed
        self.lat = lat
        self.lon = lon
        self.place = place
    }

    public var description: String { "seed \(seed) at \(place) (\(lat), \(lon))" }

    /// A configuration for this trial: `base` with the trial's seed and place.
    public func config(_ base: SimConfig = SimConfig()) -> SimConfig {
        var c = base
        c.seed = seed
        c.centerLat = lat
        c.centerLon = lon
        return c
    }
}

public enum SimTrials {
    /// Seeds 1–3 in Amsterdam (52.37° N), the simulator's default place: look at these freely.
    public static let tuning: [SimTrial] = [
        SimTrial(seed: 1, lat: 52.37, lon: 4.89, place: "Amsterdam"),
        SimTrial(seed: 2, lat: 52.37, lon: 4.89, place: "Amsterdam"),
        SimTrial(seed: 3, lat: 52.37, lon: 4.89, place: "Amsterdam"),
    ]

    /// Held back: other seeds at other latitudes (equator, southern hemisphere, near the Arctic
    /// circle, across the antimeridian). Assert on these; never tune on them.
    public static let heldBack: [SimTrial] = [
        SimTrial(seed: 1_701, lat: 1.29, lon: 103.85, place: "Singapore"),
        SimTrial(seed: 2_903, lat: -33.92, lon: 18.42, place: "Cape Town"),
        SimTrial(seed: 4_417, lat: 64.15, lon: -21.94, place: "Reykjavik"),
        SimTrial(seed: 5_581, lat: -16.50, lon: 179.99, place: "Fiji (antimeridian)"),
        SimTrial(seed: 7_219, lat: 40.71, lon: -74.01, place: "New York"),
    ]
}
