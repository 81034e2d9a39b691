/// The activity profile a session runs with (`"activity":"run"|"walk"|"ride"`, default `run`).
///
/// Each profile carries the thresholds that depend on how fast the athlete can plausibly move:
/// the fix gate's speed cap and the auto-pause thresholds. The numbers are documented here, in
/// one place, so the gate, the auto-pause and the README quote the same values.
///
///     Activity.ride.speedCapMps          // 30
///     AutoPause.Settings.defaults(for: .ride).enabled  // true
public enum Activity: String, Sendable, CaseIterable {
    case run, walk, ride

    /// The highest implied speed between two fixes the fix gate accepts, in m/s.
    ///
    /// - run 12 m/s (43 km/h): above a sprinter's top speed (~10.4 m/s), far below the hundreds of
    ///   m/s a GPS spike implies.
    /// - walk 6 m/s (21.6 km/h): race walkers hold ~4.4 m/s, and a walker who breaks into a jog or
    ///   runs for a bus must not see good fixes thrown away; 4 m/s would cut off an ordinary
    ///   jog (4:10 min/km). A spike still implies far more.
    /// - ride 30 m/s (108 km/h): above a fast road descent (~25 m/s).
    public var speedCapMps: Double {
        switch self {
        case .run: 12
        case .walk: 6
        case .ride: 30
        }
    }

    /// Whether auto-pause is on when the config does not say: on for rides (as on bike computers,
    /// where the timer is the moving time), off for runs and walks (as on running watches).
    public var autoPauseByDefault: Bool { self == .ride }

    /// Auto-pause pauses once the speed has stayed below this for the hold time, in m/s.
    ///
    /// - run, walk 0.5 m/s (1.8 km/h): slower than any walk, faster than the speed a standing
    ///   receiver reports from Doppler noise (typically < 0.3 m/s).
    /// - ride 1.0 m/s (3.6 km/h): twice the foot thresholds. A cyclist balancing at a light or
    ///   pushing off is below it; the slowest steep climbs (~1.5 m/s) stay above it.
    public var autoPauseBelowMps: Double { self == .ride ? 1.0 : 0.5 }

    /// Auto-pause resumes once the speed has stayed above this for the hold time, in m/s.
    ///
    /// - run, walk 0.9 m/s (3.2 km/h): a slow walk; the gap to 0.5 m/s is the hysteresis band in
    ///   which the current state is kept, so noise around one threshold cannot toggle it.
    /// - ride 2.0 m/s (7.2 km/h): a cyclist reaches it within a couple of seconds of setting off,
    ///   and walking beside the bike (~1.3 m/s) does not resume a paused ride. The band is scaled
    ///   with the threshold (2:1, as 0.9:0.5 is nearly 2:1).
    public var autoResumeAboveMps: Double { self == .ride ? 2.0 : 0.9 }

    /// How long the speed must stay past a threshold before auto-pause pauses or resumes, in s.
    public var autoPauseHoldS: Double { 3 }
}
