import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// A small FIT activity written byte by byte, with its own (bitwise) CRC, for what the real
/// recordings lack: big-endian definitions, developer fields, compressed timestamps, invalid values.
enum FITFile {
    /// The first record's FIT timestamp.
    static let start: Double = 1_000_000_000

    static func semicircles(_ degrees: Double) -> Int32 { Int32((degrees / 180 * 2_147_483_648).rounded()) }
    static func degrees(_ d: Double) -> Double { Double(semicircles(d)) * (180 / 2_147_483_648) }

    static func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
    static func be<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

    /// `unplacedAltitude`: the raw enhanced altitude of the last record, which has no position.
    static func sample(headerSize: Int = 14, fileCRC: Bool = true, unplacedAltitude: UInt32 = 2562) -> [UInt8] {
        let t0 = UInt32(start)
        var d: [UInt8] = []
        // Local 0: event (global 21), timestamp only; it sets the time base too.
        d += [0x40, 0, 0] + le(UInt16(21)) + [1, 253, 4, 0x86]
        d += [0x00] + le(t0 - 100)
        // Developer data id (global 207) and the field description (206) of developer field 0: 3 bytes.
        d += [0x44, 0, 0] + le(UInt16(207)) + [1, 3, 1, 0x02] + [0x04, 0]
        d += [0x44, 0, 0] + le(UInt16(206)) + [4, 0, 1, 0x02, 1, 1, 0x02, 2, 1, 0x02, 3, 4, 0x07]
        d += [0x04, 0, 0, 0x0D] + Array("dev\0".utf8)
        // Local 1: record, little-endian, every field librunway reads, plus a 3-byte developer field.
        d += [0x61, 0, 0] + le(UInt16(20)) + [11,
              253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 78, 4, 0x86, 6, 2, 0x84, 73, 4, 0x86,
              3, 1, 0x02, 4, 1, 0x02, 53, 1, 0x02, 31, 1, 0x02] + [1, 0, 3, 0]
        func record1(_ t: UInt32, _ lat: Int32, _ lon: Int32, alt: UInt16, ealt: UInt32, speed: UInt16, espeed: UInt32,
                     hr: UInt8, cad: UInt8, frac: UInt8, acc: UInt8) -> [UInt8] {
            [0x01] + le(t) + le(lat) + le(lon) + le(alt) + le(ealt) + le(speed) + le(espeed) + [hr, cad, frac, acc] + [9, 9, 9]
        }
        d += record1(t0, semicircles(52.0), semicircles(4.0), alt: 2550, ealt: 2562, speed: 3000, espeed: 3100,
                     hr: 150, cad: 85, frac: 64, acc: 4)
        // Invalid enhanced values fall back to altitude/speed; invalid HR, cadence and accuracy are absent.
        d += record1(t0 + 1, semicircles(52.0001), semicircles(4.0), alt: 2550, ealt: 0xFFFF_FFFF, speed: 3000,
                     espeed: 0xFFFF_FFFF, hr: 0xFF, cad: 0xFF, frac: 0xFF, acc: 0xFF)
        // Local 2: big-endian record without a timestamp, for compressed timestamp headers.
        d += [0x42, 0, 1] + be(UInt16(20)) + [4, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 3, 1, 0x02]
        func compressed(_ t: UInt32, _ lat: Int32, _ lon: Int32, alt: UInt16, hr: UInt8) -> [UInt8] {
            [0x80 | (2 << 5) | UInt8(t & 0x1F)] + be(lat) + be(lon) + be(alt) + [hr]
        }
        d += compressed(t0 + 4, semicircles(-33.9), semicircles(-151.2), alt: 2600, hr: 151)
        d += compressed(t0 + 34, semicircles(-33.9001), semicircles(-151.2), alt: 2601, hr: 152)  // wraps the 5 bits
        // Local 3: record without a position: heart rate and cadence become samples.
        d += [0x43, 0, 0] + le(UInt16(20)) + [3, 253, 4, 0x86, 3, 1, 0x02, 4, 1, 0x02]
        d += [0x03] + le(t0 + 40) + [140, 80]
        // A record without any valid time is dropped.
        d += record1(0xFFFF_FFFF, semicircles(1), semicircles(1), alt: 2550, ealt: 2562, speed: 0, espeed: 0,
                     hr: 1, cad: 1, frac: 0, acc: 1)
        // An invalid latitude means no position: its heart rate is a sample.
        d += record1(t0 + 41, 0x7FFF_FFFF, semicircles(4.0), alt: 2550, ealt: unplacedAltitude, speed: 0, espeed: 0,
                     hr: 141, cad: 0xFF, frac: 0xFF, acc: 0xFF)
        return wrap(d, headerSize: headerSize, fileCRC: fileCRC)
    }

    static func wrap(_ data: [UInt8], headerSize: Int, fileCRC: Bool) -> [UInt8] {
        var f: [UInt8] = [UInt8(headerSize), 0x20] + le(UInt16(2132)) + le(UInt32(data.count)) + Array(".FIT".utf8)
        if headerSize == 14 { f += le(crc(f)) }
        f += data
        if fileCRC { f += le(crc(f)) }
        return f
    }

    /// CRC-16/ARC (reflected polynomial 0xA001), bit by bit: the FIT CRC without its nibble table.
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        var c: UInt16 = 0
        for b in bytes {
            c ^= UInt16(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xA001 : c >> 1 }
        }
        return c
    }
}
