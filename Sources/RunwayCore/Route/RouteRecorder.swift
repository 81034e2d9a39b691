/// Which fixes become route points: the first of each cruise leg and segment, then each at least
/// the distance filter from the last kept point (not from the previous fix), one whenever the
/// route has had none for `heartbeatS` (a runner standing or creeping still leaves a point every
/// half `gap_s`, so no hole in the route reads as a gap of track when a file is imported again),
/// and where the fix's own speed crosses a walker's (`movingMps`) from the last kept point's: that
/// fix and the one before it (`hold`), the last moving and the first standing fix of a stop, the
/// last standing and the first moving one of a set-off. A file imported again integrates its
/// speeds between the points it has: without them it would carry the speed before a stop across
/// the stop, or ramp up to the set-off's speed over the whole stop. Up to `maxRoutePoints`. Each
/// point carries the flight's distance, speed, heart rate and cadence then, and the altitude its gain
/// is measured on (`PointAltitudes`).
///
/// On a full route nothing is added and `refusedPoint` says so: the composer refuses the fix that
/// would have added a point (a trial run of the pipeline decides it).
///
///     var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
///     rec.keep(RoutePoint(lat: 52, lon: 4, alt: 3, t: 0, distanceM: 0))
///     rec.keepIfDue(RoutePoint(lat: 52.00002, lon: 4, alt: 3, t: 1, distanceM: 2.2))   // 2.2 m, 1 s: not kept
public struct RouteRecorder: Sendable {
    public private(set) var route = Route()
    /// The last kept point of the current leg (nil at the start of a leg).
    public private(set) var lastKept: Coordinate? = nil
    /// The time of the last kept point (the route's last; NaN before any).
    public var lastKeptT: Double { route.lastTime }
    /// The bearing of the last line between kept points at least the distance filter long,
    /// degrees (NaN before one): worked out when read (a snapshot), from the offset `keep` stores.
    public var segmentBearing: Double { segmentOffset.dx.isNaN ? .nan : Geodesy.bearing(segmentOffset) }
    /// The offset along that line, metres (NaN before one).
    private var segmentOffset = (dx: Double.nan, dy: Double.nan)
    /// Whether a point was refused because the route is full, since this was last cleared.
    var refusedPoint = false
    /// Where a speed sensor measured the flight (no position): a point a sample that measured, in
    /// cruise, with the flight's distance at its time (its lat/lon are not a position) and the
    /// altimeter's altitude when one was current, up to
    /// `maxPoints`. The FIT export writes them as records without a position.
    public private(set) var sensed = Route()
    /// The altitude each point is kept with (`PointAltitudes`: its fix's, or the altimeter's), fed
    /// the altimeter samples the elevation tracker takes (the engine's: its `fix_altitude`).
    var altitudes = PointAltitudes(fixAltitude: .gps, windowS: ElevationTracker().baroPreferenceS)
    let distanceFilterM: Double
    let maxPoints: Int
    /// The longest the route goes without a point while fixes come, seconds (the engine's:
    /// `gap_s / 2`). A point due for time alone is not refused on a full route: none is kept.
    let heartbeatS: Double
    /// The speed that tells a moving fix from a standing one, m/s (the engine's: a walker's,
    /// `StillnessDetector.Settings.movingDopplerMps`; NaN: none).
    let movingMps: Double
    /// Whether the last kept point's own speed was `movingMps` or more (nil: it had none).
    private var keptMoving: Bool? = nil
    /// The latest fix not kept since the last kept point (`hold`): kept before a point whose speed
    /// crosses `movingMps` from the last kept one's.
    private var held: RoutePoint? = nil

    public init(distanceFilterM: Double, maxPoints: Int, heartbeatS: Double = .infinity, movingMps: Double = .nan) {
        self.distanceFilterM = distanceFilterM
        self.maxPoints = maxPoints
        self.heartbeatS = heartbeatS
        self.movingMps = movingMps
    }

    /// Starts a new segment, unless the route is full (no point would follow).
    mutating func beginSegment() {
        held = nil
        if route.count < maxPoints { route.beginSegment() }
    }

