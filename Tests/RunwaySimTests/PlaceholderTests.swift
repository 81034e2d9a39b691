import Testing
import RunwaySim

@Test func simulatorModuleLinks() { #expect(RunSimulatorVersion.value == 0) }
