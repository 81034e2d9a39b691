import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// Wrong, truncated and hostile files (the suite is ImportTests.swift's).

extension ImportTests {
    // MARK: - Wrong, truncated and hostile files

    @Test func aFileOfTheOtherXMLFormatIsRefusedByItsRootElement() {
        let tcx = Array("<TrainingCenterDatabase/>".utf8)
        let gpx = Array(#"<gpx version="1.1"/>"#.utf8)
        #expect(inputError(tcx, .gpx)?.message == "not a GPX file: the root element is <TrainingCenterDatabase>, expected <gpx>")
        #expect(inputError(gpx, .tcx)?.message == "not a TCX file: the root element is <gpx>, expected <TrainingCenterDatabase>")
        #expect(inputError(Array("{\"lat\":1}".utf8), .gpx)?.message.hasPrefix("not a well-formed GPX file") == true)
        #expect(inputError([], .gpx)?.message == "empty GPX file")
        #expect(inputError(gpx, .fit)?.message.hasPrefix("not a FIT file") == true)
    }

    @Test func truncatedXMLIsAnInputError() {
        let gpx = Array("""
        <?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lat="1" lon="2"><ele>3</ele><time>2020-01-01T00:00:00Z</time></trkpt>
        <trkpt lat="1.0001" lon="2"><ele>3</ele><time>2020-01-01T00:00:01Z</time></trkpt>
        </trkseg></trk></gpx>
        """.utf8)
        for length in 0..<gpx.count {
            let error = inputError(Array(gpx[0..<length]), .gpx)
            #expect(error?.status == .input, "length \(length): \(String(describing: error))")
        }
        #expect(inputError(gpx, .gpx) == nil)
    }

    @Test func randomBytesAreAnInputErrorInEveryFormat() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<200 {
            let count = round % 50 == 0 ? 0 : 1 + Int(state % 4096)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 56))
            }
            if round % 3 == 0, bytes.count >= 12 {  // random data behind a plausible FIT header
                bytes[0] = 14; bytes[8] = 0x2E; bytes[9] = 0x46; bytes[10] = 0x49; bytes[11] = 0x54
            }
            for format in ImportFormat.allCases {
                let error = inputError(bytes, format)
                #expect(error?.status == .input, "round \(round) \(format): \(String(describing: error))")
            }
        }
    }

    @Test func inputLargerThanTheLimitIsRefusedBeforeParsing() {
        let bytes = [UInt8](repeating: 0x20, count: Importer.maxBytes + 1)
        for format in ImportFormat.allCases {
            #expect(inputError(bytes, format)?.message.contains("exceeds the import limit") == true)
        }
    }
}
