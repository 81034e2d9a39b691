import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
@testable import RunwayStore
#if canImport(Glibc)
import Glibc
#endif

// The documented limits of runway.h ("Limits"): each one at the limit (accepted) and one past it
// (RUNWAY_ERR_LIMIT with a message naming the limit and the value, nothing changed).

@Suite("Resource limits")
struct LimitTests {
    static let t0 = 1_700_000_000.0

    @Test func theHeaderAndTheCodeAgreeOnEveryLimit() {
        #expect(JSONInput.maxInputBytes == Int(RUNWAY_MAX_INPUT_BYTES))
        #expect(JSONInput.maxDepth == Int(RUNWAY_MAX_JSON_DEPTH))
        #expect(EngineConfig.maxRoutePointsLimit == Int(RUNWAY_MAX_ROUTE_POINTS))
        #expect(EngineConfig().maxRoutePoints == Int(RUNWAY_MAX_ROUTE_POINTS))
        #expect(RunwayStatus.limit.rawValue == RUNWAY_ERR_LIMIT.rawValue)
        #expect(String(cString: runway_status_string_impl(RUNWAY_ERR_LIMIT)!) == "a documented limit was reached")
    }

    // MARK: - Input bytes

    @Test func aFixOfExactlyTheLimitIsAcceptedAndOneByteMoreIsRefused() throws {
        let s = try CSession()
        let max = Int(RUNWAY_MAX_INPUT_BYTES)
        let atLimit = padded(#"{"t":1700000000,"lat":52,"lon":4"#, to: max)
        #expect(atLimit.utf8.count == max)
        #expect(s.push(atLimit) == RUNWAY_OK)
        let before = s.snapshot()
        let past = padded(#"{"t":1700000001,"lat":52.0001,"lon":4"#, to: max + 1)
        #expect(s.push(past) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("more than 1048576 bytes exceeds the limit of 1048576 bytes (RUNWAY_MAX_INPUT_BYTES)"))
        #expect(s.snapshot() == before)
        #expect(field("fixes", in: before) == 1)
    }

    @Test func aConfigAndOptionsOfExactlyTheLimitAreAcceptedAndOneByteMoreIsRefused() throws {
        let max = Int(RUNWAY_MAX_INPUT_BYTES)
        let head = #"{"activity":"walk"}"#
        let config = head + String(repeating: " ", count: max - head.utf8.count)
        #expect(openStatus(config) == RUNWAY_OK)
        #expect(openStatus(config + " ") == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("config of 1048577 bytes exceeds the limit of 1048576 bytes (RUNWAY_MAX_INPUT_BYTES)"))

        let s = try CSession()
        let options = #"{"policy":"queue"}"# + String(repeating: " ", count: max - 18)
        #expect(options.utf8.count == max)
        #expect(s.subscribe(options, nil).0 == RUNWAY_OK)
        #expect(s.subscribe(options + " ", nil).0 == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("options of 1048577 bytes exceeds the limit"))
    }

    @Test func aJSONLinesLineOverTheLimitIsRefusedByNumberAndTheOthersAreProcessed() throws {
        let s = try CSession()
        let max = Int(RUNWAY_MAX_INPUT_BYTES)
        let good1 = #"{"t":1700000000,"lat":52,"lon":4}"#
        let good3 = #"{"t":1700000002,"lat":52.0002,"lon":4}"#
        // At the limit, with either terminator (not counted) and leading blanks (counted).
        let atLimit = "  " + padded(#"{"t":1700000001,"lat":52.0001,"lon":4"#, to: max - 2)
        var (st, accepted, rejected) = s.jsonl(good1 + "\n" + atLimit + "\r\n" + good3 + "\n")
        #expect(st == RUNWAY_OK && accepted == 3 && rejected == 0)

        let s2 = try CSession()
        let past = padded(#"{"t":1700000001,"lat":52.0001,"lon":4"#, to: max + 1)
        (st, accepted, rejected) = s2.jsonl(good1 + "\n" + past + "\r\n" + good3)
        #expect(st == RUNWAY_ERR_LIMIT)
        #expect(accepted == 2 && rejected == 1)
        #expect(lastError().has("line 2: line of 1048577 bytes exceeds the limit of 1048576 bytes (RUNWAY_MAX_INPUT_BYTES)"))
        #expect(field("fixes", in: s2.snapshot()) == 2)
        // An earlier rejected line's status stays the batch's status (the header's rule).
        (st, accepted, rejected) = s2.jsonl("not json\n" + past + "\n")
        #expect(st == RUNWAY_ERR_JSON && accepted == 0 && rejected == 2)
    }

    // MARK: - Nesting

    @Test func nestingAtTheDepthLimitIsAcceptedAndOneLevelMoreIsRefused() throws {
        let s = try CSession()
        let depth = Int(RUNWAY_MAX_JSON_DEPTH)
        #expect(s.push(nested(#"{"t":1700000000,"lat":52,"lon":4"#, depth: depth)) == RUNWAY_OK)
        let before = s.snapshot()
        #expect(s.push(nested(#"{"t":1700000001,"lat":52.0001,"lon":4"#, depth: depth + 1)) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("nested deeper than the limit of 64 levels (RUNWAY_MAX_JSON_DEPTH)"))
        #expect(s.snapshot() == before)
        // Objects count as arrays do.
        let objects = #"{"t":1700000001,"lat":52.0001,"lon":4,"x":"# + String(repeating: #"{"a":"#, count: depth) + "1"
            + String(repeating: "}", count: depth + 1)
        #expect(s.push(objects) == RUNWAY_ERR_LIMIT)
    }

    @Test func aConfigOrOptionsTooDeepIsALimitNotAnArgumentError() {
        let depth = Int(RUNWAY_MAX_JSON_DEPTH)
        // Within the depth limit, a nested value where none belongs is a bad argument...
        let ok = #"{"minimums_m":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        #expect(openStatus(ok) == RUNWAY_ERR_ARGUMENT)
        // ...and past it, the limit.
        let deep = #"{"minimums_m":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(openStatus(deep) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("config: input nested deeper than the limit of 64 levels"))
        let options = #"{"kinds":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        var id: UInt64 = 0
        let s = try? CSession()
        #expect(options.withCString { runway_subscribe_impl(s?.handle, $0, nil, nil, &id) } == RUNWAY_ERR_LIMIT)
    }

    @Test func tenMegabytesOfOpeningBracketsAreRefusedWithoutParsing() throws {
        let s = try CSession()
        let brackets = String(repeating: "[", count: 10 << 20)
        #expect(s.push(brackets) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("RUNWAY_MAX_INPUT_BYTES"))
        // Within the size limit, the depth scan refuses it (it does not recurse: 1 MiB deep).
        let mib = "{\"x\":" + String(repeating: "[", count: Int(RUNWAY_MAX_INPUT_BYTES) - 5)
        #expect(s.push(mib) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("RUNWAY_MAX_JSON_DEPTH"))
        let (st, accepted, rejected) = s.jsonl(mib + "\n" + String(brackets.prefix(2 << 20)) + "\n")
        #expect(st == RUNWAY_ERR_LIMIT && accepted == 0 && rejected == 2)
    }

    // MARK: - Subscribers and queue capacity

    @Test func theSubscriberLimitIsReachedAtExactlyTheMaximum() throws {
        let s = try CSession()
        let max = Int(RUNWAY_MAX_SUBSCRIBERS)
        var ids: [UInt64] = []
        for _ in 0..<max {
            let (st, id) = s.subscribe(nil, nil)
            #expect(st == RUNWAY_OK)
            ids.append(id)
        }
        #expect(ids.count == max)
        let (st, _) = s.subscribe(nil, nil)
        #expect(st == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("already has 256 subscriptions, the limit of 256 (RUNWAY_MAX_SUBSCRIBERS)"))
        // A callback subscription is refused the same way (and starts no thread).
        let r = Recorder()
        #expect(s.subscribe(nil, r).0 == RUNWAY_ERR_LIMIT)
        // Every existing subscription still works; ending one makes room for one.
        #expect(s.fix(Self.t0, 52) == RUNWAY_OK)
        #expect(ids.allSatisfy { s.poll($0).1 != nil })
        #expect(runway_unsubscribe_impl(s.handle, ids[0]) == RUNWAY_OK)
        #expect(s.subscribe(nil, nil).0 == RUNWAY_OK)
        #expect(s.subscribe(nil, nil).0 == RUNWAY_ERR_LIMIT)
    }

    @Test func theQueueCapacityLimit() throws {
        let s = try CSession()
        #expect(s.subscribe(#"{"policy":"queue","capacity":65536}"#, nil).0 == RUNWAY_OK)
        #expect(s.subscribe(#"{"policy":"queue","capacity":65537}"#, nil).0 == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("\"capacity\" 65537 exceeds the limit of 65536 events (RUNWAY_MAX_QUEUE_CAPACITY)"))
        #expect(s.subscribe(#"{"capacity":1e300}"#, nil).0 == RUNWAY_ERR_LIMIT)
        // Values that are not a capacity at all stay argument errors.
        for bad in ["0", "-1", "1.5", "\"10\"", "null"] {
            #expect(s.subscribe("{\"capacity\":\(bad)}", nil).0 == RUNWAY_ERR_ARGUMENT, "\(bad)")
        }
    }

    // MARK: - Route points

    @Test func maxRoutePointsIsCheckedInTheConfig() {
        #expect(openStatus(#"{"max_route_points":1}"#) == RUNWAY_OK)
        #expect(openStatus(#"{"max_route_points":1000000}"#) == RUNWAY_OK)
        #expect(openStatus(#"{"max_route_points":1000001}"#) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("\"max_route_points\" 1000001 exceeds the limit of 1000000 points (RUNWAY_MAX_ROUTE_POINTS)"))
        for bad in ["0", "-5", "2.5", "\"100\"", "null", "true"] {
            #expect(openStatus("{\"max_route_points\":\(bad)}") == RUNWAY_ERR_ARGUMENT, "\(bad)")
        }
    }

    /// Raw accumulation, 5 m distance filter: every fix 11 m north of the last adds a point.
    static let raw = #"{"filters":"off","distance_filter_m":5,"max_route_points":100"#

    /// Pushes fix `i` of a straight line north (11 m apart, one a second).
    @discardableResult
    static func step(_ s: CSession, _ i: Int) -> runway_status {
        s.fix(t0 + Double(i), 52 + Double(i) * 1e-4)
    }

    @Test func aFullRouteRefusesAFixThatWouldAddAPointAndNothingChanges() throws {
        let s = try CSession(Self.raw + "}")
        #expect(s.start(Self.t0) == RUNWAY_OK)
        let (_, sub) = s.subscribe(#"{"policy":"queue"}"#, nil)
        for i in 0..<100 { #expect(Self.step(s, i) == RUNWAY_OK) }
        #expect(field("points", in: s.snapshot()) == 100)
        while s.poll(sub).1 != nil {}
        let snapshot = s.snapshot(), summary = s.summary()

        #expect(Self.step(s, 100) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("route is full (100 points, the limit of 100 points, the config's max_route_points)"))
        #expect(s.snapshot() == snapshot)
        #expect(s.summary() == summary)
        // The only event is the rejection's log line: no flight, split or alert event.
        let (_, event) = s.poll(sub)
        #expect(event.map(kind) == "log")
        #expect(event?.has("rejected input: fix refused: the route is full") == true)
        #expect(s.poll(sub).1 == nil)
        // Refused again and again, never growing.
        #expect(Self.step(s, 101) == RUNWAY_ERR_LIMIT)
        #expect(s.snapshot() == snapshot)

        // What adds no point still works: a fix within the distance filter, samples, a lap,
        // pause and resume (no point on resume), stop, the summary and an export.
        #expect(s.fix(Self.t0 + 102, 52 + 99e-4 + 1e-5) == RUNWAY_OK)
        #expect(field("fixes", in: s.snapshot()) == 101)
        #expect(s.push(#"{"type":"hr","bpm":150,"t":1700000103}"#) == RUNWAY_OK)
        #expect(s.push(#"{"type":"altimeter","alt":12,"t":1700000103}"#) == RUNWAY_OK)
        #expect(s.lap(Self.t0 + 104) == RUNWAY_OK)
        #expect(s.pause(Self.t0 + 105) == RUNWAY_OK)
        #expect(Self.step(s, 106) == RUNWAY_OK, "holding: the fix adds no point")
        #expect(s.resume(Self.t0 + 107) == RUNWAY_OK)
        #expect(field("points", in: s.snapshot()) == 100)
        #expect(field("segments", in: s.snapshot()) == 1)
        #expect(Self.step(s, 108) == RUNWAY_ERR_LIMIT)
        #expect(s.stop(Self.t0 + 109) == RUNWAY_OK)
        let final = s.summary()
        #expect(field("points", in: final) == 100)
        #expect(final.has("\"phase\":\"touchdown\""))
        let (st, len) = s.exportGPX()
        #expect(st == RUNWAY_OK && len > 0)
    }

    // MARK: - Laps

    @Test func aFlightStopsCuttingAutoLapsOneShortOfTheLapLimitAndRefusesAManualLap() throws {
        #expect(LapCounter.maxLaps == Int(RUNWAY_MAX_LAPS))
        // Raw accumulation, 10 m auto laps, and fixes 1 km apart (10 m/s): 100 laps a fix.
        let s = try CSession(#"{"filters":"off","auto_lap_m":10}"#)
        #expect(s.start(Self.t0) == RUNWAY_OK)
        let (_, logs) = s.subscribe(#"{"policy":"queue","kinds":["log"]}"#, nil)
        let fixes = Int(RUNWAY_MAX_LAPS) / 100 + 5
        for i in 0...fixes { #expect(s.fix(Self.t0 + Double(i) * 100, 52 + Double(i) * 0.009) == RUNWAY_OK) }
        let snapshot = s.snapshot()
        #expect(field("lap", in: snapshot) == Double(RUNWAY_MAX_LAPS), "the lap in progress is the final one")
        var warnings: [String] = []
        while case (_, let event?) = s.poll(logs) { if event.has("auto laps stopped") { warnings.append(event) } }
        #expect(warnings.count == 1, "one warning, when the laps stopped: \(warnings)")
        #expect(warnings.first?.has("the flight has 49999 laps, one less than the limit of 50000 (RUNWAY_MAX_LAPS)") == true)

        #expect(s.lap(Self.t0 + Double(fixes) * 100 + 1) == RUNWAY_ERR_LIMIT)
        #expect(lastError().has("lap refused: the flight has 49999 laps, and the limit of 50000 (RUNWAY_MAX_LAPS) keeps the last for its final lap"))
        #expect(s.snapshot() == snapshot)
        #expect(s.stop() == RUNWAY_OK)
        let summary = s.summary()
        let trigger = Array(#""trigger":"#.utf8), bytes = Array(summary.utf8)
        let laps = (0...(bytes.count - trigger.count)).filter { bytes[$0] == trigger[0] && Array(bytes[$0..<$0 + trigger.count]) == trigger }.count
        #expect(laps == Int(RUNWAY_MAX_LAPS))
        #expect(summary.has(#""index":50000,"trigger":"final""#))
    }

    @Test func aFullRouteWithFiltersAcceptsFilteredFixesAndRefusesPoints() throws {
        let s = try CSession(#"{"max_route_points":100,"auto_pause":false}"#)
        #expect(s.start(Self.t0) == RUNWAY_OK)
        var i = 0
        var refusedAt: Int? = nil
        // 3 m/s north with good accuracy: a point every two seconds or so.
        while i < 1000, refusedAt == nil {
            let st = s.push("{\"t\":\(Self.t0 + Double(i)),\"lat\":\(52 + Double(i) * 2.7e-5),\"lon\":4,\"h_acc\":5,\"speed\":3}")
            if st == RUNWAY_ERR_LIMIT { refusedAt = i } else { #expect(st == RUNWAY_OK) }
            i += 1
        }
        #expect(refusedAt != nil)
        let snapshot = s.snapshot()
        #expect(field("points", in: snapshot) == 100)
        // A fix the gate filters (accuracy) adds no point: accepted, counted as filtered.
        let t = Self.t0 + Double(i)
        #expect(s.push("{\"t\":\(t),\"lat\":52.5,\"lon\":4,\"h_acc\":500}") == RUNWAY_OK)
        #expect(field("filtered", in: s.snapshot()) == (field("filtered", in: snapshot) ?? -1) + 1)
        #expect(field("points", in: s.snapshot()) == 100)
        #expect(s.stop() == RUNWAY_OK)
    }

    /// A stored flight on a full route of 100 points: started, fix 0 to 99 accepted.
    static func storedFullRoute(_ path: String, id: String) throws -> CSession {
        let s = try CSession(Self.raw + #","store":"\#(path)","flight_id":"\#(id)"}"#)
        #expect(s.start(Self.t0) == RUNWAY_OK)
        for i in 0..<100 { #expect(Self.step(s, i) == RUNWAY_OK) }
        return s
    }

    @Test func aRefusedFixIsNotJournaledAndARecoveredFlightRefusesTheSame() throws {
        let dir = TempDir(prefix: "runway-limits")
        let path = dir.path + "/limits.db"
        let s = try Self.storedFullRoute(path, id: "full")
        #expect(Self.step(s, 100) == RUNWAY_ERR_LIMIT)
        #expect(s.push(#"{"type":"hr","bpm":150,"t":1700000101}"#) == RUNWAY_OK)
        let (st, accepted, rejected) = s.jsonl("{\"t\":1700000102,\"lat\":53,\"lon\":4}\n{\"type\":\"hr\",\"bpm\":151,\"t\":1700000103}\n")
        #expect(st == RUNWAY_ERR_LIMIT && accepted == 1 && rejected == 1)
        let snapshot = s.snapshot(), summary = s.summary()
        s.close()   // the host dies: the flight is unfinished

        // The journal holds start, the 100 accepted fixes and the two samples: no refused fix.
        let store = try FlightStore(path: path)
        let (_, entries) = try store.journal(of: "full")
        store.close()
        #expect(entries.count == 1 + 100 + 2)

        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "full", nil, &h) == RUNWAY_OK)
        let r = try CSession.adopt(h)
        // The same flight: same figures (the snapshot's seq differs: a replay emits no log lines).
        #expect(field("points", in: r.snapshot()) == 100)
        #expect(field("distance_m", in: r.snapshot()) == field("distance_m", in: snapshot))
        #expect(after("\"route\":", in: r.summary()) == after("\"route\":", in: summary))
        #expect(Self.step(r, 104) == RUNWAY_ERR_LIMIT)
        #expect(r.fix(Self.t0 + 105, 52 + 99e-4 + 1e-5) == RUNWAY_OK)
        #expect(r.stop(Self.t0 + 106) == RUNWAY_OK)
        #expect(field("points", in: r.summary()) == 100)
        #expect(!r.log().has("journaled entries were refused"), "a faithful replay refuses nothing")
    }

    /// Pause and resume lines pushed through runway_push_jsonl (as an import writes a FIT file's
    /// timer stops) are journaled as the commands: a flight recovered after its host died is the
    /// same flight, held as it was, its walk while holding no distance.
    @Test func pauseAndResumeLinesAreJournaledAndARecoveredFlightIsTheSame() throws {
        let dir = TempDir(prefix: "runway-limits")
        let path = dir.path + "/timer.db"
        let s = try CSession(#"{"store":"\#(path)","flight_id":"timer"}"#)
        #expect(s.start(Self.t0) == RUNWAY_OK)
        func fixes(_ range: ClosedRange<Int>) -> String {
            range.map { "{\"t\":\(Self.t0 + Double($0)),\"lat\":\(52 + Double($0) * 2.7e-5),\"lon\":4,\"speed\":3}\n" }.joined()
        }
        let text = fixes(0...60) + "{\"type\":\"pause\",\"t\":\(Self.t0 + 60)}\n" + "{\"type\":\"resume\",\"t\":\(Self.t0 + 120)}\n"
            + fixes(120...150) + "{\"type\":\"pause\",\"t\":\(Self.t0 + 150)}\n"
        let (st, accepted, rejected) = s.jsonl(text)
        #expect(st == RUNWAY_OK && accepted == 95 && rejected == 0)
        let snapshot = s.snapshot(), summary = s.summary()
        #expect(after("\"phase\":", in: snapshot)?.hasPrefix("\"holding\"") == true)
        #expect(field("elapsed_s", in: snapshot) == 90)
        s.close()   // the host dies: the flight is unfinished

        let store = try FlightStore(path: path)
        let (_, entries) = try store.journal(of: "timer")
        store.close()
        #expect(entries.count == 1 + 92 + 3, "start, the fixes, two pauses and a resume")

        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "timer", nil, &h) == RUNWAY_OK)
        let r = try CSession.adopt(h)
        #expect(after("\"phase\":", in: r.snapshot())?.hasPrefix("\"holding\"") == true)
        #expect(field("elapsed_s", in: r.snapshot()) == 90)
        #expect(field("distance_m", in: r.snapshot()) == field("distance_m", in: snapshot))
        #expect(after("\"route\":", in: r.summary()) == after("\"route\":", in: summary))
        #expect(!r.log().has("journaled entries were refused"), "a faithful replay refuses nothing")
    }

    @Test func recoveringWithASmallerRouteLimitSaysWhatTheReplayRefused() throws {
        let dir = TempDir(prefix: "runway-limits")
        let path = dir.path + "/smaller.db"
        try Self.storedFullRoute(path, id: "f").close()   // the host dies

        var h: OpaquePointer? = nil
        let smaller = #"{"filters":"off","distance_filter_m":5,"max_route_points":60}"#
        #expect(runway_session_recover_impl(path, "f", smaller, &h) == RUNWAY_OK)
        let r = try CSession.adopt(h)
        #expect(field("points", in: r.snapshot()) == 60)
        #expect(r.log().has("replay: 40 of 101 journaled entries were refused (the first: fix refused: the route is full (60 points"))
    }

    @Test func aRouteOfOnePoint() throws {
        // The smallest limit: start on a known position takes the one point.
        let s = try CSession(#"{"filters":"off","distance_filter_m":5,"max_route_points":1}"#)
        #expect(s.fix(Self.t0, 52) == RUNWAY_OK)
        #expect(s.start(Self.t0) == RUNWAY_OK)
        #expect(field("points", in: s.snapshot()) == 1)
        #expect(s.fix(Self.t0 + 1, 52.001) == RUNWAY_ERR_LIMIT)
        #expect(s.fix(Self.t0 + 2, 52) == RUNWAY_OK, "at the point itself: nothing to add")
    }
}
