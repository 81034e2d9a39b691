/// A device's lap triggers as FIT and TCX store them (FIT lap `lap_trigger`, field 24; TCX
/// `Lap/TriggerMethod`), read by the importers and written back by the exports.
extension LapTrigger {
    /// The triggers a `device_lap` line may carry (not the engine's `auto` and `final`).
    public static let device: [LapTrigger] = allCases.filter { $0 != .auto && $0 != .final }

    /// The trigger a FIT `lap_trigger` value names (manual 0, time 1, distance 2,
    /// position_start 3, position_lap 4, position_waypoint 5, position_marked 6, session_end 7,
    /// fitness_equipment 8); nil for another value (invalid 0xFF: the file does not say).
    public init?(fit value: Double) {
        let names: [LapTrigger] = [.manual, .time, .distance, .positionStart, .positionLap,
                                   .positionWaypoint, .positionMarked, .sessionEnd, .fitnessEquipment]
        guard value >= 0, value < Double(names.count), value == value.rounded(.towardZero) else { return nil }
        self = names[Int(value)]
    }

    /// The trigger a TCX `TriggerMethod` names (Manual, Distance, Location, Time, HeartRate);
    /// nil for another text.
    public init?(tcx text: String) {
        switch text {
        case "Manual": self = .manual
        case "Distance": self = .distance
        case "Location": self = .positionLap
        case "Time": self = .time
        case "HeartRate": self = .heartRate
        default: return nil
        }
    }

    /// The FIT `lap_trigger` the export writes: the device's own, `distance` for an auto lap,
    /// `session_end` for the final lap, `manual` for a heart-rate lap (FIT has none).
    public var fitValue: Int64 {
        switch self {
        case .manual, .heartRate: 0
        case .time: 1
        case .auto, .distance: 2
        case .positionStart: 3
        case .positionLap: 4
        case .positionWaypoint: 5
        case .positionMarked: 6
        case .final, .sessionEnd: 7
        case .fitnessEquipment: 8
        }
    }

    /// The TCX `TriggerMethod` the export writes: `Distance` for an auto or distance lap,
    /// `Time`, `Location` for a position, `HeartRate`, and `Manual` for the rest (a manual lap,
    /// the final lap, a session end or fitness equipment, which TCX cannot say).
    public var tcxName: String {
        switch self {
        case .auto, .distance: "Distance"
        case .time: "Time"
        case .positionStart, .positionLap, .positionWaypoint, .positionMarked: "Location"
        case .heartRate: "HeartRate"
        case .manual, .final, .sessionEnd, .fitnessEquipment: "Manual"
        }
    }
}
