import Testing
@testable import RunwayCore
import CXML

// Independent readers for the export tests: libxml2 for XML, a FIT reader of their own.

/// An XML element read back with libxml2: namespace, name, attributes, text, children.
struct ExportXML {
    var namespace: String
    var name: String
    var attributes: [String: String]
    var text: String
    var children: [ExportXML]

    /// Parses `bytes` with libxml2 (no network, no recovery); nil when not well-formed.
    static func parse(_ bytes: [UInt8]) -> ExportXML? {
        let doc = bytes.withUnsafeBufferPointer { buf -> xmlDocPtr? in
            buf.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                    xmlReadMemory($0, Int32(buf.count), "export.xml", nil,
                                  Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOERROR.rawValue) | Int32(XML_PARSE_NOWARNING.rawValue))
                }
            }
        }
        guard let doc else { return nil }
        defer { xmlFreeDoc(doc) }
        return xmlDocGetRootElement(doc).map(element)
    }

    private static func element(_ node: xmlNodePtr) -> ExportXML {
        var e = ExportXML(namespace: node.pointee.ns?.pointee.href.map { String(cString: $0) } ?? "",
                           name: node.pointee.name.map { String(cString: $0) } ?? "",
                           attributes: [:], text: "", children: [])
        var attr = node.pointee.properties
        while let a = attr {
            let name = a.pointee.name.map { String(cString: $0) } ?? ""
            e.attributes[name] = a.pointee.children?.pointee.content.map { String(cString: $0) } ?? ""
            attr = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE {
                e.children.append(element(c))
            } else if c.pointee.type == XML_TEXT_NODE, let content = c.pointee.content {
                e.text += String(cString: content)
            }
            child = c.pointee.next
        }
        return e
    }

    func first(_ name: String) -> ExportXML? { children.first { $0.name == name } }
    func all(_ name: String) -> [ExportXML] { children.filter { $0.name == name } }
    /// Every descendant called `name`, depth first.
    func descendants(_ name: String) -> [ExportXML] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
    }
}
/// A minimal FIT reader: definitions and data messages, values as integers by field number.
struct ExportFITReader {
    var protocolVersion: UInt8 = 0
    var dataSize = 0
    var headerCRCOK = false
    var fileCRCOK = false
    var messages: [(global: UInt16, fields: [UInt8: Int64])] = []

    func count(_ global: UInt16) -> Int { messages.filter { $0.global == global }.count }
    func all(_ global: UInt16) -> [[UInt8: Int64]] { messages.filter { $0.global == global }.map(\.fields) }

    /// CRC-16/ARC bit by bit (reflected polynomial 0xA001): not the exporter's nibble table.
    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    enum Failure: Error { case malformed(String) }

    static func read(_ b: [UInt8]) throws -> ExportFITReader {
        var f = ExportFITReader()
        guard b.count >= 16, b[0] == 14, Array(b[8..<12]) == Array(".FIT".utf8) else { throw Failure.malformed("header") }
        f.protocolVersion = b[1]
        f.dataSize = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24
        guard 14 + f.dataSize + 2 == b.count else { throw Failure.malformed("data size \(f.dataSize) for \(b.count) bytes") }
        f.headerCRCOK = crc(b[0..<12]) == UInt16(b[12]) | UInt16(b[13]) << 8
        f.fileCRCOK = crc(b[0..<(b.count - 2)]) == UInt16(b[b.count - 2]) | UInt16(b[b.count - 1]) << 8
        var defs: [UInt8: (global: UInt16, fields: [(num: UInt8, size: Int, type: UInt8)])] = [:]
        var p = 14
        let end = 14 + f.dataSize
        func byte() throws -> UInt8 {
            guard p < end else { throw Failure.malformed("truncated at \(p)") }
            defer { p += 1 }
            return b[p]
        }
        while p < end {
            let h = try byte()
            guard h & 0x80 == 0, h & 0x20 == 0 else { throw Failure.malformed("unexpected header \(h)") }
            let local = h & 0x0F
            if h & 0x40 != 0 {
                _ = try byte()
                guard try byte() == 0 else { throw Failure.malformed("big-endian") }
                let global = UInt16(try byte()) | UInt16(try byte()) << 8
                let n = Int(try byte())
                var fields: [(num: UInt8, size: Int, type: UInt8)] = []
                for _ in 0..<n { fields.append((try byte(), Int(try byte()), try byte())) }
                defs[local] = (global, fields)
            } else {
                guard let def = defs[local] else { throw Failure.malformed("data before definition") }
                var values: [UInt8: Int64] = [:]
                for field in def.fields {
                    var v: UInt64 = 0
                    for k in 0..<field.size { v |= UInt64(try byte()) << (8 * UInt64(min(k, 7))) }
                    if field.type == 0x85 { values[field.num] = Int64(Int32(truncatingIfNeeded: v)) }
                    else if field.type != 0x07 { values[field.num] = Int64(v) }
                }
                f.messages.append((def.global, values))
            }
        }
        return f
    }
}

/// The export of `r` in an XML format, parsed back (the test fails when it is not well-formed).
func parsedExport(_ r: FlightRecord, _ format: ExportFormat) throws -> ExportXML {
    let parsed = ExportXML.parse(Exporter.export(r, as: format))
    return try #require(parsed, "\(format) export is well-formed XML")
}

func exportText(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func jsonObject(_ v: JSONValue?) -> [String: JSONValue] {
    if case .object(let o)? = v { return o }
    return [:]
}

func jsonArray(_ v: JSONValue?) -> [JSONValue] {
    if case .array(let a)? = v { return a }
    return []
}
