import Testing
import RunwaySim
@testable import RunwayCore

@Suite("Exports: cadence and power as other tools read them")
struct ExportSensorRoundTripTests: ExportReading {
    // MARK: Cadence

    /// Export then import keeps a run's cadence in steps per minute in TCX, GPX and FIT: TCX and GPX
    /// write it per foot as whole strides (an odd step count comes back as the even one above it),
    /// FIT with its fractional half stride (exact).
    @Test(arguments: [Activity.run, .walk])
    func aRunsCadenceRoundTripsThroughEveryFormat(_ activity: Activity) throws {
        let r = try TimerFixture.userPaused(activity: activity)
        for format in [ExportFormat.tcx, .gpx, .fit] {
            let back = fixes(try imported(r, format).inputs)
            #expect(back.count == r.route.count, "\(format)")
            for (i, f) in back.enumerated() where i < r.route.count {
                let spm = r.route.cadence(i)
                let expected = format == .fit ? spm : 2 * (spm / 2).rounded()
                #expect(f.cadence == expected || (f.cadence.isNaN && spm.isNaN), "\(format) point \(i): \(f.cadence) for \(spm)")
            }
            #expect(back.contains { $0.cadence.truncatingRemainder(dividingBy: 2) == 0 && $0.cadence >= 170 })
        }
    }

    @Test func aRidesCadenceIsRPMInEveryFormatAndRoundTripsUnchanged() throws {
        let r = try TimerFixture.flight(activity: .ride, autoPause: false, cadence: { 80 + Double($0 % 9) },
                                        [.fixes(1...200, moving: true), .command(.stop, 200)])
        for format in [ExportFormat.tcx, .gpx, .fit] {
            let back = fixes(try imported(r, format).inputs)
            #expect(back.map(\.cadence) == (0..<r.route.count).map { r.route.cadence($0) }, "\(format)")
        }
        let tcx = try parsedExport(r, .tcx)
        let point = try #require(tcx.descendants("Trackpoint").dropFirst().first)
        #expect(point.first("Cadence")?.text == String(Int(r.route.cadence(1))), "a bike's cadence is <Cadence> rpm")
        #expect(point.first("Extensions")?.first("TPX")?.first("RunCadence") == nil, "no RunCadence on a bike")
    }

