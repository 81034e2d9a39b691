import CExpat
#if canImport(Glibc)
import Glibc
#endif

/// What an `XMLStream` calls as it reads a document: element starts and ends in document order,
/// with the text of the elements the handler asked for.
protocol XMLStreamHandler: AnyObject {
    /// An element starts at `depth` (the root is 0). Returns whether its text is wanted at its end.
    func start(_ name: XMLName, depth: Int, attributes: XMLAttributes) -> Bool
    /// The element that started last and is still open ends; `text` is its character data (its
    /// own, not its children's), without surrounding white space, when `start` asked for it.
    func end(depth: Int, text: UnsafeBufferPointer<UInt8>?)
}

/// Reads an XML document with expat and calls a handler for each element as it goes: no tree is
/// built, and only the text the handler asks for is kept (one buffer, reused: the open elements
/// that want their text hold a stretch of it each, innermost last).
///
/// Safe for untrusted files: a document with a DTD (`<!DOCTYPE …>`) is refused outright, so no
/// entity, internal or external, is ever declared, expanded or loaded; nesting deeper than
/// `maxDepth` is refused; `Importer` limits the size before parsing. Once the document is refused
/// the handler hears nothing more.
///
///     final class Counter: XMLStreamHandler {
///         var points = 0
///         func start(_ name: XMLName, depth: Int, attributes: XMLAttributes) -> Bool {
///             if name == "trkpt" { points += 1 }
///             return false
///         }
///         func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {}
///     }
///     let counter = Counter()
///     try XMLStream.parse(bytes, what: "GPX", into: counter)   // counter.points
final class XMLStream {
    static let maxDepth = 256

    // Touched only from expat's callbacks during one `parse`, on one thread: the runtime's
    // dynamic exclusivity checks on every access would be redundant.
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var failure: String? = nil
    /// `failure != nil`, asked at every callback.
    @exclusivity(unchecked) private var failed = false
    @exclusivity(unchecked) private var sawRoot = false
    /// For each open element (`slots[0..<depth]`), where its text starts in `text`, or -1 when it
    /// is not kept. Only the innermost open element gets character data, and a child's text is
    /// dropped when the child ends, so an element's own text is always `text[start...]` at its
    /// end. At most `maxDepth` elements are open: the slots are allocated once.
    private let slots: UnsafeMutablePointer<Int>
    /// The kept character data: `textCount` bytes of `textCapacity`, grown by doubling.
    @exclusivity(unchecked) private var text: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var textCount = 0
    @exclusivity(unchecked) private var textCapacity = 256
    // `parse` holds the handler for the whole parse and the stream does not outlive it; a `let`
    // of a stream the callbacks hold guaranteed needs no reference counting per callback.
    private let handler: any XMLStreamHandler

    private init(handler: any XMLStreamHandler) {
        self.handler = handler
        slots = .allocate(capacity: XMLStream.maxDepth)
        text = .allocate(capacity: textCapacity)
    }

    deinit {
        slots.deallocate()
        text.deallocate()
    }

