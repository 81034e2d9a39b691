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
/// - Each `trkseg` is a segment, and so is each `trk` (points directly in a `trk`, which GPX 1.1
///   does not allow, are in the `trk`'s segment before its first `trkseg`, else the last one's): where
///   the points pass from one to the next, the replay pauses at the last time before and resumes
///   at the first point after (`ImportedRecording.pause(at:what:)`), as GPX 1.1 means a new
///   segment (GPS lost, or the receiver off) and as gpxpy measures one: the line across is no
///   distance, the time across not timed. A file with one segment replays as its points alone.
///
/// Read as a stream (`XMLStream`): each point's values go straight into its fix as expat reports
/// them, with no tree (the open points are plain values on an `OpenStack`, their texts in
/// `PointNotes`, as `TCXReader`'s); an error is the first point's in document order, as if read
/// in order.
final class GPXReader: XMLStreamHandler {
    static func read(_ bytes: UnsafeRawBufferPointer, options: ImportOptions = ImportOptions()) throws(RunwayError) -> ImportedRecording {
        let reader = GPXReader()
        reader.collector = PointCollector(bytes: bytes.count, salvage: options.salvage)
        let damage = try XMLStream.parse(bytes, what: "GPX", salvage: options.salvage, into: reader)
        return try reader.finish(damage: damage)
    }

    /// The elements the reader acts on (by local name).
    enum Name: UInt8 {
        case other, trk, trkseg, trkpt, name, type, time, ele, speed, course, extensions, hr, cadence, hAcc, vAcc, power

        init(_ n: XMLName) {
            switch n.bytes.count {
            case 2 where n == "hr": self = .hr
            case 3 where n == "trk": self = .trk
            case 3 where n == "ele": self = .ele
            case 3 where n == "cad": self = .cadence
            case 4 where n == "name": self = .name
            case 4 where n == "type": self = .type
            case 4 where n == "time": self = .time
            case 4 where n == "hAcc": self = .hAcc
            case 4 where n == "vAcc": self = .vAcc
            case 5 where n == "trkpt": self = .trkpt
            case 5 where n == "speed": self = .speed
            case 5 where n == "power": self = .power
            case 6 where n == "course": self = .course
            case 6 where n == "trkseg": self = .trkseg
            case 7 where n == "cadence": self = .cadence
            case 9 where n == "heartrate": self = .hr
            case 10 where n == "extensions": self = .extensions
            case 12 where n == "PowerInWatts": self = .power
            default: self = .other
            }
        }
    }

    /// An open `trk`: its depth, its track, and whether its first `name`/`type` child was seen.
    struct OpenTrack {
        var depth: Int
        var index: Int
        var sawName = false, sawType = false
    }

    /// An open `trkpt` and what its children gave so far. Plain values (its texts are in
    /// `notes`), as `OpenStack` needs.
    struct OpenPoint {
        var depth: Int
        var index: Int
        var track: Int
        var segment: Int
        var lat: Double, lon: Double
        /// `notes.count` when it started: its notes are the ones after.
        var notesBase: Int
        /// Its error, in `notes` (-1: none).
        var error = -1
        var sawTime = false
        /// The first `time` child's time, or NaN; its text when it is not a time, in `notes`
        /// (-1: none; "" when empty).
        var t = Double.nan
        var timeText = -1
        var fix = Fix(t: .nan, lat: .nan, lon: .nan)
        /// The depth of the open `extensions` child, or -1.
        var extensionsDepth = -1
        var extensions = FirstNumbers()
    }

    // Touched only from `XMLStream`'s callbacks, on one thread.
    @exclusivity(unchecked) var root = XMLRoot("gpx")
    @exclusivity(unchecked) var report = ImportReport(format: .gpx)
    @exclusivity(unchecked) var trackTypes: [String?] = []
    @exclusivity(unchecked) var tracks: [OpenTrack] = []
    /// The open points, innermost last.
    @exclusivity(unchecked) var points = OpenStack<OpenPoint>()
    /// The texts of the open points (errors, times that are not times).
    @exclusivity(unchecked) var notes = PointNotes()
    @exclusivity(unchecked) var open = OpenElements<Name>()
    @exclusivity(unchecked) var collector = PointCollector()
    @exclusivity(unchecked) var index = 0
    /// librunway's `<runway:altitude_source>` (`AltitudeSourceElement`).
    @exclusivity(unchecked) var altitudeSource = AltitudeSourceReader(path: ["gpx", "trk", "extensions"])
    /// The segment the next point belongs to: counts every `trk` and `trkseg` start.
    @exclusivity(unchecked) var segment = 0

