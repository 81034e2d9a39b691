/// A recording's own laps as lap marks among its lines (`setLaps`).
extension ImportedRecording {
    /// Sets `laps` from the device's laps (`report.device.laps`, in the file's order, put in
    /// time order by their starts), after `timer` (see `forEachLine` for a lap at a timer
    /// change's time): a lap mark at the start time of each lap after the earliest, carrying the
    /// trigger of the lap before it in time (the lap it ends), so that the replay
    /// ends each of the device's laps where the device began the next one, and the report's
    /// `auto_lap_m` (0) so that it cuts no laps of its own. A lap start at or before the flight's
    /// start (the start line's time, else the first input's), at or after the latest input's time
    /// (a lap the device began as the recording ended: it would be empty), or not after the one
    /// before, marks nothing: the lap joins the one before it; a lap that began and ended within
    /// one stop of the timer (nothing to lap) joins the one after it. A file with one lap replays as one
    /// lap, the whole flight. When a lap after the file's first has no start time a replay can place
    /// (a FIT lap without `start_time`, or stamped in system time with nothing to place it by), the
    /// laps are not replayed (the session's auto laps then), with a warning; the file's first lap
    /// without one counts as the earliest.
    /// The report's `laps` counts the marks, its `inputs` the lines with them.
    public mutating func setLaps() {
        laps = []
        report.autoLapM = nil
        defer {
            report.laps = laps.count
            report.inputs = inputs.count + timer.count + laps.count
        }
        let deviceLaps = report.device?.laps ?? []
        guard !deviceLaps.isEmpty, let first = inputs.first else { return }
        let starts = deviceLaps.dropFirst().map(\.startT)
        let unplaced = starts.filter { (try? ValidatedInput.time($0)) == nil }.count
        guard unplaced == 0 else {
            report.warnings.append("\(unplaced) of the file's \(deviceLaps.count) laps without a start time: the device's laps are not replayed (auto laps instead)")
            return
        }
        report.autoLapM = 0
        // The laps in time order (the file may store them out of it: a malformed file, a chain),
        // the file's first without a start time first, ties in file order; then each lap's start
        // after the earliest, with the trigger of the lap before it in time: the lap it ends.
        let ordered = deviceLaps.enumerated().map { k, lap in
            (t: k == 0 && (try? ValidatedInput.time(lap.startT)) == nil ? -Double.infinity : lap.startT, k: k, trigger: lap.trigger)
        }.sorted { $0.t < $1.t || ($0.t == $1.t && $0.k < $1.k) }
        let ends = zip(ordered.dropFirst().map(\.t), ordered.dropLast().map(\.trigger))
        let flightStart = startsBeforeItsFirstInput ? timer[0].t : first.t
        let latest = inputs.lazy.map(\.t).reduce(-Double.infinity) { $1 > $0 ? $1 : $0 }
        laps = Self.marks(ends: ends, from: flightStart, before: latest, timer: timer, inputs: inputs)
    }

    /// The lap marks of the lap starts `ends` (in time order, each with the trigger of the lap it
    /// ends): a start later than the one marked before (the first: later than `flightStart`) and
    /// earlier than `latest`, unless the lap it begins with the one before lies within one stop
    /// of the timer, marks the first input at or after it.
    static func marks(ends: some Sequence<(Double, LapTrigger?)>, from flightStart: Double, before latest: Double,
                      timer: [TimerChange], inputs: [Input]) -> [LapMark] {
        var laps: [LapMark] = []
        // The timer's stopped stretches, from each pause to the first resume after it (or to the
        // end): by their starts, as the timer is in time order.
        var stopped: [(from: Double, to: Double)] = []
        var pending: [Double] = []
        for change in timer {
            switch change.command {
            case .pause: pending.append(change.t)
            case .resume:
                for from in pending { stopped.append((from, change.t)) }
                pending.removeAll()
            default: break
            }
        }
        for from in pending { stopped.append((from, .infinity)) }
        // Every lap's start is later than the one before (`previous` only grows), so each scan
        // goes on from where the last one stopped, and the whole is linear in the laps, stops
        // and inputs (when each lap searched them from the first, a FIT file of 50 000 records
        // and 50 000 laps, 1.1 MB, took 2.96 s to import, now 0.10 s; 64 MiB of them, hours):
        // the stretches begun by `previous` (`begun`) and the furthest they reach (`reach`); the
        // first input at or after the lap's start (`k`), in file order as it is, whose index only
        // grows with the start (the inputs later than a later start are fewer).
        var previous = flightStart
        var begun = 0, reach = -Double.infinity, k = 0
        for (t, trigger) in ends where t > previous && t < latest {
            while begun < stopped.count, stopped[begun].from <= previous {
                reach = max(reach, stopped[begun].to)
                begun += 1
            }
            // A lap begun and ended within one stop of the timer has nothing a replay could lap
            // (runway_lap refuses it): it joins the lap after it.
            if t <= reach { continue }
            // The first input at or after the lap's start (there is one: the latest is later).
            while k < inputs.count, !(inputs[k].t >= t) { k += 1 }
            guard k < inputs.count else { break }
            laps.append(LapMark(t: t, beforeInput: k, trigger: trigger))
            previous = t
        }
        return laps
    }
}
