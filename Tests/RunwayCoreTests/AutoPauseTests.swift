import Testing
@testable import RunwayCore

@Suite("Auto-pause")
struct AutoPauseTests {
    /// Feeds (t, speed) samples, applying each decision the way the engine would, and returns
    /// the decisions that were not `.none`.
    static func run(_ ap: inout AutoPause, _ samples: [(t: Double, v: Double)],
                    autoPaused: inout Bool) -> [AutoPause.Decision] {
        var out: [AutoPause.Decision] = []
        for s in samples {
            let d = ap.update(speedMps: s.v, t: s.t, autoPaused: autoPaused)
            switch d {
            case .none: continue
            case .pause: autoPaused = true
            case .resume: autoPaused = false
            }
            out.append(d)
        }
        return out
    }

    static func run(_ settings: AutoPause.Settings, _ samples: [(t: Double, v: Double)]) -> [AutoPause.Decision] {
        var ap = AutoPause(settings: settings)
        var paused = false
        return run(&ap, samples, autoPaused: &paused)
    }

    static let on = AutoPause.Settings(enabled: true, pauseBelowMps: 0.5, resumeAboveMps: 0.9, holdS: 3)

    /// A tiny deterministic generator (SplitMix64) for noisy readings.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53)
        }
    }

    @Test func aThirtySecondStopPausesOnceAndResumesOnceWithBackdatedTimes() {
        var rng = SplitMix(state: 42)
        var samples: [(t: Double, v: Double)] = []
        for t in 0..<60 { samples.append((Double(t), 3 + 0.2 * rng.next())) }       // running
        for t in 60..<90 { samples.append((Double(t), 0.3 * rng.next())) }          // stopped, noisy
        for t in 90..<150 { samples.append((Double(t), 3 + 0.2 * rng.next())) }     // running again
        let decisions = Self.run(Self.on, samples)
        #expect(decisions == [.pause(at: 60), .resume(at: 90)])
    }

    @Test func theDecisionComesWhenTheHoldCompletesNotBefore() {
        var ap = AutoPause(settings: Self.on)
        #expect(ap.update(speedMps: 3, t: 0, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.1, t: 1, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.1, t: 2, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.1, t: 3.9, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.1, t: 4, autoPaused: false) == .pause(at: 1))
        #expect(ap.update(speedMps: 2, t: 5, autoPaused: true) == .none)
        #expect(ap.update(speedMps: 2, t: 7.5, autoPaused: true) == .none)
        #expect(ap.update(speedMps: 2, t: 8, autoPaused: true) == .resume(at: 5))
    }

    @Test func aTwoSecondDipDoesNotPause() {
        var samples: [(t: Double, v: Double)] = []
        for t in 0..<20 { samples.append((Double(t), 3)) }
        samples += [(20, 0.2), (21, 0.1), (22, 0.2)]   // slow from 20 to 22: 2 s
        for t in 23..<40 { samples.append((Double(t), 3)) }
        #expect(Self.run(Self.on, samples).isEmpty)
    }

    @Test func aShortBurstWhilePausedDoesNotResume() {
        var samples: [(t: Double, v: Double)] = []
        for t in 0..<10 { samples.append((Double(t), 0)) }
        samples += [(10, 2), (11, 2), (12, 2)]         // fast from 10 to 12: 2 s
        for t in 13..<20 { samples.append((Double(t), 0)) }
        #expect(Self.run(Self.on, samples) == [.pause(at: 0)])
    }

    @Test func speedsHoveringBetweenTheThresholdsNeverToggle() {
        var rng = SplitMix(state: 7)
        let hover = (0..<300).map { (t: Double($0), v: 0.51 + 0.38 * rng.next()) }  // 0.51…0.89
        #expect(Self.run(Self.on, hover).isEmpty, "moving stays moving")

        var ap = AutoPause(settings: Self.on)
        var paused = true
        #expect(Self.run(&ap, hover, autoPaused: &paused).isEmpty, "paused stays paused")
    }

    @Test func aSpeedInTheBandBreaksAHoldInProgress() {
        var ap = AutoPause(settings: Self.on)
        _ = ap.update(speedMps: 0.2, t: 0, autoPaused: false)
        _ = ap.update(speedMps: 0.7, t: 2, autoPaused: false)    // not below 0.5: the hold is broken
        #expect(ap.update(speedMps: 0.2, t: 4, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.2, t: 6, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.2, t: 7, autoPaused: false) == .pause(at: 4))
    }

    @Test func sparseSamplesRespectTheHoldByTimeNotSampleCount() {
        // One slow sample every 5 s spans no time on its own: it must not pause.
        let single: [(t: Double, v: Double)] = [(0, 3), (5, 3), (10, 0.1), (15, 3), (20, 3)]
        #expect(Self.run(Self.on, single).isEmpty)
        // Two slow samples 5 s apart span 5 s ≥ 3 s: pause on the second, backdated to the first.
        let stop: [(t: Double, v: Double)] = [(0, 3), (5, 3), (10, 0.1), (15, 0.1), (20, 0.1),
                                              (25, 3), (30, 3), (35, 3)]
        #expect(Self.run(Self.on, stop) == [.pause(at: 10), .resume(at: 25)])
        // Dense samples need as many as the hold takes: at 10 Hz, 31 slow samples.
        var ap = AutoPause(settings: Self.on)
        var decisions: [AutoPause.Decision] = []
        for i in 0...30 { decisions.append(ap.update(speedMps: 0, t: 100 + Double(i) / 10, autoPaused: false)) }
        #expect(decisions.dropLast().allSatisfy { $0 == .none })
        #expect(decisions.last == .pause(at: 100))
    }

    @Test func anUnknownSpeedNeitherStartsNorBreaksAHold() {
        var ap = AutoPause(settings: Self.on)
        _ = ap.update(speedMps: 0.1, t: 0, autoPaused: false)
        #expect(ap.update(speedMps: .nan, t: 1, autoPaused: false) == .none)
        #expect(ap.update(speedMps: -1, t: 2, autoPaused: false) == .none)
        #expect(ap.update(speedMps: .infinity, t: 2.5, autoPaused: false) == .none)
        #expect(ap.slowSince == 0, "the hold from t=0 goes on")
        #expect(ap.update(speedMps: 0.1, t: 3, autoPaused: false) == .pause(at: 0))

        var fresh = AutoPause(settings: Self.on)
        for t in 0..<10 { #expect(fresh.update(speedMps: .nan, t: Double(t), autoPaused: false) == .none) }
        #expect(fresh.slowSince == nil && fresh.fastSince == nil, "unknown starts nothing")
    }

    @Test func disabledDoesNothing() {
        var off = Self.on
        off.enabled = false
        let samples = (0..<100).map { (t: Double($0), v: $0 % 40 < 20 ? 0.0 : 3.0) }
        var ap = AutoPause(settings: off)
        for s in samples {
            #expect(ap.update(speedMps: s.v, t: s.t, autoPaused: false) == .none)
            #expect(ap.update(speedMps: s.v, t: s.t, autoPaused: true) == .none)
        }
    }

    @Test func aBackdatedSlowHoldPausesFromItsStartOnTheNextSlowSample() {
        var ap = AutoPause(settings: Self.on)
        #expect(ap.update(speedMps: 8, t: 60, autoPaused: false) == .none)
        ap.backdateSlowHold(to: 60)
        #expect(ap.slowSince == 60)
        ap.backdateSlowHold(to: 70)                                        // never later
        #expect(ap.slowSince == 60)
        #expect(ap.update(speedMps: 0, t: 1260, autoPaused: false) == .pause(at: 60))
        var broken = AutoPause(settings: Self.on)
        broken.backdateSlowHold(to: 60)
        #expect(broken.update(speedMps: 8, t: 1260, autoPaused: false) == .none)   // a fast sample breaks it
        #expect(broken.slowSince == nil)
        var off = AutoPause(settings: Self.on)
        off.settings.enabled = false
        off.backdateSlowHold(to: 60)
        #expect(off.slowSince == nil)
    }

    @Test func resetForgetsAHoldInProgress() {
        var ap = AutoPause(settings: Self.on)
        _ = ap.update(speedMps: 0.1, t: 0, autoPaused: false)
        _ = ap.update(speedMps: 0.1, t: 2, autoPaused: false)
        ap.reset()                                           // the user paused and resumed
        #expect(ap.update(speedMps: 0.1, t: 3, autoPaused: false) == .none)
        #expect(ap.update(speedMps: 0.1, t: 6, autoPaused: false) == .pause(at: 3))
    }

    @Test func rideThresholdsDifferFromRunAndWalk() {
        let run = AutoPause.Settings.defaults(for: .run)
        let walk = AutoPause.Settings.defaults(for: .walk)
        let ride = AutoPause.Settings.defaults(for: .ride)
        #expect(run == AutoPause.Settings(enabled: false, pauseBelowMps: 0.5, resumeAboveMps: 0.9, holdS: 3))
        #expect(walk == run)
        #expect(ride == AutoPause.Settings(enabled: true, pauseBelowMps: 1.0, resumeAboveMps: 2.0, holdS: 3))

        // A cyclist crawling at 0.8 m/s stops the ride; the same speed keeps a run going.
        let crawl = (0..<10).map { (t: Double($0), v: 0.8) }
        #expect(Self.run(ride, crawl) == [.pause(at: 0)])
        var runOn = run
        runOn.enabled = true
        #expect(Self.run(runOn, crawl).isEmpty)
        // Walking beside the bike at 1.5 m/s does not resume a paused ride; it resumes a walk.
        var ap = AutoPause(settings: ride)
        var paused = true
        #expect(Self.run(&ap, (0..<10).map { (t: Double($0), v: 1.5) }, autoPaused: &paused).isEmpty)
        var walkOn = walk
        walkOn.enabled = true
        var apWalk = AutoPause(settings: walkOn)
        paused = true
        #expect(Self.run(&apWalk, (0..<10).map { (t: Double($0), v: 1.5) }, autoPaused: &paused) == [.resume(at: 0)])
    }

    @Test func profilesCarryTheirDocumentedConstants() {
        #expect(Activity.run.speedCapMps == 12)
        #expect(Activity.ride.speedCapMps == 30)
        #expect(Activity.walk.speedCapMps < Activity.run.speedCapMps)
        #expect(Activity.allCases.filter(\.autoPauseByDefault) == [.ride])
        #expect(Activity(rawValue: "ride") == .ride && Activity(rawValue: "swim") == nil)
        for a in Activity.allCases { #expect(a.autoPauseBelowMps < a.autoResumeAboveMps) }
    }
}
