/// How soon an appended entry is safe on disk.
public enum Durability: String, Sendable, CaseIterable {
    /// Each entry is committed (and the WAL synced) before `append` returns.
    case everyFix = "every_fix"
    /// Entries are buffered and committed together once a second has passed since the first
    /// uncommitted one (by a monotonic clock), or on `flush()`, `commitIfDue()` or `close()`.
    /// A crash loses at most the entries of the last second.
    case batched
}

/// One flight in the store's history.
///
/// A finished flight carries the figures it was finished with. An unfinished one (a session that
/// is still running, or one killed mid-run) has NaN figures and no end reason; its `startT` and
/// `endT` are the times of its first and last timed journal entries, and `entries` counts them.
public struct FlightRow: Sendable, Equatable {
    public var id: String
    public var startT: Double
    public var endT: Double
    public var endReason: String?
    public var activity: String
    public var distanceM: Double
    public var elapsedS: Double
    public var movingS: Double
    public var avgPaceMinPerKm: Double
    public var finished: Bool
    /// Journal entries of the flight.
    public var entries: Int
    /// Why this flight cannot be read, when its row (or, in a listing with replay, its journal)
    /// is damaged; nil for an intact flight. A damaged row carries only its id (as read, which may
    /// be damaged too): NaN figures, no end reason or activity, `finished` false, 0 entries.
    public var damage: String?

    public init(id: String, startT: Double, endT: Double, endReason: String?, activity: String,
                distanceM: Double, elapsedS: Double, movingS: Double, avgPaceMinPerKm: Double,
                finished: Bool, entries: Int, damage: String? = nil) {
        self.id = id; self.startT = startT; self.endT = endT; self.endReason = endReason
        self.activity = activity; self.distanceM = distanceM; self.elapsedS = elapsedS
        self.movingS = movingS; self.avgPaceMinPerKm = avgPaceMinPerKm
        self.finished = finished; self.entries = entries; self.damage = damage
    }

    /// The row listed for a flight that cannot be read: its id and why.
    public static func damaged(id: String, _ why: String) -> FlightRow {
        FlightRow(id: id, startT: .nan, endT: .nan, endReason: nil, activity: "", distanceM: .nan,
                  elapsedS: .nan, movingS: .nan, avgPaceMinPerKm: .nan, finished: false, entries: 0, damage: why)
    }
}
