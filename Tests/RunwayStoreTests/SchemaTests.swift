import Testing
import RunwayCore
import RunwayStore
import RunwaySim

@Suite("Schema") struct SchemaTests {
    /// Version 1 exactly as it was released: kept here, not read from the library, so that a
    /// change to the library's first step cannot hide a file that no longer migrates.
    static let version1 = """
        PRAGMA application_id = 1381450073;
        CREATE TABLE flight (
            id                  TEXT PRIMARY KEY NOT NULL,
            config              TEXT NOT NULL,
            finished            INTEGER NOT NULL DEFAULT 0,
            start_t             REAL,
            end_t               REAL,
            end_reason          TEXT,
            distance_m          REAL,
            elapsed_s           REAL,
            moving_s            REAL,
            avg_pace_min_per_km REAL
        );
        CREATE TABLE journal (
            flight_id   TEXT NOT NULL REFERENCES flight (id) ON DELETE CASCADE,
            n           INTEGER NOT NULL,
            kind        TEXT NOT NULL,
            t           REAL,
            payload     TEXT NOT NULL,
            PRIMARY KEY (flight_id, n)
        ) WITHOUT ROWID;
        CREATE TABLE record (
            flight_id   TEXT PRIMARY KEY NOT NULL REFERENCES flight (id) ON DELETE CASCADE,
            json        TEXT NOT NULL
        );
        PRAGMA user_version = 1;
        """

