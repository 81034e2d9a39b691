import CRunwayABI
#if canImport(Glibc)
import Glibc
#endif
@testable import Runway
@testable import RunwayCore

/// Collects events delivered to a C callback; `user` points at it.
final class Recorder: @unchecked Sendable {
    let lock = Lock()
    lazy var changed = Lock.Condition(lock)
    private(set) var events: [String] = []
    /// Runs inside the callback, after recording (nil: nothing).
    var onEvent: (@Sendable (Recorder, String) -> Void)?
    var threads: Set<UInt> = []
    /// Blocks deliveries while closed (to build up a backlog).
    var gateOpen = true
    /// A callback is waiting at the closed gate.
    var blocked = false

    var user: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static let callback: runway_event_fn = { json, user in
        guard let json, let user else { return }
        let r = Unmanaged<Recorder>.fromOpaque(user).takeUnretainedValue()
        let text = String(cString: json)
        r.lock.withLock {
            while !r.gateOpen { r.blocked = true; r.changed.broadcast(); r.changed.wait() }
            r.blocked = false
            r.events.append(text)
            r.threads.insert(UInt(pthread_self()))
            r.changed.broadcast()
        }
        r.onEvent?(r, text)
    }

    var count: Int { lock.withLock { events.count } }
    var snapshot: [String] { lock.withLock { events } }

    func release() { lock.withLock { gateOpen = true; changed.broadcast() } }
    func hold() { lock.withLock { gateOpen = false } }

    /// Waits until `predicate` holds over the events, at most `seconds`.
    @discardableResult
    func wait(seconds: Double = 10, until predicate: ([String]) -> Bool) -> Bool {
        let deadline = WallClock.now() + seconds
        return lock.withLock {
            while !predicate(events) {
                let left = deadline - WallClock.now()
                if left <= 0 { return false }
                changed.wait(seconds: min(left, 0.1))
            }
            return true
        }
    }
}

/// A session opened through the C ABI, closed on deinit.
final class CSession: @unchecked Sendable {
    var handle: OpaquePointer?

    init(_ config: String? = nil) throws {
        var h: OpaquePointer? = nil
        let st: runway_status = config.map { c in c.withCString { runway_session_open_impl($0, &h) } }
            ?? runway_session_open_impl(nil, &h)
        guard st == RUNWAY_OK else { throw RunwayError(.argument, String(cString: runway_last_error_impl()!)) }
        handle = h
    }

    /// A session opened otherwise (`runway_session_recover`), closed on deinit.
    init(handle: OpaquePointer?) { self.handle = handle }

    deinit { runway_session_close_impl(handle) }

    @discardableResult
    func push(_ json: String) -> runway_status { json.withCString { runway_push_json_impl(handle, $0) } }

    @discardableResult
    func fix(_ t: Double, _ lat: Double, _ lon: Double = 4) -> runway_status {
        push("{\"t\":\(t),\"lat\":\(lat),\"lon\":\(lon)}")
    }

    func subscribe(_ options: String? = nil, _ recorder: Recorder?) -> (runway_status, UInt64) {
        var id: UInt64 = 0
        let fn: runway_event_fn? = recorder == nil ? nil : Recorder.callback
        let st = options.map { o in o.withCString { runway_subscribe_impl(handle, $0, fn, recorder?.user, &id) } }
            ?? runway_subscribe_impl(handle, nil, fn, recorder?.user, &id)
        return (st, id)
    }

    func poll(_ id: UInt64) -> (runway_status, String?) {
        var out: UnsafeMutablePointer<CChar>? = nil
        let st = runway_poll_impl(handle, id, &out)
        defer { runway_string_free_impl(out) }
        return (st, out.map { String(cString: $0) })
    }

    func snapshot() -> String { string(runway_snapshot_json_impl) }
    func summary() -> String { string(runway_summary_json_impl) }
    func log() -> String { string(runway_log_json_impl) }

    private func string(_ f: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> runway_status) -> String {
        var out: UnsafeMutablePointer<CChar>? = nil
        guard f(handle, &out) == RUNWAY_OK, let out else { return "" }
        defer { runway_string_free_impl(out) }
        return String(cString: out)
    }

    @discardableResult func start(_ t: Double = .nan) -> runway_status { runway_start_impl(handle, t) }
    @discardableResult func pause(_ t: Double = .nan) -> runway_status { runway_pause_impl(handle, t) }
    @discardableResult func resume(_ t: Double = .nan) -> runway_status { runway_resume_impl(handle, t) }
    @discardableResult func stop(_ t: Double = .nan) -> runway_status { runway_stop_impl(handle, t) }

    func close() {
        runway_session_close_impl(handle)
        handle = nil
    }
}

func lastError() -> String { String(cString: runway_last_error_impl()!) }

/// The value of a top-level number field in a flat JSON text (tests only).
func field(_ name: String, in json: String) -> Double? {
    guard let rest = after("\"\(name)\":", in: json) else { return nil }
    return Double(String(rest.prefix { "0123456789.-+eE".contains($0) }))
}

func kind(_ json: String) -> String {
    guard let rest = after("\"kind\":\"", in: json) else { return "" }
    return String(rest.prefix { $0 != "\"" })
}

/// The text after the first occurrence of `needle` (no Foundation here).
func after(_ needle: String, in text: String) -> Substring? {
    let n = Array(needle.utf8), t = Array(text.utf8)
    guard n.count <= t.count else { return nil }
    for i in 0...(t.count - n.count) where t[i] == n[0] && Array(t[i..<(i + n.count)]) == n {
        return Substring(String(decoding: t[(i + n.count)...], as: UTF8.self))
    }
    return nil
}

extension String {
    func has(_ needle: String) -> Bool { after(needle, in: self) != nil }
}
