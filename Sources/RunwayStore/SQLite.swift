import CSQLite
import Glibc
import RunwayCore

/// One SQLite connection, and the one place where SQLite result codes become `RunwayError`s.
///
/// Not thread-safe (opened with `SQLITE_OPEN_NOMUTEX`): its owner serialises calls, as
/// `FlightStore` requires of its user.
final class SQLiteConnection {
    let path: String
    private(set) var handle: OpaquePointer?
    /// The result code of the latest failure turned into an error (`error(_:_:)`), 0 before any.
    private(set) var lastFailure: Int32 = 0

    /// How long a statement waits for another connection's lock, in milliseconds.
    static let busyTimeoutMs: Int32 = 5000

    /// Opens (or creates) the database file at `path`, with extended result codes and the
    /// busy timeout.
    init(path: String) throws(RunwayError) {
        self.path = path
        var db: OpaquePointer? = nil
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(Self.fileName(path), &db, flags, nil)
        handle = db
        guard rc == SQLITE_OK, let db else {
            let error = self.error(rc, "opening")
            close()
            throw error
        }
        sqlite3_busy_timeout(db, Self.busyTimeoutMs)
    }

    /// Runs `body`, and runs it again after a short sleep whenever it fails because another
    /// connection holds a lock, while less than the busy timeout has passed since the first try
    /// (one try may itself wait that long in the busy handler); then the last error is thrown.
    ///
    /// The busy timeout alone does not cover every case: SQLite returns `SQLITE_BUSY` at once,
    /// without calling the busy handler, where waiting could deadlock, e.g. when a connection
    /// holding a read lock needs a write lock, as switching a new file to WAL mode does while
    /// another connection opens it. `body` must be safe to run again after a failure, and must
    /// not swallow errors (the retry is decided by the connection's latest failure); a
    /// transaction it leaves open is rolled back before it runs again.
    func retryingWhileBusy<T>(_ body: () throws(RunwayError) -> T) throws(RunwayError) -> T {
        let start = FlightStore.monotonicNanoseconds()
        var pauseMs: UInt32 = 1
        while true {
            lastFailure = 0
            do throws(RunwayError) {
                return try body()
            } catch {
                let busy = lastFailure & 0xFF == SQLITE_BUSY || lastFailure & 0xFF == SQLITE_LOCKED
                let waitedMs = (FlightStore.monotonicNanoseconds() &- start) / 1_000_000
                guard busy, waitedMs < UInt64(Self.busyTimeoutMs) else { throw error }
                rollbackQuietly()
                usleep(pauseMs * 1000)
                pauseMs = min(pauseMs * 2, 64)
            }
        }
    }

    deinit { close() }

    /// `path` as SQLite takes it for the file of that name: SQLite opens ":memory:" as an
    /// in-memory database and, when built to accept URIs (Debian's is), a name starting with
    /// "file:" as a URI. Relative paths get "./", which names the same file and is neither.
    static func fileName(_ path: String) -> String {
        path.hasPrefix("/") ? path : "./" + path
    }

    /// Closes the connection; statements still alive are finalised by their owners later
    /// (`sqlite3_close_v2` waits for them). Harmless when already closed.
    func close() {
        if let h = handle { sqlite3_close_v2(h) }
        handle = nil
    }

    /// Whether a transaction is open on this connection.
    var inTransaction: Bool {
        guard let h = handle else { return false }
        return sqlite3_get_autocommit(h) == 0
    }

    /// Rows changed by the latest INSERT, UPDATE or DELETE.
    var changes: Int64 {
        guard let h = handle else { return 0 }
        return sqlite3_changes64(h)
    }

