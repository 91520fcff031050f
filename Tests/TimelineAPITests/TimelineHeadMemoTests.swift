import Foundation
import HealthRecord
import Store
import Testing
import TestSupport
@testable import TimelineAPI

/// The timeline's memo of heads (`TimelineHeadMemo`): known from memory until the store's next commit.
@Suite("The timeline head memo")
struct TimelineHeadMemoTests {
    @Test("a timeline head is known from memory until the next commit")
    func knownUntilACommit() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        let memo = TimelineHeadMemo()
        let summary = try store.importRecordSync(.record(entries: .numbered(3)))
        #expect(memo.known(patientID: nil, withEarliest: false, in: store) == nil, "nothing read yet")

        let head = try #require(try await memo.head(patientID: nil, withEarliest: true, in: store))
        #expect(head.patientID == summary.patientID)
        #expect(memo.known(patientID: nil, withEarliest: true, in: store) == head)
        #expect(memo.known(patientID: nil, withEarliest: false, in: store) == nil, "another question, not answered yet")
        #expect(memo.known(patientID: summary.patientID, withEarliest: true, in: store) == nil)

        _ = try await store.addTimelinePost(patientID: summary.patientID, kind: .levels, dataJSON: #"{"pain":"3"}"#)
        #expect(memo.known(patientID: nil, withEarliest: true, in: store) == nil, "a commit forgets every head")
        let newer = try #require(try await memo.head(patientID: nil, withEarliest: true, in: store))
        #expect(newer.revision == head.revision + 1)
        #expect(memo.known(patientID: nil, withEarliest: true, in: store) == newer)
        memo.forget()
        #expect(memo.known(patientID: nil, withEarliest: true, in: store) == nil, "forgotten with the key")
    }

    @Test("a head is known only for the store it was read from: a store opened again on the same file starts anew")
    func onlyForItsStore() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        _ = try store.importRecordSync(.record(entries: .numbered(3)))
        let memo = TimelineHeadMemo()
        _ = try #require(try await memo.head(patientID: nil, withEarliest: false, in: store))
        let again = try Store.open(at: store.directory, password: "pw", options: .timeline)
        defer { again.close() }
        #expect(again.commitCount == store.commitCount, "the same file, the same count")
        #expect(memo.known(patientID: nil, withEarliest: false, in: again) == nil)
        #expect(memo.known(patientID: nil, withEarliest: false, in: store) != nil)
    }

    @Test("an unknown patient is an error and is not remembered")
    func unknownPatient() async throws {
        let dir = TemporaryDirectory()
        let (store, _) = try TestStore.create(at: dir.file("state"))
        defer { store.close() }
        _ = try store.importRecordSync(.record(entries: .numbered(3)))
        let memo = TimelineHeadMemo()
        await #expect(throws: StoreError.self) { try await memo.head(patientID: "p_nobody", withEarliest: false, in: store) }
        #expect(memo.known(patientID: "p_nobody", withEarliest: false, in: store) == nil)
    }
}
