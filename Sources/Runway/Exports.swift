import CRunwayABI
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// The C ABI of include/runway.h. Every entry point converts its arguments, runs the call through
// `withStatus` (the one place that maps a thrown RunwayError to a runway_status and the thread's
// last-error message) and writes outputs only on success. Nothing here traps on input.

public typealias SessionHandle = OpaquePointer

/// Runs `body`; maps a thrown error to its status and records its message for this thread.
@inline(__always)
func withStatus(_ body: () throws(RunwayError) -> Void) -> runway_status {
    do {
        try body()
        return RUNWAY_OK
    } catch {
        return fail(error)
    }
}

func fail(_ error: RunwayError) -> runway_status {
    ThreadState.setError(error.message)
    return runway_status(rawValue: error.status.rawValue)
}

/// The session behind a handle, or an argument error for NULL.
@inline(__always)
func session(_ handle: SessionHandle?) throws(RunwayError) -> Session {
    guard let handle else { throw RunwayError(.argument, "session is NULL") }
    return Unmanaged<Session>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

/// Copies bytes (NUL-terminated or not) into a malloc'd C string for the caller to free.
func mallocString(_ bytes: [UInt8]) throws(RunwayError) -> UnsafeMutablePointer<CChar> {
    let n = bytes.last == 0 ? bytes.count : bytes.count + 1
    guard let p = malloc(n)?.assumingMemoryBound(to: CChar.self) else {
        throw RunwayError(.internal, "out of memory")
    }
    bytes.withUnsafeBufferPointer { buf in
        if let base = buf.baseAddress { memcpy(p, base, buf.count) }
    }
    p[n - 1] = 0
    return p
}

func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

// MARK: - Library

@_cdecl("runway_abi_version")
public func runway_abi_version_impl() -> UInt32 { UInt32(RUNWAY_ABI_VERSION) }

@_cdecl("runway_version")
public func runway_version_impl() -> UnsafePointer<CChar>? { ThreadState.staticCString(RunwayVersion.string) }

@_cdecl("runway_last_error")
public func runway_last_error_impl() -> UnsafePointer<CChar>? { ThreadState.lastError }

@_cdecl("runway_status_string")
public func runway_status_string_impl(_ status: runway_status) -> UnsafePointer<CChar>? {
    guard let known = RunwayStatus(rawValue: status.rawValue) else { return ThreadState.staticCString("unknown status") }
    return ThreadState.staticCString(known.text)
}

@_cdecl("runway_string_free")
public func runway_string_free_impl(_ p: UnsafeMutablePointer<CChar>?) { free(p) }

// MARK: - Sessions

@_cdecl("runway_session_open")
public func runway_session_open_impl(_ config: UnsafePointer<CChar>?,
                                     _ out: UnsafeMutablePointer<SessionHandle?>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        if let config, case let n = strlen(config), n > JSONInput.maxInputBytes {
            throw JSONInput.tooLarge(n, "config")
        }
        let text = string(config)
        let parsed = try EngineConfig.parse(text)
        let s = try Session(config: parsed, configText: text)
        if s.liveClock { Ticker.shared.register(s) }
        out.pointee = OpaquePointer(Unmanaged.passRetained(s).toOpaque())
    }
}

@_cdecl("runway_session_close")
public func runway_session_close_impl(_ handle: SessionHandle?) {
    guard let handle else { return }
    let unmanaged = Unmanaged<Session>.fromOpaque(UnsafeRawPointer(handle))
    let s = unmanaged.takeUnretainedValue()
    guard s.close() else {
        ThreadState.setError("runway_session_close called from inside one of the session's callbacks: nothing was closed (it would wait on itself); close it from another thread")
        return
    }
    if s.liveClock { Ticker.shared.unregister(s) }
    unmanaged.release()
}

// MARK: - Inputs