    /// Runs SQL text (one or more statements, no results).
    func exec(_ sql: String, _ doing: String) throws(RunwayError) {
        guard let h = handle else { throw RunwayError(.state, "store \(path) is closed") }
        let rc = sqlite3_exec(h, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, doing) }
    }

    /// Rolls back the open transaction, if any, ignoring errors (used on failure paths).
    func rollbackQuietly() {
        guard let h = handle, inTransaction else { return }
        sqlite3_exec(h, "ROLLBACK", nil, nil, nil)
    }

    func prepare(_ sql: String, _ doing: String, persistent: Bool = false) throws(RunwayError) -> SQLiteStatement {
        try SQLiteStatement(self, sql, doing, persistent: persistent)
    }

    /// The single integer a query returns (a pragma, a count), or nil when it returns no row.
    func integer(_ sql: String, _ doing: String) throws(RunwayError) -> Int64? {
        let s = try prepare(sql, doing)
        guard try s.step() else { return nil }
        return s.int(0)
    }

    /// The single text a query returns, or nil.
    func text(_ sql: String, _ doing: String) throws(RunwayError) -> String? {
        let s = try prepare(sql, doing)
        guard try s.step() else { return nil }
        return s.text(0)
    }

    /// How every message reporting damage to the file at `path` begins (`FlightStore.isDamage`).
    static func corruptionPrefix(_ path: String) -> String { "store \(path) is corrupt" }

    /// A `.store` error for a failed SQLite call, worded for the kinds of failure a host can act on.
    ///
    /// - Parameters:
    ///   - rc: the (extended) result code.
    ///   - doing: what the store was doing, e.g. "appending to flight x".
    func error(_ rc: Int32, _ doing: String) -> RunwayError {
        lastFailure = rc
        let detail: String
        if let h = handle, let m = sqlite3_errmsg(h) {
            detail = String(cString: m)
        } else if let m = sqlite3_errstr(rc) {
            detail = String(cString: m)
        } else {
            detail = "SQLite error \(rc)"
        }
        let message: String
        switch rc & 0xFF {
        case SQLITE_NOTADB:
            message = "\(Self.corruptionPrefix(path)) or not a SQLite database (or is encrypted) (\(doing): \(detail))"
        case SQLITE_CORRUPT:
            message = "\(Self.corruptionPrefix(path)) (\(doing): \(detail))"
        case SQLITE_BUSY, SQLITE_LOCKED:
            message = "store \(path) stayed locked by another connection for longer than the 5 s busy timeout (\(doing): \(detail))"
        case SQLITE_FULL:
            message = "store \(path): the disk is full (\(doing): \(detail))"
        case SQLITE_CANTOPEN:
            // (SQLite says "unable to open database file" whatever the cause: the system's reason,
            // a folder given as the store or one missing on its path, says what to change.)
            let os = handle.map { sqlite3_system_errno($0) } ?? 0
            let why = os != 0 ? strerror(os).map { ": " + String(cString: $0) } ?? "" : ""
            message = "cannot open store \(path) (\(doing): \(detail)\(why))"
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH:
            message = "store \(path) is not writable (\(doing): \(detail))"
        case SQLITE_IOERR:
            message = "store \(path): I/O error (\(doing): \(detail), code \(rc))"
        default:
            message = "store \(path): \(doing) failed: \(detail) (SQLite code \(rc))"
        }
        return RunwayError(.store, message)
    }
}

/// A prepared statement. Bind, step, read columns, then `reset()` for reuse.
final class SQLiteStatement {
    private let connection: SQLiteConnection
    private var handle: OpaquePointer?
    private let doing: String

    init(_ connection: SQLiteConnection, _ sql: String, _ doing: String, persistent: Bool) throws(RunwayError) {
        self.connection = connection
        self.doing = doing
        guard let db = connection.handle else { throw RunwayError(.state, "store \(connection.path) is closed") }
        var stmt: OpaquePointer? = nil
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(db, sql, -1, flags, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            if let stmt { sqlite3_finalize(stmt) }
            throw connection.error(rc == SQLITE_OK ? SQLITE_MISUSE : rc, doing)
        }
        handle = stmt
    }

    deinit { finalize() }

    func finalize() {
        if let h = handle { sqlite3_finalize(h) }
        handle = nil
    }

    /// Clears the bindings and rewinds the statement for its next use.
    func reset() {
        guard let h = handle else { return }
        sqlite3_reset(h)
        sqlite3_clear_bindings(h)
    }

