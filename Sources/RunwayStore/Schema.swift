import CSQLite
import RunwayCore

/// The store's schema: an ordered list of migrations, the file's version in `PRAGMA user_version`.
///
/// `migrations[i]` takes a file from version `i` to `i + 1`. Each runs in its own transaction
/// together with the `user_version` bump, so a failed step leaves the file at its old version.
/// Never edit a released step: add a new one.
enum Schema {
    /// `PRAGMA application_id` of a librunway store: "RWAY" (0x52574159).
    static let applicationID: Int64 = 0x5257_4159

    static let migrations: [String] = [v1, v2, v3, v4]

    static var version: Int { migrations.count }

    /// Version 1: flights, their journals, and records in a table of their own.
    static let v1 = """
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
        """

    /// Version 2: the activity, the entry count and the record move into the flight row
    /// (listing history reads one table); an index orders flights by start.
    static let v2 = """
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
        """

    /// Version 3: checksums (see `Checksum`): `journal.crc` of each entry; in a table of their
    /// own, `flight_check.crc` of each flight row and `record_crc` of a finished flight's record.
    /// Existing rows get theirs here. Needs `runway_fnv`, which every connection of the library
    /// registers.
    static let v3 = """
        ALTER TABLE journal ADD COLUMN crc INTEGER;
        UPDATE journal SET crc = runway_fnv(flight_id, n, kind, t, payload);
        CREATE TABLE flight_check (
            flight_id   TEXT PRIMARY KEY NOT NULL REFERENCES flight (id) ON DELETE CASCADE,
            crc         INTEGER NOT NULL,
            record_crc  INTEGER
        ) WITHOUT ROWID;
        INSERT INTO flight_check (flight_id, record_crc, crc)
        SELECT id, r, runway_fnv(id, config, finished, start_t, end_t, end_reason, activity, distance_m,
            elapsed_s, moving_s, avg_pace_min_per_km, entries, r)
        FROM (SELECT *, CASE WHEN record IS NULL THEN NULL ELSE runway_fnv(record) END AS r FROM flight);
        """

    /// Version 4: journal entries of kind `tick` (clock ticks that moved the clock; see
    /// `JournalCoding`). No table changes: the version tells a library that reads up to 3 that it
    /// cannot read these journals (it would take a tick for damage), so it refuses the file as
    /// written by a newer librunway.
    static let v4 = "-- journal.kind may be 'tick'"

    /// Brings the file up to `version`, one step per transaction.
    ///
    /// The version is read inside each step's write transaction, so two processes opening a new
    /// file at once do not both run a step.
    static func migrate(_ db: SQLiteConnection) throws(RunwayError) {
        while true {
            try db.exec("BEGIN IMMEDIATE", "starting a schema migration")
            do throws(RunwayError) {
                let current = try db.integer("PRAGMA user_version", "reading the schema version") ?? 0
                if current > Int64(version) {
                    throw newer(db.path, current)
                }
                guard current >= 0 else {
                    throw RunwayError(.store, "\(SQLiteConnection.corruptionPrefix(db.path)): its schema version is \(current)")
                }
                guard current < Int64(version) else {
                    try db.exec("COMMIT", "ending a schema check")
                    return
                }
                let step = Int(current)
                let target = step + 1
                do throws(RunwayError) {
                    try db.exec(migrations[step], "migrating the schema to version \(target)")
                    try db.exec("PRAGMA user_version = \(target)", "setting schema version \(target)")
                    try db.exec("COMMIT", "committing schema version \(target)")
                } catch {
                    let failed = "migration from schema version \(step) to \(target) failed, the file stays at version \(step): \(error.message)"
                    // SQLITE_ERROR: the step's SQL does not fit the tables (a column or table
                    // already there), so the version is not the tables' (its header is damaged);
                    // a full disk, an I/O error or a lock has a code of its own.
                    guard db.lastFailure & 0xFF == SQLITE_ERROR else { throw RunwayError(.store, "store \(db.path): \(failed)") }
                    throw RunwayError(.store, "\(SQLiteConnection.corruptionPrefix(db.path)): its tables do not match its schema version \(step) (\(failed))")
                }
            } catch {
                db.rollbackQuietly()
                throw error
            }
        }
    }

    static func newer(_ path: String, _ v: Int64) -> RunwayError {
        RunwayError(.store, "store \(path) was written by a newer librunway (schema version \(v); this library reads up to \(version))")
    }
}
