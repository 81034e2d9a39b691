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