    private func checkBind(_ rc: Int32) throws(RunwayError) {
        guard rc == SQLITE_OK else { throw connection.error(rc, doing) }
    }

    /// Binds a double; NaN is bound as NULL (SQLite has no NaN), which reads back as NaN.
    func bind(_ i: Int32, _ v: Double) throws(RunwayError) {
        guard let h = handle else { throw RunwayError(.state, "store \(connection.path) is closed") }
        try checkBind(v.isNaN ? sqlite3_bind_null(h, i) : sqlite3_bind_double(h, i, v))
    }

    func bind(_ i: Int32, _ v: Int64) throws(RunwayError) {
        guard let h = handle else { throw RunwayError(.state, "store \(connection.path) is closed") }
        try checkBind(sqlite3_bind_int64(h, i, v))
    }

    /// Binds text (nil binds NULL). The bytes are copied, so the string need not outlive the call.
    func bind(_ i: Int32, _ s: String?) throws(RunwayError) {
        guard let s else {
            guard let h = handle else { throw RunwayError(.state, "store \(connection.path) is closed") }
            try checkBind(sqlite3_bind_null(h, i))
            return
        }
        var copy = s
        let rc = copy.withUTF8 { buf in bindText(i, UnsafeRawBufferPointer(buf)) }
        try checkBind(rc)
    }

    /// Binds UTF-8 bytes as text.
    func bind(_ i: Int32, utf8 bytes: [UInt8]) throws(RunwayError) {
        let rc = bytes.withUnsafeBytes { bindText(i, $0) }
        try checkBind(rc)
    }

    private func bindText(_ i: Int32, _ buf: UnsafeRawBufferPointer) -> Int32 {
        guard let h = handle else { return SQLITE_MISUSE }
        // An empty buffer may have no base address, and a NULL pointer would bind NULL, not "".
        guard let base = buf.baseAddress, buf.count > 0 else {
            return sqlite3_bind_text(h, i, "", 0, SQLiteStatement.transient)
        }
        return sqlite3_bind_text64(h, i, base.assumingMemoryBound(to: CChar.self), UInt64(buf.count),
                                   SQLiteStatement.transient, UInt8(SQLITE_UTF8))
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the bind call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    }

    /// Steps once: true when a row is available, false when the statement is done.
    func step() throws(RunwayError) -> Bool {
        guard let h = handle else { throw RunwayError(.state, "store \(connection.path) is closed") }
        let rc = sqlite3_step(h)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, doing)
            sqlite3_reset(h)
            throw error
        }
    }

    /// Steps a statement that returns no rows, then resets it.
    func run() throws(RunwayError) {
        defer { reset() }
        _ = try step()
    }

    func isNull(_ i: Int32) -> Bool {
        guard let h = handle else { return true }
        return sqlite3_column_type(h, i) == SQLITE_NULL
    }

    func columnType(_ i: Int32) -> Int32 {
        guard let h = handle else { return SQLITE_NULL }
        return sqlite3_column_type(h, i)
    }

    /// A REAL (or INTEGER) column; NULL reads as NaN.
    func double(_ i: Int32) -> Double {
        guard let h = handle, sqlite3_column_type(h, i) != SQLITE_NULL else { return .nan }
        return sqlite3_column_double(h, i)
    }

    func int(_ i: Int32) -> Int64 {
        guard let h = handle else { return 0 }
        return sqlite3_column_int64(h, i)
    }

    /// A TEXT column as a String (invalid UTF-8 is repaired), nil for NULL.
    func text(_ i: Int32) -> String? {
        guard let h = handle, sqlite3_column_type(h, i) != SQLITE_NULL else { return nil }
        return withBytes(i) { String(decoding: $0, as: UTF8.self) }
    }

    /// Hands the raw bytes of a TEXT or BLOB column to `body`; they are valid only inside it.
    func withBytes<R, E: Error>(_ i: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        guard let h = handle else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        // sqlite3_column_text first, then sqlite3_column_bytes: the order SQLite documents.
        let p = sqlite3_column_text(h, i)
        let n = Int(sqlite3_column_bytes(h, i))
        guard let p, n > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: p, count: n))
    }
}
