/// Reads the track points of a Training Center XML (TCX) file.
///
/// Every `Trackpoint` (of every `Lap`/`Track`, in document order): `Time`, `Position`
/// (`LatitudeDegrees`, `LongitudeDegrees`), `AltitudeMeters`, `HeartRateBpm`/`Value`, `Cadence`,
/// and from `Extensions` (any namespace: `ns3:`, `tpx:`…) `TPX`/`Speed`, `RunCadence` and `Watts`.
/// Values are as recorded, not range-checked, except cadence: `<Cadence>` is rpm (a bike's) and
/// kept; `RunCadence` counts one foot (strides per minute, as Garmin writes it) and is doubled
/// into the engine's steps per minute. `Lap` totals and the `Activity Sport` go in the report.
///
/// - A trackpoint with a position becomes a fix.
/// - One without a position (indoors, a lost fix) becomes heart-rate, cadence and power samples
///   when it has them, and a speed sample (a foot pod's, a wheel sensor's, a treadmill's): its
///   `Speed`, else the `DistanceMeters` it recorded since the trackpoint before it in its `Track`
///   over the time between (a speed no sensor could give is left out); with none of these, skipped.
/// - One without `Time` is dropped; a `Time` that is not ISO 8601 or a half or unreadable
///   `Position` is an error. An optional value that is not a number counts as absent.
/// - Each `Track` is a segment: where the inputs pass from one Track to the next inside a Lap
///   (Garmin's new Track when the timer stops and starts), the replay pauses at the last time
///   before and resumes at the first input after; from one Lap's last Track to the next Lap's
///   first only when the laps' totals say the timer stopped there
///   (`ImportedRecording.tcxPauses`): a new Lap by itself is no pause.
///
/// Read as a stream (`XMLStream`), like `GPXReader`: no tree; each trackpoint's values go into its
/// open point (plain values on an `OpenStack`, texts in `PointNotes`) as expat reports them; an
/// error is the first trackpoint's in document order. librunway's `<runway:altitude_source>` in
/// the Activity's `Extensions` is the report's `altitude_source` (`AltitudeSourceReader`).
final class TCXReader: XMLStreamHandler {
    static func read(_ bytes: UnsafeRawBufferPointer, options: ImportOptions = ImportOptions()) throws(RunwayError) -> ImportedRecording {
        let reader = TCXReader()
        reader.collector = PointCollector(bytes: bytes.count, salvage: options.salvage)
        let damage = try XMLStream.parse(bytes, what: "TCX", salvage: options.salvage, into: reader)
        return try reader.finish(damage: damage)
    }

    /// An open `Lap` and what its children gave so far (plain values, as `OpenStack` needs).
    struct OpenLap {
        var depth: Int
        var slot: Int
        var totals = ImportReport.DeviceLap()
        var calories = Double.nan, avgWatts = Double.nan, maxWatts = Double.nan
        var extensionsDepth = -1
        var extensions = FirstNumbers()
    }

    /// An open `Trackpoint`, what its children gave so far: plain values (texts in `notes`).
    struct OpenPoint {
        var depth: Int
        var index: Int
        var track: Int
        /// `notes.mark` when it started: its notes are the ones after.
        var notesBase: Int
        var sawTime = false
        /// The first `Time` child's time, or NaN; its text when it is not a time, in `notes`
        /// (-1: none, or empty).
        var t = Double.nan
        var timeText = -1
        var hasPosition = false
        /// Its first `Position` error, in `notes` (-1: none).
        var positionError = -1
        var lat = Double.nan, lon = Double.nan
        var alt = Double.nan, hr = Double.nan, cadence = Double.nan, speed = Double.nan, power = Double.nan
        /// Its `DistanceMeters`: the device's distance so far.
        var distance = Double.nan
        /// The open `Position` child: its first `LatitudeDegrees`/`LongitudeDegrees`.
        var positionDepth = -1
        var latitude = Degrees(), longitude = Degrees()
        /// The open `HeartRateBpm` child: its first `Value` (NaN when not a number).
        var heartRateDepth = -1
        var sawHeartRateValue = false
        var heartRateValue = Double.nan
        var extensionsDepth = -1
        var extensions = FirstNumbers()
    }

    /// A `Position`'s `LatitudeDegrees` or `LongitudeDegrees`: absent, a number, or other text.
    struct Degrees {
        var seen = false
        var value = Double.nan
        var text = -1
    }

