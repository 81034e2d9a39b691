import Testing
@testable import RunwayCore

/// The log lines noted so far, flushed out of `log`.
func flushedMessages(_ log: inout EventLog, at t: Double = 0) -> [String] {
    var events: [Event] = []
    log.flush(at: t, into: &events)
    return events.compactMap { if case .log(let line) = $0.body { return line.message } else { return nil } }
}

@Suite("AccuracyWatch: reduced accuracy warnings and restored notes")
struct AccuracyWatchTests {
    private let here = (lat: 52.0, lon: 4.0)

    @Test func rawModeWarnsAtTheFirstInaccurateFixAndOnlyOnce() {
        var watch = AccuracyWatch(requiredM: 20, warnAfterS: 10)
        var log = EventLog()
        #expect(!watch.raw(Fix(lat: here.lat, lon: here.lon, hAcc: 65), log: &log))
        #expect(watch.reduced)
        #expect(flushedMessages(&log) == ["reduced accuracy: h_acc 65 m > 20 m; fixes not counted"])
        #expect(!watch.raw(Fix(lat: here.lat, lon: here.lon, hAcc: 80), log: &log))
        #expect(flushedMessages(&log).isEmpty)
    }

    @Test func rawModeNotesRestoredAccuracyOnlyFromAFixThatGivesIt() {
        var watch = AccuracyWatch(requiredM: 20, warnAfterS: 10)
        var log = EventLog()
        _ = watch.raw(Fix(lat: here.lat, lon: here.lon, hAcc: 65), log: &log)
        _ = flushedMessages(&log)
        // A fix without h_acc counts, but says nothing of accuracy.
        #expect(watch.raw(Fix(lat: here.lat, lon: here.lon), log: &log))
        #expect(watch.reduced && flushedMessages(&log).isEmpty)
        #expect(watch.raw(Fix(lat: here.lat, lon: here.lon, hAcc: 20), log: &log))   // equal to the limit counts
        #expect(!watch.reduced)
        #expect(flushedMessages(&log) == ["accuracy restored: h_acc 20 m"])
    }

    @Test func seeRemembersTheLatestAccuracyGiven() {
        var watch = AccuracyWatch(requiredM: 20, warnAfterS: 10)
        #expect(watch.hAccM.isNaN && !watch.sawAccuracy)
        watch.see(Fix(lat: here.lat, lon: here.lon))
        #expect(!watch.sawAccuracy)
        watch.see(Fix(lat: here.lat, lon: here.lon, hAcc: 7))
        watch.see(Fix(lat: here.lat, lon: here.lon))
        #expect(watch.sawAccuracy && watch.hAccM == 7)
    }

    @Test func filteredModeWarnsOnceAfterWarnAfterSecondsOfBadAccuracy() {
        var settings = FixGate.Settings()
        settings.maxHAccM = 20
        settings.warnAfterS = 10
        var gate = FixGate(settings: settings)
        var watch = AccuracyWatch(requiredM: 20, warnAfterS: 10)
        var log = EventLog()
        var warnings: [Double] = []
        for t in stride(from: 0.0, through: 30, by: 1) {
            let fix = Fix(lat: here.lat, lon: here.lon, hAcc: 40)
            _ = gate.assess(fix, at: t)
            watch.filtered(fix, at: t, gate: &gate, log: &log)
            let messages = flushedMessages(&log, at: t)
            if !messages.isEmpty {
                warnings.append(t)
                #expect(messages == ["reduced accuracy for 10 s: h_acc 40 m > 20 m; fixes not counted"])
            }
            #expect(watch.reduced)
        }
        #expect(warnings == [10])
    }

    @Test func filteredModeNotesRestoredAccuracyWhenTheGateIsSatisfiedAgain() {
        var settings = FixGate.Settings()
        settings.maxHAccM = 20
        var gate = FixGate(settings: settings)
        var watch = AccuracyWatch(requiredM: 20, warnAfterS: 10)
        var log = EventLog()
        for (t, acc) in [(0.0, 40.0), (1, 40), (2, 5), (3, 5)] {
            let fix = Fix(lat: here.lat, lon: here.lon + t * 1e-5, hAcc: acc)
            _ = gate.assess(fix, at: t)
            watch.filtered(fix, at: t, gate: &gate, log: &log)
        }
        #expect(!watch.reduced)
        #expect(flushedMessages(&log) == ["accuracy restored: h_acc 5 m"])
    }
}
