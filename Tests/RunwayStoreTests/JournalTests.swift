import Testing
import RunwayCore
@testable import RunwayStore
import RunwaySim

@Suite("Journal") struct JournalTests {
    /// Every kind of entry, with awkward values: extremes, negative zero, many digits, NaN times.
    static let everyKind: [JournalEntry] = [
        .command(.start, t: .nan),
        .command(.start, t: 1_764_439_512.123456789),
        .input(.fix(Fix(t: 1_764_439_512.5, lat: 47.123456789012345, lon: -122.98765432109876))),
        .input(.fix(Fix(t: 1_764_439_513.0000002, lat: -89.99999999999999, lon: 179.99999999999997,
                        alt: -0.0, speed: 0, course: 359.9999, hAcc: 3.0000000000000004, vAcc: 1e-300,
                        hr: 148, cadence: 171.5))),
        .input(.fix(Fix(t: 0.1, lat: 0.1 + 0.2, lon: -0.0, alt: .leastNonzeroMagnitude, speed: 1e6, course: 0.0,
                        hAcc: 1e9, vAcc: 2.2250738585072014e-308))),
        .input(.sample(.heartRate(bpm: 147.33333333333334, t: 1_764_439_514.25))),
        .input(.sample(.heartRate(bpm: 0, t: 99_999_999_999.99998))),
        .input(.sample(.cadence(spm: 172, t: 1_764_439_515))),
        .input(.sample(.altimeter(alt: 412.57142857142856, t: 1_764_439_516.75))),
        .input(.sample(.altimeter(alt: -999.9999999999999, t: 1_764_439_517))),
        .input(.sample(.speed(mps: 3.3333333333333335, t: 1_764_439_517.5))),
        .input(.sample(.speed(mps: 0, t: 1_764_439_518))),
        .lap(t: 1_764_439_600.0625),
        .lap(t: .nan),
        .lap(t: 1_764_439_601, trigger: .distance),             // a recording's device laps
        .lap(t: 1_764_439_602, trigger: .positionMarked),
        .command(.pause, t: 1_764_439_700),
        .command(.resume, t: .nan),
        .tick(t: 1_764_439_900.5000001),
        .command(.stop, t: 1_764_439_900.9999999),
    ]

