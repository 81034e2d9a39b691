import CRunwayABI
import RunwayCore

@_cdecl("runway_abi_version")
public func runwayABIVersion() -> UInt32 { UInt32(RUNWAY_ABI_VERSION) }

@_cdecl("runway_push_fix")
public func runwayPushFix(_ s: OpaquePointer?, _ fix: UnsafePointer<runway_fix>?) -> runway_status {
    guard let fix else { return RUNWAY_ERR_ARGUMENT }
    return fix.pointee.lat > 0 ? RUNWAY_OK : RUNWAY_ERR_INPUT
}
