import Testing
@testable import RunwayCore

// Damaged GPX and TCX files, and salvage (the suite is ImportTests.swift's).

extension ImportTests {
    // MARK: - GPX/TCX damage

    static var realXML: [String] { recordings.filter { !$0.hasSuffix(".fit") } }

    /// A real GPX or TCX file cut short (as an app killed while writing leaves it, or a download
    /// cut off) is refused; with salvage its inputs are those of the whole file's points that
    /// ended before the cut, in the same order with the same values, and the report says where
    /// the XML broke off and how many inputs were kept.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realXML)
    func aGPXOrTCXFileCutShortIsRefusedOrKeptOnlyWithSalvage(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/" + file))
        let format = try #require(ImportTests.format(of: file))
        let inputs = try report(whole, as: format).inputs
        let kind = format.rawValue.uppercased()
        var keptBefore = 0
        for share in [0.3, 0.55, 0.8, 0.97] {
            let bytes = Array(whole.prefix(Int(Double(whole.count) * share)))
            let error = inputError(bytes, format)
            #expect(error?.status == .input)
            #expect(error?.message.hasPrefix("not a well-formed \(kind) file:") == true, "\(file) \(share): \(String(describing: error))")
            // (Cut after the root element: the refusal says that salvage reads it.)
            #expect(error?.message.hasSuffix("; salvage keeps the points read before the break (\"\(format.rawValue);salvage\")") == true,
                    "\(file) \(share): \(String(describing: error))")
            let kept = try report(bytes, as: format, options: ImportOptions(salvage: true))
            let n = kept.inputs.count
            #expect(n > 0 && n < inputs.count, "\(file) \(share): \(n) of \(inputs.count)")
            #expect(n >= keptBefore, "a later cut keeps at least as much")
            #expect(zip(kept.inputs, inputs).allSatisfy { same($0, $1) }, "\(file) \(share)")
            let warning = try #require(kept.report.warnings.first)
            #expect(warning.hasPrefix("not a well-formed \(kind) file:"), "\(warning)")
            #expect(warning.contains("byte "), "\(warning)")
            #expect(warning.hasSuffix("kept the \(n) inputs read before it (salvage)"), "\(warning)")
            keptBefore = n
        }
        // A whole file reads the same with salvage, without a warning about damage.
        let all = try report(whole, as: format, options: ImportOptions(salvage: true))
        #expect(all.inputs.count == inputs.count)
        #expect(!all.report.warnings.contains { $0.contains("(salvage)") })
    }

    /// A point that cannot be read refuses the file; with salvage it is left out, counted as
    /// `unreadable`, and named in a warning, and the points around it are kept.
    @Test(arguments: [
        (#"<trkpt lat="abc" lon="4.3"><time>2024-05-01T10:00:01Z</time></trkpt>"#, "trkpt 2: lat \"abc\" is not a number"),
        (#"<trkpt lat="52.1" lon="4.3"><time>yesterday</time></trkpt>"#, "trkpt 2: time \"yesterday\" is not an ISO 8601 date-time"),
    ])
    func anUnreadableGPXPointIsRefusedOrLeftOutWithSalvage(_ bad: String, _ message: String) throws {
        let point = { (s: Int) in #"<trkpt lat="52.1" lon="4.3"><time>2024-05-01T10:00:0\#(s)Z</time></trkpt>"# }
        let text = #"<gpx version="1.1"><trk><trkseg>"# + point(0) + bad + point(2) + point(3) + "</trkseg></trk></gpx>"
        let bytes = Array(text.utf8)
        #expect(inputError(bytes, .gpx)?.message == message)
        let kept = try report(bytes, as: .gpx, options: ImportOptions(salvage: true))
        #expect(kept.inputs.map(\.t) == [1714557600, 1714557602, 1714557603])
        #expect(kept.report.unreadable == 1)
        #expect(kept.report.warnings.contains("1 point could not be read and was left out (salvage); the first: \(message)"))
    }

    @Test func anUnreadableTCXTrackpointIsLeftOutWithSalvage() throws {
        let point = { (s: String) in "<Trackpoint><Time>\(s)</Time><Position><LatitudeDegrees>52.1</LatitudeDegrees><LongitudeDegrees>4.3</LongitudeDegrees></Position></Trackpoint>" }
        let text = #"<TrainingCenterDatabase><Activities><Activity Sport="Running"><Lap StartTime="2024-05-01T10:00:00Z"><Track>"#
            + point("2024-05-01T10:00:00Z") + point("soon") + point("2024-05-01T10:00:02Z")
            + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        let bytes = Array(text.utf8)
        #expect(inputError(bytes, .tcx)?.message.hasPrefix("Trackpoint 2: Time \"soon\"") == true)
        let kept = try report(bytes, as: .tcx, options: ImportOptions(salvage: true))
        #expect(kept.inputs.map(\.t) == [1714557600, 1714557602])
        #expect(kept.report.unreadable == 1)
    }

    /// Salvage keeps what a damaged document held; it never reads a document that is not one,
    /// nor one refused for what it is rather than for damage (a DTD).
    @Test func salvageStillRefusesWhatIsNoRecordingOrHasADTD() {
        let salvage = ImportOptions(salvage: true)
        let cases: [(String, String)] = [
            ("<?xml version=\"1.0\"?>\n<", "not a well-formed GPX file"),
            ("{\"lat\":1}", "not a well-formed GPX file"),
            (#"<!DOCTYPE gpx [<!ENTITY a "b">]><gpx><trk><trkseg><trkpt lat="1" lon="2"><time>2024-05-01T10:00:00Z</time></trkpt>"#,
             "not a valid GPX file: a DTD"),
        ]
        for (text, prefix) in cases {
            var error: RunwayError? = nil
            do { _ = try report(Array(text.utf8), as: .gpx, options: salvage) } catch let e { error = e }
            #expect(error?.status == .input)
            #expect(error?.message.hasPrefix(prefix) == true, "\(text): \(String(describing: error))")
            // Nor does the strict refusal send the reader to salvage.
            #expect(inputError(Array(text.utf8), .gpx)?.message.contains("salvage") == false, "\(text)")
        }
    }

    /// A strict refusal of XML that breaks off after its root element started says that salvage
    /// reads it, and salvage then does; one that breaks before it (no document) does not.
    @Test(arguments: [
        (ImportFormat.gpx, #"<gpx version="1.1"><trk><trkseg><trkpt lat="52.1" lon="4.3"><time>2024-05-01T10:00:00Z</time></trkpt><trkpt lat="52.2""#),
        (.tcx, "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\"><Lap><Track><Trackpoint><Time>2024-05-01T10:00:00Z</Time>"
            + "<Position><LatitudeDegrees>52.1</LatitudeDegrees><LongitudeDegrees>4.3</LongitudeDegrees></Position></Trackpoint><Track"),
    ])
    func aStrictRefusalOfABrokenDocumentSaysSalvageReadsIt(_ format: ImportFormat, _ text: String) throws {
        let message = try #require(inputError(Array(text.utf8), format)?.message)
        #expect(message.hasPrefix("not a well-formed \(format.rawValue.uppercased()) file: "), "\(message)")
        #expect(message.hasSuffix(" (line 1); salvage keeps the points read before the break (\"\(format.rawValue);salvage\")"), "\(message)")
        #expect(try report(Array(text.utf8), as: format, options: ImportOptions(salvage: true)).inputs.count == 1)
        let beforeRoot = try #require(inputError(Array("<?xml version=\"1.0\"?>\n<".utf8), format)?.message)
        #expect(!beforeRoot.contains("salvage"), "\(beforeRoot)")
    }
}
