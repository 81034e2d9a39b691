/// Normalised power over a stretch of covered time (the flight's, or one lap's): each covered
/// second's power, its 30 s rolling mean once 30 seconds are in the window, the mean of the
/// fourth powers of those means, and its fourth root (NaN before the 30th covered second).
///
/// Its seconds are whole seconds of the stretch's own covered time, counted from its start; a
/// part of a second at its end is left out. A lap's starts empty, so its figure is over its own
/// samples alone: each rolling mean is of powers the lap covered, and none is above its maximum.
///
///     var np = NormalisedPower()
///     np.add(200, for: 45)   // 45 covered seconds at 200 W
///     np.value               // 200
struct NormalisedPower: Sendable {
    /// The window of the last 30 seconds' powers (a ring) and their sum.
    private var window = [Double](repeating: 0, count: PowerMeter.rollingS)
    private var count = 0, sum = 0.0, head = 0
    /// The sum of the fourth powers of the rolling means, and how many there are.
    private var fourthSum = 0.0, fourthCount = 0
    /// The second in progress: how much of it is covered, and its energy.
    private var secondFraction = 0.0, secondEnergy = 0.0

    /// `w` watts held for `dt` covered seconds.
    mutating func add(_ w: Double, for dt: Double) {
        var left = dt
        while left > 0 {
            let take = min(left, 1 - secondFraction)
            secondEnergy += w * take
            secondFraction += take
            left -= take
            if secondFraction >= 1 - 1e-9 {
                push(secondEnergy / secondFraction)
                secondFraction = 0
                secondEnergy = 0
            }
        }
    }

    private mutating func push(_ w: Double) {
        if count == PowerMeter.rollingS {
            sum -= window[head]
        } else {
            count += 1
        }
        window[head] = w
        sum += w
        head = (head + 1) % PowerMeter.rollingS
        guard count == PowerMeter.rollingS else { return }
        let mean = sum / Double(PowerMeter.rollingS)
        let sq = mean * mean
        fourthSum += sq * sq
        fourthCount += 1
    }

    /// The normalised power; NaN before the 30th covered second.
    var value: Double {
        guard fourthCount > 0 else { return .nan }
        return (fourthSum / Double(fourthCount)).squareRoot().squareRoot()
    }

    /// Starts over, empty (the window's storage kept: a slot is written before it is read).
    mutating func reset() {
        count = 0
        sum = 0
        head = 0
        fourthSum = 0
        fourthCount = 0
        secondFraction = 0
        secondEnergy = 0
    }
}
