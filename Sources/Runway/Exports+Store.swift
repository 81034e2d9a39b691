import CRunwayABI
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Flight store

/// A required C string argument: at most 4096 bytes of UTF-8 (a path that is not UTF-8 is
/// refused, not repaired into the name of another file).
func required(_ p: UnsafePointer<CChar>?, _ name: String) throws(RunwayError) -> String {
    guard let p else { throw RunwayError(.argument, "\(name) is NULL") }
    guard strnlen(p, 4097) <= 4096 else { throw RunwayError(.argument, "\(name) is longer than 4096 bytes") }
    guard let s = String(validatingCString: p) else { throw RunwayError(.argument, "\(name) is not valid UTF-8") }
    return s
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
        let s = try Session.recover(storePath: storePath, id: flightID, configText: try string(config, "config"))
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
