import Testing
@testable import RunwayCore

/// A recording's own laps (FIT lap messages, TCX `Lap`s) replayed as its laps: a lap line at each
/// lap's start after the first (`ImportedRecording.setLaps`) and the report's `auto_lap_m` 0, which
/// `RecordingAnalysis` takes where the config is silent.
@Suite("Import: the device's laps as lap lines")
struct DeviceLapTests {
    func analysed(_ bytes: [UInt8], _ format: ImportFormat, config: String = "null") throws -> RecordingAnalysis {
        let options = try AnalysisOptions.parse("{\"format\":\"\(format.rawValue)\",\"config\":\(config)}")
        return try bytes.withUnsafeBytes { b throws(RunwayError) in try RecordingAnalysis.run(b, options: options) }
    }

    func imported(_ bytes: [UInt8], _ format: ImportFormat) throws -> ImportedRecording {
        try bytes.withUnsafeBytes { b throws(RunwayError) in try Importer.recording(b, as: format) }
    }

    /// A ride lapped by hand at 200 s, paused from 300 s to 360 s and lapped again at the restart,
    /// with its auto laps every km: 5 laps (manual at 600 m and 900 m, auto at 1 and 2 km, final).
    static func lappedRide() throws -> FlightRecord {
        try TimerFixture.flight(activity: .ride, [
            .fixes(1...200, moving: true), .lap(200), .fixes(201...300, moving: true), .command(.pause, 300),
            .fixes(301...360, moving: true), .command(.resume, 360), .lap(360), .fixes(361...1000, moving: true),
            .command(.stop, 1000),
        ])
    }

    /// The flight exported as FIT and as TCX and analysed again has its laps, every one (the
    /// auto laps too: the file's laps are what the device cut): the same count, each starting
    /// within 1 s of the flight's (FIT and TCX count whole seconds) with its distance within
    /// 1 % and its time within 1 s. The file's laps replace the replay's own: `auto_lap_m` 0.
    /// Before, the file's laps were left out and the replay cut 1 km laps of its own: 4 laps,
    /// the manual ones lost.
    @Test(arguments: [ExportFormat.fit, .tcx])
    func anExportedFlightComesBackWithItsLaps(_ format: ExportFormat) throws {
        let r = try Self.lappedRide()
        #expect(r.laps.map(\.trigger) == [.manual, .manual, .auto, .auto, .final], "\(r.laps.map(\.trigger))")
        let kind = try #require(ImportFormat(rawValue: format.rawValue))
        let bytes = Exporter.export(r, as: format)
        let analysis = try analysed(bytes, kind)
        #expect(analysis.rejected == 0, "\(String(describing: analysis.firstRejection))")
        #expect(analysis.report.laps == r.laps.count - 1 && analysis.report.autoLapM == 0)
        let laps = analysis.flight.record.laps
        try #require(laps.count == r.laps.count, "\(format): \(laps.count) laps of \(r.laps.count)")
        for (again, lap) in zip(laps, r.laps) {
            #expect(abs(again.startT - lap.startT) <= 1, "\(format) lap \(lap.index): starts at \(again.startT - lap.startT) s")
            #expect(abs(again.endT - lap.endT) <= 1, "\(format) lap \(lap.index): ends at \(again.endT - lap.endT) s")
            #expect(abs(again.distanceM - lap.distanceM) <= 0.01 * lap.distanceM, "\(format) lap \(lap.index): \(again.distanceM) m of \(lap.distanceM) m")
            #expect(abs(again.elapsedS - lap.elapsedS) <= 1, "\(format) lap \(lap.index): \(again.elapsedS) s of \(lap.elapsedS) s")
        }
        // Each with its trigger: the file's (an auto lap went out as a distance lap: FIT 2, TCX Distance).
        #expect(laps.map(\.trigger) == r.laps.map { $0.trigger == .auto ? .distance : $0.trigger }, "\(laps.map(\.trigger))")
    }

