/// What an import read, left out and found in the file beside the points: the trailing
/// `{"type":"import_report",...}` line of `Importer.jsonLines` (and `runway_import`).
///
///     {"type":"import_report","format":"gpx","sport":"running","activity":"run","altitude_source":null,
///      "inputs":513,"untimed":358,"no_position":0,"unreadable":0,
///      "tracks":[{"index":0,"name":"Morning","points":0,"untimed":358},
///                {"index":1,"name":null,"points":513,"untimed":0}],
///      "warnings":["track 0 \"Morning\": 358 points without a time were left out"],
///      "device":null}
public struct ImportReport: Sendable, Equatable {
    /// One track of the file (GPX `trk`, TCX `Track`, one FIT file of a chain).
    public struct Track: Sendable, Equatable {
        public var index: Int
        public var name: String?
        /// Points of the track written as inputs (fixes, and samples of points without a position).
        public var points: Int = 0
        /// Points with a position but no time (left out).
        public var untimed: Int = 0
    }

    /// One lap as the device stored it (NaN = the file does not say).
    public struct DeviceLap: Sendable, Equatable {
        public var startT = Double.nan
        public var distanceM = Double.nan
        public var timerS = Double.nan
        public var elapsedS = Double.nan
        public var ascentM = Double.nan
        /// The lap's power as the file stores it (FIT lap avg_power, max_power, normalized_power;
        /// TCX `LX` AvgWatts, MaxWatts), watts.
        public var avgPowerW = Double.nan
        public var maxPowerW = Double.nan
        public var normalizedPowerW = Double.nan
        /// What ended the lap (FIT `lap_trigger`, TCX `TriggerMethod`); nil: the file does not say.
        public var trigger: LapTrigger? = nil
    }

    /// Totals the file itself stores (FIT session and lap messages, TCX `Lap` totals); NaN = absent.
    public struct DeviceTotals: Sendable, Equatable {
        public var distanceM = Double.nan
        public var timerS = Double.nan
        public var elapsedS = Double.nan
        public var ascentM = Double.nan
        public var descentM = Double.nan
        public var caloriesKcal = Double.nan
        public var avgPowerW = Double.nan
        public var maxPowerW = Double.nan
        public var normalizedPowerW = Double.nan
        public var laps: [DeviceLap] = []
    }

    public var format: ImportFormat
    /// The file's own sport name (FIT sport enum name, TCX `Sport` lower-cased, GPX `trk/type`).
    public var sport: String?
    /// Lines written before the report: inputs, the start, pause and resume lines of the device's
    /// timer, and the lap lines of its laps.
    public var inputs = 0
    /// Points or records with a position but no time (left out).
    public var untimed = 0
    /// Timed points without a position (kept only as samples of what they carry: hr, cadence,
    /// power, and in FIT the device's altitude as an altimeter sample and its speed as a speed sample).
    public var noPosition = 0
    /// Records the reader could not decode.
    public var unreadable = 0
    public var tracks: [Track] = []
    public var warnings: [String] = []
    public var device: DeviceTotals?
    /// The most laps of the device an import keeps (FIT lap messages, and as many session
    /// messages; TCX `Lap`s): a flight's laps (RUNWAY_MAX_LAPS), as a replay cannot lap more.
    /// More are left out with a warning: a 64 MiB file of 1-byte FIT lap messages kept 64 M laps,
    /// several GB.
    public static let maxDeviceLaps = LapCounter.maxLaps
    /// The pause lines written: the device's timer stops (FIT timer events), or the file's
    /// segment breaks (GPX `trkseg`, TCX `Track`); see `ImportedRecording.timer`.
    public var pauses = 0
    /// The lap lines written: the device's laps after the first, by their start times
    /// (`ImportedRecording.setLaps`).
    public var laps = 0
    /// The session config's `auto_lap_m` to replay the file with: 0 (no auto laps) when the file's
    /// own laps are replayed (it stores laps, FIT lap messages or TCX `Lap`s, and the start time
    /// of every lap after the first), so that the flight's laps are the device's, a single lap
    /// being the whole flight; nil (the session's default, 1 km auto laps) for a file without
    /// laps (GPX) or whose laps cannot be placed.
    public var autoLapM: Int? = nil

