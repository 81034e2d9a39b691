import CSQLite
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Flights journaled to a SQLite file: durable inputs, recovery by replay, history.
///
/// A session journals every input, command and lap it accepts; after a crash the journal replays
/// through a fresh `FlightComputer` to the state at the last acknowledged entry. Finishing a flight
/// stores its figures and its record (summary with route) in one transaction.
///
/// The file is in WAL mode with `synchronous=FULL` and a 5 s busy timeout, so several stores (in
/// this process or in others) may read and write it at once: readers never wait for the writer,
/// writers wait for each other up to 5 s. Every store file carries `application_id` "RWAY" and its
/// schema version in `user_version`; opening runs the pending migrations.
///
/// In `.batched` mode every call other than `append` and `commitIfDue` first commits the
/// buffered entries, so reads see them and `finish` counts them.
///
/// Not thread-safe: one thread at a time (a session calls it under its lock).
///
///     let store = try FlightStore(path: "runway.db")
///     let id = FlightStore.newFlightID(startT: t0)
///     try store.createFlight(id: id, configJSON: #"{"activity":"run"}"#)
///     try store.append(.command(.start, t: t0), to: id)
///     try store.append(.input(.fix(fix)), to: id)   // durable when it returns
///     let (config, entries) = try store.journal(of: id)
public final class FlightStore {
    /// The schema version this library writes (and the newest it reads).
    public static let schemaVersion: Int = Schema.migrations.count

    /// How long batched entries may wait for their commit: one second, in nanoseconds.
    public static let batchWindowNanoseconds: UInt64 = 1_000_000_000

    public let path: String
    public let durability: Durability

    var db: SQLiteConnection?
    let clock: () -> UInt64
    /// Batched entries not yet committed, in append order, and when the first was appended.
    var pending: [(id: String, row: JournalCoding.Row)] = []
    var pendingSince: UInt64 = 0
    /// Batched mode: flights this store has seen to exist and be unfinished.
    var openFlights: Set<String> = []
    var insertStatement: SQLiteStatement?

    /// Opens the store at `path`, creating it when the file does not exist or is empty.
    ///
    /// - Parameters:
    ///   - path: the database file (`-wal` and `-shm` files appear beside it).
    ///   - durability: `.everyFix` (default): an entry is on disk when `append` returns;
    ///     `.batched`: entries are committed about once a second.
    ///   - clock: a monotonic clock in nanoseconds, measuring the batch window (tests pass a
    ///     manual one).
    /// - Throws: `.argument` for an empty path; `.store` when the file cannot be opened, is not a
    ///   SQLite database, is another program's database, is damaged, or was written by a newer
    ///   librunway.
    public init(path: String, durability: Durability = .everyFix,
                clock: @escaping () -> UInt64 = FlightStore.monotonicNanoseconds) throws(RunwayError) {
        guard !path.isEmpty else { throw RunwayError(.argument, "store path is empty") }
        guard !path.utf8.contains(0) else { throw RunwayError(.argument, "store path contains a NUL byte") }
        self.path = path
        self.durability = durability
        self.clock = clock
        try Self.checkHeader(path)
        let db = try SQLiteConnection(path: path)
        try Checksum.register(on: db)
        // Each step may meet a lock SQLite does not wait for when several stores open a new
        // file at once; all of them can run again.
        try db.retryingWhileBusy { () throws(RunwayError) in
            try Self.checkOwnership(db)
            let mode = try db.text("PRAGMA journal_mode = WAL", "switching to WAL mode") ?? ""
            guard mode.lowercased() == "wal" else {
                throw RunwayError(.store, "store \(path) cannot use WAL mode (journal mode stays \"\(mode)\"); is it on a file system without shared memory?")
            }
            try db.exec("""
                PRAGMA synchronous = FULL;
                PRAGMA foreign_keys = ON;
                PRAGMA trusted_schema = OFF;
                PRAGMA cell_size_check = ON;
                """, "configuring the connection")
            try Schema.migrate(db)
        }
        self.db = db
    }

    deinit { close() }

