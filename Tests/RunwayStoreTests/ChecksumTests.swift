import Testing
import RunwayCore
import RunwayStore
import RunwaySim

/// Damage SQLite cannot see: values changed inside well-formed pages. Without the row checksums
/// each of these read back as a silently different flight.
@Suite("Row checksums") struct ChecksumTests {
    static func corrupt(_ e: RunwayError?, _ what: String, path: String) -> Bool {
        guard let e else { return false }
        return e.status == .store && e.message.contains("store \(path) is corrupt") && e.message.contains(what)
    }

    @Test func aChangedJournalValueIsReportedAndTheOtherFlightsStillRead() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        for id in ["f", "g"] {
            try store.createFlight(id: id, configJSON: "{}")
            for i in 0..<5 { try store.append(fix(i), to: id) }
        }
        let raw = RawDB(dir.file())
        // One digit of a longitude: still valid JSON, same time, a different fix.
        #expect(raw.exec(#"UPDATE journal SET payload = replace(payload, '"lon":8', '"lon":9') WHERE flight_id = 'f' AND n = 2"#) == nil)
        #expect(raw.value("SELECT payload FROM journal WHERE flight_id = 'f' AND n = 2")?.contains(#""lon":9"#) == true)
        let e = thrown { try store.journal(of: "f") }
        #expect(Self.corrupt(e, "journal entry 2 of flight \"f\" is damaged: its values do not match its checksum", path: dir.file()),
                "\(String(describing: e))")
        #expect(sameEntries(try store.journal(of: "g").entries, (0..<5).map { fix($0) }))
        // A changed time column alone, a changed kind, a changed entry number: all seen.
        for sql in ["UPDATE journal SET t = t + 1 WHERE flight_id = 'g' AND n = 1",
                    "UPDATE journal SET n = 7 WHERE flight_id = 'g' AND n = 4"] {
            let fresh = TempDir()
            let s = try FlightStore(path: fresh.file())
            try s.createFlight(id: "g", configJSON: "{}")
            for i in 0..<5 { try s.append(fix(i), to: "g") }
            #expect(RawDB(fresh.file()).exec(sql) == nil)
            #expect(Self.corrupt(thrown { try s.journal(of: "g") }, "flight \"g\"", path: fresh.file()), "\(sql)")
        }
    }

    @Test func aMissingEntryIsReported() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "open", configJSON: "{}")
        try store.createFlight(id: "done", configJSON: "{}")
        for i in 0..<6 {
            try store.append(fix(i), to: "open")
            try store.append(fix(i), to: "done")
        }
        try store.finish(id: "done", row: FlightLifecycleTests.row("done", start: 1), recordJSON: "{}")
        let raw = RawDB(dir.file())
        #expect(raw.exec("DELETE FROM journal WHERE flight_id = 'open' AND n = 3") == nil)
        let gap = thrown { try store.journal(of: "open") }
        #expect(Self.corrupt(gap, "entry 3 is missing (the next is 4)", path: dir.file()), "\(String(describing: gap))")
        // The last entry of a finished flight: its stored count tells.
        #expect(raw.exec("DELETE FROM journal WHERE flight_id = 'done' AND n = 5") == nil)
        let tail = thrown { try store.journal(of: "done") }
        #expect(Self.corrupt(tail, "has 5 entries where 6 were stored", path: dir.file()), "\(String(describing: tail))")
    }

    @Test func aChangedRecordOrFigureIsReported() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        for id in ["a", "b"] {
            try store.createFlight(id: id, configJSON: #"{"activity":"ride"}"#)
            try store.append(fix(0), to: id)
            try store.finish(id: id, row: FlightLifecycleTests.row(id, start: id == "a" ? 1 : 2),
                             recordJSON: #"{"distance_m":5012.5}"#)
        }
        let raw = RawDB(dir.file())
        #expect(raw.exec("UPDATE flight SET record = replace(record, '5012', '6012') WHERE id = 'a'") == nil)
        let e = thrown { try store.record(of: "a") }
        #expect(Self.corrupt(e, "the record of flight \"a\" does not match its checksum", path: dir.file()), "\(String(describing: e))")
        #expect(try store.record(of: "b") == #"{"distance_m":5012.5}"#)
        #expect(try store.flights().count == 2)  // the figures are intact: the listing still reads

        #expect(raw.exec("UPDATE flight SET distance_m = 5013.5 WHERE id = 'b'") == nil)
        for e in [thrown { try store.record(of: "b") },
                  thrown { try store.endReason(of: "b") }, thrown { try store.journal(of: "b") }] {
            #expect(Self.corrupt(e, "the row of flight \"b\" does not match its checksum", path: dir.file()), "\(String(describing: e))")
        }
        // The listing shows b as damaged, none of its figures, and a intact as it was.
        let listed = try store.flights()
        #expect(listed.map(\.id) == ["a", "b"])
        #expect(listed[0].damage == nil && listed[0].distanceM == 5012.5)
        #expect(listed[1].damage.map { Self.corrupt(RunwayError(.store, $0), "the row of flight \"b\" does not match its checksum", path: dir.file()) } == true)
        #expect(listed[1].distanceM.isNaN && !listed[1].finished && listed[1].entries == 0)
        #expect(store.isDamage(RunwayError(.store, listed[1].damage ?? "")))
        #expect(raw.exec("UPDATE flight SET finished = 0 WHERE id = 'a'") == nil)  // reopening by hand
        #expect(Self.corrupt(thrown { try store.endReason(of: "a") }, "the row of flight \"a\"", path: dir.file()))
        // A flight whose checksums are gone is not taken for intact either.
        #expect(raw.exec("UPDATE flight SET finished = 1 WHERE id = 'a'; UPDATE flight SET distance_m = 5012.5 WHERE id = 'b'") == nil)
        #expect(try store.flights().allSatisfy { $0.damage == nil })
        #expect(raw.exec("DELETE FROM flight_check WHERE flight_id = 'b'") == nil)
        #expect(try store.flights().map { $0.damage != nil } == [false, true])
        #expect(Self.corrupt(thrown { try store.record(of: "b") }, "the row of flight \"b\"", path: dir.file()))
    }

    @Test func aZeroTimeOfEitherSignReadsBack() throws {
        // SQLite stores a REAL -0.0 as the integer 0: the checksum must not take that for damage.
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "z", configJSON: "{}")
        try store.append(.command(.start, t: -0.0), to: "z")
        try store.append(.lap(t: 0.0), to: "z")
        // (The command reads back at 0.0, the same time.) A fix at t = -0.0 (a session accepts it: it is in 0...1e11) used to read back as
        // "damaged": its payload said -0.0, its time column 0.0.
        try store.append(.input(.fix(Fix(t: -0.0, lat: 1, lon: 2))), to: "z")
        let entries = try store.journal(of: "z").entries
        #expect(entries.count == 3)
        #expect(sameEntries(entries, [.command(.start, t: 0), .lap(t: 0), .input(.fix(Fix(t: -0.0, lat: 1, lon: 2)))]))
        try store.finish(id: "z", row: FlightRow(id: "z", startT: -0.0, endT: 0, endReason: "stop", activity: "run",
                                                 distanceM: -0.0, elapsedS: 0, movingS: 0, avgPaceMinPerKm: .nan,
                                                 finished: true, entries: 0), recordJSON: "{}")
        #expect(try store.flights().first?.distanceM == 0)
        #expect(try store.record(of: "z") == "{}")
    }

    /// Version 2 exactly as released (see `SchemaTests.version1`).
    static let version2 = """
        ALTER TABLE flight ADD COLUMN activity TEXT NOT NULL DEFAULT 'run';
        ALTER TABLE flight ADD COLUMN entries INTEGER;
        ALTER TABLE flight ADD COLUMN record TEXT;
        UPDATE flight SET activity =
            CASE json_extract(CASE WHEN json_valid(config) THEN config ELSE '{}' END, '$.activity')
                WHEN 'walk' THEN 'walk' WHEN 'ride' THEN 'ride' ELSE 'run' END;
        UPDATE flight SET record = (SELECT json FROM record WHERE record.flight_id = flight.id);
        UPDATE flight SET entries = (SELECT count(*) FROM journal WHERE journal.flight_id = flight.id)
            WHERE finished = 1;
        DROP TABLE record;
        CREATE INDEX flight_by_start ON flight (start_t);
        PRAGMA user_version = 2;
        """

    @Test func aVersion2FileGetsTheChecksumsOfItsRows() throws {
        let dir = TempDir()
        SchemaTests.makeVersion1(dir.file())
        let raw = RawDB(dir.file())
        #expect(raw.exec(Self.version2) == nil)
        #expect(raw.value("PRAGMA user_version") == "2")
        let store = try FlightStore(path: dir.file())
        #expect(raw.value("PRAGMA user_version") == "\(FlightStore.schemaVersion)")
        #expect(raw.value("SELECT count(*) FROM journal WHERE crc IS NULL") == "0")
        #expect(raw.value("SELECT count(*) FROM flight_check") == "2")
        #expect(raw.value("SELECT count(*) FROM flight f JOIN flight_check c ON c.flight_id = f.id WHERE f.record IS NOT NULL AND c.record_crc IS NULL") == "0")
        #expect(try store.flights().map(\.id) == ["ride", "run"])
        #expect(try store.record(of: "ride") == #"{"kind":"summary","distance_m":30123.5}"#)
        #expect(try store.journal(of: "ride").entries.count == 3)
        // The migrated checksums are real: damage after the migration is seen.
        #expect(raw.exec("UPDATE journal SET payload = replace(payload, '47.5', '47.6') WHERE flight_id = 'ride'") == nil)
        #expect(Self.corrupt(thrown { try store.journal(of: "ride") }, "journal entry 1 of flight \"ride\"", path: dir.file()))
        #expect(raw.exec("UPDATE flight SET record = replace(record, '30123', '30124')") == nil)
        #expect(Self.corrupt(thrown { try store.record(of: "ride") }, "the record of flight \"ride\"", path: dir.file()))
    }
}
