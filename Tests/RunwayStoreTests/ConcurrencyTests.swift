import Testing
import Glibc
import RunwayCore
import RunwayStore
import RunwaySim

@Suite("Concurrent stores") struct ConcurrencyTests {
    @Test func oneStoreAppendsWhileAnotherListsAndReads() throws {
        let dir = TempDir()
        let writer = try FlightStore(path: dir.file())
        let reader = try FlightStore(path: dir.file())
        try writer.createFlight(id: "w", configJSON: "{}")
        try reader.createFlight(id: "r", configJSON: "{}")
        for i in 0..<60 {
            try writer.append(fix(i), to: "w")
            if i % 2 == 0 { try reader.append(fix(i), to: "r") }
            let rows = try reader.flights()
            #expect(rows.first { $0.id == "w" }?.entries == i + 1)
            #expect(try reader.journal(of: "w").entries.count == i + 1)
            #expect(try writer.journal(of: "r").entries.count == i / 2 + 1)
        }
        try reader.finish(id: "w", row: FlightLifecycleTests.row("w", start: 1), recordJSON: "{}")
        #expect(thrown { try writer.append(fix(60), to: "w") }?.status == .state)
        try writer.check()
    }

    @Test func storesOnThreeThreadsCreateAndWriteTheSameFileAtOnce() async throws {
        let dir = TempDir()
        let path = dir.file()  // created by whichever store comes first
        let perWriter = 400
        let failures = await withTaskGroup(of: String?.self) { group in
            for (w, durability) in [(0, Durability.everyFix), (1, .everyFix), (2, .batched)] {
                group.addTask {
                    do {
                        let store = try FlightStore(path: path, durability: durability)
                        let id = "writer-\(w)"
                        try store.createFlight(id: id, configJSON: "{}")
                        for i in 0..<perWriter {
                            try store.append(fix(i), to: id)
                            if i % 50 == 0 { _ = try store.flights() }
                        }
                        try store.finish(id: id, row: FlightLifecycleTests.row(id, start: Double(w)), recordJSON: "{}")
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            var out: [String] = []
            for await f in group { if let f { out.append(f) } }
            return out
        }
        #expect(failures.isEmpty, "\(failures)")
        let store = try FlightStore(path: path)
        try store.check()
        for w in 0..<3 {
            let expected = (0..<perWriter).map { fix($0) }
            #expect(sameEntries(try store.journal(of: "writer-\(w)").entries, expected))
        }
        #expect(try store.flights().map(\.entries) == [perWriter, perWriter, perWriter])
    }

    /// Several stores opening one new file at the same instant all get it: switching a file to WAL
    /// mode can meet `SQLITE_BUSY` without SQLite calling the busy handler (one connection upgrades
    /// its read lock while another holds one), so the store retries within its busy timeout instead
    /// of failing at once. Real threads, released together, over many fresh files; the
    /// task pool would run only as many at once as there are cores.
    @Test func storesOnEightThreadsOpenOneNewFileAtTheSameInstant() throws {
        let dir = TempDir()
        let threads = 8
        for round in 0..<25 {
            let path = dir.file("same-\(round).runway")
            let failures = onThreadsAtOnce(threads) { t -> String? in
                do {
                    let store = try FlightStore(path: path)
                    try store.createFlight(id: "t\(t)", configJSON: "{}")
                    try store.append(fix(0), to: "t\(t)")
                    return nil
                } catch {
                    return "thread \(t): \(error)"
                }
            }
            #expect(failures.isEmpty, "round \(round): \(failures)")
            guard failures.isEmpty else { return }
            let store = try FlightStore(path: path)
            #expect(try store.flights().count == threads)
            #expect(try store.pragma("journal_mode") == "wal")
        }
    }

    /// A second process (Python's sqlite3) writes a flight of its own and checks the journal it
    /// reads is always a gap-free prefix, while this one appends.
    @Test(.enabled(if: ConcurrencyTests.python(["-c", "import sqlite3"]) == 0))
    func anotherProcessReadsAndWritesWhileThisOneAppends() throws {
        let dir = TempDir()
        let store = try FlightStore(path: dir.file())
        try store.createFlight(id: "parent", configJSON: "{}")
        let script = """
            import json, sqlite3, struct, sys
            \(Self.pythonChecksum)
            con = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)
            con.create_function("runway_fnv", -1, runway_fnv, deterministic=True)
            con.execute("INSERT INTO flight (id, config) VALUES ('child', '{}')")
            con.execute("INSERT INTO flight_check (flight_id, crc) SELECT id, runway_fnv(id, config, finished, start_t, "
                        "end_t, end_reason, activity, distance_m, elapsed_s, moving_s, avg_pace_min_per_km, entries, NULL) "
                        "FROM flight WHERE id = 'child'")
            seen = 0
            for i in range(300):
                t = 1.7e9 + i
                payload = json.dumps({"lat": 47.0, "lon": 8.0, "t": t})
                con.execute("INSERT INTO journal VALUES ('child', ?, 'input', ?, ?, runway_fnv('child', ?, 'input', ?, ?))",
                            (i, t, payload, i, t, payload))
                rows = con.execute("SELECT n, payload FROM journal WHERE flight_id = 'parent' ORDER BY n").fetchall()
                assert [r[0] for r in rows] == list(range(len(rows))), "gap in the parent's journal"
                assert len(rows) >= seen, "the parent's journal shrank"
                seen = len(rows)
                for r in rows:
                    json.loads(r[1])
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            """
        let pid = try #require(Self.spawnPython(["-c", script, dir.file()]))
        for i in 0..<300 { try store.append(fix(i), to: "parent") }
        #expect(Self.wait(pid) == 0)
        try store.check()
        #expect(try store.journal(of: "parent").entries.count == 300)
        let child = try store.journal(of: "child").entries
        #expect(child.count == 300)
        #expect(same(child.last ?? .lap(t: 0), .input(.fix(Fix(t: 1.7e9 + 299, lat: 47, lon: 8)))))
    }

    /// The store's row checksum (see `Checksum` in RunwayStore) in Python, for writers of other
    /// programs: a type tag per value, then its bytes.
    static let pythonChecksum = """
        def runway_fnv(*values):
            h = 0xcbf29ce484222325
            def add(data):
                nonlocal h
                for b in data:
                    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
            for v in values:
                if v is None: add(b"\\0")
                elif isinstance(v, int): add(b"\\1" + struct.pack("<q", v))
                elif isinstance(v, float): add(b"\\2" + struct.pack("<d", 0.0 if v == 0 else v))
                else:
                    data = v.encode() if isinstance(v, str) else bytes(v)
                    add((b"\\3" if isinstance(v, str) else b"\\4") + struct.pack("<Q", len(data)) + data)
            return struct.unpack("<q", struct.pack("<Q", h))[0]
        """

    static func spawnPython(_ args: [String]) -> pid_t? {
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = (["python3"] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let rc = posix_spawnp(&pid, "python3", nil, nil, &argv, environ)
        return rc == 0 ? pid : nil
    }

    /// The child's exit status, or -1 when it did not exit normally.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }

    static func python(_ args: [String]) -> Int32 {
        guard let pid = spawnPython(args) else { return -1 }
        return wait(pid)
    }
}

/// Runs `body(0..<count)` on `count` POSIX threads released together (they wait at a gate until
/// every one is created), and returns the non-nil results.
func onThreadsAtOnce(_ count: Int, _ body: @escaping @Sendable (Int) -> String?) -> [String] {
    // The mutex and condition live at fixed addresses (allocated), as pthreads require.
    final class Shared: @unchecked Sendable {  // `open` and `out` are guarded by `lock`
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let gate = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var open = false
        var out: [String] = []
        let body: @Sendable (Int) -> String?
        init(_ body: @escaping @Sendable (Int) -> String?) {
            self.body = body
            pthread_mutex_init(lock, nil)
            pthread_cond_init(gate, nil)
        }
        deinit {
            pthread_cond_destroy(gate); pthread_mutex_destroy(lock)
            gate.deallocate(); lock.deallocate()
        }
    }
    final class Job { let shared: Shared; let index: Int; init(_ s: Shared, _ i: Int) { shared = s; index = i } }
    let shared = Shared(body)
    var ids: [pthread_t] = []
    var failure: String? = nil
    for i in 0..<count {
        var id = pthread_t()
        let job = Unmanaged.passRetained(Job(shared, i)).toOpaque()
        let rc = pthread_create(&id, nil, { raw in
            guard let raw else { return nil }
            let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
            let shared = job.shared
            pthread_mutex_lock(shared.lock)
            while !shared.open { pthread_cond_wait(shared.gate, shared.lock) }
            pthread_mutex_unlock(shared.lock)
            if let failure = shared.body(job.index) {
                pthread_mutex_lock(shared.lock)
                shared.out.append(failure)
                pthread_mutex_unlock(shared.lock)
            }
            return nil
        }, job)
        guard rc == 0 else {
            Unmanaged<Job>.fromOpaque(job).release()
            failure = "pthread_create failed: \(rc)"
            break
        }
        ids.append(id)
    }
    pthread_mutex_lock(shared.lock)
    shared.open = true
    pthread_cond_broadcast(shared.gate)
    pthread_mutex_unlock(shared.lock)
    for id in ids { pthread_join(id, nil) }
    return shared.out + (failure.map { [$0] } ?? [])
}
