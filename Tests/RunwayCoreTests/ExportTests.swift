import Testing
@testable import RunwayCore
import RunwaySim
import CXML
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Flights to export

/// Flights made by driving a FlightComputer, as a session does.
enum ExportFixture {
    /// A simulated 2.6 km flight: 1 Hz fixes starting at a fractional second, heart rate and
    /// (odd and even) cadence on every fix, a 40 s gap in the fixes (a second route segment),
    /// auto laps every 1000 m and a manual lap after fix 450.
    ///
    /// - Parameters:
    ///   - filters: false for raw accumulation with no distance filter (every fix kept, the
    ///     distance the geodesic sum of the route).
    ///   - stop: false leaves the flight in the air (the lap in progress is unfinished).
    ///   - gap: fix indices left out.
    static func simulated(activity: Activity = .run, lat: Double = 52.37, lon: Double = 4.89,
                          filters: Bool = true, stop: Bool = true, sensors: Bool = true,
                          gap: Range<Int>? = 150..<190, manualLapAfter: Int? = 450,
                          lengthM: Double = 2600) throws -> FlightRecord {
        var sc = SimConfig()
        sc.seed = 7
        sc.startT = 1_700_000_000.25
        sc.centerLat = lat
        sc.centerLon = lon
        sc.loopLengthM = lengthM
        sc.paceMinPerKm = activity == .ride ? 2.0 : 5.0
        let run = simulate(sc)
        var config = EngineConfig()
        config.activity = activity
        config.speedCapMps = activity.speedCapMps
        if !filters {
            config.filters = false
            config.distanceFilterM = 0
        }
        var core = FlightComputer(config: config)
        var events: [Event] = []
        guard let first = run.fixes.first, let last = run.fixes.last else { return core.record }
        try core.command(.start, at: first.t, wallClock: .nan, events: &events)
        for (i, f) in run.fixes.enumerated() where !(gap?.contains(i) ?? false) {
            let fix = Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc,
                          hr: sensors ? 120 + Double(i) * 0.05 : .nan,
                          cadence: sensors ? 170 + Double(i % 7) : .nan)
            try core.process(.fix(try fix.validated()), wallClock: .nan, events: &events)
            if i == manualLapAfter { try core.lap(at: f.t, wallClock: .nan, events: &events) }
        }
        if stop { try core.command(.stop, at: last.t, wallClock: .nan, events: &events) }
        var record = core.record
        record.flightID = "flight-\(activity.rawValue)"
        return record
    }

    /// A flight from JSON Lines fixes (a real recording's `fixes/*.jsonl`), raw accumulation
    /// with no distance filter; nil when a line is refused.
    static func replay(jsonl: [UInt8], id: String) throws -> FlightRecord? {
        var config = EngineConfig()
        config.filters = false
        config.distanceFilterM = 0
        var d = Driver(config)
        var started = false
        var lastT = Double.nan
        for line in jsonl.split(separator: 0x0A) where !line.isEmpty {
            let text = String(decoding: line, as: UTF8.self)
            guard (try? JSONInput.object(text)) != nil else { return nil }
            if !started {
                guard case .number(let t)? = (try JSONInput.object(text)).first(where: { $0.key == "t" })?.value else { return nil }
                try d.phase(.start, t)
                started = true
            }
            do { try d.json(text) } catch { return nil }
            lastT = d.core.now
        }
        if started { try d.phase(.stop, lastT) }
        var record = d.core.record
        record.flightID = id
        return record
    }

    /// The geodesic length of the route (the engine's WGS84 distance between consecutive points),
    /// within segments, and with the straight lines across the gaps between them.
    static func routeLength(_ r: Route) -> (withinSegments: Double, bridged: Double) {
        var within = 0.0, bridged = 0.0
        guard r.count > 1 else { return (0, 0) }
        for i in 1..<r.count {
            let d = Geodesy.distance(lat1: r.latitude(i - 1), lon1: r.longitude(i - 1), lat2: r.latitude(i), lon2: r.longitude(i))
            bridged += d
            if r.segment(of: i) == r.segment(of: i - 1) { within += d }
        }
        return (within, bridged)
    }
}

// MARK: - Independent readers for the tests

/// An XML element read back with libxml2: namespace, name, attributes, text, children.
struct ExportXML {
    var namespace: String
    var name: String
    var attributes: [String: String]
    var text: String
    var children: [ExportXML]

