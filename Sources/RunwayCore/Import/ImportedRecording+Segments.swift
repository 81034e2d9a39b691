/// A GPX or TCX file's segments as the recording's pauses.
///
/// GPX 1.1 starts a new `trkseg` "where GPS reception was lost, or the GPS receiver was turned
/// off", and readers (gpxpy) measure each segment on its own; Garmin's TCX starts a new `Track`
/// inside a `Lap` each time the timer is stopped and started. So where the inputs pass from one
/// segment to the next, the replay pauses at the latest time before the break and resumes at the
/// first input after it: the line across the break is no distance and the time across it is not
/// timed, as on the device. A file with a single segment has no break and replays as the inputs
/// alone.
extension ImportedRecording {
    /// Where the segment changes between two consecutive inputs.
    struct SegmentBreak: Equatable {
        /// The first input after the break.
        var beforeInput: Int
        /// The latest time of the inputs before the break, and the time of the first after it.
        var lastT: Double, nextT: Double
        /// The segments on either side (the reader's numbers).
        var from: Int, to: Int

        /// Seconds between the segments (0 or less: the next starts at the same time or earlier).
        var gapS: Double { nextT - lastT }
    }

    /// The breaks between consecutive inputs of different segments, `segments[k]` being input
    /// k's (empty when the counts differ). A segment with no timed input (empty, or all its
    /// points without a time) makes no break of its own: the break is between the inputs around it.
    func segmentBreaks(_ segments: [Int]) -> [SegmentBreak] {
        guard segments.count == inputs.count else { return [] }
        var breaks: [SegmentBreak] = []
        var latest = -Double.infinity
        for k in inputs.indices {
            let t = inputs[k].t
            if k > 0, segments[k] != segments[k - 1] {
                breaks.append(SegmentBreak(beforeInput: k, lastT: latest, nextT: t, from: segments[k - 1], to: segments[k]))
            }
            if t > latest { latest = t }
        }
        return breaks
    }

    /// Sets `timer` to a pause and its resume at each of `breaks`, both written before the input
    /// after the break: the pause at the latest time before it (after the input of that second),
    /// the resume at the next input's time. A break whose next segment starts at the same time or
    /// earlier has nothing to pause over: the segments join, as one, and a warning counts them
    /// (`what` names the segments: `"trkseg"`, `"Track"`). A break at a time no input may have
    /// (out of range) is left alone: the inputs on either side are refused anyway. The report's
    /// `pauses` counts the pauses, its `inputs` the pause and resume lines too.
    mutating func pause(at breaks: [SegmentBreak], what: String) {
        timer = []
        var joined = 0
        for b in breaks {
            guard (try? ValidatedInput.time(b.lastT)) != nil, (try? ValidatedInput.time(b.nextT)) != nil else { continue }
            guard b.gapS > 0 else { joined += 1; continue }
            timer.append(TimerChange(command: .pause, t: b.lastT, beforeInput: b.beforeInput))
            timer.append(TimerChange(command: .resume, t: b.nextT, beforeInput: b.beforeInput))
        }
        if joined > 0 {
            let s = joined == 1 ? "" : "s"
            report.warnings.append("\(joined) \(what) break\(s) with no time between (the next \(what) starts at or before the last time of the one before) joined, not paused")
        }
        report.inputs = inputs.count + timer.count
        report.pauses = timer.count / 2
    }

    /// The breaks of a TCX file that are pauses: every `Track` break inside a `Lap` (Garmin
    /// writes a new Track there each time the timer stops and starts again); a break from one
    /// Lap's last Track to the next Lap's first only when the laps' own figures say the timer
    /// stopped there: the laps it leaves span (from the first's `StartTime` to the next's) more
    /// than their `TotalTimeSeconds` and their Track breaks' pauses by over `lapSlackS`, and the
    /// break itself lasts that stopped time (within `lapSlackS`): a timer stopped there records
    /// no point. A lap's timer may leave out time inside a Track too (an engine's auto-pause
    /// among a speed sensor's points, which export as one Track): the break is then shorter than
    /// the time stopped and is no pause. A new Lap by itself is no pause (Garmin starts a new
    /// Track in every Lap, its timer running). A Track outside any Lap (`trackLaps` −1) breaks
    /// as inside one.
    static func tcxPauses(_ breaks: [SegmentBreak], trackLaps: [Int], laps: [ImportReport.DeviceLap]) -> [SegmentBreak] {
        func lap(_ track: Int) -> Int { track >= 0 && track < trackLaps.count ? trackLaps[track] : -1 }
        func crossesLaps(_ b: SegmentBreak) -> Bool {
            let a = lap(b.from), n = lap(b.to)
            return a >= 0 && n >= 0 && a != n
        }
        // Sums over laps 0..<i, so that each Lap break costs the same however many laps it
        // leaves (a file of many laps and Tracks is read in linear time): the laps' timer, how
        // many of them have none, and their Track breaks' pauses.
        var timerBefore = [0.0], untimedBefore = [0], pausedBefore = [0.0]
        var pausedIn = [Double](repeating: 0, count: laps.count)
        for b in breaks where !crossesLaps(b) && b.gapS > 0 {
            let l = lap(b.from)
            if l >= 0 && l < laps.count { pausedIn[l] += b.gapS }
        }
        for (l, totals) in laps.enumerated() {
            let known = totals.timerS.isFinite
            timerBefore.append(timerBefore[l] + (known ? totals.timerS : 0))
            untimedBefore.append(untimedBefore[l] + (known ? 0 : 1))
            pausedBefore.append(pausedBefore[l] + pausedIn[l])
        }
        return breaks.filter { b in
            guard crossesLaps(b) else { return true }
            let a = lap(b.from), n = lap(b.to)
            guard a < n, n < laps.count, untimedBefore[n] == untimedBefore[a] else { return false }
            let spanS = laps[n].startT - laps[a].startT
            let stoppedS = spanS - (timerBefore[n] - timerBefore[a]) - (pausedBefore[n] - pausedBefore[a])
            return stoppedS.isFinite && stoppedS > lapSlackS && b.gapS + lapSlackS >= stoppedS
        }
    }

    /// How much longer than their timer and their Tracks' pauses the laps before a Lap break must
    /// span, and the break itself last, for the break to be a pause: Garmin writes a Lap's
    /// `StartTime` to the whole second, so two of them are up to 1 s off their difference.
    static let lapSlackS = 2.0
}
