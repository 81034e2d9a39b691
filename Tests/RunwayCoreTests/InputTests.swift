import Testing
@testable import RunwayCore

func decode(_ text: String) -> Result<Input, RunwayError> {
    var copy = text
    var out: Result<Input, RunwayError> = .failure(RunwayError(.internal, "unset"))
    copy.withUTF8 { buf in
        do throws(RunwayError) { out = .success(try InputDecoder.decode(UnsafeRawBufferPointer(buf)).input) }
        catch { out = .failure(error) }
    }
    return out
}

func decodeBytes(_ bytes: [UInt8]) -> Result<Input, RunwayError> {
    bytes.withUnsafeBytes { buf in
        do throws(RunwayError) { return .success(try InputDecoder.decode(buf).input) }
        catch { return .failure(error) }
    }
}

func status(_ r: Result<Input, RunwayError>) -> RunwayStatus {
    switch r {
    case .success: return .ok
    case .failure(let e): return e.status
    }
}

@Suite("Decoding inputs")
struct InputTests {
    @Test func aFullFixDecodes() throws {
        let input = try decode(#"{"t":1700000000.5,"lat":-33.9,"lon":151.2,"alt":12,"speed":3.1,"course":270,"h_acc":4,"v_acc":6,"extra":{"x":[1,2]}}"#).get()
        guard case .fix(let f) = input else { Issue.record("not a fix"); return }
        #expect(f.t == 1700000000.5 && f.lat == -33.9 && f.lon == 151.2 && f.alt == 12)
        #expect(f.speed == 3.1 && f.course == 270 && f.hAcc == 4 && f.vAcc == 6)
    }

    @Test func negativeSpeedCourseAndAccuracyMeanUnknown() throws {
        let input = try decode(#"{"t":1,"lat":1,"lon":2,"speed":-1,"course":-1,"h_acc":-1,"v_acc":-1}"#).get()
        guard case .fix(let f) = input else { Issue.record("not a fix"); return }
        #expect(f.speed.isNaN && f.course.isNaN && f.hAcc.isNaN && f.vAcc.isNaN)
    }

    /// CoreLocation's invalid altitude: `verticalAccuracy` -1 with `altitude` 0. The altitude is
    /// unknown too (it read as 0 m: a minimum altitude of 0 and climbs from sea level), by JSON
    /// and by struct; a valid accuracy keeps its altitude.
    @Test func aNegativeVerticalAccuracyMakesTheAltitudeUnknown() throws {
        guard case .fix(let f) = try decode(#"{"t":1,"lat":1,"lon":2,"alt":0,"v_acc":-1}"#).get() else {
            Issue.record("not a fix"); return
        }
        #expect(f.alt.isNaN && f.vAcc.isNaN)
        guard case .fix(let kept) = try decode(#"{"t":1,"lat":1,"lon":2,"alt":12,"v_acc":6}"#).get() else { return }
        #expect(kept.alt == 12 && kept.vAcc == 6)
        let pod = try ValidatedInput(podFix: Fix(t: 1, lat: 1, lon: 2, alt: 0, vAcc: -1))
        guard case .fix(let g) = pod.input else { Issue.record("not a fix"); return }
        #expect(g.alt.isNaN)
    }

    @Test func samplesDecode() throws {
        #expect(try decode(#"{"type":"hr","bpm":148,"t":5}"#).get() == .sample(.heartRate(bpm: 148, t: 5)))
        #expect(try decode(#"{"type":"cadence","spm":172,"t":5}"#).get() == .sample(.cadence(spm: 172, t: 5)))
    }

    @Test(arguments: [
        ("", RunwayStatus.json),
        ("not json", .json),
        ("[1,2,3]", .json),
        ("\"a string\"", .json),
        ("42", .json),
        (#"{"lat":52,"lon":"#, .json),
        (#"{"lat":52,"lon":4} trailing"#, .json),
        (#"{"lon":4,"t":1}"#, .input),
        (#"{"lat":52,"t":1}"#, .input),
        (#"{"lat":"52","lon":4,"t":1}"#, .input),
        (#"{"lat":52,"lon":4,"t":"noon"}"#, .input),
        (#"{"lat":91,"lon":4,"t":1}"#, .input),
        (#"{"lat":-90.5,"lon":4,"t":1}"#, .input),
        (#"{"lat":52,"lon":180.01,"t":1}"#, .input),
        (#"{"lat":1e999,"lon":4,"t":1}"#, .input),
        (#"{"lat":52,"lon":4,"t":1e999}"#, .input),
        (#"{"lat":52,"lon":4,"t":1,"alt":-1e999}"#, .input),
        (#"{"lat":52,"lon":4,"t":-5}"#, .input),
        (#"{"lat":52,"lon":4,"t":1,"course":400}"#, .input),
        (#"{"type":"hr","bpm":-5,"t":1}"#, .input),
        (#"{"type":"hr","bpm":400,"t":1}"#, .input),
        (#"{"type":"hr","t":1}"#, .input),
        (#"{"type":"cadence","spm":-1,"t":1}"#, .input),
        (#"{"type":"teleport","t":1}"#, .input),
        (#"{"type":7,"lat":1,"lon":1,"t":1}"#, .input),
    ])
    func badInputGetsItsStatus(_ text: String, _ expected: RunwayStatus) {
        let r = decode(text)
        #expect(status(r) == expected, "\(text)")
        if case .failure(let e) = r { #expect(!e.message.isEmpty) }
    }

    @Test func aFiveMegabyteLineIsRefusedBeforeParsing() {
        let line = #"{"lat":52,"lon":4,"t":1,"pad":""# + String(repeating: "x", count: 5 << 20) + "\"}"
        let r = decode(line)
        #expect(status(r) == .limit)
        if case .failure(let e) = r { #expect(e.message.contains("exceeds the limit of 1048576 bytes (RUNWAY_MAX_INPUT_BYTES)")) }
    }

    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(status(decode(#"{"a":"# + deep + "}")) == .limit)
        let deepObjects = String(repeating: #"{"a":"#, count: 100_000) + String(repeating: "}", count: 100_000)
        #expect(status(decode(deepObjects)) == .limit)
    }

    @Test func theDepthScanCountsBracketsOutsideStringsOnly() {
        func violation(_ text: String) -> Int? {
            var copy = text
            return copy.withUTF8 { JSONInput.depthViolation(UnsafeRawBufferPointer($0)) }
        }
        let max = JSONInput.maxDepth
        #expect(violation(String(repeating: "[", count: max)) == nil)
        #expect(violation(String(repeating: "[", count: max + 1)) == max)
        #expect(violation(String(repeating: "[]", count: 10_000)) == nil, "siblings are not depth")
        // Brackets in strings do not count, escaped quotes do not end a string, and an escaped
        // backslash does not escape the closing quote.
        let inString = "{\"a\":\"" + String(repeating: "[", count: 1000) + "\"}"
        #expect(violation(inString) == nil)
        let escapedQuote = "{\"a\":\"\\\"" + String(repeating: "{", count: 100) + "\"}"   // {"a":"\"{{{…"}
        #expect(escapedQuote.hasPrefix(#"{"a":"\"{"#))
        #expect(violation(escapedQuote) == nil)
        let escapedBackslash = #"{"a":"\\","b":"# + String(repeating: "[", count: max) + "]"   // {"a":"\\","b":[[…
        #expect(violation(escapedBackslash) == 14 + max - 1)
        // A closing bracket without an opening one ends the scan: the parser refuses it there.
        #expect(violation("]" + String(repeating: "[", count: max + 1)) == nil)
        #expect(status(decode("{}]" + String(repeating: "[", count: max + 1))) == .json)
    }

    @Test func everyBadByteIsFoundWhereverItSitsInAWord() {
        // The check reads eight ASCII bytes at a time: a bad byte at any offset, and in the tail
        // after the last whole word, must still be found at its own offset.
        for length in [1, 7, 8, 9, 23, 24, 25, 64] {
            for at in 0..<length {
                for bad: [UInt8] in [[0x00], [0xFF], [0xC3], [0xE2, 0x82]] where at + bad.count <= length {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes.replaceSubrange(at..<at + bad.count, with: bad)
                    let found = bytes.withUnsafeBytes { JSONInput.firstInvalidUTF8($0) }
                    #expect(found == at, "length \(length), \(bad) at \(at): found \(String(describing: found))")
                }
            }
            // Valid two-byte characters at every offset pass, among 0x01 bytes (the smallest a
            // word's zero-byte test must not take for a zero).
            for at in 0..<(length - 1) {
                var bytes = [UInt8](repeating: 0x01, count: length)
                bytes.replaceSubrange(at..<at + 2, with: [0xC3, 0xA9])   // é
                #expect(bytes.withUnsafeBytes { JSONInput.firstInvalidUTF8($0) } == nil, "length \(length), é at \(at)")
            }
        }
    }

    @Test func theDepthScanRunsOnlyWhenThereAreEnoughBrackets() {
        func brackets(_ text: String, _ limit: Int) -> Bool {
            var copy = text
            return copy.withUTF8 { JSONInput.hasOpeningBrackets(UnsafeRawBufferPointer($0), atLeast: limit) }
        }
        #expect(brackets(#"{"a":[1,{"b":2}]}"#, 3))   // two { and one [
        #expect(!brackets(#"{"a":[1,{"b":2}]}"#, 4))
        #expect(brackets(String(repeating: "[", count: 40) + String(repeating: "{", count: 25), 65))
        #expect(!brackets(String(repeating: "]", count: 100) + "{", 2))
        #expect(!brackets("", 1))
    }

    @Test func invalidUTF8IsRefused() {
        let prefix = Array(#"{"lat":52,"lon":4,"t":1,"name":""#.utf8)
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x00]] {
            let r = decodeBytes(prefix + bad + Array("\"}".utf8))
            #expect(status(r) == .json, "\(bad)")
        }
        // Valid multi-byte text passes.
        #expect(status(decode(#"{"lat":52,"lon":4,"t":1,"name":"Ljubljana – Čož 🏃"}"#)) == .ok)
    }

    @Test func unknownKeysAndNullValuesAreTolerated() throws {
        let input = try decode(#"{"lat":52,"lon":4,"t":1,"alt":null,"future_field":true}"#).get()
        guard case .fix(let f) = input else { Issue.record("not a fix"); return }
        #expect(f.alt.isNaN)
    }
}

@Suite("Session config")
struct ConfigTests {
    @Test func autoLapIsOffOrAtLeastTenMetres() throws {
        #expect(try EngineConfig.parse(#"{"auto_lap_m":0}"#).autoLapM == 0)
        #expect(try EngineConfig.parse(#"{"auto_lap_m":10}"#).autoLapM == 10)
        #expect(try EngineConfig.parse(#"{"auto_lap_m":1000000}"#).autoLapM == 1_000_000)
    }

    @Test func defaultsAndOverrides() throws {
        #expect(try EngineConfig.parse(nil) == EngineConfig())
        let c = try EngineConfig.parse(#"{"clock":"live","distance_filter_m":0,"required_accuracy_m":20,"pace_window_s":15}"#)
        #expect(c.clock == .live && c.distanceFilterM == 0 && c.requiredAccuracyM == 20 && c.paceWindowS == 15)
    }

    @Test(arguments: [
        #"{"distance_filter":5}"#, #"{"clock":"sundial"}"#, #"{"distance_filter_m":-1}"#,
        #"{"distance_filter_m":"5"}"#, #"{"pace_window_s":1e999}"#, "[]", "not json",
        #"{"auto_lap_m":0.0008}"#, #"{"auto_lap_m":9.99}"#, #"{"auto_lap_m":-1}"#,
    ])
    func badConfigIsAnArgumentError(_ text: String) {
        do { _ = try EngineConfig.parse(text); Issue.record("accepted \(text)") } catch {
            #expect(error.status == .argument)
            #expect(!error.message.isEmpty)
        }
    }
}

@Suite("Session config for the accuracy settings")
struct AccuracyConfigTests {
    @Test func theActivityPicksTheSpeedCapAndAutoPause() throws {
        let run = try EngineConfig.parse(nil), ride = try EngineConfig.parse(#"{"activity":"ride"}"#)
        #expect(run.speedCapMps == 12 && !run.autoPause.enabled)
        #expect(ride.speedCapMps == 30 && ride.autoPause.enabled)
        let forced = try EngineConfig.parse(#"{"activity":"ride","auto_pause":false,"speed_cap_mps":20}"#)
        #expect(!forced.autoPause.enabled && forced.speedCapMps == 20)
    }

    @Test func filtersOffMeansEveryValidFixCountsUnlessTheHostSaysOtherwise() throws {
        let off = try EngineConfig.parse(#"{"filters":"off"}"#)
        #expect(!off.filters && off.distanceFilterM == 0 && off.requiredAccuracyM == 100_000)
        let explicit = try EngineConfig.parse(#"{"filters":"off","distance_filter_m":5}"#)
        #expect(explicit.distanceFilterM == 5)
    }

    @Test func thePositionNoiseIsTheTrackFiltersLeastSigma() throws {
        #expect(try EngineConfig.parse(nil).trackSettings.minPositionSigmaM == 3)
        let clean = try EngineConfig.parse(#"{"activity":"ride","position_sigma_m":0.3}"#)
        #expect(clean.positionSigmaM == 0.3 && clean.trackSettings.minPositionSigmaM == 0.3)
        #expect(clean.trackSettings.accelerationSigma == 0.6)   // the profile's settings stay
    }

    @Test func alertSettingsAreRead() throws {
        let c = try EngineConfig.parse(#"{"target_pace":{"min":5.0,"max":5.5},"hr_ceiling":175,"goal_m":10000,"minimums_m":[2000,1000]}"#)
        #expect(c.alerts.targetPaceMin == 5.0 && c.alerts.targetPaceMax == 5.5)
        #expect(c.alerts.hrCeiling == 175 && c.alerts.goalM == 10000 && c.alerts.marksM == [2000, 1000])
    }

    @Test(arguments: [
        #"{"activity":"swim"}"#, #"{"filters":"maybe"}"#, #"{"target_pace":{"min":6,"max":5}}"#,
        #"{"target_pace":{"min":5}}"#, #"{"target_pace":{"min":5,"max":6,"avg":5.5}}"#, #"{"minimums_m":[-1]}"#,
        #"{"auto_pause":"yes"}"#, #"{"hr_max":20}"#, #"{"count_gaps":1}"#,
        #"{"position_sigma_m":0}"#, #"{"position_sigma_m":0.09}"#, #"{"position_sigma_m":101}"#, #"{"position_sigma_m":"1"}"#,
    ])
    func badAccuracySettingsAreArgumentErrors(_ text: String) {
        do { _ = try EngineConfig.parse(text); Issue.record("accepted \(text)") } catch {
            #expect(error.status == .argument)
        }
    }
}