    /// Parses `bytes` as one XML document, calling `handler` as elements start and end.
    ///
    /// - Parameters:
    ///   - what: the kind of file, for messages ("GPX").
    ///   - salvage: a document that stops being well-formed after its root element started (a
    ///     file cut short, damaged bytes) is kept as far as it was read: the handler has heard
    ///     every element that ended before the damage, and the elements still open never end.
    /// - Returns: with `salvage`, the damage ("not a well-formed GPX file: unclosed token (line
    ///   12, byte 345)"), or nil for a well-formed document.
    /// - Throws: `.input` with expat's message and line when the text is not well-formed XML
    ///   (when it breaks off after its root element started, which salvage reads, with a hint
    ///   that `";salvage"` keeps the points before the break)
    ///   (with `salvage`, only before its root element), has a DTD, or nests too deep, or has no
    ///   root element.
    @discardableResult
    static func parse(_ bytes: UnsafeRawBufferPointer, what: String, salvage: Bool = false,
                      into handler: any XMLStreamHandler) throws(RunwayError) -> String? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .input("empty \(what) file") }
        guard let size = Int32(exactly: bytes.count) else { throw .input("\(what) file too large") }
        guard let parser = XML_ParserCreate(nil) else { throw RunwayError(.internal, "expat: no parser") }
        defer { XML_ParserFree(parser) }
        let stream = XMLStream(handler: handler)
        XML_SetUserData(parser, Unmanaged.passUnretained(stream).toOpaque())
        XML_SetElementHandler(parser, { user, name, attrs in
            guard let user else { return }
            XMLStream.with(user) { $0.start(name, attrs) }
        }, { user, _ in
            guard let user else { return }
            XMLStream.with(user) { $0.end() }
        })
        XML_SetCharacterDataHandler(parser, { user, s, len in
            guard let user, let s, len > 0 else { return }
            XMLStream.with(user) { $0.characters(s, Int(len)) }
        })
        XML_SetStartDoctypeDeclHandler(parser, { user, _, _, _, _ in
            guard let user else { return }
            XMLStream.with(user) { $0.fail("a DTD (<!DOCTYPE>) is not allowed in a recording") }
        })
        let ok = withExtendedLifetime(stream) {
            XML_Parse(parser, base.assumingMemoryBound(to: CChar.self), size, 1)
        }
        if let failure = stream.failure { throw .input("not a valid \(what) file: \(failure)") }
        guard ok == XML_STATUS_OK else {
            let message = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "XML parse error"
            let line = XML_GetCurrentLineNumber(parser)
            guard salvage, stream.sawRoot else {
                // (After the root element salvage reads the points before the break: say so.)
                let hint = stream.sawRoot ? "; salvage keeps the points read before the break (\"\(what.lowercased());salvage\")" : ""
                throw .input("not a well-formed \(what) file: \(message) (line \(line))\(hint)")
            }
            return "not a well-formed \(what) file: \(message) (line \(line), byte \(XML_GetCurrentByteIndex(parser)))"
        }
        guard stream.sawRoot else { throw .input("not a \(what) file: no root element") }
        return nil
    }

    /// Runs `body` on the stream behind expat's user data, which `parse` keeps alive while expat
    /// calls back (no retain and release around each callback).
    @inline(__always)
    private static func with(_ user: UnsafeMutableRawPointer, _ body: (XMLStream) -> Void) {
        Unmanaged<XMLStream>.fromOpaque(user)._withUnsafeGuaranteedRef(body)
    }

    private func fail(_ message: String) {
        failure = message
        failed = true
    }

    private func start(_ name: UnsafePointer<XML_Char>?, _ attrs: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) {
        guard !failed else { return }
        guard depth < XMLStream.maxDepth else {
            fail("elements nested deeper than \(XMLStream.maxDepth)")
            return
        }
        if depth == 0 {
            if sawRoot {
                fail("more than one root element")
                return
            }
            sawRoot = true
        }
        let wants = handler.start(XMLName(name), depth: depth, attributes: XMLAttributes(attrs))
        slots[depth] = wants ? textCount : -1
        depth += 1
    }

    private func end() {
        guard !failed, depth > 0 else { return }
        depth -= 1
        let start = slots[depth]
        guard start >= 0, start <= textCount else {
            handler.end(depth: depth, text: nil)
            return
        }
        var lo = start, hi = textCount
        while lo < hi, JSONInput.isSpace(text[lo]) { lo += 1 }
        while hi > lo, JSONInput.isSpace(text[hi - 1]) { hi -= 1 }
        handler.end(depth: depth, text: UnsafeBufferPointer(start: text + lo, count: hi - lo))
        textCount = start
    }

    private func characters(_ s: UnsafePointer<XML_Char>, _ len: Int) {
        guard !failed, depth > 0, slots[depth - 1] >= 0 else { return }
        if len > textCapacity - textCount { grow(to: textCount + len) }
        UnsafeMutableRawPointer(text + textCount).copyMemory(from: s, byteCount: len)
        textCount += len
    }

    /// Room for `needed` bytes of text (at least double the present room).
    private func grow(to needed: Int) {
        let capacity = max(needed, textCapacity * 2)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        new.initialize(from: text, count: textCount)
        text.deallocate()
        text = new
        textCapacity = capacity
    }
}

/// An element's name as an `XMLStream` reports it: the local part (after any namespace prefix).
struct XMLName {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The qualified name, NUL-terminated (nil: none).
    private let qualified: UnsafePointer<XML_Char>?

    init(_ p: UnsafePointer<XML_Char>?) {
        bytes = XMLName.local(p)
        qualified = p
    }

