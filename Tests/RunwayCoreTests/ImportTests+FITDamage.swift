import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// Damaged FIT files, and salvage (the suite is ImportTests.swift's).

extension ImportTests {
    // MARK: - FIT damage

    func salvaged(_ bytes: [UInt8]) throws(RunwayError) -> ImportedRecording {
        try report(bytes, as: .fit, options: ImportOptions(salvage: true))
    }

    /// Every real FIT recording: those above and the ELEMNT ride, whose reference fixes leave out
    /// the cadence and power its records carry.
    static var realFITs: [String] {
        recordings.filter { $0.hasSuffix(".fit") } + ["fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"]
    }

    /// Cutting the last 1 or 2 bytes (the file CRC) of a real FIT file is refused with the CRC's
    /// offset; with salvage every record is kept (they are all whole) and the report says why.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realFITs)
    func aFITFileCutBy1Or2BytesIsRefusedOrKeptOnlyWithSalvage(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/" + file))
        let inputs = try importing(whole, as: .fit)
        let crcAt = Int(whole[0]) + Int(FITFile.u32(whole, 4))
        #expect(crcAt == whole.count - 2)
        for cut in [1, 2] {
            let bytes = Array(whole.dropLast(cut))
            let error = inputError(bytes, .fit)
            #expect(error?.status == .input)
            #expect(error?.message == "truncated FIT file: the file CRC at byte \(crcAt) is missing (\(2 - cut) of 2 bytes are there)", "\(file)")
            let kept = try salvaged(bytes)
            #expect(kept.inputs.count == inputs.count && zip(kept.inputs, inputs).allSatisfy { same($0, $1) })
            #expect(kept.report.warnings.first?.hasPrefix("truncated FIT file: the file CRC at byte \(crcAt)") == true)
            #expect(kept.report.warnings.first?.hasSuffix("kept the \(inputs.count) inputs read before it (salvage)") == true)
        }
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realFITs)
    func junkAfterARealFITFileIsRefusedOrKeptOnlyWithSalvage(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/" + file))
        let inputs = try importing(whole, as: .fit)
        for junk: [UInt8] in [[0x00], [0x0A, 0x0D], Array(repeating: 0xFF, count: 40), Array("<html>not found</html>".utf8)] {
            let bytes = whole + junk
            let error = inputError(bytes, .fit)
            #expect(error?.status == .input)
            #expect(error?.message.hasPrefix("trailing bytes in FIT file:") == true)
            #expect(error?.message.contains("at byte \(whole.count)") == true, "\(String(describing: error))")
            let kept = try salvaged(bytes)
            #expect(kept.inputs.count == inputs.count)
            #expect(kept.report.warnings.first?.hasPrefix("trailing bytes in FIT file:") == true)
        }
    }

