import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Importing GPX, TCX and FIT recordings for replay: real recordings against the fixes given beside
/// them in ../shared/tracks, hand-made files for what those do not cover, and hostile input.
/// Here the real recordings, times and the helpers; the other tests are extensions, a file each:
/// ImportTests+XML (GPX, TCX), +HostileFiles, +FIT, +FITDamage, +JSONLines, and ImportReportTests.
@Suite("Importing recordings")
struct ImportTests {
    // MARK: - Real recordings

    /// `<repo>/../shared/tracks` when it is there (not part of the repository).
    static let tracks = SharedTracks.folder

    static let recordings: [String] = [
        "actparser__garmin-edge-820-bike.fit", "actparser__garmin-fenix-5-bike.fit",
        "actparser__garmin-fenix-5-run.fit", "fitparse__2013-02-06-12-11-14.fit",
        "fitparse__2015-10-13-08-43-15.fit", "fitparse__activity-small-fenix2-run.fit",
        "fitparse__garmin-fenix-5-walk.fit", "fitparse__sample-activity.fit",
        "gpxpy__Mojstrovka.gpx", "gpxpy__cerknicko-jezero.gpx",
        "tcxreader__cross-country-skiing_activity_1.tcx", "togeojson__Friday-Evening-Run.gpx",
        "togeojson__apple_watch_route.gpx", "togeojson__tour_hr.tcx",
    ]

    static func format(of file: String) -> ImportFormat? {
        guard let ext = file.split(separator: ".").last else { return nil }
        return ImportFormat(rawValue: String(ext))
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: recordings)
    func realRecordingImportsToTheSamePointsAsItsReferenceFixes(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/" + file), "missing \(file)")
        let expected = try #require(readFile(dir + "/fixes/" + file + ".jsonl"), "missing fixes for \(file)")
        let format = try #require(ImportTests.format(of: file))
        let inputs = try importing(bytes, as: format)
        let fixes = inputs.compactMap { if case .fix(let f) = $0 { return f } else { return nil } }
        let lines = expected.split(separator: 0x0A).filter { !$0.isEmpty }
        #expect(fixes.count == lines.count, "\(file): \(fixes.count) fixes, reference \(lines.count)")
        var mismatches: [String] = []
        for (i, line) in lines.enumerated() where i < fixes.count {
            let ref = try referenceFix(Array(line), importedAs: fixes[i], file: file, line: i + 1)
            mismatches += differences(fixes[i], ref).map { "\(file) fix \(i + 1): \($0)" }
        }
        let mismatched = mismatches.count
        #expect(mismatched == 0, "\(mismatches.prefix(5).joined(separator: "\n"))")
    }

