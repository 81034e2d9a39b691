/// A value snapshot of the live flight: what the PFD shows. Unknown values are NaN here and
/// `null` in JSON.
public struct FlightData: Sendable, Equatable {
    public var seq: UInt64 = 0
    public var t: Double = .nan
    public var phase: FlightPhase = .preflight
    /// "user" or "auto" while holding.
    public var holdingBy: String? = nil
    public var lat: Double = .nan
    public var lon: Double = .nan
    public var hAccM: Double = .nan
    /// "ok", "reduced" or "unknown" (no fix or no accuracy yet, or the latest fix older than
    /// the pace window speaks for: the receiver has gone quiet).
    public var accuracy: Accuracy = .unknown
    /// The time of the latest fix: the one `lat`, `lon`, `h_acc_m` and `speed_mps` come from.
    public var lastFixT: Double = .nan
    public var distanceM: Double = 0
    public var points: Int = 0
    public var segments: Int = 0
    public var fixes: Int = 0
    /// Fixes the gate filtered out (all reasons).
    public var filtered: Int = 0
    /// The same, by reason (`filtered_by`; the summary's `filtered` object).
    public var filteredBy = FilterCounts()
    /// The device's own speed (Doppler) from the latest fix, raw; NaN once that fix is older than
    /// the pace window speaks for.
    public var speedMps: Double = .nan
    /// The engine's current ground speed: distance over time across the pace window; NaN once
    /// the fix or sample that measured it is older than the window speaks for.
    public var groundSpeedMps: Double = .nan
    public var altitudeM: Double = .nan
    public var headingDeg: Double = .nan
    public var elapsedS: Double = 0
    public var movingS: Double = 0
    public var gainM: Double = 0
    public var lossM: Double = 0
    public var gradePct: Double = .nan
    public var verticalSpeedMps: Double = .nan
    /// The current lap (1-based) and how far and long it has run.
    public var lap: Int = 1
    public var lapDistanceM: Double = 0
    public var lapElapsedS: Double = 0
    public var hrBpm: Double = .nan
    public var cadenceSpm: Double = .nan

    /// The registered metrics' figures (power…).
    public var metrics: [MetricValue] = []

    public enum Accuracy: String, Sendable { case ok, reduced, unknown }

    public init() {}

    /// Current pace, min/km = 1 / (speed·60/1000) of the ground speed; NaN when unknown or zero.
    public var paceMinPerKm: Double { FlightData.pace(speedMps: groundSpeedMps) }

    /// Average pace, min/km = (elapsed_s/60) / (distance_m/1000); NaN before any distance.
    public var avgPaceMinPerKm: Double { FlightData.averagePace(elapsedS: elapsedS, distanceM: distanceM) }

    public static func pace(speedMps: Double) -> Double {
        guard speedMps.isFinite, speedMps > 0 else { return .nan }
        return 1 / (speedMps * 60 / 1000)
    }

    public static func averagePace(elapsedS: Double, distanceM: Double) -> Double {
        guard distanceM > 0, elapsedS.isFinite, elapsedS > 0 else { return .nan }
        return (elapsedS / 60) / (distanceM / 1000)
    }

