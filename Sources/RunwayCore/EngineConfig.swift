/// Session settings, from the config JSON given to `runway_session_open`.
public struct EngineConfig: Sendable, Equatable {
    public enum Clock: String, Sendable { case replay, live }

    /// `replay`: times come from the inputs (deterministic); `live`: the wall clock when omitted.
    public var clock: Clock = .replay
    /// A fix closer than this to the last kept point is not kept (metres; 0 keeps every fix).
    public var distanceFilterM: Double = 5
    /// Fixes with a worse horizontal accuracy are not kept and raise a warning (metres).
    public var requiredAccuracyM: Double = 50
    /// Window for speed from distance over time when fixes carry no speed (seconds).
    public var paceWindowS: Double = 10

    public init() {}

    /// Reads a config JSON object; nil or empty text gives the defaults.
    ///
    /// Unknown keys, wrong types and out-of-range values are argument errors (they are typos).
    public static func parse(_ text: String?) throws(RunwayError) -> EngineConfig {
        var config = EngineConfig()
        guard let text, !text.isEmpty else { return config }
        let object: [(key: String, value: JSONValue)]
        do { object = try JSONInput.object(text) } catch { throw .argument("config: \(error.message)") }
        for (key, value) in object {
            switch key {
            case "clock":
                guard case .string(let s) = value, let c = Clock(rawValue: s) else {
                    throw .argument("config: \"clock\" must be \"replay\" or \"live\"")
                }
                config.clock = c
            case "distance_filter_m":
                config.distanceFilterM = try number(value, key, 0...1000)
            case "required_accuracy_m":
                config.requiredAccuracyM = try number(value, key, 0.1...100_000)
            case "pace_window_s":
                config.paceWindowS = try number(value, key, 1...600)
            default:
                throw .argument("config: unknown key \"\(key.prefix(60))\"")
            }
        }
        return config
    }

    static func number(_ v: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws(RunwayError) -> Double {
        guard let d = v.finiteNumber, range.contains(d) else {
            throw .argument("config: \"\(key)\" must be a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return d
    }
}
