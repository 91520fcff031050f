import HTTPKit
import HealthRecord
import Store

/// A long record's export written as it is read, a part of its entries at a time (`Store.exportHead`,
/// `exportEntries`, `exportTail`): the bytes of `ExportDocument.encode`, without holding the document, or
/// the entries, whole. Each part is read at the revision the export began at; a change meanwhile cuts
/// the export short (see `TimelineStream`).
actor ExportStream {
    /// Entries read a part at a time: each has its source's JSON, so about 1 MB.
    static let entriesPerPart = 2_000

    private enum Stage {
        case head
        case entries(after: RecordExportCursor?)
        case tail
        case done
    }

    private let store: Store
    private let patientID: String
    private let entriesPerPart: Int
    private let chunkBytes: Int
    private var document: ExportDocument
    private var revision: Int64 = 0
    private var stage = Stage.head

    init(store: Store, patientID: String, exportedAt: Int64, entriesPerPart: Int = ExportStream.entriesPerPart,
         chunkBytes: Int = TimelineStream.chunkBytes) {
        self.store = store
        self.patientID = patientID
        self.entriesPerPart = entriesPerPart
        self.chunkBytes = chunkBytes
        document = ExportDocument(exportedAt: exportedAt)
    }

    nonisolated var response: ResponseStream {
        ResponseStream(next: { try await self.next() })
    }

    /// The next chunk of the document; nil after the last.
    func next() async throws -> ByteBuffer? {
        while true {
            switch stage {
            case .head:
                guard let (written, revision) = try await store.exportHead(patientID: patientID, into: document) else {
                    throw StoreError.changedDuringRead  // the patient was removed after the export began
                }
                (document, self.revision) = (written, revision)
                stage = .entries(after: nil)
            case let .entries(after):
                let (written, next) = try await store.exportEntries(patientID: patientID, revision: revision, after: after,
                                                                    limit: entriesPerPart, into: document)
                document = written
                stage = next.map { .entries(after: $0) } ?? .tail
            case .tail:
                document = try await store.exportTail(patientID: patientID, revision: revision, into: document)
                let rest = document.takeBytes() + document.finished()
                stage = .done
                return ByteBuffer(bytes: rest)
            case .done:
                return nil
            }
            if document.pendingBytes >= chunkBytes { return ByteBuffer(bytes: document.takeBytes()) }
        }
    }
}
