import Testing
@testable import RunwayCore

/// The live pace a phone shows: from a leg's first fix when the fixes carry a Doppler speed, and
/// unknown once the receiver has gone quiet.
@Suite("The live pace: Doppler from a leg's first fix, nothing past the last fix")
struct LivePaceTests {
    /// A runner at 3 m/s north at 52° N, a fix a second with Doppler speed 3.0 and no course (iOS
    /// course -1, Android without a bearing): after the start, a 10 min suspension (a gap) and an
    /// auto-paused traffic light, the pace is 5:33 from the first fix the window holds. It read
    /// 16:38, 8:19, 6:39, 6:06 after the start and the gap, and 9:48, 8:22, 7:25, 6:45 after the
    /// light: the track filter's speed, which without a course warms up from a standstill.
    @Test(arguments: [Double.nan, 0])
    func withDopplerThePaceIsTheRunnersFromTheLegsFirstFix(_ course: Double) throws {
        var c = EngineConfig()
        c.autoPause.enabled = true
        var d = Driver(c)
        try d.phase(.start, 0)
        var north = 0.0, shown: [(t: Double, mps: Double)] = []
        func run(_ seconds: ClosedRange<Int>, _ speed: Double, _ d: inout Driver) throws {
            for s in seconds {
                north += speed
                try d.fix(Double(s), 52 + degreesNorth(north), 4, speed: speed, course: course, hAcc: 5)
                if d.snapshot.phase == .cruise && speed > 0 { shown.append((Double(s), d.snapshot.groundSpeedMps)) }
            }
        }
        try run(1...40, 3, &d)
        north += 3 * 600                                                   // suspended: a gap
        try run(641...680, 3, &d)
        try run(681...710, 0, &d)                                          // a traffic light: auto-paused
        #expect(d.snapshot.phase == .holding)
        try run(711...760, 3, &d)
        #expect(d.snapshot.phase == .cruise)
        // Every fix in cruise that the window holds shows 3 m/s: the leg's first (t 1), the one
        // after the gap's (its first waits to be borne out, t 641), the one after the resume's
        // (the resume fix itself is decided while held: it shows the speed that resumed).
        let known = shown.filter { !$0.mps.isNaN && $0.mps != 0 }
        for (t, mps) in known { #expect(abs(mps - 3) < 1e-6, "t \(t): \(mps) m/s") }
        #expect(known.first?.t == 1)
        #expect(known.contains { $0.t == 642 })
        let resumed = try #require(shown.first { $0.t > 711 })             // the resume fix: its own speed
        #expect(abs(resumed.mps - 3) < 1e-6, "t \(resumed.t): \(resumed.mps) m/s")
        let after = shown.filter { $0.t > resumed.t }
        #expect(after.count == 760 - Int(resumed.t) && after.allSatisfy { abs($0.mps - 3) < 1e-6 })
    }

    /// 60 s of fixes, then the clock ticks for 600 s with none (the phone in a tunnel, the
    /// receiver lost): the snapshot said pace 5:33, ground and Doppler speed 3.0 and accuracy
    /// "ok" to the end, with the distance frozen. Once the latest fix is older than the pace
    /// window (10 s) the speeds and pace are unknown and the accuracy too; `last_fix_t` says
    /// when the position was measured.
    @Test func noFixForLongerThanThePaceWindowLeavesThePaceUnknown() throws {
        var d = Driver()
        try d.phase(.start, 0)
        for s in 1...60 { try d.fix(Double(s), 52 + degreesNorth(3 * Double(s)), 4, speed: 3, hAcc: 5) }
        try d.core.tick(at: 70, wallClock: .nan, events: &d.events)
        var json = d.snapshotJSON
        #expect(abs((jsonNumber(json, "ground_speed_mps") ?? 0) - 3) < 1e-6)   // the window's 10 s: still spoken for
        #expect(jsonNumber(json, "speed_mps") == 3 && jsonValue(json, "accuracy") == "\"ok\"")
        #expect(jsonNumber(json, "last_fix_t") == 60)
        for s in 71...660 { try d.core.tick(at: Double(s), wallClock: .nan, events: &d.events) }
        json = d.snapshotJSON
        #expect(jsonNumber(json, "t") == 660 && jsonNumber(json, "last_fix_t") == 60)
        for key in ["ground_speed_mps", "speed_mps", "pace_min_per_km"] {
            #expect(jsonValue(json, key) == "null", "\(key) is \(jsonValue(json, key) ?? "missing")")
        }
        #expect(jsonValue(json, "accuracy") == "\"unknown\"")
        #expect(jsonValue(jsonValue(json, "pfd") ?? "", "pace") == "\"--:--\"")
        #expect(jsonNumber(json, "lat") == 52 + degreesNorth(180))             // where it was last, with its time
        // The next fix measures again (a gap: the window starts over, Doppler from its next fix).
        try d.fix(661, 52 + degreesNorth(180 + 3 * 601), 4, speed: 3, hAcc: 5)
        try d.fix(662, 52 + degreesNorth(180 + 3 * 602), 4, speed: 3, hAcc: 5)
        json = d.snapshotJSON
        #expect(jsonNumber(json, "last_fix_t") == 662 && jsonValue(json, "accuracy") == "\"ok\"")
        #expect(abs((jsonNumber(json, "ground_speed_mps") ?? 0) - 3) < 1e-6)
    }

    /// A recorder slower than the window (a fix every 15 s, the window 10 s) has its pace over
    /// its last step: between its fixes the clock's ticks keep it, as they keep the position's
    /// accuracy; past a step's length with no fix it is unknown.
    @Test func aSlowRecordersPaceHoldsForItsStep() throws {
        var d = Driver()
        try d.phase(.start, 0)
        for k in 0...20 { try d.fix(Double(15 * k), 52 + degreesNorth(45 * Double(k)), 4, speed: 3, hAcc: 5) }
        try d.core.tick(at: 314, wallClock: .nan, events: &d.events)
        #expect(abs(d.snapshot.groundSpeedMps - 3) < 0.01 && d.snapshot.accuracy == .ok)
        try d.core.tick(at: 316, wallClock: .nan, events: &d.events)
        #expect(d.snapshot.groundSpeedMps.isNaN && d.snapshot.speedMps.isNaN && d.snapshot.accuracy == .unknown)
    }
}
