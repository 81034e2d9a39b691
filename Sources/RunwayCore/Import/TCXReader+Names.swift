extension TCXReader {
    /// The elements the reader acts on (by local name).
    enum Name: UInt8 {
        case other, activity, lap, track, trackpoint, time, position, latitude, longitude, altitude, heartRate, value
        case cadence, extensions, speed, runCadence, watts, totalTime, distance, calories, avgWatts, maxWatts
        case triggerMethod

        init(_ n: XMLName) {
            switch n.bytes.count {
            case 3 where n == "Lap": self = .lap
            case 4 where n == "Time": self = .time
            case 5 where n == "Track": self = .track
            case 5 where n == "Value": self = .value
            case 5 where n == "Speed": self = .speed
            case 5 where n == "Watts": self = .watts
            case 7 where n == "Cadence": self = .cadence
            case 8 where n == "Activity": self = .activity
            case 8 where n == "Position": self = .position
            case 8 where n == "Calories": self = .calories
            case 8 where n == "AvgWatts": self = .avgWatts
            case 8 where n == "MaxWatts": self = .maxWatts
            case 10 where n == "Trackpoint": self = .trackpoint
            case 10 where n == "Extensions": self = .extensions
            case 10 where n == "RunCadence": self = .runCadence
            case 12 where n == "HeartRateBpm": self = .heartRate
            case 13 where n == "TriggerMethod": self = .triggerMethod
            case 14 where n == "AltitudeMeters": self = .altitude
            case 14 where n == "DistanceMeters": self = .distance
            case 15 where n == "LatitudeDegrees": self = .latitude
            case 16 where n == "LongitudeDegrees": self = .longitude
            case 16 where n == "TotalTimeSeconds": self = .totalTime
            default: self = .other
            }
        }
    }
}
