import Foundation
import Testing
import TimelineAPI
import HealthRecord
@testable import Store

@Suite("Crash recovery")
struct CrashRecoveryTests {
    /// Starts the crash writer on `state` and reads what it says until the line `until`: the process, its
    /// output and what it said so far.
    private func startWriter(_ state: StateDirectory, perBatch: Int, streamed: Bool,
                             until line: String) throws -> (Process, FileHandle, String) {
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: productsDirectory + "/hreaderd-crashwriter")
        writer.arguments = [state.path, "crash pw", String(perBatch)] + (streamed ? ["streamed"] : [])
        let output = Pipe()
        writer.standardOutput = output
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        var text = ""
        let reader = output.fileHandleForReading
        while !text.contains(line + "\n") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains(line + "\n"), "the writer stopped early: \(text)")
        return (writer, reader, text)
    }

    @Test("SIGKILL in the middle of a large write transaction leaves exactly the committed data, intact: through the WAL (a record whole) and in place through a rollback journal (a record in batches, the store the writer's alone)",
          arguments: [1, 2, 3], [false, true])
    func killMidTransaction(round: Int, streamed: Bool) throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "crash pw")
        store.close()
        let perBatch = 20_000
        // Once the writer has committed `round` batches and begun the next one, it is killed while that next
        // transaction is being written.
        // In place, it is killed once the transaction has changed pages ("writing"): "begin" comes before the
        // switch to a rollback journal, and a kill that soon (a loaded machine) would find no journal to check.
        var (writer, reader, text) = try startWriter(state, perBatch: perBatch, streamed: streamed,
                                                     until: (streamed ? "writing " : "begin ") + "\(round + 1)")
        usleep(20_000 * UInt32(round))
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(writer.terminationReason == .uncaughtSignal)

        let committed = text.split(separator: "\n").filter { $0.hasPrefix("committed ") }.count
        if streamed, committed == round {
            // Killed in the transaction written in place: its rollback journal is left, for the next open to play back.
            let journal = try? FileManager.default.attributesOfItem(atPath: state.databasePath + "-journal")[.size] as? Int
            #expect((journal ?? 0) > 0, "a rollback journal left by the killed transaction")
        }
        let reopened = try Store.open(at: state, password: "crash pw", options: .timeline)
        defer { reopened.close() }
        let integrity = try reopened.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) }
        #expect(integrity == "ok")
        let patients = try reopened.patientsSync()
        // Every batch that reported its commit is there in full; the one being written is absent.
        #expect(patients.count == committed, "committed \(committed), found \(patients.map(\.name))")
        #expect(committed >= round)
        for patient in patients {
            #expect(patient.entryCount == perBatch)
            let stored = try reopened.readSync { db in
                try db.scalar("SELECT count(*) FROM entries WHERE patient_id = ?", [patient.id], as: Int.self)
            }
            #expect(stored == perBatch)
        }
        let names = Set(patients.map(\.name))
        #expect(names == Set((1...max(committed, 1)).prefix(committed).map { "Crash \($0)" }))
    }

    @Test("SIGKILL while a transaction written in place commits: the record is there whole or not at all, the store intact",
          arguments: [0, 10, 25, 50, 80])
    func killWhileCommitting(afterMilliseconds delay: Int) throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir, password: "crash pw")
        store.close()
        let perBatch = 20_000
        // The second record's batches are all written: its index and its commit follow.
        var (writer, reader, text) = try startWriter(state, perBatch: perBatch, streamed: true, until: "written 2")
        usleep(UInt32(delay) * 1_000)
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(writer.terminationReason == .uncaughtSignal)

        let reopened = try Store.open(at: state, password: "crash pw", options: .timeline)
        defer { reopened.close() }
        #expect(try reopened.readSync { db in try db.scalar("PRAGMA integrity_check", as: String.self) } == "ok")
        let patients = try reopened.patientsSync()
        let committed = text.split(separator: "\n").filter { $0.hasPrefix("committed ") }.count
        // A commit that ended in the instant before the kill has not said so yet: then its record is there too.
        #expect(committed >= 1 && (committed...committed + 1).contains(patients.count),
                "committed \(committed), found \(patients.map(\.name))")
        for patient in patients {
            let stored = try reopened.readSync { db in
                try db.scalar("SELECT count(*) FROM entries WHERE patient_id = ?", [patient.id], as: Int.self)
            }
            #expect(patient.entryCount == perBatch && stored == perBatch, "\(patient.name) is whole")
        }
    }
}
