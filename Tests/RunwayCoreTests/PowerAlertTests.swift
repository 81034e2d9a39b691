import Testing
@testable import RunwayCore

/// `target_power`: GPWS_POWER_LOW and GPWS_POWER_HIGH, judged on the current (3 s) power at each
/// power sample in cruise, with the pace alert's hold and re-arm rules.
@Suite("Power alerts")
struct PowerAlertTests {
    typealias Settings = AlertMonitor.Settings
    static let band = Settings(targetPowerMin: 200, targetPowerMax: 300)

    /// 1 Hz judgements of `watts` over `range`; the alerts they raise.
    static func feed(_ m: inout AlertMonitor, _ range: ClosedRange<Int>, _ watts: Double) -> [AlertMonitor.Alert] {
        range.compactMap { m.updatePower(t: Double($0), powerW: watts) }
    }

    /// Below the band from 10 s: nothing at 14 s (held 4 s), GPWS_POWER_LOW at 15 s (held 5 s),
    /// with its values; not again while it stays low; once back in the band, a new excursion
    /// fires again. The other side likewise.
    @Test func lowPowerFiresOnceAfterFiveSeconds() throws {
        var m = AlertMonitor(settings: Self.band)
        #expect(Self.feed(&m, 0...9, 250).isEmpty)
        #expect(Self.feed(&m, 10...14, 150).isEmpty, "10…14: held 4 s")
        let at15 = m.updatePower(t: 15, powerW: 150)
        let fired = try #require(at15)
        #expect(fired.code == "GPWS_POWER_LOW" && fired.t == 15)
        #expect(fired.values == ["power_w": 150, "target_min_w": 200, "held_s": 5])
        #expect(fired.message == "GPWS: TOO LOW — power 150 W, below target 200 W")
        #expect(Self.feed(&m, 16...60, 150).isEmpty, "not again while still low")
        #expect(Self.feed(&m, 61...62, 250).isEmpty)
        #expect(Self.feed(&m, 63...68, 150).map { $0.t } == [68], "re-armed in the band")
        let high = Self.feed(&m, 69...80, 320)
        #expect(high.map { $0.code } == ["GPWS_POWER_HIGH"] && high.first?.t == 74)
        #expect(high.first?.values == ["power_w": 320, "target_max_w": 300, "held_s": 5])
        #expect(high.first?.message == "GPWS: OVERTORQUE — power 320 W, above target 300 W")
    }

    /// A 4 s excursion (judgements at 0…4 s outside, 5 s back in) fires nothing; coasting at
    /// 0 W is low power like any other; a power on the band's edge is inside it.
    @Test func aFourSecondExcursionAndTheBandsEdges() {
        var m = AlertMonitor(settings: Self.band)
        #expect(Self.feed(&m, 0...4, 100).isEmpty)
        #expect(Self.feed(&m, 5...20, 200).isEmpty, "200 W is in the band")
        #expect(Self.feed(&m, 21...30, 300).isEmpty, "300 W too")
        #expect(Self.feed(&m, 31...36, 0).map { $0.t } == [36], "0 W (coasting) is low")
    }

    /// A dropout is not low power: low at 0…3 s, no sample until 10 s (more than a sample holds,
    /// 5 s), low again from there: the hold starts over at 10 s, so the alert comes at 15 s with
    /// held 5 s, not at 10 s with the dropout counted. A NaN power judges nothing.
    @Test func aDropoutEndsTheHold() {
        var m = AlertMonitor(settings: Self.band)
        #expect(Self.feed(&m, 0...3, 100).isEmpty)
        let unknown = m.updatePower(t: 8, powerW: .nan)
        #expect(unknown == nil)
        let fired = Self.feed(&m, 10...20, 100)
        #expect(fired.map { $0.t } == [15] && fired.first?.values["held_s"] == 5)
        // Gaps of a sample's hold or less (a 0.2 Hz meter) do not end it.
        var slow = AlertMonitor(settings: Self.band)
        let slowFired = [0.0, 5, 10].compactMap { slow.updatePower(t: $0, powerW: 100) }
        #expect(slowFired.map { $0.t } == [5])
    }

    /// Without a band the monitor judges nothing and the composer skips it; either side alone works.
    @Test func aBandOnEitherSideOrNone() {
        #expect(!AlertMonitor(settings: Settings()).watchesPower)
        var none = AlertMonitor(settings: Settings(hrCeiling: 170))
        #expect(none.isWatching && !none.watchesPower)
        #expect(Self.feed(&none, 0...20, 0).isEmpty)
        var onlyMax = AlertMonitor(settings: Settings(targetPowerMax: 300))
        #expect(onlyMax.watchesPower && !onlyMax.isWatching)
        #expect(Self.feed(&onlyMax, 0...20, 0).isEmpty)
        #expect(Self.feed(&onlyMax, 21...26, 400).count == 1)
        #expect(Settings(targetPowerMin: 200) != Settings(targetPowerMin: 210))
        #expect(Settings(targetPowerMin: 200) == Settings(targetPowerMin: 200))
    }
}

/// The power alerts in a flight: a ride with fixes and power samples at 1 Hz.
@Suite("Power alerts in a flight")
struct FlightPowerAlertTests {
    static func ride() -> Driver {
        var c = EngineConfig(activity: .ride)
        c.autoPause.enabled = false
        c.alerts.targetPowerMin = 200
        c.alerts.targetPowerMax = 300
        return Driver(c)
    }

