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
/// - One without a position (indoors, a lost fix) becomes heart-rate and cadence samples when it
///   has them, and is otherwise skipped.
/// - One without `Time` is dropped; a `Time` that is not ISO 8601 or a half or unreadable
///   `Position` is an error. An optional value that is not a number counts as absent.
enum TCXReader {
    static func read(_ tree: XMLTree) throws(RunwayError) -> ImportedRecording {
        guard tree.root.isNamed("TrainingCenterDatabase") else {
            throw .input("not a TCX file: the root element is <\(tree.root.name.prefix(40))>, expected <TrainingCenterDatabase>")
        }
        var inputs: [Input] = []
        var report = ImportReport(format: .tcx)
        var device = ImportReport.DeviceTotals()
        var lapPower: (weighted: Double, seconds: Double, max: Double) = (0, 0, .nan)
        var index = 0
        try tree.root.forEachDescendant { (e) throws(RunwayError) in
            if e.isNamed("Activity") {
                if report.sport == nil, let sport = e.attribute("Sport"), !sport.isEmpty { report.sport = sport.lowercased() }
            } else if e.isNamed("Lap") {
                let lap = self.lap(e)
                device.laps.append(lap.totals)
                add(&device.distanceM, lap.totals.distanceM)
                add(&device.timerS, lap.totals.timerS)
                add(&device.caloriesKcal, lap.calories)
                if lap.avgWatts.isFinite, lap.totals.timerS.isFinite {
                    lapPower.weighted += lap.avgWatts * lap.totals.timerS
                    lapPower.seconds += lap.totals.timerS
                }
                if lap.maxWatts.isFinite { lapPower.max = lapPower.max.isNaN ? lap.maxWatts : max(lapPower.max, lap.maxWatts) }
            } else if e.isNamed("Track") {
                report.tracks.append(ImportReport.Track(index: report.tracks.count, name: nil))
            } else if e.isNamed("Trackpoint") {
                index += 1
                let before = inputs.count
                let k = report.tracks.count - 1
                switch try point(e, index: index, into: &inputs) {
                case .untimed:
                    report.untimed += 1
                    if k >= 0 { report.tracks[k].untimed += 1 }
                case .noPosition: report.noPosition += 1
                case .fix, .none: break
                }
                if k >= 0 { report.tracks[k].points += inputs.count - before }
            }
        }
        if !device.laps.isEmpty {
            if lapPower.seconds > 0 { device.avgPowerW = lapPower.weighted / lapPower.seconds }
            device.maxPowerW = lapPower.max
            report.device = device
        }
        report.inputs = inputs.count
        report.warnAboutLeftOut()
        return ImportedRecording(inputs: inputs, report: report)
    }

    /// Adds `v` to `total` when it is known (a NaN total becomes `v`).
    static func add(_ total: inout Double, _ v: Double) {
        guard v.isFinite else { return }
        total = total.isNaN ? v : total + v
    }

    /// A `Lap`'s own totals: `StartTime`, `TotalTimeSeconds` (the timer), `DistanceMeters`,
    /// `Calories` and the `LX` extension's `AvgWatts`/`MaxWatts`.
    static func lap(_ e: XMLElement) -> (totals: ImportReport.DeviceLap, calories: Double, avgWatts: Double, maxWatts: Double) {
        var lap = ImportReport.DeviceLap()
        if let start = e.attribute("StartTime") { lap.startT = RecordedText.unixTime(start) ?? .nan }
        var calories = Double.nan, avg = Double.nan, peak = Double.nan
        for c in e.children {
            if c.isNamed("TotalTimeSeconds") { lap.timerS = GPXReader.optional(c) }
            else if c.isNamed("DistanceMeters") { lap.distanceM = GPXReader.optional(c) }
            else if c.isNamed("Calories") { calories = GPXReader.optional(c) }
            else if c.isNamed("Extensions") {
                try? c.forEachDescendant { (x) throws(RunwayError) in
                    if x.isNamed("AvgWatts") { GPXReader.fill(&avg, x) }
                    else if x.isNamed("MaxWatts") { GPXReader.fill(&peak, x) }
                }
            }
        }
        return (lap, calories, avg, peak)
    }

    enum Point { case fix, noPosition, untimed, none }

    /// Appends what one `Trackpoint` gives; returns what kind of point it was.
    @discardableResult
    static func point(_ e: XMLElement, index: Int, into inputs: inout [Input]) throws(RunwayError) -> Point {
        guard let timeText = e.child("Time")?.text, !timeText.isEmpty else {
            return e.child("Position") != nil ? .untimed : .none
        }
        guard let t = RecordedText.unixTime(timeText) else {
            throw .input("Trackpoint \(index): Time \"\(timeText.prefix(40))\" is not an ISO 8601 date-time")
        }
        var lat = Double.nan, lon = Double.nan
        var alt = Double.nan, hr = Double.nan, cadence = Double.nan, speed = Double.nan, power = Double.nan
        for c in e.children {
            if c.isNamed("Position") {
                lat = try degrees(c, "LatitudeDegrees", index)
                lon = try degrees(c, "LongitudeDegrees", index)
            } else if c.isNamed("AltitudeMeters") {
                alt = GPXReader.optional(c)
            } else if c.isNamed("HeartRateBpm") {
                if let v = c.child("Value") { hr = GPXReader.optional(v) }
            } else if c.isNamed("Cadence") {
                cadence = GPXReader.optional(c)
            } else if c.isNamed("Extensions") {
                try c.forEachDescendant { (x) throws(RunwayError) in
                    if x.isNamed("Speed") { GPXReader.fill(&speed, x) }
                    else if x.isNamed("RunCadence"), cadence.isNaN {
                        // Per foot (strides per minute), as Garmin writes it: steps per minute are twice it.
                        let strides = GPXReader.optional(x)
                        cadence = strides * 2
                    }
                    else if x.isNamed("Watts") { GPXReader.fill(&power, x) }
                }
            }
        }
        if !lat.isNaN {
            inputs.append(.fix(Fix(t: t, lat: lat, lon: lon, alt: alt, speed: speed, hr: hr, cadence: cadence, power: power)))
            return .fix
        }
        if !hr.isNaN { inputs.append(.sample(.heartRate(bpm: hr, t: t))) }
        if !cadence.isNaN { inputs.append(.sample(.cadence(spm: cadence, t: t))) }
        if !power.isNaN { inputs.append(.sample(.power(watts: power, t: t))) }
        return .noPosition
    }

    static func degrees(_ position: XMLElement, _ name: StaticString, _ index: Int) throws(RunwayError) -> Double {
        guard let e = position.child(name) else { throw .input("Trackpoint \(index): Position has no \(name)") }
        let text = e.text
        guard let v = RecordedText.number(text) else {
            throw .input("Trackpoint \(index): \(name) \"\(text.prefix(40))\" is not a number")
        }
        return v
    }
}
