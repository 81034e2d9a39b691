/// Builds a FIT file: the 14-byte header, definition and data messages, the file CRC.
///
/// Each `message` call writes a data message with a local message number; a definition message
/// is written first whenever that local number's layout is new or changed, so a definition
/// always precedes its data and the two can never disagree. Values outside their base type's
/// valid range are written as the type's invalid value. Little-endian throughout.
///
/// ```swift
/// var fit = FITWriter()
/// fit.message(global: 0, local: 0, [(FITField(0, .enumeration), .number(4))])   // file_id: activity
/// let bytes = fit.file(profileVersion: 21_100)
/// ```
struct FITWriter {
    private(set) var data: [UInt8] = []
    private var layouts: [UInt8: (global: UInt16, fields: [FITField])] = [:]

    init(capacity: Int = 4096) { data.reserveCapacity(capacity) }

    /// Appends one data message (and its definition when needed).
    ///
    /// - Parameter local: the local message number, 0…15.
    mutating func message(global: UInt16, local: UInt8, _ fields: [(FITField, FITValue)]) {
        let local = local & 0x0F
        let layout = fields.map(\.0)
        if let known = layouts[local], known.global == global, known.fields == layout {
            // Same layout as the last definition of this local number.
        } else {
            define(global: global, local: local, layout)
            layouts[local] = (global, layout)
        }
        data.append(local)   // normal header, data message
        for (field, value) in fields { write(value, as: field) }
    }

    private mutating func define(global: UInt16, local: UInt8, _ fields: [FITField]) {
        data.append(0x40 | local)   // normal header, definition message
        data.append(0)              // reserved
        data.append(0)              // architecture: little-endian
        append(Int64(global), bytes: 2)
        data.append(UInt8(truncatingIfNeeded: fields.count))
        for f in fields {
            data.append(f.number)
            data.append(UInt8(truncatingIfNeeded: f.size))
            data.append(f.type.rawValue)
        }
    }

    private mutating func write(_ value: FITValue, as field: FITField) {
        switch value {
        case .text(let s):
            // NUL-terminated and padded; cut at a character boundary to leave room for the NUL.
            var bytes: [UInt8] = []
            for c in s where bytes.count + c.utf8.count < field.size { bytes.append(contentsOf: c.utf8) }
            bytes.append(contentsOf: repeatElement(0, count: field.size - bytes.count))
            data.append(contentsOf: bytes)
        case .number(let v):
            let type = field.type
            let raw = v.flatMap { type.validRange.contains($0) ? $0 : nil } ?? type.invalid
            append(raw, bytes: type.size)
        }
    }

    private mutating func append(_ v: Int64, bytes: Int) {
        for k in 0..<bytes { data.append(UInt8(truncatingIfNeeded: v >> (8 * k))) }
    }

    /// The whole file: header (protocol 2.0, `profileVersion` = major·1000 + minor, the data
    /// size, ".FIT", header CRC), the messages, and the CRC of everything before it.
    func file(profileVersion: UInt16) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 16)
        let size = UInt32(clamping: data.count)
        out.append(14)
        out.append(0x20)
        out.append(UInt8(truncatingIfNeeded: profileVersion))
        out.append(UInt8(truncatingIfNeeded: profileVersion >> 8))
        for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: size >> (8 * UInt32(k)))) }
        out.append(contentsOf: Array(".FIT".utf8))
        let headerCRC = FITWriter.crc(out)
        out.append(UInt8(truncatingIfNeeded: headerCRC))
        out.append(UInt8(truncatingIfNeeded: headerCRC >> 8))
        out.append(contentsOf: data)
        let fileCRC = FITWriter.crc(out)
        out.append(UInt8(truncatingIfNeeded: fileCRC))
        out.append(UInt8(truncatingIfNeeded: fileCRC >> 8))
        return out
    }

    /// FIT's CRC-16 (CRC-16/ARC: reflected polynomial 0xA001, initial 0), a nibble at a time
    /// with the 16-entry table of the FIT protocol.
    static func crc<C: Collection>(_ bytes: C, initial: UInt16 = 0) -> UInt16 where C.Element == UInt8 {
        var crc = initial
        for byte in bytes {
            var tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int(byte & 0xF)]
            tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    static let crcTable: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                                     0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
}
