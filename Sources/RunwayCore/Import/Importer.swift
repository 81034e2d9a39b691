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
/// `hr`, `cadence`), and heart-rate/cadence samples for points that have those but no position.
/// Points without a time are dropped. Values are as recorded, not range-checked: a session
/// validates each input when it is pushed, so a recording with placeholder times (1901) imports,
/// and its points are then refused one by one with a clear message.
///
///     let inputs = try Importer.read(bytes, as: .gpx)
///     let text = try Importer.jsonLines(bytes, as: .fit)  // for runway_push_jsonl
///
/// XML is parsed by libxml2 without network access or external entities; FIT is decoded here
/// with every read bounds-checked. Anything that is not a readable file of the format is an
/// `.input` error naming what is wrong.
public enum Importer {
    /// The largest file accepted (64 MiB, about a week of 1 Hz GPX with extensions): larger input
    /// is refused before parsing, so a hostile file cannot make the XML tree exhaust memory.
    public static let maxBytes = 64 << 20

    /// Reads a recording into librunway inputs, in time order as recorded.
    ///
    /// - Parameters:
    ///   - bytes: the file's content.
    ///   - format: how to read it.
    /// - Returns: fixes (`{"lat","lon","t","alt","speed","course","h_acc","v_acc","hr","cadence"}`,
    ///   only what the file has) and, where the file has heart rate or cadence without a position,
    ///   samples.
    /// - Throws: `.input` for a file that is empty, too large, not of the format, truncated or corrupt.
    public static func read(_ bytes: UnsafeRawBufferPointer, as format: ImportFormat) throws(RunwayError) -> [Input] {
        guard bytes.count <= maxBytes else {
            throw .input("\(format.rawValue.uppercased()) file of \(bytes.count) bytes exceeds the import limit of \(maxBytes) bytes")
        }
        switch format {
        case .gpx: return try GPXReader.read(XMLTree(bytes, what: "GPX"))
        case .tcx: return try TCXReader.read(XMLTree(bytes, what: "TCX"))
        case .fit: return try FITReader.read(bytes)
        }
    }

    /// Reads a recording as JSON Lines text: one input per line, each line ending in a newline
    /// (what `runway_push_jsonl` takes).
    ///
    ///     {"lat":52.1,"lon":4.3,"t":1700000000.0,"alt":3.5,"speed":3.1,"hr":148.0}
    ///     {"type":"hr","bpm":150.0,"t":1700000001.0}
    public static func jsonLines(_ bytes: UnsafeRawBufferPointer, as format: ImportFormat) throws(RunwayError) -> [UInt8] {
        let inputs = try read(bytes, as: format)
        var out: [UInt8] = []
        out.reserveCapacity(inputs.count * 96)
        for input in inputs {
            var w = JSONWriter(capacity: 128)
            write(input, to: &w)
            out.append(contentsOf: w.bytes)
            out.append(0x0A)
        }
        return out
    }

    /// Writes one input as a JSON object in the shape `InputDecoder` reads (see `Input.write`).
    public static func write(_ input: Input, to w: inout JSONWriter) { input.write(to: &w) }
}
