import FoundationEssentials
import HTTPKit
import HealthRecord
import Store

/// The timeline's read path, owned in one place: the window arithmetic (memoised), the payload cache,
/// the store's snapshot read and the encoding. The route parses the request, asks, and answers.
///
/// A page is keyed by patient, revision and window. A page that is cached and cannot have changed (no
/// commit since its head was read) is answered from memory, on the event loop; otherwise one read
/// resolves the head (enough to answer from the cache), and only a miss reads the snapshot.
final class TimelineReader: Sendable {
    let cache: PayloadCache
    private let windows: TimelineWindowMemo
    private let heads = TimelineHeadMemo()
    /// See `defaultStreamedPageEntries`.
    let streamedPageEntries: Int

    /// The `all` page of a record of 200,000 entries or more is written as it is read (`TimelineStream`):
    /// such a page is 30 MB and more, which a few clients at once would otherwise hold several times over.
    /// A shorter record's page is read in one snapshot and cached: faster, and small.
    public static let defaultStreamedPageEntries = 200_000

    /// The `all` and `decade` pages of a record of this many entries or more are read in slices, by two
    /// readers at once (`Store.timelineSnapshot(inSlices:)`): reading, mostly decrypting the timeline's index, is
    /// most of such a page's time, and a short page would pay a second reader for nothing.
    static let slicedReadEntries = 20_000

    init(calendar: Calendar, cacheBytes: Int = PayloadCache.defaultBytes, streamedPageEntries: Int = defaultStreamedPageEntries) {
        windows = TimelineWindowMemo(calendar: calendar)
        cache = PayloadCache(maximumBytes: cacheBytes)
        self.streamedPageEntries = streamedPageEntries
    }

    /// A page as it is answered: its bytes, or for a long record's `all` page, a stream of them.
    enum Answer {
        case whole(ByteBuffer)
        case streamed(ResponseStream)
    }

    /// What a request asks for.
    struct Request: Sendable {
        var page: TimelinePage
        var end: Int64
        /// nil: the current patient.
        var patientID: String?
    }

    /// `end` as a request gives it (RFC 3339, `YYYY-MM-DD`, epoch seconds); nil when it is not a time.
    func end(_ text: String) -> Int64? { windows.end(text) }

    /// The page from memory alone, when it is cached and nothing has committed since its head was read.
    /// Never blocks: for the event loop.
    func cachedPage(_ request: Request, store: Store) -> ByteBuffer? {
        guard let head = heads.known(patientID: request.patientID, withEarliest: request.page == .all, in: store) else { return nil }
        return cache.payload(for: key(request, head: head))
    }

    /// The page: from the cache when its revision is current, else read and encoded (and cached); a long
    /// record's `all` page (not a linked person's) is streamed.
    func page(_ request: Request, store: Store) async throws -> Answer {
        let withEarliest = request.page == .all
        var found = heads.known(patientID: request.patientID, withEarliest: withEarliest, in: store)
        if found == nil {
            do {
                found = try await heads.head(patientID: request.patientID, withEarliest: withEarliest, in: store)
            } catch .notFound {
                throw APIError.unknownPatient
            }
        }
        guard let head = found else { throw APIError.noPatient }
        let key = key(request, head: head)
        if let cached = cache.payload(for: key) { return .whole(cached) }
        if request.page == .all, head.members.count == 1, head.entryCount >= streamedPageEntries {
            return .streamed(TimelineStream(store: store, head: head, window: key.window).response)
        }
        guard let snapshot = try await store.timelineSnapshot(patientID: head.patientID, members: head.members,
                                                              from: key.window.start, to: key.window.end,
                                                              inSlices: Self.readsInSlices(request.page, entries: head.entryCount)) else {
            throw APIError.unknownPatient
        }
        let revision = snapshot.patient.revision
        // The snapshot goes as soon as it is written into the buffer that is sent: a large page is in memory
        // twice at most.
        let payload = TimelinePayload.page(consume snapshot, window: key.window)
        // Keyed by the snapshot's own revision: a post that landed in between makes it newer, never staler.
        cache.store(payload, for: PayloadCache.Key(patientID: head.patientID, revision: revision, window: key.window, members: key.members))
        return .whole(payload)
    }

    /// Whether a page of a record of `entries` entries is read in slices (`slicedReadEntries`).
    static func readsInSlices(_ page: TimelinePage, entries: Int) -> Bool {
        entries >= slicedReadEntries && (page == .all || page == .decade)
    }

    /// Cached pages and heads are decrypted patient data: they leave memory with the key.
    func forget() {
        cache.removeAll()
        heads.forget()
    }

    private func key(_ request: Request, head: TimelineHead) -> PayloadCache.Key {
        let window = windows.window(request.page, endingAt: request.end, earliest: head.earliest)
        return PayloadCache.Key(patientID: head.patientID, revision: head.revision, window: window,
                                members: head.members.count > 1 ? head.members : [])
    }
}