    deinit {
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
        case .trk:
            segment += 1
            tracks.append(OpenTrack(depth: depth, index: report.tracks.count))
            report.tracks.append(ImportReport.Track(index: report.tracks.count, name: nil))
            trackTypes.append(nil)
            return false
        case .trkseg:
            segment += 1
            return false
        case .trkpt:
            guard !points.isFull else { return false }
            index += 1
            var p = OpenPoint(depth: depth, index: index, track: report.tracks.count - 1, segment: segment,
                              lat: .nan, lon: .nan, notesBase: notes.mark)
            do throws(RunwayError) {
                let (lat, lon) = attributes.bytes("lat", "lon")
                p.lat = try GPXReader.required(lat, "lat", index)
                p.lon = try GPXReader.required(lon, "lon", index)
            } catch {
                p.error = notes.add(error.message)
            }
            points.push(p)
            return false
        case .extensions:
            if let last = points.last, last.pointee.depth + 1 == depth, last.pointee.extensionsDepth < 0 {
                last.pointee.extensionsDepth = depth
            }
            return false
        case .other:
            return false
        default:
            return !tracks.isEmpty || !points.isEmpty
        }
    }

    func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
        altitudeSource.end(depth: depth, text: text)
        guard root.matches, depth > 0, let (name, seq) = open.close() else { return }
        switch name {
        case .trk:
            if let t = tracks.last, t.depth == depth { tracks.removeLast() }
            return
        case .trkpt:
            if let last = points.last, last.pointee.depth == depth, let p = points.pop() { finish(p) }
            return
        case .extensions:
            if let last = points.last, last.pointee.extensionsDepth == depth {
                GPXReader.fill(&last.pointee.fix, last.pointee.extensions)
                last.pointee.extensionsDepth = -1
                last.pointee.extensions = FirstNumbers()
            }
            return
        default: break
        }
        if let k = tracks.indices.last, tracks[k].depth + 1 == depth {
            let text = text.map(RecordedText.trimmed) ?? ""
            let i = tracks[k].index
            if name == .name, !tracks[k].sawName {
                tracks[k].sawName = true
                report.tracks[i].name = text.isEmpty ? nil : text
            } else if name == .type, !tracks[k].sawType {
                tracks[k].sawType = true
                trackTypes[i] = text
            }
        }
        guard let last = points.last else { return }
        if last.pointee.depth + 1 == depth {
            switch name {
            case .time where !last.pointee.sawTime:
                last.pointee.sawTime = true
                if let text, !text.isEmpty, let t = RecordedText.unixTime(bytes: text) {
                    last.pointee.t = t
                } else {
                    last.pointee.timeText = notes.add(text.map(RecordedText.trimmed) ?? "")
                }
            case .ele: last.pointee.fix.alt = RecordedText.number(bytes: text) ?? .nan
            case .speed: last.pointee.fix.speed = RecordedText.number(bytes: text) ?? .nan
            case .course: last.pointee.fix.course = RecordedText.number(bytes: text) ?? .nan
            default: break
            }
        }
        // A value inside a point's `extensions` (of every open point: one may hold another).
        let slot = GPXReader.extensionSlot(name)
        guard slot >= 0 else { return }
        for k in 0..<points.count where points[k].extensionsDepth >= 0 && depth > points[k].extensionsDepth {
            points[k].extensions.offer(slot, text, seq: seq)
        }
    }

    /// A `trkpt` ended (`p`, just above the open points): its fix, nil when it has no time, or
    /// its error.
    func finish(_ p: UnsafePointer<OpenPoint>) {
        let notesBase = p.pointee.notesBase
        defer {
            notes.drop(from: notesBase)
            if points.isEmpty { collector.flush() }
        }
        let index = p.pointee.index
        if p.pointee.error >= 0 { return collector.fail(index, notes[p.pointee.error]) }
        let k = p.pointee.track
        if !p.pointee.t.isNaN {
            var f = p.pointee.fix
            f.t = p.pointee.t
            f.lat = p.pointee.lat
            f.lon = p.pointee.lon
            if k >= 0 { report.tracks[k].points += 1 }
            collector.add(index, .fix(f), segment: p.pointee.segment, nested: !points.isEmpty)
        } else if p.pointee.timeText >= 0, case let timeText = notes[p.pointee.timeText], !timeText.isEmpty {
            collector.fail(index, "trkpt \(index): time \"\(timeText.prefix(40))\" is not an ISO 8601 date-time")
        } else {
            report.untimed += 1
            if k >= 0 { report.tracks[k].untimed += 1 }
        }
    }

    func finish(damage: String?) throws(RunwayError) -> ImportedRecording {
        try root.check("GPX")
        try collector.close(damage: damage, into: &report)
        report.sport = trackTypes.lazy.compactMap { $0 }.first { !$0.isEmpty }
        var inputs = collector.inputs
        collector.inputs = []
        report.cadenceToStepsPerMinute(&inputs)
        report.statedAltitudeSource = altitudeSource.source
        report.warnAboutLeftOut()
        var recording = ImportedRecording(inputs: inputs, report: report)
        recording.pause(at: recording.segmentBreaks(collector.segments), what: "trkseg")
        return recording
    }

    static func required(_ text: UnsafeBufferPointer<UInt8>?, _ name: String, _ index: Int) throws(RunwayError) -> Double {
        guard let text else { throw .input("trkpt \(index) has no \(name)") }
        guard let v = RecordedText.number(bytes: text) else {
            throw .input("trkpt \(index): \(name) \"\(String(decoding: text, as: UTF8.self).prefix(40))\" is not a number")
        }
        return v
    }

    /// The values an `extensions` element gives (its `FirstNumbers` slot), or -1.
    @inline(__always)
    static func extensionSlot(_ name: Name) -> Int {
        switch name {
        case .hr: return 0
        case .cadence: return 1
        case .speed: return 2
        case .course: return 3
        case .hAcc: return 4
        case .vAcc: return 5
        case .power: return 6
        default: return -1
        }
    }

    /// An `extensions` element ended: its values go into the fix where it has none yet.
    static func fill(_ fix: inout Fix, _ e: FirstNumbers) {
        let values = e.values
        if fix.hr.isNaN { fix.hr = values[0] }
        if fix.cadence.isNaN { fix.cadence = values[1] }
        if fix.speed.isNaN { fix.speed = values[2] }
        if fix.course.isNaN { fix.course = values[3] }
        if fix.hAcc.isNaN { fix.hAcc = values[4] }
        if fix.vAcc.isNaN { fix.vAcc = values[5] }
        if fix.power.isNaN { fix.power = values[6] }
    }
}
