/// The highest value of one sensor (heart rate, cadence) in the lap in progress, as
/// `SensorStats` counts its maxima (a sample taken in counted time, a value held through counted
/// time), for the lap that ends at a time before now too (a lap cut after its end: a manual lap
/// that waited for the step it falls in, an auto lap a gap's or a hold's credit cut).
///
/// It keeps what counted since the last lap's end as runs of one value, each with the span it
/// counted over (a sample: its instant); consecutive counts of the same value extend one run, so
/// a steady sensor keeps one. A lap ending at `t` takes the runs that began at or before `t`; the
/// runs that go on after `t` (a value held across the lap's start) stay for the next lap.
///
///     var p = LapPeak()
///     p.count(150, from: 10, to: 10)   // a sample at 10 s
///     p.count(150, from: 10, to: 14)   // held to 14 s: the same run
///     p.count(162, from: 20, to: 20)
///     p.endLap(at: 15)                 // 150; the 162 at 20 s is the next lap's
struct LapPeak: Sendable {
    struct Run: Sendable {
        var from: Double, to: Double, value: Double
    }

    private var runs: [Run] = []
    /// The largest value of the runs a full log forgot (its oldest half): the lap in progress
    /// takes it whatever its end (a cut that far back is cut as if after them).
    private var forgotten = Double.nan
    /// The most runs kept (about 17 min of a 1 Hz sensor whose every sample differs).
    static let maxRuns = 1024

    /// A value that counted from `from` to `to` (a sample: `from == to`).
    @inline(__always)
    mutating func count(_ value: Double, from: Double, to: Double) {
        if let last = runs.last, last.value == value, !(last.to < from) {
            if to > last.to { runs[runs.count - 1].to = to }
            return
        }
        add(Run(from: from, to: to, value: value))
    }

    private mutating func add(_ run: Run) {
        if runs.count >= Self.maxRuns {
            let n = Self.maxRuns / 2
            for r in runs[..<n] where !(r.value <= forgotten) { forgotten = r.value }
            runs.removeFirst(n)
        }
        runs.append(run)
    }

    /// Ends the lap at `t`: the largest value that counted at or before `t` (NaN when none; all
    /// that counted when `t` is NaN). The runs that go on after `t` stay for the next lap.
    mutating func endLap(at t: Double) -> Double {
        var peak = forgotten, kept = 0
        for r in runs {
            if !(r.from > t), !(r.value <= peak) { peak = r.value }
            if r.to > t {
                runs[kept] = r
                kept += 1
            }
        }
        runs.removeLast(runs.count - kept)
        forgotten = .nan
        return peak
    }
}
