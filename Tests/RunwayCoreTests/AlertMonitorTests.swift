import Testing
@testable import RunwayCore

@Suite("GPWS and MINIMUMS alerts")
struct AlertMonitorTests {
    typealias Settings = AlertMonitor.Settings

    /// One update's inputs; NaN for what it does not carry.
    struct Sample {
        var t: Double
        var pace: Double = .nan
        var hr: Double = .nan
        var d: Double = .nan
    }

    /// Feeds samples and returns every alert raised.
    static func feed(_ m: inout AlertMonitor, _ samples: [Sample]) -> [AlertMonitor.Alert] {
        samples.flatMap { m.update(t: $0.t, paceMinPerKm: $0.pace, hrBpm: $0.hr, distanceM: $0.d) }
    }

    static func feed(_ settings: Settings, _ samples: [Sample]) -> [AlertMonitor.Alert] {
        var m = AlertMonitor(settings: settings)
        return feed(&m, samples)
    }

    /// 1 Hz samples over `range` with the given pace (or heart rate).
    static func paces(_ range: Range<Int>, _ pace: Double) -> [Sample] { range.map { Sample(t: Double($0), pace: pace) } }
    static func hrs(_ range: Range<Int>, _ hr: Double) -> [Sample] { range.map { Sample(t: Double($0), hr: hr) } }

    static let band = Settings(targetPaceMin: 5.0, targetPaceMax: 5.5)
    static let ceiling = Settings(hrCeiling: 170)

    // MARK: GPWS

    @Test func slowPaceFiresOnceAfterFiveSeconds() {
        var m = AlertMonitor(settings: Self.band)
        #expect(Self.feed(&m, Self.paces(0..<10, 5.2)).isEmpty)
        #expect(Self.feed(&m, Self.paces(10..<15, 5.8)).isEmpty, "10…14: held 4 s")
        let fired = m.update(t: 15, paceMinPerKm: 5.8, hrBpm: .nan, distanceM: .nan)
        #expect(fired.map(\.code) == ["GPWS_PACE_SLOW"])
        #expect(fired.first?.t == 15)
        #expect(Self.feed(&m, Self.paces(16..<100, 5.8)).isEmpty, "not again while still outside")
    }

    /// A pace just outside its target reads outside it: 5:00.3 against a 5:00 ceiling reads
    /// "5:01 /km, above target 5:00", 4:29.7 against a 4:30 floor "4:29 /km, below target 4:30"
    /// (both rounded to the nearest second, they read 5:00 above 5:00 and 4:30 below 4:30).
    @Test func aPaceJustOutsideItsTargetReadsOutsideIt() {
        let slow = Self.feed(Settings(targetPaceMax: 5.0), Self.paces(0..<10, 5.0 + 0.3 / 60))
        #expect(slow.map(\.message) == ["GPWS: SINK RATE — pace 5:01 /km, above target 5:00"])
        let fast = Self.feed(Settings(targetPaceMin: 4.5), Self.paces(0..<10, 4.5 - 0.3 / 60))
        #expect(fast.map(\.message) == ["GPWS: OVERSPEED — pace 4:29 /km, below target 4:30"])
        #expect(slow.first?.values["pace_min_per_km"] == 5.0 + 0.3 / 60, "the value keeps the exact pace")
    }

    @Test func fastPaceFiresOnceAfterFiveSeconds() {
        let alerts = Self.feed(Self.band, Self.paces(0..<5, 5.2) + Self.paces(5..<60, 4.6))
        #expect(alerts.map(\.code) == ["GPWS_PACE_FAST"])
        #expect(alerts.first?.t == 10)
    }

    @Test func highHeartRateFiresOnceAfterFiveSeconds() {
        let alerts = Self.feed(Self.ceiling, Self.hrs(0..<5, 150) + Self.hrs(5..<60, 176))
        #expect(alerts.map(\.code) == ["GPWS_HR_HIGH"])
        #expect(alerts.first?.t == 10)
    }

    @Test func aFourSecondExcursionDoesNotFire() {
        let slow = Self.paces(0..<10, 5.2) + Self.paces(10..<15, 5.9) + Self.paces(15..<30, 5.2)
        let fast = Self.paces(30..<35, 4.5) + Self.paces(35..<50, 5.2)
        #expect(Self.feed(Self.band, slow + fast).isEmpty)
        let hot = Self.hrs(0..<10, 160) + Self.hrs(10..<15, 180) + Self.hrs(15..<30, 160)
        #expect(Self.feed(Self.ceiling, hot).isEmpty)
    }

