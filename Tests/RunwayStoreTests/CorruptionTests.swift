import Testing
import Glibc
import RunwayCore
import RunwayStore
import RunwaySim

@Suite("Damaged stores") struct CorruptionTests {
    /// A closed store (WAL checkpointed into the main file) with three flights of 1500 entries.
    static func makeStore(_ path: String) throws {
        let store = try FlightStore(path: path, durability: .batched)
        for id in ["a", "b", "c"] {
            try store.createFlight(id: id, configJSON: "{}")
            for i in 0..<1500 { try store.append(fix(i), to: id) }
        }
        try store.finish(id: "a", row: FlightLifecycleTests.row("a", start: 1), recordJSON: #"{"a":1}"#)
        store.close()
        #expect(fileSize(path + "-wal") <= 0)  // checkpointed into the main file
    }

    /// Every call on a damaged store either works or throws `.store`; returns the messages.
    static func exercise(_ path: String) -> [String] {
        var messages: [String] = []
        func note(_ e: RunwayError?) {
            guard let e else { return }
            #expect(e.status == .store, "\(e)")
            messages.append(e.message)
        }
        let store: FlightStore
        do {
            store = try FlightStore(path: path)
        } catch {
            note(error)
            return messages
        }
        note(thrown { try store.flights() })
        for id in ["a", "b", "c"] {
            note(thrown { try store.journal(of: id) })
            note(thrown { try store.record(of: id) })
        }
        note(thrown { try store.append(fix(9999), to: "b") })
        note(thrown { try store.check() })
        return messages
    }

    @Test func aFileOfRandomBytesIsNotAStore() throws {
        let dir = TempDir()
        for (i, size) in [1, 100, 4096, 65_536].enumerated() {
            let path = dir.file("noise\(i).db")
            let fd = open(path, O_WRONLY | O_CREAT, 0o600)
            _ = noise(size, seed: UInt64(i + 1)).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            let e = thrown { try FlightStore(path: path) }
            #expect(e?.status == .store)
            #expect(e?.message.contains("is corrupt or not a SQLite database") == true, "\(String(describing: e))")
        }
        // The SQLite header, then noise: SQLite itself finds it is no database.
        let path = dir.file("header-then-noise.db")
        writeAll(path, Array("SQLite format 3\u{0}".utf8) + noise(8192, seed: 7))
        let e = thrown { try FlightStore(path: path) }
        #expect(e?.status == .store)
        #expect(e?.message.contains("is corrupt or not a SQLite database (or is encrypted)") == true, "\(String(describing: e))")
        #expect(readAll(path)?.count == 16 + 8192)  // untouched
    }

    /// A file of 0 bytes is a new store, as SQLite takes it (a host may create the file before
    /// handing over its path); the header check refuses only files with bytes that are not SQLite's.
    @Test func aFileOfZeroBytesIsANewStore() throws {
        let dir = TempDir()
        let path = dir.file("empty.db")
        writeAll(path, [])
        #expect(fileSize(path) == 0)
        let store = try FlightStore(path: path)
        #expect(try store.flights().isEmpty)
        try store.createFlight(id: "z", configJSON: "{}")
        for i in 0..<10 { try store.append(fix(i), to: "z") }
        store.close()
        #expect(readAll(path).map { Array($0.prefix(16)) } == Array("SQLite format 3\u{0}".utf8))
        let again = try FlightStore(path: path)
        #expect(try again.flights().map(\.id) == ["z"])
        #expect(try again.journal(of: "z").entries.count == 10)
        again.close()
    }

    @Test func aDamagedHeaderIsNotAStore() throws {
        let dir = TempDir()
        try Self.makeStore(dir.file())
        overwrite(dir.file(), at: 0, with: Array("SQLite format 4".utf8))
        let e = thrown { try FlightStore(path: dir.file()) }
        #expect(e?.status == .store)
        #expect(e?.message.contains("is corrupt or not a SQLite database") == true)
    }

    @Test func aTruncatedStoreGivesCleanErrors() throws {
        let dir = TempDir()
        try Self.makeStore(dir.file())
        #expect(truncate(dir.file(), off_t(fileSize(dir.file()) / 2)) == 0)
        let messages = Self.exercise(dir.file())
        #expect(messages.contains { $0.contains("is corrupt") }, "\(messages)")
    }

    @Test func overwrittenPagesGiveCleanErrors() throws {
        let dir = TempDir()
        try Self.makeStore(dir.file())
        let size = fileSize(dir.file())
        // Garbage over every other page after the first (the header stays valid).
        for (k, offset) in stride(from: 4096 * 2, to: size, by: 4096 * 2).enumerated() {
            overwrite(dir.file(), at: offset + 100, with: noise(2000, seed: UInt64(k)))
        }
        let messages = Self.exercise(dir.file())
        #expect(messages.contains { $0.contains("is corrupt") }, "\(messages)")
    }

    @Test func flippedBitsAnywhereNeverCrash() throws {
        let dir = TempDir()
        try Self.makeStore(dir.file("clean.db"))
        let size = fileSize(dir.file("clean.db"))
        let clean = try #require(readAll(dir.file("clean.db")))
        var damagedRuns = 0
        for k in 0..<40 {
            var bytes = clean
            let r = noise(16, seed: UInt64(1000 + k))
            for j in 0..<4 {
                let at = (Int(r[j * 2]) << 8 | Int(r[j * 2 + 1])) * size / 65_536
                bytes[at] ^= UInt8(1 << (r[8 + j] & 7))
            }
            let path = dir.file("flip\(k).db")
            writeAll(path, bytes)
            let messages = Self.exercise(path)
            if !messages.isEmpty { damagedRuns += 1 }
            if getenv("RUNWAY_STORE_VERBOSE") != nil { print(k, messages) }
        }
        #expect(damagedRuns > 0)
    }

    @Test func aDamagedJournalEntryIsNamed() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "f", configJSON: "{}")
        for i in 0..<4 { try store.append(fix(i), to: "f") }
        try store.createFlight(id: "g", configJSON: "{}")
        try store.append(fix(0), to: "g")
        let raw = RawDB(dir.file())
        let damage = [
            #"UPDATE journal SET payload = '{"lat":' WHERE flight_id = 'f' AND n = 2"#,
            "UPDATE journal SET kind = 'teleport' WHERE flight_id = 'f' AND n = 2",
            "UPDATE journal SET t = 'noon' WHERE flight_id = 'f' AND n = 2",
            "UPDATE journal SET t = t + 1 WHERE flight_id = 'f' AND n = 2",
            "UPDATE journal SET kind = 'command', payload = 'jump' WHERE flight_id = 'f' AND n = 2",
        ]
        for sql in damage {
            #expect(raw.exec("BEGIN; " + sql) == nil)
            raw.exec("COMMIT")
            let e = thrown { try store.journal(of: "f") }
            #expect(e?.status == .store, "\(sql)")
            #expect(e?.message.contains("journal entry 2 of flight \"f\" is damaged") == true, "\(String(describing: e))")
            #expect(try store.journal(of: "g").entries.count == 1)  // the intact flight still reads
            #expect(raw.exec("DELETE FROM journal WHERE flight_id = 'f' AND n = 2") == nil)
            try store.append(fix(2), to: "f")  // n = 4 now; the next damage hits n = 2 again
            #expect(raw.exec("UPDATE journal SET n = 2 WHERE flight_id = 'f' AND n = 4") == nil)
        }
    }
}

func readAll(_ path: String) -> [UInt8]? {
    let size = fileSize(path)
    guard size > 0 else { return nil }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = [UInt8](repeating: 0, count: size)
    let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress, size) }
    return n == size ? out : nil
}

func writeAll(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}
