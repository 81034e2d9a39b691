import Testing
import RunwaySim
@testable import RunwayCore

/// Steps longer than `TrackFilter.Settings.longStepS` (5 s) without a Doppler speed.
@Suite("Long steps without Doppler")
struct LongStepTests {
    /// Issue #19's receiver standing (positions only), its fixes out for 27 s (under `gap_s`:
    /// one step), two fixes after it, and the flight stopped: under 5 m and 10 s of moving time,
    /// every profile, auto-pause off and on, tuning and held-back trials, three places in the
    /// stand. The step from a filter that stood counts no further than its fixes moved: the
    /// filter's speed after it is the step's own chord speed and the velocity correction's
    /// overshoot (receiver flight 1987: 29.5 m counted for a 7 m chord, which the stop credited
    /// as a set-off's, with 28 s of moving time).
    @Test(arguments: Activity.allCases, [false, true])
    func aStandingReceiversLongStepCountsNoFurtherThanItsFixesMoved(activity: Activity, autoPause: Bool) throws {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = autoPause
        for trial in StandingStillTests.trials {
            let run = StandingStillTests.honest(trial, motion: StandingStillTests.motion(activity), doppler: false) { $0.standStillBeforeS = 600 }
            guard let t0 = run.fixes.first?.t else { continue }
            for out in [200.0, 350, 500] {
                let r = try Replay(run, config: config) { f in f.t - t0 < out || (f.t - t0 >= out + 27 && f.t - t0 < out + 29) }
                #expect(r.distance < 5, "\(activity), auto-pause \(autoPause), \(trial), out at \(out) s: \(r.distance) m standing")
                #expect(r.core.movingS < 10, "\(activity), auto-pause \(autoPause), \(trial), out at \(out) s: \(r.core.movingS) s moving")
            }
        }
    }
}
