import Testing
import RunwayCore
import RunwayStore
import RunwaySim

@Suite("Flight lifecycle") struct FlightLifecycleTests {
    static func row(_ id: String, start: Double, distance: Double = 5012.5) -> FlightRow {
        FlightRow(id: id, startT: start, endT: start + 1800.25, endReason: "stop", activity: "ride",
                  distanceM: distance, elapsedS: 1790.5, movingS: 1700, avgPaceMinPerKm: 5.953,
                  finished: true, entries: 0)
    }

    @Test func creatingAFlightTwiceIsAStateError() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "f", configJSON: "{}")
        let e = thrown { try store.createFlight(id: "f", configJSON: "{}") }
        #expect(e?.status == .state)
        #expect(e?.message.contains("already exists") == true)
    }

    @Test func badFlightIDsAreArgumentErrors() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        for id in ["", String(repeating: "x", count: 129), "a\nb", "nul\u{0}"] {
            #expect(thrown { try store.createFlight(id: id, configJSON: "{}") }?.status == .argument)
        }
        try store.createFlight(id: String(repeating: "é", count: 64), configJSON: "{}")
    }

    @Test func unknownFlightsAreNotFound() throws {
        let dir = TempDir()
        for durability in Durability.allCases {
            let store = try FlightStore(path: dir.file("\(durability).db"), durability: durability)
            #expect(thrown { try store.append(fix(0), to: "nope") }?.status == .notFound)
            #expect(thrown { try store.journal(of: "nope") }?.status == .notFound)
            #expect(thrown { try store.record(of: "nope") }?.status == .notFound)
            #expect(thrown { try store.delete(id: "nope") }?.status == .notFound)
            #expect(thrown { try store.finish(id: "nope", row: Self.row("nope", start: 1), recordJSON: "{}") }?.status == .notFound)
        }
    }

    @Test func finishStoresTheFiguresAndTheRecordAndClosesTheJournal() throws {
        let dir = TempDir()
        for durability in Durability.allCases {
            let store = try FlightStore(path: dir.file("\(durability).db"), durability: durability)
            try store.createFlight(id: "f", configJSON: #"{"activity":"ride"}"#)
            for i in 0..<5 { try store.append(fix(i), to: "f") }
            #expect(try store.record(of: "f") == nil)
            try store.finish(id: "f", row: Self.row("ignored", start: 1_764_439_512), recordJSON: #"{"route":[1,2]}"#)
            #expect(try store.record(of: "f") == #"{"route":[1,2]}"#)
            var expected = Self.row("f", start: 1_764_439_512)
            expected.entries = 5
            #expect(try store.flights() == [expected])
            #expect(thrown { try store.append(fix(5), to: "f") }?.status == .state)
            #expect(thrown { try store.finish(id: "f", row: expected, recordJSON: "{}") }?.status == .state)
            #expect(try store.journal(of: "f").entries.count == 5)
        }
    }

    @Test func flightsListsUnfinishedFlightsWithTheirJournalTimes() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "done", configJSON: "{}")
        try store.finish(id: "done", row: Self.row("done", start: 1_700_000_000), recordJSON: "{}")
        try store.createFlight(id: "running", configJSON: #"{"activity":"walk","store":"x.db"}"#)
        try store.append(.command(.start, t: .nan), to: "running")
        for i in 0..<10 { try store.append(fix(i), to: "running") }
        try store.append(.lap(t: .nan), to: "running")
        try store.createFlight(id: "empty", configJSON: "not json")
        // Another process's view: a second store on the same file.
        let other = try FlightStore(path: dir.file())
        let rows = try other.flights()
        #expect(rows.map(\.id) == ["done", "running", "empty"])
        let running = rows[1]
        #expect(!running.finished && running.entries == 12 && running.activity == "walk")
        #expect(running.startT == 1_764_439_512 && running.endT == 1_764_439_521)
        #expect(running.distanceM.isNaN && running.elapsedS.isNaN && running.endReason == nil)
        let empty = rows[2]
        #expect(!empty.finished && empty.entries == 0 && empty.startT.isNaN && empty.activity == "run")
    }

    @Test func aDeletedFlightIsGoneAndTheOthersRemain() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        for id in ["a", "b", "c"] {
            try store.createFlight(id: id, configJSON: "{}")
            for i in 0..<20 { try store.append(fix(i), to: id) }
        }
        try store.finish(id: "b", row: Self.row("b", start: 1_764_439_512), recordJSON: #"{"b":1}"#)
        try store.delete(id: "b")
        try store.delete(id: "c")
        #expect(try store.flights().map(\.id) == ["a"])
        #expect(thrown { try store.journal(of: "b") }?.status == .notFound)
        #expect(thrown { try store.record(of: "b") }?.status == .notFound)
        #expect(thrown { try store.delete(id: "b") }?.status == .notFound)
        #expect(try store.journal(of: "a").entries.count == 20)
        let raw = RawDB(dir.file())
        #expect(raw.value("SELECT count(*) FROM journal WHERE flight_id IN ('b', 'c')") == "0")
        #expect(raw.value("SELECT count(*) FROM journal") == "20")
        // The id is free again.
        try store.createFlight(id: "b", configJSON: "{}")
        #expect(try store.journal(of: "b").entries.isEmpty)
    }

    @Test func closeIsIdempotentAndAClosedStoreRefusesCalls() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "f", configJSON: "{}")
        store.close()
        store.close()
        #expect(thrown { try store.append(fix(0), to: "f") }?.status == .state)
        #expect(thrown { try store.flights() }?.status == .state)
        #expect(try FlightStore(path: dir.file()).flights().map(\.id) == ["f"])
    }

    @Test func badPathsAreCleanErrors() throws {
        let dir = TempDir()
        #expect(thrown { try FlightStore(path: "") }?.status == .argument)
        let e = thrown { try FlightStore(path: dir.file("missing-folder/runway.db")) }
        #expect(e?.status == .store)
        #expect(e?.message.contains("cannot open store") == true)
        #expect(e?.message.contains("No such file or directory") == true, "\(e?.message ?? "")")   // the system's reason
        let folder = thrown { try FlightStore(path: dir.path) }   // a directory
        #expect(folder?.status == .store)
        #expect(folder?.message.contains("Is a directory") == true, "\(folder?.message ?? "")")
    }
}
