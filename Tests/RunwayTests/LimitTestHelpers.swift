import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
@testable import RunwayStore
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the limit tests (LimitTests.swift): inputs of a given size or depth, and sessions.

/// A JSON object of exactly `bytes` bytes: `head` (an object's text without its closing brace)
/// plus an ignored string field padded to size.
func padded(_ head: String, to bytes: Int) -> String {
    let open = head + #","pad":""#
    let n = bytes - open.utf8.count - 2
    precondition(n >= 0, "test helper: head too long")
    return open + String(repeating: "x", count: n) + "\"}"
}

/// `head` (an object's text without its closing brace) plus an unknown key holding arrays nested
/// so that the whole text is `depth` levels deep (the root object is level 1).
func nested(_ head: String, depth: Int) -> String {
    head + #","x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
}


extension CSession {
    func jsonl(_ text: String) -> (runway_status, Int, Int) {
        var accepted = -1, rejected = -1
        let st = text.withCString { runway_push_jsonl_impl(handle, $0, strlen($0), &accepted, &rejected) }
        return (st, accepted, rejected)
    }

    func lap(_ t: Double = .nan) -> runway_status { runway_lap_impl(handle, t) }

    func flightID() -> String {
        var out: UnsafeMutablePointer<CChar>? = nil
        guard runway_session_flight_id_impl(handle, &out) == RUNWAY_OK, let out else { return "" }
        defer { runway_string_free_impl(out) }
        return String(cString: out)
    }

    func exportGPX() -> (runway_status, Int) {
        var out: UnsafeMutablePointer<CChar>? = nil
        var len = 0
        let st = runway_export_impl(handle, "gpx", &out, &len)
        runway_string_free_impl(out)
        return (st, len)
    }
}

func openStatus(_ config: String) -> runway_status {
    var h: OpaquePointer? = nil
    let st = config.withCString { runway_session_open_impl($0, &h) }
    runway_session_close_impl(h)
    return st
}

extension CSession {
    /// Wraps a handle opened elsewhere (runway_session_recover).
    static func adopt(_ handle: OpaquePointer?) throws -> CSession {
        let s = try CSession()
        runway_session_close_impl(s.handle)
        s.handle = handle
        return s
    }
}
