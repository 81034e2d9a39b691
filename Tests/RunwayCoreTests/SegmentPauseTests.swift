import Testing
@testable import RunwayCore

/// GPX `trkseg` and TCX `Track` breaks read as the recording's pauses (`ImportedRecording+Segments`).
@Suite("Import: GPX segments and TCX Tracks as pauses")
struct SegmentPauseTests {
    func recording(_ text: String, _ format: ImportFormat) throws -> ImportedRecording {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { b throws(RunwayError) in try Importer.recording(b, as: format) }
    }

    func imported(_ r: FlightRecord, _ format: ExportFormat) throws -> ImportedRecording {
        let bytes = Exporter.export(r, as: format)
        let kind = try #require(ImportFormat(rawValue: format.rawValue))
        return try bytes.withUnsafeBytes { b throws(RunwayError) in try Importer.recording(b, as: kind) }
    }

    /// `2026-03-01T07:MM:SSZ` for `t` seconds after 07:00 (under an hour).
    static func time(_ t: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "2026-03-01T07:\(two(t / 60)):\(two(t % 60))Z"
    }
    static let t0 = 1_772_348_400.0   // 2026-03-01T07:00:00Z

    /// Points every second over `seconds`, north at 3 m/s from `startLat`, as GPX trkpts.
    static func trkpts(_ seconds: ClosedRange<Int>, from startLat: Double) -> String {
        seconds.map { t in
            let lat = startLat + Double(t - seconds.lowerBound) * 3 / 111_250
            return "<trkpt lat=\"\(lat)\" lon=\"4.0\"><time>\(time(t))</time></trkpt>"
        }.joined()
    }

    static func gpx(_ body: String) -> String {
        "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\(body)</gpx>"
    }

    /// A ride paused by its rider for a minute (walking on meanwhile) and auto-paused for two
    /// minutes standing, exported to GPX and TCX (and FIT, for comparison) and analysed again:
    /// the file's segment breaks are its pauses, so it comes back with its segments, its
    /// distance within 0.5 % and its moving time within 0.5 %, the FIT round trips' tolerances
    /// (`aPausedFlightsFITReplaysToItsOwnTimerAndDistance`, `test_roundtrip.py`). GPX and TCX
    /// resume at the first point after a break, which comes a second or two after the timer
    /// restarted: 816 s of 819 here, where the FIT's timer events give 819. Before, the replay
    /// ran through both pauses: the minute walked counted (+180 m, 6 %) and the segments merged.
    @Test(arguments: [ExportFormat.gpx, .tcx, .fit])
    func aPausedAndAutoPausedFlightComesBackWithItsSegments(_ format: ExportFormat) throws {
        let r = try TimerFixture.flight(activity: .ride, [
            .fixes(1...300, moving: true), .command(.pause, 300), .fixes(301...360, moving: true),
            .command(.resume, 360), .fixes(361...600, moving: true), .fixes(601...720, moving: false),
            .fixes(721...1000, moving: true), .command(.stop, 1000),
        ])
        #expect(r.route.segmentStarts.count == 3, "the pause and the auto-pause: \(r.route.segmentStarts)")
        let back = try imported(r, format)
        #expect(back.report.pauses == 2)
        let replay = try RecordingAnalysis.run(back, config: EngineConfig(activity: .ride))
        let again = replay.flight.record
        #expect(replay.rejected == 0)
        #expect(again.route.segmentStarts.count == r.route.segmentStarts.count, "\(format): segments \(again.route.segmentStarts)")
        #expect(abs(again.distanceM - r.distanceM) <= 0.005 * r.distanceM, "\(format): \(again.distanceM) m of \(r.distanceM) m")
        #expect(abs(again.movingS - r.movingS) <= 0.005 * r.movingS, "\(format): \(again.movingS) s moving of \(r.movingS) s, elapsed \(again.elapsedS) of \(r.elapsedS)")
    }