    /// A version-1 file with a finished ride (record in the `record` table) and an unfinished run.
    static func makeVersion1(_ path: String, extra: String = "") {
        let raw = RawDB(path)
        #expect(raw.exec(version1) == nil)
        #expect(raw.exec("""
            INSERT INTO flight (id, config, finished, start_t, end_t, end_reason, distance_m, elapsed_s,
                                moving_s, avg_pace_min_per_km)
                VALUES ('ride', '{"activity":"ride"}', 1, 1700000000.5, 1700003600.25, 'stop', 30123.5,
                        3599.75, 3500, 1.9915);
            INSERT INTO journal VALUES ('ride', 0, 'command', 1700000000.5, 'start');
            INSERT INTO journal VALUES ('ride', 1, 'input', 1700000001, '{"lat":47.5,"lon":8.25,"t":1700000001.0}');
            INSERT INTO journal VALUES ('ride', 2, 'command', 1700003600.25, 'stop');
            INSERT INTO record VALUES ('ride', '{"kind":"summary","distance_m":30123.5}');
            INSERT INTO flight (id, config) VALUES ('run', '{oops');
            INSERT INTO journal VALUES ('run', 0, 'command', NULL, 'start');
            INSERT INTO journal VALUES ('run', 1, 'input', 1700090000, '{"type":"hr","bpm":150.0,"t":1700090000.0}');
            INSERT INTO journal VALUES ('run', 2, 'lap', 1700090001.5, '');
            """ + extra) == nil)
    }

    @Test func aNewStoreIsAtTheCurrentVersion() throws {
        let dir = TempDir()
        _ = try FlightStore(path: dir.file())
        let raw = RawDB(dir.file())
        #expect(FlightStore.schemaVersion == 4)
        #expect(raw.value("PRAGMA user_version") == "\(FlightStore.schemaVersion)")
        #expect(raw.value("PRAGMA application_id") == "1381450073")
        #expect(raw.value("SELECT count(*) FROM sqlite_schema WHERE name = 'flight_by_start'") == "1")
        #expect(raw.value("SELECT count(*) FROM sqlite_schema WHERE name = 'record'") == "0")
        // Reopening runs nothing.
        _ = try FlightStore(path: dir.file())
        #expect(raw.value("PRAGMA user_version") == "\(FlightStore.schemaVersion)")
    }

    @Test func aVersion1FileMigratesWithItsDataIntact() throws {
        let dir = TempDir()
        Self.makeVersion1(dir.file())
        let store = try FlightStore(path: dir.file())
        let raw = RawDB(dir.file())
        #expect(raw.value("PRAGMA user_version") == "4")
        #expect(raw.value("SELECT count(*) FROM sqlite_schema WHERE name = 'record'") == "0")
        #expect(raw.value("PRAGMA integrity_check") == "ok")

        let rows = try store.flights()
        #expect(rows.map(\.id) == ["ride", "run"])
        #expect(rows[0] == FlightRow(id: "ride", startT: 1_700_000_000.5, endT: 1_700_003_600.25, endReason: "stop",
                                     activity: "ride", distanceM: 30123.5, elapsedS: 3599.75, movingS: 3500,
                                     avgPaceMinPerKm: 1.9915, finished: true, entries: 3))
        #expect(rows[1].activity == "run" && !rows[1].finished && rows[1].entries == 3)
        #expect(rows[1].startT == 1_700_090_000 && rows[1].endT == 1_700_090_001.5)
        #expect(try store.record(of: "ride") == #"{"kind":"summary","distance_m":30123.5}"#)
        #expect(try store.record(of: "run") == nil)
        #expect(sameEntries(try store.journal(of: "ride").entries, [
            .command(.start, t: 1_700_000_000.5),
            .input(.fix(Fix(t: 1_700_000_001, lat: 47.5, lon: 8.25))),
            .command(.stop, t: 1_700_003_600.25),
        ]))
        #expect(sameEntries(try store.journal(of: "run").entries, [
            .command(.start, t: .nan),
            .input(.sample(.heartRate(bpm: 150, t: 1_700_090_000))),
            .lap(t: 1_700_090_001.5),
        ]))
        // The migrated file works as a current store.
        try store.append(fix(0), to: "run")
        try store.finish(id: "run", row: FlightLifecycleTests.row("run", start: 1_700_090_000), recordJSON: "{}")
        #expect(try store.flights().last?.entries == 4)
    }

    @Test func aFailedMigrationLeavesTheFileAtItsVersion() throws {
        let dir = TempDir()
        // An object in the way of version 2's index makes its step fail halfway.
        Self.makeVersion1(dir.file(), extra: "CREATE TABLE flight_by_start (x);")
        let e = thrown { try FlightStore(path: dir.file()) }
        #expect(e?.status == .store)
        #expect(e?.message.contains("migration from schema version 1 to 2 failed") == true)
        let raw = RawDB(dir.file())
        #expect(raw.value("PRAGMA user_version") == "1")
        #expect(raw.value("SELECT count(*) FROM pragma_table_info('flight') WHERE name = 'activity'") == "0")
        #expect(raw.value("SELECT count(*) FROM record") == "1")
        // Once the obstacle is gone, the migration runs.
        #expect(raw.exec("DROP TABLE flight_by_start") == nil)
        #expect(try FlightStore(path: dir.file()).record(of: "ride") == #"{"kind":"summary","distance_m":30123.5}"#)
    }

    @Test func aFileFromANewerLibraryIsRefused() throws {
        let dir = TempDir()
        _ = try FlightStore(path: dir.file())
        #expect(RawDB(dir.file()).exec("PRAGMA user_version = 5") == nil)
        let e = thrown { try FlightStore(path: dir.file()) }
        #expect(e?.status == .store)
        #expect(e?.message.contains("written by a newer librunway") == true)
        #expect(RawDB(dir.file()).value("PRAGMA user_version") == "5")
    }

    /// A schema version damaged downwards (bits of the header's `user_version` flipped) would run
    /// an old migration over newer tables; a negative one was taken for current. Either is damage.
    @Test(arguments: [0, 1, 2, -1, -3])
    func aSchemaVersionThatDisagreesWithTheTablesIsReportedCorrupt(version: Int) throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "f", configJSON: "{}")
        try store.append(fix(0), to: "f")
        store.close()
        #expect(RawDB(dir.file()).exec("PRAGMA user_version = \(version)") == nil)
        let e = thrown { try FlightStore(path: dir.file()) }
        #expect(e?.status == .store)
        #expect(e?.message.hasPrefix("store \(dir.file()) is corrupt") == true, "\(e?.message ?? "no error")")
        #expect(RawDB(dir.file()).value("PRAGMA user_version") == "\(version)")   // left as it was
        #expect(RawDB(dir.file()).value("SELECT count(*) FROM journal") == "1")
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        let dir = TempDir()
        let raw = RawDB(dir.file())
        #expect(raw.exec("CREATE TABLE notes (x); INSERT INTO notes VALUES (1);") == nil)
        let e = thrown { try FlightStore(path: dir.file()) }
        #expect(e?.status == .store)
        #expect(e?.message.contains("not a librunway store") == true)
        #expect(raw.value("PRAGMA journal_mode") == "delete")
        #expect(raw.value("SELECT count(*) FROM sqlite_schema") == "1")
    }
}