    /// Refuses a non-empty file that does not start with the SQLite header, before SQLite opens it:
    /// SQLite would take a file of a byte or two for an empty database and write over it.
    private static func checkHeader(_ path: String) throws(RunwayError) {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // SQLite reports why it cannot open the file
        defer { Glibc.close(fd) }
        let magic = Array("SQLite format 3\u{0}".utf8)
        var head = [UInt8](repeating: 0, count: magic.count)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n == magic.count, head == magic else {
            throw RunwayError(.store, "\(SQLiteConnection.corruptionPrefix(path)) or not a SQLite database: it does not start with the SQLite header (\(st.st_size) bytes)")
        }
    }

    /// Refuses a SQLite file that belongs to another program or to a newer librunway.
    ///
    /// The three values are read in one read transaction: read one by one, they could straddle
    /// another store's first migration of a new file, which would look like a foreign database.
    private static func checkOwnership(_ db: SQLiteConnection) throws(RunwayError) {
        try db.exec("BEGIN", "reading the file header")
        let appID: Int64, version: Int64, objects: Int64
        do throws(RunwayError) {
            appID = try db.integer("PRAGMA application_id", "reading the file header") ?? 0
            version = try db.integer("PRAGMA user_version", "reading the schema version") ?? 0
            objects = try db.integer("SELECT count(*) FROM sqlite_schema", "reading the schema") ?? 0
            try db.exec("COMMIT", "reading the file header")
        } catch {
            db.rollbackQuietly()
            throw error
        }
        if appID != Schema.applicationID {
            guard appID == 0, version == 0, objects == 0 else {
                throw RunwayError(.store, "\(db.path) is a SQLite database but not a librunway store (application_id \(appID), user_version \(version), \(objects) schema objects)")
            }
        }
        if version > Int64(Schema.version) { throw Schema.newer(db.path, version) }
    }

    // MARK: Writing

    /// Adds a flight with the config its session runs with (kept for replay).
    ///
    /// - Parameters:
    ///   - id: 1 to 128 bytes of UTF-8 without control characters (see `newFlightID(startT:)`).
    ///   - configJSON: the session config; its `"activity"` is kept for listing.
    /// - Throws: `.argument` for a bad id, `.state` when the id exists, `.store` on failure.
    public func createFlight(id: String, configJSON: String) throws(RunwayError) {
        try Self.checkID(id)
        let db = try connection()
        try commitPending()
        try transaction(db, immediate: true, "creating flight \"\(id)\"") { (db) throws(RunwayError) in
            let s = try db.prepare("INSERT OR IGNORE INTO flight (id, config, activity) VALUES (?1, ?2, ?3)",
                                   "creating flight \"\(id)\"")
            try s.bind(1, id)
            try s.bind(2, configJSON)
            try s.bind(3, Self.activity(in: configJSON))
            try s.run()
            guard db.changes > 0 else { throw RunwayError(.state, "flight \"\(id)\" already exists in store \(path)") }
            try sealRow(id, db)
        }
    }

    /// Journals one entry of an unfinished flight.
    ///
    /// `.everyFix`: the entry is committed in its own transaction, the WAL synced, before this
    /// returns; a throw means it was not journaled. `.batched`: the entry is buffered, then the
    /// buffer is committed when a second has passed since its first entry; if that commit fails,
    /// the error is thrown, this entry is taken out of the buffer (a throw means it was not
    /// journaled: its caller does not process it), and the entries before it stay buffered for
    /// the next attempt.
    ///
    /// - Throws: `.notFound` for an unknown flight, `.state` for a finished one, `.input` for an
    ///   input that would not read back exactly (a non-finite value), `.store` on failure.
    public func append(_ e: JournalEntry, to id: String) throws(RunwayError) {
        let db = try connection()
        let row = try JournalCoding.encode(e)
        switch durability {
        case .everyFix:
            guard try insert(row, into: id, db) else { throw try closedFlightError(id, db) }
        case .batched:
            if !openFlights.contains(id) {
                let s = try db.prepare("SELECT finished FROM flight WHERE id = ?1", "looking up flight \"\(id)\"")
                try s.bind(1, id)
                guard try s.step(), s.int(0) == 0 else { throw try closedFlightError(id, db) }
                openFlights.insert(id)
            }
            if pending.isEmpty { pendingSince = clock() }
            pending.append((id: id, row: row))
            guard commitDue() else { return }
            try commitPending(refusingLastOnFailure: true)
        }
    }