    /// Speed samples that measured the flight from `distanceM` on (the flight's distance before
    /// the first of them): each is kept with the distance up to its own interval.
    mutating func sense(_ samples: [SpeedSensorStage.Sample], from distanceM: Double) {
        var d = distanceM
        for s in samples where sensed.count < maxPoints {
            d += s.ownM
            append(s.point, distanceM: d)
        }
    }

    private mutating func append(_ p: RoutePoint, distanceM: Double) {
        sensed.append(lat: 0, lon: 0, alt: altitudes.altitude(p.alt, at: p.t), t: p.t, distanceM: distanceM, speedMps: p.speedMps, deviceSpeedMps: p.deviceSpeedMps,
                      hr: p.hr, cadence: p.cadence, power: p.power)
    }

    /// The next point starts a leg: it is kept however close it is.
    mutating func startLeg() {
        lastKept = nil
        held = nil
    }

    /// A fix with a speed that was not kept: held, to be kept before the next point when that one
    /// crosses `movingMps` (`keep`).
    @inline(__always)
    mutating func hold(_ p: RoutePoint) { held = p }

    /// Whether a fix with this speed that is not kept is to be held (`hold`): it has one, and the
    /// last kept point had one.
    @inline(__always)
    func holds(speed: Double) -> Bool { speed >= 0 && keptMoving != nil }

    /// Keeps the point when it is due (`due`, with the point's own speed).
    mutating func keepIfDue(_ p: RoutePoint, force: Bool = false) {
        if let o = due(lat: p.lat, lon: p.lon, at: p.t, speed: p.deviceSpeedMps, force: force) { keep(p, fromLast: o) }
    }

    /// Whether a fix at `lat`, `lon` and time `t`, with its own `speed` (NaN: none), is to be kept:
    /// the leg's first, `force`d, or at least the distance filter from the last kept point; while
    /// the route has room, also `heartbeatS` after it, or when its speed crosses `movingMps` from
    /// the last kept point's. Asked before the point is built: nil when it is not, else its offset
    /// from the last kept point (`Geodesy.offset`; NaN when not measured), for `keep`. `measured`:
    /// an offset already measured, taken when it is from that point to this one.
    @inline(__always)   // called on the composer's stored recorder: no copy of it
    func due(lat: Double, lon: Double, at t: Double, speed: Double = .nan, force: Bool = false,
             measured: Geodesy.Measured = Geodesy.Measured()) -> (dx: Double, dy: Double)? {
        guard let kept = lastKept, !force else { return (.nan, .nan) }
        let o = measured.offset(lat1: kept.lat, lon1: kept.lon, lat2: lat, lon2: lon)
        let d = Geodesy.length(o)
        if d >= distanceFilterM && (d > 0 || distanceFilterM == 0) { return o }
        guard route.count < maxPoints else { return nil }   // (for time or speed alone: no refusal)
        if t - lastKeptT >= heartbeatS { return o }
        if let was = keptMoving, speed >= 0, (speed >= movingMps) != was { return o }
        return nil
    }

    /// Adds a route point; on a full route, changes nothing and notes the refusal. `fromLast`: its
    /// offset from the last kept point when already measured (`due`), else NaN.
    /// A point whose own speed crosses `movingMps` from the last kept point's keeps the fix held
    /// since (`hold`) first, when the route has room for both.
    mutating func keep(_ p: RoutePoint, fromLast: (dx: Double, dy: Double) = (.nan, .nan)) {
        let alt = altitudes.altitude(p.alt, at: p.t)   // (a held point kept first gets its own time's)
        guard route.count < maxPoints else {
            refusedPoint = true
            return
        }
        var fromLast = fromLast
        // (The held fix is read only when the speed crosses: a copy of it out of `held` on every
        // point was ~20 instructions.)
        if held != nil {
            if let was = keptMoving, p.deviceSpeedMps >= 0, (p.deviceSpeedMps >= movingMps) != was,
               let h = held, h.t > lastKeptT, h.t < p.t, route.count + 2 <= maxPoints {
                held = nil
                keep(h)
                fromLast = (.nan, .nan)   // (measured from the point before it)
            } else {
                held = nil
            }
        }
        if let kept = lastKept {   // (a point kept for time alone, at a stop, leaves the heading as it was)
            let o = fromLast.dx.isNaN ? Geodesy.offset(lat1: kept.lat, lon1: kept.lon, lat2: p.lat, lon2: p.lon) : fromLast
            let d = Geodesy.length(o)
            if d >= distanceFilterM && d > 0 { segmentOffset = o }
        }
        lastKept = Coordinate(lat: p.lat, lon: p.lon)
        keptMoving = p.deviceSpeedMps >= 0 && !movingMps.isNaN ? p.deviceSpeedMps >= movingMps : nil
        route.append(lat: p.lat, lon: p.lon, alt: alt, t: p.t, distanceM: p.distanceM,
                     speedMps: p.speedMps, deviceSpeedMps: p.deviceSpeedMps, hr: p.hr, cadence: p.cadence, power: p.power)
    }

