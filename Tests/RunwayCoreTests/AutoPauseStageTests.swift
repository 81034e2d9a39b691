import Testing
@testable import RunwayCore

@Suite("AutoPauseStage: pauses, resumes, held steps and gaps")
struct AutoPauseStageTests {
    private let settings = AutoPause.Settings(enabled: true, pauseBelowMps: 0.5, resumeAboveMps: 1, holdS: 4)

    private var cruising: PhaseMachine {
        var p = PhaseMachine()
        _ = p.change(to: .cruise, by: nil)
        return p
    }
    private var autoHeld: PhaseMachine {
        var p = cruising
        _ = p.change(to: .holding, by: .auto)
        return p
    }

    private func credit(at: Double, fromT: Double, d: Double = 300, speed: Double, doppler: Double = .nan,
                        held: Bool, pausedFrom: Double? = nil) -> GapCredit {
        GapCredit(distanceM: d, at: at, fromT: fromT, lastT: fromT, speedAcrossMps: speed, confirmingDopplerMps: doppler,
                  held: held, pausedFrom: pausedFrom)
    }

    /// A stage auto-paused from `from` (slow samples from `from` on, with the leg begun at 0).
    private func paused(from: Double) -> AutoPauseStage {
        var stage = AutoPauseStage(settings: settings)
        _ = stage.update(speedMps: 0.1, at: from, phases: cruising, cruiseSince: 0, waiting: nil)
        let d = stage.update(speedMps: 0.1, at: from + 4, phases: cruising, cruiseSince: 0, waiting: nil)
        #expect(d == .pause(from: from, withdrawMovingS: 0))
        return stage
    }

    /// The track filter doubted the zeros that paused (`doubted`): a pause that took effect
    /// within the doubted stretch is undone at once (moving since the pause, the moving time it
    /// withdrew within that, with the shortfall); one before the stretch's movement (a stop the
    /// rider set off from with the speed still out) resumes where the movement began; a slow
    /// hold still in doubt does not complete.
    @Test func aPauseOnZerosTheFilterDoubtedIsUndone() {
        var stage = AutoPauseStage(settings: settings)
        _ = stage.update(speedMps: 0.1, at: 10, phases: cruising, cruiseSince: 0, waiting: nil)
        stage.cruised(movingS: 1, at: 11)
        #expect(stage.update(speedMps: 0.1, at: 14, phases: cruising, cruiseSince: 0, waiting: nil, standingInDoubt: true) == .none)
        #expect(stage.update(speedMps: 0.1, at: 15, phases: cruising, cruiseSince: 0, waiting: nil) == .pause(from: 10, withdrawMovingS: 1))
        stage.hold(Step(distanceM: 2, moving: true), at: 16, dt: 1)
        #expect(stage.doubted(from: 9, shortfallM: 40, at: 16, phases: autoHeld)
                == .resume(since: 10, held: [HeldCredit(distanceM: 42, movingS: 6)]))

