import RunwayCore

/// The `.batched` mode's buffer: entries wait for their commit about a second.
extension FlightStore {
    /// Commits the batched entries if a second has passed since the first of them.
    ///
    /// A session calls it from its 1 s tick, so entries do not wait for the next input to be
    /// committed. A no-op for `.everyFix` stores and when nothing is buffered.
    public func commitIfDue() throws(RunwayError) {
        guard commitDue() else { return }
        try commitPending()
    }

    /// Whether entries are buffered and a second has passed since the first of them.
    func commitDue() -> Bool {
        guard !pending.isEmpty else { return false }
        let now = clock()
        return now >= pendingSince && now - pendingSince >= Self.batchWindowNanoseconds
    }

    /// Commits the batched entries now (a no-op for `.everyFix` and when nothing is buffered).
    public func flush() throws(RunwayError) {
        try commitPending()
    }

    /// Commits the batched entries in one transaction. Entries of flights that vanished or were
    /// finished meanwhile (by another process) are dropped and reported after the commit.
    ///
    /// - Parameter refusingLastOnFailure: when the commit fails, the last entry (the one being
    ///   appended) leaves the buffer, the others stay.
    func commitPending(refusingLastOnFailure: Bool = false) throws(RunwayError) {
        guard !pending.isEmpty else { return }
        let db = try connection()
        let count = pending.count
        var dropped: [String] = []
        do throws(RunwayError) {
            try db.exec("BEGIN IMMEDIATE", "starting a batch of \(count) entries")
            for (id, row) in pending {
                if try !insert(row, into: id, db) { dropped.append(id) }
            }
            try db.exec("COMMIT", "committing a batch of \(count) entries")
        } catch {
            db.rollbackQuietly()
            guard refusingLastOnFailure else {
                throw RunwayError(error.status, "\(error.message); the \(count) batched entries stay buffered for the next append, flush or close")
            }
            pending.removeLast()
            throw RunwayError(error.status, "\(error.message); this entry is not journaled, the \(count - 1) batched before it stay buffered for the next append, flush or close")
        }
        pending.removeAll(keepingCapacity: true)
        guard let first = dropped.first else { return }
        for id in dropped { openFlights.remove(id) }
        let why = try closedFlightError(first, db)
        throw RunwayError(why.status, "\(dropped.count) batched entries were dropped: \(why.message)")
    }
}