    public init(format: ImportFormat) { self.format = format }

    /// The librunway profile to replay the file with: ride for cycling/biking, walk for
    /// walking/hiking, run for running; nil for anything else (callers use the default profile).
    public var activity: Activity? { ImportReport.activity(forSport: sport) }

    /// Where the file's altitudes come from, for the session's `fix_altitude`: a FIT file's are the
    /// device's own altitude (its barometric altimeter's on the watches and bike computers that
    /// have one, and filtered by the device on the others; FIT records do not say which), so
    /// barometric, unless the file lists its local sensors (`device_info`, as Garmin's watches
    /// and librunway's export do) with a GPS and no barometer: GPS. A GPX or TCX file says only
    /// in librunway's own extension (`statedAltitudeSource`, as its export writes it); without it,
    /// nil (the session's default, GPS).
    public var altitudeSource: ElevationTracker.Source? {
        format == .fit ? (listsLocalGPS && !listsBarometer ? .gps : .barometric) : statedAltitudeSource
    }
    /// A FIT file's `device_info` lists a local GPS, a local barometer.
    public internal(set) var listsLocalGPS = false, listsBarometer = false
    /// What a GPX or TCX file's `<runway:altitude_source>` says (`AltitudeSourceElement`): nil
    /// when it has none, a value that is neither `gps` nor `barometric`, or tracks that disagree.
    public internal(set) var statedAltitudeSource: ElevationTracker.Source? = nil

    public static func activity(forSport sport: String?) -> Activity? {
        switch sport?.lowercased() {
        case "cycling", "biking": return .ride
        case "walking", "hiking": return .walk
        case "running": return .run
        default: return nil
        }
    }

    /// Turns a file's per-foot cadence (FIT `cadence`, GPX `cad`: strides per minute on foot, as
    /// Garmin writes them) into the engine's steps per minute: doubled for a run or walk, as is
    /// for a ride (rpm); as recorded, with a warning, when the file names no sport.
    mutating func cadenceToStepsPerMinute(_ inputs: inout [Input]) {
        let onFoot: Bool
        switch activity {
        case .run?, .walk?: onFoot = true
        case .ride?: onFoot = false
        case nil:
            let hasCadence = inputs.contains {
                if case .fix(let f) = $0 { return !f.cadence.isNaN }
                if case .sample(.cadence) = $0 { return true }
                return false
            }
            if hasCadence {
                warnings.append("cadence kept as recorded: the file names no sport\(sport.map { " librunway knows (\"\($0.prefix(40))\")" } ?? ""), so whether it counts one foot is unknown")
            }
            return
        }
        guard onFoot else { return }
        for k in inputs.indices {
            switch inputs[k] {
            case .fix(var f) where !f.cadence.isNaN:
                f.cadence *= 2
                inputs[k] = .fix(f)
            case .sample(.cadence(let spm, let t)):
                inputs[k] = .sample(.cadence(spm: spm * 2, t: t))
            default: break
            }
        }
    }

    /// Adds a warning for every track with untimed points, and one for points without a position.
    mutating func warnAboutLeftOut() {
        for track in tracks where track.untimed > 0 {
            let name = track.name.map { " \"\($0.prefix(60))\"" } ?? ""
            warnings.append("track \(track.index)\(name): \(track.untimed) point\(track.untimed == 1 ? "" : "s") without a time left out")
        }
        if noPosition > 0 {
            let kept = format == .fit ? "heart-rate/cadence/power/speed/altimeter" : "heart-rate/cadence/power"
            warnings.append("\(noPosition) timed point\(noPosition == 1 ? "" : "s") without a position kept only as \(kept) samples")
        }
    }
}

