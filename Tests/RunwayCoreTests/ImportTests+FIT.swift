import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// FIT imports (the suite is ImportTests.swift's; the hand-made files are FITFile's).

extension ImportTests {
    // MARK: - FIT

    @Test func fitRecordsDecodeWithScalesInvalidValuesAndCompressedTimestamps() throws {
        let inputs = try importing(FITFile.sample(), as: .fit)
        let t = FITFile.start + 631_065_600
        let expected: [Input] = [
            .fix(Fix(t: t, lat: FITFile.degrees(52.0), lon: FITFile.degrees(4.0), alt: 12.4, speed: 3.1,
                     hAcc: 4, hr: 150, cadence: 85.5)),
            .fix(Fix(t: t + 1, lat: FITFile.degrees(52.0001), lon: FITFile.degrees(4.0), alt: 10, speed: 3)),
            .fix(Fix(t: t + 4, lat: FITFile.degrees(-33.9), lon: FITFile.degrees(-151.2), alt: 20, hr: 151)),
            .fix(Fix(t: t + 34, lat: FITFile.degrees(-33.9001), lon: FITFile.degrees(-151.2), alt: 20.2, hr: 152)),
            .sample(.heartRate(bpm: 140, t: t + 40)),
            .sample(.cadence(spm: 80, t: t + 40)),
            .sample(.heartRate(bpm: 141, t: t + 41)),
            .sample(.speed(mps: 0, t: t + 41)),          // its speed without a position: a sensor's
            .sample(.altimeter(alt: 12.4, t: t + 41)),   // its enhanced altitude: the device's own
        ]
        #expect(inputs.count == expected.count)
        for (a, b) in zip(inputs, expected) { #expect(same(a, b), "\(a) vs \(b)") }
    }

    /// A position-less record's altitude that no altimeter sample may have (a corrupt value,
    /// 119 500 m) is left out; its heart rate and speed are kept.
    @Test func aFITAltitudeNoAltimeterSampleMayHaveIsLeftOut() throws {
        let inputs = try importing(FITFile.sample(unplacedAltitude: 600_000), as: .fit)
        let t = FITFile.start + 631_065_600
        #expect(inputs.count == 8)
        #expect(inputs.suffix(2) == [.sample(.heartRate(bpm: 141, t: t + 41)), .sample(.speed(mps: 0, t: t + 41))])
    }

    @Test func fitWithA12ByteHeaderIsRead() throws {
        let inputs = try importing(FITFile.sample(headerSize: 12), as: .fit)
        #expect(inputs.count == 9)
    }

    @Test func chainedFITFilesAreReadOneAfterTheOther() throws {
        let inputs = try importing(FITFile.sample() + FITFile.sample(headerSize: 12), as: .fit)
        #expect(inputs.count == 18)
    }

    @Test func aBadFITCRCIsCorrupt() {
        var file = FITFile.sample()
        file[file.count - 1] ^= 0xFF
        #expect(inputError(file, .fit)?.message.hasPrefix("corrupt FIT file: file CRC") == true)
        #expect(inputError(file, .fit)?.message.contains("at byte \(file.count - 2)") == true)
        let kept = try? salvaged(file)
        #expect(kept?.inputs.count == 9, "salvage keeps the records behind a bad file CRC")
        #expect(kept?.report.warnings.first?.hasPrefix("corrupt FIT file: file CRC") == true)
        file = FITFile.sample()
        file[3] ^= 0x01  // a header byte under the header CRC
        #expect(inputError(file, .fit)?.message.hasPrefix("corrupt FIT file: header CRC") == true)
    }

    @Test func truncatedFITIsAnInputErrorAtEveryLength() {
        let file = FITFile.sample()
        for length in 0..<(file.count - 2) {
            let error = inputError(Array(file[0..<length]), .fit)
            #expect(error?.status == .input, "length \(length): \(String(describing: error))")
        }
    }

    /// Damaged content behind valid CRCs reaches the message decoder: it returns inputs or an
    /// `.input` error, and never reads out of bounds (debug builds trap on any such read).
    @Test func corruptFITContentWithValidCRCsNeverTraps() throws {
        var files = [FITFile.sample()]
        if let dir = ImportTests.tracks, let real = readFile(dir + "/actparser__garmin-fenix-5-run.fit") { files.append(real) }
        var state: UInt64 = 42
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % max(n, 1)
        }
        var decoded = 0, refused = 0
        for round in 0..<3000 {
            let original = files[round % files.count]
            let headerSize = Int(original[0])
            var data = Array(original[headerSize..<(original.count - 2)])
            for _ in 0...next(3) { data[next(data.count)] = UInt8(truncatingIfNeeded: next(256)) }
            if round % 5 == 0 { data.removeLast(next(data.count)) }  // cut short at a message boundary or not
            let file = FITFile.wrap(data, headerSize: headerSize, fileCRC: true)
            switch Result(catching: { () throws(RunwayError) in try importing(file, as: .fit) }) {
            case .success: decoded += 1
            case .failure(let e):
                refused += 1
                #expect(e.status == .input, "round \(round): \(e)")
            }
            // Salvage reads the same damage into what it can, never trapping.
            if let kept = try? salvaged(file) { #expect(kept.report.inputs == kept.inputs.count + kept.timer.count) }
        }
        #expect(decoded > 0 && refused > 0, "decoded \(decoded), refused \(refused)")
    }

    @Test func fitDataBeforeItsDefinitionIsAnInputError() {
        // A data message for local type 5, never defined, with a valid CRC.
        let file = FITFile.wrap([0x05, 0x00, 0x00], headerSize: 14, fileCRC: true)
        #expect(inputError(file, .fit)?.message
                == "corrupt FIT file: data message at byte 14 uses local message type 5, which is not defined")
    }
}