    /// Garmin's own files in ../shared/tracks count run cadence per foot: the fenix 2 run's FIT
    /// record cadence (82 in a run at 2.8-3.5 m/s) and the vívoactive's TCX RunCadence (43) are
    /// strides; imported, they are steps per minute, twice the number in the file.
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func garminRunCadenceInTheRealFilesIsPerFootAndImportsAsSteps() throws {
        let dir = try #require(SharedTracks.folder)
        let fit = try #require(SharedTracks.read(dir + "/fitparse__activity-small-fenix2-run.fit"))
        let fitResult: Result<ImportedRecording, RunwayError> = fit.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try Importer.recording(b, as: .fit)) } catch { return .failure(error) }
        }
        let run = try fitResult.get()
        #expect(run.report.activity == .run)
        let cadences = fixes(run.inputs).map(\.cadence).filter { $0 > 0 }
        let sorted = cadences.sorted()
        let median = sorted[sorted.count / 2]
        #expect(median > 140 && median < 200, "a runner's steps per minute, \(median)")
    }

    // MARK: Power

    /// Power on the route comes back from TCX (ns3:Watts), GPX (<power>) and FIT (record power),
    /// and CSV has it in power_w. (The laps' power is the engine's: below.)
    @Test func perPointPowerRoundTripsThroughEveryFormat() throws {
        let base = try TimerFixture.flight(activity: .ride, autoPause: false, [.fixes(1...120, moving: true), .command(.stop, 120)])
        let r = TimerFixture.withPower(base) { $0 % 10 == 3 ? .nan : Double(150 + ($0 * 37) % 300) }
        for format in [ExportFormat.tcx, .gpx, .fit] {
            let back = fixes(try imported(r, format).inputs)
            #expect(back.count == r.route.count)
            let lost = zip(back.indices, back).filter { i, f in !(f.power == r.route.power(i) || (f.power.isNaN && r.route.power(i).isNaN)) }
            #expect(lost.isEmpty, "\(format): \(lost.prefix(3).map { "point \($0.0): \($0.1.power) for \(r.route.power($0.0))" })")
        }
        let csv = exportText(Exporter.export(r, as: .csv)).split(separator: "\n").dropFirst()
        let column = csv.map { $0.split(separator: ",", omittingEmptySubsequences: false).last.map(String.init) ?? "?" }
        #expect(column == (0..<r.route.count).map { r.route.power($0).isNaN ? "" : String(Int(r.route.power($0))) })
    }

    /// A ride (no auto-pause, laps a kilometre) started at `TimerFixture.t0`.
    static func rideStarted() throws -> (FlightComputer, [Event]) {
        var config = EngineConfig()
        config.activity = .ride
        config.speedCapMps = Activity.ride.speedCapMps
        var pause = AutoPause.Settings.defaults(for: .ride)
        pause.enabled = false
        config.autoPause = pause
        config.autoLapM = 1000
        var core = FlightComputer(config: config)
        var events: [Event] = []
        try core.command(.start, at: TimerFixture.t0, wallClock: .nan, events: &events)
        return (core, events)
    }

    /// A ride with a power meter: samples between the fixes, a 900 W spike between two fixes
    /// (no route point has it), and a distance filter that keeps about every other fix. Each
    /// exported lap has the engine's power for the lap, the summary's lap figures, in FIT (lap
    /// avg_power, max_power, normalized_power) and TCX (`LX` AvgWatts, MaxWatts), and an import
    /// of either reads them back as the lap's (`report.device.laps`). Before, the FIT lap had no
    /// average or normalized power and both had the largest power of the lap's kept points.
    @Test func eachLapCarriesTheEnginesPowerForTheLap() throws {
        var (core, events) = try ExportSensorRoundTripTests.rideStarted()
        let t0 = TimerFixture.t0
        for k in 1...900 {
            let t = t0 + Double(k)
            let fix = Fix(t: t, lat: 52 + Double(k) * 3 / 111_250, lon: 4, alt: 5, speed: 3, hAcc: 4)
            try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
            let watts = 150 + Double((k * 37) % 120)
            try core.process(.sample(.power(watts: k == 500 ? 900 : watts, t: t + 0.3)), wallClock: .nan, events: &events)
            try core.process(.sample(.power(watts: watts, t: t + 0.6)), wallClock: .nan, events: &events)
        }
        try core.command(.stop, at: t0 + 901, wallClock: .nan, events: &events)
        let r = core.record
        #expect(r.laps.count == 3 && r.route.count < 600, "\(r.laps.count) laps, \(r.route.count) of 900 points kept")
        func lapFigure(_ lap: Lap, _ key: String) -> Double { lap.metrics.figure(key) }
        let expected = r.laps.map { lap in ["avg_power_w", "max_power_w", "normalized_power_w"].map { lapFigure(lap, $0).rounded() } }
        #expect(expected.allSatisfy { $0.allSatisfy { $0 > 100 } })
        #expect(expected.map { $0[1] }.contains(900), "the spike is a lap's largest power")
        let pointsLargest = (0..<r.route.count).map { r.route.power($0) }.filter { !$0.isNaN }.max() ?? .nan
        #expect(pointsLargest < 900, "no kept point has the spike: \(pointsLargest)")

        let fitLaps = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(19)
        #expect(fitLaps.map { [$0[19], $0[20], $0[33]].map { $0.map(Double.init) ?? .nan } } == expected)
        let tcxLaps = try parsedExport(r, .tcx).descendants("Lap")
        let lx = tcxLaps.map { $0.first("Extensions")?.first("LX") }
        #expect(lx.map { [$0?.first("AvgWatts")?.text, $0?.first("MaxWatts")?.text] }
                == expected.map { [String(Int($0[0])), String(Int($0[1]))] })

        let fitBack = try #require(try imported(r, .fit).report.device).laps
        #expect(fitBack.map { [$0.avgPowerW, $0.maxPowerW, $0.normalizedPowerW] } == expected)
        let tcxBack = try #require(try imported(r, .tcx).report.device).laps
        #expect(tcxBack.map { [$0.avgPowerW, $0.maxPowerW] } == expected.map { [$0[0], $0[1]] })
        #expect(tcxBack.allSatisfy { $0.normalizedPowerW.isNaN }, "TCX has no normalized power")
    }

    /// A flight still in the air: its finished laps have the engine's power; the lap in progress
    /// has no average or normalized power (the engine has not given them) and the largest power
    /// of its points. A flight without laps is one lap with the flight's power.
    @Test func theLapInProgressHasItsPointsLargestPowerAndALaplessFlightTheFlightsPower() throws {
        var (core, events) = try ExportSensorRoundTripTests.rideStarted()
        let t0 = TimerFixture.t0
        for k in 1...500 {
            let fix = Fix(t: t0 + Double(k), lat: 52 + Double(k) * 3 / 111_250, lon: 4, alt: 5, speed: 3, hAcc: 4,
                          power: 100 + Double(k % 50))
            try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
        }
        let r = core.record
        let laps = r.exportLaps
        #expect(r.laps.count == 1 && laps.count == 2)
        #expect(laps[0].avgPowerW == r.laps[0].metrics.figure("avg_power_w") && laps[0].avgPowerW > 100)
        let inProgress = laps[1].points.map { r.route.power($0) }.max() ?? .nan
        #expect(laps[1].avgPowerW.isNaN && laps[1].normalizedPowerW.isNaN && laps[1].maxPowerW == inProgress && inProgress > 100)
        var lapless = r
        lapless.laps = []
        let whole = lapless.exportLaps
        #expect(whole.count == 1 && whole[0].avgPowerW == r.avgPowerW && whole[0].maxPowerW == r.maxPowerW
                && whole[0].normalizedPowerW == r.normalizedPowerW && r.normalizedPowerW > 100)
    }

    @Test func theFlightsPowerFiguresAreWrittenWhenKnown() throws {
        var r = try TimerFixture.flight(activity: .ride, autoPause: false, [.fixes(1...60, moving: true), .command(.stop, 60)])
        let without = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(18).first
        #expect(without?[20] == 0xFFFF && without?[21] == 0xFFFF && without?[34] == 0xFFFF, "FIT's invalid uint16")
        r.avgPowerW = 201.4; r.maxPowerW = 650; r.normalizedPowerW = 233.6
        let session = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(18).first
        #expect(session?[20] == 201 && session?[21] == 650 && session?[34] == 234)
        let geo = try JSONInput.object(exportText(Exporter.export(r, as: .geojson)))
        let props = jsonObject(geo.first { $0.key == "properties" }?.value)
        #expect(props["avg_power_w"] == .number(201.4) && props["normalized_power_w"] == .number(233.6))
    }
}