@_cdecl("runway_push_json")
public func runway_push_json_impl(_ handle: SessionHandle?, _ json: UnsafePointer<CChar>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let json else { throw RunwayError(.argument, "json is NULL") }
        // Reads at most one byte past the limit: a longer text is refused without measuring it.
        let n = strnlen(json, JSONInput.maxInputBytes + 1)
        let input: Input?
        do throws(RunwayError) {
            guard n <= JSONInput.maxInputBytes else { throw JSONInput.tooLarge(n, atLeast: true) }
            input = try InputDecoder.decodeLine(UnsafeRawBufferPointer(start: json, count: n))
        } catch {
            s.reject(error)
            throw error
        }
        // An import report (runway_import's last line) is accepted and ignored: no state, no event.
        guard let input else { return }
        try s.process(input)
    }
}

@_cdecl("runway_push_jsonl")
public func runway_push_jsonl_impl(_ handle: SessionHandle?, _ buf: UnsafePointer<CChar>?, _ len: Int,
                                   _ accepted: UnsafeMutablePointer<Int>?,
                                   _ rejected: UnsafeMutablePointer<Int>?) -> runway_status {
    accepted?.pointee = 0
    rejected?.pointee = 0
    return withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let buf else {
            if len == 0 { return }
            throw RunwayError(.argument, "buf is NULL")
        }
        let all = UnsafeRawBufferPointer(start: buf, count: len)
        var acceptedCount = 0, total = 0
        var firstError: (line: Int, error: RunwayError)? = nil
        var batch: [(line: Int, input: Result<Input, RunwayError>)] = []
        batch.reserveCapacity(256)
        var lineNo = 0
        var start = 0
        while start < len {
            var end = start
            while end < len && all[end] != 0x0A { end += 1 }
            lineNo += 1
            var stop = end
            if stop > start && all[stop - 1] == 0x0D { stop -= 1 }
            var first = start
            while first < stop && JSONInput.isSpace(all[first]) { first += 1 }
            if first < stop {
                total += 1
                if stop - start > JSONInput.maxInputBytes {
                    // Not parsed: the line (without its terminator) is over the limit.
                    batch.append((lineNo, .failure(JSONInput.tooLarge(stop - start, "line"))))
                } else {
                    let line = UnsafeRawBufferPointer(rebasing: all[first..<stop])
                    do throws(RunwayError) {
                        if let input = try InputDecoder.decodeLine(line) {
                            batch.append((lineNo, .success(input)))
                        } else {
                            acceptedCount += 1  // an import report: accepted and ignored
                        }
                    } catch {
                        batch.append((lineNo, .failure(error)))
                    }
                }
                if batch.count == 256 {
                    s.process(batch: batch, accepted: &acceptedCount, firstError: &firstError)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            start = end + 1
        }
        if !batch.isEmpty { s.process(batch: batch, accepted: &acceptedCount, firstError: &firstError) }
        accepted?.pointee = acceptedCount
        rejected?.pointee = total - acceptedCount
        if let firstError {
            throw RunwayError(firstError.error.status,
                              "line \(firstError.line): \(firstError.error.message) (\(total - acceptedCount) of \(total) lines rejected)")
        }
    }
}

@_cdecl("runway_push_fix")
public func runway_push_fix_impl(_ handle: SessionHandle?, _ fix: UnsafePointer<runway_fix>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let fix else { throw RunwayError(.argument, "fix is NULL") }
        let f = fix.pointee
        let input: Input
        do throws(RunwayError) {
            guard f.lat.isFinite, f.lon.isFinite else { throw RunwayError(.input, "fix needs finite lat and lon") }
            guard f.t.isNaN || f.t.isFinite else { throw RunwayError(.input, "t must be finite (or NaN = now)") }
            if f.alt.isInfinite || f.speed.isInfinite || f.course.isInfinite || f.h_acc.isInfinite || f.v_acc.isInfinite {
                throw RunwayError(.input, "alt, speed, course, h_acc and v_acc must be finite (or NaN = unknown)")
            }
            input = .fix(try Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course,
                                 hAcc: f.h_acc, vAcc: f.v_acc).validated())
        } catch {
            s.reject(error)
            throw error
        }
        try s.process(input)
    }
}

@_cdecl("runway_tick")
public func runway_tick_impl(_ handle: SessionHandle?, _ t: Double) -> runway_status {
    withStatus { () throws(RunwayError) in try session(handle).tick(at: t) }
}

