import Testing
@testable import RunwayCore

@Suite("Exports: TCX")
struct TCXExportTests {
    @Test func tcxHasOneLapPerLapAndEveryPointInTheLapWhoseTimeHoldsIt() throws {
        let r = try ExportFixture.simulated()
        #expect(r.laps.map(\.trigger) == [.auto, .manual, .auto, .final])
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.name == "TrainingCenterDatabase")
        #expect(tcx.namespace == "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2")
        let activity = try #require(tcx.first("Activities")?.first("Activity"))
        #expect(activity.attributes["Sport"] == "Running")
        #expect(activity.first("Id")?.text == ISOTime.string(r.startT))
        let laps = activity.all("Lap")
        #expect(laps.count == r.laps.count)
        #expect(laps.map { $0.first("TriggerMethod")?.text ?? "" } == ["Distance", "Manual", "Distance", "Manual"])
        var total = 0
        for (lap, expected) in zip(laps, r.laps) {
            #expect(lap.attributes["StartTime"] == ISOTime.string(expected.startT))
            #expect(abs((Double(lap.first("DistanceMeters")?.text ?? "") ?? -1) - expected.distanceM) < 0.01)
            #expect(abs((Double(lap.first("TotalTimeSeconds")?.text ?? "") ?? -1) - expected.elapsedS) < 0.001)
            #expect(lap.first("Calories")?.text == "0" && lap.first("Intensity")?.text == "Active")
            #expect(Double(lap.first("AverageHeartRateBpm")?.first("Value")?.text ?? "") == expected.avgHrBpm.rounded())
            // Schema order inside a lap.
            let order = lap.children.map(\.name)
            #expect(order.prefix(8) == ["TotalTimeSeconds", "DistanceMeters", "MaximumSpeed", "Calories",
                                        "AverageHeartRateBpm", "MaximumHeartRateBpm", "Intensity", "TriggerMethod"])
            for point in lap.descendants("Trackpoint") {
                // A run's cadence goes in the ActivityExtension, per foot, as Garmin writes it.
                #expect(point.children.map(\.name) == ["Time", "Position", "AltitudeMeters", "DistanceMeters", "HeartRateBpm", "Extensions"])
                let run = point.first("Extensions")?.first("TPX")?.first("RunCadence")
                #expect(run?.namespace == "http://www.garmin.com/xmlschemas/ActivityExtension/v2")
                #expect(run.flatMap { Double($0.text) }.map { $0 > 80 && $0 < 90 } == true, "170-176 steps per minute are 85-88 strides")
            }
            // The points whose time falls in the lap's span (the last lap takes the rest).
            let last = expected.index == r.laps.count
            let inLap = (0..<r.route.count).filter {
                let t = r.route.time($0)
                return (t >= expected.startT || expected.index == 1) && (last || t < expected.endT)
            }
            #expect(lap.descendants("Trackpoint").count == inLap.count, "lap \(expected.index)")
            #expect(lap.descendants("Trackpoint").first?.first("Time")?.text == inLap.first.flatMap { ISOTime.string(r.route.time($0)) })
            total += lap.descendants("Trackpoint").count
        }
        #expect(total == r.route.count)
        // The gap splits no Track (the timer ran across it): one Track per Lap.
        #expect(laps.map { $0.all("Track").count } == laps.map { _ in 1 })
    }

    @Test func tcxOfAFlightStillInTheAirHasItsLapInProgress() throws {
        let r = try ExportFixture.simulated(stop: false)
        #expect(r.phase == .cruise && r.laps.count == 3)
        let tcx = try parsedExport(r, .tcx)
        let laps = tcx.descendants("Lap")
        #expect(laps.count == 4)
        #expect(tcx.descendants("Trackpoint").count == r.route.count)
        let distances = laps.compactMap { Double($0.first("DistanceMeters")?.text ?? "") }
        #expect(abs(distances.reduce(0, +) - r.distanceM) < 0.05)
    }

    @Test func tcxOfAFlightWithoutLapsIsOneLapOverTheWholeFlight() throws {
        let r = try ExportFixture.simulated(gap: nil, manualLapAfter: nil, lengthM: 600)
        #expect(r.laps.count == 1)   // the final lap
        var noLaps = r
        noLaps.laps = []
        for record in [r, noLaps] {
            let tcx = try parsedExport(record, .tcx)
            let laps = tcx.descendants("Lap")
            #expect(laps.count == 1)
            #expect(laps.first?.attributes["StartTime"] == ISOTime.string(r.startT))
            #expect(abs((Double(laps.first?.first("DistanceMeters")?.text ?? "") ?? 0) - r.distanceM) < 0.01)
            #expect(tcx.descendants("Trackpoint").count == r.route.count)
        }
    }

    @Test func aLandedFlightWhoseLapsDoNotCoverItGetsTheRemainderAsALap() throws {
        var r = try ExportFixture.simulated()
        let final = try #require(r.laps.last)
        r.laps.removeLast()   // as a stored record might lack it
        let laps = r.exportLaps
        #expect(laps.count == 4)
        #expect(abs((laps.last?.distanceM ?? 0) - final.distanceM) < 1e-6)
        #expect(laps.last?.startT == final.startT)
        #expect(laps.map(\.points.count).reduce(0, +) == r.route.count)
        let fitLaps = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(19)
        #expect(fitLaps.map { $0[254] } == [0, 1, 2, 3])
    }

    @Test(arguments: [(Activity.run, "Running"), (.ride, "Biking"), (.walk, "Other")])
    func tcxSportFollowsTheActivity(_ activity: Activity, _ sport: String) throws {
        let r = try ExportFixture.simulated(activity: activity, gap: nil, manualLapAfter: nil, lengthM: 400)
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.descendants("Activity").first?.attributes["Sport"] == sport)
    }
}
