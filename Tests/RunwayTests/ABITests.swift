import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

@Suite("C ABI calls")
struct ABITests {
    @Test func versionsMatchTheHeader() {
        #expect(runway_abi_version_impl() == UInt32(RUNWAY_ABI_VERSION))
        #expect(String(cString: runway_version_impl()!) == RUNWAY_VERSION_STRING)
        for raw in 0...7 {
            #expect(!String(cString: runway_status_string_impl(runway_status(rawValue: UInt32(raw)))!).isEmpty)
        }
    }

    @Test func nullArgumentsAreArgumentErrorsWithAMessage() throws {
        let s = try CSession()
        var out: UnsafeMutablePointer<CChar>? = nil
        var id: UInt64 = 0
        var fix = runway_fix(t: 1, lat: 52, lon: 4, alt: .nan, speed: .nan, course: .nan, h_acc: .nan, v_acc: .nan)
        let calls: [(String, () -> runway_status)] = [
            ("open out", { runway_session_open_impl(nil, nil) }),
            ("push_json session", { runway_push_json_impl(nil, "{}") }),
            ("push_json json", { runway_push_json_impl(s.handle, nil) }),
            ("push_jsonl buf", { runway_push_jsonl_impl(s.handle, nil, 5, nil, nil) }),
            ("push_fix session", { runway_push_fix_impl(nil, &fix) }),
            ("push_fix fix", { runway_push_fix_impl(s.handle, nil) }),
            ("start", { runway_start_impl(nil, 0) }),
            ("tick", { runway_tick_impl(nil, 0) }),
            ("snapshot out", { runway_snapshot_json_impl(s.handle, nil) }),
            ("summary session", { runway_summary_json_impl(nil, &out) }),
            ("log out", { runway_log_json_impl(s.handle, nil) }),
            ("subscribe out", { runway_subscribe_impl(s.handle, nil, nil, nil, nil) }),
            ("subscribe session", { runway_subscribe_impl(nil, nil, nil, nil, &id) }),
            ("poll out", { runway_poll_impl(s.handle, 1, nil) }),
            ("unsubscribe session", { runway_unsubscribe_impl(nil, 1) }),
        ]
        for (name, call) in calls {
            #expect(call() == RUNWAY_ERR_ARGUMENT, "\(name)")
            #expect(!lastError().isEmpty, "\(name)")
        }
        runway_session_close_impl(nil)      // harmless
        runway_string_free_impl(nil)        // harmless
    }

    /// A size_t length over PTRDIFF_MAX (read by Swift as a negative Int) is an argument error
    /// that names it, for every call that takes a buffer and its length: no buffer is that long,
    /// and nothing is read (`runway_push_jsonl` trapped on it in a debug build and, in a release
    /// one, read nothing and returned RUNWAY_OK).
    @Test func aLengthOverPTRDIFFMaxIsAnArgumentError() throws {
        let s = try CSession()
        s.start(0)
        let huge = Int(bitPattern: UInt.max)
        var out: UnsafeMutablePointer<CChar>? = nil
        var route: UnsafeMutablePointer<runway_route_point>? = nil
        var n = 0, routeN = 0, accepted = 7, rejected = 7
        let text = #"{"t":1,"lat":52,"lon":4}"#
        let calls: [(String, () -> runway_status)] = [
            ("push_jsonl", { text.withCString { runway_push_jsonl_impl(s.handle, $0, huge, &accepted, &rejected) } }),
            ("import", { text.withCString { runway_import_impl("gpx", $0, huge, &out, &n) } }),
            ("analyse", { text.withCString { runway_analyse_impl(nil, $0, huge, &out, &n) } }),
            ("analyse_route", { text.withCString { runway_analyse_route_impl(nil, $0, huge, &out, &n, &route, &routeN) } }),
        ]
        for (name, call) in calls {
            #expect(call() == RUNWAY_ERR_ARGUMENT, "\(name)")
            #expect(lastError().contains("len 18446744073709551615 is over PTRDIFF_MAX"), "\(name): \(lastError())")
            #expect(out == nil && route == nil, "\(name)")
        }
        #expect(accepted == 0 && rejected == 0)
        #expect(field("distance_m", in: s.snapshot()) == 0)
    }

