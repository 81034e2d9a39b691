import CRunwayABI
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Export and import

/// Copies bytes into a malloc'd buffer with a NUL after them (FIT may hold NULs: the length
/// is what counts), writing both outputs.
func giveBuffer(_ bytes: [UInt8], _ out: StringOut, _ len: UnsafeMutablePointer<Int>?) throws(RunwayError) {
    guard let p = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else {
        throw RunwayError(.internal, "out of memory")
    }
    bytes.withUnsafeBufferPointer { buf in
        if let base = buf.baseAddress { memcpy(p, base, buf.count) }
    }
    p[bytes.count] = 0
    out.pointee = p
    len?.pointee = bytes.count
}

func format(_ p: UnsafePointer<CChar>?) throws(RunwayError) -> ExportFormat {
    try ExportFormat.named(try required(p, "format"))
}

@_cdecl("runway_export")
public func runway_export_impl(_ handle: SessionHandle?, _ fmt: UnsafePointer<CChar>?, _ out: StringOut?,
                               _ len: UnsafeMutablePointer<Int>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        let f = try format(fmt)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        // The length is the buffer's size (a FIT file holds NUL bytes): every format needs it.
        guard let len else { throw RunwayError(.argument, "len is NULL") }
        try giveBuffer(Exporter.export(s.record(), as: f), out, len)
    }
}

@_cdecl("runway_flight_export")
public func runway_flight_export_impl(_ path: UnsafePointer<CChar>?, _ id: UnsafePointer<CChar>?,
                                      _ fmt: UnsafePointer<CChar>?, _ out: StringOut?,
                                      _ len: UnsafeMutablePointer<Int>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let storePath = try required(path, "store_path"), flightID = try required(id, "flight_id")
        let f = try format(fmt)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        guard let len else { throw RunwayError(.argument, "len is NULL") }
        let record = try Session.storedRecord(storePath: storePath, id: flightID)
        try giveBuffer(Exporter.export(record, as: f), out, len)
    }
}

@_cdecl("runway_import")
public func runway_import_impl(_ fmt: UnsafePointer<CChar>?, _ bytes: UnsafePointer<CChar>?, _ len: Int,
                               _ out: StringOut?, _ outLen: UnsafeMutablePointer<Int>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let (f, options) = try Importer.format(try required(fmt, "format"))
        let all = try buffer(bytes, len, "bytes")
        guard let out else { throw RunwayError(.argument, "jsonl_out is NULL") }
        let text = try Importer.jsonLines(all, as: f, options: options)
        try giveBuffer(text, out, outLen)
    }
}

@_cdecl("runway_replay_config")
public func runway_replay_config_impl(_ report: UnsafePointer<CChar>?, _ config: UnsafePointer<CChar>?,
                                      _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        guard let report else { throw RunwayError(.argument, "report_line is NULL") }
        guard let out else { throw RunwayError(.argument, "out_json is NULL") }
        if let config, case let n = strnlen(config, JSONInput.maxInputBytes + 1), n > JSONInput.maxInputBytes {
            throw JSONInput.tooLarge(n, "config", atLeast: true)
        }
        // (Every line runway_import writes is within the limit that runway_push_jsonl keeps.)
        // The "\n" (or "\r\n") that may follow is not the line's: the push counts a line
        // without it, so the limit does too.
        let cap = JSONInput.maxInputBytes + 3
        var n = strnlen(report, cap)
        if n < cap, n > 0, report[n - 1] == 0x0A {
            n -= 1
            if n > 0, report[n - 1] == 0x0D { n -= 1 }
        }
        if n >= cap { throw JSONInput.tooLarge(JSONInput.maxInputBytes + 1, "report_line", atLeast: true) }
        if n > JSONInput.maxInputBytes { throw JSONInput.tooLarge(n, "report_line") }
        let line = UnsafeRawBufferPointer(start: report, count: n)
        let text = try ReplayConfig.text(reportLine: line, config: try string(config, "config"))
        out.pointee = try mallocString(Array(text.utf8))
    }
}

/// `runway_analyse`'s work up to the result: the options checked, the recording analysed.
func analyse(_ options: UnsafePointer<CChar>?, _ bytes: UnsafePointer<CChar>?, _ len: Int,
             _ out: StringOut?) throws(RunwayError) -> (AnalysisOptions, RecordingAnalysis, StringOut) {
    if let options, case let n = strnlen(options, JSONInput.maxInputBytes + 1), n > JSONInput.maxInputBytes {
        throw JSONInput.tooLarge(n, "options", atLeast: true)
    }
    let parsed = try AnalysisOptions.parse(try string(options, "options"))
    let all = try buffer(bytes, len, "bytes")
    guard let out else { throw RunwayError(.argument, "out is NULL") }
    let analysis = try RecordingAnalysis.run(all, options: parsed)
    return (parsed, analysis, out)
}

@_cdecl("runway_analyse")
public func runway_analyse_impl(_ options: UnsafePointer<CChar>?, _ bytes: UnsafePointer<CChar>?, _ len: Int,
                                _ out: StringOut?, _ outLen: UnsafeMutablePointer<Int>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let (parsed, analysis, out) = try analyse(options, bytes, len, out)
        var w = JSONWriter(capacity: 1024 + (parsed.route ? analysis.flight.route.count * 48 : 0))
        analysis.write(to: &w, route: parsed.route)
        try giveBuffer(w.bytes, out, outLen)
    }
}

public typealias RouteOut = UnsafeMutablePointer<UnsafeMutablePointer<runway_route_point>?>

/// The route's points as a malloc'd array of structs (nil for an empty route): what the JSON
/// route says, alt NaN where it has null.
func mallocRoute(_ route: Route) throws(RunwayError) -> UnsafeMutablePointer<runway_route_point>? {
    let n = route.count
    guard n > 0 else { return nil }
    let (size, overflow) = n.multipliedReportingOverflow(by: MemoryLayout<runway_route_point>.stride)
    guard !overflow, let raw = malloc(size) else { throw RunwayError(.internal, "out of memory") }
    let p = raw.bindMemory(to: runway_route_point.self, capacity: n)
    for i in 0..<n {
        let alt = route.altitude(i)
        p[i] = runway_route_point(lat: route.latitude(i), lon: route.longitude(i),
                                  alt: alt.isFinite ? alt : .nan, t: route.time(i))
    }
    return p
}

@_cdecl("runway_analyse_route")
public func runway_analyse_route_impl(_ options: UnsafePointer<CChar>?, _ bytes: UnsafePointer<CChar>?, _ len: Int,
                                      _ out: StringOut?, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ routeOut: RouteOut?, _ routeLen: UnsafeMutablePointer<Int>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        guard let routeOut else { throw RunwayError(.argument, "route_out is NULL") }
        guard let routeLen else { throw RunwayError(.argument, "route_len is NULL") }
        let (parsed, analysis, out) = try analyse(options, bytes, len, out)
        var w = JSONWriter(capacity: 1024 + (parsed.route ? analysis.flight.route.count * 8 : 0))
        analysis.write(to: &w, route: parsed.route, routePoints: false)
        let points = parsed.route ? try mallocRoute(analysis.flight.route) : nil
        do throws(RunwayError) {
            try giveBuffer(w.bytes, out, outLen)
        } catch {
            free(points)
            throw error
        }
        routeOut.pointee = points
        routeLen.pointee = points == nil ? 0 : analysis.flight.route.count
    }
}

@_cdecl("runway_route_free")
public func runway_route_free_impl(_ p: UnsafeMutablePointer<runway_route_point>?) { free(p) }
