/// The distance a positions-only track filter misses while it converges after it starts, credited
/// once it has.
///
/// The filter starts at a fix with no velocity and integrates its own speed (`TrackFilter`), so
/// the first seconds, while that speed rises to the runner's, count short: about 0.9 s of running
/// on a clean track at steady speed, 2.4 s from a standing start. Its position does not lag once
/// it has converged, so the distance from the fix it started on to where it is then, less what
/// the steps added meanwhile, is what the integration missed (`take` returns it once).
///
/// A runner who stands first and sets off later is the same start: when the filter stands at
/// its origin once it has converged, the segment waits for its set-off (`waitsForSetOff`) and
/// the origin follows the filter where it stands (its position at its latest step slower than
/// the moving speed that did not speed up), so the lag of that set-off is credited (a
/// receiver's runner who set off at 4.4 m/s after standing 96 s from the first fix lost 22 m:
/// the filtered speed rises far more slowly than at a start). That lag is measured along the
/// filter's track from where it stood (`pathM`: its positions at each step, joined), not by the
/// chord: it had converged there, and the chord across a bend in the 20 s after a set-off came
/// off the credit (receiver flight 977, a ride that turned as it set off, lost 12.7 m). A start's
/// is the chord from its first fix (the filter's first positions are the fixes', noise and all).
/// The credit also waits while the flight judges the runner standing (`standing`: the stillness
/// detector, and all of an auto-pause; a standing receiver's filtered speed passes the moving
/// speed now and then). A later stop and set-off within the segment is no start: the filtered
/// speed that lags the set-off ran on past the stop before it as far, and that was counted. A
/// user's pause or a stop in cruise that ends the leg before the credit is measured, while the
/// filter moves and the runner is not judged standing, is credited what is measured then
/// (`legEnds`: the filter may not have converged, that much it missed so far; receiver flight
/// 127, a run paused 17.5 s into a set-off from an auto-paused stand, lost 17 m). A hold that
/// closes the credit while the filter moves ends the wait for a set-off.
///
/// Only without Doppler speed (the trapezoid of Doppler speeds does not lag), only when the
/// filter moves when it has converged (the scatter of a receiver standing still is no distance)
/// and the flight does not judge the runner standing, only when the whole stretch was in
/// cruise or auto-paused (`cruising`: the flight passes both; a set-off while auto-paused is the
/// auto-resume's, and the filter's steps held then count toward what the steps added), and
/// never more than `maxS` seconds at the filtered speed: on noisy fixes the credit is the
/// difference of two positions' errors, so it is bounded by what a lag can be.
///
///     var lag = StartLag()
///     _ = lag.take(step, fix: first, at: 0, filter: track.estimate, cruising: true)   // the origin
///     // ... 20 s later, the filter converged and moving:
///     let missed = lag.take(step, fix: fix, at: 20, filter: track.estimate, cruising: true)   // e.g. 3.0 m
public struct StartLag: Sendable {
    /// Seconds after the origin at which the filter counts as converged.
    public var settleS: Double = 20
    /// Fixes after the origin before the filter counts as converged.
    public var settleFixes = 10
    /// The most a credit can be, in seconds at the filtered speed.
    public var maxS: Double = 5
    /// Filtered speeds below this are standing still (`TrackFilter.Settings.movingSpeedMps`).
    public var movingSpeedMps: Double = 0.8

    /// Where the filter started, when, the steps' distance since and how many.
    var origin: (lat: Double, lon: Double, t: Double)? = nil
    var integratedM = 0.0
    var steps = 0
    /// Whether a credit is still possible for this start.
    var open = false
    /// Whether the segment stood when its origin settled: the origin then follows the filter
    /// where it stands until it sets off.
    var waitsForSetOff = false
    /// The filtered speed at the previous step.
    var lastSpeedMps = Double.nan
    /// Where the silence before the latest restart began (the filter's last fix), and when
    /// (`silenceBegan`, read by `restarted`).
    var silenceStart = (lat: Double.nan, lon: Double.nan, t: Double.nan)
    /// Whether the origin is where the filter stood (a set-off, not a start), and the length of
    /// the filter's track since it (its positions at each step, joined), with the last of them.
    var fromStand = false
    var pathM = 0.0
    var last = (lat: Double.nan, lon: Double.nan)

