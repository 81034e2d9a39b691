import CSQLite
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Reading a store: journals, the list of flights, records, integrity checks.
extension FlightStore {
    // MARK: Reading

    /// The config a flight was created with and its entries in append order.
    ///
    /// - Throws: `.notFound` for an unknown flight; `.store` naming the entry when one is damaged.
    public func journal(of id: String) throws(RunwayError) -> (configJSON: String, entries: [JournalEntry]) {
        let db = try connection()
        try commitPending()
        return try transaction(db, immediate: false, "reading the journal of \"\(id)\"") {
            (db) throws(RunwayError) -> (configJSON: String, entries: [JournalEntry]) in
            let f = try db.prepare("SELECT f.config, f.finished, f.entries, \(Checksum.rowMatches) \(Checksum.flightJoin) WHERE f.id = ?1",
                                   "reading flight \"\(id)\"")
            try f.bind(1, id)
            guard try f.step() else { throw notFound(id) }
            guard f.int(3) == 1 else { throw corrupt("the row of flight \"\(id)\" does not match its checksum") }
            let config = f.text(0) ?? ""
            let expected: Int64? = f.int(1) != 0 && !f.isNull(2) ? f.int(2) : nil
            let s = try db.prepare("""
                SELECT n, kind, t, payload, crc IS \(Checksum.journalRow) FROM journal WHERE flight_id = ?1 ORDER BY n
                """, "reading the journal of \"\(id)\"")
            try s.bind(1, id)
            var entries: [JournalEntry] = []
            while try s.step() {
                let n = s.int(0)
                func damaged(_ why: String) -> RunwayError {
                    corrupt("journal entry \(n) of flight \"\(id)\" is damaged: \(why)")
                }
                guard s.int(4) == 1 else { throw damaged("its values do not match its checksum") }
                guard n == Int64(entries.count) else {
                    throw corrupt("the journal of flight \"\(id)\" is damaged: entry \(entries.count) is missing (the next is \(n))")
                }
                let type = s.columnType(2)
                guard type == SQLITE_FLOAT || type == SQLITE_INTEGER || type == SQLITE_NULL else {
                    throw damaged("its time is not a number")
                }
                let kind = s.text(1) ?? ""
                let t = s.double(2)
                let entry = try s.withBytes(3) { (payload) throws(RunwayError) -> JournalEntry in
                    do throws(RunwayError) {
                        return try JournalCoding.decode(kind: kind, t: t, payload: payload, entry: n, flight: id)
                    } catch {
                        throw corrupt(error.message)
                    }
                }
                entries.append(entry)
            }
            if let expected, expected != Int64(entries.count) {
                throw corrupt("the journal of finished flight \"\(id)\" has \(entries.count) entries where \(expected) were stored")
            }
            // An unfinished flight stores no entry count, and a damaged b-tree page can end the
            // scan above early without an error: a clean prefix that looks like a crash. Walking
            // down to the flight's last entry from the other end takes another path through the
            // tree; the two must meet (one seek; PRAGMA quick_check would read the whole file).
            let last = try db.prepare("SELECT n FROM journal WHERE flight_id = ?1 ORDER BY n DESC LIMIT 1",
                                      "reading the journal of \"\(id)\"")
            try last.bind(1, id)
            let lastN: Int64 = try last.step() ? last.int(0) : -1
            guard lastN == Int64(entries.count) - 1 else {
                throw corrupt("the journal of flight \"\(id)\" is damaged: read forwards it ends after entry \(entries.count - 1), read backwards at entry \(lastN)")
            }
            return (config, entries)
        }
    }

