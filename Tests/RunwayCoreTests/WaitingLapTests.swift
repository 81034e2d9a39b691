import Testing
@testable import RunwayCore

/// A manual lap asked for while a gap's distance waits for its confirming fix waits with it
/// (`FlightComputer.lap(resolvedAt:)`); the held-tunnel and backdated-pause cases are in
/// FixGateTests (`aManualLapBeforeTheFixThatConfirmsAGapChangesNoTotal`).
@Suite("A manual lap while a gap waits")
struct WaitingLapTests {
    /// A run north at 3 m/s, no fix from 61 s to 99 s (a 39 s gap, past `gap_s`), the fix after
    /// the gap at 100 s; `between` runs in the second before the next fix, `after` at the end.
    func run(between: (inout Driver) throws -> Void, after: (inout Driver) throws -> Void = { try $0.phase(.stop, 130) }) throws -> Driver {
        var c = EngineConfig()
        c.autoLapM = 0
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
        try d.fix(100, 52 + degreesNorth(300), 4, speed: 3, hAcc: 5)
        #expect(d.core.gaps.isWaiting)
        try between(&d)
        for i in 101...130 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
        try after(&d)
        return d
    }

    func splits(_ d: Driver) -> [Lap] { d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } } }

    @Test func theLapComesWithTheConfirmingFixAtItsOwnTimeWithTheGapInIt() throws {
        var countAtLap = -1
        let d = try run(between: { d in
            try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
            countAtLap = d.events.count { if case .split = $0.body { true } else { false } }
        })
        #expect(countAtLap == 0, "the lap was cut before the gap was resolved")
        let laps = splits(d)
        #expect(laps.map(\.trigger) == [.manual, .final])
        #expect(laps[0].endT == 100.5)
        // The gap (180 m from 60 s to 100 s) is before the lap, so in it: 300 m in all.
        #expect(abs(laps[0].distanceM - 300) < 3, "\(laps[0].distanceM)")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - d.core.elapsed) < 1e-6)
    }

    @Test func aSecondLapMeanwhileCreditsTheGapAndCutsBothInOrder() throws {
        let d = try run(between: { d in
            try d.core.lap(at: 100.4, wallClock: .nan, events: &d.events)
            try d.core.lap(at: 100.8, wallClock: .nan, events: &d.events)
            #expect(!d.core.gaps.isWaiting)
        })
        let laps = splits(d)
        #expect(laps.map(\.trigger) == [.manual, .manual, .final])
        #expect(laps.map(\.endT).prefix(2) == [100.4, 100.8])
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
    }

    @Test func aSecondLapAtTheSameTimeIsRefusedAsNothingToLap() throws {
        let d = try run(between: { d in
            try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
            do throws(RunwayError) {
                try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
                Issue.record("a second lap with nothing since the waiting one was allowed")
            } catch {
                #expect(error.status == .state)
            }
            #expect(d.core.gaps.isWaiting, "a refused lap changes nothing")
        })
        #expect(splits(d).map(\.trigger) == [.manual, .final])
    }

    @Test func aPauseMeanwhileCutsTheLapBeforeThePhaseChanges() throws {
        let d = try run(between: { d in
            try d.core.lap(at: 100.5, wallClock: .nan, events: &d.events)
            try d.phase(.pause, 100.7)
        }, after: { d in
            try d.phase(.resume, 131)
            try d.phase(.stop, 132)
        })
        let kinds = d.events.compactMap { e -> String? in
            switch e.body {
            case .split(let l): "split \(l.trigger) \(l.endT)"
            case .phase(_, let to, _): "phase \(to)"
            default: nil
            }
        }
        #expect(kinds.prefix(3) == ["phase cruise", "split manual 100.5", "phase holding"], "\(kinds)")
        #expect(abs(splits(d).reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
    }
}
