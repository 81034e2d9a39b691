import CExpat

/// A parsed XML document, read by local element names (the part after any namespace prefix).
///
/// Parsed with expat — a small C library with no further dependencies (libxml2 would bring ICU
/// into every host process) — into a compact tree of arrays. Safe for untrusted files: a
/// document with a DTD (`<!DOCTYPE …>`) is refused outright, so no entity, internal or external,
/// is ever declared, expanded or loaded; nesting deeper than `maxDepth` is refused; `Importer`
/// limits the size before parsing.
final class XMLTree {
    static let maxDepth = 256

    // The elements, in document order: local name, parent, first child, next sibling, text,
    // and attributes (local name, value).
    fileprivate var names: [[UInt8]] = []
    fileprivate var parent: [Int] = []
    fileprivate var firstChild: [Int] = []
    fileprivate var nextSibling: [Int] = []
    fileprivate var lastChild: [Int] = []
    fileprivate var texts: [[UInt8]] = []
    fileprivate var attributes: [[(name: [UInt8], value: String)]] = []

    fileprivate var open: [Int] = []
    fileprivate var failure: String? = nil

    /// The root element.
    var root: XMLElement { XMLElement(tree: self, index: 0) }

    /// Parses `bytes` as one XML document.
    ///
    /// - Parameter what: the kind of file, for messages ("GPX").
    /// - Throws: `.input` with expat's message and line when the text is not well-formed XML, has
    ///   a DTD, or nests too deep.
    init(_ bytes: UnsafeRawBufferPointer, what: String) throws(RunwayError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .input("empty \(what) file") }
        guard let size = Int32(exactly: bytes.count) else { throw .input("\(what) file too large") }
        guard let parser = XML_ParserCreate(nil) else { throw RunwayError(.internal, "expat: no parser") }
        defer { XML_ParserFree(parser) }
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetElementHandler(parser, { user, name, attrs in
            guard let user else { return }
            XMLTree.from(user).start(name, attrs)
        }, { user, _ in
            guard let user else { return }
            XMLTree.from(user).end()
        })
        XML_SetCharacterDataHandler(parser, { user, s, len in
            guard let user, let s, len > 0 else { return }
            XMLTree.from(user).characters(s, Int(len))
        })
        XML_SetStartDoctypeDeclHandler(parser, { user, _, _, _, _ in
            guard let user else { return }
            XMLTree.from(user).failure = "a DTD (<!DOCTYPE>) is not allowed in a recording"
        })
        let ok = withExtendedLifetime(self) {
            XML_Parse(parser, base.assumingMemoryBound(to: CChar.self), size, 1)
        }
        if let failure { throw .input("not a valid \(what) file: \(failure)") }
        guard ok == XML_STATUS_OK else {
            let message = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "XML parse error"
            throw .input("not a well-formed \(what) file: \(message) (line \(XML_GetCurrentLineNumber(parser)))")
        }
        guard !names.isEmpty else { throw .input("not a \(what) file: no root element") }
    }

    fileprivate static func from(_ user: UnsafeMutableRawPointer) -> XMLTree {
        Unmanaged<XMLTree>.fromOpaque(user).takeUnretainedValue()
    }

    /// The part of a qualified name after its last ':'.
    fileprivate static func localName(_ p: UnsafePointer<XML_Char>?) -> [UInt8] {
        guard let p else { return [] }
        var out: [UInt8] = []
        var i = 0
        while p[i] != 0 {
            let b = UInt8(bitPattern: p[i])
            if b == UInt8(ascii: ":") { out.removeAll(keepingCapacity: true) } else { out.append(b) }
            i += 1
        }
        return out
    }

    fileprivate func start(_ name: UnsafePointer<XML_Char>?, _ attrs: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) {
        guard failure == nil else { return }
        guard open.count < XMLTree.maxDepth else {
            failure = "elements nested deeper than \(XMLTree.maxDepth)"
            return
        }
        let index = names.count
        names.append(XMLTree.localName(name))
        let up = open.last ?? -1
        parent.append(up)
        firstChild.append(-1)
        lastChild.append(-1)
        nextSibling.append(-1)
        texts.append([])
        var list: [(name: [UInt8], value: String)] = []
        if let attrs {
            var i = 0
            while let key = attrs[i], let value = attrs[i + 1] {
                list.append((XMLTree.localName(key), String(cString: value)))
                i += 2
            }
        }
        attributes.append(list)
        if up >= 0 {
            if lastChild[up] >= 0 { nextSibling[lastChild[up]] = index } else { firstChild[up] = index }
            lastChild[up] = index
        } else if index != 0 {
            failure = "more than one root element"
        }
        open.append(index)
    }

    fileprivate func end() { _ = open.popLast() }

    fileprivate func characters(_ s: UnsafePointer<XML_Char>, _ len: Int) {
        guard failure == nil, let current = open.last else { return }
        s.withMemoryRebound(to: UInt8.self, capacity: len) { p in
            texts[current].append(contentsOf: UnsafeBufferPointer(start: p, count: len))
        }
    }
}

/// An element of an `XMLTree`.
struct XMLElement {
    let tree: XMLTree
    let index: Int

    /// Whether the element's local name is `name`.
    func isNamed(_ name: StaticString) -> Bool {
        let n = tree.names[index]
        return name.withUTF8Buffer { $0.elementsEqual(n) }
    }

    /// The local name, for messages.
    var name: String { String(decoding: tree.names[index], as: UTF8.self) }

    /// The child elements, in document order.
    var children: [XMLElement] {
        var out: [XMLElement] = []
        var c = tree.firstChild[index]
        while c >= 0 {
            out.append(XMLElement(tree: tree, index: c))
            c = tree.nextSibling[c]
        }
        return out
    }

    /// The first child element named `name`.
    func child(_ name: StaticString) -> XMLElement? {
        var c = tree.firstChild[index]
        while c >= 0 {
            let e = XMLElement(tree: tree, index: c)
            if e.isNamed(name) { return e }
            c = tree.nextSibling[c]
        }
        return nil
    }

    /// Calls `body` for every element below this one (not this one), in document order.
    func forEachDescendant(_ body: (XMLElement) throws(RunwayError) -> Void) throws(RunwayError) {
        // Elements are stored in document order, and a subtree is a contiguous run after its root.
        var i = index + 1
        while i < tree.names.count, isAncestor(of: i) {
            try body(XMLElement(tree: tree, index: i))
            i += 1
        }
    }

    private func isAncestor(of i: Int) -> Bool {
        var p = tree.parent[i]
        while p > index { p = tree.parent[p] }
        return p == index
    }

    /// The element's text (its character data joined), without surrounding white space.
    var text: String { XMLElement.trimmed(tree.texts[index]) }

    /// The value of the attribute whose local name is `name`, trimmed; nil when absent.
    func attribute(_ name: StaticString) -> String? {
        for a in tree.attributes[index] where name.withUTF8Buffer({ $0.elementsEqual(a.name) }) {
            return XMLElement.trimmed(Array(a.value.utf8))
        }
        return nil
    }

    private static func trimmed(_ bytes: [UInt8]) -> String {
        var lo = 0, hi = bytes.count
        while lo < hi, JSONInput.isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, JSONInput.isSpace(bytes[hi - 1]) { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }
}
