import Testing
@testable import RunwayCore

@Suite("RunningCenter actor")
struct RunningCenterTests {
    @Test func eachStreamIsIndependentAndCancellingOneLeavesTheOtherRunning() async throws {
        let center = RunningCenter(config: try EngineConfig.parse(#"{"distance_filter_m":0,"filters":"off"}"#))
        let a = await center.stream()
        let b = await center.stream()
        #expect(await center.streamCount == 2)

        let readerA = Task { () -> Int in
            var n = 0
            for await _ in a { n += 1; if n == 1 { break } }   // A stops after one snapshot
            return n
        }
        let readerB = Task { () -> Double in
            var last = 0.0
            for await data in b {
                last = data.distanceM
                if data.phase == .touchdown { break }
            }
            return last
        }
        try await center.updatePhase(.start, at: 0)
        #expect(await readerA.value == 1)
        for i in 1...20 {
            try await center.process(.fix(Fix(t: Double(i), lat: 52 + degreesNorth(3 * Double(i)), lon: 4)))
            await Task.yield()
        }
        try await center.updatePhase(.stop, at: 21)
        let distance = await readerB.value
        #expect(abs(distance - 57) < 1)
        #expect(await center.phase == .touchdown)
    }

    @Test func badInputThrowsAndChangesNothing() async throws {
        let center = RunningCenter()
        try await center.updatePhase(.start, at: 10)
        await #expect(throws: RunwayError.self) {
            try await center.process(.fix(Fix(t: 5, lat: 52, lon: 4)))
        }
        await #expect(throws: RunwayError.self) {
            try await center.process(.fix(Fix(t: 20, lat: 95, lon: 4)))
        }
        #expect(await center.snapshot.fixes == 0)
        await #expect(throws: RunwayError.self) { try await center.updatePhase(.resume, at: 30) }
        #expect(await center.phase == .cruise)
    }
}

@Suite("RunningCenter events")
struct RunningCenterEventTests {
    /// A Swift caller sees every event kind, not only snapshots: phases, splits and alerts
    /// arrive on an events stream, in seq order, and a second stream of other kinds is independent.
    @Test func aSwiftCallerGetsPhaseSplitAndAlertEvents() async throws {
        let center = RunningCenter(config: try EngineConfig.parse(#"{"distance_filter_m":0,"filters":"off","auto_lap_m":100,"goal_m":250}"#))
        let discrete = await center.events([.phase, .split, .alert])
        let logs = await center.events([.log])
        try await center.updatePhase(.start, at: 0)
        for i in 1...100 {
            try await center.process(.fix(Fix(t: Double(i), lat: 52 + degreesNorth(3 * Double(i)), lon: 4)))
        }
        try await center.lap(at: 100.5)
        try await center.updatePhase(.stop, at: 101)
        await center.finish()
        var kinds: [EventKind] = [], seqs: [UInt64] = []
        for await e in discrete { kinds.append(e.kind); seqs.append(e.seq) }
        #expect(kinds.first == .phase && kinds.filter { $0 == .phase }.count == 2)
        #expect(kinds.last == .split)                      // the final lap, cut at touchdown
        #expect(kinds.filter { $0 == .split }.count == 4)   // 100, 200 m auto laps, the manual lap, the last
        #expect(kinds.contains(.alert))                     // the 250 m goal
        #expect(!kinds.contains(.log) && !kinds.contains(.flight))
        #expect(seqs == seqs.sorted())
        var logCount = 0
        for await e in logs { #expect(e.kind == .log); logCount += 1 }
        #expect(logCount >= 2)   // a log line for each phase change
    }

    @Test func cancellingAnEventStreamEndsOnlyIt() async throws {
        let center = RunningCenter()
        let a = await center.events()
        let b = await center.events([.phase])
        #expect(await center.streamCount == 2)
        let readerA = Task { () -> Int in
            var n = 0
            for await _ in a { n += 1; break }
            return n
        }
        try await center.updatePhase(.start, at: 0)
        #expect(await readerA.value == 1)
        try await center.updatePhase(.stop, at: 10)
        await center.finish()
        var phases = 0
        for await _ in b { phases += 1 }
        #expect(phases == 2)
    }
}