    /// Parses `bytes` with libxml2 (no network, no recovery); nil when not well-formed.
    static func parse(_ bytes: [UInt8]) -> ExportXML? {
        let doc = bytes.withUnsafeBufferPointer { buf -> xmlDocPtr? in
            buf.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                    xmlReadMemory($0, Int32(buf.count), "export.xml", nil,
                                  Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOERROR.rawValue) | Int32(XML_PARSE_NOWARNING.rawValue))
                }
            }
        }
        guard let doc else { return nil }
        defer { xmlFreeDoc(doc) }
        return xmlDocGetRootElement(doc).map(element)
    }

    private static func element(_ node: xmlNodePtr) -> ExportXML {
        var e = ExportXML(namespace: node.pointee.ns?.pointee.href.map { String(cString: $0) } ?? "",
                           name: node.pointee.name.map { String(cString: $0) } ?? "",
                           attributes: [:], text: "", children: [])
        var attr = node.pointee.properties
        while let a = attr {
            let name = a.pointee.name.map { String(cString: $0) } ?? ""
            e.attributes[name] = a.pointee.children?.pointee.content.map { String(cString: $0) } ?? ""
            attr = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE {
                e.children.append(element(c))
            } else if c.pointee.type == XML_TEXT_NODE, let content = c.pointee.content {
                e.text += String(cString: content)
            }
            child = c.pointee.next
        }
        return e
    }

    func first(_ name: String) -> ExportXML? { children.first { $0.name == name } }
    func all(_ name: String) -> [ExportXML] { children.filter { $0.name == name } }
    /// Every descendant called `name`, depth first.
    func descendants(_ name: String) -> [ExportXML] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
    }
}

/// A minimal FIT reader: definitions and data messages, values as integers by field number.
struct ExportFITReader {
    var protocolVersion: UInt8 = 0
    var dataSize = 0
    var headerCRCOK = false
    var fileCRCOK = false
    var messages: [(global: UInt16, fields: [UInt8: Int64])] = []

    func count(_ global: UInt16) -> Int { messages.filter { $0.global == global }.count }
    func all(_ global: UInt16) -> [[UInt8: Int64]] { messages.filter { $0.global == global }.map(\.fields) }

    /// CRC-16/ARC bit by bit (reflected polynomial 0xA001): not the exporter's nibble table.
    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    enum Failure: Error { case malformed(String) }

    static func read(_ b: [UInt8]) throws -> ExportFITReader {
        var f = ExportFITReader()
        guard b.count >= 16, b[0] == 14, Array(b[8..<12]) == Array(".FIT".utf8) else { throw Failure.malformed("header") }
        f.protocolVersion = b[1]
        f.dataSize = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24
        guard 14 + f.dataSize + 2 == b.count else { throw Failure.malformed("data size \(f.dataSize) for \(b.count) bytes") }
        f.headerCRCOK = crc(b[0..<12]) == UInt16(b[12]) | UInt16(b[13]) << 8
        f.fileCRCOK = crc(b[0..<(b.count - 2)]) == UInt16(b[b.count - 2]) | UInt16(b[b.count - 1]) << 8
        var defs: [UInt8: (global: UInt16, fields: [(num: UInt8, size: Int, type: UInt8)])] = [:]
        var p = 14
        let end = 14 + f.dataSize
        func byte() throws -> UInt8 {
            guard p < end else { throw Failure.malformed("truncated at \(p)") }
            defer { p += 1 }
            return b[p]
        }
        while p < end {
            let h = try byte()
            guard h & 0x80 == 0, h & 0x20 == 0 else { throw Failure.malformed("unexpected header \(h)") }
            let local = h & 0x0F
            if h & 0x40 != 0 {
                _ = try byte()
                guard try byte() == 0 else { throw Failure.malformed("big-endian") }
                let global = UInt16(try byte()) | UInt16(try byte()) << 8
                let n = Int(try byte())
                var fields: [(num: UInt8, size: Int, type: UInt8)] = []
                for _ in 0..<n { fields.append((try byte(), Int(try byte()), try byte())) }
                defs[local] = (global, fields)
            } else {
                guard let def = defs[local] else { throw Failure.malformed("data before definition") }
                var values: [UInt8: Int64] = [:]
                for field in def.fields {
                    var v: UInt64 = 0
                    for k in 0..<field.size { v |= UInt64(try byte()) << (8 * UInt64(min(k, 7))) }
                    if field.type == 0x85 { values[field.num] = Int64(Int32(truncatingIfNeeded: v)) }
                    else if field.type != 0x07 { values[field.num] = Int64(v) }
                }
                f.messages.append((def.global, values))
            }
        }
        return f
    }
}