        var stop = paused(from: 10)
        stop.hold(Step(distanceM: 3, moving: true), at: 80, dt: 1)
        #expect(stop.doubted(from: 70, shortfallM: 50, at: 80, phases: autoHeld)
                == .resume(since: 70, held: [HeldCredit(distanceM: 53, movingS: 10)]))
        var cruise = paused(from: 10), never = AutoPauseStage(settings: settings)
        #expect(cruise.doubted(from: 70, shortfallM: 50, at: 80, phases: cruising) == .none)
        #expect(never.doubted(from: 70, shortfallM: 50, at: 80, phases: autoHeld) == .none)
    }

    @Test func aPauseIsBackdatedToTheFirstSlowSample() {
        var stage = AutoPauseStage(settings: settings)
        #expect(stage.update(speedMps: 3, at: 5, phases: cruising, cruiseSince: 0, waiting: nil) == .none)
        #expect(stage.update(speedMps: 0.1, at: 10, phases: cruising, cruiseSince: 0, waiting: nil) == .none)
        #expect(stage.update(speedMps: 0.2, at: 12, phases: cruising, cruiseSince: 0, waiting: nil) == .none)
        #expect(stage.update(speedMps: 0.1, at: 14, phases: cruising, cruiseSince: 0, waiting: nil) == .pause(from: 10, withdrawMovingS: 0))
    }

    @Test func aPauseIsNeverBackdatedBeforeTheLegBegan() {
        var stage = AutoPauseStage(settings: settings)
        _ = stage.update(speedMps: 0.1, at: 10, phases: cruising, cruiseSince: 0, waiting: nil)
        #expect(stage.update(speedMps: 0.1, at: 14, phases: cruising, cruiseSince: 12, waiting: nil) == .pause(from: 12, withdrawMovingS: 0))
    }

    @Test func aPauseIsNotBackdatedAcrossAGapCrossedMoving() {
        var stage = AutoPauseStage(settings: settings)
        _ = stage.update(speedMps: 0.1, at: 10, phases: cruising, cruiseSince: 0, waiting: nil)
        #expect(stage.crossed(credit(at: 12, fromT: 11, speed: 3, held: false), autoHeld: false) == nil)
        #expect(stage.update(speedMps: 0.1, at: 14, phases: cruising, cruiseSince: 0, waiting: nil) == .pause(from: 12, withdrawMovingS: 0))
    }

    @Test func aGapCrossedStandingDoesNotMoveThePause() {
        var stage = AutoPauseStage(settings: settings)
        _ = stage.update(speedMps: 0.1, at: 10, phases: cruising, cruiseSince: 0, waiting: nil)
        _ = stage.crossed(credit(at: 12, fromT: 11, speed: 0.2, held: false), autoHeld: false)
        _ = stage.crossed(credit(at: 13, fromT: 12, speed: .nan, held: false), autoHeld: false)   // unconfirmed
        #expect(stage.update(speedMps: 0.1, at: 14, phases: cruising, cruiseSince: 0, waiting: nil) == .pause(from: 10, withdrawMovingS: 0))
    }

    @Test func aGapCrossedStandingStartsTheSlowHoldAtItsBeginning() {
        var stage = AutoPauseStage(settings: settings)
        #expect(stage.update(speedMps: 8, at: 60, phases: cruising, cruiseSince: 0, waiting: nil) == .none)
        let sample = stage.crossedStanding(credit(at: 1260, fromT: 60, d: 1, speed: 0.001, held: false), legSince: 0)
        #expect(sample == 0.001)
        #expect(stage.update(speedMps: sample ?? .nan, at: 1260, phases: cruising, cruiseSince: 0, waiting: nil) == .pause(from: 60, withdrawMovingS: 0))
    }

    @Test func onlyTheGapsTimeInTheCurrentLegIsAStandingSample() {
        // The leg began at 1258 (a resume): 2 s of the gap are cruise, under the 3 s hold, no
        // sample; began at 1200, the slow hold starts there, not at the gap's beginning.
        var stage = AutoPauseStage(settings: settings)
        #expect(stage.crossedStanding(credit(at: 1260, fromT: 60, d: 1, speed: 0.001, held: false), legSince: 1258) == nil)
        #expect(stage.machine.slowSince == nil)
        let sample = stage.crossedStanding(credit(at: 1260, fromT: 60, d: 1, speed: 0.001, held: false), legSince: 1200)
        #expect(sample == 0.001 && stage.machine.slowSince == 1200)
        // A gap wholly in the leg is a sample however short (a gap_s under the hold).
        var short = AutoPauseStage(settings: settings)
        #expect(short.crossedStanding(credit(at: 62, fromT: 60, d: 0, speed: 0, held: false), legSince: 0) == 0)
        #expect(short.machine.slowSince == 60)
    }

    @Test func aGapCrossedMovingOrUnmeasuredOrWithAutoPauseOffStartsNoSlowHold() {
        var stage = AutoPauseStage(settings: settings)
        #expect(stage.crossedStanding(credit(at: 1260, fromT: 60, speed: .nan, held: false), legSince: 0) == nil)   // unconfirmed
        #expect(stage.crossedStanding(credit(at: 1260, fromT: 60, speed: 0.5, held: false), legSince: 0) == nil)    // not below 0.5
        #expect(stage.machine.slowSince == nil)
        var off = settings
        off.enabled = false
        var disabled = AutoPauseStage(settings: off)
        #expect(disabled.crossedStanding(credit(at: 1260, fromT: 60, speed: 0, held: false), legSince: 0) == nil)
        #expect(disabled.machine.slowSince == nil)
    }

    @Test func aPauseBackdatedBeforeAGapCrossedMovingMovesToTheGapsEnd() {
        var stage = paused(from: 10)
        let moved = stage.crossed(credit(at: 30, fromT: 8, speed: 3, held: false, pausedFrom: 10), autoHeld: true)
        #expect(moved == 10)                                             // the composer credits 10...30 as cruise
        #expect(stage.crossed(credit(at: 40, fromT: 35, speed: 3, held: false, pausedFrom: 10), autoHeld: false) == nil)
    }

    @Test func aResumeCreditsOnlyTheHeldStepsAfterTheFastHoldsStart() {
        var stage = paused(from: 10)
        var decision = PauseDecision.none
        // A fix a second: standing until 24, moving from 24 (fast since 24).
        for s in 15...28 {
            let t = Double(s)
            stage.hold(Step(distanceM: s < 24 ? 0.3 : 3, moving: s >= 24), at: t, dt: 1)
            decision = stage.update(speedMps: s < 24 ? 0.1 : 2, at: t, phases: autoHeld, cruiseSince: .nan, waiting: nil)
            if s < 28 { #expect(decision == .none) }
        }
        let step = HeldCredit(distanceM: 3, movingS: 1)
        #expect(decision == .resume(since: 24, held: [step, step, step, step]))   // 25, 26, 27, 28
        #expect(stage.heldCount == 0)
    }

    /// The fast hold judged on a filtered speed lags the set-off: the held steps just before it
    /// whose fixes moved faster than the resume's threshold (and that the filter moved) are the
    /// set-off's: the resume begins with the first of them. A step whose fixes crept slower, or
    /// that the filter did not move, ends them.
    @Test func aResumeBeginsWithTheSetOffItsFastHoldLagged() {
        // Threshold 1 m/s, hold 4 s; fixes a second: standing to 20, creeping 0.5 m/s at 21, then
        // 3 m/s from 22 while the filtered speed passes the threshold only at 25.
        func fly(creepAt21: Bool, filterMovedAt22: Bool) -> PauseDecision {
            var stage = paused(from: 10)
            var decision = PauseDecision.none
            var north = 0.0
            for s in 15...29 {
                let t = Double(s)
                let fixesM = s <= 20 ? 0.3 : s == 21 ? (creepAt21 ? 0.5 : 3) : 3
                let moved = s >= 21 && (s != 22 || filterMovedAt22)
                let from = Coordinate(lat: 52 + degreesNorth(north), lon: 4)
                north += fixesM
                stage.hold(Step(distanceM: moved ? 2.5 : 0, moving: moved), at: t, dt: 1, from: from, to: Coordinate(lat: 52 + degreesNorth(north), lon: 4))
                decision = stage.update(speedMps: s < 25 ? 0.5 : 2, at: t, phases: autoHeld, cruiseSince: .nan, waiting: nil)
                if s < 29 { #expect(decision == .none) }
            }
            return decision
        }
        let step = HeldCredit(distanceM: 2.5, movingS: 1)
        #expect(fly(creepAt21: true, filterMovedAt22: true) == .resume(since: 21, held: Array(repeating: step, count: 8)))   // 22 ... 29
        #expect(fly(creepAt21: false, filterMovedAt22: true) == .resume(since: 20, held: Array(repeating: step, count: 9)))  // 21 ... 29
        #expect(fly(creepAt21: false, filterMovedAt22: false) == .resume(since: 22, held: Array(repeating: step, count: 7))) // 23 ... 29
    }

    @Test func aWaitingGapKeepsTheHeldStepsAfterItsStart() {
        var stage = paused(from: 10)
        let waiting = WaitingGap(at: 30, fromT: 20, held: true, distanceM: 300)
        stage.hold(Step(distanceM: 1, moving: true), at: 19, dt: 1)
        stage.hold(Step(distanceM: 1, moving: true), at: 21, dt: 1)
        _ = stage.update(speedMps: 0.1, at: 31, phases: autoHeld, cruiseSince: .nan, waiting: waiting)
        #expect(stage.heldCount == 1)                                   // the one after the gap's start
        _ = stage.update(speedMps: 0.1, at: 32, phases: autoHeld, cruiseSince: .nan, waiting: nil)
        #expect(stage.heldCount == 0)
    }

    @Test func takeHeldBackdatesTheFastHoldAndGivesTheGapsSpeedOnce() throws {
        var stage = paused(from: 10)
        stage.takeHeld(credit(at: 200, fromT: 100, speed: 3, held: true))
        #expect(stage.machine.fastSince == 100)
        #expect(stage.heldCount == 1)
        #expect(stage.takeGapSample() == 3)
        #expect(stage.takeGapSample() == nil)
        let d = stage.update(speedMps: 3, at: 200, phases: autoHeld, cruiseSince: .nan, waiting: nil)
        // Crossed moving: the gap's 100 s are moving time with its 300 m.
        #expect(d == .resume(since: 100, held: [HeldCredit(distanceM: 300, movingS: 100)]))
    }

    @Test func takeHeldNeverBackdatesBeforeThePause() {
        var stage = paused(from: 150)
        stage.takeHeld(credit(at: 200, fromT: 100, speed: 3, held: true))
        #expect(stage.machine.fastSince == 150)
        // Nor its moving time: the gap's part since the pause.
        _ = stage.takeGapSample()
        let d = stage.update(speedMps: 3, at: 200, phases: autoHeld, cruiseSince: .nan, waiting: nil)
        #expect(d == .resume(since: 150, held: [HeldCredit(distanceM: 300, movingS: 50)]))
    }

    @Test func aHeldGapWhoseConfirmingFixSaysStandingStartsNoHold() {
        var stage = paused(from: 10)
        stage.takeHeld(credit(at: 200, fromT: 100, speed: 3, doppler: 0.1, held: true))
        #expect(stage.machine.fastSince == nil)
        #expect(stage.takeGapSample() == nil)
        #expect(stage.heldCount == 1)                                   // its distance still waits with the hold
        stage.takeHeld(credit(at: 300, fromT: 250, speed: 0.5, held: true))   // crossed slowly
        #expect(stage.machine.fastSince == nil)
    }

    @Test func aUserPauseDropsTheHeldStepsAndAnyHold() {
        var stage = paused(from: 10)
        stage.hold(Step(distanceM: 3, moving: true), at: 20, dt: 1)
        _ = stage.update(speedMps: 3, at: 20, phases: autoHeld, cruiseSince: .nan, waiting: nil)
        stage.userCommand(.pause)
        #expect(stage.heldCount == 0)
        #expect(stage.machine.fastSince == nil && stage.machine.slowSince == nil)
    }

    @Test func disabledOrHeldByTheUserItDecidesNothing() {
        var off = AutoPauseStage(settings: AutoPause.Settings(enabled: false, pauseBelowMps: 0.5, resumeAboveMps: 1, holdS: 4))
        for t in stride(from: 0.0, through: 20, by: 1) {
            #expect(off.update(speedMps: 0, at: t, phases: cruising, cruiseSince: 0, waiting: nil) == .none)
        }
        var userHeld = cruising
        _ = userHeld.change(to: .holding, by: .user)
        var stage = AutoPauseStage(settings: settings)
        for t in stride(from: 0.0, through: 20, by: 1) {
            #expect(stage.update(speedMps: 3, at: t, phases: userHeld, cruiseSince: .nan, waiting: nil) == .none)
        }
    }
}