    /// Writes the `flight` event object.
    ///
    /// One `reserve` makes the buffer the writer's own; every field after it is stored straight
    /// into the buffer with only a capacity check (`JSONWriter.room`): keys and enum names are
    /// literals, numbers are formatted in place, the PFD's texts are written by `PFD`.
    public func write(to w: inout JSONWriter) {
        w.reserve(256)
        w.ownedBeginObject()
        w.ownedField("kind", plain: "flight")
        w.ownedField("seq", seq)
        w.ownedField("t", t)
        w.ownedField("phase", plain: phase.jsonName)
        w.ownedKey("holding_by"); if let holdingBy { w.string(holdingBy) } else { w.ownedNull() }
        w.ownedField("lat", lat)
        w.ownedField("lon", lon)
        w.ownedField("h_acc_m", hAccM)
        w.ownedField("accuracy", plain: accuracy.jsonName)
        w.ownedField("last_fix_t", lastFixT)
        w.ownedField("distance_m", distanceM)
        w.ownedField("points", points)
        w.ownedField("segments", segments)
        w.ownedField("fixes", fixes)
        w.ownedField("filtered", filtered)
        w.ownedKey("filtered_by"); filteredBy.ownedWrite(to: &w)
        w.ownedField("speed_mps", speedMps)
        w.ownedField("ground_speed_mps", groundSpeedMps)
        w.ownedField("pace_min_per_km", paceMinPerKm)
        w.ownedField("avg_pace_min_per_km", avgPaceMinPerKm)
        w.ownedField("altitude_m", altitudeM)
        w.ownedField("heading_deg", headingDeg)
        w.ownedField("elapsed_s", elapsedS)
        w.ownedField("moving_s", movingS)
        w.ownedField("gain_m", gainM)
        w.ownedField("loss_m", lossM)
        w.ownedField("grade_pct", gradePct)
        w.ownedField("vertical_speed_mps", verticalSpeedMps)
        w.ownedField("lap", lap)
        w.ownedField("lap_distance_m", lapDistanceM)
        w.ownedField("lap_elapsed_s", lapElapsedS)
        w.ownedField("hr_bpm", hrBpm)
        w.ownedField("cadence_spm", cadenceSpm)
        for m in metrics { w.ownedField(m.key, m.value) }
        w.ownedKey("pfd")
        w.ownedBeginObject()
        let pace = paceMinPerKm, avgPace = avgPaceMinPerKm
        w.ownedKey("pace"); PFD.ownedWrite(.pace, pace, to: &w)
        w.ownedKey("pace_tape"); PFD.ownedWritePaceTape(pace, to: &w)
        w.ownedKey("direction"); PFD.ownedWrite(.direction, headingDeg, to: &w)
        w.ownedKey("heading_tape"); PFD.ownedWriteHeadingTape(headingDeg, to: &w)
        w.ownedKey("time"); PFD.ownedWrite(.time, elapsedS, to: &w)
        w.ownedKey("distance"); PFD.ownedWrite(.distance, distanceM, to: &w)
        w.ownedKey("altitude"); PFD.ownedWrite(.whole, altitudeM, to: &w)
        w.ownedKey("avg_pace"); PFD.ownedWrite(.averagePace, avgPace, to: &w)
        w.ownedKey("hr"); PFD.ownedWrite(.whole, hrBpm, to: &w)
        w.ownedKey("cadence"); PFD.ownedWrite(.whole, cadenceSpm, to: &w)
        w.ownedEndObject()
        w.ownedEndObject()
    }
}

extension FlightPhase {
    /// The phase's name in JSON (its raw value, as a literal the writer stores directly).
    var jsonName: StaticString {
        switch self {
        case .preflight: return "preflight"
        case .cruise: return "cruise"
        case .holding: return "holding"
        case .touchdown: return "touchdown"
        }
    }
}

extension FlightData.Accuracy {
    /// The accuracy's name in JSON (its raw value, as a literal).
    var jsonName: StaticString {
        switch self {
        case .ok: return "ok"
        case .reduced: return "reduced"
        case .unknown: return "unknown"
        }
    }
}

/// Fixes the gate filtered out, by reason (`FixGate.Reason`).
public struct FilterCounts: Sendable, Equatable {
    public var accuracy = 0, nullIsland = 0, speed = 0, repeatedTime = 0
    public init(accuracy: Int = 0, nullIsland: Int = 0, speed: Int = 0, repeatedTime: Int = 0) {
        self.accuracy = accuracy; self.nullIsland = nullIsland; self.speed = speed; self.repeatedTime = repeatedTime
    }

    public var total: Int { accuracy + nullIsland + speed + repeatedTime }

    /// The counts as a JSON object keyed by reason (the snapshot's `filtered_by`, the summary's `filtered`).
    public func write(to w: inout JSONWriter) {
        w.reserve(2)
        ownedWrite(to: &w)
    }

    /// The same in a run of writes whose buffer is the writer's own (`JSONWriter.room`). The
    /// reasons in `FixGate.Reason.allCases` order under their `jsonKey`, spelled out so that the
    /// keys are literals stored in place (SnapshotSerialisationTests hold the two in step).
    func ownedWrite(to w: inout JSONWriter) {
        w.ownedBeginObject()
        w.ownedField("accuracy", accuracy)
        w.ownedField("null_island", nullIsland)
        w.ownedField("speed", speed)
        w.ownedField("repeated_time", repeatedTime)
        w.ownedEndObject()
    }

