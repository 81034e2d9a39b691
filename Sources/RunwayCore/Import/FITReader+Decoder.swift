extension FITReader {
    /// The reading of one byte buffer holding one or more chained FIT files.
    struct Decoder {
        let b: UnsafeRawBufferPointer
        /// Keep what was read before damage (with a warning) instead of refusing the file.
        let salvage: Bool
        var inputs: [Input] = []
        var report = ImportReport(format: .fit)
        /// Set once damage stopped a salvaging read.
        var stopped = false
        /// The session and lap messages' fields, each kept up to `ImportReport.maxDeviceLaps`
        /// (`beyond`: how many more the file had).
        var sessions: [[UInt8: Double]] = []
        var laps: [[UInt8: Double]] = []
        var beyond = (sessions: 0, laps: 0)
        var sportFromSportMessage: Double? = nil
        /// The device's timer events, in file order: when (unix seconds) and whether it started.
        var timerEvents: [(t: Double, starts: Bool)] = []

        // Per file: system-time placement.
        /// Indices in `inputs` of this file's inputs stamped in system time (FIT seconds as recorded).
        var systemTimed: [Int] = []
        var systemTimedLaps: [Int] = []
        var systemTimedEvents: [Int] = []
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
                if computed != stored {
                    try header("corrupt \(what): header CRC \(hex(stored)) at byte \(start + 12) does not match its bytes (\(hex(computed)))")
                    return b.count
                }
            }
            let dataSize = Int(load(b, start + 4, 4, bigEndian: false) ?? 0)
            let dataStart = start + headerSize
            let dataEnd = dataStart + dataSize
            let crcEnd = dataEnd + 2
            systemTimed = []; systemTimedLaps = []; systemTimedEvents = []; correlation = nil; firstUTC = nil; lastSystemTime = nil
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
                if computed != stored {
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
                let keepsFields = def.global == sessionMessage || def.global == lapMessage || def.global == sportMessage
                    || def.global == correlationMessage || def.global == eventMessage || def.global == deviceInfoMessage
                var values: [UInt8: Double] = [:]
                var offset = pos
                for f in def.fields {
                    if f.number == 253 {
                        if let v = value(b, offset, f, bigEndian: def.bigEndian), let t = Int64(exactly: v), dateTimes.contains(t) { fieldTime = t }
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
                case sessionMessage:
                    guard sessions.count < ImportReport.maxDeviceLaps else { beyond.sessions += 1; break }
                    sessions.append(values)
                case lapMessage:
                    guard laps.count < ImportReport.maxDeviceLaps else { beyond.laps += 1; break }
                    if let start = values[2], start < Double(systemTimeLimit) { systemTimedLaps.append(laps.count) }
                    laps.append(values)
                case eventMessage:
                    // event 0 (timer) with event_type 0 (start), or 1, 4, 8, 9 (stop, stop_all,
                    // stop_disable, stop_disable_all); other events change no timer.
                    guard let t, values[0] == 0, let type = values[1], [0, 1, 4, 8, 9].contains(type) else { break }
                    if t < systemTimeLimit { systemTimedEvents.append(timerEvents.count) }
                    timerEvents.append((Double(t) + epoch, type == 0))
                case sportMessage:
                    if sportFromSportMessage == nil { sportFromSportMessage = values[0] }
                case deviceInfoMessage:
                    // A local sensor (source_type 25: local, 5): device_type (1) is a
                    // local_device_type: gps 0, glonass 1, gps_glonass 2, barometer 4.
                    guard values[25] == 5, let type = values[1] else { break }
                    if type == 4 { report.listsBarometer = true } else if type <= 2 { report.listsLocalGPS = true }
                case correlationMessage:
                    // timestamp (253, UTC) and system_timestamp (1), each with its 1/32768 s fraction (0, 2).
                    if correlation == nil, let utc = fieldTime, let system = values[1] {
                        correlation = Double(utc) + (values[0] ?? 0) / 32768 - system - (values[2] ?? 0) / 32768
                    }
                default: break
                }
            }
        }

        /// Leaves out this file's timer events and lap start times stamped in system time
        /// (nothing places them).
        mutating func dropSystemTimedEvents() {
            Self.remove(at: systemTimedEvents, from: &timerEvents)
            for k in systemTimedLaps { laps[k][2] = nil }
        }

        /// Removes the elements at `indices` (ascending: this file's, as it appended them) from
        /// `array`, the others keeping their order. Only the elements from the first index on
        /// move, so a chain of files pays for its own: filtering the whole array for each file
        /// (the earlier files' events and inputs too) cost files × elements, 137 s for a 2 MB
        /// chain of 20 000 files after one of 200 000 timer events.
        static func remove<T>(at indices: [Int], from array: inout [T]) {
            guard let first = indices.first else { return }
            var write = first, next = 0
            for read in first..<array.count {
                if next < indices.count && indices[next] == read { next += 1; continue }
                array.swapAt(write, read)
                write += 1
            }
            array.removeLast(array.count - write)
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
            guard !systemTimed.isEmpty || !systemTimedEvents.isEmpty || !systemTimedLaps.isEmpty else { return }
            let offset: Double
            func count(_ n: Int, _ noun: String) -> String? { n == 0 ? nil : "\(n) \(noun)\(n == 1 ? "" : "s")" }
            let stamped = [count(systemTimed.count, "record"), count(systemTimedEvents.count, "timer event"),
                           count(systemTimedLaps.count, "lap start")]
                .compactMap { $0 }.joined(separator: " and ")
            if let correlation {
                offset = correlation
                report.warnings.append("\(stamped) of the \(what) stamped in device system time placed by its timestamp_correlation")
            } else if let utc = firstUTC, let system = utc.systemBefore {
                offset = Double(utc.t - system)
                report.warnings.append("\(stamped) of the \(what) stamped in device system time placed by its first UTC timestamp (taken as the moment of the system time before it; approximate)")
            } else if systemTimed.isEmpty {
                // Only timer events or lap starts in system time and nothing to place them by:
                // the records' times stand, and those events and lap start times are left out.
                dropSystemTimedEvents()
                report.warnings.append("\(stamped) of the \(what) stamped in device system time, with nothing to place them by, left out")
                return
            } else {
                let message = "the \(what) stamps \(stamped) in device system time (seconds since power-on, below 0x10000000) and has no timestamp_correlation or UTC timestamp to place them"
                guard salvage else { throw .input(message) }
                // Salvage: the records (and timer events, lap starts) cannot be placed; they are left out.
                Self.remove(at: systemTimed, from: &inputs)
                dropSystemTimedEvents()
                report.unreadable += systemTimed.count
                report.warnings.append(message + "; they were left out (salvage)")
                return
            }
            for k in systemTimed { inputs[k] = inputs[k].withTime(inputs[k].t + offset) }
            for k in systemTimedLaps {
                if let s = laps[k][2] { laps[k][2] = s + offset }
            }
            for k in systemTimedEvents { timerEvents[k].t += offset }
        }

        /// The report with sport, activity and device totals, after every file was read.
        mutating func finish() -> ImportedRecording {
            for (count, noun) in [(beyond.laps, "lap"), (beyond.sessions, "session")] where count > 0 {
                report.warnings.append("the FIT file has \(count) more \(noun) message\(count == 1 ? "" : "s") than the \(ImportReport.maxDeviceLaps) kept (RUNWAY_MAX_LAPS, the laps a flight can hold): left out")
            }
            let sportCode = sessions.lazy.compactMap { $0[5] }.first ?? sportFromSportMessage ?? laps.lazy.compactMap { $0[25] }.first
            // A sport is an enum byte; a field of another base type can hold any number (a fuzzed
            // file trapped converting 1e20 to Int): out of range, it names no sport.
            report.sport = sportCode.flatMap { (0.0...255.0).contains($0) ? FITReader.sportName(Int($0)) : nil }
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
                // avg_power 19, max_power 20, total_ascent 21, lap_trigger 24, normalized_power 33.
                d.laps = laps.map { l in
                    ImportReport.DeviceLap(startT: l[2].map { $0 + epoch } ?? .nan,
                                           distanceM: l[9].map { $0 / 100 } ?? .nan,
                                           timerS: l[8].map { $0 / 1000 } ?? .nan,
                                           elapsedS: l[7].map { $0 / 1000 } ?? .nan,
                                           ascentM: l[21] ?? .nan,
                                           avgPowerW: l[19] ?? .nan,
                                           maxPowerW: l[20] ?? .nan,
                                           normalizedPowerW: l[33] ?? .nan,
                                           trigger: l[24].flatMap { LapTrigger(fit: $0) })
                }
                report.device = d
            }
            report.cadenceToStepsPerMinute(&inputs)
            var recording = ImportedRecording(inputs: inputs, report: report)
            recording.setTimer(timerEvents)
            recording.setLaps()
            let damage = recording.report.warnings
            recording.report.warnings = []
            recording.report.warnAboutLeftOut()
            recording.report.warnings = damage + recording.report.warnings
            return recording
        }
    }
}