    /// Seconds `range` of a ride at 8 m/s due north, a fix and then a power sample each second
    /// (`watts(t)`; nil: none that second, a dropout).
    static func ride(_ d: inout Driver, _ range: ClosedRange<Int>, watts: (Int) -> Double?) throws {
        for i in range {
            let t = Double(i)
            try d.fix(t, 52 + degreesNorth(8 * t), 4, speed: 8, hAcc: 4)
            if let w = watts(i) { try d.json(#"{"type":"power","watts":\#(w),"t":\#(t)}"#) }
        }
    }

    static func alerts(_ d: Driver) -> [AlertMonitor.Alert] {
        d.events.compactMap { if case .alert(let a) = $0.body { return a } else { return nil } }
    }

    /// The judged power is the snapshot's `power_w`: 250 W, then 100 W for `n` samples (from
    /// 30 s), then 250 W. The 3 s mean is below 200 W from the second low sample to the last
    /// low one's successor, n − 1 seconds apart: six low samples hold it out 5 s and fire once,
    /// at the judgement 5 s into it, on the power the snapshot then shows;
    /// five hold it 4 s and fire nothing.
    @Test(arguments: [5, 6, 20]) func anExcursionFiresOnceWhenItLastsFiveSeconds(n: Int) throws {
        var d = Self.ride()
        try d.phase(.start, 0)
        var below: [Double] = [], shown: [Double: Double] = [:]
        for i in 0...80 {
            let t = Double(i)
            try d.fix(t, 52 + degreesNorth(8 * t), 4, speed: 8, hAcc: 4)
            try d.json(#"{"type":"power","watts":\#((30..<30 + n).contains(i) ? 100 : 250),"t":\#(t)}"#)
            shown[t] = d.snapshot.metrics.figure("power_w")
            if d.snapshot.metrics.figure("power_w") < 200 { below.append(t) }
        }
        let span = (below.last ?? 0) - (below.first ?? 0)
        #expect(span == Double(n - 1), "power_w below 200 W at \(below)")
        let fired = Self.alerts(d)
        if span >= 5 {
            #expect(fired.map { $0.code } == ["GPWS_POWER_LOW"], "\(fired)")
            #expect(fired.first?.t == below[0] + 5 && fired.first?.values["held_s"] == 5)
            #expect(fired.first.map { $0.values["power_w"] == shown[$0.t] } == true, "\(fired), \(shown)")
        } else {
            #expect(fired.isEmpty, "\(fired)")
        }
    }

    /// Nothing while paused, however long the power is low; the hold starts over at the resume
    /// (time held in the pause does not count). Nothing in a dropout: the fixes go on, no power
    /// sample comes, the 3 s power is unknown and nothing is judged.
    @Test func nothingWhilePausedOrInADropout() throws {
        var d = Self.ride()
        try d.phase(.start, 0)
        try Self.ride(&d, 0...20) { _ in 250 }
        try d.phase(.pause, 20.5)
        try Self.ride(&d, 21...60) { _ in 50 }
        #expect(Self.alerts(d).isEmpty, "paused")
        try d.phase(.resume, 60.5)
        try Self.ride(&d, 61...64) { _ in 50 }
        #expect(Self.alerts(d).isEmpty, "61…64 s: held 3 s since the resume")
        try Self.ride(&d, 65...70) { _ in 50 }
        #expect(Self.alerts(d).map { $0.t } == [66])
        // Back in the band, then a dropout of 30 s with the fixes going on.
        try Self.ride(&d, 71...80) { _ in 250 }
        try Self.ride(&d, 81...110) { _ in nil }
        try Self.ride(&d, 111...120) { _ in 250 }
        #expect(Self.alerts(d).count == 1, "\(Self.alerts(d))")
        #expect(d.snapshot.metrics.figure("power_w") == 250)
    }

    /// A bad `target_power` is refused with its own message; a good one sets the band.
    @Test func aBadTargetPowerIsRefused() throws {
        let message = #"config: "target_power" must be {"min":W,"max":W} in watts with 0 <= min <= max <= 5000, max > 0"#
        for bad in [#"{"min":300,"max":200}"#, #"{"min":-1,"max":200}"#, #"{"min":0,"max":0}"#, #"{"min":100,"max":6000}"#,
                    #"{"min":100}"#, #"{"max":100}"#, #"{"min":"100","max":200}"#, #"[100,200]"#, #"250"#] {
            #expect(throws: RunwayError.argument(message), "\(bad)") { try EngineConfig.parse(#"{"target_power":\#(bad)}"#) }
        }
        #expect(throws: RunwayError.argument(#"config: unknown key "avg" in "target_power" (expected min and max)"#)) {
            try EngineConfig.parse(#"{"target_power":{"min":100,"max":200,"avg":150}}"#)
        }
        let c = try EngineConfig.parse(#"{"activity":"ride","target_power":{"min":0,"max":280.5}}"#)
        #expect(c.alerts.targetPowerMin == 0 && c.alerts.targetPowerMax == 280.5)
        #expect(try EngineConfig.parse(#"{"target_power":{"min":200,"max":200}}"#).alerts.targetPowerMax == 200)
    }
}
