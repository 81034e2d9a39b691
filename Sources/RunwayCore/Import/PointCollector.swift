/// Where the XML readers put each point's inputs as its element ends, in document order of the
/// points' starts, and the first point's error.
///
/// A point inside another (an odd file) ends before the one around it: the inputs of nested
/// points wait until the outermost one ends and are then put in order of their index.
///
///     var c = PointCollector()
///     c.add(2, [inner], nested: true)   // a trkpt inside trkpt 1
///     c.add(1, [outer], nested: false)
///     c.flush()                         // c.inputs == [outer, inner]
struct PointCollector {
    var inputs: [Input] = []
    private var pending: [(index: Int, inputs: [Input])] = []
    /// The error of the point with the lowest index (the first a reader in order would meet).
    private(set) var error: (index: Int, message: String)? = nil

    /// - Parameter bytes: the file's size: a point takes 60 bytes of XML or more, so room for
    ///   one input every 100 bytes spares most of the array's regrowth.
    init(bytes: Int = 0) { inputs.reserveCapacity(max(256, min(bytes / 100, 1 << 20))) }

    mutating func add(_ index: Int, _ new: [Input], nested: Bool) {
        if nested || !pending.isEmpty {
            pending.append((index, new))
        } else {
            inputs.append(contentsOf: new)
        }
    }

    mutating func add(_ index: Int, _ one: Input, nested: Bool) {
        if nested || !pending.isEmpty {
            pending.append((index, [one]))
        } else {
            inputs.append(one)
        }
    }

    /// Puts the waiting inputs in order (when the outermost point ended).
    mutating func flush() {
        guard !pending.isEmpty else { return }
        for p in pending.sorted(by: { $0.index < $1.index }) { inputs.append(contentsOf: p.inputs) }
        pending.removeAll()
    }

    mutating func fail(_ index: Int, _ message: String) {
        if let e = error, e.index <= index { return }
        error = (index, message)
    }
}
