import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// The engine's whole output, byte for byte, for every recording in ../shared/tracks and a fixed
/// set of simulator scenarios, against the files in `Tests/golden`.
///
/// Each case is driven through the C ABI (so the driver, validation and journal-free session path
/// are covered too): a poll subscription with a queue takes every event, drained after every call.
/// The golden file holds, per case, how many calls were accepted and refused (and a digest of
/// their statuses and messages), how many events of each kind came out and a 64-bit FNV-1a digest
/// of all of them in order, the summary without its route, and a digest of the whole summary.
/// Digests, not the text itself: the real recordings are people's locations, which stay out of
/// the repository, and a 79 km ride's stream is 20 MB.
///
/// To see what changed, run with `RUNWAY_GOLDEN_DUMP=dir` (each case's full stream is written to
/// `dir/<case>.jsonl`) before and after a change and diff the two. A change of behaviour is made
/// in its own commit that rewrites the files (`RUNWAY_GOLDEN=write swift test --filter Golden`)
/// and says which bug it fixes.
@Suite("Golden outputs", .serialized)
struct GoldenTests {
    static let folder: String = {
        let file = "\(#filePath)"
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)   // RunwayTests/GoldenTests.swift
        return parts.joined(separator: "/") + "/golden"
    }()
    static let writing = getenv("RUNWAY_GOLDEN").map { String(cString: $0) } == "write"
    static let dumpDir = getenv("RUNWAY_GOLDEN_DUMP").map { String(cString: $0) }

    /// One call into a session.
    enum Op {
        case push(String)
        case start(Double), pause(Double), resume(Double), stop(Double), lap(Double), tick(Double)
    }

    /// Runs `ops` in a session opened with `config` and describes everything that came out.
    static func run(_ name: String, config: String, ops: [Op]) -> String {
        var h: OpaquePointer? = nil
        guard config.withCString({ runway_session_open_impl($0, &h) }) == RUNWAY_OK, let s = h else {
            return "open failed: \(lastError())\n"
        }
        defer { runway_session_close_impl(s) }
        var id: UInt64 = 0
        guard #"{"policy":"queue","capacity":65536}"#.withCString({ runway_subscribe_impl(s, $0, nil, nil, &id) }) == RUNWAY_OK else {
            return "subscribe failed: \(lastError())\n"
        }
        var calls = Digest(), events = Digest()
        var accepted = 0, refused = 0, total = 0
        var kinds: [String: Int] = [:]
        let dump: UnsafeMutablePointer<FILE>? = dumpDir.flatMap { fopen($0 + "/" + name + ".jsonl", "w") }
        defer { if let dump { fclose(dump) } }
        func drain() {
            while true {
                var out: UnsafeMutablePointer<CChar>? = nil
                guard runway_poll_impl(s, id, &out) == RUNWAY_OK, let out else { return }
                let text = String(cString: out)
                runway_string_free_impl(out)
                events.add(text)
                total += 1
                kinds[kind(text), default: 0] += 1
                if let dump { fputs(text + "\n", dump) }
            }
        }
        for op in ops {
            let st: runway_status
            switch op {
            case .push(let line): st = line.withCString { runway_push_json_impl(s, $0) }
            case .start(let t): st = runway_start_impl(s, t)
            case .pause(let t): st = runway_pause_impl(s, t)
            case .resume(let t): st = runway_resume_impl(s, t)
            case .stop(let t): st = runway_stop_impl(s, t)
            case .lap(let t): st = runway_lap_impl(s, t)
            case .tick(let t): st = runway_tick_impl(s, t)
            }
            if st == RUNWAY_OK { accepted += 1 } else { refused += 1; calls.add("\(st.rawValue) \(lastError())") }
            calls.add("\(st.rawValue)")
            drain()
        }
        var out: UnsafeMutablePointer<CChar>? = nil
        let summary: String
        if runway_summary_json_impl(s, &out) == RUNWAY_OK, let out {
            summary = String(cString: out)
            runway_string_free_impl(out)
        } else {
            summary = "summary failed: \(lastError())"
        }
        // The summary up to its route fields (the route is in the digest).
        let u = Array(summary.utf8), cut = Array(",\"simplify_m\":".utf8)
        var end = u.count
        if u.count >= cut.count {
            for i in 0...(u.count - cut.count) where u[i] == cut[0] && Array(u[i..<(i + cut.count)]) == cut { end = i; break }
        }
        let routeless = String(decoding: u[..<end], as: UTF8.self) + (end < u.count ? "}" : "")
        // Invariants of every flight: moving time within elapsed time, distance never negative.
        if let moving = field("moving_s", in: summary), let elapsed = field("elapsed_s", in: summary) {
            #expect(moving <= elapsed + 1e-6, "\(name): moving_s \(moving) > elapsed_s \(elapsed)")
        }
        if let d = field("distance_m", in: summary) { #expect(d >= 0, "\(name)") }
        let kindList = kinds.keys.sorted().map { "\($0) \(kinds[$0] ?? 0)" }.joined(separator: ", ")
        return """
        calls \(accepted + refused): accepted \(accepted), refused \(refused), digest \(calls.hex)
        events \(total): \(kindList), digest \(events.hex)
        summary digest \(Digest.of(summary).hex)
        \(routeless)

        """
    }

    /// Checks `text` against the golden file `name` (or writes it).
    static func check(_ name: String, _ text: String) {
        let path = folder + "/" + name + ".golden"
        if writing {
            guard let f = fopen(path, "w") else { Issue.record("cannot write \(path)"); return }
            fputs(text, f)
            fclose(f)
            return
        }
        guard let bytes = SharedTracks.read(path) else {
            Issue.record("no golden file \(path): write it with RUNWAY_GOLDEN=write")
            return
        }
        let expected = String(decoding: bytes, as: UTF8.self)
        #expect(text == expected, "\(name): output differs from \(path)")
    }

    // MARK: - Real recordings

    /// Every recording with the profile its own sport calls for (as `RealTrackTests` reads it).
    static func recordings() -> [(file: String, activity: String)] {
        RealTrackFilteredTests.recordings().map { ($0.file, RealTrackFilteredTests.activity($0.sport).rawValue) }
    }

    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func everyRecordingGivesTheGoldenOutput() throws {
        let list = GoldenTests.recordings()
        #expect(list.count >= 10)
        for (file, activity) in list {
            guard let dir = SharedTracks.folder, let bytes = SharedTracks.read(dir + "/fixes/" + file + ".jsonl") else {
                Issue.record("no fixes for \(file)"); continue
            }
            var ops: [Op] = []
            var started = false
            for line in bytes.split(separator: 0x0A) where !line.isEmpty {
                let text = String(decoding: line, as: UTF8.self)
                if !started, let t = field("t", in: text) { ops.append(.start(t)); started = true }
                ops.append(.push(text))
            }
            ops.append(.stop(.nan))
            GoldenTests.check("track-" + file, GoldenTests.run(file, config: "{\"activity\":\"\(activity)\"}", ops: ops))
        }
    }

    // MARK: - Simulator scenarios

    /// The simulator's fixes as pushes, with a heart-rate sample every 5 s (a slow drift up),
    /// and with the fixes in `dropped` (a tunnel) left out.
    static func pushes(_ c: SimConfig, dropped: [ClosedRange<Double>] = [], hr: Bool = true) -> [Op] {
        let run = simulate(c)
        var ops: [Op] = []
        for (i, line) in run.jsonLines().split(separator: "\n").enumerated() {
            let f = run.fixes[i]
            if dropped.contains(where: { $0.contains(f.t - c.startT) }) { continue }
            ops.append(.push(String(line)))
            if hr, i % 5 == 0 {
                ops.append(.push("{\"type\":\"hr\",\"bpm\":\(130 + (i / 30) % 40),\"t\":\(f.t)}"))
            }
        }
        return ops
    }

    static func sim(_ seed: UInt64, km: Double = 2, pace: Double = 5, _ edit: (inout SimConfig) -> Void = { _ in }) -> SimConfig {
        var c = SimConfig()
        c.seed = seed
        c.loopLengthM = km * 1000
        c.paceMinPerKm = pace
        edit(&c)
        return c
    }

    static func scenarios() -> [(name: String, config: String, ops: [Op])] {
        let t0 = SimConfig().startT
        var list: [(String, String, [Op])] = []
        // A steady run with Doppler speed.
        list.append(("steady", "{}", [.start(t0)] + pushes(sim(11)) + [.stop(.nan)]))
        // Positions only, at a southern place across the antimeridian.
        list.append(("positions-only-antimeridian", "{}", [.start(t0)] + pushes(sim(12) {
            $0.includeSpeed = false; $0.includeCourse = false; $0.centerLat = -16.5; $0.centerLon = 179.999
        }) + [.stop(.nan)]))
        // Two stops with auto-pause.
        list.append(("stops-auto-pause", "{\"auto_pause\":true}", [.start(t0)] + pushes(sim(13, km: 3) {
            $0.stops = [SimStop(atDistanceM: 800, durationS: 120), SimStop(atDistanceM: 2000, durationS: 45)]
        }) + [.stop(.nan)]))
        // The same without Doppler.
        list.append(("stops-auto-pause-positions-only", "{\"auto_pause\":true}", [.start(t0)] + pushes(sim(14, km: 3) {
            $0.stops = [SimStop(atDistanceM: 800, durationS: 120)]; $0.includeSpeed = false
        }) + [.stop(.nan)]))
        // Tunnels (60 s and 200 s without fixes) and junk fixes.
        list.append(("tunnels-and-spikes", "{\"auto_pause\":true}", [.start(t0)] + pushes(sim(15, km: 3) {
            $0.spikes = [SimSpike(atIndex: 100, kind: .nullIsland), SimSpike(atIndex: 300, kind: .offsetM(400)),
                         SimSpike(atIndex: 501, kind: .offsetM(150))]
        }, dropped: [200...260, 500...700]) + [.stop(.nan)]))
        // A ride through a tunnel, standing at a light after it.
        list.append(("ride-tunnel-light", "{\"activity\":\"ride\",\"auto_pause\":true}", [.start(t0)] + pushes(sim(16, km: 6, pace: 2.2) {
            $0.stops = [SimStop(atDistanceM: 3000, durationS: 90)]
        }, dropped: [300...330]) + [.stop(.nan)]))
        // A walk, user pause and resume, manual laps.
        var walk = [Op.start(t0)] + pushes(sim(17, km: 1.5, pace: 11))
        walk.insert(.pause(.nan), at: walk.count / 3)
        walk.insert(.resume(.nan), at: walk.count / 2)
        walk.insert(.lap(.nan), at: 2 * walk.count / 3)
        walk.insert(.lap(.nan), at: 2 * walk.count / 3 + 50)
        list.append(("walk-pause-laps", "{\"activity\":\"walk\"}", walk + [.stop(.nan)]))
        // Auto laps and every alert.
        list.append(("auto-laps-alerts",
                     #"{"auto_lap_m":500,"target_pace":{"min":4.6,"max":5.2},"hr_ceiling":150,"goal_m":2500,"minimums_m":[1000,2000]}"#,
                     [.start(t0)] + pushes(sim(18, km: 3) { $0.paceVariation = 0.12 }) + [.stop(.nan)]))
        // Filters off.
        list.append(("filters-off", #"{"filters":"off","auto_lap_m":1000}"#, [.start(t0)] + pushes(sim(19)) + [.stop(.nan)]))
        // A sparse recorder (a fix every 5 s) with the clock ticked every second between fixes.
        var ticked: [Op] = [.start(t0)]
        for op in pushes(sim(20) { $0.hz = 0.2 }, hr: false) {
            ticked.append(op)
            if case .push(let line) = op, let t = field("t", in: line) {
                for k in 1...4 { ticked.append(.tick(t + Double(k))) }
            }
        }
        list.append(("sparse-ticks", "{}", ticked + [.stop(.nan)]))
        // A ride with a power meter: a sample a second at levels that change every 30 s (above,
        // inside and below the target), coasting at 0 W for 8 s every 2 min, a 20 s dropout;
        // power targets and 2 km auto laps.
        let levels = [220, 300, 235, 150, 250, 210]
        var powered: [Op] = [.start(t0)]
        for op in pushes(sim(22, km: 6, pace: 2.2)) {
            powered.append(op)
            guard case .push(let line) = op, !line.contains("\"type\""), let t = field("t", in: line) else { continue }
            let s = Int(t - t0)
            if (400..<420).contains(s) { continue }   // the meter drops out
            let w = (100..<108).contains(s % 120) ? 0 : levels[(s / 30) % levels.count] + (s * 37) % 21 - 10
            powered.append(.push("{\"type\":\"power\",\"watts\":\(w),\"t\":\(t)}"))
        }
        list.append(("ride-power", #"{"activity":"ride","auto_lap_m":2000,"target_power":{"min":180,"max":280}}"#, powered + [.stop(.nan)]))
        // Refused inputs among good ones: bad JSON, out of range, time going backwards.
        var bad = [Op.start(t0)] + pushes(sim(21, km: 0.5), hr: false)
        bad.insert(.push("{\"lat\":95,\"lon\":4,\"t\":\(t0 + 10)}"), at: 20)
        bad.insert(.push("not json"), at: 30)
        bad.insert(.push("{\"lat\":52.37,\"lon\":4.89,\"t\":\(t0)}"), at: 40)
        bad.insert(.push("{\"type\":\"cadence\",\"spm\":170,\"t\":\(t0 + 45)}"), at: 45)
        bad.insert(.pause(t0 - 5), at: 50)
        list.append(("refusals", "{}", bad + [.stop(.nan), .start(t0)]))
        return list
    }

    @Test func everySimulatorScenarioGivesTheGoldenOutput() {
        let list = GoldenTests.scenarios()
        for (name, config, ops) in list {
            GoldenTests.check("sim-" + name, GoldenTests.run("sim-" + name, config: config, ops: ops))
        }
    }

    @Test func theGoldenCheckFailsOnAChangedByte() {
        // The digest sees one changed byte anywhere in the stream.
        #expect(Digest.of("{\"kind\":\"flight\",\"distance_m\":1.5}").hex != Digest.of("{\"kind\":\"flight\",\"distance_m\":1.6}").hex)
        var a = Digest(), b = Digest()
        a.add("ab"); a.add("c")
        b.add("a"); b.add("bc")
        #expect(a.hex != b.hex)   // where one event ends and the next begins counts too
    }
}

/// 64-bit FNV-1a over a sequence of strings, each followed by a newline.
struct Digest {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ s: String) {
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        h = (h ^ 0x0A) &* 0x0000_0100_0000_01b3
    }
    static func of(_ s: String) -> Digest { var d = Digest(); d.add(s); return d }
    var hex: String {
        let digits = Array("0123456789abcdef")
        var out = ""
        for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int((h >> UInt64(shift)) & 0xF)]) }
        return out
    }
}