/// A recording read: the inputs, the device's timer pauses among them, and the report of what
/// was read.
public struct ImportedRecording: Sendable {
    public var inputs: [Input]
    /// The device's timer (FIT timer events) as commands in time order: a start when the timer
    /// started before the first input, then its stops and restarts as pauses and resumes, only
    /// where the timer changed before the last input (see `setTimer`); for GPX and TCX, a pause
    /// and a resume at each segment break (`pause(at:what:)`).
    public var timer: [TimerChange] = []
    /// The device's laps as lap marks in time order: each lap's start after the first (`setLaps`).
    public var laps: [LapMark] = []
    public var report: ImportReport

    public init(inputs: [Input], report: ImportReport) {
        self.inputs = inputs
        self.report = report
        self.report.inputs = inputs.count
    }

    /// A start (the device's timer started before the first input), a pause (it stopped) or a
    /// resume (it started again) at `t`, written just before the input at index `beforeInput`.
    public struct TimerChange: Sendable, Equatable {
        public var command: PhaseCommand
        public var t: Double
        public var beforeInput: Int

        /// Whether the change comes before an input at `t`: a resume before an input of its own
        /// time, a pause after it (the device writes the record, then stops its timer).
        func precedes(_ inputT: Double) -> Bool { command == .resume ? t <= inputT : t < inputT }
    }

    /// A lap of the device starting at `t`: a device lap line (`{"type":"device_lap","t":…}`,
    /// the lap at `t` while auto laps are off: `FlightDriver.Request.deviceLap`) written just before
    /// the input at index `beforeInput`, the first at or after `t`; `trigger` is what ended the
    /// device's lap before it, the lap the mark ends (nil: the file does not say).
    public struct LapMark: Sendable, Equatable {
        public var t: Double
        public var beforeInput: Int
        public var trigger: LapTrigger? = nil
    }

    /// One line of the recording as librunway input.
    public enum Line: Sendable, Equatable {
        case input(Input)
        case command(PhaseCommand, t: Double)
        /// A lap at `t` (a device lap's start), ended by `trigger` (nil: the file does not say).
        case lap(t: Double, trigger: LapTrigger?)

        /// What the line asks of a flight: the input validated, the command, or the device's lap at
        /// its time (taken while auto laps are off: `FlightDriver.Request.deviceLap`).
        public func request() throws(RunwayError) -> FlightDriver.Request {
            switch self {
            case .input(let input): return .input(try ValidatedInput(input))
            case .command(let command, let t): return .command(command, t: t)
            case .lap(let t, let trigger): return .deviceLap(t: t, trigger: trigger ?? .manual)
            }
        }

        /// Writes the line as one JSON object in the shape `InputDecoder.decodeLine` reads
        /// (`Input.write`, `{"type":"pause","t":…}` for a command: start, pause or resume, or
        /// `{"type":"device_lap","t":…,"trigger":"distance"}`, the trigger when the file says it).
        public func write(to w: inout JSONWriter) {
            switch self {
            case .input(let input): input.write(to: &w)
            case .command(let command, let t): Self.write(type: command.rawValue, t: t, to: &w)
            case .lap(let t, let trigger): Self.write(type: "device_lap", t: t, trigger: trigger, to: &w)
            }
        }

        /// `{"type":…,"t":…}`: a command's or a lap's line (with its trigger, if any).
        private static func write(type: String, t: Double, trigger: LapTrigger? = nil, to w: inout JSONWriter) {
            w.beginObject()
            w.field("type", type)
            w.field("t", t)
            if let trigger { w.field("trigger", trigger.rawValue) }
            w.endObject()
        }
    }

