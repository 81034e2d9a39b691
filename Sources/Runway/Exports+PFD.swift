import CRunwayABI
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

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