/// Files for the Python readers (Tests/python/test_exports.py): with `RUNWAY_EXPORT_DIR` set,
/// each flight's five exports and an `expect.json` of the figures they must carry.
enum ExportDirectory {
    static var path: String? {
        guard let p = getenv("RUNWAY_EXPORT_DIR") else { return nil }
        let s = String(cString: p)
        return s.isEmpty ? nil : s
    }

    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        guard let f = fopen(path, "wb") else { return false }
        defer { fclose(f) }
        return fwrite(bytes, 1, bytes.count, f) == bytes.count
    }

    static func save(_ r: FlightRecord, name: String, filters: Bool, in dir: String) -> Bool {
        var ok = true
        for format in ExportFormat.allCases {
            ok = write(Exporter.export(r, as: format), to: "\(dir)/\(name).\(format.fileExtension)") && ok
        }
        let length = ExportFixture.routeLength(r.route)
        var w = JSONWriter()
        w.beginObject()
        w.field("name", name)
        w.field("activity", r.activity.rawValue)
        w.field("filters", filters ? "on" : "off")
        w.key("count_gaps"); w.bool(true)
        w.field("points", r.route.count)
        w.field("segments", r.route.segmentRanges.count)
        w.key("segment_sizes"); w.beginArray(); for s in r.route.segmentRanges { w.integer(s.count) }; w.endArray()
        w.field("laps", r.exportLaps.count)
        w.field("summary_laps", r.laps.count)
        w.field("distance_m", r.distanceM)
        w.field("route_geodesic_m", length.withinSegments)
        w.field("route_geodesic_bridged_m", length.bridged)
        // The timer legs: a leg's points are those at or after its start, before the next's.
        let times = (0..<r.route.count).map { r.route.time($0) }
        let legStarts = Set(r.timerLegs.dropFirst().compactMap { leg in times.firstIndex { $0 >= leg.start } }).subtracting([0]).sorted()
        let legBounds = [0] + legStarts + [r.route.count]
        let legs = zip(legBounds, legBounds.dropFirst()).filter { $0.0 < $0.1 }
        var legLength = 0.0
        for (a, b) in legs where b - a > 1 {
            for i in (a + 1)..<b {
                legLength += Geodesy.distance(lat1: r.route.latitude(i - 1), lon1: r.route.longitude(i - 1),
                                              lat2: r.route.latitude(i), lon2: r.route.longitude(i))
            }
        }
        w.field("legs", legs.count)
        w.key("leg_sizes"); w.beginArray(); for (a, b) in legs { w.integer(b - a) }; w.endArray()
        w.key("leg_starts"); w.beginArray(); for s in legStarts { w.integer(s) }; w.endArray()
        w.field("leg_geodesic_m", legLength)
        w.key("hr"); w.bool((0..<r.route.count).contains { !r.route.heartRate($0).isNaN })
        if (0..<r.route.count).contains(where: { !r.route.power($0).isNaN }) {
            w.key("power_w"); w.beginArray()
            for i in 0..<r.route.count { let p = r.route.power(i); if p.isNaN { w.null() } else { w.number(p) } }
            w.endArray()
        }
        w.endObject()
        return write(w.bytes, to: "\(dir)/\(name).expect.json") && ok
    }
}

/// The export of `r` in an XML format, parsed back (the test fails when it is not well-formed).
func parsedExport(_ r: FlightRecord, _ format: ExportFormat) throws -> ExportXML {
    let parsed = ExportXML.parse(Exporter.export(r, as: format))
    return try #require(parsed, "\(format) export is well-formed XML")
}