    /// Keeps `p` (the latest accepted fix, at the end of a leg) when the last point is older and
    /// the route is not full: a leg's points end where its fixes did. A leg with no point of its
    /// own (`lastKept` nil: no fix since its start or resume) keeps none: the latest fix is then
    /// one from before the leg (a walk while holding).
    mutating func keepLast(_ p: RoutePoint) {
        guard lastKept != nil, route.count > 0, route.count < maxPoints, route.time(route.count - 1) < p.t else { return }
        keep(p)
    }

    /// The gate re-anchored: the previous anchor was junk, and if it stands alone in its segment
    /// it goes (the position identifies it: a start or resume keeps it at the command's time).
    mutating func dropJunkAnchor(at position: Coordinate) { dropJunkFix(at: position, t: .nan) }   // (alone in its segment only)

    /// The fix after a gap was junk (`GapResolver.GapStart.junk`): the route's last point goes
    /// when it is that fix: its position, and alone in its segment (`dropJunkAnchor`: kept at a
    /// start or resume's time, maybe) or at its time (in a sparse recorder's rhythm,
    /// `FixGate.gapInRhythm`, it continued a segment).
    mutating func dropJunkFix(at position: Coordinate, t: Double) {
        guard let p = route.last, p.t == t || route.currentSegmentCount == 1,
              p.latE7 == Route.quantise(position.lat), p.lonE7 == Route.quantise(position.lon) else { return }
        route.removeLast()
    }

    /// Steps credited afterwards (movement confirmed after the runner seemed to stand): each
    /// point kept before `before` takes the distance of the credited steps up to its time, so the
    /// route's distances grow where the runner moved, not in one jump.
    mutating func credit(_ steps: CreditedSteps, before: Double) {
        guard let first = steps.times.first else { return }
        if let h = held, h.t >= first, h.t < before { held?.distanceM += steps.distance(upTo: h.t) }   // (kept later, as counted now)
        var i = route.count - 1
        while i >= 0, route.time(i) >= first {
            if route.time(i) < before { route.setDistance(route.distanceM(i) + steps.distance(upTo: route.time(i)), at: i) }
            i -= 1
        }
    }

    /// A gap credited: the point kept at the fix after it (time `at`) takes the credit too.
    mutating func credit(_ d: Double, toPointAt at: Double) {
        if route.count > 0, route.time(route.count - 1) == at { route.setLastDistance(route.distanceM(route.count - 1) + d) }
    }
}

/// A fix as a route point, with the flight's figures at its time.
public struct RoutePoint: Sendable, Equatable {
    public var lat: Double, lon: Double, alt: Double, t: Double
    public var distanceM: Double
    /// The engine's ground speed there.
    public var speedMps: Double = .nan
    /// The speed the point's fix (or speed sample) came with, as the device measured it.
    public var deviceSpeedMps: Double = .nan
    public var hr: Double = .nan
    public var cadence: Double = .nan
    public var power: Double = .nan

    public init(lat: Double, lon: Double, alt: Double, t: Double, distanceM: Double,
                speedMps: Double = .nan, deviceSpeedMps: Double = .nan, hr: Double = .nan, cadence: Double = .nan,
                power: Double = .nan) {
        self.lat = lat; self.lon = lon; self.alt = alt; self.t = t; self.distanceM = distanceM
        self.speedMps = speedMps; self.deviceSpeedMps = deviceSpeedMps; self.hr = hr; self.cadence = cadence; self.power = power
    }
}
