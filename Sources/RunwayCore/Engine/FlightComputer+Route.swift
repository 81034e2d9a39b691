/// The route points the composer keeps (a point's figures, the end of a leg) and the movement
/// credited after the runner seemed to stand.
///
///     let p = fc.point(52.0, 4.0, 1.5, at: 1_700_000_100)   // the flight's distance, speed, HR there
extension FlightComputer {
    /// Movement confirmed after a still spell: the held steps since it began go to the distance
    /// and moving time, and to the route points and pace window kept since (before `t`).
    mutating func creditMovement(_ judged: StillnessDetector.Judged, before t: Double) {
        guard let c = judged.credit else { return }
        // (The laps first: an auto boundary the credit crosses is where its steps crossed it.)
        lapStage.credited(c.distanceM, steps: stillness.creditedSteps, elapsedAt: elapsedAt)
        odometer.credit(distanceM: c.distanceM, movingS: c.movingS)
        // (A stretch: its speed over the time its steps took (`creditedStretchS`), not only their
        // moving time; not over a slow gap's line, whose time is the pace's, not measured.)
        odometer.noteStretch(distanceM: c.distanceM - c.lineM, movingS: stillness.creditedStretchS, capMps: stretchCapMps, at: clock.measuredNow)
        recorder.credit(stillness.creditedSteps, before: t)
        pace.credit(stillness.creditedSteps)
        // Cruise time as any step's: an auto-pause backdated over them takes it back.
        let steps = stillness.creditedSteps
        for (ti, m) in zip(steps.times, steps.movingS) where m > 0 { pause.cruised(movingS: m, at: ti) }
    }

    /// The flight's cruise seconds at a time before now, as the clock has them now (for the
    /// laps, `LapCounter.credit` and `retimeWaiting`).
    var elapsedAt: (Double) -> Double {
        let clock = clock, phase = phase
        return { clock.elapsed(in: phase) - clock.cruiseTime(from: $0, to: clock.now) }
    }

    /// The fastest a stretch's average speed counts toward the max (`Odometer.noteStretch`): the
    /// profile's speed cap (filters on; with them off nothing is capped).
    var stretchCapMps: Double { config.filters ? config.speedCapMps : .infinity }

    /// Pays out what the filter's steps left out (`owed`: start lag, a Doppler window's
    /// shortfall, a dropout's), no faster than the speed cap allows over `dt` on top of this
    /// step's metres.
    mutating func payOwed(over dt: Double, stepM: Double) {
        let paid = min(owed, max(0, config.speedCapMps * dt - stepM))
        guard paid > 0 else { return }
        owed -= paid
        odometer.credit(distanceM: paid)
        pace.shift(by: paid)
    }