    /// A config that names `auto_lap_m` keeps it, and the flight's laps are its auto laps: the
    /// file's laps, which come as device lap lines all the same, are passed over (the log says
    /// so once). Before, both were laps: the device's among the auto laps, slivers of 9 and 12 m
    /// where they nearly met.
    @Test func aConfigsAutoLapDistanceIsKeptAndTheFilesLapsPassedOver() throws {
        let r = try Self.lappedRide()
        let analysis = try analysed(Exporter.export(r, as: .fit), .fit, config: #"{"auto_lap_m":500}"#)
        let laps = analysis.flight.record.laps
        #expect(analysis.rejected == 0)
        #expect(laps.dropLast().allSatisfy { $0.trigger == .auto } && laps.last?.trigger == .final, "\(laps.map(\.trigger))")
        #expect(laps.dropLast().allSatisfy { abs($0.distanceM - 500) < 1e-6 }, "\(laps.map(\.distanceM))")
        #expect(analysis.flight.log.lines.filter { $0.message.contains("own laps are not replayed") }.count == 1)
        // With auto laps off (the report's auto_lap_m, or a config's 0) they are the laps.
        let own = try analysed(Exporter.export(r, as: .fit), .fit, config: #"{"auto_lap_m":0}"#)
        #expect(own.flight.record.laps.map(\.trigger) == r.laps.map { $0.trigger == .auto ? .distance : $0.trigger })
    }

    /// The lap at the timer's restart comes before the restart in the lines (a lap before a timer
    /// change of its own time), after the pause: pause 300, lap 360, resume 360, then the record
    /// of 360. A FIT file's lap lines are its lap messages' start times after the first.
    @Test func aLapAtARestartComesBeforeIt() throws {
        let r = try Self.lappedRide()
        let back = try imported(Exporter.export(r, as: .fit), .fit)
        try #require(back.laps.count == r.laps.count - 1)
        for (mark, lap) in zip(back.laps, r.laps.dropFirst()) {
            #expect(abs(mark.t - lap.startT) <= 1, "lap \(lap.index) marked at \(mark.t - lap.startT) s")
        }
        var lines: [String] = []
        back.forEachLine { line in
            switch line {
            case .input(let input): if lines.last != "input \(Int(input.t - TimerFixture.t0))" { lines.append("input \(Int(input.t - TimerFixture.t0))") }
            case .command(let c, let t): lines.append("\(c.rawValue) \(Int(t - TimerFixture.t0))")
            case .lap(let t, _): lines.append("lap \(Int(t - TimerFixture.t0))")
            }
        }
        let pause = try #require(lines.firstIndex(of: "pause 300"))
        let restart = try #require(lines.firstIndex(of: "resume 360"))
        #expect(pause < restart && lines[restart - 1] == "lap 360" && lines[restart + 1] == "input 360", "\(lines[(restart - 2)...(restart + 1)])")
        #expect(back.report.inputs == back.inputs.count + back.timer.count + back.laps.count)
        // The JSON Lines carry them as {"type":"device_lap","t":T,"trigger":…}: what ended the lap before.
        let text = try Exporter.export(r, as: .fit).withUnsafeBytes { b throws(RunwayError) in try Importer.jsonLines(b, as: .fit) }
        let lapLines = text.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }.filter { $0.contains("\"type\":\"device_lap\"") }
        #expect(lapLines.count == r.laps.count - 1)
        #expect(lapLines.first == "{\"type\":\"device_lap\",\"t\":\(back.laps[0].t),\"trigger\":\"manual\"}")
    }

    /// A file with a single lap replays as one lap, the whole flight (the device cut none), not
    /// as 1 km auto laps; a GPX file, which has no laps, keeps the session's auto laps.
    @Test func aSingleLapIsTheWholeFlightAndGPXKeepsAutoLaps() throws {
        let r = try TimerFixture.flight(activity: .ride, [.fixes(1...1000, moving: true), .command(.stop, 1000)])
        #expect(r.laps.count == 3)
        var oneLap = EngineConfig(activity: .ride)
        oneLap.autoLapM = 0
        var core = FlightComputer(config: oneLap)
        var events: [Event] = []
        try core.command(.start, at: TimerFixture.t0, wallClock: .nan, events: &events)
        for k in 1...1000 {
            try core.process(.fix(try Fix(t: TimerFixture.t0 + Double(k), lat: 52 + Double(k) * 3 / 111_250, lon: 4, speed: 3, hAcc: 4).validated()),
                             wallClock: .nan, events: &events)
        }
        try core.command(.stop, at: .nan, wallClock: .nan, events: &events)
        let whole = core.record
        #expect(whole.laps.count == 1)
        for format in [ExportFormat.fit, .tcx] {
            let kind = try #require(ImportFormat(rawValue: format.rawValue))
            let analysis = try analysed(Exporter.export(whole, as: format), kind)
            #expect(analysis.report.laps == 0 && analysis.report.autoLapM == 0)
            #expect(analysis.flight.record.laps.count == 1, "\(format): \(analysis.flight.record.laps.count) laps")
        }
        let gpx = try analysed(Exporter.export(r, as: .gpx), .gpx)
        #expect(gpx.report.laps == 0 && gpx.report.autoLapM == nil)
        #expect(gpx.flight.record.laps.count == 3, "1 km auto laps, as before")
    }

    /// A lap start the replay cannot use marks nothing: at or before the flight's start, at or
    /// after the last record, or the same as the one before; a later lap without a start time
    /// leaves the device's laps out (auto laps), with a warning. A lap at a pause's time comes
    /// after it, one at a resume's before it.
    @Test func lapStartsOutsideTheRecordingMarkNothingAndALapAtATimerChangeComesWhileStopped() throws {
        let t0 = 1_700_000_000.0
        let inputs: [Input] = (0...100).map { .fix(Fix(t: t0 + Double($0), lat: 52 + Double($0) * 1e-4, lon: 4)) }
        func marks(_ starts: [Double]) -> ImportedRecording {
            var report = ImportReport(format: .fit)
            var totals = ImportReport.DeviceTotals()
            totals.laps = starts.map { ImportReport.DeviceLap(startT: $0) }
            report.device = totals
            var recording = ImportedRecording(inputs: inputs, report: report)
            recording.setTimer([])
            recording.setLaps()
            return recording
        }
        let r = marks([t0 - 5, t0, t0 + 30, t0 + 30, t0 + 60.5, t0 + 100, t0 + 120])
        #expect(r.laps == [.init(t: t0 + 30, beforeInput: 30), .init(t: t0 + 60.5, beforeInput: 61)])
        #expect(r.report.laps == 2 && r.report.autoLapM == 0 && r.report.inputs == 103)
        let unplaced = marks([t0, .nan, t0 + 50])
        #expect(unplaced.laps.isEmpty && unplaced.report.autoLapM == nil)
        #expect(unplaced.report.warnings.contains { $0.contains("without a start time") })
        let none = marks([])
        #expect(none.laps.isEmpty && none.report.autoLapM == nil && none.report.laps == 0)

        // At a timer change of its own time, a lap comes while the timer is stopped: after a
        // pause (between two records, at 50.5 s), before a resume (at 70 s, before its record).
        func paused(_ lapStarts: [Double]) -> ImportedRecording {
            var report = ImportReport(format: .fit)
            var totals = ImportReport.DeviceTotals()
            totals.laps = ([0] + lapStarts).map { ImportReport.DeviceLap(startT: t0 + $0) }
            report.device = totals
            var recording = ImportedRecording(inputs: inputs, report: report)
            recording.setTimer([(t: t0 + 50.5, starts: false), (t: t0 + 70, starts: true)])
            recording.setLaps()
            return recording
        }
        func lines(_ recording: ImportedRecording) -> [String] {
            var lines: [String] = []
            recording.forEachLine { line in
                switch line {
                case .input(let input): lines.append("\(input.t - t0)")
                case .command(let c, let t): lines.append("\(c.rawValue) \(t - t0)")
                case .lap(let t, _): lines.append("lap \(t - t0)")
                }
            }
            return lines
        }
        let noTimer = { var c = EngineConfig(); c.autoLapM = 0; return c }()
        for (start, expected) in [(50.5, ["50.0", "pause 50.5", "lap 50.5", "51.0"]), (70.0, ["69.0", "lap 70.0", "resume 70.0", "70.0"])] {
            let recording = paused([start])
            let all = lines(recording)
            let at = try #require(all.firstIndex(of: "lap \(start)"))
            #expect(Array(all[(at - (start == 70 ? 1 : 2))...].prefix(4)) == expected)
            // Replayed: the first lap ends at its time with every metre before it (the leg the
            // pause ends included), the stop in the lap it falls in.
            let replay = try RecordingAnalysis.run(recording, config: noTimer)
            #expect(replay.rejected == 0, "\(String(describing: replay.firstRejection))")
            let laps = replay.flight.record.laps
            try #require(laps.count == 2)
            #expect(laps[0].endT == t0 + start)
            #expect(abs(laps[0].distanceM - 50 * 1e-4 * 111_195) < 12, "\(laps[0].distanceM) m")
        }
        // A lap begun at the pause and ended at the restart has nothing to lap: it joins the next.
        let both = paused([50.5, 70])
        #expect(both.laps.map { $0.t - t0 } == [50.5] && both.report.laps == 1)
        #expect(try RecordingAnalysis.run(both, config: noTimer).rejected == 0)
    }
}

extension DeviceLapTests {
    /// The marks as the plain searches found them before each scan went on from where the last
    /// stopped (quadratic: every lap searched the inputs from the first and every stop): the
    /// reference for `ImportedRecording.marks`.
    static func plainMarks(ends: [(Double, LapTrigger?)], from flightStart: Double, before latest: Double,
                           timer: [ImportedRecording.TimerChange], inputs: [Input]) -> [ImportedRecording.LapMark] {
        var stopped: [(from: Double, to: Double)] = []
        for (k, change) in timer.enumerated() where change.command == .pause {
            stopped.append((change.t, timer[(k + 1)...].first { $0.command == .resume }?.t ?? .infinity))
        }
        var marks: [ImportedRecording.LapMark] = [], previous = flightStart
        for (t, trigger) in ends where t > previous && t < latest {
            if stopped.contains(where: { previous >= $0.from && t <= $0.to }) { continue }
            guard let k = inputs.firstIndex(where: { $0.t >= t }) else { break }
            marks.append(.init(t: t, beforeInput: k, trigger: trigger))
            previous = t
        }
        return marks
    }