func exportText(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func jsonObject(_ v: JSONValue?) -> [String: JSONValue] {
    if case .object(let o)? = v { return o }
    return [:]
}

func jsonArray(_ v: JSONValue?) -> [JSONValue] {
    if case .array(let a)? = v { return a }
    return []
}

// MARK: - Tests

@Suite("Exports: GPX, TCX, FIT, GeoJSON, CSV")
struct ExportTests {
    static let tracks = SharedTracks.folder

    // MARK: ISO 8601

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_700_000_000.5, "2023-11-14T22:13:20.500Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (1_582_934_400, "2020-02-29T00:00:00Z"),
        (4_107_456_000, "2100-02-28T00:00:00Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (978_307_199.9996, "2001-01-01T00:00:00Z"),
        (1_700_000_000.0004, "2023-11-14T22:13:20Z"),
        (1_700_000_000.25, "2023-11-14T22:13:20.250Z"),
        (1e10, "2286-11-20T17:46:40Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ] as [(Double, String)])
    func isoTimesAreTheCivilUTCDateWithMillisecondsOnlyWhenFractional(_ t: Double, _ iso: String) {
        #expect(ISOTime.string(t) == iso)
    }

    @Test func isoTimeRefusesWhatItCannotWrite() {
        #expect(ISOTime.string(.nan) == nil)
        #expect(ISOTime.string(.infinity) == nil)
        #expect(ISOTime.string(253_402_300_800) == nil)        // year 10000
        #expect(ISOTime.string(-62_167_219_201) == nil)        // year -1
        #expect(ISOTime.string(1e300) == nil)
    }

    @Test func civilDatesRoundTripEveryDayOfFourHundredYears() {
        // Day by day from 1900-01-01 the civil date advances by exactly one day.
        var (y, m, d) = (Int64(1900), Int64(1), Int64(1))
        let monthDays: [Int64] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for days in Int64(-25_567)..<Int64(-25_567 + 146_097) {
            let c = ISOTime.civil(days: days)
            #expect(c.year == y && c.month == m && c.day == d, "day \(days)")
            if c.year != y || c.month != m || c.day != d { return }
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let length = m == 2 && leap ? 29 : monthDays[Int(m - 1)]
            d += 1
            if d > length { d = 1; m += 1 }
            if m > 12 { m = 1; y += 1 }
        }
    }

    // MARK: Number text

    @Test func decimalsAreRoundedAndTrimmedWithoutFoundation() {
        func fixed(_ v: Double, _ p: Int) -> String {
            var b = TextBuffer()
            b.write(fixed: v, p)
            return exportText(b.bytes)
        }
        #expect(fixed(12.3, 2) == "12.3")
        #expect(fixed(12.345, 2) == "12.35" || fixed(12.345, 2) == "12.34")   // binary 12.345 sits just below
        #expect(fixed(-0.004, 2) == "0")
        #expect(fixed(-3.5, 0) == "-4")
        #expect(fixed(1_700_000_000.25, 3) == "1700000000.25")
        #expect(fixed(0.0005, 3) == "0.001")
        #expect(fixed(-12.0625, 4) == "-12.0625")
        #expect(fixed(.nan, 2) == "")
        #expect(fixed(1e300, 2) == 1e300.description)
        func degrees(_ v: Int32) -> String {
            var b = TextBuffer()
            b.write(degreesE7: v)
            return exportText(b.bytes)
        }
        #expect(degrees(523_700_000) == "52.37")
        #expect(degrees(-338_700_001) == "-33.8700001")
        #expect(degrees(-1) == "-0.0000001")
        #expect(degrees(Int32.min) == "-214.7483648")
        #expect(degrees(0) == "0")
    }

    @Test func xmlTextIsEscapedAndForbiddenCharactersLeftOut() {
        var b = TextBuffer()
        b.write(xml: "a<b>&\"c'\u{01}\td\u{FFFE}é")
        #expect(exportText(b.bytes) == "a&lt;b&gt;&amp;&quot;c&apos;\tdé")
    }

    @Test func formatsAreNamedAsTheCABIPassesThem() throws {
        for f in ExportFormat.allCases { #expect(try ExportFormat.named(f.rawValue) == f) }
        #expect(throws: RunwayError.self) { try ExportFormat.named("GPX") }
        do { _ = try ExportFormat.named("kml") } catch { #expect(error.status == .argument && error.message.contains("gpx, tcx, fit, geojson, csv")) }
    }

    // MARK: GPX

    @Test func gpxHasOneTrksegPerTimerLegWithEveryPointItsTimeAndPosition() throws {
        let r = try ExportFixture.simulated()
        #expect(r.route.segmentRanges.count == 2, "the fixture's gap splits the route")
        #expect(r.timerLegs.count == 1, "but not the timer")
        let gpx = try parsedExport(r, .gpx)
        #expect(gpx.name == "gpx" && gpx.namespace == "http://www.topografix.com/GPX/1/1")
        #expect(gpx.attributes["version"] == "1.1" && gpx.attributes["creator"] == "librunway")
        let trk = try #require(gpx.first("trk"))
        let segs = trk.all("trkseg")
        // One trkseg: an import reads a trkseg break as a pause, and finds the gap from the times.
        #expect(segs.map { $0.all("trkpt").count } == [r.route.count])
        var i = 0
        for seg in segs {
            for pt in seg.all("trkpt") {
                #expect(Double(pt.attributes["lat"] ?? "") == r.route.latitude(i))
                #expect(Double(pt.attributes["lon"] ?? "") == r.route.longitude(i))
                #expect(pt.first("time")?.text == ISOTime.string(r.route.time(i)))
                let ele = try #require(Double(pt.first("ele")?.text ?? ""))
                #expect(abs(ele - r.route.altitude(i)) <= 0.005)
                let ext = pt.first("extensions")?.first("TrackPointExtension")
                #expect(ext?.namespace == "http://www.garmin.com/xmlschemas/TrackPointExtension/v2")
                #expect(ext?.first("hr")?.text == String(Int(r.route.heartRate(i))))
                // A run's cad counts one foot, as Garmin writes it: the engine's steps ÷ 2, whole.
                #expect(ext?.first("cad")?.text == String(Int((r.route.cadence(i) / 2).rounded())))
                i += 1
            }
        }
        #expect(i == r.route.count && i > 300)
        #expect(segs.first?.all("trkpt").first?.first("time")?.text.hasSuffix(".250Z") == true,
                "fractional seconds keep their milliseconds")
    }

    @Test func gpxLeavesOutWhatIsUnknownInsteadOfWritingZero() throws {
        let r = try ExportFixture.simulated(sensors: false, gap: nil, manualLapAfter: nil, lengthM: 300)
        let bytes = Exporter.export(r, as: .gpx)
        let parsed = ExportXML.parse(bytes)
        let gpx = try #require(parsed)
        let points = gpx.descendants("trkpt")
        #expect(points.count == r.route.count)
        #expect(gpx.descendants("hr").isEmpty && gpx.descendants("cad").isEmpty)
        #expect(!exportText(bytes).contains("nan") && !exportText(bytes).contains("inf"))
    }

    @Test(arguments: places)
    func gpxCoordinatesAreExactInEveryHemisphereAndAcrossTheAntimeridian(_ place: (lat: Double, lon: Double)) throws {
        let r = try ExportFixture.simulated(lat: place.lat, lon: place.lon, gap: nil, manualLapAfter: nil, lengthM: 800)
        let gpx = try parsedExport(r, .gpx)
        let points = gpx.descendants("trkpt")
        #expect(points.count == r.route.count)
        for (i, pt) in points.enumerated() {
            #expect(Double(pt.attributes["lat"] ?? "") == r.route.latitude(i))
            #expect(Double(pt.attributes["lon"] ?? "") == r.route.longitude(i))
        }
    }

    @Test func flightIDsAreEscapedInTheXMLFormats() throws {
        var r = try ExportFixture.simulated(gap: nil, manualLapAfter: nil, lengthM: 300)
        r.flightID = "run <1> & \"two\" 'x'\u{07}"
        let gpx = try parsedExport(r, .gpx)
        #expect(gpx.first("trk")?.first("name")?.text == "run <1> & \"two\" 'x'")
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.descendants("Notes").first?.text == "run <1> & \"two\" 'x'")
    }

    // MARK: TCX

    @Test func tcxHasOneLapPerLapAndEveryPointInTheLapWhoseTimeHoldsIt() throws {
        let r = try ExportFixture.simulated()
        #expect(r.laps.map(\.trigger) == [.auto, .manual, .auto, .final])
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.name == "TrainingCenterDatabase")
        #expect(tcx.namespace == "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2")
        let activity = try #require(tcx.first("Activities")?.first("Activity"))
        #expect(activity.attributes["Sport"] == "Running")
        #expect(activity.first("Id")?.text == ISOTime.string(r.startT))
        let laps = activity.all("Lap")
        #expect(laps.count == r.laps.count)
        #expect(laps.map { $0.first("TriggerMethod")?.text ?? "" } == ["Distance", "Manual", "Distance", "Manual"])
        var total = 0
        for (lap, expected) in zip(laps, r.laps) {
            #expect(lap.attributes["StartTime"] == ISOTime.string(expected.startT))
            #expect(abs((Double(lap.first("DistanceMeters")?.text ?? "") ?? -1) - expected.distanceM) < 0.01)
            #expect(abs((Double(lap.first("TotalTimeSeconds")?.text ?? "") ?? -1) - expected.elapsedS) < 0.001)
            #expect(lap.first("Calories")?.text == "0" && lap.first("Intensity")?.text == "Active")
            #expect(Double(lap.first("AverageHeartRateBpm")?.first("Value")?.text ?? "") == expected.avgHrBpm.rounded())
            // Schema order inside a lap.
            let order = lap.children.map(\.name)
            #expect(order.prefix(8) == ["TotalTimeSeconds", "DistanceMeters", "MaximumSpeed", "Calories",
                                        "AverageHeartRateBpm", "MaximumHeartRateBpm", "Intensity", "TriggerMethod"])
            for point in lap.descendants("Trackpoint") {
                // A run's cadence goes in the ActivityExtension, per foot, as Garmin writes it.
                #expect(point.children.map(\.name) == ["Time", "Position", "AltitudeMeters", "DistanceMeters", "HeartRateBpm", "Extensions"])
                let run = point.first("Extensions")?.first("TPX")?.first("RunCadence")
                #expect(run?.namespace == "http://www.garmin.com/xmlschemas/ActivityExtension/v2")
                #expect(run.flatMap { Double($0.text) }.map { $0 > 80 && $0 < 90 } == true, "170-176 steps per minute are 85-88 strides")
            }
            // The points whose time falls in the lap's span (the last lap takes the rest).
            let last = expected.index == r.laps.count
            let inLap = (0..<r.route.count).filter {
                let t = r.route.time($0)
                return (t >= expected.startT || expected.index == 1) && (last || t < expected.endT)
            }
            #expect(lap.descendants("Trackpoint").count == inLap.count, "lap \(expected.index)")
            #expect(lap.descendants("Trackpoint").first?.first("Time")?.text == inLap.first.flatMap { ISOTime.string(r.route.time($0)) })
            total += lap.descendants("Trackpoint").count
        }
        #expect(total == r.route.count)
        // The gap splits no Track (the timer ran across it): one Track per Lap.
        #expect(laps.map { $0.all("Track").count } == laps.map { _ in 1 })
    }

    @Test func tcxOfAFlightStillInTheAirHasItsLapInProgress() throws {
        let r = try ExportFixture.simulated(stop: false)
        #expect(r.phase == .cruise && r.laps.count == 3)
        let tcx = try parsedExport(r, .tcx)
        let laps = tcx.descendants("Lap")
        #expect(laps.count == 4)
        #expect(tcx.descendants("Trackpoint").count == r.route.count)
        let distances = laps.compactMap { Double($0.first("DistanceMeters")?.text ?? "") }
        #expect(abs(distances.reduce(0, +) - r.distanceM) < 0.05)
    }

    @Test func tcxOfAFlightWithoutLapsIsOneLapOverTheWholeFlight() throws {
        let r = try ExportFixture.simulated(gap: nil, manualLapAfter: nil, lengthM: 600)
        #expect(r.laps.count == 1)   // the final lap
        var noLaps = r
        noLaps.laps = []
        for record in [r, noLaps] {
            let tcx = try parsedExport(record, .tcx)
            let laps = tcx.descendants("Lap")
            #expect(laps.count == 1)
            #expect(laps.first?.attributes["StartTime"] == ISOTime.string(r.startT))
            #expect(abs((Double(laps.first?.first("DistanceMeters")?.text ?? "") ?? 0) - r.distanceM) < 0.01)
            #expect(tcx.descendants("Trackpoint").count == r.route.count)
        }
    }

    @Test func aLandedFlightWhoseLapsDoNotCoverItGetsTheRemainderAsALap() throws {
        var r = try ExportFixture.simulated()
        let final = try #require(r.laps.last)
        r.laps.removeLast()   // as a stored record might lack it
        let laps = r.exportLaps
        #expect(laps.count == 4)
        #expect(abs((laps.last?.distanceM ?? 0) - final.distanceM) < 1e-6)
        #expect(laps.last?.startT == final.startT)
        #expect(laps.map(\.points.count).reduce(0, +) == r.route.count)
        let fitLaps = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(19)
        #expect(fitLaps.map { $0[254] } == [0, 1, 2, 3])
    }

    @Test(arguments: [(Activity.run, "Running"), (.ride, "Biking"), (.walk, "Other")])
    func tcxSportFollowsTheActivity(_ activity: Activity, _ sport: String) throws {
        let r = try ExportFixture.simulated(activity: activity, gap: nil, manualLapAfter: nil, lengthM: 400)
        let tcx = try parsedExport(r, .tcx)
        #expect(tcx.descendants("Activity").first?.attributes["Sport"] == sport)
    }

    // MARK: FIT

    @Test func fitHeaderAndFileCRCsVerifyAndTheDataSizeIsTheMessages() throws {
        let r = try ExportFixture.simulated()
        let bytes = Exporter.export(r, as: .fit)
        let fit = try ExportFITReader.read(bytes)
        let headerCRCOK = fit.headerCRCOK, fileCRCOK = fit.fileCRCOK, dataSize = fit.dataSize
        #expect(headerCRCOK, "header CRC")
        #expect(fileCRCOK, "file CRC")
        #expect(fit.protocolVersion == 0x20)
        #expect(bytes.count == 14 + dataSize + 2)
        // Flipping one data byte must break the file CRC.
        var broken = bytes
        broken[100] ^= 0x01
        let brokenCRCOK = try ExportFITReader.read(broken).fileCRCOK
        #expect(!brokenCRCOK)
    }

    @Test func fitHasTheActivityMessagesInOrderWithARecordPerRoutePoint() throws {
        let r = try ExportFixture.simulated()
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        let order = fit.messages.map(\.global)
        // file_id, device_info, event (timer start), records, event (stop_all), laps, session, activity
        #expect(order.first == 0 && order.dropFirst().first == 23 && order.last == 34)
        #expect(fit.count(20) == r.route.count)
        #expect(fit.count(19) == r.laps.count)
        #expect(fit.count(18) == 1 && fit.count(34) == 1 && fit.count(21) == 2)
        let events = fit.all(21)
        #expect(events.map { $0[0] } == [0, 0] && events.map { $0[1] } == [0, 4], "timer start, timer stop_all")
        let fileID = try #require(fit.all(0).first)
        #expect(fileID[0] == 4 && fileID[1] == 255)
        let session = try #require(fit.all(18).first)
        #expect(session[9] == Int64((r.distanceM * 100).rounded()))
        #expect(session[26] == Int64(r.laps.count))
        #expect(session[5] == 1, "sport running")
        #expect(session[8] == Int64((r.elapsedS * 1000).rounded()))
        #expect(session[2] == Int64(r.startT.rounded(.down)) - 631_065_600)
        let activity = try #require(fit.all(34).first)
        #expect(activity[1] == 1 && activity[2] == 0 && activity[3] == 26 && activity[4] == 1)
        let laps = fit.all(19)
        #expect(laps.map { $0[24] } == [2, 0, 2, 7], "lap_trigger distance, manual, distance, session_end")
        #expect(laps.map { $0[254] } == [0, 1, 2, 3])
        for (lap, expected) in zip(laps, r.laps) {
            #expect(lap[9] == Int64((expected.distanceM * 100).rounded()))
            #expect(lap[8] == Int64((expected.elapsedS * 1000).rounded()))
        }
    }

    @Test func fitRecordsCarryTheFITScalesAndTheInvalidMarkers() throws {
        let r = try ExportFixture.simulated()
        let records = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(20)
        try #require(records.count == r.route.count)
        for i in [0, 1, r.route.count / 2, r.route.count - 1] {
            let m = records[i]
            #expect(m[253] == Int64(r.route.time(i).rounded(.down)) - 631_065_600)
            #expect(m[0] == Int64((r.route.latitude(i) * 2_147_483_648 / 180).rounded()))
            #expect(m[1] == Int64((r.route.longitude(i) * 2_147_483_648 / 180).rounded()))
            #expect(m[2] == Int64(((r.route.altitude(i) + 500) * 5).rounded()))
            #expect(m[5] == Int64((r.route.distanceM(i) * 100).rounded()))
            #expect(m[3] == Int64(r.route.heartRate(i)))
            // Running cadence in strides per minute plus the half stride.
            let spm = r.route.cadence(i)
            #expect(Double(m[4] ?? 0) + Double(m[53] ?? 0) / 128 == spm / 2)
            // A record's speed is the speed its fix came with (the device's), not the engine's ground speed.
            if r.route.deviceSpeedMps(i).isNaN { #expect(m[6] == 0xFFFF) } else { #expect(m[6] == Int64((r.route.deviceSpeedMps(i) * 1000).rounded())) }
        }
        let bare = try ExportFITReader.read(Exporter.export(try ExportFixture.simulated(sensors: false, gap: nil, lengthM: 300), as: .fit)).all(20)
        #expect(bare.allSatisfy { $0[3] == 0xFF && $0[4] == 0xFF && $0[53] == 0xFF }, "no heart rate or cadence: FIT's invalid values")
    }

    @Test func semicirclesWrapAtTheAntimeridianAndAvoidTheInvalidMarker() {
        #expect(FITExporter.semicircles(0) == 0)
        #expect(FITExporter.semicircles(900_000_000) == 1 << 30)
        #expect(FITExporter.semicircles(-900_000_000) == -(1 << 30))
        #expect(FITExporter.semicircles(1_800_000_000) == -(1 << 31), "+180° is −180°")
        #expect(FITExporter.semicircles(-1_800_000_000) == -(1 << 31))
        #expect(FITExporter.semicircles(1_799_999_999) == 0x7FFF_FFFE, "never sint32's invalid 0x7FFFFFFF")
        #expect(FITExporter.semicircles(523_700_000) == Int64((52.37 * 2_147_483_648 / 180).rounded()))
    }

    @Test func fitOfARideIsCyclingWithRPMCadence() throws {
        let r = try ExportFixture.simulated(activity: .ride, gap: nil, manualLapAfter: nil, lengthM: 3000)
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        #expect(fit.all(18).first?[5] == 2)
        let record = try #require(fit.all(20).dropFirst(3).first)
        #expect(record[53] == nil, "no fractional cadence field on a ride")
        #expect(record[4] == Int64(r.route.cadence(3)))
    }

    // MARK: GeoJSON

    @Test func geojsonIsAFeatureWithAMultiLineStringForSeveralSegments() throws {
        let r = try ExportFixture.simulated()
        let root = try JSONInput.object(exportText(Exporter.export(r, as: .geojson)))
        let doc = Dictionary(root.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(doc["type"] == .string("Feature"))
        let geometry = jsonObject(doc["geometry"])
        #expect(geometry["type"] == .string("MultiLineString"))
        let lines = jsonArray(geometry["coordinates"])
        #expect(lines.map { jsonArray($0).count } == r.route.segmentRanges.map(\.count))
        let first = jsonArray(jsonArray(lines.first).first)
        #expect(first == [.number(r.route.longitude(0)), .number(r.route.latitude(0)),
                          .number((r.route.altitude(0) * 100).rounded() / 100)])
        let props = jsonObject(doc["properties"])
        #expect(props["distance_m"] == .number(r.distanceM))
        #expect(props["start_time"] == .string(ISOTime.string(r.startT) ?? ""))
        #expect(props["flight_id"] == .string("flight-run"))
        #expect(jsonArray(props["laps"]).count == r.laps.count)
        #expect(props["avg_hr_bpm"]?.finiteNumber != nil)
    }

    @Test func geojsonIsALineStringForOneSegmentAndWritesUnknownsAsNull() throws {
        let r = try ExportFixture.simulated(sensors: false, gap: nil, manualLapAfter: nil, lengthM: 500)
        let bytes = Exporter.export(r, as: .geojson)
        let doc = Dictionary(try JSONInput.object(exportText(bytes)).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        let geometry = jsonObject(doc["geometry"])
        #expect(geometry["type"] == .string("LineString"))
        #expect(jsonArray(geometry["coordinates"]).count == r.route.count)
        #expect(jsonObject(doc["properties"])["avg_hr_bpm"] == .null)
        #expect(!exportText(bytes).contains("nan"))
    }

    // MARK: CSV

    @Test func csvHasAHeaderAndOneRowPerRoutePoint() throws {
        let r = try ExportFixture.simulated()
        let lines = exportText(Exporter.export(r, as: .csv)).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "ends with a newline")
        let rows = lines.dropLast()
        #expect(rows.count == r.route.count + 1)
        #expect(rows.first == "t,time_iso,lat,lon,alt_m,distance_m,speed_mps,pace_min_per_km,hr_bpm,cadence_spm,segment,power_w")
        let cells = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(cells.allSatisfy { $0.count == 12 })
        #expect(cells.allSatisfy { $0[11].isEmpty }, "no power: empty cells")
        #expect(Set(cells.map { $0[10] }) == ["1", "2"])
        #expect(cells.first?[1] == ISOTime.string(r.route.time(0)))
        #expect(Double(cells.first?[2] ?? "") == r.route.latitude(0))
        #expect(abs((Double(cells.last?[5] ?? "") ?? -1) - r.route.distanceM(r.route.count - 1)) < 0.006)
        let bare = exportText(Exporter.export(try ExportFixture.simulated(sensors: false, gap: nil, lengthM: 300), as: .csv))
        let row = bare.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(row[8].isEmpty && row[9].isEmpty, "unknown heart rate and cadence are empty cells")
    }

    // MARK: Every format

    @Test(arguments: ExportFormat.allCases)
    func aFlightWithNoPointsStillExportsAValidFile(_ format: ExportFormat) throws {
        let records = [FlightComputer().record, try ExportFixture.simulated(gap: nil, manualLapAfter: nil, lengthM: 0)]
        for r in records {
            let bytes = Exporter.export(r, as: format)
            switch format {
            case .gpx, .tcx:
                let parsed = ExportXML.parse(bytes)
                #expect(parsed != nil, "\(format) of an empty flight")
            case .fit:
                let fit = try ExportFITReader.read(bytes)
                let crcOK = fit.headerCRCOK && fit.fileCRCOK, records = fit.count(20), laps = fit.count(19)
                #expect(crcOK && records == r.route.count && laps >= 1)
            case .geojson:
                let parsed = try? JSONInput.object(exportText(bytes))
                #expect(parsed != nil)
            case .csv:
                let lines = exportText(bytes).split(separator: "\n").count
                #expect(lines == r.route.count + 1)
            }
        }
    }

    @Test(arguments: ExportFormat.allCases.filter(\.isText))
    func textExportsAreValidUTF8WithoutNUL(_ format: ExportFormat) throws {
        var r = try ExportFixture.simulated()
        r.flightID = "løb ✓ \u{0}end"
        let bytes = Exporter.export(r, as: format)
        #expect(bytes.withUnsafeBytes { JSONInput.firstInvalidUTF8($0) } == nil)
    }

    // MARK: Files for the Python readers

    /// Writes the fixture flights (and real recordings from ../shared/tracks when present) for
    /// Tests/python/test_exports.py when `RUNWAY_EXPORT_DIR` is set.
    @Test(.enabled(if: ExportDirectory.path != nil, "RUNWAY_EXPORT_DIR is not set"))
    func writeExportsForThePythonReaders() throws {
        let dir = try #require(ExportDirectory.path)
        let flights: [(String, FlightRecord, Bool)] = [
            ("run-two-segments", try ExportFixture.simulated(), true),
            ("run-in-the-air", try ExportFixture.simulated(stop: false), true),
            ("run-gap-and-pause", try ExportLegTests.gapAndPause(), true),
            ("raw-south", try ExportFixture.simulated(lat: -33.87, lon: 151.21, filters: false, sensors: false), false),
            ("empty-preflight", FlightComputer().record, true),
            ("ride-antimeridian", try ExportFixture.simulated(activity: .ride, lat: -16.5, lon: 179.999, filters: false,
                                                              lengthM: 6000), false),
            ("ride-power", TimerFixture.withPower(try ExportFixture.simulated(activity: .ride, filters: false)) {
                $0 % 10 == 3 ? .nan : Double(($0 * 37) % 400) }, false),
        ]
        for (name, r, filters) in flights {
            #expect(ExportDirectory.save(r, name: name, filters: filters, in: dir), "\(name)")
        }
        if let tracks = ExportTests.tracks {
            for file in ["togeojson__Friday-Evening-Run.gpx", "fitparse__activity-small-fenix2-run.fit",
                         "tcxreader__cross-country-skiing_activity_1.tcx"] {
                guard let bytes = SharedTracks.read(tracks + "/fixes/" + file + ".jsonl"),
                      let r = try ExportFixture.replay(jsonl: bytes, id: file) else {
                    Issue.record("could not replay \(file)"); continue
                }
                #expect(ExportDirectory.save(r, name: "track-" + file, filters: false, in: dir), "\(file)")
            }
        }
    }
}