    /// Marks a flight finished with its figures and stores its record, in one transaction.
    ///
    /// The row's `id` and `entries` are not used: the flight is `id`, and the entry count is the
    /// journal's.
    ///
    /// - Parameters:
    ///   - row: the figures (start, end, end reason, activity, distance, times, average pace).
    ///   - recordJSON: the flight record (summary with route) as the session renders it.
    ///   - last: an entry journaled in the same transaction (a stop that lands the flight), so
    ///     that the flight takes both or neither.
    /// - Throws: `.notFound` for an unknown flight, `.state` for one already finished.
    public func finish(id: String, row: FlightRow, recordJSON: String, journaling last: JournalEntry? = nil) throws(RunwayError) {
        let db = try connection()
        try commitPending()
        let lastRow = try last.map { (e) throws(RunwayError) in try JournalCoding.encode(e) }
        try transaction(db, immediate: true, "finishing flight \"\(id)\"") { (db) throws(RunwayError) in
            let check = try db.prepare("SELECT finished FROM flight WHERE id = ?1", "looking up flight \"\(id)\"")
            try check.bind(1, id)
            guard try check.step(), check.int(0) == 0 else { throw try closedFlightError(id, db) }
            if let lastRow, try !insert(lastRow, into: id, db) { throw try closedFlightError(id, db) }
            let s = try db.prepare("""
                UPDATE flight SET finished = 1, start_t = ?2, end_t = ?3, end_reason = ?4, activity = ?5,
                    distance_m = ?6, elapsed_s = ?7, moving_s = ?8, avg_pace_min_per_km = ?9, record = ?10,
                    entries = (SELECT count(*) FROM journal WHERE flight_id = ?1)
                WHERE id = ?1
                """, "finishing flight \"\(id)\"")
            try s.bind(1, id)
            try s.bind(2, row.startT)
            try s.bind(3, row.endT)
            try s.bind(4, row.endReason)
            try s.bind(5, row.activity)
            try s.bind(6, row.distanceM)
            try s.bind(7, row.elapsedS)
            try s.bind(8, row.movingS)
            try s.bind(9, row.avgPaceMinPerKm)
            try s.bind(10, recordJSON)
            try s.run()
            try sealRow(id, db)
        }
        openFlights.remove(id)
    }

    /// Removes a flight with its journal and record, in one transaction.
    ///
    /// - Throws: `.notFound` when there is no such flight.
    public func delete(id: String) throws(RunwayError) {
        let db = try connection()
        try commitPending()
        try transaction(db, immediate: true, "deleting flight \"\(id)\"") { (db) throws(RunwayError) in
            let f = try db.prepare("DELETE FROM flight WHERE id = ?1", "deleting flight \"\(id)\"")
            try f.bind(1, id)
            try f.run()
            guard db.changes > 0 else { throw notFound(id) }
            let j = try db.prepare("DELETE FROM journal WHERE flight_id = ?1", "deleting the journal of \"\(id)\"")
            try j.bind(1, id)
            try j.run()
            let c = try db.prepare("DELETE FROM flight_check WHERE flight_id = ?1", "deleting the checksums of \"\(id)\"")
            try c.bind(1, id)
            try c.run()
        }
        openFlights.remove(id)
    }

    /// Checks that a commit reaches the file, leaving the store as it was: a write transaction
    /// that sets the schema version to its own value, so that SQLite writes and syncs a page, as
    /// an entry's commit would. Opening a store writes nothing when its schema is current, and
    /// reading needs no write access, so this is what tells a read-only file (SQLite opens a file
    /// it may not write read-only) or a full disk before anything is journaled.
    ///
    /// - Throws: `.store` saying why the store cannot be written (not writable, the disk is full,
    ///   an I/O error) or that another connection held its lock past the busy timeout.
    public func checkWritable() throws(RunwayError) {
        let db = try connection()
        try commitPending()
        try transaction(db, immediate: true, "checking that it can be written") { (db) throws(RunwayError) in
            let version = try db.integer("PRAGMA user_version", "checking that it can be written") ?? 0
            try db.exec("PRAGMA user_version = \(version)", "checking that it can be written")
        }
    }

    /// Commits what is buffered and closes the file. Harmless when already closed; later calls
    /// throw `.state`. An error committing the buffer is lost here: call `flush()` first to see it.
    public func close() {
        guard let db else { return }
        try? commitPending()
        insertStatement?.finalize()
        insertStatement = nil
        db.close()
        self.db = nil
    }