    /// Every flight, finished or not, ordered by start time (flights without one last), then id.
    ///
    /// Unfinished flights (running, or killed mid-run: the ones to recover) have NaN figures; see
    /// `FlightRow`.
    public func flights() throws(RunwayError) -> [FlightRow] {
        let db = try connection()
        try commitPending()
        let s = try db.prepare("""
            SELECT id, finished, activity, end_reason,
                CASE WHEN finished THEN start_t ELSE
                    (SELECT t FROM journal j WHERE j.flight_id = f.id AND t IS NOT NULL ORDER BY n LIMIT 1) END AS s,
                CASE WHEN finished THEN end_t ELSE
                    (SELECT t FROM journal j WHERE j.flight_id = f.id AND t IS NOT NULL ORDER BY n DESC LIMIT 1) END,
                distance_m, elapsed_s, moving_s, avg_pace_min_per_km,
                CASE WHEN finished AND entries IS NOT NULL THEN entries ELSE
                    (SELECT count(*) FROM journal j WHERE j.flight_id = f.id) END,
                \(Checksum.rowMatches)
            FROM flight f LEFT JOIN flight_check c ON c.flight_id = f.id
            ORDER BY s IS NULL, s, id
            """, "listing flights")
        var rows: [FlightRow] = []
        while try s.step() {
            guard s.int(11) == 1 else {
                let id = s.text(0) ?? ""
                rows.append(.damaged(id: id, corrupt("the row of flight \"\(id)\" does not match its checksum").message))
                continue
            }
            let finished = s.int(1) != 0
            rows.append(FlightRow(
                id: s.text(0) ?? "", startT: s.double(4), endT: s.double(5), endReason: s.text(3),
                activity: s.text(2) ?? Activity.run.rawValue,
                distanceM: finished ? s.double(6) : .nan, elapsedS: finished ? s.double(7) : .nan,
                movingS: finished ? s.double(8) : .nan, avgPaceMinPerKm: finished ? s.double(9) : .nan,
                finished: finished, entries: Int(truncatingIfNeeded: max(0, s.int(10)))))
        }
        return rows
    }

    /// The record JSON a finished flight was stored with; nil while it is unfinished.
    ///
    /// - Throws: `.notFound` when there is no such flight.
    public func record(of id: String) throws(RunwayError) -> String? {
        let db = try connection()
        try commitPending()
        let s = try db.prepare("""
            SELECT f.finished, f.record, \(Checksum.rowMatches), \(Checksum.recordMatches) \(Checksum.flightJoin) WHERE f.id = ?1
            """, "reading the record of \"\(id)\"")
        try s.bind(1, id)
        guard try s.step() else { throw notFound(id) }
        guard s.int(2) == 1 else { throw corrupt("the row of flight \"\(id)\" does not match its checksum") }
        guard s.int(3) == 1 else { throw corrupt("the record of flight \"\(id)\" does not match its checksum") }
        return s.int(0) != 0 ? s.text(1) : nil
    }

    /// The end reason of a finished flight (nil while it is unfinished), from its row alone.
    ///
    /// - Throws: `.notFound` when there is no such flight; `.store` when its row is damaged.
    public func endReason(of id: String) throws(RunwayError) -> String? {
        let db = try connection()
        try commitPending()
        let s = try db.prepare("SELECT f.finished, f.end_reason, \(Checksum.rowMatches) \(Checksum.flightJoin) WHERE f.id = ?1",
                               "reading flight \"\(id)\"")
        try s.bind(1, id)
        guard try s.step() else { throw notFound(id) }
        guard s.int(2) == 1 else { throw corrupt("the row of flight \"\(id)\" does not match its checksum") }
        return s.int(0) != 0 ? s.text(1) : nil
    }

    /// Runs SQLite's `quick_check` over the whole file (time grows with its size).
    ///
    /// - Throws: `.store` with SQLite's first finding when the file is damaged.
    public func check() throws(RunwayError) {
        let db = try connection()
        try commitPending()
        let verdict = try db.text("PRAGMA quick_check", "checking the store") ?? ""
        guard verdict == "ok" else { throw corrupt(verdict) }
    }

    /// The value of a read-only pragma on this store's connection, for diagnostics and tests:
    /// `pragma("synchronous")` is "2" (FULL), `pragma("journal_mode")` is "wal".
    ///
    /// - Parameter name: a pragma name (letters and underscores only; nothing is set).
    public func pragma(_ name: String) throws(RunwayError) -> String? {
        guard !name.isEmpty, name.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 == 0x5F }) else {
            throw RunwayError(.argument, "pragma name must be letters and underscores")
        }
        return try connection().text("PRAGMA \(name)", "reading pragma \(name)")
    }

}
