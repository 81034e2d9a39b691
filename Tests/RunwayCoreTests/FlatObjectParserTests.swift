import Testing
import RunwaySim
@testable import RunwayCore

/// The single pass of `FlatObjectParser` (configs, options) against cJSON: what it takes, what it
/// hands on, and that `JSONInput.object` gives the same either way.
@Suite("Flat JSON objects")
struct FlatObjectParserTests {
    @Test func flatConfigsTakeTheFastPath() throws {
        for text in [#"{"count_gaps":false,"elevation_hysteresis_m":3,"durability":"batched","flight_id":"x"}"#,
                     #"{"clock":"replay","activity":"run","auto_pause":false}"#, "{}", " { } ",
                     #"{"activity":"walk","filters":"off","pace_window_s":20,"distance_filter_m":2,"required_accuracy_m":30}"#,
                     #"{"a":null,"b":true,"c":-0,"d":1e5,"":"empty key","e":"sp ace"}"#] {
            #expect(JSONInput.takesFastPath(text), "\(text)")
            #expect(JSONInput.objectDifference(text) == nil, "\(text)")
        }
        let fields = try JSONInput.object(#"{"activity":"ride","filter_m":5.5,"x":null,"y":true}"#)
        #expect(fields.map(\.key) == ["activity", "filter_m", "x", "y"])
        #expect(fields.map(\.value) == [.string("ride"), .number(5.5), .null, .bool(true)])
    }

    @Test func everythingElseFallsBack() {
        for text in [#"{"target_pace":{"min":5.0,"max":5.5},"hr_ceiling":170}"#, #"{"minimums_m":[1000,400]}"#,
                     #"{"a":1,"a":2}"#, #"{"a":"\u0041"}"#, #"{"a\n":1}"#, #"{"a":"é"}"#, #"{"a":tru}"#,
                     #"{"a":truex}"#, #"{"a":1e400}"#, #"{"a":01}"#, #"{"a":1,}"#, #"{"a":1}x"#, "[]", "", "{",
                     "{\"a\":1,\u{0B}\"b\":2}", #"{"a":1 "b":2}"#] {
            #expect(!JSONInput.takesFastPath(text), "\(text)")
            #expect(JSONInput.objectDifference(text) == nil, "\(text)")
        }
    }

    /// A large object goes to cJSON (the single pass's repeat check is quadratic).
    @Test func manyMembersFallBack() {
        let members = (0..<FlatObjectParser.maxMembers).map { "\"k\($0)\":\($0)" }
        let atLimit = "{" + members.joined(separator: ",") + "}"
        let over = "{" + (members + ["\"last\":1"]).joined(separator: ",") + "}"
        #expect(JSONInput.takesFastPath(atLimit))
        #expect(!JSONInput.takesFastPath(over))
        #expect(JSONInput.objectDifference(atLimit) == nil && JSONInput.objectDifference(over) == nil)
    }

    @Test func mutatedConfigsAgree() {
        var rng = SimRandom(seed: 20, stream: 4)
        let bases = [#"{"clock":"replay","activity":"run","auto_pause":false,"goal_m":5000}"#,
                     #"{"kinds":["flight","lap"],"policy":"queue","capacity":64}"#,
                     #"{"activity":"walk","filters":"off","pace_window_s":20.5,"distance_filter_m":null}"#]
        var fast = 0
        for _ in 0..<20_000 {
            let b = mutated(Array(bases[Int(rng.next() % UInt64(bases.count))].utf8), &rng)
            let text = String(decoding: b, as: UTF8.self)
            if JSONInput.takesFastPath(text) { fast += 1 }
            #expect(JSONInput.objectDifference(text) == nil, "\(text)")
        }
        #expect(fast > 1_000)
    }
}