    @Test func theHoldIsMeasuredByTimeNotSamples() {
        // Two samples 5 s apart hold 5 s; one sample alone holds nothing.
        #expect(Self.feed(Self.band, [Sample(t: 0, pace: 5.2), Sample(t: 5, pace: 6), Sample(t: 10, pace: 5.2)]).isEmpty)
        let sparse = Self.feed(Self.band, [Sample(t: 0, pace: 6), Sample(t: 5, pace: 6)])
        #expect(sparse.map(\.code) == ["GPWS_PACE_SLOW"])
        #expect(sparse.first?.values["held_s"] == 5)
    }

    @Test func reArmsAfterReturningInsideTheBand() {
        let samples = Self.paces(0..<10, 5.9)      // fires at 5
            + Self.paces(10..<12, 5.3)             // back inside: re-armed
            + Self.paces(12..<20, 5.9)             // fires at 17
            + Self.paces(20..<40, 5.2)
            + Self.paces(40..<50, 4.5)             // fires at 45
            + Self.paces(50..<51, 5.0)             // exactly at the limit counts as inside
            + Self.paces(51..<60, 4.5)             // fires at 56
        let alerts = Self.feed(Self.band, samples)
        #expect(alerts.map(\.code) == ["GPWS_PACE_SLOW", "GPWS_PACE_SLOW", "GPWS_PACE_FAST", "GPWS_PACE_FAST"])
        #expect(alerts.map(\.t) == [5, 17, 45, 56])

        let hot = Self.hrs(0..<10, 180) + Self.hrs(10..<11, 170) + Self.hrs(11..<20, 180)
        #expect(Self.feed(Self.ceiling, hot).map(\.t) == [5, 16])
    }

    @Test func leavingTheBandOnTheOtherSideGivesTheOtherCallOut() {
        let alerts = Self.feed(Self.band, Self.paces(0..<10, 6.0) + Self.paces(10..<20, 4.5) + Self.paces(20..<30, 6.0))
        #expect(alerts.map(\.code) == ["GPWS_PACE_SLOW", "GPWS_PACE_FAST", "GPWS_PACE_SLOW"])
        #expect(alerts.map(\.t) == [5, 15, 25])
    }

    @Test func unknownPaceNeitherFiresNorReArms() {
        // Unknown throughout: nothing.
        let unknowns: [Double] = [.nan, .infinity, -.infinity, 0, -5]
        for u in unknowns {
            #expect(Self.feed(Self.band, Self.paces(0..<60, u)).isEmpty)
        }
        // Unknown gaps do not re-arm a fired alert.
        let noReArm = Self.paces(0..<10, 6.0) + Self.paces(10..<20, .nan) + Self.paces(20..<40, 6.0)
        #expect(Self.feed(Self.band, noReArm).map(\.t) == [5])
        // Unknown gaps do not break a hold: slow at 0…2, unknown 3…4, slow at 5 → held 5 s.
        let hold = Self.paces(0..<3, 6.0) + Self.paces(3..<5, .nan) + Self.paces(5..<6, 6.0)
        #expect(Self.feed(Self.band, hold).map(\.t) == [5])
        // Lost heart-rate contact (0 bpm) likewise.
        let contact = Self.hrs(0..<10, 180) + Self.hrs(10..<20, 0) + Self.hrs(20..<30, 180)
        #expect(Self.feed(Self.ceiling, contact).map(\.t) == [5])
    }

    @Test func eachLimitWorksAlone() {
        let onlyMax = Settings(targetPaceMax: 5.5)
        #expect(Self.feed(onlyMax, Self.paces(0..<10, 3.0)).isEmpty)
        #expect(Self.feed(onlyMax, Self.paces(0..<10, 6.0)).map(\.code) == ["GPWS_PACE_SLOW"])
        let onlyMin = Settings(targetPaceMin: 5.0)
        #expect(Self.feed(onlyMin, Self.paces(0..<10, 9.0)).isEmpty)
        #expect(Self.feed(onlyMin, Self.paces(0..<10, 4.0)).map(\.code) == ["GPWS_PACE_FAST"])
    }

    @Test func resetHoldsKeepsTimeSpentPausedOutOfAHold() {
        var m = AlertMonitor(settings: Self.band)
        #expect(Self.feed(&m, Self.paces(0..<3, 6.0)).isEmpty)
        m.resetHolds()                                      // paused at 3, resumed at 60
        #expect(Self.feed(&m, Self.paces(60..<65, 6.0)).isEmpty)
        #expect(m.update(t: 65, paceMinPerKm: 6.0, hrBpm: .nan, distanceM: .nan).map(\.code) == ["GPWS_PACE_SLOW"])
    }