    /// A leg ends in cruise (a user's pause or a stop) while the start lag's credit is open
    /// (`StartLag.legEnds`): what it measures now is the leg's, credited at once, before the
    /// route point of its last fix is kept (`keepLatestPosition`: it carries the credit) and the
    /// leg's average counts toward the max (`Odometer.endLeg`), as a credit paid out in cruise
    /// is (`payOwed`: no moving time), and to the lap running (cut now, unless a leg end or a
    /// gap waits: their step cuts it). No faster than the speed cap allows, as `payOwed` pays:
    /// over the lap's cruise seconds up to the last fix (a leg end's share after it is still to
    /// come) and over the flight's moving time; the rest is owed, paid out in cruise later.
    mutating func creditLagAtLegEnd(_ events: inout [Event]) {
        guard config.filters else { return }
        let measured = lag.legEnds(filter: track.estimate, standing: stillness.settings.enabled && stillness.isStill)
        guard measured > 0 else { return }
        track.credited(measured)
        let p = lapProgress, lap = lapStage.counter.current, cap = config.speedCapMps
        let pendingS = legEnd.map { max(0, now - max($0.t, clock.cruiseSince)) } ?? 0
        var room = cap * odometer.movingS - odometer.distanceM
        if lap.elapsedS.isFinite && lap.distanceM.isFinite {
            room = min(room, cap * (p.elapsedS - lap.elapsedS - pendingS) - (p.distanceM - lap.distanceM))
        }
        let m = min(measured, max(0, room))
        owed += measured - m
        guard m > 0 else { return }
        odometer.credit(distanceM: m)
        pace.shift(by: m)
        if legEnd == nil && !gaps.isWaiting && !lapsWaitForHeld { lapStage.cut(lapProgress, now: now, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
    }

    /// Where a leg begins when the last fix came before its start or resume: that position and
    /// time, and the command's time.
    struct LegStart: Sendable, Equatable {
        var lat: Double, lon: Double, alt: Double
        var t: Double, at: Double
    }

    /// Begins a leg's route at `at` (a start or resume) where the runner is: the last fix's
    /// position when it is of that time; when it is older the runner may have walked on while
    /// holding, so the point waits for the next fix (`keepLegStart`).
    mutating func beginLeg(at: Double) {
        legStart = nil
        guard !shown.lat.isNaN, !gate.accuracy.reduced else { return }
        if let last = lastAccepted, last.t < at {
            legStart = LegStart(lat: shown.lat, lon: shown.lon, alt: shown.alt, t: last.t, at: at)
        } else {
            recorder.keep(shownPoint(at: at))
        }
    }

    /// A leg's first point at `t`, where the runner is shown: at a fix's own time the point is
    /// that fix's, with its speed.
    func shownPoint(at t: Double) -> RoutePoint {
        var p = point(shown.lat, shown.lon, shown.alt, at: t)
        if lastAccepted?.t == t { p.deviceSpeedMps = shown.speed }
        return p
    }

    /// The share of a step's line (`lineM`, covered over `stepS` seconds) that lies in a leg that
    /// began `legS` seconds before the step's fix: as far as the fix's own speed carried the runner
    /// in that time (a runner who stood through the hold and set off at the resume covers the
    /// whole line), else the leg's share of the step's time (without a speed, the line is taken as
    /// covered evenly).
    static func legShare(of lineM: Double, speed: Double, legS: Double, stepS: Double) -> Double {
        guard legS < stepS else { return 1 }
        guard legS > 0 else { return 0 }
        if speed >= 0 && lineM > 0 { return min(1, speed * legS / lineM) }
        return legS / stepS
    }

    /// The first fix of a leg that waited for one: its first point is on the line from the last
    /// position before the leg to `fix`, where the leg's share of that line begins (`legShare`),
    /// so the stretch from the command to the fix counts and the walk before it does not.
    /// `counted`: the share of that line a pause's leg end counted before the pause (`takeLegEnd`,
    /// filters off: the point that begins the leg is its route's and raw accumulation's anchor),
    /// where the leg's share begins at the earliest. Returns the time of the point kept (the
    /// command's, or where speed samples left off), nil when none was.
    @inline(never)   // once a leg, kept out of the fix path
    @discardableResult
    mutating func keepLegStart(toward fix: Fix, at t: Double, counted: Double = 0) -> Double? {
        guard let s = legStart else { return nil }
        legStart = nil
        guard t > s.at else { return nil }   // a fix of the command's second is the leg's first point itself
        // (Where speed samples measured the leg, positions take it up where they left off: at the
        // fix itself when their last sample was of its second.)
        let from = max(s.at, speedSensor.measuredUntil)
        let line = Geodesy.distance(lat1: s.lat, lon1: s.lon, lat2: fix.lat, lon2: fix.lon)
        let f = max(1 - FlightComputer.legShare(of: line, speed: fix.speed, legS: t - from, stepS: t - s.t), counted)
        let p = FlightComputer.along(s.lat, s.lon, fix.lat, fix.lon, f)
        recorder.keep(point(p.lat, p.lon, s.alt, at: from))
        return from
    }

    /// The position a fraction `f` of the way from the first to the second, the short way (across
    /// the antimeridian too).
    static func along(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, _ f: Double) -> (lat: Double, lon: Double) {
        var lon = lon1 + Geodesy.wrappedDeltaLon(lon1, lon2) * f
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat1 + (lat2 - lat1) * f, lon)
    }

    /// A speed sample's point (no position) at the flight's figures now, with the sample's speed
    /// (and no altitude: the recorder gives it the altimeter's when one is current).
    func sensedPoint(_ mps: Double, at t: Double) -> RoutePoint {
        RoutePoint(lat: .nan, lon: .nan, alt: .nan, t: t, distanceM: distance, speedMps: mps, deviceSpeedMps: mps,
                   hr: sensors.heartRate(at: t), cadence: sensors.cadence(at: t), power: metrics.routeValue(at: t))
    }

    /// A fix's route point: at the flight's figures now, once the pace has taken the fix, with
    /// the fix's own speed (as it came: what the exports write, and an import reads back as the
    /// fix's speed) and its own power when it carries one (the power meter takes the fix after
    /// the pipeline).
    @inline(__always)
    func point(of fix: Fix, at t: Double) -> RoutePoint {
        var p = point(fix.lat, fix.lon, fix.alt, at: t)
        p.deviceSpeedMps = fix.speed
        if !fix.power.isNaN { p.power = fix.power }
        return p
    }

    /// A route point at the flight's figures now (its altitude `alt`, the fix's: the recorder keeps
    /// it with the one the flight's gain is measured on, `RouteRecorder.altitudes`).
    func point(_ lat: Double, _ lon: Double, _ alt: Double, at t: Double) -> RoutePoint {
        RoutePoint(lat: lat, lon: lon, alt: alt, t: t, distanceM: distance, speedMps: pace.pointSpeedMps,
                   hr: sensors.heartRate(at: t), cadence: sensors.cadence(at: t), power: metrics.routeValue(at: t))
    }

    /// A leg ends at the latest accepted fix when the distance filter left it out, so the route
    /// ends where the leg's fixes did, with the flight's cumulative distance (not on a full
    /// route). When speed samples measured the flight after that fix, the point has the distance
    /// at the fix (the rest is theirs).
    mutating func keepLatestPosition() {
        guard config.filters, let last = lastAccepted else { return }
        var p = latestFixPoint(last)
        if speedSensor.measuredUntil > last.t { p.distanceM = min(distance, distanceAtPosition) }
        recorder.keepLast(p)
    }

    /// The route point of the latest accepted fix `last`, at the flight's figures now, with that
    /// fix's own speed (a leg's end: `keepLatestPosition`, `endRawLeg`).
    func latestFixPoint(_ last: GapResolver.LastFix) -> RoutePoint {
        var p = point(last.lat, last.lon, shown.alt, at: last.t)
        p.deviceSpeedMps = shown.speed   // (the latest accepted fix's)
        return p
    }

    /// The route is full: whether this fix adds a point depends on the whole pipeline, so it
    /// runs on a copy, kept only when it added none (the copy shares the route's storage).
    @inline(never)
    mutating func processOnFullRoute(_ stamped: Input, at t: Double, events: inout [Event],
                                     journal: ((Input) throws(RunwayError) -> Void)?) throws(RunwayError) {
        var trial = self
        trial.recorder.refusedPoint = false
        let mark = events.count
        trial.run(stamped, at: t, &events)
        do throws(RunwayError) {
            if trial.recorder.refusedPoint {
                let name = config.maxRoutePoints == EngineConfig.maxRoutePointsLimit ? "RUNWAY_MAX_ROUTE_POINTS" : "the config's max_route_points"
                throw .limit("fix refused: the route is full (\(route.count) points, the limit of \(config.maxRoutePoints) points, \(name)); fixes that add no point are still accepted")
            }
            try journal?(stamped)
        } catch {
            events.removeSubrange(mark...)
            throw error
        }
        self = trial
    }
}