    // Touched only from `XMLStream`'s callbacks, on one thread.
    @exclusivity(unchecked) var root = XMLRoot("TrainingCenterDatabase")
    @exclusivity(unchecked) var report = ImportReport(format: .tcx)
    /// The open laps, innermost last.
    @exclusivity(unchecked) var laps = OpenStack<OpenLap>()
    /// Every lap's figures, in document order (filled as each ends).
    @exclusivity(unchecked) var lapResults: [OpenLap] = []
    /// The `Lap`s past `ImportReport.maxDeviceLaps`, left out.
    var lapsBeyond = 0
    /// The open trackpoints, innermost last.
    @exclusivity(unchecked) var points = OpenStack<OpenPoint>()
    /// The texts of the open trackpoints (errors, times or degrees that are not ones).
    @exclusivity(unchecked) var notes = PointNotes()
    @exclusivity(unchecked) var open = OpenElements<Name>()
    @exclusivity(unchecked) var collector = PointCollector()
    @exclusivity(unchecked) var index = 0
    /// librunway's `<runway:altitude_source>` (`AltitudeSourceElement`).
    @exclusivity(unchecked) var altitudeSource = AltitudeSourceReader(path: ["TrainingCenterDatabase", "Activities", "Activity", "Extensions"])
    /// The `Lap` (its slot in `lapResults`, −1 for none) each `Track` is in, by track index.
    @exclusivity(unchecked) var trackLaps: [Int] = []
    /// The latest timed trackpoint with a `DistanceMeters`: its time, distance and `Track`.
    @exclusivity(unchecked) var lastDistance: (t: Double, m: Double, track: Int)? = nil

    deinit {
        laps.deallocate()
        points.deallocate()
        open.deallocate()
    }

    func start(_ n: XMLName, depth: Int, attributes: XMLAttributes) -> Bool {
        if depth == 0 { root.see(n) }
        let stated = altitudeSource.start(n, depth: depth, attributes: attributes)
        let name = Name(n)
        guard root.matches, depth > 0, open.open(name) else { return false }
        if stated { return true }
        switch name {
        case .activity:
            if report.sport == nil, let sport = attributes.value("Sport"), !sport.isEmpty { report.sport = sport.lowercased() }
            return false
        case .lap:
            guard !laps.isFull else { return false }
            guard lapResults.count < ImportReport.maxDeviceLaps else { lapsBeyond += 1; return false }
            var lap = OpenLap(depth: depth, slot: lapResults.count)
            if let start = attributes.bytes("StartTime") { lap.totals.startT = RecordedText.unixTime(bytes: start) ?? .nan }
            lapResults.append(lap)
            laps.push(lap)
            return false
        case .track:
            trackLaps.append(laps.last?.pointee.slot ?? -1)
            report.tracks.append(ImportReport.Track(index: report.tracks.count, name: nil))
            return false
        case .trackpoint:
            guard !points.isFull else { return false }
            index += 1
            points.push(OpenPoint(depth: depth, index: index, track: report.tracks.count - 1, notesBase: notes.mark))
            return false
        case .extensions:
            if let lap = laps.last, lap.pointee.depth + 1 == depth { lap.pointee.extensionsDepth = depth }
            if let p = points.last, p.pointee.depth + 1 == depth { p.pointee.extensionsDepth = depth }
            return false
        case .position:
            if let p = points.last, p.pointee.depth + 1 == depth {
                p.pointee.hasPosition = true
                p.pointee.positionDepth = depth
                p.pointee.latitude = Degrees()
                p.pointee.longitude = Degrees()
            }
            return false
        case .heartRate:
            if let p = points.last, p.pointee.depth + 1 == depth {
                p.pointee.heartRateDepth = depth
                p.pointee.sawHeartRateValue = false
            }
            return false
        case .other:
            return false
        default:
            return !laps.isEmpty || !points.isEmpty
        }
    }