// MARK: - Phases

func phaseCall(_ handle: SessionHandle?, _ command: PhaseCommand, _ t: Double) -> runway_status {
    withStatus { () throws(RunwayError) in try session(handle).command(command, at: t) }
}

@_cdecl("runway_start")
public func runway_start_impl(_ s: SessionHandle?, _ t: Double) -> runway_status { phaseCall(s, .start, t) }

@_cdecl("runway_pause")
public func runway_pause_impl(_ s: SessionHandle?, _ t: Double) -> runway_status { phaseCall(s, .pause, t) }

@_cdecl("runway_resume")
public func runway_resume_impl(_ s: SessionHandle?, _ t: Double) -> runway_status { phaseCall(s, .resume, t) }

@_cdecl("runway_stop")
public func runway_stop_impl(_ s: SessionHandle?, _ t: Double) -> runway_status { phaseCall(s, .stop, t) }

@_cdecl("runway_lap")
public func runway_lap_impl(_ s: SessionHandle?, _ t: Double) -> runway_status {
    withStatus { () throws(RunwayError) in try session(s).lap(at: t) }
}

// MARK: - Outputs

public typealias StringOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

@_cdecl("runway_snapshot_json")
public func runway_snapshot_json_impl(_ handle: SessionHandle?, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        var w = JSONWriter()
        s.snapshot().write(to: &w)
        out.pointee = try mallocString(w.finishCString())
    }
}

@_cdecl("runway_summary_json")
public func runway_summary_json_impl(_ handle: SessionHandle?, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        let core = s.coreCopy()
        var w = JSONWriter(capacity: 256 + core.route.count * 48)
        core.writeSummary(to: &w)
        out.pointee = try mallocString(w.finishCString())
    }
}

@_cdecl("runway_log_json")
public func runway_log_json_impl(_ handle: SessionHandle?, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        let lines = s.coreCopy().log.lines
        var w = JSONWriter()
        w.beginArray()
        for line in lines { line.write(to: &w) }
        w.endArray()
        out.pointee = try mallocString(w.finishCString())
    }
}

// MARK: - Subscriptions

@_cdecl("runway_subscribe")
public func runway_subscribe_impl(_ handle: SessionHandle?, _ options: UnsafePointer<CChar>?,
                                  _ fn: runway_event_fn?, _ user: UnsafeMutableRawPointer?,
                                  _ outID: UnsafeMutablePointer<UInt64>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let outID else { throw RunwayError(.argument, "out_id is NULL") }
        if let options, case let n = strlen(options), n > JSONInput.maxInputBytes {
            throw JSONInput.tooLarge(n, "options")
        }
        let parsed = try SubscriptionOptions.parse(string(options))
        let target = fn.map { CallbackTarget(fn: $0, user: user) }
        outID.pointee = try s.subscribe(options: parsed, target: target)
    }
}

@_cdecl("runway_poll")
public func runway_poll_impl(_ handle: SessionHandle?, _ id: UInt64, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        if let payload = try s.poll(id) {
            out.pointee = try mallocString(payload.bytes)
        } else {
            out.pointee = nil
        }
    }
}

@_cdecl("runway_unsubscribe")
public func runway_unsubscribe_impl(_ handle: SessionHandle?, _ id: UInt64) -> runway_status {
    withStatus { () throws(RunwayError) in try session(handle).unsubscribe(id) }
}

// MARK: - Flight store

/// A required C string argument.
func required(_ p: UnsafePointer<CChar>?, _ name: String) throws(RunwayError) -> String {
    guard let p else { throw RunwayError(.argument, "\(name) is NULL") }
    guard strnlen(p, 4097) <= 4096 else { throw RunwayError(.argument, "\(name) is longer than 4096 bytes") }
    return String(cString: p)
}

@_cdecl("runway_session_flight_id")
public func runway_session_flight_id_impl(_ handle: SessionHandle?, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        out.pointee = try mallocString(Array((s.flightID ?? "").utf8))
    }
}

