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
/// cadence and power samples when it has them; one without a time is dropped (counted as untimed
/// when it has a position). Times are unix seconds (FIT epoch 1989-12-31 + 631065600 s).
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

    /// Message numbers read besides `record`.
    static let sessionMessage: UInt16 = 18, lapMessage: UInt16 = 19, sportMessage: UInt16 = 12
    static let correlationMessage: UInt16 = 162

    /// The reading of one byte buffer holding one or more chained FIT files.
    struct Decoder {
        let b: UnsafeRawBufferPointer
        /// Keep what was read before damage (with a warning) instead of refusing the file.
        let salvage: Bool
        var inputs: [Input] = []
        var report = ImportReport(format: .fit)
        /// Set once damage stopped a salvaging read.
        var stopped = false
        var sessions: [[UInt8: Double]] = []
        var laps: [[UInt8: Double]] = []
        var sportFromSportMessage: Double? = nil

        // Per file: system-time placement.
        /// Indices in `inputs` of this file's inputs stamped in system time (FIT seconds as recorded).
        var systemTimed: [Int] = []
        var systemTimedLaps: [Int] = []
        /// UTC minus system time from a `timestamp_correlation` message.
        var correlation: Double? = nil
        /// The first UTC timestamp of this file and the system time last seen before it.
        var firstUTC: (t: Int64, systemBefore: Int64?)? = nil
        var lastSystemTime: Int64? = nil
        /// Why this file's data is cut short (salvage), for the message that runs into the cut.
        var cutShort: String? = nil

        init(bytes: UnsafeRawBufferPointer, salvage: Bool) {
            b = bytes
            self.salvage = salvage
        }

        /// Refuses the file with `message`, or, when salvaging, keeps what was read and records
        /// the damage as a warning.
        mutating func damaged(_ message: String) throws(RunwayError) {
            guard salvage else { throw .input(message) }
            report.warnings.append(message + "; kept the \(inputs.count) input\(inputs.count == 1 ? "" : "s") read before it (salvage)")
            stopped = true
        }

        mutating func readAll() throws(RunwayError) {
            var start = 0
            var files = 0
            repeat {
                start = try readFile(at: start, chained: files > 0)
                files += 1
            } while !stopped && start < b.count
        }

        /// Reads one FIT file starting at `start`; returns the offset just after it.
        mutating func readFile(at start: Int, chained: Bool) throws(RunwayError) -> Int {
            let available = b.count - start
            let what = chained ? "chained FIT file at byte \(start)" : "FIT file"
            // A first file's header that is not one: nothing to keep, always refused.
            func header(_ message: String) throws(RunwayError) {
                if chained { try damaged(message) } else { throw .input(message) }
            }
            guard available >= 12 else {
                if chained {
                    try damaged("trailing bytes in FIT file: \(available) byte\(available == 1 ? "" : "s") at byte \(start) after the last file's CRC are not a FIT file")
                } else {
                    throw .input("not a FIT file: \(b.count) bytes is shorter than a FIT header")
                }
                return b.count
            }
            guard hasSignature(b, at: start) else {
                if chained {
                    try damaged("trailing bytes in FIT file: the \(available) bytes at byte \(start) after the last file's CRC are not a FIT file (no \".FIT\" signature at byte \(start + 8)): junk or a corrupt chained header")
                } else {
                    throw .input("not a FIT file: no \".FIT\" signature in the header")
                }
                return b.count
            }
            let headerSize = Int(b[start])
            guard headerSize == 12 || headerSize == 14 else {
                try header("corrupt \(what): header size \(headerSize) at byte \(start) is neither 12 nor 14")
                return b.count
            }
            guard headerSize <= available else {
                try header("truncated \(what): the header at byte \(start) is cut short")
                return b.count
            }
            if headerSize >= 14, let stored = load(b, start + 12, 2, bigEndian: false), stored != 0 {
                let computed = crc(b, start..<(start + 12))
                if computed != stored && verifiesCRC {
                    try header("corrupt \(what): header CRC \(hex(stored)) at byte \(start + 12) does not match its bytes (\(hex(computed)))")
                    return b.count
                }
            }
            let dataSize = Int(load(b, start + 4, 4, bigEndian: false) ?? 0)
            let dataStart = start + headerSize
            let dataEnd = dataStart + dataSize
            let crcEnd = dataEnd + 2
            systemTimed = []; systemTimedLaps = []; correlation = nil; firstUTC = nil; lastSystemTime = nil
            let trackIndex = report.tracks.count
            report.tracks.append(ImportReport.Track(index: trackIndex, name: nil))
            let before = inputs.count
            defer { report.tracks[trackIndex].points = inputs.count - before }
            // Strict: the whole file and its CRC are there and match before any record is read.
            var crcProblem: String? = nil
            if dataEnd > b.count {
                crcProblem = "truncated \(what): the header at byte \(start) announces \(dataSize) bytes of data ending at byte \(dataEnd), the file ends at byte \(b.count)"
            } else if crcEnd > b.count {
                crcProblem = "truncated \(what): the file CRC at byte \(dataEnd) is missing (\(b.count - dataEnd) of 2 bytes are there)"
            } else if let stored = load(b, dataEnd, 2, bigEndian: false) {
                let computed = crc(b, start..<dataEnd)
                if computed != stored && verifiesCRC {
                    crcProblem = "corrupt \(what): file CRC \(hex(stored)) at byte \(dataEnd) does not match its data (\(hex(computed)))"
                }
            }
            if let crcProblem, !salvage { throw .input(crcProblem) }
            cutShort = dataEnd > b.count ? crcProblem : nil
            try readMessages(dataStart..<min(dataEnd, b.count), fileStart: start)
            try placeSystemTimes(what: what)
            if let crcProblem, !stopped { try damaged(crcProblem) }
            return min(crcEnd, b.count)
        }

        /// Reads the data records (definition and data messages) in `range`.
        mutating func readMessages(_ range: Range<Int>, fileStart: Int) throws(RunwayError) {
            var definitions = [Definition?](repeating: nil, count: 16)
            var lastTimestamp: Int64? = nil
            var pos = range.lowerBound
            let end = range.upperBound
            while pos < end && !stopped {
                let header = b[pos]
                let at = pos
                pos += 1
                if header & 0x40 != 0 && header & 0x80 == 0 {
                    // Definition message: reserved, architecture, global number, fields, developer fields.
                    guard pos + 5 <= end else { return try cut(at) }
                    let architecture = b[pos + 1]
                    guard architecture <= 1 else {
                        report.unreadable += 1
                        return try damaged("corrupt FIT file: unknown architecture \(architecture) in the definition at byte \(at)")
                    }
                    let big = architecture == 1
                    let global = UInt16(load(b, pos + 2, 2, bigEndian: big) ?? 0)
                    let count = Int(b[pos + 4])
                    pos += 5
                    guard pos + 3 * count <= end else { return try cut(at) }
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
                        guard pos + 1 <= end else { return try cut(at) }
                        let devCount = Int(b[pos])
                        pos += 1
                        guard pos + 3 * devCount <= end else { return try cut(at) }
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
                    report.unreadable += 1
                    return try damaged("corrupt FIT file: data message at byte \(at) uses local message type \(local), which is not defined")
                }
                guard pos + def.size <= end else { return try cut(at) }
                var fieldTime: Int64? = nil
                var record = RecordValues()
                let keepsFields = def.global == sessionMessage || def.global == lapMessage
                    || def.global == sportMessage || def.global == correlationMessage
                var values: [UInt8: Double] = [:]
                var offset = pos
                for f in def.fields {
                    if f.number == 253 {
                        if let v = value(b, offset, f, bigEndian: def.bigEndian), let t = Int64(exactly: v) { fieldTime = t }
                    } else if def.global == recordMessage {
                        record.set(f.number, value(b, offset, f, bigEndian: def.bigEndian))
                    } else if keepsFields, let v = value(b, offset, f, bigEndian: def.bigEndian) {
                        values[f.number] = v
                    }
                    offset += f.size
                }
                pos += def.size
                if let t = fieldTime { lastTimestamp = t }
                let t = fieldTime ?? headerTime
                if let t {
                    if t < systemTimeLimit { lastSystemTime = t }
                    else if firstUTC == nil { firstUTC = (t, lastSystemTime) }
                }
                switch def.global {
                case recordMessage:
                    if let t {
                        let first = inputs.count
                        if record.append(t: Double(t) + epoch, to: &inputs) == .noPosition { report.noPosition += 1 }
                        if t < systemTimeLimit { systemTimed += Array(first..<inputs.count) }
                    } else if record.hasPosition {
                        report.untimed += 1
                        report.tracks[report.tracks.count - 1].untimed += 1
                    }
                case sessionMessage: sessions.append(values)
                case lapMessage:
                    if let start = values[2], start < Double(systemTimeLimit) { systemTimedLaps.append(laps.count) }
                    laps.append(values)
                case sportMessage:
                    if sportFromSportMessage == nil { sportFromSportMessage = values[0] }
                case correlationMessage:
                    // timestamp (253, UTC) and system_timestamp (1), each with its 1/32768 s fraction (0, 2).
                    if correlation == nil, let utc = fieldTime, let system = values[1] {
                        correlation = Double(utc) + (values[0] ?? 0) / 32768 - system - (values[2] ?? 0) / 32768
                    }
                default: break
                }
            }
        }

        /// The message at `at` runs past the end of the data.
        mutating func cut(_ at: Int) throws(RunwayError) {
            report.unreadable += 1
            if let cutShort { return try damaged(cutShort + "; the message at byte \(at) is cut") }
            try damaged("truncated or corrupt FIT file: the message at byte \(at) runs past the end of the data")
        }

        /// Gives this file's system-time inputs UTC times: by its `timestamp_correlation`, else by
        /// its first UTC timestamp (taken as the moment of the system time last seen before it).
        mutating func placeSystemTimes(what: String) throws(RunwayError) {
            guard !systemTimed.isEmpty else { return }
            let offset: Double
            if let correlation {
                offset = correlation
                report.warnings.append("\(systemTimed.count) record\(systemTimed.count == 1 ? "" : "s") of the \(what) stamped in device system time placed by its timestamp_correlation")
            } else if let utc = firstUTC, let system = utc.systemBefore {
                offset = Double(utc.t - system)
                report.warnings.append("\(systemTimed.count) record\(systemTimed.count == 1 ? "" : "s") of the \(what) stamped in device system time placed by its first UTC timestamp (taken as the moment of the system time before it; approximate)")
            } else {
                let message = "the \(what) stamps \(systemTimed.count) record\(systemTimed.count == 1 ? "" : "s") in device system time (seconds since power-on, below 0x10000000) and has no timestamp_correlation or UTC timestamp to place them"
                guard salvage else { throw .input(message) }
                // Salvage: the records cannot be placed; they are left out.
                let drop = Set(systemTimed)
                inputs = inputs.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
                report.unreadable += drop.count
                report.warnings.append(message + "; they were left out (salvage)")
                return
            }
            for k in systemTimed { inputs[k] = inputs[k].withTime(inputs[k].t + offset) }
            for k in systemTimedLaps {
                if let s = laps[k][2] { laps[k][2] = s + offset }
            }
        }

        /// The report with sport, activity and device totals, after every file was read.
        mutating func finish() -> ImportedRecording {
            let sportCode = sessions.lazy.compactMap { $0[5] }.first ?? sportFromSportMessage ?? laps.lazy.compactMap { $0[25] }.first
            report.sport = sportCode.map { FITReader.sportName(Int($0)) }
            if !sessions.isEmpty || !laps.isEmpty {
                var d = ImportReport.DeviceTotals()
                // Session fields: total_elapsed_time 7, total_timer_time 8 (ms), total_distance 9 (cm),
                // total_calories 11, total_ascent 22, total_descent 23, avg_power 20, max_power 21,
                // normalized_power 34. Several sessions (a chain, multisport) add up.
                let source = sessions.isEmpty ? laps : sessions
                let isLap = sessions.isEmpty
                func sum(_ field: UInt8, _ scale: Double) -> Double {
                    let v = source.compactMap { $0[field] }
                    return v.isEmpty ? .nan : v.reduce(0, +) / scale
                }
                d.elapsedS = sum(7, 1000)
                d.timerS = sum(8, 1000)
                d.distanceM = sum(9, 100)
                d.caloriesKcal = sum(11, 1)
                d.ascentM = sum(isLap ? 21 : 22, 1)
                d.descentM = sum(isLap ? 22 : 23, 1)
                let maxima = source.compactMap { $0[isLap ? 20 : 21] }
                d.maxPowerW = maxima.max() ?? .nan
                if source.count == 1 {
                    d.avgPowerW = source[0][isLap ? 19 : 20] ?? .nan
                    d.normalizedPowerW = source[0][isLap ? 33 : 34] ?? .nan
                }
                // Lap fields: start_time 2, total_elapsed_time 7, total_timer_time 8, total_distance 9,
                // total_ascent 21.
                d.laps = laps.map { l in
                    ImportReport.DeviceLap(startT: l[2].map { $0 + epoch } ?? .nan,
                                           distanceM: l[9].map { $0 / 100 } ?? .nan,
                                           timerS: l[8].map { $0 / 1000 } ?? .nan,
                                           elapsedS: l[7].map { $0 / 1000 } ?? .nan,
                                           ascentM: l[21] ?? .nan)
                }
                report.device = d
            }
            report.cadenceToStepsPerMinute(&inputs)
            report.inputs = inputs.count
            let damage = report.warnings
            report.warnings = []
            report.warnAboutLeftOut()
            report.warnings = damage + report.warnings
            return ImportedRecording(inputs: inputs, report: report)
        }
    }

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

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