    /// The namespace prefix: the part before the local name's ':' (empty when there is none).
    var prefix: UnsafeBufferPointer<UInt8> {
        guard let q = qualified, let local = bytes.baseAddress else { return UnsafeBufferPointer(start: nil, count: 0) }
        let start = UnsafeRawPointer(q).assumingMemoryBound(to: UInt8.self)
        let n = local - start - 1
        return n > 0 ? UnsafeBufferPointer(start: start, count: n) : UnsafeBufferPointer(start: nil, count: 0)
    }

    /// The part of a NUL-terminated qualified name after its last ':'.
    static func local(_ p: UnsafePointer<XML_Char>?) -> UnsafeBufferPointer<UInt8> {
        guard let p else { return UnsafeBufferPointer(start: nil, count: 0) }
        return p.withMemoryRebound(to: UInt8.self, capacity: 1) { u in
            var q = u, start = u
            while case let c = q.pointee, c != 0 {
                q += 1
                if c == UInt8(ascii: ":") { start = q }
            }
            return UnsafeBufferPointer(start: start, count: q - start)
        }
    }

    /// Whether the name is `literal` (compared byte by byte: names are short).
    @inline(__always)
    static func == (name: XMLName, literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard name.bytes.count == n else { return false }
        guard n > 0, let a = name.bytes.baseAddress else { return true }
        let b = literal.utf8Start
        for k in 0..<n where a[k] != b[k] { return false }
        return true
    }

    /// The name as text, for messages.
    var string: String { String(decoding: bytes, as: UTF8.self) }
}

/// An element's attributes as expat gives them (name, value pairs ending in NULL).
struct XMLAttributes {
    let pairs: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?

    init(_ pairs: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) { self.pairs = pairs }

    /// The value of the first attribute whose local name is `name`, without surrounding white
    /// space; nil when absent.
    func value(_ name: StaticString) -> String? {
        bytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `value` as the bytes expat holds (valid during the `start` call only).
    func bytes(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        guard let pairs else { return nil }
        var i = 0
        while let key = pairs[i], let value = pairs[i + 1] {
            if XMLName(key) == name { return XMLAttributes.trimmed(value) }
            i += 2
        }
        return nil
    }

    /// `bytes(a)` and `bytes(b)` in one pass over the attributes (`a` and `b` differ).
    func bytes(_ a: StaticString, _ b: StaticString) -> (UnsafeBufferPointer<UInt8>?, UnsafeBufferPointer<UInt8>?) {
        guard let pairs else { return (nil, nil) }
        var va: UnsafeBufferPointer<UInt8>? = nil, vb: UnsafeBufferPointer<UInt8>? = nil
        var i = 0
        while let key = pairs[i], let value = pairs[i + 1] {
            let k = XMLName(key)
            if va == nil, k == a {
                va = XMLAttributes.trimmed(value)
                if vb != nil { break }
            } else if vb == nil, k == b {
                vb = XMLAttributes.trimmed(value)
                if va != nil { break }
            }
            i += 2
        }
        return (va, vb)
    }

    /// The namespace declarations among the attributes (`xmlns="uri"`: an empty `prefix`;
    /// `xmlns:p="uri"`: `p`), in order, as expat gives them (a parser that does not process
    /// namespaces reports them as attributes).
    func namespaceDeclarations(_ body: (_ prefix: UnsafeBufferPointer<UInt8>, _ uri: UnsafeBufferPointer<UInt8>) -> Void) {
        guard let pairs else { return }
        var i = 0
        while let key = pairs[i], let value = pairs[i + 1] {
            i += 2
            let name = XMLName(key)
            if name == "xmlns", name.prefix.isEmpty {
                body(UnsafeBufferPointer(start: nil, count: 0), XMLAttributes.trimmed(value))
            } else if case let p = name.prefix, p.count == 5, p.elementsEqual("xmlns".utf8), !name.bytes.isEmpty {
                body(name.bytes, XMLAttributes.trimmed(value))
            }
        }
    }

    /// A NUL-terminated value without surrounding white space.
    private static func trimmed(_ value: UnsafePointer<XML_Char>) -> UnsafeBufferPointer<UInt8> {
        value.withMemoryRebound(to: UInt8.self, capacity: 1) { v in
            var n = strlen(value)
            var lo = 0
            while lo < n, JSONInput.isSpace(v[lo]) { lo += 1 }
            while n > lo, JSONInput.isSpace(v[n - 1]) { n -= 1 }
            return UnsafeBufferPointer(start: v + lo, count: n - lo)
        }
    }
}
