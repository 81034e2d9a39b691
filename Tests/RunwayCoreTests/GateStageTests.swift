import Testing
@testable import RunwayCore

@Suite("GateStage: filtered fixes counted by reason, with their log lines")
struct GateStageTests {
    private func stage(accuracy: Double = 50) -> GateStage {
        var config = EngineConfig()
        config.requiredAccuracyM = accuracy
        return GateStage(config: config)
    }

    @Test func filteredFixesAreCountedByReason() {
        var gate = stage()
        var log = EventLog()
        let lat = 52.0, lon = 4.0
        #expect(gate.assess(Fix(lat: lat, lon: lon, hAcc: 5), at: 0, log: &log) == .accept(newSegment: false, reanchored: false))
        #expect(gate.assess(Fix(lat: 0, lon: 0), at: 1, log: &log) == .filtered(.nullIsland))
        #expect(gate.assess(Fix(lat: lat, lon: lon, hAcc: 65), at: 2, log: &log) == .filtered(.accuracy))
        #expect(gate.assess(Fix(lat: lat, lon: lon, hAcc: 70), at: 3, log: &log) == .filtered(.accuracy))
        #expect(gate.assess(Fix(lat: lat + degreesNorth(3), lon: lon), at: 0, log: &log) == .filtered(.repeatedTime))
        #expect(gate.assess(Fix(lat: lat + degreesNorth(500), lon: lon), at: 4, log: &log) == .filtered(.speed))
        #expect(gate.filtered == FilterCounts(accuracy: 2, nullIsland: 1, speed: 1, repeatedTime: 1))
        #expect(gate.filtered.total == 5)
    }

    @Test func eachFilteredFixIsNotedWithItsReasonAndDetail() {
        var gate = stage()
        var log = EventLog()
        _ = gate.assess(Fix(lat: 52, lon: 4), at: 0, log: &log)
        _ = gate.assess(Fix(lat: 52, lon: 4, hAcc: 65), at: 1, log: &log)
        _ = gate.assess(Fix(lat: 52 + degreesNorth(500), lon: 4), at: 2, log: &log)
        _ = gate.assess(Fix(lat: 0, lon: 0), at: 3, log: &log)
        let run = EngineConfig().speedCapMps
        #expect(flushedMessages(&log) == [
            "filtered fix at t 1.0: accuracy (h_acc 65 m > 50 m)",
            "filtered fix at t 2.0: speed (implied speed above \(PFD.whole(run)) m/s)",
            "filtered fix at t 3.0: null_island",
        ])
    }

    @Test func anAcceptedFixIsNotCountedNorNoted() {
        var gate = stage()
        var log = EventLog()
        for t in 0..<10 {
            let verdict = gate.assess(Fix(lat: 52 + degreesNorth(3 * Double(t)), lon: 4, hAcc: 5), at: Double(t), log: &log)
            #expect(verdict == .accept(newSegment: false, reanchored: false))
        }
        #expect(gate.filtered.total == 0)
        #expect(flushedMessages(&log).isEmpty)
    }

    @Test func theReducedAccuracyWarningComesOnceAfterWarnAfterSeconds() {
        var gate = stage(accuracy: 20)
        var log = EventLog()
        var warned: [Double] = []
        for t in stride(from: 0.0, through: 25, by: 1) {
            _ = gate.assess(Fix(lat: 52, lon: 4, hAcc: 30), at: t, log: &log)
            if flushedMessages(&log, at: t).contains(where: { $0.hasPrefix("reduced accuracy for 10 s") }) { warned.append(t) }
        }
        #expect(warned == [10])
        #expect(gate.accuracy.reduced)
        _ = gate.assess(Fix(lat: 52, lon: 4, hAcc: 4), at: 26, log: &log)
        #expect(!gate.accuracy.reduced)
        #expect(flushedMessages(&log) == ["accuracy restored: h_acc 4 m"])
    }

    @Test func rawModeJudgesEachFixByTheRequiredAccuracy() {
        var gate = stage(accuracy: 20)
        var log = EventLog()
        #expect(gate.raw(Fix(lat: 52, lon: 4, hAcc: 10), log: &log))
        #expect(!gate.raw(Fix(lat: 52, lon: 4, hAcc: 21), log: &log))
        #expect(flushedMessages(&log) == ["reduced accuracy: h_acc 21 m > 20 m; fixes not counted"])
        #expect(gate.filtered.total == 0)      // raw mode counts no filtered fixes
    }

    /// A fix without h_acc after bad ones counts, so it ends the bad spell: no "fixes not
    /// counted" warning, accuracy no longer reduced.
    @Test
    func aFixWithoutAccuracyAfterBadOnesRaisesNoWarningThatItIsNotCounted() {
        var gate = stage(accuracy: 20)
        var log = EventLog()
        for t in 0..<10 { _ = gate.assess(Fix(lat: 52, lon: 4, hAcc: 40), at: Double(t), log: &log) }
        _ = flushedMessages(&log)
        let verdict = gate.assess(Fix(lat: 52, lon: 4), at: 10, log: &log)   // counted
        #expect(verdict == .accept(newSegment: false, reanchored: false))
        #expect(flushedMessages(&log).allSatisfy { !$0.contains("fixes not counted") })
    }
}
