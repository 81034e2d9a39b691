import Testing
import RunwayStore
@Test func storeModuleLinks() { #expect(FlightStoreVersion.schema == 0) }
