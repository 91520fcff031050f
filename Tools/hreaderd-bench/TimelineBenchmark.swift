import Foundation
import Records
import SyntheticRecords
import HealthRecord
import Store
import TimelineAPI

/// The server-side work of each timeline page for a generated 100,000-entry patient, the store's read
/// (one snapshot) and the JSON encoding timed apart; `decade` and `all` also read in slices by two readers,
/// as the daemon reads them for a record this long (`TimelineReader.slicedReadEntries`).
enum TimelineBenchmark {
    struct Row {
        var page: TimelinePage
        var inSlices = false
        var entries: Int
        var ongoing: Int
        var bytes: Int
        var readMs: Double
        var encodeMs: Double
    }

    static func run(entries: Int = 100_000) async throws -> [Row] {
        let generator = SyntheticRecords(seed: 7)
        let bytes = generator.record(for: generator.family()[0], entries: entries, shape: .gen1)
        let record = try RecordParser(limits: ParseLimits(maxDocumentBytes: max(ParseLimits.defaultMaxDocumentBytes, bytes.count))).parse(bytes)
        let directory = NSTemporaryDirectory() + "hreaderd-timeline-bench-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fast = ScryptParameters(logN: 10, r: 8, p: 1)
        let (store, _) = try Store.create(at: StateDirectory(path: directory), password: "bench", passwordParameters: fast, recoveryParameters: fast, options: .timeline)
        defer { store.close() }
        let summary = try store.importRecordSync(record)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var rows: [Row] = []
        let variants = TimelinePage.allCases.map { ($0, false) } + [(.decade, true), (.all, true)]
        for (page, inSlices) in variants {
            let head = try await store.timelineHead(patientID: summary.patientID, withEarliest: page == .all)
            let window = TimelineWindow.of(page, endingAt: SyntheticRecords.referenceEnd, earliest: head?.earliest, calendar: calendar)
            var reads: [Double] = [], encodes: [Double] = []
            var last: (TimelineSnapshot, [UInt8])?
            for _ in 0..<(page == .all ? 5 : 10) {
                let t0 = DispatchTime.now()
                guard let snapshot = try await store.timelineSnapshot(patientID: summary.patientID, from: window.start, to: window.end,
                                                                     inSlices: inSlices) else { continue }
                let t1 = DispatchTime.now()
                let payload = TimelinePayload.encode(snapshot, window: window)
                let t2 = DispatchTime.now()
                reads.append(Double(t1.uptimeNanoseconds - t0.uptimeNanoseconds) / 1e6)
                encodes.append(Double(t2.uptimeNanoseconds - t1.uptimeNanoseconds) / 1e6)
                last = (snapshot, payload)
            }
            rows.append(Row(page: page, inSlices: inSlices, entries: last?.0.entryCount ?? 0, ongoing: last?.0.ongoing.count ?? 0, bytes: last?.1.count ?? 0,
                            readMs: reads.sorted()[reads.count / 2], encodeMs: encodes.sorted()[encodes.count / 2]))
        }
        return rows
    }

    static func printTable(_ rows: [Row]) {
        print("")
        print("Timeline pages of a generated 100,000-entry patient, in process (p50): store read and JSON encoding")
        print(String(repeating: "-", count: 87))
        print(StoreBenchmark.pad("page", 18) + StoreBenchmark.pad("entries", 10) + StoreBenchmark.pad("ongoing", 10)
              + StoreBenchmark.pad("bytes", 12) + StoreBenchmark.pad("read ms", 12) + StoreBenchmark.pad("encode ms", 12) + "total ms")
        for r in rows {
            print(StoreBenchmark.pad(r.page.rawValue + (r.inSlices ? " (slices)" : ""), 18) + StoreBenchmark.pad("\(r.entries)", 10) + StoreBenchmark.pad("\(r.ongoing)", 10)
                  + StoreBenchmark.pad("\(r.bytes)", 12) + StoreBenchmark.pad(String(format: "%.2f", r.readMs), 12)
                  + StoreBenchmark.pad(String(format: "%.2f", r.encodeMs), 12) + String(format: "%.2f", r.readMs + r.encodeMs))
        }
    }

    static func json(_ rows: [Row]) -> String {
        "[" + rows.map { r in
            #"{"page":"\#(r.page.rawValue)","in_slices":\#(r.inSlices),"entries":\#(r.entries),"ongoing":\#(r.ongoing),"bytes":\#(r.bytes),"read_ms":\#(r.readMs),"encode_ms":\#(r.encodeMs)}"#
        }.joined(separator: ",") + "]"
    }
}
