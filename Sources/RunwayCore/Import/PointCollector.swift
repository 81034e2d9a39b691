/// Where the XML readers put each point's inputs as its element ends, in document order of the
/// points' starts, with the segment each came from (GPX `trkseg`, TCX `Track`), and the first
/// point's error.
///
/// A point inside another (an odd file) ends before the one around it: the inputs of nested
/// points wait until the outermost one ends and are then put in order of their index.
///
///     var c = PointCollector()
///     c.add(2, inner, segment: 0, nested: true)   // a trkpt inside trkpt 1
///     c.add(1, outer, segment: 0, nested: false)
///     c.flush()                                     // c.inputs == [outer, inner]
struct PointCollector {
    var inputs: [Input] = []
    /// The segment of each input (`segments[k]` is input k's), as the reader numbers them.
    var segments: [Int] = []
    private var pending: [(index: Int, segment: Int, inputs: [Input])] = []
    /// The error of the point with the lowest index (the first a reader in order would meet).
    private(set) var error: (index: Int, message: String)? = nil
    /// The points that had an error (each left out).
    private(set) var failures = 0
    /// Whether a point's error leaves the point out (`ImportOptions.salvage`) rather than refusing
    /// the file.
    let salvage: Bool

    /// - Parameters:
    ///   - bytes: the file's size: a point takes 60 bytes of XML or more, so room for one input
    ///     every 100 bytes spares most of the array's regrowth.
    ///   - salvage: `ImportOptions.salvage`.
    init(bytes: Int = 0, salvage: Bool = false) {
        self.salvage = salvage
        let capacity = max(256, min(bytes / 100, 1 << 20))
        inputs.reserveCapacity(capacity)
        segments.reserveCapacity(capacity)
    }

    /// A point's inputs (a TCX trackpoint's samples, from the caller's stack): copied into an
    /// array only when they must wait.
    mutating func add(_ index: Int, _ new: UnsafeBufferPointer<Input>, segment: Int, nested: Bool) {
        if nested || !pending.isEmpty {
            pending.append((index, segment, Array(new)))
        } else {
            inputs.append(contentsOf: new)
            segments.append(contentsOf: repeatElement(segment, count: new.count))
        }
    }

    mutating func add(_ index: Int, _ one: Input, segment: Int, nested: Bool) {
        if nested || !pending.isEmpty {
            pending.append((index, segment, [one]))
        } else {
            inputs.append(one)
            segments.append(segment)
        }
    }

    /// Puts the waiting inputs in order (when the outermost point ended).
    mutating func flush() {
        guard !pending.isEmpty else { return }
        for p in pending.sorted(by: { $0.index < $1.index }) {
            inputs.append(contentsOf: p.inputs)
            segments.append(contentsOf: repeatElement(p.segment, count: p.inputs.count))
        }
        pending.removeAll()
    }

    mutating func fail(_ index: Int, _ message: String) {
        failures += 1
        if let e = error, e.index <= index { return }
        error = (index, message)
    }

    /// Ends the reading (before the reader takes `inputs`): puts the waiting inputs in order, then
    /// refuses the file with its first point's error, or, with `salvage`, counts the points that
    /// had one as `unreadable` with a warning naming the first, and puts the document's damage
    /// (`XMLStream.parse`'s, if any) first in the warnings with the number of inputs kept, as
    /// `FITReader` does. The points open at the damage never ended: they are left out uncounted.
    mutating func close(damage: String?, into report: inout ImportReport) throws(RunwayError) {
        flush()
        if let error {
            guard salvage else { throw .input(error.message) }
            report.unreadable += failures
            report.warnings.append("\(failures) point\(failures == 1 ? "" : "s") could not be read and \(failures == 1 ? "was" : "were") left out (salvage); the first: \(error.message)")
        }
        if let damage {
            report.warnings.insert(damage + "; kept the \(inputs.count) input\(inputs.count == 1 ? "" : "s") read before it (salvage)", at: 0)
        }
    }
}
