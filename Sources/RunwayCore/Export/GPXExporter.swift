/// GPX 1.1 (<http://www.topografix.com/GPX/1/1>), as Garmin Connect and Strava write and read it.
///
/// One `<trk>` (named after the flight id, `<type>` running/walking/cycling) with one `<trkseg>`
/// per timer leg of the flight (`FlightRecord.timerLegs`: from a start or resume to a pause,
/// auto-pause or stop; `Route.legRanges`), the route's segments when the legs are unknown. A GPS
/// gap or jump inside a leg breaks no `trkseg`: an import reads a break as a pause, and finds the
/// gap again from the points' times. Each `<trkpt lat lon>` (up to 7 decimals, exactly as stored)
/// has `<ele>` when the altitude is known, `<time>` in ISO 8601 UTC (milliseconds when fractional),
/// and Garmin's TrackPointExtension v2 with `<gpxtpx:hr>`, `<gpxtpx:cad>` (as Garmin writes it: per
/// foot on a run or walk, i.e. strides per minute, the engine's steps ÷ 2 as a whole number; rpm on
/// a bike) and `<gpxtpx:speed>` (m/s: the speed the point's fix came with, its device's, which an
/// import reads back as the fix's speed; not the engine's smoothed ground speed, which would be
/// taken for the device's) when known, after power as `<power>` (watts, first in `<extensions>`:
/// the element Garmin and Strava write, since TrackPointExtension has none). The `<trk>`'s
/// `<extensions>` say where the altitudes come from, in librunway's namespace
/// (`<runway:altitude_source>gps</runway:altitude_source>` or `barometric`:
/// `FlightRecord.altitudeSource`, `AltitudeSourceElement`), which the GPX import reads back as the
/// report's `altitude_source`; the `<ele>`s are of that source (`FlightRecord.altitude`).
enum GPXExporter {
    static func export(_ r: FlightRecord) -> [UInt8] {
        var out = TextBuffer(capacity: 512 + r.route.count * 200)
        out.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="librunway" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" \
            xmlns:runway="\(AltitudeSourceElement.namespace)" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd \
            http://www.garmin.com/xmlschemas/TrackPointExtension/v2 https://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">

            """)
        out.write(" <metadata>")
        if !r.flightID.isEmpty { out.write("<name>"); out.write(xml: r.flightID); out.write("</name>") }
        if let time = ISOTime.string(r.exportStartT) { out.write("<time>"); out.write(time); out.write("</time>") }
        out.write("</metadata>\n <trk>")
        if !r.flightID.isEmpty { out.write("<name>"); out.write(xml: r.flightID); out.write("</name>") }
        out.write("<type>")
        out.write(typeName(r.activity))
        out.write("</type>")
        // GPX 1.1's trk: name, cmt, desc, src, link, number, type, extensions, trkseg.
        out.write("<extensions>")
        AltitudeSourceElement.write(r.altitudeSource, to: &out)
        out.write("</extensions>\n")
        let route = r.route
        for segment in route.legRanges(r.timerLegs) {
            out.write("  <trkseg>\n")
            for i in segment { point(route, i, altitude: r.altitude(i), onFoot: r.activity != .ride, &out) }
            out.write("  </trkseg>\n")
        }
        out.write(" </trk>\n</gpx>\n")
        return out.bytes
    }

    /// The `<type>` text Garmin Connect writes for the activity.
    static func typeName(_ a: Activity) -> StaticString {
        switch a {
        case .run: "running"
        case .walk: "walking"
        case .ride: "cycling"
        }
    }

    /// Route point `i` as a `<trkpt>`, with `altitude` (its as the export writes it,
    /// `FlightRecord.altitude`; NaN: no `<ele>`).
    static func point(_ route: Route, _ i: Int, altitude alt: Double, onFoot: Bool, _ out: inout TextBuffer) {
        out.write("   <trkpt lat=\"")
        out.write(degreesE7: route.latE7(i))
        out.write("\" lon=\"")
        out.write(degreesE7: route.lonE7(i))
        out.write("\">")
        if alt.isFinite { out.write("<ele>"); out.write(fixed: alt, 2); out.write("</ele>") }
        if let time = ISOTime.string(route.time(i)) { out.write("<time>"); out.write(time); out.write("</time>") }
        let hr = route.heartRate(i), speed = route.deviceSpeedMps(i), watts = route.power(i)
        let cad = onFoot ? (route.cadence(i) / 2).rounded() : route.cadence(i)
        let hasSpeed = speed.isFinite && speed >= 0
        if !hr.isNaN || !cad.isNaN || hasSpeed || !watts.isNaN {
            out.write("<extensions>")
        }
        if !watts.isNaN { out.write("<power>"); out.write(fixed: watts, 0); out.write("</power>") }
        if !hr.isNaN || !cad.isNaN || hasSpeed {
            // TrackPointExtension v2's sequence: atemp, wtemp, depth, hr, cad, speed, course, bearing.
            out.write("<gpxtpx:TrackPointExtension>")
            if !hr.isNaN { out.write("<gpxtpx:hr>"); out.write(fixed: hr, 0); out.write("</gpxtpx:hr>") }
            if !cad.isNaN { out.write("<gpxtpx:cad>"); out.write(fixed: cad, 0); out.write("</gpxtpx:cad>") }
            if hasSpeed {
                out.write("<gpxtpx:speed>"); out.write(fixed: speed, 3); out.write("</gpxtpx:speed>")
            }
            out.write("</gpxtpx:TrackPointExtension>")
        }
        if !hr.isNaN || !cad.isNaN || hasSpeed || !watts.isNaN { out.write("</extensions>") }
        out.write("</trkpt>\n")
    }
}
