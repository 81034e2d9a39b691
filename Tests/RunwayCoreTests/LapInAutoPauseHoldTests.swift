import Testing
@testable import RunwayCore

/// A manual lap cut while auto-pause's slow hold runs, then a step in the hold that counts, then
/// the pause, backdated: it never reaches before that lap began (the laps before it went out
/// with their time), nor before the hold's last moving step since, whose metres the lap keeps
/// with their time (`AutoPauseStage.update`).
@Suite("A lap cut in an auto-pause's slow hold")
struct LapInAutoPauseHoldTests {
    /// Random flight 4293 (of the fuzz's 7000; the default run flies 500): a ride with a 40 m
    /// distance filter slows to a stop at 54-55 s, a manual lap at 55.5 s is cut by the fix at
    /// 56 s, the fix of 58 s (no Doppler) counts a 0.6 m step and decides the pause, from the
    /// slow hold's start, clamped to the lap's: lap 2 read 0.6 m in 0 s (0.0 min/km). Now the
    /// pause takes effect after that step, and every invariant holds.
    @Test func theLapKeepsTheTimeOfItsMetres() {
        let problems = RandomFlight.problems(seed: 4293)
        #expect(problems.isEmpty, "\(problems)")
    }
}
