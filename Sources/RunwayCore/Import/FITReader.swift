/// Decodes the `record` messages of a FIT file (Garmin's Flexible and Interoperable Data Transfer
/// protocol) into fixes and samples, and its session, lap and sport messages into the import
/// report, without a library.
///
/// Handles 12- and 14-byte headers (the header CRC is checked when it is not 0), definition
/// messages for the 16 local message types in either byte order, developer fields (skipped),
/// compressed timestamp headers, invalid values (absent), and chained FIT files one after another.
///
/// Damage is refused (strict, the default) with a message naming the byte offset: a file whose
/// data or 2-byte file CRC is cut short, a header or file CRC that does not match, a chained file
/// whose header is corrupt, bytes after the last file's CRC that are not a FIT file. With
/// `ImportOptions.salvage` the inputs read before the damage are kept and the damage is the
/// report's first warning (a message that could not be decoded counts as `unreadable`).
///
/// From `record` (global message 20): timestamp (253), position_lat/long (0, 1; semicircles →
/// degrees), enhanced_altitude (78) else altitude (2) (scale 5, offset 500 m), enhanced_speed (73)
/// else speed (6) (scale 1000), heart_rate (3), cadence (4) plus fractional_cadence (53, /128),
/// power (7, W) and gps_accuracy (31, metres) as `h_acc`. Cadence counts one foot on foot (strides
/// per minute): it becomes steps per minute, (cadence + fractional_cadence) × 2, when the file's
/// sport is running/walking/hiking, stays rpm for cycling, and is kept as recorded, with a
/// warning, when the file names no sport. A record with a position becomes a fix; one without becomes heart-rate,
/// cadence, power and speed samples when it has them (its speed a wheel sensor's or a foot pod's),
/// and an altimeter sample of its altitude (the device's own, as its fixes' `alt`: a bike computer
/// riding before its GPS has a lock records the climb);
/// one without a time is dropped (counted as untimed when it has a position). Times are unix seconds (FIT epoch 1989-12-31 + 631065600 s).
/// Timestamps below 0x10000000 are the device's system time (seconds since power-on): they are
/// placed by the file's `timestamp_correlation` (162), else by its first UTC timestamp (taken as
/// the moment of the system time seen last before it), each with a warning, else refused.
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

    static func read(_ bytes: UnsafeRawBufferPointer, options: ImportOptions = ImportOptions()) throws(RunwayError) -> ImportedRecording {
        var decoder = Decoder(bytes: bytes, salvage: options.salvage)
        try decoder.readAll()
        return decoder.finish()
    }

    static func hasSignature(_ b: UnsafeRawBufferPointer, at start: Int) -> Bool {
        start >= 0 && start + 12 <= b.count
            && b[start + 8] == 0x2E && b[start + 9] == 0x46 && b[start + 10] == 0x49 && b[start + 11] == 0x54
    }

    /// Timestamps below this are the device's "system time" (seconds since it powered on), not UTC.
    static let systemTimeLimit: Int64 = 0x1000_0000

    /// The values a timestamp (field 253, a `date_time`: uint32, 0xFFFFFFFF invalid) can hold. A
    /// file may declare the field with another base type (sint64, uint64); a value outside these
    /// is read as the invalid value, as in a uint32 field: a record with no other time is untimed
    /// (reported). The times then stay far inside Int64, so the compressed headers' and the
    /// system times' arithmetic cannot overflow (a uint64 time of 2^63 − 1024 followed by
    /// compressed headers trapped the host, as did a sint64 time of −2^63 among system times).
    static let dateTimes: ClosedRange<Int64> = 0...0xFFFF_FFFE

    /// Message numbers read besides `record`.
    static let sessionMessage: UInt16 = 18, lapMessage: UInt16 = 19, sportMessage: UInt16 = 12, deviceInfoMessage: UInt16 = 23
    static let correlationMessage: UInt16 = 162, eventMessage: UInt16 = 21


    /// The FIT profile's name of a `sport` value (as Garmin's SDK names it), or "sport_N".
    static func sportName(_ code: Int) -> String {
        let names = ["generic", "running", "cycling", "transition", "fitness_equipment", "swimming", "basketball",
                     "soccer", "tennis", "american_football", "training", "walking", "cross_country_skiing",
                     "alpine_skiing", "snowboarding", "rowing", "mountaineering", "hiking", "multisport", "paddling",
                     "flying", "e_biking", "motorcycling", "boating", "driving", "golf", "hang_gliding",
                     "horseback_riding", "hunting", "fishing", "inline_skating", "rock_climbing", "sailing",
                     "ice_skating", "sky_diving", "snowshoeing", "snowmobiling", "stand_up_paddleboarding", "surfing",
                     "wakeboarding", "water_skiing", "kayaking", "rafting", "windsurfing", "kitesurfing", "tactical",
                     "jumpmaster", "boxing", "floor_climbing", "baseball"]
        if code >= 0 && code < names.count { return names[code] }
        switch code {
        case 53: return "diving"
        case 62: return "hiit"
        case 64: return "racket"
        case 254: return "all"
        default: return "sport_\(code)"
        }
    }

    /// The values of one `record` message that librunway uses (NaN = absent).
    struct RecordValues {
        var lat = Double.nan, lon = Double.nan
        var altitude = Double.nan, enhancedAltitude = Double.nan
        var speed = Double.nan, enhancedSpeed = Double.nan
        var hr = Double.nan, cadence = Double.nan, fractionalCadence = Double.nan
        var accuracy = Double.nan, power = Double.nan

        var hasPosition: Bool { !lat.isNaN && !lon.isNaN }

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
            case 7: power = v
            case 53: fractionalCadence = v / 128
            case 31: accuracy = v
            default: break
            }
        }

        enum Kind { case fix, noPosition }

        @discardableResult
        func append(t: Double, to inputs: inout [Input]) -> Kind {
            let spm = cadence.isNaN || fractionalCadence.isNaN ? cadence : cadence + fractionalCadence
            if hasPosition {
                inputs.append(.fix(Fix(t: t, lat: lat, lon: lon,
                                       alt: enhancedAltitude.isNaN ? altitude : enhancedAltitude,
                                       speed: enhancedSpeed.isNaN ? speed : enhancedSpeed,
                                       hAcc: accuracy, hr: hr, cadence: spm, power: power)))
                return .fix
            }
            if !hr.isNaN { inputs.append(.sample(.heartRate(bpm: hr, t: t))) }
            if !spm.isNaN { inputs.append(.sample(.cadence(spm: spm, t: t))) }
            if !power.isNaN { inputs.append(.sample(.power(watts: power, t: t))) }
            // Speed without a position is a speed sensor's (a wheel sensor, a foot pod): a speed
            // sample (one no sensor could give, a corrupt value, is left out).
            let v = enhancedSpeed.isNaN ? speed : enhancedSpeed
            if v >= 0 && v <= ValidatedInput.sensorSpeedMaxMps { inputs.append(.sample(.speed(mps: v, t: t))) }
            let alt = enhancedAltitude.isNaN ? altitude : enhancedAltitude
            // (An altitude no altimeter sample may have, a corrupt value, is left out.)
            if ValidatedInput.altimeterRangeM.contains(alt) { inputs.append(.sample(.altimeter(alt: alt, t: t))) }
            return .noPosition
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

    /// The FIT CRC-16 of `range` (the part inside `b`): the writer's CRC.
    static func crc(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt64 {
        let lo = max(0, range.lowerBound), hi = min(b.count, range.upperBound)
        guard lo < hi else { return 0 }
        return UInt64(FITWriter.crc(b[lo..<hi]))
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