    /// A file of many laps and records is read in time linear in them (each scan for a lap goes
    /// on from where the one before stopped), with the marks the plain searches from the first
    /// input and stop gave, on 3 000 random recordings: inputs partly out of time order, lap
    /// starts tied, before the flight and after its last input, pauses after pauses, a timer
    /// that ends stopped.
    @Test func lapMarksAreTheOnesThePlainSearchesFind() {
        var rng = RandomFlight.LCG(seed: 0x4C41_5053)
        // Times in half seconds: lap starts, timer changes and inputs tie often.
        func half(_ lo: Double, _ hi: Double) -> Double { (rng.between(lo, hi) * 2).rounded() / 2 }
        var marked = 0, unmarked = 0
        for _ in 0..<3000 {
            let t0 = 1_700_000_000.0
            var t = t0
            let inputs: [Input] = (0..<Int(rng.between(1, 60))).map { _ in
                t += rng.chance(0.15) ? -half(0, 6) : half(0, 3)
                return .fix(Fix(t: t, lat: 52, lon: 4))
            }
            var timer: [ImportedRecording.TimerChange] = []
            var tt = t0 - half(0, 5)
            if rng.chance(0.3) { timer.append(.init(command: .start, t: tt, beforeInput: 0)) }
            for _ in 0..<Int(rng.between(0, 8)) {
                tt += half(0, 15)
                timer.append(.init(command: rng.chance(0.55) ? .pause : .resume, t: tt, beforeInput: 0))
            }
            var ends: [(Double, LapTrigger?)] = (0..<Int(rng.between(0, 12))).map { _ in
                (t0 + half(-10, 90), rng.chance(0.5) ? .manual : nil)
            }
            ends.sort { $0.0 < $1.0 }
            let start = timer.first?.command == .start ? timer[0].t : inputs[0].t
            let latest = inputs.map(\.t).max() ?? -.infinity
            let marks = ImportedRecording.marks(ends: ends, from: start, before: latest, timer: timer, inputs: inputs)
            let plain = Self.plainMarks(ends: ends, from: start, before: latest, timer: timer, inputs: inputs)
            #expect(marks == plain, "\(ends.map(\.0)) timer \(timer.map { "\($0.command) \($0.t)" }) inputs \(inputs.map(\.t))")
            marked += marks.count
            unmarked += ends.filter { e in e.0 > start && e.0 < latest }.count - marks.count
        }
        // Not idle: laps are marked, and laps within the flight are left unmarked (inside a stop,
        // tied with the one before, or with no input at or after them): 3 448 and 940 when written.
        #expect(marked > 2000 && unmarked > 500, "\(marked) marked, \(unmarked) not")
    }
}
