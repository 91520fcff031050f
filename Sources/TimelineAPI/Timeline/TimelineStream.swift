import HTTPKit
import HealthRecord
import Store

/// A timeline page written as it is read, a part at a time (`TimelineOutline` and the store's parts):
/// the bytes of `TimelinePayload.encode` for the same window, without ever holding the page, or its
/// entries, whole. For the `all` page of a long record (`TimelineReader.streamedPageEntries`): one
/// client's page of a 1,000,000-entry record is 160 MB.
///
/// Every part is read at the revision the page began at; when the record changes meanwhile, the stream
/// fails and the connection is closed (the client sees a cut body, never a page of two states).
actor TimelineStream {
    /// Rows read a part at a time: about 1 MB of one type's JSON.
    static let entriesPerPart = 2_000
    /// A chunk is handed to the connection once this much is written.
    static let chunkBytes = 256 << 10

    private enum Stage {
        case opening
        case entries(array: Int, after: TimelineCursor?, opened: Bool)
        case vitals
        case writingVitals
        case closing
        case done
    }

    private let store: Store
    private let head: TimelineHead
    private let window: TimelineWindow
    private var stage = Stage.opening
    private var json = JSONWriter(capacity: chunkBytes * 2)
    private var outline: TimelineOutline?
    private var annotated: Set<String> = []
    /// The vital signs' groups, read by a task of their own from the page's start, beside the entry arrays (on
    /// a second bulk reader): the groups are held until their array is written in any case.
    private var vitalsReading: Task<[VitalGroup], any Error>?
    private var vitalsWriting = TimelinePayload.VitalsWriting([])

    private let entriesPerPart: Int
    private let chunkBytes: Int

    init(store: Store, head: TimelineHead, window: TimelineWindow, entriesPerPart: Int = TimelineStream.entriesPerPart,
         chunkBytes: Int = TimelineStream.chunkBytes) {
        self.store = store
        self.head = head
        self.window = window
        self.entriesPerPart = entriesPerPart
        self.chunkBytes = chunkBytes
    }

    nonisolated var response: ResponseStream {
        ResponseStream(next: { try await self.next() })
    }

    /// The next chunk of the page; nil after the last. A failed page stops its vital signs' read too.
    func next() async throws -> ByteBuffer? {
        do {
            return try await nextChunk()
        } catch {
            vitalsReading?.cancel()
            vitalsReading = nil
            throw error
        }
    }

    private func nextChunk() async throws -> ByteBuffer? {
        while true {
            switch stage {
            case .opening:
                let outline = try await store.timelineOutline(patientID: head.patientID, revision: head.revision,
                                                              from: window.start, to: window.end)
                self.outline = outline
                annotated = Set(outline.annotations.keys)
                vitalsReading = Task { [store, head, window, annotated, entriesPerPart] in
                    try await Self.vitalGroups(store: store, head: head, window: window, spanning: outline.spanning,
                                               annotated: annotated, ownSigns: outline.readings.flatMap(\.vitalSigns),
                                               entriesPerPart: entriesPerPart)
                }
                TimelinePayload.writeOpening(outline.patient, window: window, to: &json)
                stage = .entries(array: 0, after: nil, opened: false)
            case let .entries(array, after, opened):
                guard array < TimelinePayload.entryArrays.count else {
                    stage = .vitals
                    continue
                }
                let (key, type) = TimelinePayload.entryArrays[array]
                guard let outline else { throw StoreError.changedDuringRead }
                let part = try await store.timelineEntries(patientID: head.patientID, revision: head.revision, type: type,
                                                           from: window.start, to: window.end, spanning: outline.spanning,
                                                           after: after, limit: entriesPerPart, annotated: annotated)
                var isOpen = opened
                if !part.entries.isEmpty {
                    if !isOpen {
                        // An array is present only when it is not empty: its key waits for its first entry.
                        json.key(key)
                        json.beginArray()
                        isOpen = true
                    }
                    json.raw(AnnotationJSON.elements(part.entries, annotations: outline.annotations))
                }
                if let next = part.next {
                    stage = .entries(array: array, after: next, opened: isOpen)
                } else {
                    if isOpen { json.endArray() }
                    stage = .entries(array: array + 1, after: nil, opened: false)
                }
            case .vitals:
                guard let vitalsReading else { throw StoreError.changedDuringRead }
                vitalsWriting = TimelinePayload.VitalsWriting(try await vitalsReading.value)
                self.vitalsReading = nil
                stage = .writingVitals
            case .writingVitals:
                // The groups' JSON is as long as their entries' would be: written a chunk at a time too.
                if vitalsWriting.write(to: &json, until: chunkBytes) {
                    vitalsWriting = TimelinePayload.VitalsWriting([])
                    stage = .closing
                }
            case .closing:
                guard let outline else { throw StoreError.changedDuringRead }
                TimelinePayload.writeClosing(ongoing: outline.ongoing, posts: outline.posts, readings: outline.readings,
                                             annotations: outline.annotations, alsoFrom: [:], to: &json)
                self.outline = nil
                stage = .done
            case .done:
                let rest = json.takeBytes()
                return rest.isEmpty ? nil : ByteBuffer(bytes: rest)
            }
            if json.bytes.count >= chunkBytes { return ByteBuffer(bytes: json.takeBytes()) }
        }
    }

    /// The window's vital signs in their groups, read a part at a time. As `TimelineSnapshot.merging`: a reading
    /// of the person's own goes before the first imported sign after it.
    private static func vitalGroups(store: Store, head: TimelineHead, window: TimelineWindow, spanning: TimelineSpanning,
                                    annotated: Set<String>, ownSigns: [StoredEntry], entriesPerPart: Int) async throws -> [VitalGroup] {
        var groups = VitalGroups.Builder()
        var nextOwnSign = 0
        var after: TimelineCursor?
        repeat {
            try Task.checkCancellation()
            let part = try await store.timelineEntries(patientID: head.patientID, revision: head.revision, type: .vitalSign,
                                                       from: window.start, to: window.end, spanning: spanning, after: after,
                                                       limit: entriesPerPart, annotated: annotated)
            for sign in part.vitalSigns {
                while nextOwnSign < ownSigns.count, let date = sign.date, let own = ownSigns[nextOwnSign].date, own < date {
                    groups.add(ownSigns[nextOwnSign])
                    nextOwnSign += 1
                }
                groups.add(sign)
            }
            after = part.next
        } while after != nil
        for sign in ownSigns[nextOwnSign...] { groups.add(sign) }
        return groups.groups
    }

    deinit { vitalsReading?.cancel() }
}
