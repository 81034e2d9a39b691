import RunwayCore

/// How entries are stored in the `journal` table: `kind`, `t` (NULL for NaN) and `payload`.
///
/// - `input`: the input as compact JSON that `InputDecoder.decode` reads back exactly, NaN fields
///   left out: `{"lat":47.5,"lon":8.25,"t":1764439512.0,"alt":410.0}`,
///   `{"type":"hr","bpm":148.0,"t":1764439513.0}`, `{"type":"cadence","spm":172.0,"t":…}`,
///   `{"type":"altimeter","alt":412.5,"t":…}`. Doubles are written with `description`, which
///   round-trips exactly.
/// - `command`: the command's name (`start`, `pause`, `resume`, `stop`).
/// - `lap`: empty for a manual lap, else the name of its trigger (`distance`: a recording's
///   device lap; `LapTrigger`), so a store written before triggers reads back as it was.
/// - `tick`: empty (schema version 4 on).
enum JournalCoding {
    static let inputKind = "input", commandKind = "command", lapKind = "lap", tickKind = "tick"

    struct Row {
        var kind: String
        var t: Double
        var payload: [UInt8]
    }

    /// The row for an entry. Throws `.input` when the entry would not read back exactly
    /// (a fix without lat/lon, an infinite value, a value outside the decoder's ranges).
    static func encode(_ entry: JournalEntry) throws(RunwayError) -> Row {
        switch entry {
        case .command(let c, let t):
            return Row(kind: commandKind, t: t, payload: Array(c.rawValue.utf8))
        case .lap(let t, let trigger):
            return Row(kind: lapKind, t: t, payload: trigger == .manual ? [] : Array(trigger.rawValue.utf8))
        case .tick(let t):
            return Row(kind: tickKind, t: t, payload: [])
        case .input(let input):
            let payload = json(of: input)
            var decoded: Result<Input, RunwayError> = .failure(RunwayError(.internal, "not decoded"))
            payload.withUnsafeBytes { buf in
                do throws(RunwayError) { decoded = .success(try InputDecoder.decode(buf).input) } catch { decoded = .failure(error) }
            }
            let back: Input
            switch decoded {
            case .success(let i): back = i
            case .failure(let error):
                throw RunwayError(.input, "cannot journal this input: it would not read back (\(error.message))")
            }
            guard sameBits(back, input) else {
                throw RunwayError(.input, "cannot journal this input: it would not read back exactly (non-finite or out-of-range value)")
            }
            return Row(kind: inputKind, t: input.t, payload: payload)
        }
    }

    /// The entry a stored row holds. Throws `.store` naming the entry when the row is damaged.
    static func decode(kind: String, t: Double, payload: UnsafeRawBufferPointer,
                       entry n: Int64, flight id: String) throws(RunwayError) -> JournalEntry {
        func damaged(_ why: String) -> RunwayError {
            RunwayError(.store, "journal entry \(n) of flight \"\(id)\" is damaged: \(why)")
        }
        switch kind {
        case inputKind:
            let input: Input
            do { input = try InputDecoder.decode(payload).input } catch { throw damaged(error.message) }
            // -0.0 == 0.0 here: SQLite stores a REAL -0.0 as the integer 0, which reads back as 0.0.
            guard sameBits(input.t, t) || input.t == t else {
                throw damaged("its time column (\(t)) disagrees with its payload (\(input.t))")
            }
            return .input(input)
        case commandKind:
            let name = String(decoding: payload, as: UTF8.self)
            guard let c = PhaseCommand(rawValue: name) else {
                throw damaged("unknown command \"\(name.prefix(40))\"")
            }
            return .command(c, t: t)
        case lapKind:
            guard !payload.isEmpty else { return .lap(t: t) }
            let name = String(decoding: payload, as: UTF8.self)
            guard let trigger = LapTrigger(rawValue: name), LapTrigger.device.contains(trigger) else {
                throw damaged("unknown lap trigger \"\(name.prefix(40))\"")
            }
            return .lap(t: t, trigger: trigger)
        case tickKind:
            guard !t.isNaN else { throw damaged("a tick without a time") }   // (only ticks that moved the clock are journaled)
            return .tick(t: t)
        default:
            throw damaged("unknown kind \"\(kind.prefix(40))\"")
        }
    }

    /// Compact JSON for an input, NaN fields left out (RunwayCore's one encoder).
    static func json(of input: Input) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        input.write(to: &w)
        return w.bytes
    }

    /// Equal bit for bit, every NaN counting as the same "unknown".
    static func sameBits(_ a: Double, _ b: Double) -> Bool {
        a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    }

    static func sameBits(_ a: Input, _ b: Input) -> Bool {
        switch (a, b) {
        case (.fix(let x), .fix(let y)):
            return sameBits(x.t, y.t) && sameBits(x.lat, y.lat) && sameBits(x.lon, y.lon)
                && sameBits(x.alt, y.alt) && sameBits(x.speed, y.speed) && sameBits(x.course, y.course)
                && sameBits(x.hAcc, y.hAcc) && sameBits(x.vAcc, y.vAcc)
                && sameBits(x.hr, y.hr) && sameBits(x.cadence, y.cadence) && sameBits(x.power, y.power)
        case (.sample(.heartRate(let v, let t)), .sample(.heartRate(let w, let u))),
             (.sample(.power(let v, let t)), .sample(.power(let w, let u))),
             (.sample(.speed(let v, let t)), .sample(.speed(let w, let u))),
             (.sample(.cadence(let v, let t)), .sample(.cadence(let w, let u))),
             (.sample(.altimeter(let v, let t)), .sample(.altimeter(let w, let u))):
            return sameBits(v, w) && sameBits(t, u)
        default:
            return false
        }
    }
}
