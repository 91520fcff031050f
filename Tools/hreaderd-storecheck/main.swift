// Test support for the reliability tests: opens a store (after the daemon was killed) and prints what
// they check, one fact a line:
//   integrity ok                                   (PRAGMA integrity_check)
//   post t_… DATA                                  (every timeline post and its stored JSON)
//   patient SOURCE RECORD_ID ENTRY_COUNT ENTRIES MARKED   (stored count, rows in entries, rows whose description has MARK)
// Usage: hreaderd-storecheck STATE_DIR PASSWORD [MARK]
import Foundation
import HealthRecord
import Store

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: hreaderd-storecheck STATE_DIR PASSWORD [MARK]\n".utf8))
    exit(2)
}
let mark = arguments.count == 4 ? arguments[3] : "\u{1}"
do {
    let store = try Store.open(at: StateDirectory(path: arguments[1]), password: arguments[2])
    defer { store.close() }
    let lines = try store.readSync { db in
        var lines: [String] = []
        let integrity = try db.rows("PRAGMA integrity_check") { $0.string(0) }
        lines.append("integrity " + integrity.joined(separator: "; "))
        lines += try db.rows("SELECT id, data FROM timeline_entries ORDER BY id") { "post " + $0.string(0) + " " + $0.string(1) }
        lines += try db.rows("""
            SELECT s.name, p.record_id, p.entry_count, count(e.pk), count(CASE WHEN instr(e.description, ?) > 0 THEN 1 END)
            FROM patients p JOIN sources s ON s.id = p.source_id LEFT JOIN entries e ON e.patient_id = p.id
            GROUP BY p.id ORDER BY s.name, p.record_id
            """, [mark]) { "patient \($0.string(0)) \($0.string(1)) \($0.int64(2)) \($0.int64(3)) \($0.int64(4))" }
        return lines
    }
    print(lines.joined(separator: "\n"))
} catch {
    FileHandle.standardError.write(Data("hreaderd-storecheck: \(error)\n".utf8))
    exit(1)
}
