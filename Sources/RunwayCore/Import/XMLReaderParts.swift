/// What the XML readers (`GPXReader`, `TCXReader`) keep as they read, alike: the root element,
/// the open elements, a stack of open points (or laps) as plain values, the texts those points
/// refer to, and the first number of each kind in an extension block.
///
/// Opening and closing an element or a point does no reference counting and no array
/// bookkeeping: the stacks are allocated once, with room for as many elements as `XMLStream`
/// opens (`maxDepth`), and hold trivial values; a point's texts (an error, a time that is not a
/// time) go in `PointNotes`, which only a point with such a text touches.

/// A stack of trivial values with room for `XMLStream.maxDepth`, allocated once.
///
/// `Element` must be a trivial value (no reference inside: no `String`, no `Array`; `_isPOD`):
/// the owner frees the memory with `deallocate()` without deinitialising what it holds, so a
/// reference would leak silently. A test checks each reader's elements
/// (`theGPXReadersOpenPointsAndElementsAreTrivialValues`,
/// `theTCXReadersOpenPointsLapsAndElementsAreTrivialValues`).
struct OpenStack<Element> {
    let base: UnsafeMutablePointer<Element>
    private(set) var count = 0

    init() { base = .allocate(capacity: XMLStream.maxDepth) }

    /// Frees the room (from the owner's `deinit`), without deinitialising the values.
    func deallocate() { base.deallocate() }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count >= XMLStream.maxDepth }

    /// The innermost value, or nil.
    var last: UnsafeMutablePointer<Element>? { count > 0 ? base + (count - 1) : nil }

    /// The value at `k` (`0..<count`, outermost first).
    subscript(k: Int) -> Element {
        unsafeAddress { UnsafePointer(base + k) }
        nonmutating unsafeMutableAddress { base + k }
    }

    /// Pushes `e`; false, with nothing written, when the room is full (`XMLStream` opens fewer
    /// elements than that, so it is not; the count is checked anyway, whatever the document).
    @discardableResult
    mutating func push(_ e: Element) -> Bool {
        guard count < XMLStream.maxDepth else { return false }
        (base + count).initialize(to: e)
        count += 1
        return true
    }

    /// Removes the innermost value and returns where it is (valid until the next `push`), or nil.
    mutating func pop() -> UnsafeMutablePointer<Element>? {
        guard count > 0 else { return nil }
        count -= 1
        return base + count
    }
}

/// The open elements below the root, innermost last, each with its `seq` (the order of the
/// elements' starts, from 1: which of two values came first in the document).
struct OpenElements<Name> {
    private(set) var stack = OpenStack<(name: Name, seq: Int)>()
    private(set) var seq = 0

    func deallocate() { stack.deallocate() }

    /// An element starts; false (not opened) when the room is full (see `OpenStack.push`).
    mutating func open(_ name: Name) -> Bool {
        guard !stack.isFull else { return false }
        seq += 1
        stack.push((name, seq))
        return true
    }

    /// The innermost element ends: its name and `seq`, or nil when none is open.
    mutating func close() -> (name: Name, seq: Int)? { stack.pop()?.pointee }
}

/// The texts of the open points (errors, times that are not times...), which the points refer to
/// by index, so the points stay trivial values. In the order they came: an inner point's after
/// its outer one's, so a point's go when it ends (`drop(from:)` its `mark` at its start).
struct PointNotes {
    private var texts: [String] = []

    /// Where the next text goes: a point's texts are the ones from its start's `mark`.
    var mark: Int { texts.count }

    /// Keeps `text`; its index.
    mutating func add(_ text: String) -> Int {
        texts.append(text)
        return texts.count - 1
    }

    subscript(k: Int) -> String { texts[k] }

    /// Drops the texts from `mark` on (a point's, when it ends).
    mutating func drop(from mark: Int) {
        if texts.count > mark { texts.removeSubrange(mark...) }
    }
}

/// The root element: its name, and whether it is the one the reader reads (asked at every
/// element).
struct XMLRoot {
    let expected: StaticString
    private(set) var name: String? = nil
    private(set) var matches = false

    init(_ expected: StaticString) { self.expected = expected }

    mutating func see(_ n: XMLName) {
        name = n.string
        matches = n == expected
    }

    /// - Throws: `.input` when the root element is not the expected one.
    func check(_ what: String) throws(RunwayError) {
        guard matches else {
            throw .input("not a \(what) file: the root element is <\((name ?? "").prefix(40))>, expected <\(expected)>")
        }
    }
}

/// For each of up to eight values (slots), the first number in document order (`seq`: its
/// element's start) among the elements offered: what an extension block gives, in whatever
/// order and namespace its elements come.
struct FirstNumbers {
    var values = SIMD8<Double>(repeating: .nan)
    var seqs = SIMD8<Int>(repeating: .max)

    /// The text of the element started `seq`-th, for `slot` (none: -1). Read as a number only
    /// when it could be the slot's first.
    @inline(__always)
    mutating func offer(_ slot: Int, _ text: UnsafeBufferPointer<UInt8>?, seq: Int) {
        guard slot >= 0, slot < 8, seq < seqs[slot], let v = RecordedText.number(bytes: text) else { return }
        values[slot] = v
        seqs[slot] = seq
    }
}
