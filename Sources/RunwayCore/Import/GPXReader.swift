/// Reads the track points of a GPX 1.0 or 1.1 file.
///
/// Every `trkpt` of every `trk`/`trkseg`, in document order, becomes a fix: `lat`/`lon`
/// attributes, `ele`, `time`, and from GPX 1.0's own elements or any `extensions` (whatever the
/// namespace: Garmin TrackPointExtension v1/v2, Cluetrust, Apple's plain elements) `speed`,
/// `course`, `hr`/`heartrate`, `cad`/`cadence`, `hAcc`/`vAcc` and power (`power`, as Strava and
/// Garmin write it, or Garmin's PowerExtension `PowerInWatts`). Values are as recorded (not
/// range-checked: a session validates each input when it is pushed).
///
/// - `cad` counts one foot on a run or walk (as Garmin writes it): it is doubled into steps per
///   minute when the file's `trk/type` is running/walking/hiking, kept for cycling (rpm), and
///   kept as recorded, with a warning, without a type.
/// - A point without `time` is dropped (a replay needs times) and counted in the report, per
///   `trk` (`ImportReport.tracks`); the first `trk/type` is the report's sport.
/// - A point without a readable `lat`/`lon`, or with a `time` that is not ISO 8601, is an error.
/// - An optional value that is not a number (`<ele>n/a</ele>`) counts as absent.
/// - `hdop`/`vdop` are not read: they are dilutions, not metres.
enum GPXReader {
    static func read(_ tree: XMLTree) throws(RunwayError) -> ImportedRecording {
        guard tree.root.isNamed("gpx") else {
            throw .input("not a GPX file: the root element is <\(tree.root.name.prefix(40))>, expected <gpx>")
        }
        var inputs: [Input] = []
        var report = ImportReport(format: .gpx)
        var index = 0
        try tree.root.forEachDescendant { (e) throws(RunwayError) in
            if e.isNamed("trk") {
                let name = e.child("name")?.text
                report.tracks.append(ImportReport.Track(index: report.tracks.count, name: name?.isEmpty == false ? name : nil))
                if report.sport == nil, let type = e.child("type")?.text, !type.isEmpty { report.sport = type }
                return
            }
            guard e.isNamed("trkpt") else { return }
            index += 1
            let k = report.tracks.count - 1
            if let fix = try point(e, index: index) {
                inputs.append(.fix(fix))
                if k >= 0 { report.tracks[k].points += 1 }
            } else {
                report.untimed += 1
                if k >= 0 { report.tracks[k].untimed += 1 }
            }
        }
        report.cadenceToStepsPerMinute(&inputs)
        report.inputs = inputs.count
        report.warnAboutLeftOut()
        return ImportedRecording(inputs: inputs, report: report)
    }

    /// One `trkpt` as a fix, or nil when it has no time.
    static func point(_ e: XMLElement, index: Int) throws(RunwayError) -> Fix? {
        let lat = try required(e.attribute("lat"), "lat", index)
        let lon = try required(e.attribute("lon"), "lon", index)
        guard let timeText = e.child("time")?.text, !timeText.isEmpty else { return nil }
        guard let t = RecordedText.unixTime(timeText) else {
            throw .input("trkpt \(index): time \"\(timeText.prefix(40))\" is not an ISO 8601 date-time")
        }
        var fix = Fix(t: t, lat: lat, lon: lon)
        for c in e.children {
            if c.isNamed("ele") { fix.alt = optional(c) }
            else if c.isNamed("speed") { fix.speed = optional(c) }
            else if c.isNamed("course") { fix.course = optional(c) }
            else if c.isNamed("extensions") {
                try c.forEachDescendant { (x) throws(RunwayError) in
                    if x.isNamed("hr") || x.isNamed("heartrate") { fill(&fix.hr, x) }
                    else if x.isNamed("cad") || x.isNamed("cadence") { fill(&fix.cadence, x) }
                    else if x.isNamed("speed") { fill(&fix.speed, x) }
                    else if x.isNamed("course") { fill(&fix.course, x) }
                    else if x.isNamed("hAcc") { fill(&fix.hAcc, x) }
                    else if x.isNamed("vAcc") { fill(&fix.vAcc, x) }
                    else if x.isNamed("power") || x.isNamed("PowerInWatts") { fill(&fix.power, x) }
                }
            }
        }
        return fix
    }

    static func required(_ text: String?, _ name: String, _ index: Int) throws(RunwayError) -> Double {
        guard let text else { throw .input("trkpt \(index) has no \(name)") }
        guard let v = RecordedText.number(text) else {
            throw .input("trkpt \(index): \(name) \"\(text.prefix(40))\" is not a number")
        }
        return v
    }

    static func optional(_ e: XMLElement) -> Double { RecordedText.number(e.text) ?? .nan }

    /// Sets `value` from `e` unless an earlier element already gave it.
    static func fill(_ value: inout Double, _ e: XMLElement) {
        if value.isNaN { value = optional(e) }
    }
}
