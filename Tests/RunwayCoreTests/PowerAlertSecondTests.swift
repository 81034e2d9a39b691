import Testing
@testable import RunwayCore

/// The power alerts judge a sample once its second is over (`FlightComputer.judgePower`): not at
/// a tick inside it, and at a stop at its very time (review h101).
@Suite("A power sample is judged once its second is over")
struct PowerAlertSecondTests {
    /// `PowerAlertAtAStopTests`'s stop ride (8 m/s, standing 100–130 s: the slow hold begins at
    /// the fix of 100 s; 0 W from `dropAt`), with the host's tick half a second after each second
    /// (`runway_tick`, or the live clock's ticker): a tick does not bound the inputs' times
    /// (`FlightClock.inputFloor`), so the second's other input may still come after it. The same
    /// inputs and ticks, two orders: the power sample, the tick, then the fix of the same second
    /// (a phone whose location batch comes after the host's tick); or the fix, the sample, the tick.
    /// (The ride's north: 8 m a second ridden, none while standing.)
    static func alerts(powerBeforeTick: Bool, dropAt: Int) throws -> [String] {
        var d = try PowerAlertAtAStopTests.startedRide()
        for i in 0...160 {
            let v = i < 100 || i >= 130 ? 8.0 : 0, at = Double(i)
            let north = 8 * Double(min(i, 99) + 1 + max(0, i - 129)), w = i < dropAt || i >= 130 ? 250 : 0
            // (0: the power sample, 1: the tick half a second later, 2: the fix of the same second.)
            for input in powerBeforeTick ? [0, 1, 2] : [2, 0, 1] {
                switch input {
                case 0: try d.json("{\"type\":\"power\",\"watts\":\(w),\"t\":\(at)}")
                case 1: try d.core.tick(at: at + 0.5, wallClock: .nan, events: &d.events)
                default: try d.fix(at, 31.2 + degreesNorth(north), 121.5, speed: v, hAcc: 4)
                }
            }
        }
        return PowerAlertAtAStopTests.alerts(of: d)
    }

    /// Judged at the tick, the sample of the first slow second was judged before that second's
    /// fix began the slow hold when it came before the tick, after it otherwise: the alert hung
    /// on the order of the second's inputs. A tick does not end the second.
    @Test(arguments: Array(95...99))
    func aTickInsideTheSecondLeavesThePowerAlertsAsTheyWere(dropAt: Int) throws {
        let early = try Self.alerts(powerBeforeTick: true, dropAt: dropAt)
        let late = try Self.alerts(powerBeforeTick: false, dropAt: dropAt)
        #expect(early == late, "drop at \(dropAt) s: power, tick, fix: \(early); fix, power, tick: \(late)")
    }

    /// A ride at 8 m/s (the ride profile, `target_power` 200–400 W) at 150 W from its start, a
    /// fix and a power sample each second from 0 s to `lastS`, then the stop at `stopAt` (NaN:
    /// now, the last input's time, as `RecordingAnalysis` and a recovered flight's finish stop).
    static func lowPowerRide(lastS: Int, stopAt: Double) throws -> [String] {
        var d = try PowerAlertAtAStopTests.startedRide()
        for i in 0...lastS {
            try d.fix(Double(i), 31.2 + degreesNorth(8 * Double(i)), 121.5, speed: 8, hAcc: 4)
            try d.json("{\"type\":\"power\",\"watts\":150,\"t\":\(i)}")
        }
        try d.phase(.stop, stopAt)
        return PowerAlertAtAStopTests.alerts(of: d)
    }

    /// The sample of the stop's own second is judged at the stop: nothing can come after it. A
    /// rider 5 s under the band at the end of the recording gets GPWS_POWER_LOW whether the stop
    /// is half a second later or at the last line's time (every analysed recording's stop); judged
    /// only at an input or command after its second, the sample at the stop's time never was.
    @Test func theLastSampleIsJudgedWhenTheStopComesAtItsTime() throws {
        let later = try Self.lowPowerRide(lastS: 5, stopAt: 5.5)
        let atIt = try Self.lowPowerRide(lastS: 5, stopAt: .nan)
        #expect(later == ["GPWS_POWER_LOW at 5.0 held 5.0"], "stop at 5.5 s: \(later)")
        #expect(atIt == later, "stop at the last sample's time: \(atIt); half a second later: \(later)")
    }
}
