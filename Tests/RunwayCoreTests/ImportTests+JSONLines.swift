import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// Imported recordings as JSON Lines (the suite is ImportTests.swift's).

extension ImportTests {
    // MARK: - JSON Lines

    @Test func jsonLinesDecodeBackToTheSameInputs() throws {
        let recordings: [([UInt8], ImportFormat)] = [
            (FITFile.sample(), .fit),
            (Array(#"""
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="-33.865" lon="151.209"><ele>12.5</ele><time>2020-01-01T00:00:00.123456789Z</time>
              <extensions><hr>148</hr><cad>86</cad><speed>3.25</speed><course>271.5</course><hAcc>4.5</hAcc><vAcc>6</vAcc></extensions></trkpt>
            </trkseg></trk></gpx>
            """#.utf8), .gpx),
        ]
        for (bytes, format) in recordings {
            let inputs = try importing(bytes, as: format)
            let text = try withBytes(bytes) { (b) throws(RunwayError) in try Importer.jsonLines(b, as: format) }
            #expect(text.last == 0x0A)
            let lines = text.split(separator: 0x0A)
            #expect(lines.count == inputs.count + 1, "the inputs, then the import report")
            #expect(lines.last.map { String(decoding: $0, as: UTF8.self).hasPrefix(#"{"type":"import_report""#) } == true)
            for (line, input) in zip(lines, inputs) {
                let decoded = try withBytes(Array(line)) { (b) throws(RunwayError) in try InputDecoder.decode(b).input }
                #expect(same(decoded, input), "\(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func realRecordingsRoundTripThroughJSONLines() throws {
        let dir = try #require(ImportTests.tracks)
        for file in ImportTests.recordings where file != "gpxpy__Mojstrovka.gpx" {  // 1901 times are refused
            let bytes = try #require(readFile(dir + "/" + file))
            let format = try #require(ImportTests.format(of: file))
            let recording = try report(bytes, as: format)
            var expected: [ImportedRecording.Line] = []
            recording.forEachLine { expected.append($0) }
            let text = try withBytes(bytes) { (b) throws(RunwayError) in try Importer.jsonLines(b, as: format) }
            let lines = text.split(separator: 0x0A)
            #expect(lines.count == expected.count + 1, "\(file): the inputs and timer lines, then the import report")
            #expect(recording.report.inputs == expected.count)
            for (line, want) in zip(lines, expected) {
                let decoded = try withBytes(Array(line)) { (b) throws(RunwayError) in try InputDecoder.decodeLine(b) }
                switch (decoded, want) {
                case (.input(let got)?, .input(let input)):
                    #expect(same(got.input, input), "\(file): \(String(decoding: line, as: UTF8.self))")
                case (.command(let got, let t)?, .command(let command, let at)):
                    #expect(got == command && t == at, "\(file): \(String(decoding: line, as: UTF8.self))")
                case (.deviceLap(let t, let trigger)?, .lap(let at, let said)):
                    #expect(t == at && trigger == said ?? .manual, "\(file): \(String(decoding: line, as: UTF8.self))")
                default:
                    Issue.record("\(file): \(String(decoding: line, as: UTF8.self)) decodes as \(String(describing: decoded)), not \(want)")
                }
            }
        }
    }
}
