/// Garmin Training Center XML v2 (<http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2>),
/// elements in the schema's order.
///
/// One `<Activity Sport>` (Running, Biking, or Other for a walk) whose `<Id>` is the start time,
/// one `<Lap StartTime>` per lap (see `FlightRecord.exportLaps`: the finished laps, the lap in
/// progress of a flight still in the air, or one lap over the whole flight) with TotalTimeSeconds
/// (timer time, pauses excluded), DistanceMeters, MaximumSpeed, Calories 0 (not estimated),
/// Average/MaximumHeartRateBpm when known, Intensity Active and TriggerMethod (`LapTrigger.tcxName`:
/// Distance for an auto or a device's distance lap, Time, Location, HeartRate for a device's, Manual
/// otherwise). A lap's points go in one `<Track>` per timer leg of the flight within
/// the lap (`FlightRecord.timerLegs`, as Garmin starts a new Track each time the timer stops and
/// starts; `Route.legRanges`; the route's segments when the legs are unknown), so a GPS gap or jump
/// inside a leg breaks no Track: an import reads a Track break inside a Lap as a pause, and finds
/// the gap again from the points' times. Each `<Trackpoint>` has Time, Position, AltitudeMeters,
/// DistanceMeters (the flight's cumulative distance), HeartRateBpm when known, and cadence as
/// Garmin writes it: a ride's in `<Cadence>` (rpm), a run's or walk's in the ActivityExtension v2
/// `<ns3:TPX><ns3:RunCadence>` per foot (strides per minute: the engine's steps ÷ 2, a whole
/// number, so an odd step count rounds to the nearer even one), the speed the point's fix came with
/// (its device's, when it had one) in `<ns3:TPX><ns3:Speed>`, which the import reads back as the
/// fix's speed, and power in `<ns3:Watts>`. A lap with power has `<ns3:LX>` with its `<ns3:AvgWatts>` and
/// `<ns3:MaxWatts>`: the engine's figures for the lap (`ExportLap`), whole watts. The
/// flight id, when set, is the activity's `<Notes>`. The activity's `<Extensions>` say where the
/// altitudes come from, in librunway's namespace (`<runway:altitude_source>gps` or `barometric`:
/// `FlightRecord.altitudeSource`, `AltitudeSourceElement`), which the TCX import reads back as the
/// report's `altitude_source`; the AltitudeMeters are of that source (`FlightRecord.altitude`).
///
/// Where a speed sensor measured the flight (`FlightRecord.sensed`: indoors, a tunnel), its points
/// are Trackpoints without a Position or altitude, in time order among the route's, with the
/// sample's speed in `<ns3:TPX><ns3:Speed>`: the TCX import reads them back as speed samples. They
/// join the Track open at their time (a lap or a timer leg that begins with them opens one, which
/// the route's next leg continues).
enum TCXExporter {
    static func export(_ r: FlightRecord) -> [UInt8] {
        var out = TextBuffer(capacity: 1024 + (r.route.count + r.sensed.count) * 260)
        out.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2" \
            xmlns:runway="\(AltitudeSourceElement.namespace)" \
            xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 \
            http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">
             <Activities>
              <Activity Sport="
            """)
        out.write(sportName(r.activity))
        out.write("\">\n   <Id>")
        out.write(ISOTime.string(r.exportStartT) ?? "1970-01-01T00:00:00Z")
        out.write("</Id>\n")
        let segments = r.route.legRanges(r.timerLegs)
        let legStarts = Array(TimerLeg.breakingStarts(r.timerLegs).dropFirst())
        for lap in r.exportLaps { write(lap, r, segments, legStarts: legStarts, &out) }
        if !r.flightID.isEmpty { out.write("   <Notes>"); out.write(xml: r.flightID); out.write("</Notes>\n") }
        // Activity_t: Id, Lap, Notes, Training, Creator, Extensions.
        out.write("   <Extensions>")
        AltitudeSourceElement.write(r.altitudeSource, to: &out)
        out.write("</Extensions>\n")
        out.write("  </Activity>\n </Activities>\n</TrainingCenterDatabase>\n")
        return out.bytes
    }

    /// The `Sport` attribute: the schema knows only Running, Biking and Other.
    static func sportName(_ a: Activity) -> StaticString {
        switch a {
        case .run: "Running"
        case .ride: "Biking"
        case .walk: "Other"
        }
    }

    static func write(_ lap: ExportLap, _ r: FlightRecord, _ segments: [Range<Int>], legStarts: [Double], _ out: inout TextBuffer) {
        out.write("   <Lap StartTime=\"")
        out.write(ISOTime.string(lap.startT) ?? ISOTime.string(r.exportStartT) ?? "1970-01-01T00:00:00Z")
        out.write("\">\n    <TotalTimeSeconds>")
        out.write(fixed: nonNegative(lap.timerS), 3)
        out.write("</TotalTimeSeconds>\n    <DistanceMeters>")
        out.write(fixed: nonNegative(lap.distanceM), 2)
        out.write("</DistanceMeters>\n")
        if lap.maxSpeedMps.isFinite && lap.maxSpeedMps >= 0 {
            out.write("    <MaximumSpeed>"); out.write(fixed: lap.maxSpeedMps, 3); out.write("</MaximumSpeed>\n")
        }
        out.write("    <Calories>0</Calories>\n")
        heartRate("AverageHeartRateBpm", lap.avgHrBpm, &out)
        heartRate("MaximumHeartRateBpm", lap.maxHrBpm, &out)
        out.write("    <Intensity>Active</Intensity>\n    <TriggerMethod>")
        out.write(lap.trigger.tcxName)
        out.write("</TriggerMethod>\n")
        // One Track per timer leg (`segments`: the legs' ranges of route points) the lap's points
        // touch; the sensor's points in time order among them, in the Track open at their time. A
        // leg that starts between two of them (`legStarts`, after the first leg's) closes the Track,
        // whether its first points are the route's or the sensor's.
        var track: Int? = nil   // the leg of the open Track (-1: opened by sensor points)
        var i = lap.points.lowerBound, j = lap.sensed.lowerBound
        // The first range the lap's points are in (those before it end at or before its first),
        // found, not walked from the flight's first range: each lap costs its own points.
        var segment = min(countUpTo(i, segments.lazy.map(\.upperBound)), max(segments.count - 1, 0))
        var leg = -1   // the leg starts at or before the last point written (-1: none written yet)
        while i < lap.points.upperBound || j < lap.sensed.upperBound {
            let bySensor = j < lap.sensed.upperBound && (i == lap.points.upperBound || r.sensed.time(j) < r.route.time(i))
            let t = bySensor ? r.sensed.time(j) : r.route.time(i)
            if leg < 0 {
                leg = countUpTo(t, legStarts)
            } else if leg < legStarts.count, legStarts[leg] <= t {
                leg = countUpTo(t, legStarts)
                if track != nil { out.write("    </Track>\n"); track = nil }
            }
            if bySensor {
                if track == nil { out.write("    <Track>\n"); track = -1 }
                trackpoint(r.sensed, j, onFoot: r.activity != .ride, positioned: false, &out)
                j += 1
                continue
            }
            while segment < segments.count - 1, segments[segment].upperBound <= i { segment += 1 }
            if let open = track, open != segment, open != -1 { out.write("    </Track>\n"); track = nil }
            if track == nil { out.write("    <Track>\n") }
            track = segment
            trackpoint(r.route, i, altitude: r.altitude(i), onFoot: r.activity != .ride, &out)
            i += 1
        }
        if track != nil { out.write("    </Track>\n") }
        // ActivityExtension v2's LX: AvgWatts, then MaxWatts (unsignedShort each), the lap's own.
        let avgWatts = lap.avgPowerW.rounded(), maxWatts = lap.maxPowerW.rounded()
        let hasAvg = avgWatts >= 0 && avgWatts <= 65_535, hasMax = maxWatts >= 0 && maxWatts <= 65_535
        if hasAvg || hasMax {
            out.write("    <Extensions><ns3:LX>")
            if hasAvg { out.write("<ns3:AvgWatts>"); out.write(fixed: avgWatts, 0); out.write("</ns3:AvgWatts>") }
            if hasMax { out.write("<ns3:MaxWatts>"); out.write(fixed: maxWatts, 0); out.write("</ns3:MaxWatts>") }
            out.write("</ns3:LX></Extensions>\n")
        }
        out.write("   </Lap>\n")
    }

    static func nonNegative(_ v: Double) -> Double { v.isFinite && v > 0 ? v : 0 }

    /// How many of `sorted` (non-decreasing) are at or before `x`.
    static func countUpTo<C: RandomAccessCollection>(_ x: C.Element, _ sorted: C) -> Int where C.Element: Comparable, C.Index == Int {
        var lo = sorted.startIndex, hi = sorted.endIndex
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if sorted[mid] <= x { lo = mid + 1 } else { hi = mid }
        }
        return lo - sorted.startIndex
    }

    /// A heart rate as `<name><Value>bpm</Value></name>`; nothing when it is not 1…255 bpm
    /// (the schema's unsigned byte, at least 1).
    static func heartRate(_ name: StaticString, _ bpm: Double, _ out: inout TextBuffer) {
        let v = bpm.rounded()
        guard v >= 1, v <= 255 else { return }
        out.write("    <"); out.write(name); out.write("><Value>")
        out.write(fixed: v, 0)
        out.write("</Value></"); out.write(name); out.write(">\n")
    }

    /// A route point with `altitude` (its as the export writes it, `FlightRecord.altitude`), or
    /// (`positioned` false) a speed sensor's point: no Position or altitude, its speed in the TPX
    /// extension.
    static func trackpoint(_ route: Route, _ i: Int, altitude alt: Double = .nan, onFoot: Bool, positioned: Bool = true,
                           _ out: inout TextBuffer) {
        // A Trackpoint's Time is required; route times are validated inputs, so this always holds.
        guard let time = ISOTime.string(route.time(i)) else { return }
        out.write("     <Trackpoint><Time>")
        out.write(time)
        out.write("</Time>")
        if positioned {
            out.write("<Position><LatitudeDegrees>")
            out.write(degreesE7: route.latE7(i))
            out.write("</LatitudeDegrees><LongitudeDegrees>")
            out.write(degreesE7: route.lonE7(i))
            out.write("</LongitudeDegrees></Position>")
            if alt.isFinite { out.write("<AltitudeMeters>"); out.write(fixed: alt, 2); out.write("</AltitudeMeters>") }
        }
        let d = route.distanceM(i)
        if d.isFinite && d >= 0 { out.write("<DistanceMeters>"); out.write(fixed: d, 2); out.write("</DistanceMeters>") }
        let hr = route.heartRate(i)
        if !hr.isNaN { out.write("<HeartRateBpm><Value>"); out.write(fixed: hr, 0); out.write("</Value></HeartRateBpm>") }
        // The schema's CadenceValue_t is 0…254; RunCadence is one too.
        let cad = route.cadence(i)
        let bike = onFoot || cad.isNaN ? Double.nan : cad
        let run = onFoot && !cad.isNaN ? (cad / 2).rounded() : Double.nan
        if bike <= 254 { out.write("<Cadence>"); out.write(fixed: bike, 0); out.write("</Cadence>") }
        let watts = route.power(i)
        let speed = route.deviceSpeedMps(i)   // (the fix's own, or the speed sample's)
        let hasSpeed = speed >= 0 && speed.isFinite, hasRun = run <= 254, hasWatts = !watts.isNaN
        if hasSpeed || hasRun || hasWatts {
            // ActivityExtension v2's TPX sequence: Speed, RunCadence, Watts.
            out.write("<Extensions><ns3:TPX>")
            if hasSpeed { out.write("<ns3:Speed>"); out.write(fixed: speed, 3); out.write("</ns3:Speed>") }
            if hasRun { out.write("<ns3:RunCadence>"); out.write(fixed: run, 0); out.write("</ns3:RunCadence>") }
            if hasWatts { out.write("<ns3:Watts>"); out.write(fixed: watts, 0); out.write("</ns3:Watts>") }
            out.write("</ns3:TPX></Extensions>")
        }
        out.write("</Trackpoint>\n")
    }
}