    public init() {}

    /// Takes the filter's `step` for `fix`: the distance to credit now (0 but once a start).
    /// A step that starts a segment (or the first) is a new origin, and so, while the segment
    /// waits for its set-off (`waitsForSetOff`), is one in cruise without Doppler after which the
    /// filter stands (slower than the moving speed, and not faster than the step before).
    /// `standing`: whether the flight judges the runner standing now.
    /// (Out of line, short for most fixes, which take its first return: inlined, it grew the
    /// flight's fix path until the inliner left other calls in it out of line, for no gain.)
    @inline(never)
    mutating func take(_ step: Step, fix: Fix, at t: Double, filter: TrackFilter.Estimate, cruising: Bool, standing: Bool = false) -> Double {
        let positionsOnly = cruising && fix.speed.isNaN, v = filter.speedMps
        // (Standing: slower than the moving speed, and not speeding up: a filter that sets off
        // speeds up from where it stood, on clean fixes from the first step.)
        let follows = positionsOnly && waitsForSetOff && v < movingSpeedMps && !(v > lastSpeedMps)
        lastSpeedMps = v
        // Most fixes: no credit open, and neither a new origin nor a restart (`follow` would
        // return 0 for them; it is kept out of the way). This restates, as one test, the path
        // through `follow`'s first three branches that returns 0: a change to those changes it
        // too. (`follow` inlined here with those branches as the test, what they do beyond it
        // out of line, cost 12 instructions a fix more: a restart's test comes first there, not
        // `open`; take 43 against 31 Ir a fix, measured.)
        if !open && origin != nil && !step.newSegment && !follows && !(filter.startedAt == t) { return 0 }
        return follow(step, fix: fix, at: t, filter: filter, v: v, positionsOnly: positionsOnly, follows: follows, standing: standing)
    }

