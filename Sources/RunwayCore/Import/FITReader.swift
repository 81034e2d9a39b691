/// Decodes the `record` messages of a FIT file (Garmin's Flexible and Interoperable Data Transfer
/// protocol) into fixes and samples, without a library.
///
/// Handles 12- and 14-byte headers (the header CRC is checked when it is not 0), the file CRC
/// (checked when present; a mismatch is an error), definition messages for the 16 local message
/// types in either byte order, developer fields (skipped), compressed timestamp headers, invalid
/// values (absent), and chained FIT files one after another.
///
/// From `record` (global message 20): timestamp (253), position_lat/long (0, 1; semicircles →
/// degrees), enhanced_altitude (78) else altitude (2) (scale 5, offset 500 m), enhanced_speed (73)
/// else speed (6) (scale 1000), heart_rate (3), cadence (4) plus fractional_cadence (53, /128), and
/// gps_accuracy (31, metres) as `h_acc`. Cadence is as recorded (running watches count one foot).
/// A record with a position becomes a fix; one without becomes heart-rate and cadence samples when
/// it has them; one without a time is dropped. Times are unix seconds (FIT epoch 1989-12-31 +
/// 631065600 s).
///
/// Every read is bounds-checked: a truncated or corrupt file is an `.input` error, never a trap.
enum FITReader {
    /// Seconds from the unix epoch to the FIT epoch (1989-12-31T00:00:00Z).
    static let epoch: Double = 631_065_600
    static let recordMessage: UInt16 = 20