    /// Sets `timer` from the device's timer events (when, and whether the timer started): each
    /// stop of a running timer is a pause, each start of a stopped one a resume, written before
    /// the first input it precedes. When the timer's first event is a start before the first
    /// input (a device started before its first record, as at a GPS lock after pressing start,
    /// or a flight exported with its first fix after its start), the flight starts there: a
    /// start line first, then the changes up to the first input as they came. Otherwise the
    /// flight starts at the first input with the timer as the events up to it left it (a pause
    /// at that input's time, after it, when stopped and more inputs follow). Changes after the
    /// last input change nothing and are left out (the replay's stop ends the flight there), so
    /// every pause written before the last input is followed by its resume or by inputs held.
    /// An input after a stop and before the next start (a record of a stopped timer period) is
    /// replayed paused: the device's position or sample while its timer was stopped, which counts
    /// no distance. Garmin's devices write those records with the distance before the stop
    /// (`fitparse__sample-activity.fit`: 29, none with more), and a leg's last metres in the record
    /// of the stop's own second (the 2015 Edge ride: after its stop event), which this keeps in the
    /// leg (`precedes`); librunway's FIT export writes every position record with more distance
    /// within its leg (`FITTimeline`).
    /// The report's `inputs` counts the start, pause and resume lines, `pauses` the pauses.
    public mutating func setTimer(_ events: [(t: Double, starts: Bool)]) {
        timer = []
        let sorted = events.sorted(by: { $0.t < $1.t })
        // (A start at a time no input may have, a system time misplaced, is no start line.)
        if let first = sorted.first, first.starts, let firstInput = inputs.first, first.t < firstInput.t,
           (try? ValidatedInput.time(first.t)) != nil {
            timer.append(TimerChange(command: .start, t: first.t, beforeInput: 0))
        }
        let started = !timer.isEmpty
        var changes: [TimerChange] = []   // alternating, from a running timer
        var running = true
        for event in sorted.dropFirst(started ? 1 : 0) where event.starts != running {
            running = event.starts
            changes.append(TimerChange(command: running ? .resume : .pause, t: event.t, beforeInput: 0))
        }
        var next = 0, written = true
        for (k, input) in inputs.enumerated() {
            while next < changes.count, changes[next].precedes(input.t) {
                let runs = changes[next].command == .resume
                if (k > 0 || started) && runs != written {
                    var change = changes[next]
                    change.beforeInput = k
                    timer.append(change)
                }
                written = runs   // (before the first input with no start line: folded into the state it starts with)
                next += 1
            }
            if k == 0 && !written && !started && inputs.count > 1 {   // (after the only input it changes nothing)
                timer.append(TimerChange(command: .pause, t: input.t, beforeInput: 1))
            }
        }
        report.inputs = inputs.count + timer.count
        report.pauses = timer.lazy.filter { $0.command == .pause }.count
    }

    /// Whether the recording's first line is a start line (`timer` begins with a start): the
    /// flight starts at that line's time, not at the first input's.
    public var startsBeforeItsFirstInput: Bool { timer.first?.command == .start }

    /// Calls `body` with every line in replay order: the inputs as read, each timer change and
    /// each lap before its input, in time order among them; a lap at the time of a timer change
    /// comes while the timer is stopped: after a pause (the lap takes the leg up to the pause,
    /// which the next fix measures, as a lap asked for while paused does), before a resume (the
    /// stopped lap ends at the restart, and the next one starts with the timer).
    public func forEachLine<E: Error>(_ body: (Line) throws(E) -> Void) throws(E) {
        var next = 0, nextLap = 0
        for (k, input) in inputs.enumerated() {
            while true {
                let timerDue = next < timer.count && timer[next].beforeInput <= k
                let lapDue = nextLap < laps.count && laps[nextLap].beforeInput <= k
                if lapDue && (!timerDue || laps[nextLap].t < timer[next].t
                              || (laps[nextLap].t == timer[next].t && timer[next].command == .resume)) {
                    try body(.lap(t: laps[nextLap].t, trigger: laps[nextLap].trigger))
                    nextLap += 1
                } else if timerDue {
                    try body(.command(timer[next].command, t: timer[next].t))
                    next += 1
                } else {
                    break
                }
            }
            try body(.input(input))
        }
    }
}

/// How `Importer` reads a file, from the format string's options (`"fit;salvage"`).
public struct ImportOptions: Sendable, Equatable {
    /// Keep the records read before damage in a FIT file (truncation, a bad CRC or chained header,
    /// trailing junk) and say so in the report's warnings, instead of refusing the file.
    public var salvage = false

    public init(salvage: Bool = false) { self.salvage = salvage }
}