    // MARK: Helpers

    func connection() throws(RunwayError) -> SQLiteConnection {
        guard let db else { throw RunwayError(.state, "store \(path) is closed") }
        return db
    }

    /// Inserts one entry at the end of an unfinished flight's journal; false when the flight is
    /// missing or finished (nothing inserted).
    func insert(_ row: JournalCoding.Row, into id: String, _ db: SQLiteConnection) throws(RunwayError) -> Bool {
        let s: SQLiteStatement
        if let cached = insertStatement {
            s = cached
        } else {
            // The next n is read and written in one statement, so concurrent writers (which SQLite
            // serialises) never take the same one.
            s = try db.prepare("""
                INSERT INTO journal (flight_id, n, kind, t, payload, crc)
                SELECT id, n, ?2, ?3, ?4, runway_fnv(id, n, ?2, ?3, ?4) FROM (
                    SELECT id, coalesce((SELECT max(n) FROM journal WHERE flight_id = ?1), -1) + 1 AS n
                    FROM flight WHERE id = ?1 AND finished = 0)
                """, "appending to a journal", persistent: true)
            insertStatement = s
        }
        defer { s.reset() }
        try s.bind(1, id)
        try s.bind(2, row.kind)
        try s.bind(3, row.t)
        try s.bind(4, utf8: row.payload)
        _ = try s.step()
        return db.changes > 0
    }

    /// Runs `body` in a transaction (IMMEDIATE for writes), committing on success and rolling back
    /// on a throw.
    func transaction<R>(_ db: SQLiteConnection, immediate: Bool, _ doing: String,
                                _ body: (SQLiteConnection) throws(RunwayError) -> R) throws(RunwayError) -> R {
        try db.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN", doing)
        do throws(RunwayError) {
            let result = try body(db)
            try db.exec("COMMIT", doing)
            return result
        } catch {
            db.rollbackQuietly()
            throw error
        }
    }

    /// Sets a flight row's checksum from its values (inside the transaction that wrote them).
    func sealRow(_ id: String, _ db: SQLiteConnection) throws(RunwayError) {
        let s = try db.prepare(Checksum.seal, "sealing flight \"\(id)\"")
        try s.bind(1, id)
        try s.run()
    }

    /// A `.store` error for damage the store found itself (a checksum, a gap, a count).
    func corrupt(_ what: String) -> RunwayError {
        RunwayError(.store, "\(SQLiteConnection.corruptionPrefix(path)): \(what)")
    }

    /// Whether `error` reports damage to this store's file (a checksum, SQLite's own corruption
    /// or not-a-database codes), as opposed to a lock, a full disk or a missing flight.
    public func isDamage(_ error: RunwayError) -> Bool {
        error.status == .store && error.message.hasPrefix(SQLiteConnection.corruptionPrefix(path))
    }

    func notFound(_ id: String) -> RunwayError {
        RunwayError(.notFound, "no flight \"\(id)\" in store \(path)")
    }

    /// Why an entry could not be added: the flight is missing or finished.
    func closedFlightError(_ id: String, _ db: SQLiteConnection) throws(RunwayError) -> RunwayError {
        let s = try db.prepare("SELECT finished FROM flight WHERE id = ?1", "looking up flight \"\(id)\"")
        try s.bind(1, id)
        guard try s.step() else { return notFound(id) }
        guard s.int(0) != 0 else { return RunwayError(.internal, "flight \"\(id)\" is open but took no entry") }
        return RunwayError(.state, "flight \"\(id)\" is finished: its journal is closed")
    }

    static func checkID(_ id: String) throws(RunwayError) {
        guard !id.isEmpty, id.utf8.count <= 128 else {
            throw RunwayError(.argument, "flight id must be 1 to 128 bytes of UTF-8, got \(id.utf8.count)")
        }
        guard !id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw RunwayError(.argument, "flight id must not contain control characters")
        }
    }

    /// The config's `"activity"` when it names one, else `run` (the engine's default).
    static func activity(in configJSON: String) -> String {
        guard let fields = try? JSONInput.object(configJSON),
              let value = fields.first(where: { $0.key == "activity" })?.value,
              case .string(let s) = value, let a = Activity(rawValue: s) else { return Activity.run.rawValue }
        return a.rawValue
    }
}
