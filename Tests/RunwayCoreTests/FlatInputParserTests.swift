import Testing
import RunwaySim
@testable import RunwayCore

/// The single pass of `FlatInputParser` against cJSON: what it takes, what it hands on, and that
/// the result is the same either way (`InputDecoder.difference`).
@Suite("Flat JSON fast path")
struct FlatInputParserTests {
    func takes(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { InputDecoder.takesFastPath($0) } }
    func difference(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBytes { InputDecoder.difference($0) } }

    /// Flat fixes and samples, valid or refused by validation, take the single pass and agree.
    @Test func flatShapesTakeTheFastPath() {
        for text in [#"{"t":1700000000.5,"lat":-33.9,"lon":151.2,"alt":12,"speed":3.1,"course":270,"h_acc":4,"v_acc":6}"#,
                     #"{"lat":37.414756743237376,"lon":-122.06888635642827,"alt":-17.600000000000023,"t":1497283815.0,"speed":6.951,"hr":101}"#,
                     " { \"lat\" : 1 ,\t\"lon\":2,\"hr\":null,\"cadence\":80,\"power\":200 } ",
                     #"{"type":"hr","bpm":140,"t":5}"#, #"{"type":"cadence","spm":170}"#, #"{"type":"power","watts":250,"t":1}"#,
                     #"{"type":"altimeter","alt":12.5}"#, #"{"type":"fix","lat":1,"lon":2}"#, #"{"type":"location","lat":1,"lon":2}"#,
                     #"{"type":"import_report","lat":1}"#, "{}", #"{"lat":1}"#, #"{"lat":null,"lon":2}"#, #"{"lat":91,"lon":2}"#,
                     #"{"type":"hr","bpm":400}"#, #"{"type":"hr"}"#, #"{"lat":1,"lon":2,"speed":-1,"t":-0}"#,
                     #"{"lat":1,"lon":2,"t":1e11}"#, "{\"lat\":1,\r\n\"lon\":2}\n"] {
            #expect(takes(text), "\(text) should take the fast path")
            #expect(difference(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// Anything else goes to cJSON, with cJSON's result.
    @Test func everythingElseFallsBack() {
        for text in [#"{"lat":1,"lon":2,"extra":{"x":[1,2]}}"#, #"{"lat":1,"lon":2,"name":"x"}"#,
                     #"{"lat":1,"lat":2,"lon":3}"#, #"{"lat":1,"lon":2,"lon":"x"}"#, #"{"l\u0061t":1,"lon":2}"#,
                     #"{"type":"h\u0072","bpm":1}"#, #"{"type":"walk"}"#, #"{"type":1}"#, #"{"lat":true,"lon":2}"#,
                     #"{"lat":"1","lon":2}"#, #"{"lat":1e400,"lon":2}"#, #"{"lat":1e-400,"lon":2}"#,
                     #"{"lat":01,"lon":2}"#, #"{"lat":1.,"lon":2}"#, #"{"lat":+1,"lon":2}"#, #"{"lat":1,"lon":2,}"#,
                     #"{"lat":1,"lon":2}x"#, #"{"lat":1,"lon":2}{}"#, "\u{FEFF}{\"lat\":1,\"lon\":2}", "{\"lat\":1,\u{0B}\"lon\":2}",
                     #"{"lat":1 "lon":2}"#, #"{"lat":1,"lon":2"#, #"{"lat":1,"lon":nul}"#, #"{"lat":1,"lon":nullx}"#,
                     #"{"":1,"lat":1,"lon":2}"#, "[1]", "", " ", #"{"lat":1.2345678901234567890,"lon":2}"#,
                     #"{"lat":1257.5999755859375,"lon":2}"#, #"{"lat":1.5-2,"lon":2}"#, #"{"lat":-,"lon":2}"#] {
            #expect(!takes(text), "\(text) should fall back")
            #expect(difference(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// The key match: each known key finds its own slot however it is followed, near misses none.
    @Test func keySlotsMatchTheFields() {
        let keys: [(String, Int)] = [("lat", InputFields.lat), ("lon", InputFields.lon), ("t", InputFields.t),
                                     ("alt", InputFields.alt), ("speed", InputFields.speed), ("course", InputFields.course),
                                     ("h_acc", InputFields.hAcc), ("v_acc", InputFields.vAcc), ("hr", InputFields.hr),
                                     ("cadence", InputFields.cadence), ("bpm", InputFields.bpm), ("spm", InputFields.spm),
                                     ("power", InputFields.power), ("watts", InputFields.watts), ("type", FlatInputParser.typeSlot)]
        // As written in a line, with a space before the colon (the slow match), near the end.
        func slot(_ key: String, _ after: String) -> (slot: Int?, bit: UInt16, end: Int) {
            let bytes = Array(("\"" + key + "\"" + after).utf8)
            return bytes.withUnsafeBytes { b in
                let key = FlatInputParser.keySlot(b, at: 0)
                return (key?.slot, key?.bit ?? 0, key?.end ?? 0)
            }
        }
        for (key, want) in keys {
            for after in [":1,\"lat\":2}", " : 1,\"lat\":2}", ":1}", ""] {
                let (got, bit, end) = slot(key, after)
                #expect(got == want && bit == 1 << want && end == key.utf8.count + 2, "\(key) then \(after)")
            }
            for other in [key + "x", String(key.dropLast()), key.uppercased(), "x" + key, String(key.reversed()) + "_",
                          key + "\\", key + "\u{0}"]
            where !keys.contains(where: { $0.0 == other }) {
                for after in [":1,\"lat\":2}", " :1}", ""] {
                    #expect(slot(other, after).slot == nil, "\(other) then \(after)")
                }
            }
        }
        #expect(Set(keys.map(\.1)).count == keys.count)
    }

    /// Every line of the real recordings agrees, and nearly all take the fast path.
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func realRecordingsAgree() throws {
        let folder = try #require(SharedTracks.folder) + "/fixes"
        var lines = 0, fast = 0
        for name in ["actparser__garmin-fenix-5-run.fit.jsonl", "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit.jsonl",
                     "gpxpy__Mojstrovka.gpx.jsonl", "togeojson__apple_watch_route.gpx.jsonl", "togeojson__Friday-Evening-Run.gpx.jsonl"] {
            let bytes = try #require(SharedTracks.read(folder + "/" + name), "\(name)")
            for line in bytes.split(separator: 0x0A) {
                let l = Array(line)
                lines += 1
                if l.withUnsafeBytes({ InputDecoder.takesFastPath($0) }) { fast += 1 }
                #expect(difference(l) == nil, "\(String(decoding: l, as: UTF8.self))")
            }
        }
        #expect(lines > 10_000)
        #expect(fast * 100 >= lines * 95, "\(fast) of \(lines) lines took the fast path")
    }

    /// Random edits of real-looking lines (bytes replaced, inserted, deleted, numbers swapped for
    /// nasty ones): both paths agree on every one.
    @Test func mutatedLinesAgree() {
        var rng = SimRandom(seed: 20, stream: 3)
        let bases = [#"{"lat":37.414756743237376,"lon":-122.06888635642827,"alt":-17.6,"t":1497283815.0,"speed":6.951,"hr":101}"#,
                     #"{"t":1700000000.5,"lat":-33.9,"lon":151.2,"h_acc":4,"v_acc":6,"course":270}"#,
                     #"{"type":"power","watts":250,"t":1}"#, #"{"type":"altimeter","alt":12.5,"t":3}"#]
        let numbers = ["-0", "1e-400", "1e400", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
                       "9007199254740993", "0.1e1", "1E+2", "123456789012345678901", "1e23", "null", "true", "\"x\""]
        var fastCount = 0
        for _ in 0..<40_000 {
            let b = mutated(Array(bases[Int(rng.next() % UInt64(bases.count))].utf8), &rng, numbers: numbers)
            if b.withUnsafeBytes({ InputDecoder.takesFastPath($0) }) { fastCount += 1 }
            #expect(difference(b) == nil, "\(b)")
        }
        #expect(fastCount > 1_000, "the mutations should exercise the fast path too")
    }
}

/// `base` with one to three random edits: a byte replaced, inserted or deleted, or (given
/// `numbers`) the value after a colon replaced by one of them.
func mutated(_ base: [UInt8], _ rng: inout SimRandom, numbers: [String] = []) -> [UInt8] {
    let alphabet = Array(#"{}[],:"\ 0123456789.eE+-nulltruefalse"#.utf8) + [0x09, 0x0A, 0x0D, 0x00, 0xC3, 0xA9, 0x0B]
    var b = base
    for _ in 0..<(1 + Int(rng.next() % 3)) {
        let at = Int(rng.next() % UInt64(b.count))
        switch rng.next() % (numbers.isEmpty ? 3 : 4) {
        case 0: b[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
        case 1: b.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
        case 2: b.remove(at: at)
        default:
            if let colon = b[at...].firstIndex(of: 0x3A) {
                let end = b[(colon + 1)...].firstIndex { $0 == 0x2C || $0 == 0x7D } ?? b.count
                b.replaceSubrange((colon + 1)..<end, with: Array(numbers[Int(rng.next() % UInt64(numbers.count))].utf8))
            }
        }
        if b.isEmpty { b = [0x7B] }
    }
    return b
}
