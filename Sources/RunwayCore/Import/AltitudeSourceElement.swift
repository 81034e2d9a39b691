/// librunway's own extension element in the GPX and TCX files it writes: where the altitudes come
/// from, which neither format says.
///
///     <gpx … xmlns:runway="https://librunway.dev/xmlschemas/1">
///      <trk><name>…</name><type>running</type><extensions><runway:altitude_source>barometric</runway:altitude_source></extensions>
///
/// In a GPX file it is a child of `gpx/trk/extensions` (GPX 1.1's `extensionsType` takes elements
/// of any other namespace); in a TCX file, of `TrainingCenterDatabase/Activities/Activity/Extensions`
/// (`Activity_t`'s `Extensions`, likewise). Its text is `gps` or `barometric`: where
/// the altitudes the flight's gain was measured on came from (`FlightRecord.altitudeSource`), which
/// the import reports as `altitude_source` (`ImportReport.statedAltitudeSource`) so that a replay
/// treats a barometer's altitudes as a barometer's.
enum AltitudeSourceElement {
    /// The namespace of librunway's extension elements.
    static let namespace: StaticString = "https://librunway.dev/xmlschemas/1"
    /// The element's local name.
    static let name: StaticString = "altitude_source"

    /// Writes the element, `source` its text, with the `runway` prefix (which the exports
    /// declare for `namespace`).
    static func write(_ source: ElevationTracker.Source, to out: inout TextBuffer) {
        out.write("<runway:"); out.write(name); out.write(">")
        out.write(source.rawValue)
        out.write("</runway:"); out.write(name); out.write(">")
    }
}

/// Reads `AltitudeSourceElement` as an `XMLStream` goes, for a reader (`GPXReader`, `TCXReader`):
/// only the element of that local name, in that namespace (its prefix resolved by the namespace
/// declarations on it and its ancestors), as a child of the elements of `path` (local names from
/// the root). Its text, without surrounding white space, is `gps` or `barometric`; anything else
/// is ignored. When two such elements (two GPX tracks) say different things, the file says
/// nothing (`source` nil).
///
/// The reader calls `start` at every element's start (from the root) and `end` at every end; only
/// the elements of the path and their children are looked at, so an element elsewhere costs one
/// comparison.
struct AltitudeSourceReader {
    /// The local names of the element's ancestors, from the root.
    let path: [StaticString]
    /// How many of the open elements, from the root, are those of `path`.
    private var onPath = 0
    /// The namespace declarations on the open elements of the path, in document order: their
    /// depth and prefix (empty: the default namespace); and each prefix's URIs, the innermost
    /// last, so that resolving a prefix costs a lookup, not a scan of every declaration (a GPX
    /// root of 100 000 `xmlns:` attributes over as many `altitude_source` elements took 16.7 s,
    /// now 0.26 s; 64 MiB of them, an hour or more).
    private var declarations: [(depth: Int, prefix: [UInt8])] = []
    private var bindings: [[UInt8]: [[UInt8]]] = [:]
    /// The depth of the open element being read, or -1.
    private var readingDepth = -1
    private var said: ElevationTracker.Source? = nil
    private var disagree = false

    init(path: [StaticString]) { self.path = path }

    /// What the file says (nil: nothing, nothing readable, or two different things).
    var source: ElevationTracker.Source? { disagree ? nil : said }

    /// An element starts: whether it is the one to read (its text is wanted at its end).
    mutating func start(_ n: XMLName, depth: Int, attributes: XMLAttributes) -> Bool {
        guard depth == onPath else { return false }   // (not on the path, or inside an element off it)
        if depth < path.count {
            guard n == path[depth] else { return false }
            onPath = depth + 1
            declare(attributes, depth: depth)
            return false
        }
        guard n == AltitudeSourceElement.name else { return false }
        declare(attributes, depth: depth)
        let ours = resolves(n.prefix, to: AltitudeSourceElement.namespace)
        drop(from: depth)   // (the element's own declarations: nothing inside it is read)
        if ours { readingDepth = depth }
        return ours
    }

    /// The element at `depth` ends, with its text when `start` wanted it.
    mutating func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
        if depth == readingDepth {
            readingDepth = -1
            guard let text, let value = ElevationTracker.Source(rawValue: String(decoding: text, as: UTF8.self)) else { return }
            if let said, said != value { disagree = true }
            said = value
        } else if depth < onPath {
            onPath = depth
            drop(from: depth)
        }
    }

    private mutating func declare(_ attributes: XMLAttributes, depth: Int) {
        attributes.namespaceDeclarations { prefix, uri in
            let prefix = Array(prefix)
            declarations.append((depth, prefix))
            bindings[prefix, default: []].append(Array(uri))
        }
    }

    private mutating func drop(from depth: Int) {
        while let last = declarations.last, last.depth >= depth {
            declarations.removeLast()
            bindings[last.prefix]?.removeLast()
            if bindings[last.prefix]?.isEmpty == true { bindings[last.prefix] = nil }
        }
    }

    /// Whether `prefix` (empty: the default namespace) is bound to `namespace` where the element is.
    private func resolves(_ prefix: UnsafeBufferPointer<UInt8>, to namespace: StaticString) -> Bool {
        guard let binding = bindings[Array(prefix)]?.last else { return false }
        let uri = UnsafeBufferPointer(start: namespace.utf8Start, count: namespace.utf8CodeUnitCount)
        return binding.elementsEqual(uri)
    }
}