    func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
        altitudeSource.end(depth: depth, text: text)
        guard root.matches, depth > 0, let (name, seq) = open.close() else { return }
        switch name {
        case .lap:
            if let lap = laps.last, lap.pointee.depth == depth, let lap = laps.pop() { lapResults[lap.pointee.slot] = lap.pointee }
            return
        case .trackpoint:
            if let p = points.last, p.pointee.depth == depth, let p = points.pop() { finish(p) }
            return
        case .extensions:
            if let lap = laps.last, lap.pointee.extensionsDepth == depth {
                let e = lap.pointee.extensions
                lap.pointee.extensionsDepth = -1
                lap.pointee.extensions = FirstNumbers()
                // Stored as the lap's own average and maximum (NaN = absent), summed up in `finish`.
                if lap.pointee.avgWatts.isNaN { lap.pointee.avgWatts = e.values[0] }
                if lap.pointee.maxWatts.isNaN { lap.pointee.maxWatts = e.values[1] }
            }
            if let p = points.last, p.pointee.extensionsDepth == depth {
                let e = p.pointee.extensions
                p.pointee.extensionsDepth = -1
                p.pointee.extensions = FirstNumbers()
                if p.pointee.speed.isNaN { p.pointee.speed = e.values[0] }
                if p.pointee.cadence.isNaN { p.pointee.cadence = e.values[1] * 2 }
                if p.pointee.power.isNaN { p.pointee.power = e.values[2] }
            }
            return
        case .position:
            if let p = points.last, p.pointee.positionDepth == depth {
                p.pointee.positionDepth = -1
                position(p)
            }
            return
        case .heartRate:
            if let p = points.last, p.pointee.heartRateDepth == depth {
                p.pointee.heartRateDepth = -1
                if p.pointee.sawHeartRateValue { p.pointee.hr = p.pointee.heartRateValue }
            }
            return
        default: break
        }
        if let lap = laps.last, lap.pointee.depth + 1 == depth {
            switch name {
            case .totalTime: lap.pointee.totals.timerS = RecordedText.number(bytes: text) ?? .nan
            case .distance: lap.pointee.totals.distanceM = RecordedText.number(bytes: text) ?? .nan
            case .calories: lap.pointee.calories = RecordedText.number(bytes: text) ?? .nan
            case .triggerMethod: lap.pointee.totals.trigger = text.flatMap { LapTrigger(tcx: String(decoding: $0.filter { $0 > 0x20 }, as: UTF8.self)) }
            default: break
            }
        }
        if case let slot = name == .avgWatts ? 0 : name == .maxWatts ? 1 : -1, slot >= 0 {
            for k in 0..<laps.count where laps[k].extensionsDepth >= 0 && depth > laps[k].extensionsDepth {
                laps[k].extensions.offer(slot, text, seq: seq)
            }
        }
        guard let p = points.last else { return }
        if p.pointee.depth + 1 == depth {
            switch name {
            case .time where !p.pointee.sawTime:
                p.pointee.sawTime = true
                if let text, !text.isEmpty {
                    if let t = RecordedText.unixTime(bytes: text) {
                        p.pointee.t = t
                    } else {
                        p.pointee.timeText = notes.add(RecordedText.trimmed(text))
                    }
                }
            case .altitude: p.pointee.alt = RecordedText.number(bytes: text) ?? .nan
            case .cadence: p.pointee.cadence = RecordedText.number(bytes: text) ?? .nan
            case .distance: p.pointee.distance = RecordedText.number(bytes: text) ?? .nan
            default: break
            }
        } else if p.pointee.positionDepth >= 0 && p.pointee.positionDepth + 1 == depth {
            if name == .latitude, !p.pointee.latitude.seen { p.pointee.latitude = degrees(text) }
            if name == .longitude, !p.pointee.longitude.seen { p.pointee.longitude = degrees(text) }
        } else if p.pointee.heartRateDepth >= 0 && p.pointee.heartRateDepth + 1 == depth {
            if name == .value, !p.pointee.sawHeartRateValue {
                p.pointee.sawHeartRateValue = true
                p.pointee.heartRateValue = RecordedText.number(bytes: text) ?? .nan
            }
        }
        if case let slot = name == .speed ? 0 : name == .runCadence ? 1 : name == .watts ? 2 : -1, slot >= 0 {
            for k in 0..<points.count where points[k].extensionsDepth >= 0 && depth > points[k].extensionsDepth {
                points[k].extensions.offer(slot, text, seq: seq)
            }
        }
    }

    /// A `LatitudeDegrees` or `LongitudeDegrees` of a `Position`: its number, or its other text.
    func degrees(_ text: UnsafeBufferPointer<UInt8>?) -> Degrees {
        if let v = RecordedText.number(bytes: text) { return Degrees(seen: true, value: v) }
        return Degrees(seen: true, text: notes.add(text.map(RecordedText.trimmed) ?? ""))
    }

    /// A `Position` ended: its latitude and longitude, or the point's first position error.
    func position(_ p: UnsafeMutablePointer<OpenPoint>) {
        guard p.pointee.positionError < 0 else { return }
        let index = p.pointee.index
        func degrees(_ d: Degrees, _ name: String) -> Double? {
            guard d.seen else {
                p.pointee.positionError = notes.add("Trackpoint \(index): Position has no \(name)")
                return nil
            }
            guard d.text < 0 else {
                p.pointee.positionError = notes.add("Trackpoint \(index): \(name) \"\(notes[d.text].prefix(40))\" is not a number")
                return nil
            }
            return d.value
        }
        guard let lat = degrees(p.pointee.latitude, "LatitudeDegrees"),
              let lon = degrees(p.pointee.longitude, "LongitudeDegrees") else { return }
        p.pointee.lat = lat
        p.pointee.lon = lon
    }

    /// A `Trackpoint` ended (`p`, just above the open points): its fix or samples, or its error.
    func finish(_ p: UnsafePointer<OpenPoint>) {
        let notesBase = p.pointee.notesBase
        defer {
            notes.drop(from: notesBase)
            if points.isEmpty { collector.flush() }
        }
        let index = p.pointee.index, k = p.pointee.track
        let t = p.pointee.t
        guard !t.isNaN else {
            if p.pointee.timeText >= 0 {
                collector.fail(index, "Trackpoint \(index): Time \"\(notes[p.pointee.timeText].prefix(40))\" is not an ISO 8601 date-time")
            } else if p.pointee.hasPosition {
                report.untimed += 1
                if k >= 0 { report.tracks[k].untimed += 1 }
            }
            return
        }
        if p.pointee.positionError >= 0 { return collector.fail(index, notes[p.pointee.positionError]) }
        let before = lastDistance
        let distance = p.pointee.distance
        if distance.isFinite { lastDistance = (t, distance, k) }
        let nested = !points.isEmpty
        if !p.pointee.lat.isNaN {
            let q = p.pointee
            if k >= 0 { report.tracks[k].points += 1 }
            collector.add(index, .fix(Fix(t: t, lat: q.lat, lon: q.lon, alt: q.alt, speed: q.speed, hr: q.hr, cadence: q.cadence, power: q.power)),
                          segment: k, nested: nested)
            return
        }
        report.noPosition += 1
        // Up to four samples, on the stack.
        withUnsafeTemporaryAllocation(of: Input.self, capacity: 4) { new in
            var n = 0
            func put(_ input: Input) {
                (new.baseAddress! + n).initialize(to: input)
                n += 1
            }
            let q = p.pointee
            if !q.hr.isNaN { put(.sample(.heartRate(bpm: q.hr, t: t))) }
            if !q.cadence.isNaN { put(.sample(.cadence(spm: q.cadence, t: t))) }
            if !q.power.isNaN { put(.sample(.power(watts: q.power, t: t))) }
            var v = q.speed
            if v.isNaN, let b = before, b.track == k, t > b.t, distance >= b.m { v = (distance - b.m) / (t - b.t) }
            if v >= 0 && v <= ValidatedInput.sensorSpeedMaxMps { put(.sample(.speed(mps: v, t: t))) }
            if k >= 0 { report.tracks[k].points += n }
            collector.add(index, UnsafeBufferPointer(rebasing: new[..<n]), segment: k, nested: nested)
        }
    }

    func finish(damage: String?) throws(RunwayError) -> ImportedRecording {
        try root.check("TCX")
        try collector.close(damage: damage, into: &report)
        if lapsBeyond > 0 {
            report.warnings.append("the TCX file has \(lapsBeyond) more Lap\(lapsBeyond == 1 ? "" : "s") than the \(ImportReport.maxDeviceLaps) kept (RUNWAY_MAX_LAPS, the laps a flight can hold): left out")
        }
        var device = ImportReport.DeviceTotals()
        var lapPower: (weighted: Double, seconds: Double, max: Double) = (0, 0, .nan)
        for lap in lapResults {
            var totals = lap.totals
            totals.avgPowerW = lap.avgWatts
            totals.maxPowerW = lap.maxWatts
            device.laps.append(totals)
            TCXReader.add(&device.distanceM, lap.totals.distanceM)
            TCXReader.add(&device.timerS, lap.totals.timerS)
            TCXReader.add(&device.caloriesKcal, lap.calories)
            if lap.avgWatts.isFinite, lap.totals.timerS.isFinite {
                lapPower.weighted += lap.avgWatts * lap.totals.timerS
                lapPower.seconds += lap.totals.timerS
            }
            if lap.maxWatts.isFinite { lapPower.max = lapPower.max.isNaN ? lap.maxWatts : max(lapPower.max, lap.maxWatts) }
        }
        if !device.laps.isEmpty {
            if lapPower.seconds > 0 { device.avgPowerW = lapPower.weighted / lapPower.seconds }
            device.maxPowerW = lapPower.max
            report.device = device
        }
        let inputs = collector.inputs
        collector.inputs = []
        report.statedAltitudeSource = altitudeSource.source
        report.warnAboutLeftOut()
        var recording = ImportedRecording(inputs: inputs, report: report)
        let breaks = recording.segmentBreaks(collector.segments)
        recording.pause(at: ImportedRecording.tcxPauses(breaks, trackLaps: trackLaps, laps: lapResults.map(\.totals)), what: "Track")
        recording.setLaps()
        return recording
    }

    /// Adds `v` to `total` when it is known (a NaN total becomes `v`).
    static func add(_ total: inout Double, _ v: Double) {
        guard v.isFinite else { return }
        total = total.isNaN ? v : total + v
    }
}
