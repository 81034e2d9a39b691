/// A recording file format that `Importer` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// GPS Exchange Format 1.0 or 1.1, with heart rate, cadence, speed and course from any extension.
    case gpx
    /// Garmin's Training Center XML.
    case tcx
    /// Garmin's binary FIT activity file.
    case fit
}

/// Reads watch and phone recordings (GPX, TCX, FIT) into librunway inputs, to replay a recording
/// through a session.
///
/// The inputs come in the order the file records them: a fix per point with a position and a time
/// (`lat`, `lon`, `t` and whatever else the file has of `alt`, `speed`, `course`, `h_acc`, `v_acc`,
/// `hr`, `cadence`, `power`), and heart-rate/cadence/power samples for points that have those but
/// no position (and, from FIT, an altimeter sample of the device's altitude: the same source as its
/// fixes' `alt`, replayed as `"fix_altitude":"barometric"`). Points without a time are dropped and counted in the `ImportReport`, which
/// `jsonLines` writes as its last line. Cadence is converted to the engine's unit (steps per
/// minute on foot, rpm on a bike; see docs/formats.md). Other values are as recorded, not
/// range-checked: a session
/// validates each input when it is pushed, so a recording with placeholder times (1901) imports,
/// and its points are then refused one by one with a clear message.
///
///     let inputs = try Importer.read(bytes, as: .gpx)
///     let text = try Importer.jsonLines(bytes, as: .fit)  // for runway_push_jsonl
///
/// XML is read as a stream by expat (`XMLStream`: no tree, no DTD, so no entities); FIT is decoded here
/// with every read bounds-checked. Anything that is not a readable file of the format is an
/// `.input` error naming what is wrong.
public enum Importer {
    /// The largest file accepted (64 MiB, about a week of 1 Hz GPX with extensions): larger input
    /// is refused before parsing, so a hostile file cannot make the inputs exhaust memory.
    public static let maxBytes = 64 << 20

    /// Reads a recording into librunway inputs, in time order as recorded.
    ///
    /// - Parameters:
    ///   - bytes: the file's content.
    ///   - format: how to read it.
    /// - Returns: fixes (`{"lat","lon","t","alt","speed","course","h_acc","v_acc","hr","cadence","power"}`,
    ///   only what the file has) and, where the file has heart rate, cadence or power without a
    ///   position, samples.
    /// - Throws: `.input` for a file that is empty, too large, not of the format, truncated or corrupt.
    public static func read(_ bytes: UnsafeRawBufferPointer, as format: ImportFormat) throws(RunwayError) -> [Input] {
        try recording(bytes, as: format).inputs
    }

    /// Reads a recording into inputs and the report of what was read, left out and stored by the
    /// device (`ImportReport`).
    ///
    /// - Parameter options: `salvage` keeps what a damaged file holds before the damage (a FIT
    ///   file's records, a GPX or TCX file's points that ended before the XML broke off), and
    ///   leaves out the GPX/TCX points that cannot be read, with warnings in the report.
    public static func recording(_ bytes: UnsafeRawBufferPointer, as format: ImportFormat,
                                 options: ImportOptions = ImportOptions()) throws(RunwayError) -> ImportedRecording {
        guard bytes.count <= maxBytes else {
            throw .input("\(format.rawValue.uppercased()) file of \(bytes.count) bytes exceeds the import limit of \(maxBytes) bytes")
        }
        switch format {
        case .gpx: return try GPXReader.read(bytes, options: options)
        case .tcx: return try TCXReader.read(bytes, options: options)
        case .fit: return try FITReader.read(bytes, options: options)
        }
    }

    /// Parses `runway_import`'s format argument: a format name, then options after `;`
    /// (`"fit"`, `"fit;salvage"`).
    ///
    /// - Throws: `.argument` for an unknown format or option.
    public static func format(_ text: String) throws(RunwayError) -> (ImportFormat, ImportOptions) {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        let name = parts.first.map(String.init) ?? ""
        guard let format = ImportFormat(rawValue: name) else {
            throw RunwayError(.argument, "unknown import format \"\(name.prefix(20))\" (expected gpx, tcx or fit, optionally followed by \";salvage\")")
        }
        var options = ImportOptions()
        for option in parts.dropFirst() {
            switch option {
            case "salvage": options.salvage = true
            default: throw RunwayError(.argument, "unknown import option \"\(option.prefix(20))\" (expected salvage)")
            }
        }
        return (format, options)
    }

    /// Reads a recording as JSON Lines text: one input per line, with the device's timer as a
    /// start line first (when it started before the first input) and its stops and restarts as
    /// pause and resume lines among them (FIT), or a pause and a resume at each segment break
    /// (GPX `trkseg`, TCX `Track`; `ImportedRecording.timer`), then the import report
    /// (`{"type":"import_report",...}`), each line ending in a newline (what `runway_push_jsonl`
    /// takes: it accepts and ignores the report).
    ///
    ///     {"type":"start","t":1699999999.0}
    ///     {"lat":52.1,"lon":4.3,"t":1700000000.0,"alt":3.5,"speed":3.1,"hr":148.0}
    ///     {"type":"pause","t":1700000001.0}
    ///     {"type":"resume","t":1700000030.0}
    ///     {"type":"hr","bpm":150.0,"t":1700000031.0}
    ///     {"type":"import_report","format":"fit","sport":"running","activity":"run","inputs":2,...}
    public static func jsonLines(_ bytes: UnsafeRawBufferPointer, as format: ImportFormat,
                                 options: ImportOptions = ImportOptions()) throws(RunwayError) -> [UInt8] {
        let imported = try recording(bytes, as: format, options: options)
        var out: [UInt8] = []
        out.reserveCapacity(imported.inputs.count * 96 + 512)
        imported.forEachLine { line in
            var w = JSONWriter(capacity: 128)
            line.write(to: &w)
            out.append(contentsOf: w.bytes)
            out.append(0x0A)
        }
        var w = JSONWriter(capacity: 512)
        imported.report.write(to: &w)
        out.append(contentsOf: w.bytes)
        out.append(0x0A)
        return out
    }

    /// Writes one input as a JSON object in the shape `InputDecoder` reads (see `Input.write`).
    public static func write(_ input: Input, to w: inout JSONWriter) { input.write(to: &w) }
}