    public subscript(reason: FixGate.Reason) -> Int {
        get {
            switch reason {
            case .accuracy: return accuracy
            case .nullIsland: return nullIsland
            case .speed: return speed
            case .repeatedTime: return repeatedTime
            }
        }
        set {
            switch reason {
            case .accuracy: accuracy = newValue
            case .nullIsland: nullIsland = newValue
            case .speed: speed = newValue
            case .repeatedTime: repeatedTime = newValue
            }
        }
    }
}

/// The kinds of events a session emits.
public enum EventKind: String, Sendable, CaseIterable {
    case flight, phase, tick, log, split, alert, overflow

    public var bit: UInt32 { 1 << UInt32(EventKind.allCases.firstIndex(of: self) ?? 0) }

    /// Snapshots that a `latest` subscriber may skip to the newest of.
    public var coalesces: Bool { self == .flight || self == .tick }
}

/// One event: a snapshot or a discrete happening, with its per-session sequence number.
public struct Event: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        case flight(FlightData)
        case phase(from: FlightPhase, to: FlightPhase, by: FlightComputer.HoldReason?)
        case split(Lap)
        case alert(AlertMonitor.Alert)
        case tick(elapsedS: Double, distanceM: Double, phase: FlightPhase)
        case log(LogRing.Line)
    }

    public let seq: UInt64
    public let t: Double
    public let body: Body

    public var kind: EventKind {
        switch body {
        case .flight: return .flight
        case .phase: return .phase
        case .split: return .split
        case .alert: return .alert
        case .tick: return .tick
        case .log: return .log
        }
    }

    /// The event as a JSON object.
    public func write(to w: inout JSONWriter) {
        switch body {
        case .flight(let data):
            data.write(to: &w)
        case .phase(let from, let to, let by):
            w.beginObject()
            w.field("kind", "phase"); w.field("seq", seq); w.field("t", t)
            w.field("from", from.rawValue); w.field("to", to.rawValue)
            w.key("by"); if let by { w.string(by.rawValue) } else { w.null() }
            w.endObject()
        case .split(let lap):
            w.beginObject()
            w.field("kind", "split"); w.field("seq", seq); w.field("t", t)
            w.key("lap"); lap.write(to: &w)
            w.endObject()
        case .alert(let alert):
            w.beginObject()
            w.field("kind", "alert"); w.field("seq", seq); w.field("t", t)
            w.field("code", alert.code); w.field("message", alert.message)
            w.key("values"); w.beginObject()
            for (k, v) in alert.values.sorted(by: { $0.key < $1.key }) { w.key(dynamic: k); w.number(v) }
            w.endObject()
            w.endObject()
        case .tick(let elapsed, let distance, let phase):
            let avg = FlightData.averagePace(elapsedS: elapsed, distanceM: distance)
            w.beginObject()
            w.field("kind", "tick"); w.field("seq", seq); w.field("t", t)
            w.field("phase", phase.rawValue)
            w.field("elapsed_s", elapsed); w.field("avg_pace_min_per_km", avg)
            w.key("pfd"); w.beginObject()
            w.key("time"); PFD.write(.time, elapsed, to: &w)
            w.key("avg_pace"); PFD.write(.averagePace, avg, to: &w)
            w.endObject()
            w.endObject()
        case .log(let line):
            line.write(to: &w)
        }
    }

    /// Room enough for the event's JSON in most cases (a flight snapshot is about 1.1 KB, more
    /// with metrics), so that writing it allocates once.
    public var serialisedCapacity: Int {
        switch body {
        case .flight(let d): return 1536 + 96 * d.metrics.count
        case .tick: return 256
        case .log(let line): return 128 + line.message.utf8.count * 2
        case .alert(let a): return 256 + a.message.utf8.count * 2 + 64 * a.values.count
        default: return 512
        }
    }

    /// NUL-terminated JSON bytes, for handing to C.
    public func cString() -> [UInt8] {
        var w = JSONWriter(capacity: serialisedCapacity)
        write(to: &w)
        return w.finishCString()
    }
}

extension LogRing.Line {
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("kind", "log"); w.field("seq", seq); w.field("t", t)
        w.field("level", level.rawValue); w.field("message", message)
        w.endObject()
    }
}