    @Test func gpwsValuesCarryWhatTriggeredThem() {
        let both = Settings(targetPaceMin: 5.0, targetPaceMax: 5.5, hrCeiling: 170)
        var samples: [Sample] = []
        for t in 0...5 { samples.append(Sample(t: Double(t), pace: 5.8, hr: 175 + Double(t))) }
        let alerts = Self.feed(both, samples)
        #expect(alerts.map(\.code) == ["GPWS_PACE_SLOW", "GPWS_HR_HIGH"], "several alerts from one update, pace first")
        let pace = alerts[0]
        #expect(pace.values == ["pace_min_per_km": 5.8, "target_max_min_per_km": 5.5, "held_s": 5])
        #expect(pace.message == "GPWS: SINK RATE — pace 5:48 /km, above target 5:30")
        let hr = alerts[1]
        #expect(hr.values == ["hr_bpm": 180, "ceiling_bpm": 170, "held_s": 5])
        #expect(hr.message == "GPWS: PULL UP — heart rate 180 bpm, above ceiling 170 bpm")

        let fast = Self.feed(Self.band, Self.paces(0..<6, 4.75))
        #expect(fast.first?.values == ["pace_min_per_km": 4.75, "target_min_min_per_km": 5.0, "held_s": 5])
        #expect(fast.first?.message == "GPWS: OVERSPEED — pace 4:45 /km, below target 5:00")
    }

    // MARK: MINIMUMS

    /// A steady run at 3 m/s from 0 m, one sample a second.
    static func steady(to metres: Double, speed: Double = 3) -> [Sample] {
        let n = Int((metres / speed).rounded(.up))
        return (0...n).map { Sample(t: Double($0), d: Double($0) * speed) }
    }

    @Test func marksFireInOrderWithTheRemainingDistance() {
        let goal = Settings(goalM: 5000, marksM: [400, 1000])   // any order
        let alerts = Self.feed(goal, Self.steady(to: 5100))
        #expect(alerts.map(\.code) == ["MINIMUMS", "MINIMUMS", "MINIMUMS_GOAL"])
        #expect(alerts.map { $0.values["mark_m"] ?? -1 } == [1000, 400, -1])
        // 3 m a second: the first sample within 1000 m is at 4002 m (998 m left), within 400 m at 4602 m.
        #expect(alerts[0].values == ["remaining_m": 998, "mark_m": 1000, "distance_m": 4002, "goal_m": 5000])
        #expect(alerts[0].t == 1334)
        #expect(alerts[1].values == ["remaining_m": 398, "mark_m": 400, "distance_m": 4602, "goal_m": 5000])
        #expect(alerts[0].message == "MINIMUMS — 1 km to go")
        #expect(alerts[1].message == "MINIMUMS — 400 m to go")
    }

    @Test func theGoalFiresOnce() {
        let goal = Settings(goalM: 3000)
        var m = AlertMonitor(settings: goal)
        let alerts = Self.feed(&m, Self.steady(to: 4000))
        #expect(alerts.filter { $0.code == "MINIMUMS_GOAL" }.count == 1)
        let reached = alerts.last
        #expect(reached?.code == "MINIMUMS_GOAL")
        #expect(reached?.values == ["distance_m": 3000, "goal_m": 3000], "exactly at the goal counts")
        #expect(reached?.message == "MINIMUMS — GOAL 3.00 km reached")
        // Even if the distance dips back (a revised track) and crosses again.
        #expect(Self.feed(&m, [Sample(t: 5000, d: 2900), Sample(t: 5001, d: 3100)]).isEmpty)
    }