    /// Replayed with no auto-pause of the engine's own, a real FIT recording's elapsed time is its
    /// device's timer time (records and timer events are stamped in whole seconds: within 2 s);
    /// with its sport's profile the engine's auto-pause may hold longer, never shorter.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"), arguments: realFITs)
    func aRealFITRecordingsElapsedTimeIsItsDevicesTimerTime(_ file: String) throws {
        let dir = try #require(ImportTests.tracks)
        let bytes = try #require(readFile(dir + "/" + file))
        func analyse(_ options: String) throws -> RecordingAnalysis {
            try bytes.withUnsafeBytes { (b) throws(RunwayError) in try RecordingAnalysis.run(b, options: try AnalysisOptions.parse(options)) }
        }
        let timer = try #require(analyse("{}").report.device?.timerS)
        let timerOnly = try analyse(#"{"config":{"auto_pause":false}}"#).flight.record
        #expect(abs(timerOnly.elapsedS - timer) <= 2, "\(file): elapsed \(timerOnly.elapsedS) s, the device's timer \(timer) s")
        let profile = try analyse("{}").flight.record
        #expect(profile.elapsedS <= timer + 2, "\(file): elapsed \(profile.elapsedS) s, the device's timer \(timer) s")
        #expect(profile.movingS <= profile.elapsedS)
    }

    /// A second, chained file whose header is damaged: refused naming the chained file's offset; with
    /// salvage the first file's records are kept.
    @Test func aCorruptChainedFITHeaderIsRefusedOrKeptOnlyWithSalvage() throws {
        let first = FITFile.sample()
        let second = FITFile.sample()
        let one = try importing(first, as: .fit)
        #expect(try importing(first + second, as: .fit).count == 2 * one.count)
        var damaged: [(bytes: [UInt8], message: String)] = []
        var crc = second; crc[5] ^= 0x01   // a data-size byte under the header CRC
        damaged.append((crc, "corrupt chained FIT file at byte \(first.count): header CRC"))
        var size = second; size[0] = 13
        damaged.append((size, "corrupt chained FIT file at byte \(first.count): header size 13 at byte \(first.count)"))
        var signature = second; signature[9] = UInt8(ascii: "X")
        damaged.append((signature, "trailing bytes in FIT file: the \(second.count) bytes at byte \(first.count)"))
        damaged.append((Array(second.prefix(10)), "trailing bytes in FIT file: 10 bytes at byte \(first.count)"))
        damaged.append((Array(second.dropLast(5)), "truncated chained FIT file at byte \(first.count): the header at byte \(first.count) announces"))
        for (tail, message) in damaged {
            let error = inputError(first + tail, .fit)
            #expect(error?.status == .input)
            #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error)) vs \(message)")
            let kept = try salvaged(first + tail)
            #expect(kept.report.warnings.first?.hasPrefix(message) == true)
            #expect(kept.inputs.count >= one.count && zip(kept.inputs, one).allSatisfy { same($0, $1) })
            if !message.hasPrefix("truncated") { #expect(kept.inputs.count == one.count) }
        }
    }

    /// Cut anywhere: refused; with salvage, the records before the cut are kept (a prefix of the
    /// whole file's inputs) and the damage is a warning, never a trap.
    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func aFITFileCutAnywhereKeepsOnlyTheRecordsBeforeTheCutWithSalvage() throws {
        let dir = try #require(ImportTests.tracks)
        let whole = try #require(readFile(dir + "/fitparse__activity-small-fenix2-run.fit"))
        let inputs = try importing(whole, as: .fit)
        var previous = -1
        for length in stride(from: 14, to: whole.count - 2, by: max(1, whole.count / 97)) {
            let bytes = Array(whole.prefix(length))
            #expect(inputError(bytes, .fit)?.message.hasPrefix("truncated FIT file: the header at byte 0 announces") == true)
            let kept = try salvaged(bytes)
            // The sport is in the session message at the end: a cut file keeps its cadence as
            // recorded (per foot, with a warning) where the whole file gives steps per minute.
            func perFoot(_ input: Input) -> Input {
                switch input {
                case .fix(var f): f.cadence /= 2; return .fix(f)
                case .sample(.cadence(let spm, let t)): return .sample(.cadence(spm: spm / 2, t: t))
                default: return input
                }
            }
            #expect(kept.inputs.count <= inputs.count && zip(kept.inputs, inputs).allSatisfy { same($0, perFoot($1)) })
            #expect(kept.inputs.count >= previous, "a longer prefix keeps at least as much")
            #expect(kept.report.warnings.count >= 1 && kept.report.inputs == kept.inputs.count)
            previous = kept.inputs.count
        }
        #expect(previous > inputs.count * 9 / 10)
    }

    @Test func salvageIsAFormatOptionAndUnknownOptionsAreArgumentErrors() throws {
        let (format, options) = try Importer.format("fit;salvage")
        #expect(format == .fit && options.salvage)
        #expect(try Importer.format("gpx").1.salvage == false)
        #expect(throws: RunwayError.self) { try Importer.format("fit;repair") }
        #expect(throws: RunwayError.self) { try Importer.format("fits") }
        do { _ = try Importer.format("fit;repair") } catch { #expect(error.status == .argument) }
    }

    /// A timestamp field declared with a 64-bit base type whose value no FIT `date_time` (uint32)
    /// can hold is read as the invalid value: its record is untimed (reported) and sets no time
    /// base. Before, a time of 2^63 − 1024 followed by compressed timestamp headers (each adds up
    /// to 32 s) overflowed Int64 and trapped the host, and a time of −2^63 taken as a system time
    /// overflowed when the first UTC time placed it (found by reading, helper-122).
    @Test func aFITTimeNoDateTimeCanHoldIsInvalidNotATrap() throws {
        let utc: UInt32 = 1_000_000_000
        let epoch = 631_065_600.0
        let position = FITFile.le(FITFile.semicircles(52)) + FITFile.le(FITFile.semicircles(4))
        // Local 2: a record with a uint32 time and a position, the one well-timed fix.
        let good: [UInt8] = [0x42, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
            + [0x02] + FITFile.le(utc) + position

        // Local 0: time as uint64; local 1: a position only, timed by compressed headers
        // (0xBF: local 1, offset 31; 0xA0: offset 0: each pair moves the time on by 32 s).
        var late: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 8, 0x8F, 0, 4, 0x85, 1, 4, 0x85]
            + [0x00] + FITFile.le(UInt64(0x7FFF_FFFF_FFFF_FC00)) + position
        late += [0x41, 0, 0] + FITFile.le(UInt16(20)) + [2, 0, 4, 0x85, 1, 4, 0x85]
        for _ in 0..<32 { late += [0xBF] + position + [0xA0] + position }
        let compressed = try report(FITFile.wrap(late + good, headerSize: 14, fileCRC: true), as: .fit)
        #expect(compressed.inputs.map(\.t) == [Double(utc) + epoch])
        #expect(compressed.report.untimed == 65, "the uint64 record and the 64 compressed ones after it")

        // Local 0: time as sint64 with a heart rate: −2^63 (not sint64's invalid value), then UTC.
        let early: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [4, 253, 8, 0x8E, 0, 4, 0x85, 1, 4, 0x85, 3, 1, 0x02]
            + [0x00] + FITFile.le(Int64.min) + position + [100]
            + [0x00] + FITFile.le(Int64(utc)) + position + [100]
        let system = try report(FITFile.wrap(early, headerSize: 14, fileCRC: true), as: .fit)
        #expect(system.inputs.filter { if case .fix = $0 { true } else { false } }.map(\.t) == [Double(utc) + epoch])
        #expect(system.report.untimed == 1)
        #expect(!system.report.warnings.contains { $0.contains("system time") }, "\(system.report.warnings)")
    }

    /// A FIT file keeps at most RUNWAY_MAX_LAPS lap messages, and as many session messages (a
    /// replay cannot lap more; a file of 1-byte messages kept 64 M laps, several GB), and says how
    /// many more it had.
    @Test func aFITFileKeepsAtMostMaxLapsLapAndSessionMessages() throws {
        let utc: UInt32 = 1_000_000_000
        let position = FITFile.le(FITFile.semicircles(52)) + FITFile.le(FITFile.semicircles(4))
        let records: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
            + [0x00] + FITFile.le(utc) + position + [0x00] + FITFile.le(utc + 10) + position
        // Local 1: lap (19), local 2: session (18), no fields: a message is its header byte.
        let laps: [UInt8] = [0x41, 0, 0] + FITFile.le(UInt16(19)) + [0] + Array(repeating: 0x01, count: LapCounter.maxLaps + 3)
        let sessions: [UInt8] = [0x42, 0, 0] + FITFile.le(UInt16(18)) + [0] + Array(repeating: 0x02, count: LapCounter.maxLaps + 2)
        let r = try report(FITFile.wrap(records + laps + sessions, headerSize: 14, fileCRC: true), as: .fit)
        #expect(r.inputs.count == 2)
        #expect(r.report.device?.laps.count == LapCounter.maxLaps)
        #expect(r.report.warnings.contains { $0.hasPrefix("the FIT file has 3 more lap messages than the 50000 kept") }, "\(r.report.warnings)")
        #expect(r.report.warnings.contains { $0.hasPrefix("the FIT file has 2 more session messages than the 50000 kept") }, "\(r.report.warnings)")
    }

    /// A chained file's elements are removed by index from its first on, the rest in order: as a
    /// filter of the whole array, on 2 000 random arrays and ascending index sets.
    @Test func removingAFilesElementsKeepsTheOthersInOrder() {
        var rng = RandomFlight.LCG(seed: 0x5245_4D56)
        for _ in 0..<2000 {
            var array = (0..<Int(rng.between(0, 40))).map { $0 * 10 }
            let indices = array.indices.filter { _ in rng.chance(0.3) }
            let expected = array.enumerated().filter { !indices.contains($0.offset) }.map(\.element)
            FITReader.Decoder.remove(at: indices, from: &array)
            #expect(array == expected, "\(indices)")
        }
    }

    /// Records stamped in device system time (seconds since power-on, < 0x10000000) are placed by
    /// the file's timestamp_correlation, else by its first UTC timestamp, else refused.
    @Test func fitSystemTimeRecordsArePlacedByCorrelationOrTheFirstUTCTimeOrRefused() throws {
        let utc: UInt32 = 1_000_000_000
        let epoch = 631_065_600.0
        // Local 0: record with timestamp and position. Local 1: timestamp_correlation (162):
        // timestamp, system_timestamp.
        let recordDef: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        func record(_ t: UInt32, _ lat: Double) -> [UInt8] {
            [0x00] + FITFile.le(t) + FITFile.le(FITFile.semicircles(lat)) + FITFile.le(FITFile.semicircles(4))
        }
        let correlation: [UInt8] = [0x41, 0, 0] + FITFile.le(UInt16(162)) + [2, 253, 4, 0x86, 1, 4, 0x86]
            + [0x01] + FITFile.le(utc) + FITFile.le(UInt32(1000))
        let system = record(1000, 52) + record(1001, 52.0001)

        let correlated = FITFile.wrap(recordDef + system + correlation + record(utc + 2, 52.0002), headerSize: 14, fileCRC: true)
        let placed = try report(correlated, as: .fit)
        #expect(placed.inputs.map(\.t) == [Double(utc) + epoch, Double(utc) + 1 + epoch, Double(utc) + 2 + epoch])
        #expect(placed.report.warnings.first?.contains("placed by its timestamp_correlation") == true)

        let byUTC = FITFile.wrap(recordDef + system + record(utc + 5, 52.0002), headerSize: 14, fileCRC: true)
        let guessed = try report(byUTC, as: .fit)
        #expect(guessed.inputs.map(\.t) == [Double(utc) + 4 + epoch, Double(utc) + 5 + epoch, Double(utc) + 5 + epoch])
        #expect(guessed.report.warnings.first?.contains("placed by its first UTC timestamp") == true)

        let unplaceable = FITFile.wrap(recordDef + system, headerSize: 14, fileCRC: true)
        let error = inputError(unplaceable, .fit)
        #expect(error?.status == .input)
        #expect(error?.message.contains("device system time") == true && error?.message.contains("no timestamp_correlation") == true)
        let left = try salvaged(unplaceable)
        #expect(left.inputs.isEmpty && left.report.unreadable == 2)
        #expect(left.report.warnings.first?.hasSuffix("they were left out (salvage)") == true)
    }

    /// The device's timer events become pause and resume lines: each stop of a running timer a
    /// pause after the record of its second, each restart a resume before it; a second stop, an
    /// event that is no timer's, and a change after the last record change nothing; a timer
    /// stopped when the first record comes is a pause at it. The replay's elapsed time is then
    /// the timer's.
    @Test func fitTimerStopsAndRestartsBecomePauseAndResumeLines() throws {
        let t0: UInt32 = 1_000_000_000
        let epoch = 631_065_600.0
        // Local 0: record (timestamp, position). Local 1: event (timestamp, event, event_type).
        let definitions: [UInt8] = [0x40, 0, 0] + FITFile.le(UInt16(20)) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
            + [0x41, 0, 0] + FITFile.le(UInt16(21)) + [3, 253, 4, 0x86, 0, 1, 0x00, 1, 1, 0x00]
        func record(_ dt: UInt32) -> [UInt8] {
            [0x00] + FITFile.le(t0 + dt) + FITFile.le(FITFile.semicircles(52 + Double(dt) * 0.00003)) + FITFile.le(FITFile.semicircles(4))
        }
        func event(_ dt: Int, _ type: UInt8, event: UInt8 = 0) -> [UInt8] { [0x01] + FITFile.le(UInt32(Int(t0) + dt)) + [event, type] }
        let start: UInt8 = 0, stop: UInt8 = 1, stopAll: UInt8 = 4
        /// Each line of `imported` as its kind and its second after t0 ("fix 0", "pause 1").
        func texts(_ imported: ImportedRecording) -> [String] {
            var lines: [String] = []
            imported.forEachLine { line in
                switch line {
                case .input(let input): lines.append("fix \(Int(input.t - epoch) - Int(t0))")
                case .command(let command, let t): lines.append("\(command.rawValue) \(Int(t - epoch) - Int(t0))")
                case .lap(let t, _): lines.append("lap \(Int(t - epoch) - Int(t0))")
                }
            }
            return lines
        }
        func lines(_ data: [UInt8]) throws -> [String] {
            let imported = try report(FITFile.wrap(definitions + data, headerSize: 14, fileCRC: true), as: .fit)
            let lines = texts(imported)
            #expect(imported.report.inputs == lines.count)
            #expect(imported.report.pauses == imported.timer.filter { $0.command == .pause }.count)
            return lines
        }

        // A timer started before the first record starts the flight there (a start line).
        let paused = event(-5, start) + record(0) + record(1) + event(1, stop) + event(2, stopAll)
            + event(6, stop, event: 9) + event(10, start) + record(10) + event(20, stop) + event(25, start)
            + event(26, start) + record(30) + event(30, stopAll)
        #expect(try lines(paused) == ["start -5", "fix 0", "fix 1", "pause 1", "resume 10", "fix 10", "pause 20", "resume 25", "fix 30"])
        // After a start line the changes before the first record are lines of their own; a start
        // in the first record's second is no start line.
        let stoppedBeforeFirst = event(-5, start) + event(-2, stop) + record(0) + event(3, start) + record(4)
        #expect(try lines(stoppedBeforeFirst) == ["start -5", "pause -2", "fix 0", "resume 3", "fix 4"])
        #expect(try lines(event(0, start) + record(0) + record(1)) == ["fix 0", "fix 1"])

        // With no start before it, the flight starts at the first record with the timer as the
        // events before it left it: a pause at it when stopped.
        let stoppedAtFirst = event(-2, stop) + record(0) + event(3, start) + record(4)
        #expect(try lines(stoppedAtFirst) == ["fix 0", "pause 0", "resume 3", "fix 4"])
        #expect(try lines(event(-2, stop) + record(0)) == ["fix 0"], "a pause after the only record is left out")

        // A stop and a start in the first record's second: a pause and its resume after it; in
        // the last record's second: neither (no pause is left without its resume, no resume
        // without its pause).
        let blinkAtFirst = record(0) + event(0, stop) + event(0, start) + record(1) + record(60)
        #expect(try lines(blinkAtFirst) == ["fix 0", "pause 0", "resume 0", "fix 1", "fix 60"])
        let blinkAtLast = event(-5, start) + record(0) + record(60) + event(60, stop) + event(60, start)
        #expect(try lines(blinkAtLast) == ["start -5", "fix 0", "fix 60"])

        // A timer event stamped in system time (seconds since power-on) among UTC records is placed
        // as the records would be (here by the first UTC timestamp after it), else left out.
        let unplaced = try report(FITFile.wrap(definitions + record(0) + [0x01] + FITFile.le(UInt32(500)) + [0, stop]
                                               + record(10), headerSize: 14, fileCRC: true), as: .fit)
        #expect(unplaced.timer.isEmpty && unplaced.inputs.count == 2)
        #expect(unplaced.report.warnings.first?.contains("1 timer event") == true
                && unplaced.report.warnings.first?.contains("left out") == true, "\(unplaced.report.warnings)")
        let placed = try report(FITFile.wrap(definitions + [0x01] + FITFile.le(UInt32(509)) + [0, stop] + record(10)
                                             + event(20, start) + record(30), headerSize: 14, fileCRC: true), as: .fit)
        var placedLines: [String] = []
        placed.forEachLine { if case .command(let c, let t) = $0 { placedLines.append("\(c.rawValue) \(Int(t - epoch) - Int(t0))") } }
        #expect(placedLines == ["pause 10", "resume 20"], "the stop at system time 509, the second before the UTC record at t0 + 10")
        #expect(placed.report.warnings.first?.contains("1 timer event") == true, "\(placed.report.warnings)")

        // In a chain, what a file stamped in system time and left out is its own: the chain's
        // other files keep their timer events, and with salvage their records (each file's are
        // removed from its first on, so a chain pays for each of its files once).
        let systemStop = [0x01] + FITFile.le(UInt32(500)) + [0, stop]
        let systemRecord = [0x00] + FITFile.le(UInt32(600)) + FITFile.le(FITFile.semicircles(52)) + FITFile.le(FITFile.semicircles(4))
        func chain(_ middle: [UInt8], salvage: Bool) throws -> (lines: [String], warnings: [String]) {
            let bytes = FITFile.wrap(definitions + record(0) + event(5, stop) + event(8, start) + record(10), headerSize: 14, fileCRC: true)
                + FITFile.wrap(definitions + middle, headerSize: 12, fileCRC: true)
                + FITFile.wrap(definitions + record(20) + event(25, stop) + event(28, start) + record(30), headerSize: 14, fileCRC: true)
            let imported = try report(bytes, as: .fit, options: ImportOptions(salvage: salvage))
            return (texts(imported), imported.report.warnings)
        }
        let both = ["fix 0", "pause 5", "resume 8", "fix 10", "fix 20", "pause 25", "resume 28", "fix 30"]
        let eventLeft = try chain(systemStop, salvage: false)
        #expect(eventLeft.lines == both)
        #expect(eventLeft.warnings.contains { $0.contains("1 timer event") && $0.contains("left out") }, "\(eventLeft.warnings)")
        let recordLeft = try chain(systemStop + systemRecord, salvage: true)
        #expect(recordLeft.lines == both)
        #expect(recordLeft.warnings.contains { $0.contains("1 record and 1 timer event") && $0.hasSuffix("(salvage)") }, "\(recordLeft.warnings)")

        // A lap's start time in system time is placed the same way, else left out (not reported
        // as a time in 1990). Local 2: lap (timestamp, start_time).
        let lapDefinition: [UInt8] = [0x42, 0, 0] + FITFile.le(UInt16(19)) + [2, 253, 4, 0x86, 2, 4, 0x86]
        func lap(end: UInt32, start: UInt32) -> [UInt8] { [0x02] + FITFile.le(end) + FITFile.le(start) }
        let lapPlaced = try report(FITFile.wrap(definitions + lapDefinition + [0x01] + FITFile.le(UInt32(509)) + [0, stop]
                                                + record(10) + record(30) + lap(end: t0 + 30, start: 505), headerSize: 14, fileCRC: true), as: .fit)
        #expect(lapPlaced.report.device?.laps.map { $0.startT - epoch } == [Double(t0) + 6], "system time 505, 4 s before the stop at t0 + 10")
        #expect(lapPlaced.report.warnings.first?.contains("1 lap start") == true, "\(lapPlaced.report.warnings)")
        let lapUnplaced = try report(FITFile.wrap(definitions + lapDefinition + record(0) + record(30)
                                                  + lap(end: t0 + 30, start: 505), headerSize: 14, fileCRC: true), as: .fit)
        #expect(lapUnplaced.report.device?.laps.count == 1 && lapUnplaced.report.device?.laps.first?.startT.isNaN == true)
        #expect(lapUnplaced.report.warnings.first?.contains("1 lap start") == true
                && lapUnplaced.report.warnings.first?.contains("left out") == true, "\(lapUnplaced.report.warnings)")

        // Replayed as a run (no auto-pause), the flight's cruise time is the timer's: 6 + 10 + 5 s
        // (from the start 5 s before the first record), and 3 + 1 s.
        for (data, timer) in [(paused, 21.0), (stoppedBeforeFirst, 4)] {
            let bytes = FITFile.wrap(definitions + data, headerSize: 14, fileCRC: true)
            let analysis = try bytes.withUnsafeBytes { (b) throws(RunwayError) in
                try RecordingAnalysis.run(b, options: try AnalysisOptions.parse(#"{"config":{"activity":"run"}}"#))
            }
            #expect(analysis.rejected == 0)
            #expect(analysis.flight.record.elapsedS == timer)
            #expect(analysis.flight.record.startT == Double(t0) + epoch - 5)
        }
    }
}