    /// Two trksegs ten minutes apart, the second 2 km on: paused across the break (a pause at the
    /// first's last time, a resume at the second's first, in the JSON Lines too), so the line
    /// across is no distance and the ten minutes are not timed. Before, the replay crossed the
    /// break: 2 km more and 600 s more elapsed.
    @Test func twoTrksegsTenMinutesApartArePausedAcrossTheBreak() throws {
        let text = Self.gpx("<trk><trkseg>\(Self.trkpts(0...119, from: 52.0))</trkseg><trkseg>\(Self.trkpts(720...839, from: 52.02))</trkseg></trk>")
        let imported = try recording(text, .gpx)
        #expect(imported.report.pauses == 1 && imported.report.inputs == 240 + 2)
        #expect(imported.timer == [.init(command: .pause, t: Self.t0 + 119, beforeInput: 120),
                                   .init(command: .resume, t: Self.t0 + 720, beforeInput: 120)])
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        let flight = try RecordingAnalysis.run(imported, config: config).flight.record
        let within = 2 * 119 * 3.0
        #expect(abs(flight.distanceM - within) <= 0.01 * within, "\(flight.distanceM) m, \(within) m within the segments")
        #expect(flight.elapsedS == 238 && flight.movingS <= 238, "\(flight.elapsedS) s, \(flight.movingS) s moving")
        #expect(flight.route.segmentStarts.count == 2)
        let lines = String(decoding: try Array(text.utf8).withUnsafeBytes { b throws(RunwayError) in try Importer.jsonLines(b, as: .gpx) }, as: UTF8.self)
            .split(separator: "\n")
        #expect(lines[120] == #"{"type":"pause","t":\#(Self.t0 + 119)}"# && lines[121] == #"{"type":"resume","t":\#(Self.t0 + 720)}"#, "\(lines[119...122])")
    }

    /// The same points in one trkseg replay as before: no pause or resume line, the report's
    /// inputs the points, the flight through the ten minutes.
    @Test func aSingleSegmentFileHasNoPause() throws {
        let text = Self.gpx("<trk><trkseg>\(Self.trkpts(0...119, from: 52.0))\(Self.trkpts(720...839, from: 52.02))</trkseg></trk>")
        let imported = try recording(text, .gpx)
        #expect(imported.timer.isEmpty && imported.report.pauses == 0 && imported.report.inputs == 240)
        let flight = try RecordingAnalysis.run(imported, config: EngineConfig(activity: .run)).flight.record
        #expect(flight.elapsedS == 839)
    }

    /// The edge cases: an empty trkseg makes no break of its own; a trkseg of one point is
    /// resumed and paused around its point; a break between trks is one too; a segment that
    /// starts at the last time of the one before joins it, with a warning.
    @Test func emptySingleAndSimultaneousSegments() throws {
        let text = Self.gpx("<trk><trkseg>\(Self.trkpts(0...59, from: 52.0))</trkseg><trkseg></trkseg><trkseg>\(Self.trkpts(120...120, from: 52.01))</trkseg></trk>"
            + "<trk><trkseg>\(Self.trkpts(120...179, from: 52.01))</trkseg><trkseg>\(Self.trkpts(300...359, from: 52.02))</trkseg></trk>")
        let imported = try recording(text, .gpx)
        #expect(imported.timer.map(\.command) == [.pause, .resume, .pause, .resume])
        #expect(imported.timer.map { $0.t - Self.t0 } == [59, 120, 179, 300])
        #expect(imported.timer.map(\.beforeInput) == [60, 60, 121, 121])
        #expect(imported.report.pauses == 2 && imported.report.inputs == 181 + 4)
        #expect(imported.report.warnings.contains { $0.hasPrefix("1 trkseg break with no time between") }, "\(imported.report.warnings)")
        let replay = try RecordingAnalysis.run(imported, config: EngineConfig(activity: .run))
        #expect(replay.rejected == 0 && replay.flight.record.elapsedS == 59 + 59 + 59, "\(replay.flight.record.elapsedS) s")
    }

    /// TCX: a Track break inside a Lap is a pause; a new Lap whose timer ran on (its
    /// TotalTimeSeconds its span) is none; one whose lap before it stopped its timer at the break
    /// (its TotalTimeSeconds short by the break) is.
    @Test(arguments: [("inside", 1), ("laps, timer running", 0), ("laps, timer stopped", 1)])
    func tcxTrackBreaksArePausesInsideALapAndAcrossOnlyWhenTheTimerStopped(_ layout: String, _ pauses: Int) throws {
        func points(_ seconds: ClosedRange<Int>) -> String {
            seconds.map { t in
                "<Trackpoint><Time>\(Self.time(t))</Time><Position><LatitudeDegrees>\(52.0 + Double(t) * 3 / 111_250)</LatitudeDegrees><LongitudeDegrees>4.0</LongitudeDegrees></Position></Trackpoint>"
            }.joined()
        }
        func lap(_ start: Int, _ timer: Int, _ tracks: [ClosedRange<Int>]) -> String {
            "<Lap StartTime=\"\(Self.time(start))\"><TotalTimeSeconds>\(timer)</TotalTimeSeconds>" + tracks.map { "<Track>\(points($0))</Track>" }.joined() + "</Lap>"
        }
        let laps: String
        switch layout {
        case "inside": laps = lap(0, 240, [0...119, 300...419])
        case "laps, timer running": laps = lap(0, 120, [0...119]) + lap(120, 120, [121...240])
        default: laps = lap(0, 120, [0...119]) + lap(300, 120, [300...419])
        }
        let text = "<?xml version=\"1.0\"?><TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\"><Activities><Activity Sport=\"Running\"><Id>\(Self.time(0))</Id>\(laps)</Activity></Activities></TrainingCenterDatabase>"
        let imported = try recording(text, .tcx)
        #expect(imported.report.pauses == pauses, "\(layout): \(imported.timer)")
        // (and the second Lap's start as a lap line)
        let lapLines = layout == "inside" ? 0 : 1
        #expect(imported.report.laps == lapLines && imported.report.inputs == 240 + 2 * pauses + lapLines)
    }
}