    @Test func marksAlreadyPassedAtTheFirstUpdateAreNotCalledOut() {
        // Started 700 m from the goal: 1000 m is behind, 400 m ahead.
        let goal = Settings(goalM: 5000)
        let samples = (0...300).map { Sample(t: Double($0), d: 4300 + Double($0) * 3) }
        let alerts = Self.feed(goal, samples)
        #expect(alerts.map(\.code) == ["MINIMUMS", "MINIMUMS_GOAL"])
        #expect(alerts.first?.values["mark_m"] == 400)
        // Started past the goal: nothing at all.
        #expect(Self.feed(goal, [Sample(t: 0, d: 5200), Sample(t: 1, d: 5300)]).isEmpty)
        // A mark at or beyond the goal is passed from the start.
        #expect(Self.feed(Settings(goalM: 800, marksM: [1000, 800, 400]), Self.steady(to: 900)).map { $0.values["mark_m"] ?? -1 }
                == [400, -1])
    }

    @Test func aJumpAcrossSeveralMarksCallsOutOnlyTheNearest() {
        let goal = Settings(goalM: 5000, marksM: [1000, 400, 200])
        // A 60 s gap from 3900 m (1100 m to go) to 4700 m (300 m to go) passes 1000 and 400.
        let alerts = Self.feed(goal, [Sample(t: 0, d: 0), Sample(t: 1, d: 3900), Sample(t: 60, d: 4700),
                                      Sample(t: 61, d: 4850), Sample(t: 90, d: 5100)])
        #expect(alerts.map(\.code) == ["MINIMUMS", "MINIMUMS", "MINIMUMS_GOAL"])
        #expect(alerts.map { $0.values["mark_m"] ?? -1 } == [400, 200, -1])
        #expect(alerts.map { $0.values["remaining_m"] ?? -1 } == [300, 150, -1])
        #expect(alerts[0].t == 60)
        // Crossing the last mark and the goal at once: the goal supersedes.
        let leap = Self.feed(goal, [Sample(t: 0, d: 4500), Sample(t: 9, d: 5010)])
        #expect(leap.map(\.code) == ["MINIMUMS_GOAL"])
    }

    @Test func unknownDistanceIsSkipped() {
        let goal = Settings(goalM: 1000)
        let samples = [Sample(t: 0, d: .nan), Sample(t: 1, d: 0), Sample(t: 2, d: .nan), Sample(t: 3, d: 700),
                       Sample(t: 4, d: .infinity), Sample(t: 5, d: 1000)]
        #expect(Self.feed(goal, samples).map(\.code) == ["MINIMUMS", "MINIMUMS_GOAL"])
    }

    @Test func noSettingsNeverFire() {
        var m = AlertMonitor(settings: Settings())
        var alerts: [AlertMonitor.Alert] = []
        for t in 0..<3000 {
            let x = Double(t)
            alerts += m.update(t: x, paceMinPerKm: t % 60 < 30 ? 3 : 9, hrBpm: 150 + Double(t % 100), distanceM: x * 4)
        }
        #expect(alerts.isEmpty)
        #expect(Self.feed(Settings(goalM: .nan), Self.steady(to: 2000)).isEmpty)
        #expect(Self.feed(Settings(goalM: 0), Self.steady(to: 2000)).isEmpty)
    }

    @Test func resetStartsOver() {
        var m = AlertMonitor(settings: Settings(targetPaceMax: 5.5, goalM: 1000))
        #expect(Self.feed(&m, Self.paces(0..<10, 6) + Self.steady(to: 1000)).count == 3)
        m.reset()
        #expect(Self.feed(&m, Self.paces(0..<10, 6) + Self.steady(to: 1000)).count == 3)
    }

    @Test func settingsWithUnsetLimitsCompareEqual() {
        #expect(Settings() == Settings())
        #expect(Settings(goalM: 5000) != Settings())
        #expect(Settings(marksM: [1000]) != Settings())
    }

    @Test func markTextReadsAsACallOut() {
        #expect(AlertMonitor.markText(400) == "400 m")
        #expect(AlertMonitor.markText(1000) == "1 km")
        #expect(AlertMonitor.markText(2000) == "2 km")
        #expect(AlertMonitor.markText(1500) == "1.50 km")
        #expect(AlertMonitor.sortedMarks([400, .nan, 1000, -5, 400, 0, .infinity]) == [1000, 400])
    }

    @Test func aMonitorWithEveryCallOutOffWatchesNothing() {
        #expect(!AlertMonitor(settings: Settings()).isWatching)
        #expect(!AlertMonitor(settings: Settings(goalM: 0)).isWatching)
        #expect(!AlertMonitor(settings: Settings(goalM: .infinity)).isWatching)
        for on in [Settings(targetPaceMin: 5), Settings(targetPaceMax: 6), Settings(hrCeiling: 170), Settings(goalM: 5000)] {
            #expect(AlertMonitor(settings: on).isWatching)
        }
        // What the composer skips: off, no values (however far out) raise anything.
        var m = AlertMonitor(settings: Settings())
        let samples = (0...60).map { Sample(t: Double($0), pace: 20, hr: 250, d: Double($0) * 100) }
        #expect(Self.feed(&m, samples).isEmpty)
        m.settings.hrCeiling = 170   // settings changed later count too
        #expect(m.isWatching)
    }
}
