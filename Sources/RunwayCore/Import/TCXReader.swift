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
///   over the time between (a speed no sensor could give is left out). With none of these it is
///   skipped.
/// - One without `Time` is dropped; a `Time` that is not ISO 8601 or a half or unreadable
///   `Position` is an error. An optional value that is not a number counts as absent.
/// - Each `Track` is a segment: where the inputs pass from one Track to the next inside a Lap
///   (Garmin's new Track when the timer stops and starts), the replay pauses at the last time
///   before and resumes at the first input after; from one Lap's last Track to the next Lap's
///   first only when the laps' totals say the timer stopped there
///   (`ImportedRecording.tcxPauses`): a new Lap by itself is no pause.
///
/// Read as a stream (`XMLStream`), like `GPXReader`: no tree; an error is the first
/// trackpoint's in document order.
final class TCXReader: XMLStreamHandler {
    static func read(_ bytes: UnsafeRawBufferPointer) throws(RunwayError) -> ImportedRecording {
        let reader = TCXReader()
        reader.collector = PointCollector(bytes: bytes.count)
        try XMLStream.parse(bytes, what: "TCX", into: reader)
        return try reader.finish()
    }

    /// The elements the reader acts on (by local name).
    enum Name: UInt8 {
        case other, activity, lap, track, trackpoint, time, position, latitude, longitude, altitude, heartRate, value
        case cadence, extensions, speed, runCadence, watts, totalTime, distance, calories, avgWatts, maxWatts

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
            case 14 where n == "AltitudeMeters": self = .altitude
            case 14 where n == "DistanceMeters": self = .distance
            case 15 where n == "LatitudeDegrees": self = .latitude
            case 16 where n == "LongitudeDegrees": self = .longitude
            case 16 where n == "TotalTimeSeconds": self = .totalTime
            default: self = .other
            }
        }
    }

    /// An open `Lap` and what its children gave so far.
    struct OpenLap {
        var depth: Int
        var slot: Int
        var totals = ImportReport.DeviceLap()
        var calories = Double.nan, avgWatts = Double.nan, maxWatts = Double.nan
        var extensionsDepth = -1
        var extensions = FirstNumbers()
    }

    /// An open `Trackpoint`.
    struct OpenPoint {
        var depth: Int
        var index: Int
        var track: Int
        var sawTime = false
        var timeText: String? = nil
        var hasPosition = false
        var positionError: String? = nil
        var lat = Double.nan, lon = Double.nan
        var alt = Double.nan, hr = Double.nan, cadence = Double.nan, speed = Double.nan, power = Double.nan
        /// Its `DistanceMeters`: the device's distance so far.
        var distance = Double.nan
        /// The open `Position` child: its first `LatitudeDegrees`/`LongitudeDegrees` texts.
        var positionDepth = -1
        var latText: String? = nil, lonText: String? = nil
        /// The open `HeartRateBpm` child: its first `Value`.
        var heartRateDepth = -1
        var heartRateValue: Double?? = nil
        var extensionsDepth = -1
        var extensions = FirstNumbers()
    }

    @exclusivity(unchecked) var rootName: String? = nil
    @exclusivity(unchecked) var report = ImportReport(format: .tcx)
    @exclusivity(unchecked) var laps: [OpenLap] = []
    /// Every lap's figures, in document order (filled as each ends).
    @exclusivity(unchecked) var lapResults: [OpenLap] = []
    @exclusivity(unchecked) var points: [OpenPoint] = []
    @exclusivity(unchecked) var open: [(name: Name, seq: Int)] = []
    @exclusivity(unchecked) var collector = PointCollector()
    @exclusivity(unchecked) var seq = 0
    @exclusivity(unchecked) var index = 0
    /// The `Lap` (its slot in `lapResults`, −1 for none) each `Track` is in, by track index.
    @exclusivity(unchecked) var trackLaps: [Int] = []
    /// The latest timed trackpoint with a `DistanceMeters`: its time, distance and `Track`.
    @exclusivity(unchecked) var lastDistance: (t: Double, m: Double, track: Int)? = nil

    func start(_ n: XMLName, depth: Int, attributes: XMLAttributes) -> Bool {
        if depth == 0 { rootName = n.string }
        guard rootName == "TrainingCenterDatabase", depth > 0 else { return false }
        seq += 1
        let name = Name(n)
        open.append((name, seq))
        switch name {
        case .activity:
            if report.sport == nil, let sport = attributes.value("Sport"), !sport.isEmpty { report.sport = sport.lowercased() }
            return false
        case .lap:
            var lap = OpenLap(depth: depth, slot: lapResults.count)
            if let start = attributes.value("StartTime") { lap.totals.startT = RecordedText.unixTime(start) ?? .nan }
            lapResults.append(lap)
            laps.append(lap)
            return false
        case .track:
            trackLaps.append(laps.last?.slot ?? -1)
            report.tracks.append(ImportReport.Track(index: report.tracks.count, name: nil))
            return false
        case .trackpoint:
            index += 1
            points.append(OpenPoint(depth: depth, index: index, track: report.tracks.count - 1))
            return false
        case .extensions:
            if let k = laps.indices.last, laps[k].depth + 1 == depth { laps[k].extensionsDepth = depth }
            if let k = points.indices.last, points[k].depth + 1 == depth { points[k].extensionsDepth = depth }
            return false
        case .position:
            if let k = points.indices.last, points[k].depth + 1 == depth {
                points[k].hasPosition = true
                points[k].positionDepth = depth
                points[k].latText = nil
                points[k].lonText = nil
            }
            return false
        case .heartRate:
            if let k = points.indices.last, points[k].depth + 1 == depth {
                points[k].heartRateDepth = depth
                points[k].heartRateValue = nil
            }
            return false
        case .other:
            return false
        default:
            return !laps.isEmpty || !points.isEmpty
        }
    }

    func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
        guard rootName == "TrainingCenterDatabase", depth > 0, let (name, seq) = open.popLast() else { return }
        let number = { RecordedText.number(bytes: text) ?? .nan }
        switch name {
        case .lap:
            if let lap = laps.last, lap.depth == depth { lapResults[lap.slot] = laps.removeLast() }
            return
        case .trackpoint:
            if let p = points.last, p.depth == depth { finish(points.removeLast()) }
            return
        case .extensions:
            if let k = laps.indices.last, laps[k].extensionsDepth == depth {
                let e = laps[k].extensions
                laps[k].extensionsDepth = -1
                laps[k].extensions = FirstNumbers()
                lapFill(k, e)
            }
            if let k = points.indices.last, points[k].extensionsDepth == depth {
                let e = points[k].extensions
                points[k].extensionsDepth = -1
                points[k].extensions = FirstNumbers()
                if points[k].speed.isNaN { points[k].speed = e.values[0] }
                if points[k].cadence.isNaN { points[k].cadence = e.values[1] * 2 }
                if points[k].power.isNaN { points[k].power = e.values[2] }
            }
            return
        case .position:
            if let k = points.indices.last, points[k].positionDepth == depth {
                points[k].positionDepth = -1
                position(k)
            }
            return
        case .heartRate:
            if let k = points.indices.last, points[k].heartRateDepth == depth {
                points[k].heartRateDepth = -1
                if let v = points[k].heartRateValue { points[k].hr = v ?? .nan }
            }
            return
        default: break
        }
        if let k = laps.indices.last, laps[k].depth + 1 == depth {
            switch name {
            case .totalTime: laps[k].totals.timerS = number()
            case .distance: laps[k].totals.distanceM = number()
            case .calories: laps[k].calories = number()
            default: break
            }
        }
        for k in laps.indices where laps[k].extensionsDepth >= 0 && depth > laps[k].extensionsDepth {
            laps[k].extensions.offer(name == .avgWatts ? 0 : name == .maxWatts ? 1 : -1, RecordedText.number(bytes: text), seq: seq)
        }
        guard let last = points.indices.last else { return }
        if points[last].depth + 1 == depth {
            switch name {
            case .time where !points[last].sawTime:
                points[last].sawTime = true
                points[last].timeText = text.map(RecordedText.trimmed) ?? ""
            case .altitude: points[last].alt = number()
            case .cadence: points[last].cadence = number()
            case .distance: points[last].distance = number()
            default: break
            }
        } else if points[last].positionDepth >= 0 && points[last].positionDepth + 1 == depth {
            if name == .latitude, points[last].latText == nil { points[last].latText = text.map(RecordedText.trimmed) ?? "" }
            if name == .longitude, points[last].lonText == nil { points[last].lonText = text.map(RecordedText.trimmed) ?? "" }
        } else if points[last].heartRateDepth >= 0 && points[last].heartRateDepth + 1 == depth {
            if name == .value, points[last].heartRateValue == nil { points[last].heartRateValue = .some(RecordedText.number(bytes: text)) }
        }
        for k in points.indices where points[k].extensionsDepth >= 0 && depth > points[k].extensionsDepth {
            let slot = name == .speed ? 0 : name == .runCadence ? 1 : name == .watts ? 2 : -1
            points[k].extensions.offer(slot, RecordedText.number(bytes: text), seq: seq)
        }
    }

    func lapFill(_ k: Int, _ e: FirstNumbers) {
        // Stored as the lap's own average and maximum (NaN = absent), summed up in `finish`.
        if laps[k].avgWatts.isNaN { laps[k].avgWatts = e.values[0] }
        if laps[k].maxWatts.isNaN { laps[k].maxWatts = e.values[1] }
    }

    /// A `Position` ended: its latitude and longitude, or the point's first position error.
    func position(_ k: Int) {
        guard points[k].positionError == nil else { return }
        let index = points[k].index
        func degrees(_ text: String?, _ name: String) -> Double? {
            guard let text else {
                points[k].positionError = "Trackpoint \(index): Position has no \(name)"
                return nil
            }
            guard let v = RecordedText.number(text) else {
                points[k].positionError = "Trackpoint \(index): \(name) \"\(text.prefix(40))\" is not a number"
                return nil
            }
            return v
        }
        guard let lat = degrees(points[k].latText, "LatitudeDegrees"),
              let lon = degrees(points[k].lonText, "LongitudeDegrees") else { return }
        points[k].lat = lat
        points[k].lon = lon
    }

    /// A `Trackpoint` ended: its fix or samples, or its error.
    func finish(_ p: OpenPoint) {
        defer { if points.isEmpty { collector.flush() } }
        let k = p.track
        guard let timeText = p.timeText, !timeText.isEmpty else {
            if p.hasPosition {
                report.untimed += 1
                if k >= 0 { report.tracks[k].untimed += 1 }
            }
            return
        }
        guard let t = RecordedText.unixTime(timeText) else {
            return collector.fail(p.index, "Trackpoint \(p.index): Time \"\(timeText.prefix(40))\" is not an ISO 8601 date-time")
        }
        if let error = p.positionError { return collector.fail(p.index, error) }
        let before = lastDistance
        if p.distance.isFinite { lastDistance = (t, p.distance, k) }
        var new: [Input] = []
        if !p.lat.isNaN {
            new.append(.fix(Fix(t: t, lat: p.lat, lon: p.lon, alt: p.alt, speed: p.speed, hr: p.hr, cadence: p.cadence, power: p.power)))
        } else {
            report.noPosition += 1
            if !p.hr.isNaN { new.append(.sample(.heartRate(bpm: p.hr, t: t))) }
            if !p.cadence.isNaN { new.append(.sample(.cadence(spm: p.cadence, t: t))) }
            if !p.power.isNaN { new.append(.sample(.power(watts: p.power, t: t))) }
            var v = p.speed
            if v.isNaN, let b = before, b.track == k, t > b.t, p.distance >= b.m { v = (p.distance - b.m) / (t - b.t) }
            if v >= 0 && v <= ValidatedInput.sensorSpeedMaxMps { new.append(.sample(.speed(mps: v, t: t))) }
        }
        if k >= 0 { report.tracks[k].points += new.count }
        collector.add(p.index, new, segment: k, nested: !points.isEmpty)
    }

    func finish() throws(RunwayError) -> ImportedRecording {
        guard rootName == "TrainingCenterDatabase" else {
            throw .input("not a TCX file: the root element is <\((rootName ?? "").prefix(40))>, expected <TrainingCenterDatabase>")
        }
        if let error = collector.error { throw .input(error.message) }
        collector.flush()
        var device = ImportReport.DeviceTotals()
        var lapPower: (weighted: Double, seconds: Double, max: Double) = (0, 0, .nan)
        for lap in lapResults {
            device.laps.append(lap.totals)
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
        report.warnAboutLeftOut()
        var recording = ImportedRecording(inputs: inputs, report: report)
        let breaks = recording.segmentBreaks(collector.segments)
        recording.pause(at: ImportedRecording.tcxPauses(breaks, trackLaps: trackLaps, laps: lapResults.map(\.totals)), what: "Track")
        return recording
    }

    /// Adds `v` to `total` when it is known (a NaN total becomes `v`).
    static func add(_ total: inout Double, _ v: Double) {
        guard v.isFinite else { return }
        total = total.isNaN ? v : total + v
    }

    /// For each of up to four values, the first number in document order (`seq`: its element's
    /// start) among the elements offered.
    struct FirstNumbers {
        var values = SIMD4<Double>(repeating: .nan)
        var seqs = SIMD4<Int>(repeating: .max)

        mutating func offer(_ slot: Int, _ v: Double?, seq: Int) {
            guard slot >= 0, slot < 4, let v, seq < seqs[slot] else { return }
            values[slot] = v
            seqs[slot] = seq
        }
    }
}
