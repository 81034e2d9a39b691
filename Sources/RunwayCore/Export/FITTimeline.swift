/// Where a FIT export's timer events and records lie in time: the events at the flight's cruise
/// legs' ends, and each route point's record at its own time, except the points an auto-pause's
/// backdated hold leaves after their leg's end with distance the leg counted.
///
/// A FIT reader attributes a record's distance to the timer period the record lies in. Garmin's
/// devices write, while the timer is stopped, records with the distance before it
/// (`fitparse__sample-activity.fit`: 29 records between a stop and the next start, none with
/// more distance), and a leg's last metres in the record of the stop's second (the 2015 Edge
/// ride: 6 such records, written after their stop event, each with more distance). The engine
/// backdates an auto-pause to the start of its slow hold (`AutoPause`), so its leg ends before
/// the last points it kept: the slow metres up to the decision and the position kept there
/// (`keepLatestPosition`), whose distance the leg counted. Written at their own time, those
/// records would lie in the stopped period with distance the timer never ran for (an import
/// replays them paused and loses it: `togeojson__tour_hr.tcx` −1.25 % from its FIT, and a
/// segment more). So each leg's records end at its stop: every point after a leg's end, up to
/// the last one whose distance is more than the leg's at its end, is written at the leg's end
/// (before the stop event); points after those, with the leg's distance, stay at their own time
/// in the stopped period, as Garmin's do. The timer events and `total_timer_time` are the
/// flight's legs as they are.
///
/// An auto-resume is backdated too, to the start of its fast hold, and credits the steps since
/// then to the resumed leg, whose first point is kept at the decision, seconds later: the route
/// has no point where that leg began. An import replays the step from the last position before
/// the pause to that first point as spanning the stopped period, counting the leg's share of its
/// line by the point's speed, or by time when it has none (the tour's TCX: 3 s of 39, 0.7 of its
/// 8.6 m), and may auto-pause at the resume on that slow step. (A user's resume is replayed as
/// the engine measured it: the engine too counts the leg's share of the step from the last fix
/// before it, and keeps the leg's first point at the resume when it can.) So a leg an
/// auto-resume began (`TimerLeg.autoResumed`) whose first point comes after its start gets one
/// record more, at its start (after the start event),
/// on the line from the last point before it to its first point, where the rest of the line is
/// the distance the flight counted to that first point (at the last point when the line is
/// shorter), with the distance before the pause (none accrued while stopped), the altitude on
/// the line, and no heart rate, cadence, power or speed (nothing measured them there).
struct FITTimeline {
    /// The timer events in time order: a start at each leg's start, a `stop_all` at its end.
    var events: [(t: Double, starts: Bool)] = []
    /// The time each route point's record carries (non-decreasing).
    var recordT: [Double] = []
    /// The records at the start of resumed legs whose first point came after it, in time order.
    var legStarts = Route()

    init(_ r: FlightRecord) {
        let route = r.route
        recordT = (0..<route.count).map { route.time($0) }
        let legs = r.timerLegs.filter { $0.start.isFinite && $0.end.isFinite }
        guard !legs.isEmpty else {
            events = [(r.exportStartT, true), (r.exportEndT, false)]
            return
        }
        for leg in legs { events += [(leg.start, true), (leg.end, false)] }
        var i = 0   // the first route point after the legs seen so far
        for (k, leg) in legs.enumerated() {
            let next = k + 1 < legs.count ? legs[k + 1].start : Double.infinity
            while i < route.count, !(route.time(i) > leg.end) { i += 1 }
            // The leg's distance at its end: its last point's at or before it.
            let atEnd = i > 0 ? route.distanceM(i - 1) : 0
            var last = -1   // the last point in the stopped period with more distance than that
            var j = i
            while j < route.count, route.time(j) < next {
                if route.distanceM(j) > atEnd { last = j }
                j += 1
            }
            if last >= i { for p in i...last { recordT[p] = leg.end } }
            i = j
        }
        var b = 0
        for leg in legs.dropFirst() where leg.autoResumed {
            while b < route.count, recordT[b] < leg.start { b += 1 }
            // The leg's first point comes after its start, within it, with a point before it.
            guard b > 0, b < route.count, recordT[b] > leg.start, recordT[b] <= leg.end else { continue }
            addLegStart(at: leg.start, from: b - 1, to: b, r)
        }
    }

    /// The record where a leg began at `t`, on the line from point `a` (before the leg) to `b`
    /// (its first point), where the rest of the line is the distance the flight counted up to `b`.
    private mutating func addLegStart(at t: Double, from a: Int, to b: Int, _ r: FlightRecord) {
        let route = r.route
        let lat1 = route.latitude(a), lon1 = route.longitude(a), lat2 = route.latitude(b), lon2 = route.longitude(b)
        let line = Geodesy.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        let counted = max(0, route.distanceM(b) - route.distanceM(a))
        let f = line > counted ? 1 - counted / line : 0   // (line > 0 there)
        var lon = lon1 + Geodesy.wrappedDeltaLon(lon1, lon2) * f   // the short way, across the antimeridian too
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        let alt1 = r.altitude(a), alt2 = r.altitude(b)   // (as the exports write them)
        legStarts.append(lat: lat1 + (lat2 - lat1) * f, lon: lon, alt: alt2.isNaN ? alt1 : alt1 + (alt2 - alt1) * f, t: t,
                         distanceM: route.distanceM(a))
    }

    /// Whether the event `e` comes before a record at `t`: a start before the records at its
    /// time and after (they are the leg's), a stop before the records after its time only (a
    /// record at the stop's time is the leg's last), as the import reads them.
    static func precedes(_ e: (t: Double, starts: Bool), recordAt t: Double) -> Bool {
        e.starts ? e.t <= t : e.t < t
    }
}
