import RunwaySim
print("runway-sim \(RunSimulatorVersion.value)")