@_cdecl("runway_session_recover")
public func runway_session_recover_impl(_ path: UnsafePointer<CChar>?, _ id: UnsafePointer<CChar>?,
                                        _ config: UnsafePointer<CChar>?,
                                        _ out: UnsafeMutablePointer<SessionHandle?>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let storePath = try required(path, "store_path"), flightID = try required(id, "flight_id")
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        if let config, case let n = strlen(config), n > JSONInput.maxInputBytes {
            throw JSONInput.tooLarge(n, "config")
        }
        let s = try Session.recover(storePath: storePath, id: flightID, configText: string(config))
        if s.liveClock { Ticker.shared.register(s) }
        out.pointee = OpaquePointer(Unmanaged.passRetained(s).toOpaque())
    }
}

@_cdecl("runway_flight_finish")
public func runway_flight_finish_impl(_ path: UnsafePointer<CChar>?, _ id: UnsafePointer<CChar>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        try Session.finishRecovered(storePath: try required(path, "store_path"), id: try required(id, "flight_id"))
    }
}

@_cdecl("runway_flights_json")
public func runway_flights_json_impl(_ path: UnsafePointer<CChar>?, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let storePath = try required(path, "store_path")
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        out.pointee = try mallocString(try Session.flightsJSON(storePath: storePath))
    }
}

@_cdecl("runway_flight_json")
public func runway_flight_json_impl(_ path: UnsafePointer<CChar>?, _ id: UnsafePointer<CChar>?, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let storePath = try required(path, "store_path"), flightID = try required(id, "flight_id")
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        out.pointee = try mallocString(try Session.flightJSON(storePath: storePath, id: flightID))
    }
}

@_cdecl("runway_flight_delete")
public func runway_flight_delete_impl(_ path: UnsafePointer<CChar>?, _ id: UnsafePointer<CChar>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        try Session.deleteFlight(storePath: try required(path, "store_path"), id: try required(id, "flight_id"))
    }
}

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
        let record = try Session.storedRecord(storePath: storePath, id: flightID)
        try giveBuffer(Exporter.export(record, as: f), out, len)
    }
}

@_cdecl("runway_import")
public func runway_import_impl(_ fmt: UnsafePointer<CChar>?, _ bytes: UnsafePointer<CChar>?, _ len: Int,
                               _ out: StringOut?, _ outLen: UnsafeMutablePointer<Int>?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let (f, options) = try Importer.format(try required(fmt, "format"))
        guard let bytes, len >= 0 else { throw RunwayError(.argument, "bytes is NULL") }
        guard let out else { throw RunwayError(.argument, "jsonl_out is NULL") }
        let text = try Importer.jsonLines(UnsafeRawBufferPointer(start: bytes, count: len), as: f, options: options)
        try giveBuffer(text, out, outLen)
    }
}

// MARK: - PFD formatting

/// Writes `text` snprintf-style; returns the full length.
func writeC(_ text: String, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    let utf8 = Array(text.utf8)
    if let buf, cap > 0 {
        let n = min(utf8.count, cap - 1)
        utf8.withUnsafeBufferPointer { src in
            if let base = src.baseAddress { memcpy(buf, base, n) }
        }
        buf[n] = 0
    }
    return utf8.count
}

@_cdecl("runway_format_pace")
public func runway_format_pace_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.pace(v), buf, cap)
}

@_cdecl("runway_format_pace_tape")
public func runway_format_pace_tape_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.paceTape(v).joined(separator: " "), buf, cap)
}

@_cdecl("runway_format_direction")
public func runway_format_direction_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.direction(v), buf, cap)
}

@_cdecl("runway_format_heading_tape")
public func runway_format_heading_tape_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.headingTape(v).joined(separator: " "), buf, cap)
}

@_cdecl("runway_format_time")
public func runway_format_time_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.time(v), buf, cap)
}

@_cdecl("runway_format_distance")
public func runway_format_distance_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.distance(v), buf, cap)
}

@_cdecl("runway_format_altitude")
public func runway_format_altitude_impl(_ v: Double, _ buf: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int {
    writeC(PFD.altitude(v), buf, cap)
}
