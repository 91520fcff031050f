import Foundation
import HealthRecord
import Testing
import TestSupport

/// `backup`, `backup --verify`, `restore` and `audit`, run as a user runs them.
@Suite("hreaderd backup, restore, audit")
struct CLIBackupTests {
    let dir = TemporaryDirectory("hreaderd-backup-cli")
    var binary: String { productsDirectory + "/hreaderd" }

    func hreaderd(_ arguments: [String], state: String? = nil) throws -> (status: Int32, out: String, err: String) {
        try run(binary, arguments, environment: ["HREADERD_STATE_DIR": state ?? dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw")])
    }

    @Test("a backup verifies, restores with the password and with the recovery key, and a changed byte is refused; each is audited")
    func roundTrip() throws {
        try "backup pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let created = try hreaderd(["init"])
        #expect(created.status == 0)
        let recovery = try #require(created.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 39 && $0.filter { $0 == "-" }.count == 7 })
        try recovery.write(toFile: dir.file("recovery"), atomically: true, encoding: .utf8)
        let record = dir.file("r.json")
        try PatientRecord.record("b1", name: "Bea Kup", birthdate: 0, entries: [.entry(.result, "Potassium", at: 100, sourceID: "r1")])
            .rhexJSON().write(toFile: record, atomically: true, encoding: .utf8)
        #expect(try hreaderd(["import-file", record]).status == 0)

        let file = dir.file("family.hrdbak")
        let backup = try hreaderd(["backup", "--output", file])
        #expect(backup.status == 0 && backup.out.contains("wrote \(file)"), "\(backup.err)")
        let verify = try hreaderd(["backup", "--verify", file])
        #expect(verify.status == 0 && verify.out.contains("a whole backup"))
        #expect(try hreaderd(["backup"]).status != 0)

        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[bytes.count / 3] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: dir.file("changed.hrdbak")))
        let refused = try hreaderd(["backup", "--verify", dir.file("changed.hrdbak")])
        #expect(refused.status == 1 && refused.err.contains("checksum"))
        #expect(try hreaderd(["restore", dir.file("changed.hrdbak")], state: dir.file("bad")).status == 1)

        #expect(try hreaderd(["restore", file]).status == 1, "the state directory holds a store")
        let byPassword = try hreaderd(["restore", file], state: dir.file("by-password"))
        #expect(byPassword.status == 0, "\(byPassword.err)")
        #expect(try hreaderd(["search", "potassium"], state: dir.file("by-password")).out.contains("Potassium"))
        let byRecovery = try hreaderd(["restore", file, "--recovery-key-file", dir.file("recovery")], state: dir.file("by-recovery"))
        #expect(byRecovery.status == 0, "\(byRecovery.err)")
        #expect(try hreaderd(["patients"], state: dir.file("by-recovery")).out.contains("Bea Kup"))

        let tokenID = try #require(try hreaderd(["token", "create", "--name", "nightly"]).err.split(separator: " ").first { $0.hasPrefix("k_") })
        #expect(try hreaderd(["token", "revoke", String(tokenID)]).status == 0)
        let audit = try hreaderd(["audit"])
        #expect(audit.status == 0)
        let actions = audit.out.split(separator: "\n").map { $0.split(separator: "\t")[1] }
        #expect(actions == ["token_revoked", "token_created", "backup", "import"], "\(audit.out)")
        #expect(!audit.out.contains("Bea") && !audit.out.contains("r.json"))
        #expect(try hreaderd(["audit"], state: dir.file("by-password")).out.contains("restore"))
        #expect(try hreaderd(["audit", "--action", "nothing"]).status == 1)
    }

    @Test("SIGKILL during a backup leaves the previous backup whole and the store intact")
    func killed() throws {
        try "backup pw\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        #expect(try hreaderd(["init"]).status == 0)
        let record = dir.file("big.json")
        let results = (0..<20_000).map { (i: Int) -> Entry in
            .entry(.result, "Result \(i)", at: 1_000_000 + Int64(i) * 3600, value: Double(i % 97), units: "mg", sourceID: "r\(i)")
        }
        try PatientRecord.record("k1", name: "Kil Led", birthdate: 0, entries: results).rhexJSON()
            .write(toFile: record, atomically: true, encoding: .utf8)
        #expect(try hreaderd(["import-file", record]).status == 0)
        let file = dir.file("nightly.hrdbak")
        #expect(try hreaderd(["backup", "--output", file]).status == 0)
        let good = try Data(contentsOf: URL(fileURLWithPath: file))
        for delay in [0.02, 0.05, 0.1, 0.2] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["backup", "--output", file]
            process.environment = ["HREADERD_STATE_DIR": dir.file("state"), "HREADERD_PASSWORD_FILE": dir.file("pw")]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Either the old backup or a new whole one: never a file that looks complete and is not.
            #expect(try hreaderd(["backup", "--verify", file]).status == 0, "after a kill at \(delay) s")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)).count >= good.count - 4096)
        }
        // The killed runs' temporary files are gone once a backup runs again.
        #expect(try hreaderd(["backup", "--output", file]).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("nightly.hrdbak.") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        let check = try hreaderd(["search", "result"])
        #expect(check.status == 0 && check.out.contains("Result"))
        let restored = try hreaderd(["restore", file], state: dir.file("after-kills"))
        #expect(restored.status == 0, "\(restored.err)")
    }
}
