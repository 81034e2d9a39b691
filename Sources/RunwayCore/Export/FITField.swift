/// The FIT protocol's base types that the export writes, with their sizes and invalid values
/// (FIT Protocol, "Base Types").
enum FITBaseType: UInt8, Sendable {
    case enumeration = 0x00
    case uint8 = 0x02
    case uint16 = 0x84
    case sint32 = 0x85
    case uint32 = 0x86
    case string = 0x07

    /// Bytes of one value (a string field's size is given per field).
    var size: Int {
        switch self {
        case .enumeration, .uint8, .string: 1
        case .uint16: 2
        case .sint32, .uint32: 4
        }
    }

    /// The value meaning "invalid / not known".
    var invalid: Int64 {
        switch self {
        case .enumeration, .uint8: 0xFF
        case .uint16: 0xFFFF
        case .sint32: 0x7FFF_FFFF
        case .uint32: 0xFFFF_FFFF
        case .string: 0
        }
    }

    /// The valid range: everything the type holds except its invalid value.
    var validRange: ClosedRange<Int64> {
        switch self {
        case .sint32: -0x8000_0000...0x7FFF_FFFE
        case .string: 0...0
        default: 0...(invalid - 1)
        }
    }
}

/// One field of a message: its number in the global FIT profile and its base type.
struct FITField: Sendable, Equatable {
    let number: UInt8
    let type: FITBaseType
    /// Bytes in the message (a string's fixed size including its NUL; else the type's size).
    let size: Int

    init(_ number: UInt8, _ type: FITBaseType, size: Int? = nil) {
        self.number = number
        self.type = type
        self.size = size ?? type.size
    }
}

/// A field's value: a number (nil = invalid) or text.
enum FITValue: Sendable {
    case number(Int64?)
    case text(String)
}