    @Test func everyKindOfEntrySurvivesWriteAndReadBitExactly() throws {
        let dir = TempDir()
        for durability in Durability.allCases {
            let path = dir.file("\(durability).db")
            do {
                let store = try FlightStore(path: path, durability: durability)
                try store.createFlight(id: "f", configJSON: #"{"activity":"walk"}"#)
                for e in Self.everyKind { try store.append(e, to: "f") }
                store.close()
            }
            let reopened = try FlightStore(path: path)
            let (config, entries) = try reopened.journal(of: "f")
            #expect(config == #"{"activity":"walk"}"#)
            #expect(sameEntries(entries, Self.everyKind), "\(durability): \(entries)")
        }
    }

    @Test func inputsAreStoredAsCompactJSONThatTheDecoderReads() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "f", configJSON: "{}")
        try store.append(.input(.fix(Fix(t: 1_700_000_000, lat: 47.5, lon: 8.25, alt: 410, hAcc: 4))), to: "f")
        try store.append(.input(.sample(.heartRate(bpm: 148, t: 1_700_000_001))), to: "f")
        try store.append(.input(.sample(.cadence(spm: 172, t: 1_700_000_002))), to: "f")
        try store.append(.input(.sample(.altimeter(alt: 412.5, t: 1_700_000_003))), to: "f")
        try store.append(.command(.start, t: .nan), to: "f")
        try store.append(.lap(t: 1_700_000_004), to: "f")
        let rows = RawDB(dir.file()).rows("SELECT n, kind, t, payload FROM journal ORDER BY n")
        #expect(rows.map { $0[0] } == ["0", "1", "2", "3", "4", "5"])
        #expect(rows.map { $0[1] } == ["input", "input", "input", "input", "command", "lap"])
        #expect(rows[4][2] == nil)  // a pending command time is NULL, read back as NaN
        #expect(rows.map { $0[3] } == [
            #"{"lat":47.5,"lon":8.25,"t":1700000000.0,"alt":410.0,"h_acc":4.0}"#,
            #"{"type":"hr","bpm":148.0,"t":1700000001.0}"#,
            #"{"type":"cadence","spm":172.0,"t":1700000002.0}"#,
            #"{"type":"altimeter","alt":412.5,"t":1700000003.0}"#,
            "start", "",
        ])
    }

    @Test func anInputThatWouldNotReadBackIsRefused() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "f", configJSON: "{}")
        let bad: [Input] = [
            .fix(Fix(t: 1, lat: .nan, lon: 8)),
            .fix(Fix(t: 1, lat: 47, lon: 8, alt: .infinity)),
            .fix(Fix(t: -.infinity, lat: 47, lon: 8)),
            .sample(.heartRate(bpm: .infinity, t: 1)),
        ]
        for input in bad {
            #expect(thrown { try store.append(.input(input), to: "f") }?.status == .input)
        }
        #expect(try store.journal(of: "f").entries.isEmpty)
    }

    @Test func journalsOfFlightsKeepTheirOwnAppendOrder() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "a", configJSON: "{}")
        try store.createFlight(id: "b", configJSON: "{}")
        var a: [JournalEntry] = [], b: [JournalEntry] = []
        for i in 0..<40 {
            let e = fix(i)
            if i % 3 == 0 { try store.append(e, to: "b"); b.append(e) } else { try store.append(e, to: "a"); a.append(e) }
        }
        #expect(sameEntries(try store.journal(of: "a").entries, a))
        #expect(sameEntries(try store.journal(of: "b").entries, b))
    }

    @Test func replayingTheJournalRebuildsTheFlight() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        var live = FlightComputer(config: EngineConfig())
        var events: [Event] = []
        try store.createFlight(id: "f", configJSON: "{}")
        let t0 = 1_764_439_512.0
        var script: [JournalEntry] = [.command(.start, t: t0)]
        for i in 1...120 { script.append(fix(i, t0: t0)) }
        script.insert(.lap(t: t0 + 60.5), at: 61)
        script.insert(.command(.pause, t: t0 + 80.5), at: 82)
        script.insert(.command(.resume, t: t0 + 90.5), at: 93)
        script.insert(.input(.sample(.heartRate(bpm: 150, t: t0 + 95.5))), at: 99)
        for e in script {
            try Self.apply(e, to: &live, &events)
            try store.append(e, to: "f")
        }
        var replayed = FlightComputer(config: EngineConfig())
        var replayEvents: [Event] = []
        for e in try store.journal(of: "f").entries { try Self.apply(e, to: &replayed, &replayEvents) }
        #expect("\(replayed.snapshot)" == "\(live.snapshot)")  // text: NaN fields compare equal
        #expect(replayed.distance == live.distance && live.distance > 300)
        #expect(replayed.record.laps.count == live.record.laps.count && live.record.laps.count >= 1)
        #expect(replayed.phase == .cruise)
    }

    static func apply(_ e: JournalEntry, to core: inout FlightComputer, _ events: inout [Event]) throws(RunwayError) {
        switch e {
        case .input(let i): try core.process(ValidatedInput(i), wallClock: .nan, events: &events)
        case .command(let c, let t): try core.command(c, at: t, wallClock: .nan, events: &events)
        case .lap(let t, _): try core.lap(at: t, wallClock: .nan, events: &events)
        case .tick(let t): try core.tick(at: t, wallClock: .nan, events: &events)
        }
    }

    /// A lap row's payload is its trigger's name (empty: manual, as every store before triggers);
    /// a name no device lap has is a damaged entry, not a lap of another kind.
    @Test func aLapRowNamesItsTriggerOrIsDamaged() throws {
        func decoded(_ payload: String) -> Result<JournalEntry, RunwayError> {
            Array(payload.utf8).withUnsafeBytes { b in
                do throws(RunwayError) {
                    return .success(try JournalCoding.decode(kind: "lap", t: 5, payload: b, entry: 3, flight: "f"))
                } catch { return .failure(error) }
            }
        }
        for (payload, trigger) in [("", LapTrigger.manual), ("distance", .distance), ("position_marked", .positionMarked)] {
            guard case .success(.lap(let t, let got)) = decoded(payload) else { Issue.record("\(payload)"); continue }
            #expect(t == 5 && got == trigger)
            let row = try JournalCoding.encode(.lap(t: 5, trigger: trigger))
            #expect(String(decoding: row.payload, as: UTF8.self) == payload)
        }
        for payload in ["final", "auto", "sprint"] {
            guard case .failure(let e) = decoded(payload) else { Issue.record("\(payload) read"); continue }
            #expect(e.status == .store && e.message == "journal entry 3 of flight \"f\" is damaged: unknown lap trigger \"\(payload)\"")
        }
    }
}
