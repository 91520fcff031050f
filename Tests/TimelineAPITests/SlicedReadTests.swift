import Foundation
import HealthRecord
@testable import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// A long window read in slices by two readers at once (`Store.timelineSnapshot(inSlices:)`) gives the page
/// the one read whole gives, byte for byte.
@Suite("timeline windows read in slices")
struct SlicedReadTests {
    static let base = TimelineStreamTests.base

    @Test("the same page as read whole: a slice bound on a second three entries share, spanning and late entries, annotations, readings, posts",
          arguments: [
              (base - 86_400 * 8, base + 8 * 3_600 * 100),  // bounds on hours of three entries each
              (base, base + 86_400 * 401),  // the late entries in the last slice
              (base + 3_600 * 5, base + 3_600 * 7),  // spanning entries begun before
              (base - 10, base + 10),  // three entries, in one slice
              (base - 100, base - 10),  // nothing dated in it
          ])
    func sameBytes(start: Int64, end: Int64) async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await TimelineStreamTests.filled(store)
        let window = TimelineWindow(start: start, end: end)
        let whole = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end))
        let sliced = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end, inSlices: true))
        let expected = TimelinePayload.encode(whole, window: window)
        #expect(TimelinePayload.encode(sliced, window: window) == expected)
        #expect(sliced.entryCount == whole.entryCount)
    }

    @Test("several slices hold entries in the window that says so, and an unknown patient is nil either way")
    func slicesAndUnknown() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let patientID = try await TimelineStreamTests.filled(store)
        let (start, end) = (Self.base - 86_400 * 8, Self.base + 8 * 3_600 * 100)
        let bounds = TimelineSnapshotQuery.sliceBounds(from: start, to: end, count: 8)
        let whole = try #require(try await store.timelineSnapshot(patientID: patientID, from: start, to: end))
        let dates = whole.vitalSigns.compactMap(\.date)
        let filled = (0..<8).filter { k in dates.contains { $0 > (k == 0 ? start - 1 : bounds[k]) && $0 <= bounds[k + 1] } }
        #expect(filled.count >= 4, "the comparison covers several slices: \(filled)")
        // A bound falls on a second three entries share (every hour of the record from its start).
        #expect(bounds.contains { ($0 - Self.base) % 3_600 == 0 && $0 > Self.base })
        #expect(try await store.timelineSnapshot(patientID: "p_nobody", from: start, to: end, inSlices: true) == nil)
    }

    @Test("the reader reads the all and decade pages of a long record in slices, and no other")
    func readerChoice() {
        let limit = TimelineReader.slicedReadEntries
        #expect(TimelineReader.readsInSlices(.all, entries: limit))
        #expect(TimelineReader.readsInSlices(.decade, entries: limit))
        #expect(!TimelineReader.readsInSlices(.all, entries: limit - 1))
        #expect(!TimelineReader.readsInSlices(.year, entries: limit * 10))
        #expect(!TimelineReader.readsInSlices(.month, entries: limit * 10))
    }
}
