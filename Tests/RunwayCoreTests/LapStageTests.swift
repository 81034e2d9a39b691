import Testing
@testable import RunwayCore

@Suite("LapStage: split events, manual laps and the lap limit")
struct LapStageTests {
    private func splits(_ events: [Event]) -> [Lap] {
        events.compactMap { if case .split(let lap) = $0.body { return lap } else { return nil } }
    }

    @Test func eachAutoLapIsASplitEventWithTheNextSeq() {
        var laps = LapStage(autoLapM: 1000)
        var metrics = Metrics(), sensors = SensorStats(), odometer = Odometer()
        var log = EventLog(), events: [Event] = []
        laps.begin(LapProgress(t: 0))
        _ = log.next()                                              // an event before: seq 1
        laps.cut(LapProgress(t: 500, distanceM: 2500, elapsedS: 500), now: 500, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        #expect(splits(events).map(\.index) == [1, 2])
        #expect(events.map(\.seq) == [2, 3])
        #expect(events.map(\.t) == [200, 400])                      // each at its lap's end
        #expect(log.seq == 3)
        laps.cut(LapProgress(t: 520, distanceM: 2600, elapsedS: 520), now: 520, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        #expect(events.count == 2)                                  // no boundary crossed
    }

    @Test func aManualLapIsASplitAndNothingToLapIsRefused() throws {
        var laps = LapStage(autoLapM: 0)
        var metrics = Metrics(), sensors = SensorStats(), odometer = Odometer()
        var log = EventLog(), events: [Event] = []
        laps.begin(LapProgress(t: 0))
        let p = LapProgress(t: 100, distanceM: 300, elapsedS: 100)
        try laps.checkManual(p)
        #expect(laps.manual(p, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events))
        #expect(splits(events).map(\.trigger) == [.manual])
        do {
            try laps.checkManual(p)
            Issue.record("a second lap with nothing in it was allowed")
        } catch {
            #expect(error.status == .state)
        }
        #expect(!laps.manual(p, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events))
        #expect(events.count == 1)
    }

    /// A manual lap whose progress crosses auto-lap boundaries no cut has seen (distance a resume
    /// credited, then an auto-pause before the next cut): each auto lap goes out in its own split
    /// before the manual one (the auto lap was counted without an event: random flight 6467).
    @Test func aManualLapEmitsTheAutoLapsItsProgressCompletesFirst() {
        var laps = LapStage(autoLapM: 200)
        var metrics = Metrics(), sensors = SensorStats(), odometer = Odometer()
        var log = EventLog(), events: [Event] = []
        laps.begin(LapProgress(t: 0))
        laps.cut(LapProgress(t: 50, distanceM: 150, elapsedS: 50), now: 50, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        #expect(events.isEmpty)
        #expect(laps.manual(LapProgress(t: 100, distanceM: 450, elapsedS: 100), metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events))
        #expect(splits(events).map(\.trigger) == [.auto, .auto, .manual])
        #expect(splits(events).map(\.index) == laps.counter.laps.map(\.index))
    }

    @Test func finishEmitsTheFinalLap() {
        var laps = LapStage(autoLapM: 1000)
        var metrics = Metrics(), sensors = SensorStats(), odometer = Odometer()
        var log = EventLog(), events: [Event] = []
        laps.begin(LapProgress(t: 0))
        laps.finish(LapProgress(t: 100, distanceM: 400, elapsedS: 100), metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        #expect(splits(events).count == 1 && splits(events).first?.distanceM == 400)
        #expect(laps.counter.laps.count == 1)
    }

    /// Begins `laps` (10 m auto laps) and cuts them, 100 an update, up to one less than the
    /// limit; returns the latest progress's time and distance.
    func fillToTheLimit(_ laps: inout LapStage, _ metrics: inout Metrics, _ log: inout EventLog, _ events: inout [Event]) -> (t: Double, d: Double) {
        laps.begin(LapProgress(t: 0))
        let max = LapCounter.maxLaps
        var t = 0.0, d = 0.0
        var sensors = SensorStats(), odometer = Odometer()
        while laps.counter.laps.count < max - 1 {
            t += 100
            d += Double(min(100, max - 1 - laps.counter.laps.count)) * 10
            laps.cut(LapProgress(t: t, distanceM: d, elapsedS: t), now: t, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        }
        return (t, d)
    }

    @Test func autoLapsStoppingAtTheLimitIsWarnedOnce() throws {
        var laps = LapStage(autoLapM: 10)
        var metrics = Metrics(), sensors = SensorStats(), odometer = Odometer()
        var log = EventLog(), events: [Event] = []
        let max = LapCounter.maxLaps
        let (t, d) = fillToTheLimit(&laps, &metrics, &log, &events)
        #expect(!events.contains { $0.kind == .log })
        #expect(splits(events).count == max - 1)
        laps.cut(LapProgress(t: t + 100, distanceM: d + 1000, elapsedS: t + 100), now: t + 100, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        laps.cut(LapProgress(t: t + 200, distanceM: d + 2000, elapsedS: t + 200), now: t + 200, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        let warnings = events.compactMap { if case .log(let line) = $0.body { return line } else { return nil } }
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning.level == .warning && warning.t == t + 100)
        #expect(warning.message.hasPrefix("auto laps stopped: the flight has \(max - 1) laps"))
        #expect(events.last.map { $0.seq == log.seq } == true)
        #expect(splits(events).count == max - 1)
    }

    /// Auto laps that a credit stops at the limit (`LapCounter.credit`, distance paid out after
    /// it was covered) are warned of too, with the next cut.
    @Test func autoLapsACreditStopsAtTheLimitAreWarned() {
        var laps = LapStage(autoLapM: 10)
        var metrics = Metrics(), sensors = SensorStats(), odometer = Odometer()
        var log = EventLog(), events: [Event] = []
        let max = LapCounter.maxLaps
        let (t, d) = fillToTheLimit(&laps, &metrics, &log, &events)
        laps.cut(LapProgress(t: t + 1, distanceM: d, elapsedS: t + 1), now: t + 1, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        var steps = CreditedSteps()
        steps.append(t: t + 1, d: 25, from: t)   // (held, crossing two boundaries)
        laps.credited(25, steps: steps, elapsedAt: { $0 })
        laps.cut(LapProgress(t: t + 2, distanceM: d + 25, elapsedS: t + 2), now: t + 2, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        let warnings = events.compactMap { if case .log(let line) = $0.body { return line } else { return nil } }
        #expect(warnings.count == 1 && warnings.first?.message.hasPrefix("auto laps stopped") == true, "\(warnings.map(\.message))")
        #expect(laps.counter.autoLapsStopped && splits(events).count == max - 1)
    }
}
