import Testing
import Glibc
import RunwayCore
import RunwayStore
import RunwaySim

/// What another connection (as another process, or the same process after a crash) can read is
/// what is committed: these tests read through a second store on the same file.
@Suite("Durability") struct DurabilityTests {
    @Test func everyFixEntryIsCommittedWhenAppendReturns() throws {
        let dir = TempDir()
        let writer = try FlightStore(path: dir.file(), durability: .everyFix)
        let reader = try FlightStore(path: dir.file())
        try writer.createFlight(id: "f", configJSON: "{}")
        for i in 0..<25 {
            try writer.append(fix(i), to: "f")
            #expect(try reader.journal(of: "f").entries.count == i + 1)
        }
    }

    @Test func everyStoreSyncsEachCommitOfItsWriteAheadLog() throws {
        let dir = TempDir()
        for durability in Durability.allCases {
            let store = try FlightStore(path: dir.file(), durability: durability)
            #expect(try store.pragma("journal_mode") == "wal")
            #expect(try store.pragma("synchronous") == "2")  // FULL: the WAL is synced at each commit
            #expect(try store.pragma("busy_timeout") == "5000")
            #expect(try store.pragma("foreign_keys") == "1")
        }
        let store = try FlightStore(path: dir.file())
        #expect(thrown { try store.pragma("synchronous = OFF") }?.status == .argument)
        #expect(try store.pragma("synchronous") == "2")
    }

    @Test func batchedEntriesWaitForASecondOfTheStoresClock() throws {
        let dir = TempDir()
        let clock = ManualClock()
        let writer = try FlightStore(path: dir.file(), durability: .batched, clock: clock.read)
        let reader = try FlightStore(path: dir.file())
        try writer.createFlight(id: "f", configJSON: "{}")
        try writer.append(fix(0), to: "f")
        clock.advance(seconds: 0.5)
        try writer.append(fix(1), to: "f")
        clock.advance(seconds: 0.499)
        try writer.append(fix(2), to: "f")
        try writer.commitIfDue()
        #expect(try reader.journal(of: "f").entries.isEmpty)
        clock.advance(seconds: 0.001)  // one second since the first uncommitted entry
        try writer.append(fix(3), to: "f")
        #expect(try reader.journal(of: "f").entries.count == 4)
        // The window restarts at the next entry, and the tick commits without a new input.
        clock.advance(seconds: 5)
        try writer.append(fix(4), to: "f")
        clock.advance(seconds: 0.9)
        try writer.commitIfDue()
        #expect(try reader.journal(of: "f").entries.count == 4)
        clock.advance(seconds: 0.1)
        try writer.commitIfDue()
        #expect(try reader.journal(of: "f").entries.count == 5)
    }

    @Test func batchedEntriesAreCommittedByFlushAndClose() throws {
        let dir = TempDir()
        let clock = ManualClock()
        let writer = try FlightStore(path: dir.file(), durability: .batched, clock: clock.read)
        let reader = try FlightStore(path: dir.file())
        try writer.createFlight(id: "f", configJSON: "{}")
        try writer.append(fix(0), to: "f")
        #expect(try reader.journal(of: "f").entries.isEmpty)
        try writer.flush()
        #expect(try reader.journal(of: "f").entries.count == 1)
        try writer.append(fix(1), to: "f")
        try writer.append(.command(.stop, t: .nan), to: "f")
        writer.close()
        #expect(sameEntries(try reader.journal(of: "f").entries, [fix(0), fix(1), .command(.stop, t: .nan)]))
    }

    @Test func aBatchedWriterReadsItsOwnBufferedEntries() throws {
        let dir = TempDir()
        let clock = ManualClock()
        let store = try FlightStore(path: dir.file(), durability: .batched, clock: clock.read)
        try store.createFlight(id: "f", configJSON: "{}")
        try store.append(fix(0), to: "f")
        #expect(try store.journal(of: "f").entries.count == 1)
        #expect(try store.flights().first?.entries == 1)
    }

    @Test func aBufferedBatchHoldsNoLockOnTheFile() throws {
        // Entries wait in memory, not in an open transaction: another writer is not held up.
        let dir = TempDir()
        let clock = ManualClock()
        let batched = try FlightStore(path: dir.file(), durability: .batched, clock: clock.read)
        try batched.createFlight(id: "a", configJSON: "{}")
        try batched.append(fix(0), to: "a")
        let other = try FlightStore(path: dir.file())
        try other.createFlight(id: "b", configJSON: "{}")
        try other.append(fix(0), to: "b")
        #expect(RawDB(dir.file()).exec("BEGIN IMMEDIATE; COMMIT") == nil)
    }

    @Test func batchedEntriesOfAFlightFinishedElsewhereAreDroppedAndReported() throws {
        let dir = TempDir()
        let clock = ManualClock()
        let batched = try FlightStore(path: dir.file(), durability: .batched, clock: clock.read)
        try batched.createFlight(id: "a", configJSON: "{}")
        try batched.createFlight(id: "b", configJSON: "{}")
        try batched.append(fix(0), to: "a")
        try batched.append(fix(0), to: "b")
        try FlightStore(path: dir.file()).delete(id: "a")
        let e = thrown { try batched.flush() }
        #expect(e?.status == .notFound)
        #expect(e?.message.contains("1 batched entries were dropped") == true)
        #expect(try batched.journal(of: "b").entries.count == 1)
        #expect(thrown { try batched.append(fix(1), to: "a") }?.status == .notFound)
    }

    /// Informal figures, not assertions: `RUNWAY_STORE_BENCH=1 swift test --filter appendRate`.
    @Test(.enabled(if: getenv("RUNWAY_STORE_BENCH") != nil))
    func appendRate() throws {
        let dir = TempDir()
        for durability in Durability.allCases {
            let store = try FlightStore(path: dir.file("\(durability).db"), durability: durability)
            try store.createFlight(id: "f", configJSON: "{}")
            let n = durability == .everyFix ? 2000 : 50_000
            let t0 = FlightStore.monotonicNanoseconds()
            for i in 0..<n { try store.append(fix(i), to: "f") }
            try store.flush()
            let s = Double(FlightStore.monotonicNanoseconds() - t0) / 1e9
            print("\(durability.rawValue): \(n) appends in \(s) s = \(Int(Double(n) / s)) appends/s, \(s / Double(n) * 1e6) µs each")
        }
    }
}
