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
    /// and CSV has it in power_w; a lap's largest power is its TCX MaxWatts and FIT max_power.
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
        let largest = (0..<r.route.count).map { r.route.power($0) }.filter { !$0.isNaN }.max()
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        #expect(fit.all(19).first?[20].map(Double.init) == largest)
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.descendants("Lap").first?.first("Extensions")?.first("LX")?.first("MaxWatts")?.text == largest.map { String(Int($0)) })
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
