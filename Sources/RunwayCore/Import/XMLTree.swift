import CXML

/// libxml2 needs one process-wide initialisation before parsers run on several threads; a global
/// `let` runs it exactly once (Swift initialises globals lazily and thread-safely).
private let xmlParserReady: Bool = {
    xmlInitParser()
    return true
}()

/// A parsed XML document (libxml2's tree), read by local element names.
///
/// Parsing is safe for untrusted files: no network (`XML_PARSE_NONET`), no external DTD
/// (`XML_PARSE_DTDLOAD` is not set), no entity substitution (`XML_PARSE_NOENT` is not set, so
/// external entities are never loaded and their references stay unexpanded), libxml2's default
/// limits on depth and text size (`XML_PARSE_HUGE` is not set), and a byte limit checked before
/// parsing by `Importer`. Errors are returned, never printed (`XML_PARSE_NOERROR`).
final class XMLTree {
    private let doc: xmlDocPtr
    let root: XMLElement

    /// Parses `bytes` as one XML document.
    ///
    /// - Parameter what: the kind of file, for messages ("GPX").
    /// - Throws: `.input` with libxml2's message and line when the text is not well-formed XML.
    init(_ bytes: UnsafeRawBufferPointer, what: String) throws(RunwayError) {
        _ = xmlParserReady
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .input("empty \(what) file") }
        guard let size = Int32(exactly: bytes.count) else { throw .input("\(what) file too large") }
        guard let ctxt = xmlNewParserCtxt() else { throw RunwayError(.internal, "libxml2: no parser context") }
        defer { xmlFreeParserCtxt(ctxt) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue
                            | XML_PARSE_COMPACT.rawValue)
        guard let doc = xmlCtxtReadMemory(ctxt, base.assumingMemoryBound(to: CChar.self), size,
                                          nil, nil, options) else {
            throw .input("not a well-formed \(what) file: \(XMLTree.describe(ctxt.pointee.lastError))")
        }
        guard let rootNode = xmlDocGetRootElement(doc) else {
            xmlFreeDoc(doc)
            throw .input("not a \(what) file: no root element")
        }
        self.doc = doc
        self.root = XMLElement(rootNode)
    }

    deinit { xmlFreeDoc(doc) }

    /// libxml2's message for a parse error, with its line ("premature end of data (line 12)").
    private static func describe(_ e: xmlError) -> String {
        var text = e.message.map { String(cString: $0) } ?? "XML parse error"
        while let last = text.last, last == "\n" || last == " " { text.removeLast() }
        return e.line > 0 ? "\(text) (line \(e.line))" : text
    }
}

/// An element of an `XMLTree`; valid only while its tree lives.
struct XMLElement {
    let node: xmlNodePtr

    init(_ node: xmlNodePtr) { self.node = node }

    /// Whether the element's local name (the part after any namespace prefix) is `name`.
    func isNamed(_ name: StaticString) -> Bool { XMLElement.equal(node.pointee.name, name) }

    /// The local name, for messages.
    var name: String { node.pointee.name.map { String(cString: $0) } ?? "" }

    /// The child elements, in document order.
    var children: [XMLElement] {
        var out: [XMLElement] = []
        var c = node.pointee.children
        while let n = c {
            if n.pointee.type == XML_ELEMENT_NODE { out.append(XMLElement(n)) }
            c = n.pointee.next
        }
        return out
    }

    /// The first child element named `name`.
    func child(_ name: StaticString) -> XMLElement? {
        var c = node.pointee.children
        while let n = c {
            if n.pointee.type == XML_ELEMENT_NODE, XMLElement.equal(n.pointee.name, name) { return XMLElement(n) }
            c = n.pointee.next
        }
        return nil
    }

    /// Calls `body` for every element below this one (not this one), in document order.
    ///
    /// Iterative, so a deep document cannot exhaust the stack (libxml2 caps depth at 256 anyway).
    func forEachDescendant(_ body: (XMLElement) throws(RunwayError) -> Void) throws(RunwayError) {
        var next = node.pointee.children
        while let n = next {
            if n.pointee.type == XML_ELEMENT_NODE {
                try body(XMLElement(n))
                if let first = n.pointee.children {
                    next = first
                    continue
                }
            }
            // Move on to the next sibling, climbing back up as long as there is none.
            var up: xmlNodePtr? = n
            next = nil
            while let u = up, u != node {
                if let sibling = u.pointee.next { next = sibling; break }
                up = u.pointee.parent
            }
        }
    }

    /// The element's text (its text and CDATA children joined), without surrounding white space.
    var text: String {
        var bytes: [UInt8] = []
        var c = node.pointee.children
        while let n = c {
            if n.pointee.type == XML_TEXT_NODE || n.pointee.type == XML_CDATA_SECTION_NODE,
               let content = n.pointee.content {
                var i = 0
                while content[i] != 0 { bytes.append(content[i]); i += 1 }
            }
            c = n.pointee.next
        }
        return XMLElement.trimmed(bytes)
    }

    /// The value of the attribute whose local name is `name`, trimmed; nil when absent.
    func attribute(_ name: StaticString) -> String? {
        var a = node.pointee.properties
        while let attr = a {
            if XMLElement.equal(attr.pointee.name, name) {
                var bytes: [UInt8] = []
                var c = attr.pointee.children
                while let n = c {
                    if let content = n.pointee.content {
                        var i = 0
                        while content[i] != 0 { bytes.append(content[i]); i += 1 }
                    }
                    c = n.pointee.next
                }
                return XMLElement.trimmed(bytes)
            }
            a = attr.pointee.next
        }
        return nil
    }

    private static func equal(_ s: UnsafePointer<xmlChar>?, _ name: StaticString) -> Bool {
        guard let s else { return false }
        let n = name.utf8CodeUnitCount
        let p = name.utf8Start
        for i in 0..<n where s[i] != p[i] { return false }  // a shorter s stops at its NUL
        return s[n] == 0
    }

    private static func trimmed(_ bytes: [UInt8]) -> String {
        var lo = 0, hi = bytes.count
        while lo < hi, JSONInput.isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, JSONInput.isSpace(bytes[hi - 1]) { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }
}
