/// Notices fixes the gate refuses as too fast for the session's profile while they agree with
/// each other: a ride pushed into a run session, not GPS spikes.
///
/// A spike implies an absurd speed from the fix before it; the fixes of a ride pushed as a run
/// are refused one after another (each too far from the gate's anchor), yet from each refused
/// fix to the next the speed is one a faster profile accepts. `minStreak` such refusals in a row
/// count (all of them, from the first of the streak), and the summary reports the slowest faster
/// profile whose cap takes the fastest of those speeds
/// (`"profile_mismatch":{"suggested":"ride","refused":667}`). The first streak notes a `warning`
/// in the log, and so does each that raises the suggestion (a walk session that sees a jog, then
/// a ride: "run", then "ride"), so the latest warning names the summary's suggestion.
///
///     var check = ProfileCheck(activity: .run)
///     // ten fixes 15 m apart at 1 Hz, each refused for speed:
///     check.see(fix, at: t, verdict: .filtered(.speed), log: &log)
///     (check.suggested, check.refused)   // (.ride, 10)
public struct ProfileCheck: Sendable {
    public let activity: Activity
    /// The gate's speed cap (the profile's, unless the config sets `speed_cap_mps`).
    public let capMps: Double
    /// Refusals in a row, consistent with each other, before they count.
    public var minStreak = 5
    /// Fixes refused for speed that were part of a consistent streak.
    public private(set) var refused = 0
    /// The profile that would have taken them (nil: no mismatch seen).
    public private(set) var suggested: Activity? = nil

    var last: (lat: Double, lon: Double, t: Double)? = nil
    var streak = 0
    var streakMaxMps = 0.0

    public init(activity: Activity, capMps: Double? = nil) {
        self.activity = activity
        self.capMps = capMps ?? activity.speedCapMps
    }

    /// Takes the gate's verdict on a fix that reached its speed check (other refusals say
    /// nothing about speed and are left out).
    mutating func see(_ fix: Fix, at t: Double, verdict: FixGate.Verdict, log: inout EventLog) {
        switch verdict {
        case .accept: streak = 0
        case .filtered(.speed): refusedForSpeed(fix, at: t, log: &log)
        case .filtered: return
        }
        last = (fix.lat, fix.lon, t)
    }

    @inline(never)   // (rare, and its log line's text: kept out of every fix's path)
    mutating func refusedForSpeed(_ fix: Fix, at t: Double, log: inout EventLog) {
        guard let l = last, t > l.t else { streak = 0; return }
        let v = Geodesy.distance(lat1: l.lat, lon1: l.lon, lat2: fix.lat, lon2: fix.lon) / (t - l.t)
        guard faster(taking: v) != nil else { streak = 0; return }   // a spike
        streak += 1
        streakMaxMps = streak == 1 ? v : max(streakMaxMps, v)
        guard streak >= minStreak else { return }
        refused += streak == minStreak ? minStreak : 1
        guard let need = faster(taking: streakMaxMps), need.speedCapMps > (suggested?.speedCapMps ?? 0) else { return }
        // (Each new suggestion is noted: the latest warning names the summary's.)
        log.note(.warning, "\(minStreak) fixes in a row refused as too fast for a \(activity.rawValue) (above \(PFD.whole(capMps)) m/s from the last accepted fix) agree with each other at up to \(PFD.whole(streakMaxMps)) m/s: a \(need.rawValue) pushed as a \(activity.rawValue)? (open the session with \"activity\":\"\(need.rawValue)\")")
        suggested = need
    }

    /// The slowest profile faster than the session's whose cap takes `v`.
    func faster(taking v: Double) -> Activity? {
        Activity.allCases.filter { $0.speedCapMps > capMps && v <= $0.speedCapMps }
            .min { $0.speedCapMps < $1.speedCapMps }
    }
}