    struct FieldDefinition {
        var number: UInt8
        var size: Int
        var baseType: UInt8
    }

    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [FieldDefinition]
        /// Bytes of the message's content (fields plus developer fields).
        var size: Int
    }

    static func read(_ bytes: UnsafeRawBufferPointer) throws(RunwayError) -> [Input] {
        var inputs: [Input] = []
        var start = 0
        repeat {
            start = try readFile(bytes, at: start, into: &inputs)
        } while start + 12 <= bytes.count && hasSignature(bytes, at: start)
        return inputs
    }

    static func hasSignature(_ b: UnsafeRawBufferPointer, at start: Int) -> Bool {
        start >= 0 && start + 12 <= b.count
            && b[start + 8] == 0x2E && b[start + 9] == 0x46 && b[start + 10] == 0x49 && b[start + 11] == 0x54
    }

    /// Reads one FIT file starting at `start`; returns the offset just after it.
    static func readFile(_ b: UnsafeRawBufferPointer, at start: Int, into inputs: inout [Input]) throws(RunwayError) -> Int {
        let available = b.count - start
        guard available >= 12 else {
            throw .input(start == 0 ? "not a FIT file: \(b.count) bytes is shorter than a FIT header"
                                    : "truncated FIT file: a header at byte \(start) is cut short")
        }
        guard hasSignature(b, at: start) else { throw .input("not a FIT file: no \".FIT\" signature in the header") }
        let headerSize = Int(b[start])
        guard headerSize >= 12 else { throw .input("corrupt FIT file: header size \(headerSize) is below 12 bytes") }
        guard headerSize <= available else { throw .input("truncated FIT file: the header is cut short") }
        let dataSize = Int(load(b, start + 4, 4, bigEndian: false) ?? 0)
        if headerSize >= 14, let stored = load(b, start + 12, 2, bigEndian: false), stored != 0 {
            let computed = crc(b, start..<(start + 12))
            guard computed == stored || !verifiesCRC else {
                throw .input("corrupt FIT file: header CRC \(hex(stored)) does not match its bytes (\(hex(computed)))")
            }
        }
        let dataStart = start + headerSize
        let dataEnd = dataStart + dataSize
        guard dataEnd <= b.count else {
            throw .input("truncated FIT file: the header announces \(dataSize) bytes of data, \(b.count - dataStart) are there")
        }
        var end = dataEnd
        if dataEnd + 2 <= b.count, let stored = load(b, dataEnd, 2, bigEndian: false) {
            let computed = crc(b, start..<dataEnd)
            guard computed == stored || !verifiesCRC else {
                throw .input("corrupt FIT file: file CRC \(hex(stored)) does not match its data (\(hex(computed)))")
            }
            end = dataEnd + 2
        }
        try readMessages(b, dataStart..<dataEnd, into: &inputs)
        return end
    }

    /// Reads the data records (definition and data messages) in `range`.
    static func readMessages(_ b: UnsafeRawBufferPointer, _ range: Range<Int>, into inputs: inout [Input]) throws(RunwayError) {
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: Int64? = nil
        var pos = range.lowerBound
        let end = range.upperBound
        while pos < end {
            let header = b[pos]
            let at = pos
            pos += 1
            if header & 0x40 != 0 && header & 0x80 == 0 {
                // Definition message: reserved, architecture, global number, fields, developer fields.
                guard pos + 5 <= end else { throw truncated(at) }
                let architecture = b[pos + 1]
                guard architecture <= 1 else {
                    throw .input("corrupt FIT file: unknown architecture \(architecture) in the definition at byte \(at)")
                }
                let big = architecture == 1
                let global = UInt16(load(b, pos + 2, 2, bigEndian: big) ?? 0)
                let count = Int(b[pos + 4])
                pos += 5
                guard pos + 3 * count <= end else { throw truncated(at) }
                var fields: [FieldDefinition] = []
                fields.reserveCapacity(count)
                var size = 0
                for k in 0..<count {
                    let f = FieldDefinition(number: b[pos + 3 * k], size: Int(b[pos + 3 * k + 1]), baseType: b[pos + 3 * k + 2])
                    size += f.size
                    fields.append(f)
                }
                pos += 3 * count
                if header & 0x20 != 0 {
                    guard pos + 1 <= end else { throw truncated(at) }
                    let devCount = Int(b[pos])
                    pos += 1
                    guard pos + 3 * devCount <= end else { throw truncated(at) }
                    for k in 0..<devCount { size += Int(b[pos + 3 * k + 1]) }
                    pos += 3 * devCount
                }
                definitions[Int(header & 0x0F)] = Definition(global: global, bigEndian: big, fields: fields, size: size)
                continue
            }
            // Data message, with a normal or a compressed timestamp header.
            let local: Int
            var headerTime: Int64? = nil
            if header & 0x80 != 0 {
                local = Int((header >> 5) & 0x03)
                if let last = lastTimestamp {
                    let offset = Int64(header & 0x1F)
                    let t = (last & ~0x1F) + offset + (offset < (last & 0x1F) ? 0x20 : 0)
                    headerTime = t
                    lastTimestamp = t
                }
            } else {
                local = Int(header & 0x0F)
            }
            guard let def = definitions[local] else {
                throw .input("corrupt FIT file: data message at byte \(at) uses local message type \(local), which is not defined")
            }
            guard pos + def.size <= end else { throw truncated(at) }
            var fieldTime: Int64? = nil
            var record = RecordValues()
            var offset = pos
            for f in def.fields {
                if f.number == 253 {
                    if let v = value(b, offset, f, bigEndian: def.bigEndian), let t = Int64(exactly: v) { fieldTime = t }
                } else if def.global == recordMessage {
                    record.set(f.number, value(b, offset, f, bigEndian: def.bigEndian))
                }
                offset += f.size
            }
            pos += def.size
            if let t = fieldTime { lastTimestamp = t }
            if def.global == recordMessage, let t = fieldTime ?? headerTime {
                record.append(t: Double(t) + epoch, to: &inputs)
            }
        }
    }

    /// The values of one `record` message that librunway uses (NaN = absent).
    struct RecordValues {
        var lat = Double.nan, lon = Double.nan
        var altitude = Double.nan, enhancedAltitude = Double.nan
        var speed = Double.nan, enhancedSpeed = Double.nan
        var hr = Double.nan, cadence = Double.nan, fractionalCadence = Double.nan
        var accuracy = Double.nan

        mutating func set(_ field: UInt8, _ v: Double?) {
            guard let v else { return }
            switch field {
            case 0: lat = v * (180.0 / 2_147_483_648.0)
            case 1: lon = v * (180.0 / 2_147_483_648.0)
            case 2: altitude = v / 5 - 500
            case 78: enhancedAltitude = v / 5 - 500
            case 6: speed = v / 1000
            case 73: enhancedSpeed = v / 1000
            case 3: hr = v
            case 4: cadence = v
            case 53: fractionalCadence = v / 128
            case 31: accuracy = v
            default: break
            }
        }

        func append(t: Double, to inputs: inout [Input]) {
            let spm = cadence.isNaN || fractionalCadence.isNaN ? cadence : cadence + fractionalCadence
            if !lat.isNaN && !lon.isNaN {
                inputs.append(.fix(Fix(t: t, lat: lat, lon: lon,
                                       alt: enhancedAltitude.isNaN ? altitude : enhancedAltitude,
                                       speed: enhancedSpeed.isNaN ? speed : enhancedSpeed,
                                       hAcc: accuracy, hr: hr, cadence: spm)))
            } else {
                if !hr.isNaN { inputs.append(.sample(.heartRate(bpm: hr, t: t))) }
                if !spm.isNaN { inputs.append(.sample(.cadence(spm: spm, t: t))) }
            }
        }
    }

    /// A field's value (its first element, for arrays) by its base type; nil when the field holds
    /// the type's invalid value, is not a number, or is shorter than its type.
    static func value(_ b: UnsafeRawBufferPointer, _ offset: Int, _ f: FieldDefinition, bigEndian: Bool) -> Double? {
        let type = f.baseType & 0x1F
        let width: Int
        switch type {
        case 0, 1, 2, 10, 13: width = 1
        case 3, 4, 11: width = 2
        case 5, 6, 8, 12: width = 4
        case 9, 14, 15, 16: width = 8
        default: return nil  // string or unknown
        }
        guard f.size >= width, let raw = load(b, offset, width, bigEndian: bigEndian) else { return nil }
        switch type {
        case 0, 2, 13: return raw == 0xFF ? nil : Double(raw)
        case 1: return raw == 0x7F ? nil : Double(Int8(truncatingIfNeeded: raw))
        case 3: return raw == 0x7FFF ? nil : Double(Int16(truncatingIfNeeded: raw))
        case 4: return raw == 0xFFFF ? nil : Double(raw)
        case 5: return raw == 0x7FFF_FFFF ? nil : Double(Int32(truncatingIfNeeded: raw))
        case 6: return raw == 0xFFFF_FFFF ? nil : Double(raw)
        case 8:
            guard raw != 0xFFFF_FFFF else { return nil }
            let v = Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))
            return v.isFinite ? v : nil
        case 9:
            guard raw != UInt64.max else { return nil }
            let v = Double(bitPattern: raw)
            return v.isFinite ? v : nil
        case 10, 11, 12, 16: return raw == 0 ? nil : Double(raw)
        case 14: return raw == 0x7FFF_FFFF_FFFF_FFFF ? nil : Double(Int64(bitPattern: raw))
        default: return raw == UInt64.max ? nil : Double(raw)  // 15: uint64
        }
    }

    /// `width` bytes at `offset` as an unsigned integer in the given byte order; nil when they are
    /// not all inside `b`.
    static func load(_ b: UnsafeRawBufferPointer, _ offset: Int, _ width: Int, bigEndian: Bool) -> UInt64? {
        guard offset >= 0, width >= 1, width <= 8, offset <= b.count - width else { return nil }
        var v: UInt64 = 0
        for k in 0..<width {
            let byte = UInt64(b[bigEndian ? offset + k : offset + width - 1 - k])
            v = v << 8 | byte
        }
        return v
    }

    /// False only in the fuzzing build (`-DFUZZING`, Tests/fuzz/run.sh), where a CRC would stop
    /// every mutation of a record at the door; the CRC is still computed there.
    #if FUZZING
    static let verifiesCRC = false
    #else
    static let verifiesCRC = true
    #endif

    /// The FIT CRC-16 of `range` (the part inside `b`): the writer's CRC.
    static func crc(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt64 {
        let lo = max(0, range.lowerBound), hi = min(b.count, range.upperBound)
        guard lo < hi else { return 0 }
        return UInt64(FITWriter.crc(b[lo..<hi]))
    }

    static func truncated(_ at: Int) -> RunwayError {
        .input("truncated or corrupt FIT file: the message at byte \(at) runs past the end of the data")
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
