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

/// Runs `body` with the session behind a handle, without retaining it (the host holds the handle
/// for the whole call: runway.h forbids closing a session while another call on it runs).
@inline(__always)
func withSession(_ handle: SessionHandle?, _ body: (Session) throws(RunwayError) -> Void) throws(RunwayError) {
    guard let handle else { throw RunwayError(.argument, "session is NULL") }
    var failure: RunwayError? = nil
    Unmanaged<Session>.fromOpaque(UnsafeRawPointer(handle))._withUnsafeGuaranteedRef { s in
        do throws(RunwayError) { try body(s) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// Copies bytes (NUL-terminated or not) into a malloc'd C string for the caller to free.
func mallocString(_ bytes: [UInt8]) throws(RunwayError) -> UnsafeMutablePointer<CChar> {
    try bytes.withUnsafeBufferPointer { (buf) throws(RunwayError) in try mallocString(buf) }
}

func mallocString(_ bytes: UnsafeBufferPointer<UInt8>) throws(RunwayError) -> UnsafeMutablePointer<CChar> {
    let n = bytes.last == 0 ? bytes.count : bytes.count + 1
    guard let p = malloc(n)?.assumingMemoryBound(to: CChar.self) else {
        throw RunwayError(.internal, "out of memory")
    }
    if let base = bytes.baseAddress { memcpy(p, base, bytes.count) }
    p[n - 1] = 0
    return p
}

/// A buffer argument: `len` bytes from `p` (`name` the pointer's name in the header). NULL is
/// an argument error unless `len` is 0 and `emptyMayBeNull`; so is a `len` over PTRDIFF_MAX
/// (a size_t that Swift reads as a negative Int: no buffer is that long).
func buffer(_ p: UnsafePointer<CChar>?, _ len: Int, _ name: String,
            emptyMayBeNull: Bool = false) throws(RunwayError) -> UnsafeRawBufferPointer {
    guard len >= 0 else { throw RunwayError(.argument, "len \(UInt(bitPattern: len)) is over PTRDIFF_MAX: no buffer is that long") }
    guard let p else {
        if emptyMayBeNull && len == 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
        throw RunwayError(.argument, "\(name) is NULL")
    }
    return UnsafeRawBufferPointer(start: p, count: len)
}

/// A JSON text argument (a config, options) as a String; nil for NULL. Invalid UTF-8 is
/// `RUNWAY_ERR_JSON`, as in any JSON text: repaired, it would name other files and keys.
func string(_ p: UnsafePointer<CChar>?, _ name: String) throws(RunwayError) -> String? {
    guard let p else { return nil }
    guard let s = String(validatingCString: p) else { throw RunwayError(.json, "\(name) \(notUTF8(p))") }
    return s
}

/// Where a C string stops being UTF-8, for its message: "is not valid UTF-8 at byte 17, after
/// `{"store":"/tmp/st`" (up to 32 bytes before; a path in a config names itself). The string
/// is known to be invalid somewhere before its NUL.
func notUTF8(_ p: UnsafePointer<CChar>) -> String {
    let b = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self)
    var i = 0
    scan: while b[i] != 0 {
        let c = b[i]
        var need = 0, low: UInt8 = 0x80, high: UInt8 = 0xBF   // the first continuation's range
        switch c {
        case 0x00...0x7F: i += 1; continue scan
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; low = 0xA0
        case 0xED: need = 2; high = 0x9F
        case 0xE1...0xEF: need = 2
        case 0xF0: need = 3; low = 0x90
        case 0xF4: need = 3; high = 0x8F
        case 0xF1...0xF3: need = 3
        default: break scan
        }
        for k in 1...need {
            let d = b[i + k]   // (a NUL ends the string before any byte past it is read: it is no continuation)
            guard k == 1 ? (d >= low && d <= high) : (d >= 0x80 && d <= 0xBF) else { break scan }
        }
        i += need + 1
    }
    var from = max(0, i - 32)
    while from < i, b[from] & 0xC0 == 0x80 { from += 1 }   // (from a character's first byte)
    let before = String(decoding: UnsafeBufferPointer(start: b + from, count: i - from), as: UTF8.self)
    return "is not valid UTF-8 at byte \(i)" + (i > 0 ? ", after `\(before)`" : "")
}

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
        let text = try string(config, "config")
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
        let request: FlightDriver.Request?
        var unknownKeys: Unmanaged<UnknownInputKeys>? = nil   // (ours when set)
        do throws(RunwayError) {
            guard n <= JSONInput.maxInputBytes else { throw JSONInput.tooLarge(n, atLeast: true) }
            request = try InputDecoder.decodeLine(UnsafeRawBufferPointer(start: json, count: n), unknownKeys: &unknownKeys)
        } catch {
            s.reject(error)
            throw error
        }
        // An import report (runway_import's last line) is accepted and ignored: no state, no event.
        // A start, pause or resume line is the command, refused and logged as an input is.
        guard let request else { return }
        try s.process(request, unknownKeys: unknownKeys)
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
        let all = try buffer(buf, len, "buf", emptyMayBeNull: true)
        guard let buf else { return }   // (0 bytes)
        var acceptedCount = 0, total = 0
        var firstError: (line: Int, error: RunwayError)? = nil
        var batch: [(line: Int, request: Result<FlightDriver.Request, RunwayError>)] = []
        batch.reserveCapacity(256)
        // The batch's lines with keys no line reads (rare), warned of once taken.
        var unknownKeys: [(line: Int, keys: UnknownInputKeys)] = []
        var lineNo = 0
        var start = 0
        while start < len {
            // The line's end: memchr is vectorised (a byte loop cost ~4 instructions a byte).
            let end = memchr(buf + start, 0x0A, len - start).map { UnsafePointer<CChar>(OpaquePointer($0)) - buf } ?? len
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
                    var unknown: Unmanaged<UnknownInputKeys>? = nil
                    do throws(RunwayError) {
                        if let request = try InputDecoder.decodeLine(line, unknownKeys: &unknown) {
                            batch.append((lineNo, .success(request)))
                            if let unknown { unknownKeys.append((lineNo, unknown.takeRetainedValue())) }
                        } else {
                            acceptedCount += 1  // an import report: accepted and ignored
                        }
                    } catch {
                        batch.append((lineNo, .failure(error)))
                    }
                }
                if batch.count == 256 {
                    s.process(batch: batch, unknownKeys: unknownKeys, accepted: &acceptedCount, firstError: &firstError)
                    batch.removeAll(keepingCapacity: true)
                    if !unknownKeys.isEmpty { unknownKeys.removeAll() }
                }
            }
            start = end + 1
        }
        if !batch.isEmpty {
            s.process(batch: batch, unknownKeys: unknownKeys, accepted: &acceptedCount, firstError: &firstError)
        }
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
        try withSession(handle) { (s) throws(RunwayError) in
            guard let fix else { throw RunwayError(.argument, "fix is NULL") }
            let f = fix.pointee
            let input: ValidatedInput
            do throws(RunwayError) {
                input = try ValidatedInput(podFix: Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course,
                                                       hAcc: f.h_acc, vAcc: f.v_acc))
            } catch {
                s.reject(error)
                throw error
            }
            try s.process(input)
        }
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
        let data = s.snapshot()
        var w = JSONWriter(capacity: 1536 + 96 * data.metrics.count)
        data.write(to: &w)
        // The writer's malloc'd buffer is the string (freed by runway_string_free), no copy.
        if let text = w.takeCString() { out.pointee = text; return }
        out.pointee = try w.withBytes { (b) throws(RunwayError) in try mallocString(b) }
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
        let parsed = try SubscriptionOptions.parse(try string(options, "options"))
        let target = fn.map { CallbackTarget(fn: $0, user: user) }
        outID.pointee = try s.subscribe(options: parsed, target: target)
    }
}

@_cdecl("runway_poll")
public func runway_poll_impl(_ handle: SessionHandle?, _ id: UInt64, _ out: StringOut?) -> runway_status {
    withStatus { () throws(RunwayError) in
        let s = try session(handle)
        guard let out else { throw RunwayError(.argument, "out is NULL") }
        try s.poll(id) { (buf) throws(RunwayError) in
            out.pointee = try buf.map { (b) throws(RunwayError) in try mallocString(b) }
        }
    }
}

@_cdecl("runway_unsubscribe")
public func runway_unsubscribe_impl(_ handle: SessionHandle?, _ id: UInt64) -> runway_status {
    withStatus { () throws(RunwayError) in try session(handle).unsubscribe(id) }
}
