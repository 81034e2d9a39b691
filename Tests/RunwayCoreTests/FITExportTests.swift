import Testing
@testable import RunwayCore

@Suite("Exports: FIT")
struct FITExportTests {
    @Test func fitHeaderAndFileCRCsVerifyAndTheDataSizeIsTheMessages() throws {
        let r = try ExportFixture.simulated()
        let bytes = Exporter.export(r, as: .fit)
        let fit = try ExportFITReader.read(bytes)
        let headerCRCOK = fit.headerCRCOK, fileCRCOK = fit.fileCRCOK, dataSize = fit.dataSize
        #expect(headerCRCOK, "header CRC")
        #expect(fileCRCOK, "file CRC")
        #expect(fit.protocolVersion == 0x20)
        #expect(bytes.count == 14 + dataSize + 2)
        // Flipping one data byte must break the file CRC.
        var broken = bytes
        broken[100] ^= 0x01
        let brokenCRCOK = try ExportFITReader.read(broken).fileCRCOK
        #expect(!brokenCRCOK)
    }

    @Test func fitHasTheActivityMessagesInOrderWithARecordPerRoutePoint() throws {
        let r = try ExportFixture.simulated()
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        let order = fit.messages.map(\.global)
        // file_id, device_info, event (timer start), records, event (stop_all), laps, session, activity
        #expect(order.first == 0 && order.dropFirst().first == 23 && order.last == 34)
        #expect(fit.count(20) == r.route.count)
        #expect(fit.count(19) == r.laps.count)
        #expect(fit.count(18) == 1 && fit.count(34) == 1 && fit.count(21) == 2)
        let events = fit.all(21)
        #expect(events.map { $0[0] } == [0, 0] && events.map { $0[1] } == [0, 4], "timer start, timer stop_all")
        let fileID = try #require(fit.all(0).first)
        #expect(fileID[0] == 4 && fileID[1] == 255)
        let session = try #require(fit.all(18).first)
        #expect(session[9] == Int64((r.distanceM * 100).rounded()))
        #expect(session[26] == Int64(r.laps.count))
        #expect(session[5] == 1, "sport running")
        #expect(session[8] == Int64((r.elapsedS * 1000).rounded()))
        #expect(session[2] == Int64(r.startT.rounded(.down)) - 631_065_600)
        let activity = try #require(fit.all(34).first)
        #expect(activity[1] == 1 && activity[2] == 0 && activity[3] == 26 && activity[4] == 1)
        let laps = fit.all(19)
        #expect(laps.map { $0[24] } == [2, 0, 2, 7], "lap_trigger distance, manual, distance, session_end")
        #expect(laps.map { $0[254] } == [0, 1, 2, 3])
        for (lap, expected) in zip(laps, r.laps) {
            #expect(lap[9] == Int64((expected.distanceM * 100).rounded()))
            #expect(lap[8] == Int64((expected.elapsedS * 1000).rounded()))
        }
    }

    @Test func fitRecordsCarryTheFITScalesAndTheInvalidMarkers() throws {
        let r = try ExportFixture.simulated()
        let records = try ExportFITReader.read(Exporter.export(r, as: .fit)).all(20)
        try #require(records.count == r.route.count)
        for i in [0, 1, r.route.count / 2, r.route.count - 1] {
            let m = records[i]
            #expect(m[253] == Int64(r.route.time(i).rounded(.down)) - 631_065_600)
            #expect(m[0] == Int64((r.route.latitude(i) * 2_147_483_648 / 180).rounded()))
            #expect(m[1] == Int64((r.route.longitude(i) * 2_147_483_648 / 180).rounded()))
            #expect(m[2] == Int64(((r.route.altitude(i) + 500) * 5).rounded()))
            #expect(m[5] == Int64((r.route.distanceM(i) * 100).rounded()))
            #expect(m[3] == Int64(r.route.heartRate(i)))
            // Running cadence in strides per minute plus the half stride.
            let spm = r.route.cadence(i)
            #expect(Double(m[4] ?? 0) + Double(m[53] ?? 0) / 128 == spm / 2)
            // A record's speed is the speed its fix came with (the device's), not the engine's ground speed.
            if r.route.deviceSpeedMps(i).isNaN { #expect(m[6] == 0xFFFF) } else { #expect(m[6] == Int64((r.route.deviceSpeedMps(i) * 1000).rounded())) }
        }
        let bare = try ExportFITReader.read(Exporter.export(try ExportFixture.simulated(sensors: false, gap: nil, lengthM: 300), as: .fit)).all(20)
        #expect(bare.allSatisfy { $0[3] == 0xFF && $0[4] == 0xFF && $0[53] == 0xFF }, "no heart rate or cadence: FIT's invalid values")
    }

    @Test func semicirclesWrapAtTheAntimeridianAndAvoidTheInvalidMarker() {
        #expect(FITExporter.semicircles(0) == 0)
        #expect(FITExporter.semicircles(900_000_000) == 1 << 30)
        #expect(FITExporter.semicircles(-900_000_000) == -(1 << 30))
        #expect(FITExporter.semicircles(1_800_000_000) == -(1 << 31), "+180° is −180°")
        #expect(FITExporter.semicircles(-1_800_000_000) == -(1 << 31))
        #expect(FITExporter.semicircles(1_799_999_999) == 0x7FFF_FFFE, "never sint32's invalid 0x7FFFFFFF")
        #expect(FITExporter.semicircles(523_700_000) == Int64((52.37 * 2_147_483_648 / 180).rounded()))
    }

    @Test func fitOfARideIsCyclingWithRPMCadence() throws {
        let r = try ExportFixture.simulated(activity: .ride, gap: nil, manualLapAfter: nil, lengthM: 3000)
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        #expect(fit.all(18).first?[5] == 2)
        let record = try #require(fit.all(20).dropFirst(3).first)
        #expect(record[53] == nil, "no fractional cadence field on a ride")
        #expect(record[4] == Int64(r.route.cadence(3)))
    }
}
