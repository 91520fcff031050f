import Foundation
import Testing
import TimelineAPI
import HealthRecord
@testable import Store

@Suite("The commit counter")
struct CommitCounterTests {
    @Test("the count changes with every commit, from this store or another connection to the same file")
    func changesWithCommits() async throws {
        let dir = TemporaryDirectory()
        let (store, _, state) = try makeStore(in: dir)
        let first = try #require(store.commitCount, "a WAL store has a commit counter")
        #expect(store.commitCount == first, "reading changes nothing")

        let summary = try store.importRecordSync(.record(entries: .numbered(3)))
        let afterImport = try #require(store.commitCount)
        #expect(afterImport != first)

        // A second, independent store on the same file: what another process (`hreaderd sync`) does.
        let other = try Store.open(at: state, password: "correct horse", options: .timeline)
        _ = try await other.addTimelinePost(patientID: summary.patientID, kind: .levels, dataJSON: #"{"pain":"3"}"#)
        let afterOther = try #require(store.commitCount)
        #expect(afterOther != afterImport, "a commit through another connection is seen")
        other.close()

        // A read-only transaction is not a commit.
        _ = try await store.patients()
        #expect(store.commitCount == afterOther)
    }

    @Test("a closed store has no count, and reading it is safe")
    func closed() throws {
        let dir = TemporaryDirectory()
        let (store, _, _) = try makeStore(in: dir)
        store.close()
        #expect(store.commitCount == nil)
    }
}
