import CSQLite
import Glibc
import RunwayCore
import RunwayStore
import RunwaySim


/// A store's file opened with plain SQLite, to build or inspect files by hand.
final class RawDB {
    var handle: OpaquePointer?

    init(_ path: String) {
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        if let handle { sqlite3_busy_timeout(handle, 5000) }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs SQL statements; returns nil on success, else SQLite's message.
    @discardableResult
    func exec(_ sql: String) -> String? {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            return handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "error"
        }
        return nil
    }

    /// Rows of one query, every value as text (nil for NULL).
    func rows(_ sql: String) -> [[String?]] {
        var stmt: OpaquePointer? = nil
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_finalize(stmt) }
        var out: [[String?]] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            var row: [String?] = []
            for i in 0..<sqlite3_column_count(stmt) {
                row.append(sqlite3_column_text(stmt, i).map { String(cString: $0) })
            }
            out.append(row)
        }
        return out
    }

    /// The first column of the first row.
    func value(_ sql: String) -> String? { rows(sql).first?.first ?? nil }
}

/// A monotonic clock the test moves by hand.
final class ManualClock {
    var now: UInt64 = 1_000_000_000
    func advance(seconds: Double) { now += UInt64(seconds * 1e9) }
    var read: () -> UInt64 { { [unowned self] in self.now } }
}

/// The error a throwing call threw, or nil.
func thrown<T>(_ body: () throws -> T) -> RunwayError? {
    do { _ = try body(); return nil } catch { return (error as? RunwayError) ?? RunwayError(.internal, "\(error)") }
}

/// Equal bit for bit, every NaN counting as the same.
func same(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }

func same(_ a: JournalEntry, _ b: JournalEntry) -> Bool {
    switch (a, b) {
    case (.command(let c, let t), .command(let d, let u)): return c == d && same(t, u)
    case (.lap(let t, let a), .lap(let u, let b)): return same(t, u) && a == b
    case (.tick(let t), .tick(let u)): return same(t, u)
    case (.input(.fix(let x)), .input(.fix(let y))):
        return [same(x.t, y.t), same(x.lat, y.lat), same(x.lon, y.lon), same(x.alt, y.alt),
                same(x.speed, y.speed), same(x.course, y.course), same(x.hAcc, y.hAcc),
                same(x.vAcc, y.vAcc), same(x.hr, y.hr), same(x.cadence, y.cadence)].allSatisfy { $0 }
    case (.input(.sample(.heartRate(let v, let t))), .input(.sample(.heartRate(let w, let u)))),
         (.input(.sample(.cadence(let v, let t))), .input(.sample(.cadence(let w, let u)))),
         (.input(.sample(.altimeter(let v, let t))), .input(.sample(.altimeter(let w, let u)))),
         (.input(.sample(.speed(let v, let t))), .input(.sample(.speed(let w, let u)))):
        return same(v, w) && same(t, u)
    default: return false
    }
}

func sameEntries(_ a: [JournalEntry], _ b: [JournalEntry]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
}

/// A fix on a straight line north from (47.0, 8.0), about 3 m per second.
func fix(_ i: Int, t0: Double = 1_764_439_512) -> JournalEntry {
    .input(.fix(Fix(t: t0 + Double(i), lat: 47.0 + Double(i) * 0.000027, lon: 8.0, alt: 410 + Double(i % 7),
                    speed: 3.0, course: 0, hAcc: 4, vAcc: 6)))
}

/// Writes `bytes` at `offset` of the file at `path` (no appending beyond it).
func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) {
    let fd = open(path, O_WRONLY)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
    close(fd)
}

func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
}

/// Deterministic pseudo-random bytes (a 64-bit LCG).
func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var x = seed
    return (0..<count).map { _ in
        x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: x >> 56)
    }
}