    /// The reference line as a fix. Lines the engine refuses (the 1901 placeholder times) are read
    /// field by field, and the imported fix must be refused with the same message.
    func referenceFix(_ line: [UInt8], importedAs fix: Fix, file: String, line number: Int) throws -> Fix {
        do throws(RunwayError) {
            let input = try withBytes(line) { (b) throws(RunwayError) in try InputDecoder.decode(b).input }
            guard case .fix(let f) = input else {
                Issue.record("\(file) line \(number) is not a fix"); return Fix(lat: .nan, lon: .nan)
            }
            return f
        } catch {
            // The engine refuses the imported fix alike (the message names the same field).
            do throws(RunwayError) {
                _ = try fix.validated()
                Issue.record("\(file) line \(number): reference refused (\(error.message)), import accepted")
            } catch let mine {
                #expect(mine.status == error.status && mine.message.split(separator: " ").first
                        == error.message.split(separator: " ").first, "\(file) line \(number): \(mine) vs \(error)")
            }
            var f = Fix(lat: .nan, lon: .nan)
            for (key, value) in try JSONInput.object(String(decoding: line, as: UTF8.self)) {
                let v = value.finiteNumber ?? .nan
                switch key {
                case "lat": f.lat = v
                case "lon": f.lon = v
                case "t": f.t = v
                case "alt": f.alt = v
                case "speed": f.speed = v
                case "course": f.course = v
                case "h_acc": f.hAcc = v
                case "v_acc": f.vAcc = v
                case "hr": f.hr = v
                default: break
                }
            }
            return f
        }
    }

    /// What differs between an imported fix and its reference (cadence is not in the references).
    ///
    /// Times agree to 1.5 µs: the references were written through Python datetimes, which keep
    /// microseconds (Mojstrovka's "52.2073437Z" is .207343 there).
    func differences(_ a: Fix, _ r: Fix) -> [String] {
        var out: [String] = []
        func check(_ name: String, _ x: Double, _ y: Double, _ tolerance: Double) {
            if x.isNaN != y.isNaN { out.append("\(name) \(x) vs reference \(y)"); return }
            if !x.isNaN, !(abs(x - y) <= tolerance) { out.append("\(name) \(x) vs reference \(y)") }
        }
        func relative(_ y: Double) -> Double { max(abs(y) * 1e-9, 1e-9) }
        check("t", a.t, r.t, 1.5e-6)
        check("lat", a.lat, r.lat, 1e-9)
        check("lon", a.lon, r.lon, 1e-9)
        check("alt", a.alt, r.alt, relative(r.alt))
        check("speed", a.speed, r.speed, relative(r.speed))
        check("course", a.course, r.course, relative(r.course))
        check("h_acc", a.hAcc, r.hAcc, relative(r.hAcc))
        check("v_acc", a.vAcc, r.vAcc, relative(r.vAcc))
        check("hr", a.hr, r.hr, 0)
        return out
    }

    /// The first altimeter sample and the first fix's altitude a file is known to have (nil: not
    /// checked): sample-activity's first record, 161 m at its first second, 48 m above its first fix.
    struct FirstAltitudes: Sendable, CustomStringConvertible {
        var altimeter: Input, fixAlt: Double
        var description: String { "\(altimeter), first fix at \(fixAlt) m" }
    }

    /// Records without a position, counted with python-fitparse (and fitdecode): 2013-02-06 has 7,
    /// all with heart rate and altitude; sample-activity has 133, all with heart rate and
    /// altitude and 131 with cadence. Their altitude (the device's barometric altitude) becomes an
    /// altimeter sample, their speed (a wheel sensor's) a speed sample.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"),
          arguments: [("fitparse__2013-02-06-12-11-14.fit", 583, 7, 0, 7, 7, nil),
                      ("fitparse__sample-activity.fit", 2965, 133, 131, 133, 133,
                       FirstAltitudes(altimeter: .sample(.altimeter(alt: 161, t: 1_309_123_120)), fixAlt: 112.6))])
    func fitRecordsWithoutAPositionBecomeHeartRateCadenceAltimeterAndSpeedSamples(_ file: String, _ fixes: Int, _ hr: Int,
                                                                             _ cadence: Int, _ altimeter: Int, _ speed: Int,
                                                                             _ first: FirstAltitudes?) throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/" + file))
        let inputs = try importing(bytes, as: .fit)
        var counts = (fixes: 0, hr: 0, cadence: 0, altimeter: 0, speed: 0)
        var lastT = -Double.infinity, ordered = true
        var firstAltimeter: Input? = nil, firstFix: Fix? = nil
        for input in inputs {
            switch input {
            case .fix(let f): counts.fixes += 1; if firstFix == nil { firstFix = f }
            case .sample(.heartRate): counts.hr += 1
            case .sample(.cadence): counts.cadence += 1
            case .sample(.altimeter): counts.altimeter += 1; if firstAltimeter == nil { firstAltimeter = input }
            case .sample(.power): Issue.record("these files have no power")
            case .sample(.speed): counts.speed += 1
            }
            if input.t < lastT { ordered = false }
            lastT = input.t
        }
        #expect(counts.fixes == fixes)
        #expect(counts.hr == hr)
        #expect(counts.cadence == cadence)
        #expect(counts.altimeter == altimeter)
        #expect(counts.speed == speed)
        #expect(ordered, "inputs come in the recording's time order")
        if let first {
            #expect(firstAltimeter == first.altimeter, "\(String(describing: firstAltimeter))")
            #expect(firstFix.map { abs($0.alt - first.fixAlt) < 1e-9 } == true, "\(String(describing: firstFix))")
        }
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func everyRealFITFileFailsCleanlyWhenTruncatedOrCorrupted() throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/fitparse__garmin-fenix-5-walk.fit"))
        let dataEnd = bytes.count - 2  // without the file CRC the data is still complete
        for length in stride(from: 0, to: bytes.count, by: 7) where length != dataEnd {
            #expect(throws: RunwayError.self, "length \(length)") { try importing(Array(bytes[0..<length]), as: .fit) }
            #expect(inputError(Array(bytes[0..<length]), .fit)?.status == .input)
        }
        for position in stride(from: 20, to: dataEnd, by: 97) {
            var corrupt = bytes
            corrupt[position] ^= 0x10
            let error = inputError(corrupt, .fit)
            #expect(error?.status == .input)
            #expect(error?.message.contains("corrupt FIT file") == true, "byte \(position): \(String(describing: error))")
        }
    }

    // MARK: - Times

    @Test func isoTimesOutsideTheCalendarAreRefused() {
        for text in ["2020-13-01T00:00:00Z", "2021-02-29T00:00:00Z", "2020-01-01T24:00:01Z", "2020-01-01T00:60:00Z",
                     "2020-01-01T00:00Z", "2020-01-01", "2020-01-01T00:00:00.Z", "2020-01-01T00:00:00+2", "2020-01-01T00:00:00Zjunk",
                     "20200101T000000Z", "", "2020-01-01T00:00:00+24:00"] {
            #expect(RecordedText.unixTime(text) == nil, "\(text)")
        }
        #expect(RecordedText.unixTime("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(RecordedText.unixTime("1901-12-13T20:45:52Z") == -2_147_483_648)
        #expect(RecordedText.unixTime("1970-01-01T00:00:00+01:00") == -3600)
        #expect(RecordedText.unixTime("2016-12-31T23:59:60Z") == 1_483_228_800)  // leap second
        #expect(RecordedText.unixTime("2020-01-01T24:00:00Z") == 1_577_923_200)
    }

    // MARK: - Helpers

    func importing(_ bytes: [UInt8], as format: ImportFormat) throws(RunwayError) -> [Input] {
        try withBytes(bytes) { (b) throws(RunwayError) in try Importer.read(b, as: format) }
    }

    /// `withUnsafeBytes` keeping the error's type.
    func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(RunwayError) -> R) throws(RunwayError) -> R {
        let result: Result<R, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try body(b)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    func inputError(_ bytes: [UInt8], _ format: ImportFormat) -> RunwayError? {
        do { _ = try importing(bytes, as: format); return nil } catch { return error }
    }

    func readFile(_ path: String) -> [UInt8]? { SharedTracks.read(path) }

    /// Equal inputs, where NaN (absent) equals NaN and numbers agree to 1e-9 relative.
    func same(_ a: Input?, _ b: Input?) -> Bool {
        func eq(_ x: Double, _ y: Double) -> Bool {
            x.isNaN ? y.isNaN : abs(x - y) <= max(abs(y) * 1e-12, 1e-9)
        }
        switch (a, b) {
        case (.fix(let x)?, .fix(let y)?):
            return eq(x.t, y.t) && eq(x.lat, y.lat) && eq(x.lon, y.lon) && eq(x.alt, y.alt) && eq(x.speed, y.speed)
                && eq(x.course, y.course) && eq(x.hAcc, y.hAcc) && eq(x.vAcc, y.vAcc) && eq(x.hr, y.hr)
                && eq(x.cadence, y.cadence) && eq(x.power, y.power)
        case (.sample(.heartRate(let x, let s))?, .sample(.heartRate(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.power(let x, let s))?, .sample(.power(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.cadence(let x, let s))?, .sample(.cadence(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.altimeter(let x, let s))?, .sample(.altimeter(let y, let u))?): return eq(x, y) && eq(s, u)
        case (.sample(.speed(let x, let s))?, .sample(.speed(let y, let u))?): return eq(x, y) && eq(s, u)
        default: return false
        }
    }
}
