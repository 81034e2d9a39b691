import CSQLite
import RunwayCore

/// Per-row checksums: SQLite checks its pages' structure, not the bytes of the values in them,
/// so a flipped bit inside a payload, a number or a record would otherwise read back as a
/// silently different flight. Every journal entry carries a 64-bit FNV-1a hash of its values
/// (`journal.crc`); every flight row has one of its values in `flight_check.crc`, and the record
/// of a finished flight one of its text in `flight_check.record_crc`; reads compare them. (The
/// flight's checksums live in a table of their own so that listing flights never walks the
/// overflow pages of their records, as a column after `record` would make SQLite do.)
///
/// The hash is the SQL function `runway_fnv(v1, v2, ...)`, registered on every connection, so
/// the statements that write a row compute its checksum from the very values they store:
///
///     INSERT INTO journal (..., crc) SELECT ..., runway_fnv(id, n, ?2, ?3, ?4) ...
///
/// Each value is hashed as a type tag, then its bytes: an INTEGER or a REAL as 8 bytes (little
/// endian; a REAL as its bit pattern, -0.0 as 0.0 because SQLite stores it as the integer 0),
/// a TEXT or a BLOB as its length (8 bytes) and its bytes, a NULL as its tag alone. FNV-1a
/// changes its state bijectively at every byte, so any change confined to one byte of the
/// hashed values always changes the hash; wider damage goes unseen with odds of 2^-64.
enum Checksum {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static let nullTag: UInt8 = 0, integerTag: UInt8 = 1, realTag: UInt8 = 2, textTag: UInt8 = 3, blobTag: UInt8 = 4

    /// The SQL expression of a flight row's checksum, over `flight f LEFT JOIN flight_check c`:
    /// every column of the row but the record, which is covered through `c.record_crc`.
    static let flightRow = """
        runway_fnv(f.id, f.config, f.finished, f.start_t, f.end_t, f.end_reason, f.activity, f.distance_m, \
        f.elapsed_s, f.moving_s, f.avg_pace_min_per_km, f.entries, c.record_crc)
        """

    /// The flight row joined with its checksums: use as `SELECT ... \(Checksum.flightJoin) WHERE f.id = ?1`.
    static let flightJoin = "FROM flight f LEFT JOIN flight_check c ON c.flight_id = f.id"

    /// True when the row matches its checksum (false when it has none).
    static let rowMatches = "c.crc IS \(flightRow)"

    /// Writes the checksums of the flight row `?1` from its stored values (record included).
    static let seal = """
        INSERT OR REPLACE INTO flight_check (flight_id, record_crc, crc)
        SELECT id, r, runway_fnv(id, config, finished, start_t, end_t, end_reason, activity, distance_m,
            elapsed_s, moving_s, avg_pace_min_per_km, entries, r)
        FROM (SELECT *, CASE WHEN record IS NULL THEN NULL ELSE runway_fnv(record) END AS r FROM flight WHERE id = ?1)
        """

    /// The SQL expression of a journal entry's checksum.
    static let journalRow = "runway_fnv(flight_id, n, kind, t, payload)"

    /// True when a flight's record matches its checksum (an unfinished flight has neither).
    static let recordMatches = "CASE WHEN f.record IS NULL THEN c.record_crc IS NULL ELSE c.record_crc IS runway_fnv(f.record) END"

    struct Hasher {
        var state: UInt64 = Checksum.offsetBasis

        mutating func add(_ byte: UInt8) {
            state = (state ^ UInt64(byte)) &* Checksum.prime
        }

        mutating func add(_ word: UInt64) {
            var w = word
            for _ in 0..<8 {
                add(UInt8(truncatingIfNeeded: w))
                w >>= 8
            }
        }

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            add(UInt64(bytes.count))
            for b in bytes { add(b) }
        }

        /// Adds one SQLite value, tag first.
        mutating func add(value v: OpaquePointer?) {
            switch sqlite3_value_type(v) {
            case SQLITE_INTEGER:
                add(Checksum.integerTag)
                add(UInt64(bitPattern: sqlite3_value_int64(v)))
            case SQLITE_FLOAT:
                add(Checksum.realTag)
                let d = sqlite3_value_double(v)
                add(d == 0 ? 0 : d.bitPattern)
            case SQLITE_TEXT:
                add(Checksum.textTag)
                // sqlite3_value_text first, then sqlite3_value_bytes: the order SQLite documents.
                let p = sqlite3_value_text(v)
                let n = Int(sqlite3_value_bytes(v))
                add(UnsafeRawBufferPointer(start: n > 0 ? p : nil, count: p == nil ? 0 : n))
            case SQLITE_BLOB:
                add(Checksum.blobTag)
                let p = sqlite3_value_blob(v)
                let n = Int(sqlite3_value_bytes(v))
                add(UnsafeRawBufferPointer(start: n > 0 ? p : nil, count: p == nil ? 0 : n))
            default:
                add(Checksum.nullTag)
            }
        }
    }

    /// `runway_fnv(...)`: the hash of its arguments as a signed 64-bit integer.
    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, argc, argv in
        var h = Hasher()
        if let argv, argc > 0 {
            for i in 0..<Int(argc) { h.add(value: argv[i]) }
        }
        sqlite3_result_int64(context, Int64(bitPattern: h.state))
    }

    /// Registers `runway_fnv` on a connection.
    static func register(on db: SQLiteConnection) throws(RunwayError) {
        guard let h = db.handle else { throw RunwayError(.state, "store \(db.path) is closed") }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let rc = sqlite3_create_function_v2(h, "runway_fnv", -1, flags, nil, function, nil, nil, nil)
        guard rc == SQLITE_OK else { throw db.error(rc, "registering the checksum function") }
    }
}
