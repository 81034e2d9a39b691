import RunwayCore
import RunwayStore

/// Stored flights: recovery, finishing, history — all by replaying journals through the
/// deterministic core, so a recovered flight is exactly what the live one was.
extension Session {
    /// A flight's figures for the store's listing.
    static func row(of core: FlightComputer, id: String) -> FlightRow {
        let r = core.record
        return FlightRow(id: id, startT: r.startT, endT: r.endT, endReason: r.endReason,
                         activity: r.activity.rawValue, distanceM: r.distanceM, elapsedS: r.elapsedS,
                         movingS: r.movingS, avgPaceMinPerKm: r.avgPaceMinPerKm,
                         finished: r.phase == .touchdown, entries: 0)
    }

    /// The core as the journal left it. Only what the core accepted live was journaled, so
    /// it refuses nothing unless the config or the engine differs from the recording (a
    /// smaller `max_route_points`, another build) or the store was edited by hand: such
    /// entries are skipped, and a `warning` log line counts them.
    static func replay(_ entries: [JournalEntry], config: EngineConfig, id: String) -> FlightComputer {
        var driver = FlightDriver(config: config)
        driver.core.flightID = id
        driver.core.emitsSnapshots = false   // nobody reads a replay's events
        let result = driver.replay(entries)
        var core = driver.core
        var events: [Event] = []
        if let first = result.first { core.logReplayRefusals(result.refused, of: entries.count, first: first, events: &events) }
        return core
    }

    /// Reads a stored flight and replays it (with its own config unless one is given).
    static func load(_ store: FlightStore, id: String, configText: String? = nil) throws(RunwayError) -> (FlightComputer, EngineConfig) {
        let (stored, entries) = try store.journal(of: id)
        // An empty config is no config, as NULL: the flight's own (not the defaults).
        let configText = configText?.isEmpty == true ? nil : configText
        var config: EngineConfig
        do {
            if let configText { config = try EngineConfig.parse(configText, for: .recover) } else { config = try EngineConfig.parse(stored, for: .stored) }
        } catch {
            throw RunwayError(configText == nil ? .store : .argument, "flight \"\(id)\": \(error.message)")
        }
        config.storePath = store.path
        config.flightID = id
        return (replay(entries, config: config, id: id), config)
    }

    /// Continues an unfinished stored flight.
    static func recover(storePath: String, id: String, configText: String?) throws(RunwayError) -> Session {
        try requireExistingStore(storePath)
        let lease = try FlightLease(storePath: storePath, flightID: id)
        let probe = try FlightStore(path: storePath)
        defer { probe.close() }
        if try probe.record(of: id) != nil {   // one row read: finished flights have a record
            throw RunwayError(.state, "flight \"\(id)\" is finished; read it with runway_flight_json")
        }
        let (core, config) = try load(probe, id: id, configText: configText)
        let store = try FlightStore(path: storePath, durability: Durability(rawValue: config.durability) ?? .everyFix)
        // A store that cannot take the next entry (a read-only file, a full disk) is refused now,
        // not at the first input after an OK.
        try store.checkWritable()
        // Its stop was journaled but its record not written (the host died between the two):
        // it is finished now, as the stop would have finished it.
        if core.phase == .touchdown { try store.finish(id: id, row: row(of: core, id: id), recordJSON: core.summaryJSON()) }
        return Session(core: core, store: store, flightID: id, lease: lease)
    }

    /// Finishes an unfinished stored flight as touchdown, "recovered".
    static func finishRecovered(storePath: String, id: String) throws(RunwayError) {
        try requireExistingStore(storePath)
        let lease = try FlightLease(storePath: storePath, flightID: id)
        defer { lease.release() }
        let store = try FlightStore(path: storePath)
        defer { store.close() }
        if try store.record(of: id) != nil {
            throw RunwayError(.state, "flight \"\(id)\" is already finished")
        }
        var (core, _) = try load(store, id: id)
        let wasFlying = core.phase == .cruise || core.phase == .holding
        var events: [Event] = []
        // The stop is journaled with the record, in one transaction: a finish that fails leaves
        // the flight as it was. (A flight whose stop was journaled but not its record, its host
        // dead between the two, landed as its user stopped it.)
        let stop: JournalEntry? = wasFlying ? .command(.stop, t: core.now) : nil
        if core.phase != .touchdown { core.land(reason: "recovered", events: &events) }
        try store.finish(id: id, row: row(of: core, id: id), recordJSON: core.summaryJSON(), journaling: stop)
    }

    /// The store's flights as JSON; unfinished ones get their figures by replay.
    static func flightsJSON(storePath: String) throws(RunwayError) -> [UInt8] {
        try requireExistingStore(storePath)
        let store = try FlightStore(path: storePath)
        defer { store.close() }
        var w = JSONWriter()
        w.beginArray()
        for stored in try store.flights() {
            var row = stored
            if !row.finished && row.damage == nil {
                do throws(RunwayError) {
                    let (core, _) = try load(store, id: row.id)
                    row = Session.row(of: core, id: row.id)
                    row.finished = false
                    row.endReason = nil
                } catch where store.isDamage(error) {
                    row = .damaged(id: row.id, error.message)
                } catch where error.status == .notFound {
                    continue   // deleted by another process since the list was read
                }
            }
            // A damaged flight does not hide the others: listed by id, with why, every figure null
            // (its row's figures are NaN, so they write as null).
            let damaged = row.damage != nil
            w.beginObject()
            w.field("flight_id", row.id)
            w.field("start_t", row.startT)
            w.field("end_t", row.endT)
            w.key("end_reason"); if let r = row.endReason { w.string(r) } else { w.null() }
            w.key("finished"); if damaged { w.null() } else { w.bool(row.finished) }
            w.key("activity"); if damaged { w.null() } else { w.string(row.activity) }
            w.field("distance_m", row.distanceM)
            w.field("elapsed_s", row.elapsedS)
            w.field("moving_s", row.movingS)
            w.field("avg_pace_min_per_km", row.avgPaceMinPerKm)
            w.key("damaged"); w.bool(damaged)
            if let damage = row.damage { w.field("error", damage) }
            w.endObject()
        }
        w.endArray()
        return w.finishCString()
    }

    /// One stored flight's summary with laps and route.
    static func flightJSON(storePath: String, id: String) throws(RunwayError) -> [UInt8] {
        try requireExistingStore(storePath)
        let store = try FlightStore(path: storePath)
        defer { store.close() }
        if let record = try store.record(of: id) {
            return Array(record.utf8) + [0]
        }
        let (core, _) = try load(store, id: id)
        var w = JSONWriter()
        core.writeSummary(to: &w)
        return w.finishCString()
    }

    static func deleteFlight(storePath: String, id: String) throws(RunwayError) {
        try requireExistingStore(storePath)
        let lease = try FlightLease(storePath: storePath, flightID: id)
        defer { lease.release() }
        let store = try FlightStore(path: storePath)
        defer { store.close() }
        try store.delete(id: id)
    }

    /// A stored flight as a record for export (its stored end reason kept).
    static func storedRecord(storePath: String, id: String) throws(RunwayError) -> FlightRecord {
        try requireExistingStore(storePath)
        let store = try FlightStore(path: storePath)
        defer { store.close() }
        let (core, _) = try load(store, id: id)
        var record = core.record
        if let reason = try store.endReason(of: id) { record.endReason = reason }
        return record
    }

    /// The record of the live flight.
    func record() -> FlightRecord { coreCopy().record }
}
