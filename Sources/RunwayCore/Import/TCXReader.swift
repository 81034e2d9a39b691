/// Reads the track points of a Training Center XML (TCX) file.
///
/// Every `Trackpoint` (of every `Lap`/`Track`, in document order): `Time`, `Position`
/// (`LatitudeDegrees`, `LongitudeDegrees`), `AltitudeMeters`, `HeartRateBpm`/`Value`, `Cadence`,
/// and from `Extensions` (any namespace: `ns3:`, `tpx:`…) `TPX`/`Speed` and `RunCadence`.
/// Values are as recorded (cadence too: Garmin's `RunCadence` counts one foot), not range-checked.
///
/// - A trackpoint with a position becomes a fix.
/// - One without a position (indoors, a lost fix) becomes heart-rate and cadence samples when it
///   has them, and is otherwise skipped.
/// - One without `Time` is dropped; a `Time` that is not ISO 8601 or a half or unreadable
///   `Position` is an error. An optional value that is not a number counts as absent.
enum TCXReader {
    static func read(_ tree: XMLTree) throws(RunwayError) -> [Input] {
        guard tree.root.isNamed("TrainingCenterDatabase") else {
            throw .input("not a TCX file: the root element is <\(tree.root.name.prefix(40))>, expected <TrainingCenterDatabase>")
        }
        var inputs: [Input] = []
        var index = 0
        try tree.root.forEachDescendant { (e) throws(RunwayError) in
            guard e.isNamed("Trackpoint") else { return }
            index += 1
            try point(e, index: index, into: &inputs)
        }
        return inputs
    }

    static func point(_ e: XMLElement, index: Int, into inputs: inout [Input]) throws(RunwayError) {
        guard let timeText = e.child("Time")?.text, !timeText.isEmpty else { return }
        guard let t = RecordedText.unixTime(timeText) else {
            throw .input("Trackpoint \(index): Time \"\(timeText.prefix(40))\" is not an ISO 8601 date-time")
        }
        var lat = Double.nan, lon = Double.nan
        var alt = Double.nan, hr = Double.nan, cadence = Double.nan, speed = Double.nan
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
                    else if x.isNamed("RunCadence") { GPXReader.fill(&cadence, x) }
                }
            }
        }
        if !lat.isNaN {
            inputs.append(.fix(Fix(t: t, lat: lat, lon: lon, alt: alt, speed: speed, hr: hr, cadence: cadence)))
        } else {
            if !hr.isNaN { inputs.append(.sample(.heartRate(bpm: hr, t: t))) }
            if !cadence.isNaN { inputs.append(.sample(.cadence(spm: cadence, t: t))) }
        }
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
