/// Decides when a run pauses and resumes by itself, from the engine's current speed estimate.
///
/// A pure state machine: the engine feeds it the current speed at each fix and applies the
/// decision it returns (`holding` with `"by":"auto"`). It pauses once the speed has stayed below
/// `pauseBelowMps` for `holdS` seconds and resumes once it has stayed above `resumeAboveMps` for
/// `holdS` seconds. Holds are measured by time between samples, not by counting samples, so
/// irregular or sparse fixes give the same result as 1 Hz ones.
///
/// Each decision is backdated to the start of its hold — the time of the first slow (or fast)
/// sample — so the engine can exclude (or include) the hold itself from the moving time.
///
/// Rules:
/// - Between the thresholds (hysteresis band) the current state is kept, and a hold in progress
///   is broken: a speed of 0.7 m/s is neither "stopped" nor "moving again".
/// - An unknown speed (NaN, ±infinity or negative) neither starts nor breaks a hold: it says
///   nothing about whether the runner moves, so the hold goes on counting time across it.
/// - Disabled, it always answers `.none`.
/// - A user pause or resume calls `reset()`: a hold never spans a change the user made.
///
///     var ap = AutoPause(settings: .defaults(for: .ride))
///     ap.update(speedMps: 0.2, t: 10, autoPaused: false)  // .none: the hold starts
///     ap.update(speedMps: 0.1, t: 13, autoPaused: false)  // .pause(at: 10)
public struct AutoPause: Sendable {
    /// Auto-pause settings; `defaults(for:)` gives the profile's.
    public struct Settings: Sendable, Equatable {
        /// Whether auto-pause acts at all.
        public var enabled: Bool
        /// Pause once the speed stays below this (m/s) for `holdS`.
        public var pauseBelowMps: Double
        /// Resume once the speed stays above this (m/s) for `holdS`. Should be ≥ `pauseBelowMps`.
        public var resumeAboveMps: Double
        /// How long a threshold must be passed before acting, in seconds.
        public var holdS: Double

        public init(enabled: Bool, pauseBelowMps: Double, resumeAboveMps: Double, holdS: Double) {
            self.enabled = enabled
            self.pauseBelowMps = pauseBelowMps
            self.resumeAboveMps = resumeAboveMps
            self.holdS = holdS
        }

        /// The profile's settings: see `Activity` for the values and why.
        public static func defaults(for activity: Activity) -> Settings {
            Settings(enabled: activity.autoPauseByDefault, pauseBelowMps: activity.autoPauseBelowMps,
                     resumeAboveMps: activity.autoResumeAboveMps, holdS: activity.autoPauseHoldS)
        }
    }

    /// What the engine should do after a sample.
    public enum Decision: Sendable, Equatable {
        /// Keep the current state.
        case none
        /// Auto-pause, effective at `at` (the first sample of the slow hold).
        case pause(at: Double)
        /// Resume, effective at `at` (the first sample of the fast hold).
        case resume(at: Double)
    }

    public var settings: Settings

    /// Time of the first sample of the current slow hold (while moving); nil when none.
    public private(set) var slowSince: Double?
    /// Time of the first sample of the current fast hold (while auto-paused); nil when none.
    public private(set) var fastSince: Double?

    public init(settings: Settings) { self.settings = settings }

    /// Feeds one speed sample and returns what to do.
    ///
    /// - Parameters:
    ///   - speedMps: the engine's current speed estimate; NaN (or any non-finite or negative
    ///     value) when unknown.
    ///   - t: the sample's time in seconds, non-decreasing from call to call.
    ///   - autoPaused: whether the run is auto-paused now (the engine's state, which it owns).
    ///   - standingInDoubt: whether the positions are yet to confirm a slow speed (a dropout's
    ///     zeros while the fixes move on, `TrackFilter.standingInDoubt`): a slow hold goes on but
    ///     does not complete, as the filter decides within a few fixes.
    ///   - movementUnshown: whether a speed measured by the positions alone (the filtered speed)
    ///     is yet to be borne out by fixes that moved beyond their stated accuracy
    ///     (`StillnessDetector.positionsShowMovement`): a fast hold goes on but does not complete
    ///     (fixes hopping within a coarse accuracy give a standing receiver a filtered speed of
    ///     metres a second).
    /// - Returns: `.pause(at:)` or `.resume(at:)` once a hold is complete, otherwise `.none`.
    public mutating func update(speedMps: Double, t: Double, autoPaused: Bool, standingInDoubt: Bool = false,
                                movementUnshown: Bool = false) -> Decision {
        guard settings.enabled, t.isFinite else { return .none }
        guard speedMps.isFinite, speedMps >= 0 else { return .none }  // unknown: holds go on
        if autoPaused {
            slowSince = nil
            guard speedMps > settings.resumeAboveMps else { fastSince = nil; return .none }
            let since = hold(fastSince, at: t)
            fastSince = since
            guard t - since >= settings.holdS, !movementUnshown else { return .none }
            fastSince = nil
            return .resume(at: since)
        } else {
            fastSince = nil
            guard speedMps < settings.pauseBelowMps else { slowSince = nil; return .none }
            let since = hold(slowSince, at: t)
            slowSince = since
            guard t - since >= settings.holdS, !standingInDoubt else { return .none }
            slowSince = nil
            return .pause(at: since)
        }
    }

    /// While auto-paused, makes the fast hold begin at `t` at the latest: the engine learned
    /// afterwards that the runner was moving from then (a gap crossed at moving speed, confirmed
    /// by the fixes after it). The next sample still decides: a slow one breaks the hold.
    public mutating func backdateFastHold(to t: Double) {
        guard settings.enabled, t.isFinite else { return }
        slowSince = nil
        fastSince = min(fastSince ?? t, t)
    }

    /// While moving, makes the slow hold begin at `t` at the latest: the engine learned afterwards
    /// that the runner stood from then (a gap crossed at standing speed, confirmed by the fixes
    /// after it: a device that stops recording while its rider stands). The gap's own speed is
    /// then the hold's next sample; a gap (30 s by default) outlasts the profiles' holds, so that
    /// sample completes it.
    public mutating func backdateSlowHold(to t: Double) {
        guard settings.enabled, t.isFinite else { return }
        fastSince = nil
        slowSince = min(slowSince ?? t, t)
    }

    /// Forgets any hold in progress; call after the user pauses or resumes.
    public mutating func reset() {
        slowSince = nil
        fastSince = nil
    }

    /// The start of a hold that `t` continues: the existing start, or `t` for a new hold (and
    /// also when time went backwards, so a hold never counts negative time).
    private func hold(_ since: Double?, at t: Double) -> Double {
        guard let since, since <= t else { return t }
        return since
    }
}