    @Test func badInputChangesNoRunStateButIsLogged() throws {
        let s = try CSession(#"{"distance_filter_m":0}"#)
        s.start(0)
        s.fix(1, 52)
        s.fix(2, 52.0001)
        let before = s.snapshot()
        let bad: [(String, runway_status)] = [
            ("", RUNWAY_ERR_JSON), ("not json", RUNWAY_ERR_JSON), ("[1]", RUNWAY_ERR_JSON),
            (#"{"lat":52"#, RUNWAY_ERR_JSON), (#"{"lat":52,"t":3}"#, RUNWAY_ERR_INPUT),
            (#"{"lat":95,"lon":4,"t":3}"#, RUNWAY_ERR_INPUT), (#"{"lat":1e999,"lon":4,"t":3}"#, RUNWAY_ERR_INPUT),
            (#"{"lat":52.1,"lon":4,"t":1}"#, RUNWAY_ERR_INPUT), (#"{"type":"hr","bpm":-1,"t":3}"#, RUNWAY_ERR_INPUT),
            (#"{"type":"warp","t":3}"#, RUNWAY_ERR_INPUT),
        ]
        for (json, status) in bad {
            #expect(s.push(json) == status, "\(json)")
            #expect(!lastError().isEmpty)
        }
        var pod = runway_fix(t: .infinity, lat: 52, lon: 4, alt: .nan, speed: .nan, course: .nan, h_acc: .nan, v_acc: .nan)
        #expect(runway_push_fix_impl(s.handle, &pod) == RUNWAY_ERR_INPUT)
        pod.t = 3; pod.lat = .nan
        #expect(runway_push_fix_impl(s.handle, &pod) == RUNWAY_ERR_INPUT)
        #expect(s.snapshot() == before)
        #expect(s.log().has("rejected input"))
    }

    @Test func thePodFastPathMatchesJSON() throws {
        let a = try CSession(), b = try CSession()
        a.start(0); b.start(0)
        for i in 0..<50 {
            let t = Double(i), lat = 52 + Double(i) * 0.00004, speed = 3.1, course = -1.0
            a.push("{\"t\":\(t),\"lat\":\(lat),\"lon\":4.5,\"speed\":\(speed),\"course\":\(course),\"alt\":7}")
            var f = runway_fix(t: t, lat: lat, lon: 4.5, alt: 7, speed: speed, course: course, h_acc: .nan, v_acc: .nan)
            #expect(runway_push_fix_impl(b.handle, &f) == RUNWAY_OK)
        }
        #expect(a.summary() == b.summary())
    }

    @Test func jsonLinesProcessesEveryLineAndNamesTheFirstBadOne() throws {
        let s = try CSession(#"{"distance_filter_m":0}"#)
        let text = """
        {"t":1,"lat":52,"lon":4}
        \t
        {"t":2,"lat":52.0001,"lon":4}\r
        not json
        {"t":3,"lat":52.0002,"lon":4}
        {"t":2.5,"lat":52.0003,"lon":4}
        {"t":4,"lat":52.0003,"lon":4}
        """
        var accepted = 99, rejected = 99
        let st = text.withCString { runway_push_jsonl_impl(s.handle, $0, strlen($0), &accepted, &rejected) }
        #expect(st == RUNWAY_ERR_JSON)
        #expect(lastError().has("line 4"))
        #expect(accepted == 4 && rejected == 2)
        #expect(field("fixes", in: s.snapshot()) == 4)
        let ok = "{\"t\":5,\"lat\":52.0004,\"lon\":4}\n"
        #expect(ok.withCString { runway_push_jsonl_impl(s.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(accepted == 1 && rejected == 0)
        #expect(runway_push_jsonl_impl(s.handle, nil, 0, &accepted, &rejected) == RUNWAY_OK)
        #expect(accepted == 0)
    }

    @Test func anImportReportLineIsAcceptedAndIgnoredByBothPushPaths() throws {
        let report = #"{"type":"import_report","format":"gpx","sport":null,"activity":null,"inputs":2,"untimed":3,"no_position":0,"unreadable":0,"tracks":[{"index":0,"name":"a","points":2,"untimed":3}],"warnings":["x"],"device":{"distance_m":5,"laps":[{"timer_s":1}]}}"#
        let fixes = "{\"t\":1,\"lat\":52,\"lon\":4}\n{\"t\":2,\"lat\":52.0001,\"lon\":4}\n"
        let plain = try CSession(#"{"distance_filter_m":0}"#)
        var accepted = 0, rejected = 0
        #expect(fixes.withCString { runway_push_jsonl_impl(plain.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        let s = try CSession(#"{"distance_filter_m":0}"#)
        let text = fixes + report + "\n"
        #expect(text.withCString { runway_push_jsonl_impl(s.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(accepted == 3 && rejected == 0)
        #expect(s.push(report) == RUNWAY_OK)
        #expect(field("fixes", in: s.snapshot()) == 2)
        #expect(s.summary() == plain.summary(), "the report changes nothing")
        #expect(s.push(#"{"type":"power","watts":250,"t":3}"#) == RUNWAY_OK, "a power sample is accepted")
        #expect(s.push(#"{"type":"power","t":3}"#) == RUNWAY_ERR_INPUT)
        #expect(s.push(#"{"type":"power","watts":-1,"t":3}"#) == RUNWAY_ERR_INPUT)
        #expect(s.push(#"{"t":4,"lat":52.0002,"lon":4,"power":9000}"#) == RUNWAY_ERR_INPUT, "power on a fix is range-checked")
    }

    /// JSON Lines of fixes at the seconds `ts`, 11 m apart northward.
    private func fixes(_ ts: ClosedRange<Int>) -> String {
        ts.map { "{\"t\":\($0),\"lat\":\(52 + Double($0) * 0.0001),\"lon\":4}\n" }.joined()
    }

    /// A pause or resume line (as `runway_import` writes a recording's timer stops) is the
    /// command at its time, through either push path; one the phase refuses is a state error that
    /// is logged and changes nothing, and the lines after it go on.
    @Test func aPauseOrResumeLineIsTheCommandAtItsTime() throws {
        let called = try CSession(#"{"distance_filter_m":0}"#)
        #expect(runway_start_impl(called.handle, 0) == RUNWAY_OK)
        var accepted = 0, rejected = 0
        #expect(fixes(0...5).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_pause_impl(called.handle, 5) == RUNWAY_OK)
        #expect(fixes(6...9).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_resume_impl(called.handle, 10) == RUNWAY_OK)
        #expect(fixes(10...14).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)

        let lines = try CSession(#"{"distance_filter_m":0}"#)
        #expect(lines.push(#"{"type":"pause","t":0}"#) == RUNWAY_ERR_STATE, "no pause before the start")
        #expect(lastError().has("pause"))
        #expect(runway_start_impl(lines.handle, 0) == RUNWAY_OK)
        let text = fixes(0...5) + "{\"type\":\"pause\",\"t\":5}\n" + fixes(6...9) + "{\"type\":\"pause\",\"t\":9}\n"
            + "{\"type\":\"resume\",\"t\":10}\n" + fixes(10...12)
        #expect(text.withCString { runway_push_jsonl_impl(lines.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_ERR_STATE)
        #expect(lastError().has("line 12"), "the second pause, while holding")
        #expect(accepted == 15 && rejected == 1)
        #expect(lines.push(#"{"type":"resume","t":"soon"}"#) == RUNWAY_ERR_INPUT)
        #expect(lines.log().contains("cannot pause in phase holding"), "the refused pause of the batch is logged")
        #expect(fixes(13...14).withCString { runway_push_jsonl_impl(lines.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_stop_impl(called.handle, .nan) == RUNWAY_OK && runway_stop_impl(lines.handle, .nan) == RUNWAY_OK)
        #expect(lines.summary() == called.summary())
        #expect(field("elapsed_s", in: called.summary()) == 9)
    }

    /// A device lap line (as `runway_import` writes a recording's laps) is the lap at its time
    /// while auto laps are off (`auto_lap_m` 0, the import report's for a file with laps), with
    /// a lap's statuses; with auto laps on it is accepted and changes nothing: the flight's laps
    /// are its auto laps, and the log says so once.
    @Test func aDeviceLapLineIsALapOnlyWhileAutoLapsAreOff() throws {
        let device = "{\"type\":\"device_lap\",\"t\":5}\n"
        let text = fixes(0...5) + device + fixes(6...9) + "{\"type\":\"device_lap\",\"t\":9.5}\n" + fixes(10...12)
        var accepted = 0, rejected = 0
        let off = try CSession(#"{"distance_filter_m":0,"auto_lap_m":0}"#)
        #expect(off.push(device) == RUNWAY_ERR_STATE, "no lap before the start")
        #expect(runway_start_impl(off.handle, 0) == RUNWAY_OK)
        #expect(text.withCString { runway_push_jsonl_impl(off.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(accepted == 15 && rejected == 0)
        #expect(off.push(#"{"type":"device_lap","t":3}"#) == RUNWAY_ERR_INPUT, "before the latest input")
        let on = try CSession(#"{"distance_filter_m":0,"auto_lap_m":10}"#)
        #expect(runway_start_impl(on.handle, 0) == RUNWAY_OK)
        #expect(text.withCString { runway_push_jsonl_impl(on.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(accepted == 15 && rejected == 0)
        #expect(on.log().ranges(of: "own laps are not replayed").count == 1)
        #expect(runway_stop_impl(off.handle, .nan) == RUNWAY_OK && runway_stop_impl(on.handle, .nan) == RUNWAY_OK)
        #expect(off.summary().ranges(of: "\"trigger\":\"manual\"").count == 2)
        #expect(on.summary().ranges(of: "\"trigger\":\"manual\"").isEmpty && on.summary().contains("\"trigger\":\"auto\""))
    }

    /// A lap line is `runway_lap` at its time (none: now), through either push path, with its statuses: a lap before the start or
    /// after the stop is a state error, as is one with nothing since the last lap; a time that is
    /// not a number, out of range or before the latest input is an input error; each refused line
    /// is logged and changes nothing, and the lines after it go on.
    @Test func aLapLineIsTheLapAtItsTime() throws {
        let config = #"{"distance_filter_m":0,"auto_lap_m":0}"#
        let called = try CSession(config)
        #expect(runway_start_impl(called.handle, 0) == RUNWAY_OK)
        var accepted = 0, rejected = 0
        #expect(fixes(0...5).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_lap_impl(called.handle, 5) == RUNWAY_OK)
        #expect(fixes(6...9).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_lap_impl(called.handle, 9.5) == RUNWAY_OK)
        #expect(fixes(10...14).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)

        let lines = try CSession(config)
        #expect(lines.push(#"{"type":"lap","t":0}"#) == RUNWAY_ERR_STATE, "no lap before the start")
        #expect(lastError().has("cannot lap in phase preflight"))
        #expect(runway_start_impl(lines.handle, 0) == RUNWAY_OK)
        #expect(lines.push(#"{"type":"lap"}"#) == RUNWAY_ERR_STATE, "now, at the start: nothing to lap")
        #expect(lastError().has("nothing to lap"))
        let text = fixes(0...5) + "{\"type\":\"lap\",\"t\":5}\n" + "{\"type\":\"lap\",\"t\":5}\n" + fixes(6...9)
            + "{\"type\":\"lap\",\"t\":9.5}\n" + "{\"type\":\"lap\",\"t\":3}\n" + fixes(10...12)
        #expect(text.withCString { runway_push_jsonl_impl(lines.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_ERR_STATE)
        #expect(lastError().has("line 8"), "the second lap at 5 s: nothing since the first")
        #expect(accepted == 15 && rejected == 2, "and the lap at 3 s, before the latest input")
        #expect(lines.log().contains("nothing to lap"), "the refused lap of the batch is logged")
        #expect(lines.push(#"{"type":"lap","t":"soon"}"#) == RUNWAY_ERR_INPUT)
        #expect(lines.push(#"{"type":"lap","t":-1}"#) == RUNWAY_ERR_INPUT)
        #expect(lines.push(#"{"type":"lap","t":1e12}"#) == RUNWAY_ERR_INPUT)
        #expect(lines.push(#"{"type":"lap","t":11}"#) == RUNWAY_ERR_INPUT, "before the latest input")
        #expect(lastError().has("time going backwards"))
        #expect(fixes(13...14).withCString { runway_push_jsonl_impl(lines.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_stop_impl(called.handle, .nan) == RUNWAY_OK && runway_stop_impl(lines.handle, .nan) == RUNWAY_OK)
        #expect(lines.push(#"{"type":"lap","t":20}"#) == RUNWAY_ERR_STATE, "after the stop")
        #expect(lastError().has("cannot lap in phase touchdown"))
        #expect(lines.summary() == called.summary())
        #expect(called.summary().ranges(of: "\"trigger\":\"manual\"").count == 2)
    }

    /// A start line (as `runway_import` writes a recording's timer started before its first
    /// record) is `runway_start` at its time, through either push path: the flight's time runs
    /// from it, not from the first fix; a second one is a state error, logged, and the lines after
    /// it go on.
    @Test func aStartLineIsTheStartAtItsTime() throws {
        let called = try CSession(#"{"distance_filter_m":0}"#)
        #expect(runway_start_impl(called.handle, 100) == RUNWAY_OK)
        var accepted = 0, rejected = 0
        #expect(fixes(130...150).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)

        let one = try CSession(#"{"distance_filter_m":0}"#)
        #expect(one.push(#"{"type":"start","t":100}"#) == RUNWAY_OK)
        #expect(one.snapshot().contains("\"phase\":\"cruise\""))
        #expect(fixes(130...150).withCString { runway_push_jsonl_impl(one.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)

        let lines = try CSession(#"{"distance_filter_m":0}"#)
        let text = "{\"type\":\"start\",\"t\":100}\n" + fixes(130...140) + "{\"type\":\"start\",\"t\":140}\n" + fixes(141...150)
        #expect(text.withCString { runway_push_jsonl_impl(lines.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_ERR_STATE)
        #expect(lastError().has("line 13"), "the second start, in cruise")
        #expect(accepted == 22 && rejected == 1)
        #expect(lines.log().contains("cannot start in phase cruise"), "the refused start of the batch is logged")
        // A host that starts at the first line's time and pushes every line, the start line too:
        // a start at the flight's own start time is already true (RUNWAY_OK, nothing changes).
        let plain = try CSession(#"{"distance_filter_m":0}"#)
        #expect(runway_start_impl(plain.handle, 100) == RUNWAY_OK)
        let all = "{\"type\":\"start\",\"t\":100}\n" + fixes(130...150)
        #expect(all.withCString { runway_push_jsonl_impl(plain.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(accepted == 22 && rejected == 0)
        #expect(runway_start_impl(plain.handle, 100) == RUNWAY_OK)
        for s in [called, one, lines, plain] { #expect(runway_stop_impl(s.handle, .nan) == RUNWAY_OK) }
        #expect(runway_start_impl(plain.handle, 100) == RUNWAY_ERR_STATE, "after touchdown: a session is one flight")
        #expect(lines.summary() == called.summary() && one.summary() == called.summary() && plain.summary() == called.summary())
        #expect(field("elapsed_s", in: called.summary()) == 50)
        #expect(field("start_t", in: lines.summary()) == 100)
    }

    /// A start with no time (Python's `start()`) takes the first fix's: so does the first lap,
    /// in the summary and the exports (it started at 0: a TCX Lap StartTime of 1970).
    @Test func aStartWithNoTimeStartsTheFirstLapAtTheFirstFix() throws {
        let s = try CSession(#"{"distance_filter_m":0,"auto_lap_m":100}"#)
        #expect(s.start() == RUNWAY_OK)
        for i in 0...120 { #expect(s.fix(1_700_000_130 + Double(i), 52 + Double(i) * 3e-5) == RUNWAY_OK) }
        #expect(s.stop() == RUNWAY_OK)
        let summary = s.summary()
        #expect(field("start_t", in: summary) == 1_700_000_130)
        #expect(summary.has(#""laps":[{"index":1,"trigger":"auto","start_t":1700000130.0,"#), "\(summary.prefix(900))")
        var out: UnsafeMutablePointer<CChar>? = nil
        var len = 0
        #expect(runway_export_impl(s.handle, "tcx", &out, &len) == RUNWAY_OK)
        let tcx = out.map { String(cString: $0) } ?? ""
        runway_string_free_impl(out)
        #expect(tcx.has(#"<Lap StartTime="2023-11-14T22:15:30Z">"#), "\(tcx.prefix(600))")
        #expect(!tcx.has("1970"))
    }

    /// A host that starts with no time (the next input's) and pushes a recording's lines, its
    /// start line first: the start line is that input and gives the start its time (it was a
    /// state error, and the flight then ran from the first fix). Journaled, so a recovered flight
    /// starts there too.
    @Test func aStartLineGivesAPendingStartItsTime() throws {
        let called = try CSession(#"{"distance_filter_m":0}"#)
        #expect(runway_start_impl(called.handle, 100) == RUNWAY_OK)
        var accepted = 0, rejected = 0
        #expect(fixes(130...150).withCString { runway_push_jsonl_impl(called.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK)
        #expect(runway_stop_impl(called.handle, .nan) == RUNWAY_OK)

        let dir = TempDir()
        let path = dir.file()
        let pending = try CSession(#"{"distance_filter_m":0,"store":"\#(path)","flight_id":"p"}"#)
        #expect(runway_start_impl(pending.handle, .nan) == RUNWAY_OK)
        let all = "{\"type\":\"start\",\"t\":100}\n" + fixes(130...150)
        #expect(all.withCString { runway_push_jsonl_impl(pending.handle, $0, strlen($0), &accepted, &rejected) } == RUNWAY_OK, "\(lastError())")
        #expect(accepted == 22 && rejected == 0)
        #expect(field("start_t", in: pending.summary()) == 100)
        #expect(runway_start_impl(pending.handle, 100) == RUNWAY_OK, "now the flight's own start time: already true")
        #expect(runway_start_impl(pending.handle, 101) == RUNWAY_ERR_STATE)
        pending.close()   // (no stop: unfinished, recovered below)
        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "p", nil, &h) == RUNWAY_OK, "\(lastError())")
        let recovered = try CSession.adopt(h)
        #expect(runway_stop_impl(recovered.handle, .nan) == RUNWAY_OK)
        #expect(recovered.summary().replacing(#""flight_id":"p","#, with: "") == called.summary())
        recovered.close()
    }

    @Test func aFiveMegabyteLineAndDeepNestingAreRefusedCleanly() throws {
        let s = try CSession()
        let big = #"{"lat":52,"lon":4,"t":1,"pad":""# + String(repeating: "y", count: 5 << 20) + "\"}"
        #expect(s.push(big) == RUNWAY_ERR_LIMIT)
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(s.push(#"{"lat":52,"lon":4,"t":1,"x":"# + deep + "}") == RUNWAY_ERR_LIMIT)
        #expect(s.fix(1, 52) == RUNWAY_OK)
    }

    @Test func unknownConfigKeysAreArgumentErrors() {
        var h: OpaquePointer? = nil
        #expect(runway_session_open_impl(#"{"distance_filtre_m":5}"#, &h) == RUNWAY_ERR_ARGUMENT)
        #expect(lastError().has("distance_filtre_m"))
        #expect(h == nil)
    }

    @Test func theLogKeepsTheLast20LinesAndIsReadable() throws {
        let s = try CSession()
        for i in 0..<25 { s.push("bad \(i)") }
        let log = s.log()
        var count = 0
        var rest = Substring(log)
        while let r = after("\"kind\":\"log\"", in: String(rest)) { count += 1; rest = r }
        #expect(count == 20)
    }

    @Test func theLiveClockTicksOnceASecondAndRestartingNeverDoublesIt() throws {
        let s = try CSession(#"{"clock":"live"}"#)
        let token = try session(s.handle).token
        #expect(Ticker.shared.isRegistered(token))
        let (_, id) = s.subscribe(#"{"kinds":["tick"],"policy":"queue"}"#, nil)
        #expect(s.start() == RUNWAY_OK)
        #expect(s.push(#"{"lat":52,"lon":4}"#) == RUNWAY_OK)  // no t: the wall clock
        s.pause(); s.resume()
        #expect(s.start() == RUNWAY_ERR_STATE)
        // Collect ticks for about 2.5 s of wall time.
        let waiter = Recorder()
        _ = waiter.wait(seconds: 2.5) { _ in false }
        var ticks: [String] = []
        while case (RUNWAY_OK, let e?) = s.poll(id) { ticks.append(e) }
        #expect(ticks.count >= 1 && ticks.count <= 3, "\(ticks.count) ticks in 2.5 s")
        let elapsed = ticks.compactMap { field("elapsed_s", in: $0) }
        #expect(elapsed == elapsed.sorted())
        #expect(ticks.allSatisfy { $0.has("\"time\":\"00:00:0") })
        s.close()
        #expect(!Ticker.shared.isRegistered(token))
    }
}