    /// The rest of `take` (`v`: the filter's speed; `follows`: whether the origin follows it).
    /// `take` returns early on the path through the first three branches that returns 0 (no
    /// credit open, neither a restart nor a new origin), tested there as one predicate: a change
    /// to these branches changes that test too.
    @inline(never)
    private mutating func follow(_ step: Step, fix: Fix, at t: Double, filter: TrackFilter.Estimate, v: Double,
                                 positionsOnly: Bool, follows: Bool, standing: Bool) -> Double {
        if filter.startedAt == t && !step.newSegment && origin != nil {
            return restarted(step, fix: fix, at: t, filter: filter, positionsOnly: positionsOnly, standing: standing)
        }
        guard let o = origin, !step.newSegment, !follows else {
            let starts = step.newSegment || origin == nil
            if starts { waitsForSetOff = false }
            begin(at: starts ? (fix.lat, fix.lon) : (filter.lat, filter.lon), t: t, filter: filter, fromStand: !starts, open: positionsOnly)
            return 0
        }
        guard open else { return 0 }
        // (Left in a hold or for Doppler while the filter moves: the segment has set off, its lag
        // is lost; standing, it still waits.)
        guard positionsOnly else { open = false; if v >= movingSpeedMps { waitsForSetOff = false }; return 0 }
        integratedM += step.distanceM
        steps += 1
        if fromStand {
            pathM += Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: filter.lat, lon2: filter.lon)
            last = (filter.lat, filter.lon)
        }
        guard t - o.t >= settleS, steps >= settleFixes else { return 0 }
        // Converged standing: the segment waits for its set-off. Moving while the flight still
        // judges the runner standing: the credit waits for its judgement.
        guard v >= movingSpeedMps else { open = false; waitsForSetOff = true; return 0 }
        guard !standing else { return 0 }
        open = false
        waitsForSetOff = false
        return missed(since: o, filter: filter, speedMps: v)
    }

    /// A new origin at `p` and `t`: nothing integrated since, the filter's track from its position.
    @inline(__always)
    private mutating func begin(at p: (lat: Double, lon: Double), t: Double, filter: TrackFilter.Estimate, fromStand: Bool, open: Bool) {
        origin = (p.lat, p.lon, t)
        self.fromStand = fromStand
        pathM = 0
        last = (filter.lat, filter.lon)
        integratedM = 0
        steps = 0
        self.open = open
    }

    /// What the integration missed since the origin `o`, as the filter is now: the distance it
    /// moved (from a stand along its track; from a start, the chord from its first fix) less
    /// the steps', at most `maxS` seconds at `speedMps` (its speed).
    /// `at` and `alongM`: measured at another point than the filter's, the distance to it from
    /// the origin and, from a stand, the filter's track to it (`restarted`).
    private func missed(since o: (lat: Double, lon: Double, t: Double), filter: TrackFilter.Estimate, speedMps: Double,
                        at p: (lat: Double, lon: Double)? = nil, alongM: Double? = nil) -> Double {
        let to = p ?? (filter.lat, filter.lon)
        let moved = fromStand ? alongM ?? pathM : Geodesy.distance(lat1: o.lat, lon1: o.lon, lat2: to.lat, lon2: to.lon)
        let missed = moved - integratedM
        return missed > 0 ? min(missed, speedMps * maxS) : 0
    }

    /// The filter started over at `fix` without a new segment (after a silence a speed sensor
    /// measured, `TrackFilter.restart`; `step` is the line from the fix before): a start. A
    /// credit still open is measured now, as at a leg's end, at the fix before the silence: the
    /// lag of the stretch before it, which no later convergence measures (at most `maxS` seconds
    /// at the line's speed: the filter has none yet). Not while the flight judges the
    /// runner `standing`. The lag of the start is credited once the filter has converged, as at
    /// any start, by the chord from the fix; a segment that waited for its set-off waits on (the
    /// set-off may come later).
    /// Returns the credit.
    @inline(never)   // (rare: kept out of the fix path)
    private mutating func restarted(_ step: Step, fix: Fix, at t: Double, filter: TrackFilter.Estimate,
                                    positionsOnly: Bool, standing: Bool) -> Double {
        var credit = 0.0
        let lastFix = silenceStart
        if open, positionsOnly, !standing, let o = origin, t > lastFix.t {
            // (At the fix before the silence: from the origin along the filter's track to it, or by
            // the chord from a start's first fix; the line across the silence is the sensor's.)
            credit = missed(since: o, filter: filter, speedMps: step.distanceM / (t - lastFix.t), at: (lastFix.lat, lastFix.lon),
                            alongM: pathM + Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: lastFix.lat, lon2: lastFix.lon))
        }
        // (By the chord from the fix, as a start's: the filter's first positions are the fixes',
        // noise and all, whose zig-zag along its track would be credited as lag, 7 m a silence
        // on fixes of 3 m noise. A segment that waits for its set-off waits on, from where it stands.)
        begin(at: (fix.lat, fix.lon), t: t, filter: filter, fromStand: waitsForSetOff, open: positionsOnly)
        return credit
    }

    /// The filter is about to start over after a silence that began at its last fix `fix`, at
    /// `t` (`TrackFilter.restart`): `restarted` measures a credit still open there.
    mutating func silenceBegan(at fix: (lat: Double, lon: Double), t: Double) {
        silenceStart = (fix.lat, fix.lon, t)
    }

    /// The leg ends in cruise (a user's pause or a stop, after the step of its last fix) while
    /// the credit is open: what is measured then, as `take` measures it once the filter has
    /// converged (it may not have: then the credit is what it missed so far), the distance to
    /// credit to that leg now. Only while the filter moves (not slower than the moving speed)
    /// and the flight does not judge the runner `standing` (a standing receiver's wander is no
    /// lag); the credit closes either way, and a filter that moves ends the segment's wait for
    /// a set-off, as when a hold closes the credit in `take`.
    mutating func legEnds(filter: TrackFilter.Estimate, standing: Bool) -> Double {
        guard open, let o = origin else { return 0 }
        open = false
        guard filter.speedMps >= movingSpeedMps else { return 0 }
        waitsForSetOff = false
        return standing ? 0 : missed(since: o, filter: filter, speedMps: filter.speedMps)
    }
}
